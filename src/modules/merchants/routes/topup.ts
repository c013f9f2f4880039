// POST /merchants/accounts/topup — sandbox funding of the disbursement balance. Idempotent.
import { Type } from '@sinclair/typebox';
import { storeResponse, sendSerialized } from '../../../http/idempotency.ts';
import { ConnectorId, Email, MerchantAccountNumber, Money } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { topup } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  connectorId: ConnectorId,
  topupAmount: Money('0.01', '5000000000', 'Amount to credit, 0.01–5,000,000,000.00, at most 2 decimals.'),
  createdBy: Email(),
});

const Result = Type.Object({
  merchantAccountNumber: Type.Integer(),
  transactionReferenceNumber: Type.String(),
  connectorId: Type.Integer(),
  connectorName: Type.String(),
  topupAmount: Type.Number(),
  currencyCode: Type.String(),
  disbursmentBalance: Type.Number(),
  accountBalance: Type.Number(),
  dateCreated: Type.String({ format: 'date-time' }),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/accounts/topup', {
    config: { idempotent: true },
    schema: {
      tags: ['Merchants'],
      summary: 'Top up the disbursement balance',
      description: 'Credits the disbursement balance from a bank or wallet (sandbox funding). Send X-Idempotency-Key to make retries safe.',
      headers: Type.Object({ 'x-idempotency-key': Type.Optional(Type.String({ description: '15–80 characters of [A-Za-z0-9-].' })) }),
      body: Body,
      response: { 200: Result },
    },
    handler: async (request, reply) => {
      const body = await topup(
        deps,
        { merchantAccountNumber: request.body.merchantAccountNumber, connectorId: request.body.connectorId, topupAmountMinor: toMinor(request.body.topupAmount), createdBy: request.body.createdBy },
        (tx, result) => storeResponse(tx, request, reply, 200, result),
      );
      return sendSerialized(reply, body);
    },
  });
};
export default route;

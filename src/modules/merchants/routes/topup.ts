// POST /merchants/accounts/topup — sandbox funding of the disbursement balance. Idempotent.
import { Type } from '@sinclair/typebox';
import { storeResponse, sendSerialized } from '../../../http/idempotency.ts';
import { ConnectorId, Email, MerchantAccountNumber, Money } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { topup } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  connectorId: ConnectorId,
  topupAmount: Money('0.01', '5000000000', 'Amount to credit, 0.01–5,000,000,000.00, at most 2 decimals.'),
  createdBy: Email(),
}, {
  examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, connectorId: EXAMPLE.bank.connectorId, topupAmount: '1000000.00', createdBy: EXAMPLE.actor }],
});

/**
 * The flat transaction the gateway answers (docs.onekhusa.com, Merchant Account Topup) and its
 * client libraries decode, then the fields this service answered before (kept for its clients).
 */
const Result = Type.Object({
  transactionReferenceNumber: Type.String({ examples: ['CBPC73IQ5U2E'] }),
  beneficiaryAccountNumber: Type.Integer({ description: 'The merchant account credited.' }),
  beneficiaryName: Type.String(),
  beneficiaryCurrencyCode: Type.String(),
  sourceAccountNumber: Type.String({ description: 'The (sandbox) account the money came from.' }),
  sourceCustomerName: Type.String(),
  sourceReferenceNumber: Type.String(),
  sourceCurrencyCode: Type.String(),
  connectorName: Type.String(),
  amountSent: Type.Number(),
  amountReceived: Type.Number({ description: 'amountSent − transactionFee (a top-up has no fee).' }),
  transactionFee: Type.Number(),
  transactionDescription: Type.String(),
  transactionDate: Type.String({ format: 'date-time' }),
  valueDate: Type.String({ format: 'date-time' }),
  dateCreated: Type.String({ format: 'date-time' }),
  transactionCode: Type.String({ examples: ['BAM'] }),
  transactionTypeName: Type.String(),
  transactionStatusCode: Type.String({ examples: ['S'] }),
  transactionStatusName: Type.String(),
  bridgeReferenceNumber: Type.String(),
  responseCode: Type.String({ examples: ['S100'] }),
  responseMessage: Type.String(),
  merchantAccountNumber: Type.Integer(),
  connectorId: Type.Integer(),
  topupAmount: Type.Number(),
  currencyCode: Type.String(),
  disbursmentBalance: Type.Number({ description: 'The disbursement balance after the top-up.' }),
  accountBalance: Type.Number(),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/accounts/topup', {
    config: { idempotent: true },
    schema: {
      tags: ['Merchants'],
      summary: 'Top up the disbursement balance',
      description:
        'Credits the disbursement balance from a bank or wallet (sandbox funding; absent in production mode) and answers the recorded ' +
        'transaction, flat, as the gateway does. The money comes from a sandbox account of the connector (a bank connector such as ' +
        '212188 National Bank of Malawi, or a wallet such as 112400 Airtel Money). Fund the balance before testing payouts. Send ' +
        'X-Idempotency-Key to make retries safe.',
      headers: Type.Object({ 'x-idempotency-key': Type.Optional(Type.String({ description: '15–80 characters of [A-Za-z0-9-].' })) }),
      body: Body,
      response: { 200: { ...Result, description: 'The recorded top-up transaction and the balances after it.' } },
    },
    handler: async (request, reply) => {
      const body = await topup(
        deps,
        { merchantAccountNumber: request.body.merchantAccountNumber, connectorId: request.body.connectorId, topupAmountMinor: toMinor(request.body.topupAmount), createdBy: request.body.createdBy },
        (tx, result) => storeResponse(tx, request, reply, 200, result),
        request.lang,
      );
      return sendSerialized(reply, body);
    },
  });
};
export default route;

// E11 POST /collections/addFakeCustomPayment — a customer pays the merchant's payment account
// directly (simulated). Idempotent. Emits payment.success.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { Email, Money } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { CollectionResult } from '../schemas.ts';
import { collectionView, payPaymentAccount } from '../service.ts';

/** The request body (the console checks its form against the same limits). */
export const Body = Type.Object({
  beneficiaryAccountNumber: Type.String({ minLength: 10, maxLength: 15, pattern: '^[0-9]+$', description: 'The merchant\'s payment account number.' }),
  connectorId: Type.Integer({ minimum: 100000, maximum: 999999, description: 'Connector the customer pays from (6 digits).' }),
  transactionAmount: Money('0.01', '50000000', 'Greater than 0 and at most 50,000,000.'),
  createdBy: Email(60),
}, {
  examples: [{ beneficiaryAccountNumber: EXAMPLE.paymentAccountNumber, connectorId: EXAMPLE.wallet.connectorId, transactionAmount: '50000.00', createdBy: EXAMPLE.actor }],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/addFakeCustomPayment', {
    config: { idempotent: true },
    schema: {
      tags: ['Collections'],
      summary: 'Simulate a customer payment (E11)',
      description:
        "A customer pays the merchant's payment account number (beneficiaryAccountNumber: 10–15 digits, printed by the start-up " +
        'banner and shown by GET /merchants/accounts/get) from a connector (e.g. 112400 Airtel Money, 212188 National Bank of Malawi). ' +
        'The collection balance is credited with the amount less the fee (1 %), and a `payment.success` event is sent to the ' +
        "merchant's webhook. Sandbox only (absent in production mode). Send X-Idempotency-Key to make retries safe.",
      body: Body,
      response: { 200: { ...CollectionResult, description: 'The simulated payment: beneficiary (the merchant), source (the customer) and transaction.' } },
    },
    handler: async (request, reply) => {
      const { transactionAmount, ...rest } = request.body;
      const body = await withTransaction(deps.db, async (tx) => {
        const paid = await payPaymentAccount(tx, { ...rest, merchantAccountNumber: request.principal!.merchantAccountNumber, amountMinor: toMinor(transactionAmount) });
        return storeResponse(tx, request, reply, 200, collectionView(request.lang, paid));
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;

// E11 POST /collections/addFakeCustomPayment — a customer pays the merchant's payment account
// directly (simulated). Idempotent. Emits payment.success.
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { CollectionResult, CustomPaymentBody } from '../schemas.ts';
import { collectionView, payPaymentAccount } from '../service.ts';


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
      body: CustomPaymentBody,
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

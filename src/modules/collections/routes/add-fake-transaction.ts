// POST /collections/requestToPay/addFakeTransaction — the customer pays a timed account
// (simulated). Idempotent. Emits payrequest.success.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { ConnectorId, Email, MerchantAccountNumber, Money } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { CollectionResult, TimedAccountNumber } from '../schemas.ts';
import { collectionView, payTimedAccount } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionAmount: Money('0.01', '50000000', 'Must equal the requested amount.'),
  connectorId: ConnectorId,
  timedAccountNumber: TimedAccountNumber,
  currencyCode: Type.String({ pattern: '^[A-Z]{3}$', examples: ['MWK'] }),
  capturedBy: Email(),
}, {
  examples: [
    { merchantAccountNumber: EXAMPLE.merchantAccountNumber, transactionAmount: '2500.00', connectorId: EXAMPLE.wallet.connectorId, timedAccountNumber: '13456789', currencyCode: 'MWK', capturedBy: EXAMPLE.actor },
  ],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/requestToPay/addFakeTransaction', {
    config: { idempotent: true },
    schema: {
      tags: ['Collections'],
      summary: 'Pay a timed account (simulated)',
      description:
        'The customer pays a timed account from POST /collections/requestToPay/initiate (E12): use its timedAccountNumber and the ' +
        'requested amount. The timed account must exist, be unexpired and unpaid; the amount and currency must match (402 E920 ' +
        'expired, E921 already paid, E922 amount, E923 currency). Credits the collection balance and sends a `payrequest.success` ' +
        'event. Sandbox only (absent in production mode). Send X-Idempotency-Key to make retries safe.',
      body: Body,
      response: { 200: { ...CollectionResult, description: 'The collection recorded for the timed account.' } },
    },
    handler: async (request, reply) => {
      const { transactionAmount, ...rest } = request.body;
      const body = await withTransaction(deps.db, async (tx) => {
        const paid = await payTimedAccount(tx, { ...rest, amountMinor: toMinor(transactionAmount) });
        return storeResponse(tx, request, reply, 200, collectionView(request.lang, paid));
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;

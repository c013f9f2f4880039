// E12 POST /collections/requestToPay/initiate — a short-lived timed account for the customer to
// pay into. Idempotent with X-Idempotency-Key.
import type { Static } from '@sinclair/typebox';
import type pg from 'pg';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { RequestToPayBody, TimedAccount } from '../schemas.ts';
import { initiate } from '../service.ts';


const route: RouteModule = (app, { deps, requestBatcher }) => {
  app.post('/collections/requestToPay/initiate', {
    config: { idempotent: true },
    schema: {
      tags: ['Collections'],
      summary: 'Initiate a request to pay (E12)',
      description:
        'Returns an 8-digit timed account number (begins with 1) for the customer to pay into, valid for 15 minutes ' +
        '(TIMED_ACCOUNT_MINUTES). When it is paid (in the sandbox: POST /collections/requestToPay/addFakeTransaction), the ' +
        'collection balance is credited and a `payrequest.success` event carries your referenceNumber for reconciliation. ' +
        'Send X-Idempotency-Key to make retries safe.',
      body: RequestToPayBody,
      response: { 200: { ...TimedAccount, description: 'The timed account, its expiry time (UTC) and its lifetime in minutes.' } },
    },
    handler: async (request, reply) => {
      const { transactionAmount, ...rest } = request.body;
      // A keyed request made alone stores its answer in the insert's transaction; otherwise there is
      // none (a batched keyed request's answer was stored by the batch's statement).
      const respond = async (tx: pg.PoolClient | undefined, result: Static<typeof TimedAccount>) =>
        tx ? storeResponse(tx, request, reply, 200, result) : String(reply.code(200).serialize(result));
      const body = await initiate(deps, { ...rest, amountMinor: toMinor(transactionAmount) }, respond, request.idempotency, requestBatcher);
      return sendSerialized(reply, body);
    },
  });
};
export default route;

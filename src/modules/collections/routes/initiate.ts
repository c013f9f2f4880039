// E12 POST /collections/requestToPay/initiate — a short-lived timed account for the customer to
// pay into. Idempotent with X-Idempotency-Key.
import { Type } from '@sinclair/typebox';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { Email, MerchantAccountNumber, Money } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { TimedAccount } from '../schemas.ts';
import { initiate } from '../service.ts';

export const ReferenceNumber = Type.String({ minLength: 5, maxLength: 25, pattern: '^[A-Za-z0-9]+$', description: 'The merchant system\'s reference (5–25 alphanumerics), unique while its request is open.' });

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionAmount: Money('0.01', '50000000', 'Amount the customer must pay, at most 2 decimals.'),
  transactionDescription: Type.String({ minLength: 1, maxLength: 200 }),
  referenceNumber: ReferenceNumber,
  capturedBy: Email(),
}, {
  examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, transactionAmount: '2500.00', transactionDescription: 'School shoes, size 5', referenceNumber: 'ORDER10001', capturedBy: EXAMPLE.actor }],
});

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
      body: Body,
      response: { 200: { ...TimedAccount, description: 'The timed account, its expiry time (UTC) and its lifetime in minutes.' } },
    },
    handler: async (request, reply) => {
      const { transactionAmount, ...rest } = request.body;
      const body = await initiate(deps, { ...rest, amountMinor: toMinor(transactionAmount) }, (q, result) => storeResponse(q, request, reply, 200, result), request.idempotency !== undefined, requestBatcher);
      return sendSerialized(reply, body);
    },
  });
};
export default route;

// POST /disbursements/single/add — one payout at the merchant's authorisation level: level 1
// checked and debited at once, then processed by the payout worker like a batch line
// (payout.success|failed|reversed); levels 2 and 3 checked and kept pending (P, nothing debited)
// until single/approve (after single/review at level 3). Idempotent.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { Email, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EXAMPLE_PAYOUTS, SANDBOX_PAYOUTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { PayoutInputFields } from '../schemas.ts';
import { addSinglePayout } from '../service.ts';

const Body = Type.Object(
  { merchantAccountNumber: MerchantAccountNumber, ...PayoutInputFields, capturedBy: Email() },
  { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, ...EXAMPLE_PAYOUTS[1], sourceReferenceNumber: 'REFUND-0001', transactionDescription: 'Refund of order 1001', capturedBy: EXAMPLE.actor }] },
);

const Result = Type.Object({
  merchantAccountNumber: Type.Integer(),
  transactionReferenceNumber: Type.String(),
  responseCode: Type.String({ description: 'T100: accepted and on its way, the outcome arriving as payout.* events (level 1); P100: awaiting review or approval (levels 2 and 3).' }),
}, { description: "The payout was accepted: its transaction reference and responseCode (T100 submitted, P100 awaiting approval)." });

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/single/add', {
    config: { idempotent: true },
    schema: {
      tags: ['Disbursements'],
      summary: 'Add a single payout',
      description:
        'Checks the connector, the account format and the amount limits (402 E914). Level 1 (two eyes): also the daily limit (402 E912), debits amount + fee (402 E911 when the balance is too low) and submits the payout (T100). Levels 2 and 3: stores it as P (P100), debiting and counting nothing until PUT single/approve (level 3: PUT single/review first). The outcome arrives as `payout.success`, `payout.failed` or `payout.reversed`. Send X-Idempotency-Key to make retries safe.\n\n' +
        SANDBOX_PAYOUTS_TEXT,
      body: Body,
      response: { 200: Result },
    },
    handler: async (request, reply) => {
      const body = await withTransaction(deps.db, async (tx) => {
        const payout = await addSinglePayout(tx, request.body);
        const result = { merchantAccountNumber: payout.merchant_account_number, transactionReferenceNumber: payout.transaction_reference_number, responseCode: payout.response_code ?? '' };
        return storeResponse(tx, request, reply, 200, result);
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;

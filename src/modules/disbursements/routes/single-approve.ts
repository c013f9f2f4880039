// PUT /disbursements/single/approve — level 2 from pending, level 3 once reviewed: the money is
// reserved (daily limit, debit of amount + fee) and the payout submitted, in one transaction.
// Idempotent.
import { Type } from '@sinclair/typebox';
import { SANDBOX_PAYOUTS_TEXT } from '../docs.ts';
import { singleActionRoute } from '../single-action-route.ts';

const Result = Type.Object({
  merchantAccountNumber: Type.Integer(),
  transactionReferenceNumber: Type.String(),
  responseCode: Type.String({ description: 'T100: approved and on its way; the outcome arrives as payout.* events.' }),
}, { description: 'The payout was approved and submitted: its reference and responseCode T100.' });

export default singleActionRoute({
  method: 'PUT',
  url: '/disbursements/single/approve',
  action: 'approve',
  summary: 'Approve a single payout',
  description:
    'Level 2 (four eyes) from P, level 3 (six eyes) once reviewed. In one transaction: the daily limit (402 E912), the debit of amount + fee from the disbursement balance (402 E911 when it is too low: nothing changes, the payout still awaits approval) and the payout to T, processed at once like any other (payout.success|failed|reversed). The approver must be neither the capturer nor the reviewer (403 E902). 402 E916 when the payout is not awaiting approval (level 1 payouts never are). Send X-Idempotency-Key to make retries safe.\n\n' +
    SANDBOX_PAYOUTS_TEXT,
  actorField: 'actionedBy',
  result: Result,
  answer: (_request, payout) => ({ merchantAccountNumber: payout.merchant_account_number, transactionReferenceNumber: payout.transaction_reference_number, responseCode: payout.response_code ?? '' }),
});

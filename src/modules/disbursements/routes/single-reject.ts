// POST /disbursements/single/reject — a single payout awaiting review or approval → X, with a
// reason; it never moved money. Idempotent.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { Message } from '../../../http/schemas.ts';
import { singleActionRoute } from '../single-action-route.ts';

export default singleActionRoute({
  method: 'POST',
  url: '/disbursements/single/reject',
  action: 'reject',
  summary: 'Reject a single payout',
  description:
    'Levels 2 and 3: a payout awaiting review or approval becomes X (Rejected), with the reason; nothing was debited, so nothing is refunded. 402 E916 once it was approved (or at level 1, where it is paid at once). Answers "Transaction <reference> has been rejected successfully". Send X-Idempotency-Key to make retries safe.',
  actorField: 'rejectedBy',
  extra: { reasonForRejection: Type.String({ minLength: 1, maxLength: 500, description: 'Why it is rejected.', examples: ['Duplicate of an earlier payout'] }) },
  reason: (body) => body.reasonForRejection as string,
  result: { ...Message, description: 'The payout was rejected: a confirmation message (JSON string).' },
  answer: (request, payout) => t(request.lang, 'ok.singleRejected', { reference: payout.transaction_reference_number }),
});

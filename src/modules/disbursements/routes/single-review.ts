// PUT /disbursements/single/review — level 3: a pending single payout is reviewed (it stays P,
// now awaiting approval); the reviewer is not the capturer. Idempotent.
import { Message } from '../../../http/schemas.ts';
import { t } from '../../../http/i18n.ts';
import { singleActionRoute } from '../single-action-route.ts';

export default singleActionRoute({
  method: 'PUT',
  url: '/disbursements/single/review',
  action: 'review',
  summary: 'Review a single payout',
  description:
    'Level 3 (six eyes) only: the first of the two approvals a single payout needs. It stays P (pending), now awaiting approval; no money moves. The reviewer must not be the capturer (403 E902); a merchant with active merchant users reviews through a user whose role allows it. 402 E916 when the payout is not awaiting review. Answers "Transaction <reference> has been reviewed successfully". Send X-Idempotency-Key to make retries safe.',
  actorField: 'actionedBy',
  result: { ...Message, description: 'The payout was reviewed: a confirmation message (JSON string).' },
  answer: (request, payout) => t(request.lang, 'ok.singleReviewed', { reference: payout.transaction_reference_number }),
});

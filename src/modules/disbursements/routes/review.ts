// PUT /disbursements/batch/review — level 3: P → R; the reviewer is not the capturer. Idempotent.
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'PUT',
  url: '/disbursements/batch/review',
  action: 'review',
  summary: 'Review a batch',
  description: 'Level 3 batches only, from P (Pending Review) to R. The reviewer must not be the capturer (403 E902).',
  actorField: 'actionedBy',
});

// PUT /disbursements/batch/approve — P (level 2) or R (level 3) → A; four eyes. Idempotent.
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'PUT',
  url: '/disbursements/batch/approve',
  action: 'approve',
  summary: 'Approve a batch',
  description: 'Level 2 from P, level 3 from R, to A. The approver must be neither the capturer nor the reviewer (403 E902).',
  actorField: 'actionedBy',
});

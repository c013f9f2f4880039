// POST /disbursements/batch/cancel — P, R or A → N, only before funds move. Idempotent.
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'POST',
  url: '/disbursements/batch/cancel',
  action: 'cancel',
  summary: 'Cancel a batch',
  description: 'From P, R or A (before funds move), to N; every valid line becomes C.',
  actorField: 'cancelledBy',
});

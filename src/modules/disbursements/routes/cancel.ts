// POST /disbursements/batch/cancel — P, R or A → N before funds move; T → N while a scheduled
// batch waits for its day, with everything refunded. Idempotent.
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'POST',
  url: '/disbursements/batch/cancel',
  action: 'cancel',
  summary: 'Cancel a batch',
  description:
    'From P, R or A (before funds move), to N; every valid line becomes C. Also from T while a scheduled batch waits for its scheduledDate (no line due or sent yet): the amounts and fees debited by transferFunds are refunded to the disbursement balance and the daily limit they reserved is released. Once the day has come (processing started) the answer is 402 E916.',
  actorField: 'cancelledBy',
});

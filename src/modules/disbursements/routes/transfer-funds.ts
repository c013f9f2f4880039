// POST /disbursements/batch/transferFunds — P (level 1) or A → T: checks the daily limits, debits
// amounts + fees, hands the lines to the payout worker. Idempotent.
import { SANDBOX_PAYOUTS_TEXT } from '../docs.ts';
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'POST',
  url: '/disbursements/batch/transferFunds',
  action: 'transferFunds',
  summary: 'Transfer funds for a batch',
  description:
    'Level 1 from P, levels 2–3 from A. In one transaction: daily limits per transaction code (402 E912), the debit of the valid amounts plus fees from the disbursement balance (402 E911 when it is too low; nothing changes), and the lines to T. A scheduled batch is processed on its scheduledDate. ' +
    'Each line\'s outcome arrives as `batch.payout.success`, `batch.payout.failed` or `batch.payout.reversed`.\n\n' +
    SANDBOX_PAYOUTS_TEXT,
  actorField: 'transferredBy',
});

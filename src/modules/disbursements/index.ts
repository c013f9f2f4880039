// The disbursements module: batches (JSON and files) and single payouts, their review and
// approval, and the jobs that validate batches and process payouts.
import { withTransaction } from '../../db/pool.ts';
import type { ModuleDefinition } from '../../module.ts';
import { SANDBOX_INTRO } from './docs.ts';
import { processMerchantPayouts, sweepPayouts } from './processing.ts';
import batchAddFile from './routes/add-file.ts';
import batchAddJson from './routes/add-json.ts';
import batchApprove from './routes/approve.ts';
import batchDownload from './routes/batch-download.ts';
import batchCancel from './routes/cancel.ts';
import batchDownloadErrors from './routes/download-errors.ts';
import batchGet from './routes/get-batch.ts';
import batchGetBatches from './routes/get-batches.ts';
import batchGetTransaction from './routes/get-transaction.ts';
import batchGetTransactions from './routes/get-transactions.ts';
import batchReject from './routes/reject.ts';
import batchReview from './routes/review.ts';
import singleAdd from './routes/single-add.ts';
import singleApprove from './routes/single-approve.ts';
import singleGetTransaction from './routes/single-get-transaction.ts';
import singleGetTransactions from './routes/single-get-transactions.ts';
import singleReject from './routes/single-reject.ts';
import singleReview from './routes/single-review.ts';
import batchTransferFunds from './routes/transfer-funds.ts';
import { PROCESS_TASK, sweepValidations, VALIDATE_TASK, validateBatch } from './service.ts';

export const PAYOUTS_SWEEP_TASK = 'payouts_sweep';
export const VALIDATIONS_SWEEP_TASK = 'validations_sweep';
/** Payouts due this long without progress are presumed orphaned (their worker died) and re-queued. */
const PAYOUT_OVERDUE_SECONDS = 30;
/**
 * Batches queued this long are presumed orphaned and their validation re-queued. Validating the
 * largest batch takes seconds; only a long queue of submissions keeps one waiting minutes, and a
 * second job for a batch is harmless anyway (see sweepValidations).
 */
const VALIDATION_OVERDUE_SECONDS = 300;

export const disbursementsModule: ModuleDefinition = {
  name: 'disbursements',
  routes: [
    batchAddJson,
    batchGetBatches,
    batchGetTransactions,
    batchGet,
    batchGetTransaction,
    batchReview,
    batchApprove,
    batchReject,
    batchCancel,
    batchTransferFunds,
    singleAdd,
    singleGetTransaction,
    singleGetTransactions,
    singleReview,
    singleApprove,
    singleReject,
    batchDownload,
    batchAddFile,
    batchDownloadErrors,
  ],
  tasks: (deps) => ({
    [VALIDATE_TASK]: async (payload) => {
      const { batchNumber, merchantAccountNumber } = payload as { batchNumber: number; merchantAccountNumber?: number };
      const batch = await withTransaction(deps.db, (tx) => validateBatch(deps, tx, batchNumber, merchantAccountNumber));
      if (batch) deps.log.info({ batchNumber, status: batch.status_code, invalid: batch.number_of_invalid_entries }, 'batch validated');
    },
    [PROCESS_TASK]: async (payload) => {
      const { merchantAccountNumber } = payload as { merchantAccountNumber: number };
      const done = await processMerchantPayouts(deps, merchantAccountNumber);
      if (done.processed > 0) deps.log.info({ merchantAccountNumber, ...done }, 'payouts processed');
    },
    [PAYOUTS_SWEEP_TASK]: async () => {
      const woken = await sweepPayouts(deps, PAYOUT_OVERDUE_SECONDS);
      if (woken > 0) deps.log.warn({ merchants: woken }, 'overdue payouts re-queued');
    },
    [VALIDATIONS_SWEEP_TASK]: async () => {
      const requeued = await sweepValidations(deps.db, VALIDATION_OVERDUE_SECONDS);
      if (requeued > 0) deps.log.warn({ batches: requeued }, 'overdue batch validations re-queued');
    },
  }),
  // Payouts and batch validations every minute: re-queues work whose job died with its worker
  // (see sweepPayouts, sweepValidations).
  cron: [`* * * * * ${PAYOUTS_SWEEP_TASK} ?max=1`, `* * * * * ${VALIDATIONS_SWEEP_TASK} ?max=1`],
  // A worker starting after a crash picks up the payouts and validations the dead one held, without waiting.
  onWorkerStart: async (deps) => {
    await sweepPayouts(deps, 0);
    await sweepValidations(deps.db, 0);
  },
  docsIntro: [SANDBOX_INTRO],
};

// Disbursements (product.md §9): accepting batches, validating them in the background, the
// approval lifecycle, the funds transfer that debits the merchant, and single payouts. Each action
// is one transaction: state, lines, ledger transfer, job and event commit together or not at all.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { hasMessage, t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { enqueue } from '../../jobs/queue.ts';
import { emitEvent } from '../../jobs/outbox.ts';
import { formatMajor, toMajor, toMinor } from '../../lib/money.ts';
import { activeConnector } from '../connectors/repository.ts';
import { feeFor } from '../fees/schedule.ts';
import { checkAmount, checkDaily, limitFor } from '../limits/enforce.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../ledger/ledger.ts';
import { lockMerchant, MERCHANT, type MerchantRow } from '../merchants/repository.ts';
import { authoriseActor, type DecisionChannel } from '../users/permissions.ts';
import { batchPayload } from '../webhooks/payloads.ts';
import {
  allowed,
  BATCH,
  fourEyesConflict,
  LINE_STATUS_ON,
  LINE_STATUS_NAMES,
  PAYOUT,
  payableAmount,
  SINGLE_TRANSITIONS,
  singleAllowed,
  singleStage,
  singleStatusAtCapture,
  statusDescription,
  transitionFrom,
  TRANSITIONS,
  validLineStatus,
  type Actor,
  type BatchAction,
  type SingleAction,
} from './lifecycle.ts';
import { CONTENT_TYPES, ERRORS_DOCUMENT_NAME } from './documents.ts';
import * as repo from './repository.ts';
import { compactLines, stagedLinesOfUpload, type BatchLine } from './upload.ts';
import { accountFormatValid } from './accounts.ts';
import type { PayoutInput } from './schemas.ts';

export const PROCESS_TASK = 'process_payouts';
export const VALIDATE_TASK = 'validate_batch';

async function activeMerchant(tx: pg.PoolClient, merchantAccountNumber: number): Promise<MerchantRow> {
  const merchant = await lockMerchant(tx, merchantAccountNumber);
  if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
  if (merchant.status_code !== MERCHANT.active) throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber });
  return merchant;
}

function utcToday(deps: Deps): string {
  return deps.clock.now().toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Submission (E8, addFile)

export interface BatchSubmission {
  merchantAccountNumber: number;
  isBatchScheduled: boolean;
  scheduledDate?: string | null;
  capturedBy: string;
  uploadType: repo.BatchRow['upload_type'];
  /** A file's lines carry their row, and a console upload's may carry an amount that is not one (upload.ts BatchLine). */
  transactions: BatchLine[];
  /** The raw body, already copied into batch_upload_chunks in this transaction (upload.ts). */
  uploadId?: string;
}

/**
 * Scheduled batches need a date from today to SCHEDULE_MAX_DAYS ahead (UTC); unscheduled ones
 * ignore it. The bound matters because transferFunds debits a scheduled batch at once: without it
 * a date such as 9999-12-31 would hold the merchant's money for ever.
 */
export function scheduledDateOf(deps: Deps, isBatchScheduled: boolean, scheduledDate: string | null | undefined): string | null {
  if (!isBatchScheduled) return null;
  if (!scheduledDate) throw new AppError('validation', 'detail.scheduledDateRequired');
  const today = utcToday(deps);
  if (scheduledDate < today) throw new AppError('validation', 'detail.scheduledDatePast', { date: scheduledDate });
  const days = deps.config.scheduleMaxDays;
  const latest = new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  // Both YYYY-MM-DD (the schema's date format): they compare as text.
  if (scheduledDate > latest) throw new AppError('validation', 'detail.scheduledDateTooFar', { date: scheduledDate, days, latest });
  return scheduledDate;
}

/**
 * Stores the batch as queued, with its validation job, in the caller's transaction. The lines are
 * kept as one compact JSON value (batches.staged_lines), or as the upload already copied, until
 * the job expands them.
 */
export async function submitBatch(deps: Deps, tx: pg.PoolClient, s: BatchSubmission): Promise<{ merchantAccountNumber: number; batchNumber: number; BatchStatusCode: 'Q' }> {
  const scheduledDate = scheduledDateOf(deps, s.isBatchScheduled, s.scheduledDate);
  const merchant = await activeMerchant(tx, s.merchantAccountNumber);
  const batchNumber = await repo.insertBatch(tx, {
    merchantAccountNumber: merchant.merchant_account_number,
    currencyCode: merchant.currency_code,
    levelNumber: merchant.level_number,
    uploadType: s.uploadType,
    isBatchScheduled: s.isBatchScheduled,
    scheduledDate,
    capturedBy: s.capturedBy,
    numberOfEntries: s.transactions.length,
    lines: s.uploadId ? { uploadId: s.uploadId } : { stagedLines: compactLines(s.transactions) },
  });
  await enqueueValidation(tx, merchant.merchant_account_number, batchNumber);
  return { merchantAccountNumber: merchant.merchant_account_number, batchNumber, BatchStatusCode: 'Q' };
}

// ---------------------------------------------------------------------------------------------
// Validation job

/** Validates a queued batch, set-based; re-running it for a batch already validated does nothing. */
export async function validateBatch(deps: Deps, tx: pg.PoolClient, batchNumber: number, merchantAccountNumber?: number): Promise<repo.BatchRow | undefined> {
  // A job queued before its payload named the merchant: found lock-free, then locked on its shard.
  const owner = merchantAccountNumber ?? (await repo.merchantOfBatch(tx, batchNumber));
  if (owner === undefined) return undefined;
  const batch = await repo.lockQueuedBatch(tx, owner, batchNumber);
  if (!batch) return undefined;
  const merchant = await lockMerchant(tx, batch.merchant_account_number);
  let done: repo.BatchRow;
  if (!merchant || merchant.status_code !== MERCHANT.active) {
    done = await repo.failQueuedBatch(tx, owner, batchNumber, t('en', 'detail.merchantInactive', { merchantAccountNumber: batch.merchant_account_number }));
  } else {
    const stagedLines = batch.upload_id ? stagedLinesOfUpload(await repo.readUpload(tx, batch.merchant_account_number, batch.upload_id)) : null;
    if (stagedLines === undefined) {
      // Only if the line schema changed between accepting the upload and validating it.
      done = await repo.failQueuedBatch(tx, owner, batchNumber, t('en', 'batchError.unreadableUpload'));
    } else {
      await repo.expandBatch(tx, batch, validLineStatus(batch.level_number), stagedLines);
      done = await repo.finishValidation(tx, owner, batchNumber, t('en', 'batchError.noValidLines'));
    }
  }
  await emitEvent(tx, done.merchant_account_number, done.status_code === BATCH.pending ? 'batch.received' : 'batch.failed', batchEvent(deps, done));
  return done;
}

/**
 * Batches still queued for validation whose job was lost with a killed worker (graphile-worker
 * keeps a dead worker's job locked for hours): their validation is queued again. A second job for
 * a batch being or already validated does nothing, since validateBatch claims a batch only while
 * it is Q, under the batch row's lock. One keyed job per batch, however often the sweep runs.
 */
export async function sweepValidations(db: Deps['db'], overdueSeconds: number): Promise<number> {
  const { rows } = await db.query<{ merchant_account_number: number; batch_number: number }>(
    `select merchant_account_number, batch_number from batches where status_code = 'Q' and date_captured <= now() - make_interval(secs => $1)`,
    [overdueSeconds],
  );
  for (const r of rows) await enqueueValidation(db, r.merchant_account_number, r.batch_number);
  return rows.length;
}

/** The job names the merchant as well, so that it locks the batch on the merchant's shard (Citus). */
function enqueueValidation(q: pg.PoolClient | Deps['db'], merchantAccountNumber: number, batchNumber: number): Promise<void> {
  return enqueue(q, VALIDATE_TASK, { batchNumber, merchantAccountNumber }, { maxAttempts: 5, jobKey: `validate:${batchNumber}` });
}

export type BatchEventFields = Pick<
  repo.BatchRow,
  | 'merchant_account_number'
  | 'status_code'
  | 'is_batch_scheduled'
  | 'scheduled_date'
  | 'upload_type'
  | 'captured_by'
  | 'date_captured'
  | 'error_message'
  | 'batch_number'
  | 'total_amount_minor'
  | 'number_of_entries'
  | 'number_of_invalid_entries'
>;

/** batch.received for a pending batch, batch.failed for any other (E after validation, F). */
export function batchEvent(deps: Deps, b: BatchEventFields) {
  return batchPayload(b.status_code === BATCH.pending ? 'batch.received' : 'batch.failed', {
    merchantAccountNumber: b.merchant_account_number,
    isBatchScheduled: b.is_batch_scheduled,
    scheduledDate: b.scheduled_date,
    uploadType: b.upload_type,
    capturerEmailAddress: b.captured_by,
    dateCaptured: b.date_captured.toISOString().slice(0, 10),
    errorMessage: b.error_message,
    batchNumber: b.batch_number,
    totalAmount: toMajor(b.total_amount_minor),
    numberOfTransactions: b.number_of_entries - b.number_of_invalid_entries,
    dateOccurred: deps.clock.now().toISOString(),
  });
}

// ---------------------------------------------------------------------------------------------
// Lifecycle actions

export interface ActionInput {
  merchantAccountNumber: number;
  batchNumber: number;
  actionedBy: string;
  reason?: string;
  /** 'console': the actor is the signed-in user (allowed when the merchant decides in the console only). Default 'api'. */
  channel?: DecisionChannel;
}

const ACTOR_COLUMN = { review: 'reviewed', approve: 'approved', reject: 'rejected', cancel: 'cancelled', transferFunds: 'transferred' } as const;

/**
 * Four eyes (lifecycle.ts notBy), for batches and single payouts alike: the actor is none of the
 * users who already acted in these roles. Compared in one canonical form, the stored names as
 * they were sent (src/lib/actor.ts).
 */
function assertFourEyes(notBy: readonly Actor[], acted: { captured_by: string; reviewed_by: string | null }, actionedBy: string, refusal: (role: Actor) => AppError): void {
  const role = fourEyesConflict(notBy, { capturedBy: acted.captured_by, reviewedBy: acted.reviewed_by }, actionedBy);
  if (role) throw refusal(role);
}

/** The batch, locked, if the action is allowed on it now and by this user; a specific 4xx otherwise. */
async function lockForAction(tx: pg.PoolClient, action: BatchAction, input: ActionInput): Promise<repo.BatchRow> {
  const batch = await repo.findBatch(tx, input.merchantAccountNumber, input.batchNumber, { lock: 'for update' });
  if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber: input.batchNumber });
  if (batch.status_code === BATCH.queued) throw new AppError('conflict', 'detail.batchValidating', { batchNumber: batch.batch_number }, { headers: { 'retry-after': '1' } });
  if (!allowed(action, batch.status_code, batch.level_number)) {
    throw new AppError('invalidState', 'detail.batchState', { batchNumber: batch.batch_number, status: { key: `batchStatus.${batch.status_code}` }, action: { key: `action.${action}` } });
  }
  assertFourEyes(TRANSITIONS[action].notBy, batch, input.actionedBy, (role) =>
    new AppError('fourEyes', 'detail.fourEyes', { actor: input.actionedBy, batchNumber: batch.batch_number, role: { key: `role.${role}` }, action: { key: `actionVerb.${action}` } }),
  );
  // A merchant with active users acts through them, as their roles allow (users/permissions.ts).
  await authoriseActor(tx, { merchantAccountNumber: batch.merchant_account_number, channel: input.channel ?? 'api', batchNumber: batch.batch_number, action, actor: input.actionedBy, capturedBy: batch.captured_by });
  return batch;
}

/**
 * review, approve, reject, cancel: state and lines in one statement each; a transferred batch still
 * waiting for its scheduled date (lifecycle.ts, beforeDue) first gets its money back.
 */
export async function actOnBatch(tx: pg.PoolClient, action: Exclude<BatchAction, 'transferFunds'>, input: ActionInput): Promise<repo.BatchRow> {
  const batch = await lockForAction(tx, action, input);
  if (transitionFrom(action, batch.status_code, batch.level_number)?.beforeDue) await refundWaitingTransfer(tx, batch);
  const to = TRANSITIONS[action].to;
  const lines = LINE_STATUS_ON[to];
  if (lines) await repo.setLineStatus(tx, input.merchantAccountNumber, input.batchNumber, lines.from, lines.to);
  return repo.setBatchStatus(tx, input.merchantAccountNumber, input.batchNumber, to, { column: ACTOR_COLUMN[action], by: input.actionedBy }, input.reason);
}

/**
 * Daily limits per transaction code, then the amount counted for `day` (YYYY-MM-DD, UTC: the day
 * the money leaves; null: today). The limit row is locked.
 */
async function reserveDaily(
  tx: pg.PoolClient,
  merchant: MerchantRow,
  transactionCode: string,
  amountMinor: number,
  options: { checkLine?: boolean; day?: string | null } = {},
): Promise<void> {
  const limit = await limitFor(tx, merchant.merchant_account_number, transactionCode, merchant.currency_code, { lock: 'for update' });
  // A single payout is one line: its minimum and maximum are checked against the same locked row.
  if (options.checkLine) checkAmount(limit, amountMinor);
  const total = await repo.addToDailyTotal(tx, merchant.merchant_account_number, transactionCode, merchant.currency_code, amountMinor, options.day ?? null);
  checkDaily(limit, transactionCode, total - amountMinor, amountMinor);
}

/** Debits the merchant's disbursement balance into payouts in flight: amounts plus fees. */
async function debitPayouts(tx: pg.PoolClient, merchant: MerchantRow, reference: string, totalMinor: number, metadata: object): Promise<void> {
  const currency = merchant.currency_code;
  await postTransfer(tx, {
    merchantAccountNumber: merchant.merchant_account_number,
    type: 'payout_debit',
    reference,
    metadata,
    entries: [
      { accountId: await merchantAccountId(tx, merchant.merchant_account_number, 'disbursement', currency), amountMinor: -totalMinor },
      { accountId: await systemAccountId(tx, merchant.merchant_account_number, 'payouts_in_flight', currency), amountMinor: totalMinor },
    ],
  });
}

/**
 * transferFunds: checks the daily limits and debits amounts + fees in one transaction, moves the
 * lines to T and hands them to the payout worker (at once, or on the scheduled date). Any refusal
 * (insufficient balance, daily limit) rolls everything back: the batch stays as it was.
 *
 * The daily limit is that of the day the batch runs: a scheduled batch counts against its
 * scheduled day's total (with whatever else is transferred for that day), never today's. It is
 * checked here, when the money is debited, rather than by the worker on the day: a refusal now
 * leaves the batch untouched and the money with the merchant, where a refusal on the day would
 * have held the money until then only to refund it (and would let a merchant stack any number of
 * debited batches on one day).
 */
export async function transferFunds(tx: pg.PoolClient, input: ActionInput): Promise<repo.BatchRow> {
  const batch = await lockForAction(tx, 'transferFunds', input);
  const merchant = await activeMerchant(tx, input.merchantAccountNumber);
  const totals = await repo.readyTotals(tx, batch.merchant_account_number, batch.batch_number);
  const dueAt = await repo.startTransfer(tx, batch.merchant_account_number, batch.batch_number, batch.scheduled_date);
  const dueDay = dueAt.toISOString().slice(0, 10);
  for (const code of totals) await reserveDaily(tx, merchant, code.transaction_code, code.amount_minor, { day: dueDay });
  const debit = totals.reduce((sum, c) => sum + c.amount_minor + c.fee_minor, 0);
  await debitPayouts(tx, merchant, `B${batch.batch_number}`, debit, { batchNumber: batch.batch_number });
  const updated = await repo.setBatchStatus(tx, batch.merchant_account_number, batch.batch_number, 'T', { column: 'transferred', by: input.actionedBy });
  await schedulePayouts(tx, merchant.merchant_account_number, dueAt);
  return updated;
}

/**
 * cancel of a transferred batch before it is due (lifecycle.ts): under the batch's lock, locks its
 * lines and refuses (402 E916) unless every one still waits for the scheduled date; then lines
 * T → C, amounts and fees back to the disbursement balance (one balanced transfer, reference
 * B<batchNumber> like the debit) and the daily totals they reserved released, in the caller's
 * transaction with the state change.
 */
async function refundWaitingTransfer(tx: pg.PoolClient, batch: repo.BatchRow): Promise<void> {
  if (!(await repo.lockWaitingLines(tx, batch.merchant_account_number, batch.batch_number))) {
    // The same answer as for any state the action is not allowed from: the batch is being paid.
    throw new AppError('invalidState', 'detail.batchState', { batchNumber: batch.batch_number, status: { key: `batchStatus.${batch.status_code}` }, action: { key: 'action.cancel' } });
  }
  const cancelled = await repo.cancelWaitingLines(tx, batch.merchant_account_number, batch.batch_number);
  const merchantAccountNumber = batch.merchant_account_number;
  const currency = batch.currency_code;
  for (const c of cancelled) await repo.releaseDailyTotal(tx, merchantAccountNumber, c.transaction_code, currency, c.day, c.amount_minor);
  const refund = cancelled.reduce((sum, c) => sum + c.amount_minor + c.fee_minor, 0);
  await postTransfer(tx, {
    merchantAccountNumber,
    type: 'payout_cancel',
    reference: `B${batch.batch_number}`,
    metadata: { batchNumber: batch.batch_number },
    entries: [
      { accountId: await systemAccountId(tx, merchantAccountNumber, 'payouts_in_flight', currency), amountMinor: -refund },
      { accountId: await merchantAccountId(tx, merchantAccountNumber, 'disbursement', currency), amountMinor: refund },
    ],
  });
}

/**
 * Wakes the merchant's payout job at `runAt`. Jobs are keyed by merchant and wake-up time, so
 * repeated calls merge, and a wake-up next week (a scheduled batch) never postpones one due now,
 * as a single key per merchant would (graphile-worker replaces a keyed job's run_at).
 */
export async function schedulePayouts(tx: pg.PoolClient | Deps['db'], merchantAccountNumber: number, runAt: Date, now = new Date()): Promise<void> {
  const when = runAt.getTime() <= now.getTime() ? 'now' : runAt.toISOString();
  await enqueue(tx, PROCESS_TASK, { merchantAccountNumber }, { runAt, jobKey: `payouts:${merchantAccountNumber}:${when}`, maxAttempts: 25 });
}

// ---------------------------------------------------------------------------------------------
// Single payouts

export interface SinglePayoutInput extends PayoutInput {
  merchantAccountNumber: number;
  capturedBy: string;
}


/**
 * The checks of a single payout's payee that take no lock: the connector (known, active, open to
 * payouts) and the account's format for its channel; and the transaction code the channel means
 * (MMW wallets, MBA banks), which decides the fee and the limits. Shared by the capture and its
 * preview (preview.ts), so that both refuse alike.
 */
export async function checkedPayee(q: Queryable, input: Pick<PayoutInput, 'connectorId' | 'beneficiaryAccountNumber' | 'transactionAmount'>) {
  const connector = await activeConnector(q, input.connectorId);
  if (!connector.is_disbursement_allowed) throw new AppError('connectorNotAllowed', 'detail.connectorNoPayouts', { connectorId: input.connectorId });
  if (!accountFormatValid(connector.channel_code, input.beneficiaryAccountNumber)) {
    throw new AppError('validation', 'detail.accountFormat', { account: input.beneficiaryAccountNumber, channel: connector.connector_name });
  }
  const transactionCode = connector.channel_code === 'M' ? 'MMW' : 'MBA';
  return { connector, transactionCode, amountMinor: toMinor(input.transactionAmount) };
}

/**
 * Captures one payout at the merchant's authorisation level (lifecycle.ts, SINGLE_TRANSITIONS).
 * Level 1: checked, debited and submitted at once, processed by the worker like a batch line.
 * Levels 2 and 3: checked (connector, account format, amount limits) and stored as P; nothing is
 * debited and the daily limit is not counted until it is approved (actOnSinglePayout).
 */
export async function addSinglePayout(tx: pg.PoolClient, input: SinglePayoutInput): Promise<repo.PayoutRow> {
  const merchant = await activeMerchant(tx, input.merchantAccountNumber);
  const { connector, transactionCode, amountMinor } = await checkedPayee(tx, input);
  const statusCode = singleStatusAtCapture(merchant.level_number);
  if (statusCode === PAYOUT.transferring) await reserveDaily(tx, merchant, transactionCode, amountMinor, { checkLine: true });
  // Awaiting approval: only the per-transaction limits now, as a batch line at validation.
  else checkAmount(await limitFor(tx, merchant.merchant_account_number, transactionCode, merchant.currency_code), amountMinor);
  const feeMinor = await feeFor(tx, transactionCode, merchant.currency_code, amountMinor);
  const payout = await repo.insertSinglePayout(tx, {
    merchantAccountNumber: merchant.merchant_account_number,
    sourceReferenceNumber: input.sourceReferenceNumber,
    beneficiaryName: input.beneficiaryName,
    connectorId: connector.connector_id,
    beneficiaryAccountNumber: input.beneficiaryAccountNumber,
    transactionDescription: input.transactionDescription ?? '',
    amountMinor,
    feeMinor,
    currencyCode: merchant.currency_code,
    transactionCode,
    capturedBy: input.capturedBy,
    levelNumber: merchant.level_number,
    statusCode,
  });
  if (statusCode === PAYOUT.transferring) await submitSinglePayout(tx, merchant, payout);
  return payout;
}

/** Debits amount + fee of a single payout now in T and wakes the payout worker. */
async function submitSinglePayout(tx: pg.PoolClient, merchant: MerchantRow, payout: repo.PayoutRow): Promise<void> {
  await debitPayouts(tx, merchant, payout.transaction_reference_number, payableAmount(payout) + payout.fee_minor, { transactionReferenceNumber: payout.transaction_reference_number });
  await schedulePayouts(tx, merchant.merchant_account_number, new Date());
}

export interface SingleActionInput {
  merchantAccountNumber: number;
  transactionReferenceNumber: string;
  actionedBy: string;
  reason?: string;
  /** As ActionInput's. */
  channel?: DecisionChannel;
}

/**
 * review, approve or reject a single payout awaiting them, in the caller's transaction: the
 * payout locked, the state machine (lifecycle.ts) and four eyes checked as for a batch, the merchant
 * user's role too (users/permissions.ts). Approving reserves the money: the daily limit of today
 * (402 E912) and the debit of amount + fee (402 E911), both rolled back with everything else when
 * refused, so the payout stays as it was and can be approved once the balance allows.
 */
export async function actOnSinglePayout(tx: pg.PoolClient, action: SingleAction, input: SingleActionInput): Promise<repo.PayoutRow> {
  const payout = await repo.lockSinglePayout(tx, input.merchantAccountNumber, input.transactionReferenceNumber);
  if (!payout) throw new AppError('notFound', 'detail.payoutNotFound', { reference: input.transactionReferenceNumber });
  const reference = payout.transaction_reference_number;
  // Captured before single payouts had levels: paid at once, as level 1.
  const level = payout.level_number ?? 1;
  const stage = singleStage(payout.status_code, payout.reviewed_by);
  if (!singleAllowed(action, stage, level)) {
    const named = stage === 'reviewed' ? 'payoutStatus.reviewed' : `payoutStatus.${payout.status_code}`;
    const status = hasMessage(named) ? named : 'payoutStatus.T';
    throw new AppError('invalidState', 'detail.payoutState', { reference, status: { key: status }, action: { key: `action.${action}` } });
  }
  assertFourEyes(SINGLE_TRANSITIONS[action].notBy, payout, input.actionedBy, (role) =>
    new AppError('fourEyes', 'detail.fourEyesPayout', { actor: input.actionedBy, reference, role: { key: `role.${role}` }, action: { key: `actionVerb.${action}` } }),
  );
  await authoriseActor(tx, { merchantAccountNumber: payout.merchant_account_number, channel: input.channel ?? 'api', transactionReferenceNumber: reference, action, actor: input.actionedBy, capturedBy: payout.captured_by });
  if (action !== 'approve') return repo.actOnSinglePayout(tx, payout.payout_id, action, input.actionedBy, input.reason);
  const merchant = await activeMerchant(tx, payout.merchant_account_number);
  if (!payout.transaction_code) throw new AppError('invalidState', 'detail.payoutState', { reference, status: { key: 'payoutStatus.P' }, action: { key: 'action.approve' } });
  await reserveDaily(tx, merchant, payout.transaction_code, payableAmount(payout));
  const approved = await repo.actOnSinglePayout(tx, payout.payout_id, 'approve', input.actionedBy);
  await submitSinglePayout(tx, merchant, approved);
  return approved;
}

// ---------------------------------------------------------------------------------------------
// Views

const date = (d: Date | null) => (d ? d.toISOString() : null);

export function processDate(b: repo.BatchRow): string | null {
  if (!b.date_transferred) return null;
  return b.scheduled_date && b.scheduled_date > b.date_transferred.toISOString().slice(0, 10) ? b.scheduled_date : b.date_transferred.toISOString().slice(0, 10);
}

export function batchSummary(b: repo.BatchRow) {
  return {
    batchNumber: b.batch_number,
    capturedBy: b.captured_by,
    dateCaptured: b.date_captured.toISOString().slice(0, 10),
    batchStatusCode: b.status_code,
    batchStatusDescription: statusDescription(b.status_code, b.level_number),
    processDate: processDate(b),
    isBatchScheduled: b.is_batch_scheduled,
    numberOfTransactions: b.number_of_entries,
  };
}

/** How a batch came in (getBatch's contentType and dataSource): the documented "Microsoft Excel File" from "File". */
const UPLOADS: Record<repo.BatchRow['upload_type'], { contentType: string; dataSource: string }> = {
  XLSX: { contentType: CONTENT_TYPES.XLSX, dataSource: 'File' },
  CSV: { contentType: CONTENT_TYPES.CSV, dataSource: 'File' },
  JSON: { contentType: 'application/json', dataSource: 'JSON' },
};

/** The last action on a batch after its capture (review, approval, rejection, cancellation, funds transfer): who and when. */
function lastAction(b: repo.BatchRow): { by: string; at: Date } | null {
  const actions = [
    [b.reviewed_by, b.date_reviewed],
    [b.approved_by, b.date_approved],
    [b.rejected_by, b.date_rejected],
    [b.cancelled_by, b.date_cancelled],
    [b.transferred_by, b.date_transferred],
  ] as const;
  let last: { by: string; at: Date } | null = null;
  for (const [by, at] of actions) if (by && at && (!last || at >= last.at)) last = { by, at };
  return last;
}

export function batchRecord(lang: Lang, b: repo.BatchRow) {
  const upload = UPLOADS[b.upload_type];
  const actioned = lastAction(b);
  return {
    contentType: upload.contentType,
    dataSource: upload.dataSource,
    authorisationLevel: t(lang, `level.${b.level_number}` as MessageKey),
    // The invalid lines' document (batch/downloadErrors, by its default name) once validation found any.
    errorFileName: b.status_code !== BATCH.queued && b.number_of_invalid_entries > 0 ? ERRORS_DOCUMENT_NAME : null,
    actionedBy: actioned?.by ?? null,
    dateActioned: actioned ? actioned.at.toISOString().slice(0, 10) : null,
    merchantAccountNumber: b.merchant_account_number,
    batchNumber: b.batch_number,
    batchStatusCode: b.status_code,
    batchStatusDescription: statusDescription(b.status_code, b.level_number),
    uploadType: b.upload_type,
    currencyCode: b.currency_code,
    levelNumber: b.level_number,
    isBatchScheduled: b.is_batch_scheduled,
    scheduledDate: b.scheduled_date,
    processDate: processDate(b),
    capturedBy: b.captured_by,
    dateCaptured: b.date_captured.toISOString(),
    reviewedBy: b.reviewed_by,
    dateReviewed: date(b.date_reviewed),
    approvedBy: b.approved_by,
    dateApproved: date(b.date_approved),
    rejectedBy: b.rejected_by,
    rejectionReason: b.rejection_reason,
    dateRejected: date(b.date_rejected),
    cancelledBy: b.cancelled_by,
    dateCancelled: date(b.date_cancelled),
    transferredBy: b.transferred_by,
    dateTransferred: date(b.date_transferred),
    dateCompleted: date(b.date_completed),
    errorMessage: b.error_message,
    numberOfEntries: b.number_of_entries,
    numberOfValidEntries: b.status_code === BATCH.queued ? 0 : b.number_of_entries - b.number_of_invalid_entries,
    numberOfInvalidEntries: b.number_of_invalid_entries,
    numberOfSuccessfulEntries: b.number_of_successful_entries,
    numberOfFailedEntries: b.number_of_failed_entries,
    numberOfReversedEntries: b.number_of_reversed_entries,
    totalAmount: toMajor(b.total_amount_minor),
    totalFees: toMajor(b.total_fee_minor),
    totalAmountOfSuccessfulEntries: toMajor(b.successful_amount_minor),
    totalAmountOfFailedEntries: toMajor(b.failed_amount_minor),
    totalAmountOfReversedEntries: toMajor(b.reversed_amount_minor),
  };
}

export function actionResult(b: repo.BatchRow) {
  return {
    MerchantAccountNumber: b.merchant_account_number,
    BatchNumber: b.batch_number,
    CurrencyCode: b.currency_code,
    BatchStatusCode: b.status_code,
    NumberOfSuccessfulEntries: b.number_of_successful_entries,
    TotalAmountOfSuccessfulEntries: toMajor(b.successful_amount_minor),
  };
}

/** Why a line is invalid, in the reader's language. */
export function lineError(lang: Lang, p: Pick<repo.PayoutRow, 'error_code' | 'error_params'>): string | null {
  if (!p.error_code) return null;
  const params = { ...(p.error_params ?? {}) };
  if (typeof params.limit === 'number') params.limit = formatMajor(params.limit);
  return t(lang, `lineError.${p.error_code}` as MessageKey, params);
}

export function payoutRecord(lang: Lang, p: repo.PayoutRow) {
  return {
    batchNumber: p.batch_number,
    lineNumber: p.line_number,
    transactionReferenceNumber: p.transaction_reference_number,
    sourceReferenceNumber: p.source_reference_number,
    beneficiaryName: p.beneficiary_name,
    connectorId: p.connector_id,
    connectorName: p.connector_name ?? '',
    beneficiaryAccountNumber: p.beneficiary_account_number,
    transactionDescription: p.transaction_description,
    // None for an invalid line whose amount was not one (amountFormat): never a made-up 0.
    transactionAmount: p.amount_minor === null ? null : toMajor(p.amount_minor),
    transactionFee: toMajor(p.fee_minor),
    transactionCode: p.transaction_code,
    transactionStatusCode: p.status_code,
    transactionStatusName: LINE_STATUS_NAMES[p.status_code] ?? p.status_code,
    errorMessage: lineError(lang, p),
    responseCode: p.response_code,
    responseMessage: p.response_message,
    currencyCode: p.currency_code,
    capturedBy: p.captured_by,
    dateCreated: p.created_at.toISOString(),
    dateTransferred: date(p.transferred_at),
    dateCompleted: date(p.completed_at),
    dateReversed: date(p.reversed_at),
  };
}

/**
 * A single payout as single/getTransaction(s) show it: a batch line's fields, the documented
 * transactionDate (its UTC day of capture), the level it follows and who reviewed, approved or
 * rejected it (null until they have).
 */
/** The UTC day a payout reached its outcome (S or F; null until then): the documented processedDate. */
const processedDate = (p: repo.PayoutRow) => (p.completed_at ? p.completed_at.toISOString().slice(0, 10) : null);

/** batch/getTransaction: a batch line with its merchant account and the day it was processed. */
export function payoutDetail(lang: Lang, p: repo.PayoutDetailRow) {
  return { merchantAccountNumber: p.merchant_account_number, merchantAccountName: p.merchant_account_name, ...payoutRecord(lang, p), processedDate: processedDate(p) };
}

/** single/getTransaction: a single payout with its merchant account, its type and the day it was processed. */
export function singlePayoutDetail(lang: Lang, p: repo.PayoutDetailRow) {
  return {
    merchantAccountName: p.merchant_account_name,
    merchantAccountNumber: p.merchant_account_number,
    ...singlePayoutRecord(lang, p),
    transactionType: 'Disbursement',
    processedDate: processedDate(p),
  };
}

export function singlePayoutRecord(lang: Lang, p: repo.PayoutRow) {
  return {
    ...payoutRecord(lang, p),
    transactionDate: p.created_at.toISOString().slice(0, 10),
    levelNumber: p.level_number ?? 1,
    reviewedBy: p.reviewed_by,
    dateReviewed: date(p.date_reviewed),
    approvedBy: p.approved_by,
    dateApproved: date(p.date_approved),
    rejectedBy: p.rejected_by,
    rejectionReason: p.rejection_reason,
    dateRejected: date(p.date_rejected),
  };
}

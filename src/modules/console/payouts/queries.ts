// The console's payouts: batches (status, level, progress, totals; newest first), one batch with
// its lines (paged, searchable, with their errors and outcomes) and single payouts. Keyset pages
// on the tables' own keys: batch_number, line_number (dense within a batch), payout_id.
import type { Queryable } from '../../../db/pool.ts';
import { containsPattern } from '../../../db/like.ts';
import { BATCH, LINE_STATUS_NAMES, singleStage, statusDescription, type BatchStatus, type PayoutStatus, type SingleStage } from '../../disbursements/lifecycle.ts';
import { findBatch, listBatches, type BatchRow, type PayoutRow } from '../../disbursements/repository.ts';
import { checkOneOf, checkSearch, decodeCursor, listScope, pageOf, pageRows, type Page } from '../../../http/keyset-pages.ts';

export const BATCH_STATUSES = ['Q', 'P', 'R', 'A', 'T', 'C', 'E', 'F', 'N', 'X'] as const satisfies readonly BatchStatus[];
export const LINE_STATUSES = ['P', 'E', 'D', 'T', 'S', 'F', 'X', 'C', 'R'] as const satisfies readonly PayoutStatus[];
export type LineStatus = (typeof LINE_STATUSES)[number];

// ---------------------------------------------------------------------------------------------
// Batches

export interface BatchProgress {
  entries: number;
  invalid: number;
  valid: number;
  successful: number;
  failed: number;
  reversed: number;
  /** Valid lines not final yet (or never to be: a rejected or cancelled batch's lines). */
  notFinal: number;
  /** Final lines (successful, failed, reversed) ÷ valid lines, in percent with 1 decimal. */
  finalPercent: number;
}

export interface BatchTotals {
  /** Valid lines: what transferFunds debits, with the fees. */
  amountMinor: number;
  feeMinor: number;
  successfulMinor: number;
  failedMinor: number;
  reversedMinor: number;
}

export interface BatchDates {
  reviewed: Date | null;
  approved: Date | null;
  rejected: Date | null;
  cancelled: Date | null;
}

export interface BatchItem {
  batchNumber: number;
  statusCode: BatchStatus;
  /** As E4 describes it (P reads differently at each level). */
  statusDescription: string;
  levelNumber: number;
  uploadType: string;
  currencyCode: string;
  isBatchScheduled: boolean;
  scheduledDate: string | null;
  capturedBy: string;
  dateCaptured: Date;
  reviewedBy: string | null;
  approvedBy: string | null;
  rejectedBy: string | null;
  rejectionReason: string | null;
  cancelledBy: string | null;
  transferredBy: string | null;
  dateTransferred: Date | null;
  dateCompleted: Date | null;
  errorMessage: string | null;
  /** When each decision was taken (who took it is above). */
  dates: BatchDates;
  progress: BatchProgress;
  totals: BatchTotals;
}

function batchItem(b: BatchRow): BatchItem {
  // A queued batch has not been validated: none of its lines is valid or invalid yet.
  const valid = b.status_code === BATCH.queued ? 0 : b.number_of_entries - b.number_of_invalid_entries;
  const final = b.number_of_successful_entries + b.number_of_failed_entries + b.number_of_reversed_entries;
  return {
    batchNumber: b.batch_number,
    statusCode: b.status_code,
    statusDescription: statusDescription(b.status_code, b.level_number),
    levelNumber: b.level_number,
    uploadType: b.upload_type,
    currencyCode: b.currency_code,
    isBatchScheduled: b.is_batch_scheduled,
    scheduledDate: b.scheduled_date,
    capturedBy: b.captured_by,
    dateCaptured: b.date_captured,
    reviewedBy: b.reviewed_by,
    approvedBy: b.approved_by,
    rejectedBy: b.rejected_by,
    rejectionReason: b.rejection_reason,
    cancelledBy: b.cancelled_by,
    transferredBy: b.transferred_by,
    dateTransferred: b.date_transferred,
    dateCompleted: b.date_completed,
    errorMessage: b.error_message,
    dates: { reviewed: b.date_reviewed, approved: b.date_approved, rejected: b.date_rejected, cancelled: b.date_cancelled },
    progress: {
      entries: b.number_of_entries,
      invalid: b.number_of_invalid_entries,
      valid,
      successful: b.number_of_successful_entries,
      failed: b.number_of_failed_entries,
      reversed: b.number_of_reversed_entries,
      notFinal: valid - final,
      finalPercent: valid === 0 ? 0 : Math.round((final * 1000) / valid) / 10,
    },
    totals: {
      amountMinor: b.total_amount_minor,
      feeMinor: b.total_fee_minor,
      successfulMinor: b.successful_amount_minor,
      failedMinor: b.failed_amount_minor,
      reversedMinor: b.reversed_amount_minor,
    },
  };
}

export interface BatchPageFilter {
  status?: string;
  after?: string;
  limit?: number;
}

/**
 * The merchant's batches, newest first (batch_number desc, the index batches_merchant_idx), queued
 * ones included (E4 lists them only once validated; a person who just uploaded one expects to see
 * it). Progress comes from the batch's own counters, which the payout worker keeps in the
 * transaction that finalises each line: a page never reads the batches' lines.
 */
export async function batchesPage(db: Queryable, merchantAccountNumber: number, filter: BatchPageFilter = {}): Promise<Page<BatchItem>> {
  const status = checkOneOf('status', filter.status, BATCH_STATUSES);
  const limit = pageRows(filter.limit);
  const scope = listScope('batches', merchantAccountNumber, { status });
  const after = decodeCursor(filter.after, scope, ['int']);
  const rows = await listBatches(db, merchantAccountNumber, { status, queued: 'shown', limit: limit + 1, page: { beforeBatchNumber: after?.[0] as number | undefined } });
  return pageOf(rows, limit, scope, (r) => [r.batch_number], batchItem);
}

export interface LineStatusCount {
  statusCode: LineStatus;
  statusName: string;
  lines: number;
  amountMinor: number;
  feeMinor: number;
}

export interface BatchDetail extends BatchItem {
  /** Counted from the lines themselves, one entry per status present. */
  lineStatuses: LineStatusCount[];
}

/** A batch of the merchant with its lines counted per status (one pass over its lines); undefined for another merchant's. */
export async function batchDetail(db: Queryable, merchantAccountNumber: number, batchNumber: number): Promise<BatchDetail | undefined> {
  if (!Number.isSafeInteger(batchNumber) || batchNumber < 1 || batchNumber > 2_147_483_647) return undefined;
  const batch = await findBatch(db, merchantAccountNumber, batchNumber);
  if (!batch) return undefined;
  const { rows } = await db.query<{ status_code: LineStatus; lines: number; amount_minor: number; fee_minor: number }>(
    `select status_code, count(*)::bigint as lines, sum(amount_minor)::bigint as amount_minor, sum(fee_minor)::bigint as fee_minor
       from payouts where batch_number = $1 and merchant_account_number = $2
      group by status_code order by status_code`,
    [batchNumber, merchantAccountNumber],
  );
  return {
    ...batchItem(batch),
    lineStatuses: rows.map((r) => ({ statusCode: r.status_code, statusName: LINE_STATUS_NAMES[r.status_code], lines: r.lines, amountMinor: r.amount_minor, feeMinor: r.fee_minor })),
  };
}

// ---------------------------------------------------------------------------------------------
// Payouts: batch lines and single payouts

export interface PayoutItem {
  transactionReferenceNumber: string;
  sourceReferenceNumber: string;
  beneficiaryName: string;
  beneficiaryAccountNumber: string;
  connectorId: number;
  connectorName: string;
  transactionDescription: string;
  amountMinor: number;
  feeMinor: number;
  currencyCode: string;
  transactionCode: string | null;
  statusCode: LineStatus;
  /** English, as E3 names it; a page in another language names the code itself. */
  statusName: string;
  /** Why an invalid line (E) was refused: a message key under lineError.* and its parameters (disbursements/service.ts lineError renders it). */
  errorCode: string | null;
  errorParams: Record<string, string | number> | null;
  /** The connector's answer. */
  responseCode: string | null;
  responseMessage: string | null;
  capturedBy: string;
  dateCreated: Date;
  dateTransferred: Date | null;
  dateCompleted: Date | null;
  dateReversed: Date | null;
}

export interface BatchLine extends PayoutItem {
  lineNumber: number;
}

export interface SinglePayoutItem extends PayoutItem {
  levelNumber: number;
  /** pending, reviewed (level 3, awaiting approval), transferring, final. */
  stage: SingleStage;
  reviewedBy: string | null;
  dateReviewed: Date | null;
  approvedBy: string | null;
  dateApproved: Date | null;
  rejectedBy: string | null;
  rejectionReason: string | null;
  dateRejected: Date | null;
}

/** A payout as the list queries select it: the repository's row, without the columns they leave out. */
type PayoutListRow = Omit<PayoutRow, 'merchant_account_number' | 'batch_number' | 'status_code'> & { status_code: LineStatus };

const PAYOUT_LIST_COLUMNS = `p.payout_id, p.line_number, p.transaction_reference_number, p.source_reference_number, p.beneficiary_name,
  p.beneficiary_account_number, p.connector_id, k.connector_name, p.transaction_description, p.amount_minor, p.fee_minor, p.currency_code,
  p.transaction_code, p.status_code, p.error_code, p.error_params, p.response_code, p.response_message, p.captured_by, p.created_at,
  p.transferred_at, p.completed_at, p.reversed_at, p.level_number, p.reviewed_by, p.date_reviewed, p.approved_by, p.date_approved,
  p.rejected_by, p.rejection_reason, p.date_rejected`;

/** Searched columns: the beneficiary's name and account, the payout's reference and the merchant's source reference. */
const PAYOUT_SEARCH = `(p.beneficiary_name ilike $X or p.beneficiary_account_number ilike $X or p.transaction_reference_number ilike $X or p.source_reference_number ilike $X)`;

function payoutItem(p: PayoutListRow): PayoutItem {
  return {
    transactionReferenceNumber: p.transaction_reference_number,
    sourceReferenceNumber: p.source_reference_number,
    beneficiaryName: p.beneficiary_name,
    beneficiaryAccountNumber: p.beneficiary_account_number,
    connectorId: p.connector_id,
    connectorName: p.connector_name ?? '',
    transactionDescription: p.transaction_description,
    amountMinor: p.amount_minor,
    feeMinor: p.fee_minor,
    currencyCode: p.currency_code,
    transactionCode: p.transaction_code,
    statusCode: p.status_code,
    statusName: LINE_STATUS_NAMES[p.status_code] ?? p.status_code,
    errorCode: p.error_code,
    errorParams: p.error_params,
    responseCode: p.response_code,
    responseMessage: p.response_message,
    capturedBy: p.captured_by,
    dateCreated: p.created_at,
    dateTransferred: p.transferred_at,
    dateCompleted: p.completed_at,
    dateReversed: p.reversed_at,
  };
}

export interface LineFilter {
  search?: string;
  status?: string;
  after?: string;
  limit?: number;
}

/**
 * One batch's lines in line order, keyset on line_number (the unique (batch_number, line_number)
 * index): with neither search nor status, a page is an index range. Undefined when the batch is not
 * the merchant's.
 */
export async function batchLines(db: Queryable, merchantAccountNumber: number, batchNumber: number, filter: LineFilter = {}): Promise<Page<BatchLine> | undefined> {
  const status = checkOneOf('status', filter.status, LINE_STATUSES);
  const search = checkSearch(filter.search);
  const limit = pageRows(filter.limit);
  if (!Number.isSafeInteger(batchNumber) || batchNumber < 1 || batchNumber > 2_147_483_647) return undefined;
  const scope = listScope('batchLines', merchantAccountNumber, { batchNumber, status, search });
  const after = decodeCursor(filter.after, scope, ['int']);
  const { rowCount } = await db.query('select 1 from batches where batch_number = $1 and merchant_account_number = $2', [batchNumber, merchantAccountNumber]);
  if (rowCount !== 1) return undefined;
  const { rows } = await db.query<PayoutListRow>(
    `select ${PAYOUT_LIST_COLUMNS}
       from payouts p left join connectors k on k.connector_id = p.connector_id
      where p.batch_number = $1 and p.merchant_account_number = $2
        and ($3::text is null or p.status_code = $3)
        and ($4::text is null or ${PAYOUT_SEARCH.replaceAll('$X', '$4')})
        and ($5::integer is null or p.line_number > $5)
      order by p.line_number limit $6`,
    [batchNumber, merchantAccountNumber, status ?? null, search ? containsPattern(search) : null, after?.[0] ?? null, limit + 1],
  );
  return pageOf(rows, limit, scope, (r) => [r.line_number!], (r) => ({ ...payoutItem(r), lineNumber: r.line_number! }));
}

export interface SingleFilter {
  status?: string;
  search?: string;
  after?: string;
  limit?: number;
}

/** The merchant's single payouts, newest first (payout_id desc: the index payouts_single_idx). */
export async function listSinglePayouts(db: Queryable, merchantAccountNumber: number, filter: SingleFilter = {}): Promise<Page<SinglePayoutItem>> {
  const status = checkOneOf('status', filter.status, LINE_STATUSES);
  const search = checkSearch(filter.search);
  const limit = pageRows(filter.limit);
  const scope = listScope('singlePayouts', merchantAccountNumber, { status, search });
  const after = decodeCursor(filter.after, scope, ['int']);
  const { rows } = await db.query<PayoutListRow>(
    `select ${PAYOUT_LIST_COLUMNS}
       from payouts p left join connectors k on k.connector_id = p.connector_id
      where p.merchant_account_number = $1 and p.batch_number is null
        and ($2::text is null or p.status_code = $2)
        and ($3::text is null or ${PAYOUT_SEARCH.replaceAll('$X', '$3')})
        and ($4::bigint is null or p.payout_id < $4)
      order by p.payout_id desc limit $5`,
    [merchantAccountNumber, status ?? null, search ? containsPattern(search) : null, after?.[0] ?? null, limit + 1],
  );
  return pageOf(rows, limit, scope, (r) => [r.payout_id], (p) => ({
    ...payoutItem(p),
    // Captured before single payouts had levels: paid at once, as level 1.
    levelNumber: p.level_number ?? 1,
    stage: singleStage(p.status_code, p.reviewed_by),
    reviewedBy: p.reviewed_by,
    dateReviewed: p.date_reviewed,
    approvedBy: p.approved_by,
    dateApproved: p.date_approved,
    rejectedBy: p.rejected_by,
    rejectionReason: p.rejection_reason,
    dateRejected: p.date_rejected,
  }));
}

/** What a batch's page shows: the batch, its lines counted per status, and a page of its lines; undefined for another merchant's batch. */
export async function batchPageView(db: Queryable, merchantAccountNumber: number, batchNumber: number, filter: LineFilter = {}): Promise<{ batch: BatchDetail; lines: Page<BatchLine> } | undefined> {
  const [lines, batch] = await Promise.all([batchLines(db, merchantAccountNumber, batchNumber, filter), batchDetail(db, merchantAccountNumber, batchNumber)]);
  return lines && batch ? { batch, lines } : undefined;
}

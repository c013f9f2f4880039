// The console's payouts: batches (status, level, progress, totals; newest first), one batch with
// its lines (paged, searchable, with their errors and outcomes) and single payouts. Keyset pages
// on the tables' own keys: batch_number, line_number (dense within a batch), payout_id.
import type { Db, Queryable } from '../../../db/pool.ts';
import { cursorRows } from '../../../db/cursor.ts';
import type { Lang } from '../../../http/i18n.ts';
import type { ColumnKind } from '../kit/exports.ts';
import { lineError } from '../../disbursements/service.ts';
import { containsPattern } from '../../../db/like.ts';
import { allowed, BATCH, LINE_STATUS_NAMES, singleStage, statusDescription, type BatchStatus, type PayoutStatus, type SingleStage } from '../../disbursements/lifecycle.ts';
import { findBatch, listBatches, listBatchesQuery, type BatchRow, type PayoutRow } from '../../disbursements/repository.ts';
import { previewTransfer, type DebitPreview } from '../../disbursements/preview.ts';
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
  const rows = await listBatches(db, merchantAccountNumber, { ...batchFilterOf(status), limit: limit + 1, page: { beforeBatchNumber: after?.[0] as number | undefined } });
  return pageOf(rows, limit, scope, (r) => [r.batch_number], batchItem);
}

/** What the console's batches list (and its export) asks listBatches for: queued batches shown. */
const batchFilterOf = (status: BatchStatus | undefined) => ({ status, queued: 'shown' as const });

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
  if (!Number.isSafeInteger(batchNumber) || batchNumber < 1) return undefined;
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
  /** Null only for an invalid line whose amount was not one (amountFormat): no amount, never money. */
  amountMinor: number | null;
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
  /** Its row in the uploaded file (the row the upload's messages and the invalid-lines file name); null for a JSON batch's line. */
  fileRow: number | null;
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
type PayoutListRow = Omit<PayoutRow, 'merchant_account_number' | 'batch_number' | 'status_code'> & { status_code: LineStatus; file_row: number | null };

const PAYOUT_LIST_COLUMNS = `p.payout_id, p.line_number, p.file_row, p.transaction_reference_number, p.source_reference_number, p.beneficiary_name,
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
  if (!Number.isSafeInteger(batchNumber) || batchNumber < 1) return undefined;
  const scope = listScope('batchLines', merchantAccountNumber, { batchNumber, status, search });
  const after = decodeCursor(filter.after, scope, ['int']);
  const { rowCount } = await db.query('select 1 from batches where batch_number = $1 and merchant_account_number = $2', [batchNumber, merchantAccountNumber]);
  if (rowCount !== 1) return undefined;
  const { rows } = await db.query<PayoutListRow>(...batchLinesQuery(merchantAccountNumber, batchNumber, { status, search, afterLine: after?.[0] as number | undefined, rows: limit + 1 }));
  return pageOf(rows, limit, scope, (r) => [r.line_number!], (r) => ({ ...payoutItem(r), lineNumber: r.line_number!, fileRow: r.file_row }));
}

/** The checked filters of a payouts list, the cursor's key, and the rows to read ('all': LIMIT ALL, the export). */
interface PayoutsQueryFilter {
  status: LineStatus | undefined;
  search: string | undefined;
  rows: number | 'all';
}

/** batchLines' statement: the batch's lines in line order, after `afterLine`. */
function batchLinesQuery(merchantAccountNumber: number, batchNumber: number, f: PayoutsQueryFilter & { afterLine?: number }): [string, unknown[]] {
  return [
    `select ${PAYOUT_LIST_COLUMNS}
       from payouts p left join connectors k on k.connector_id = p.connector_id
      where p.batch_number = $1 and p.merchant_account_number = $2
        and ($3::text is null or p.status_code = $3)
        and ($4::text is null or ${PAYOUT_SEARCH.replaceAll('$X', '$4')})
        and ($5::integer is null or p.line_number > $5)
      order by p.line_number limit $6`,
    [batchNumber, merchantAccountNumber, f.status ?? null, f.search ? containsPattern(f.search) : null, f.afterLine ?? null, f.rows === 'all' ? null : f.rows],
  ];
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
  const { rows } = await db.query<PayoutListRow>(...singlePayoutsQuery(merchantAccountNumber, { status, search, beforeId: after?.[0] as number | undefined, rows: limit + 1 }));
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

/** listSinglePayouts' statement: newest first, before `beforeId`. */
function singlePayoutsQuery(merchantAccountNumber: number, f: PayoutsQueryFilter & { beforeId?: number }): [string, unknown[]] {
  return [
    `select ${PAYOUT_LIST_COLUMNS}
       from payouts p left join connectors k on k.connector_id = p.connector_id
      where p.merchant_account_number = $1 and p.batch_number is null
        and ($2::text is null or p.status_code = $2)
        and ($3::text is null or ${PAYOUT_SEARCH.replaceAll('$X', '$3')})
        and ($4::bigint is null or p.payout_id < $4)
      order by p.payout_id desc limit $5`,
    [merchantAccountNumber, f.status ?? null, f.search ? containsPattern(f.search) : null, f.beforeId ?? null, f.rows === 'all' ? null : f.rows],
  ];
}

/**
 * What a batch's page shows: the batch, its lines counted per status, a page of its lines, and, while
 * its funds may be transferred, what that would debit (its confirmation shows it); undefined for
 * another merchant's batch.
 */
export async function batchPageView(
  db: Queryable,
  merchantAccountNumber: number,
  batchNumber: number,
  filter: LineFilter = {},
): Promise<{ batch: BatchDetail; lines: Page<BatchLine>; transfer?: DebitPreview } | undefined> {
  const [lines, batch] = await Promise.all([batchLines(db, merchantAccountNumber, batchNumber, filter), batchDetail(db, merchantAccountNumber, batchNumber)]);
  if (!lines || !batch) return undefined;
  const transferable = allowed('transferFunds', batch.statusCode, batch.levelNumber);
  return { batch, lines, transfer: transferable ? await previewTransfer(db, merchantAccountNumber, batchNumber) : undefined };
}

// ---------------------------------------------------------------------------------------------
// Exports (kit/exports.ts): every row a list's filters keep, in the list's order, read through a
// cursor (db/cursor.ts), never held. Columns are the API's field names (batch lines: batch/download's
// BATCH_FILE_COLUMNS, then the line's dates), the same in every language, for spreadsheets and
// scripts alike. A refused filter throws at the first row, before anything is sent.

/** The columns every payout export shares after its first ones. */
const PAYOUT_EXPORT_COLUMNS = [
  { header: 'transactionReferenceNumber', kind: 'text' },
  { header: 'beneficiaryName', kind: 'text' },
  { header: 'connectorId', kind: 'integer' },
  { header: 'connectorName', kind: 'text' },
  { header: 'beneficiaryAccountNumber', kind: 'text' },
  { header: 'transactionDescription', kind: 'text' },
  { header: 'transactionAmount', kind: 'amount' },
  { header: 'transactionFee', kind: 'amount' },
  { header: 'currencyCode', kind: 'text' },
  { header: 'sourceReferenceNumber', kind: 'text' },
  { header: 'transactionStatusCode', kind: 'text' },
  { header: 'transactionStatusName', kind: 'text' },
  { header: 'responseCode', kind: 'text' },
  { header: 'responseMessage', kind: 'text' },
  { header: 'errorMessage', kind: 'text' },
  { header: 'capturedBy', kind: 'text' },
  { header: 'dateCreated', kind: 'date' },
  { header: 'dateTransferred', kind: 'date' },
  { header: 'dateCompleted', kind: 'date' },
  { header: 'dateReversed', kind: 'date' },
] as const satisfies ReadonlyArray<{ header: string; kind: ColumnKind }>;

function payoutCells(lang: Lang, p: PayoutListRow): unknown[] {
  return [
    p.transaction_reference_number, p.beneficiary_name, p.connector_id, p.connector_name, p.beneficiary_account_number, p.transaction_description,
    p.amount_minor, p.fee_minor, p.currency_code, p.source_reference_number, p.status_code, LINE_STATUS_NAMES[p.status_code] ?? p.status_code,
    p.response_code, p.response_message, lineError(lang, p), p.captured_by, p.created_at, p.transferred_at, p.completed_at, p.reversed_at,
  ];
}

export const BATCH_EXPORT_COLUMNS = [
  { header: 'batchNumber', kind: 'integer' },
  { header: 'dateCaptured', kind: 'date' },
  { header: 'capturedBy', kind: 'text' },
  { header: 'batchStatusCode', kind: 'text' },
  { header: 'batchStatusDescription', kind: 'text' },
  { header: 'levelNumber', kind: 'integer' },
  { header: 'uploadType', kind: 'text' },
  { header: 'currencyCode', kind: 'text' },
  { header: 'numberOfEntries', kind: 'integer' },
  { header: 'numberOfInvalidEntries', kind: 'integer' },
  { header: 'numberOfSuccessfulEntries', kind: 'integer' },
  { header: 'numberOfFailedEntries', kind: 'integer' },
  { header: 'numberOfReversedEntries', kind: 'integer' },
  { header: 'totalAmount', kind: 'amount' },
  { header: 'totalFee', kind: 'amount' },
  { header: 'successfulAmount', kind: 'amount' },
  { header: 'failedAmount', kind: 'amount' },
  { header: 'reversedAmount', kind: 'amount' },
  { header: 'reviewedBy', kind: 'text' },
  { header: 'approvedBy', kind: 'text' },
  { header: 'transferredBy', kind: 'text' },
  { header: 'dateTransferred', kind: 'date' },
  { header: 'dateCompleted', kind: 'date' },
  { header: 'rejectedBy', kind: 'text' },
  { header: 'rejectionReason', kind: 'text' },
  { header: 'cancelledBy', kind: 'text' },
] as const satisfies ReadonlyArray<{ header: string; kind: ColumnKind }>;

/** The merchant's batches as batchesPage lists them (the same filter, newest first), every one. */
export async function* exportBatches(db: Db, merchantAccountNumber: number, filter: { status?: string }): AsyncGenerator<unknown[]> {
  const status = checkOneOf('status', filter.status, BATCH_STATUSES);
  const { text, values } = listBatchesQuery(merchantAccountNumber, { ...batchFilterOf(status), limit: 'all', page: { beforeBatchNumber: undefined } });
  for await (const row of cursorRows<BatchRow>(db, text, values)) {
    const b = batchItem(row);
    yield [
      b.batchNumber, b.dateCaptured, b.capturedBy, b.statusCode, b.statusDescription, b.levelNumber, b.uploadType, b.currencyCode,
      b.progress.entries, b.progress.invalid, b.progress.successful, b.progress.failed, b.progress.reversed,
      b.totals.amountMinor, b.totals.feeMinor, b.totals.successfulMinor, b.totals.failedMinor, b.totals.reversedMinor,
      b.reviewedBy, b.approvedBy, b.transferredBy, b.dateTransferred, b.dateCompleted, b.rejectedBy, b.rejectionReason, b.cancelledBy,
    ];
  }
}

/** A batch's results file, a row per payee: the line, then what batch/download writes of it, then its dates. */
export const BATCH_LINE_EXPORT_COLUMNS = [{ header: 'lineNumber', kind: 'integer' }, ...PAYOUT_EXPORT_COLUMNS] as const;

/**
 * One batch's lines as batchLines lists them (the same filters, line order), every one; the error
 * message in `lang`. The caller checks first that the batch is the merchant's (the route's 404):
 * here the merchant is in the statement's WHERE anyway, so another's batch reads no row.
 */
export async function* exportBatchLines(db: Db, lang: Lang, merchantAccountNumber: number, batchNumber: number, filter: { status?: string; search?: string }): AsyncGenerator<unknown[]> {
  const status = checkOneOf('status', filter.status, LINE_STATUSES);
  const search = checkSearch(filter.search);
  const [text, values] = batchLinesQuery(merchantAccountNumber, batchNumber, { status, search, rows: 'all' });
  for await (const row of cursorRows<PayoutListRow>(db, text, values)) yield [row.line_number, ...payoutCells(lang, row)];
}

export const SINGLE_PAYOUT_EXPORT_COLUMNS = [
  ...PAYOUT_EXPORT_COLUMNS,
  { header: 'levelNumber', kind: 'integer' },
  { header: 'reviewedBy', kind: 'text' },
  { header: 'dateReviewed', kind: 'date' },
  { header: 'approvedBy', kind: 'text' },
  { header: 'dateApproved', kind: 'date' },
  { header: 'rejectedBy', kind: 'text' },
  { header: 'rejectionReason', kind: 'text' },
  { header: 'dateRejected', kind: 'date' },
] as const;

/** The merchant's single payouts as listSinglePayouts lists them (the same filters, newest first), every one. */
export async function* exportSinglePayouts(db: Db, lang: Lang, merchantAccountNumber: number, filter: { status?: string; search?: string }): AsyncGenerator<unknown[]> {
  const status = checkOneOf('status', filter.status, LINE_STATUSES);
  const search = checkSearch(filter.search);
  const [text, values] = singlePayoutsQuery(merchantAccountNumber, { status, search, rows: 'all' });
  for await (const p of cursorRows<PayoutListRow>(db, text, values)) {
    yield [...payoutCells(lang, p), p.level_number ?? 1, p.reviewed_by, p.date_reviewed, p.approved_by, p.date_approved, p.rejected_by, p.rejection_reason, p.date_rejected];
  }
}

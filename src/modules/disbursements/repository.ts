// SQL for batches and payouts. Bulk work is set-based: a 50,000-line batch is expanded, validated
// and priced by one INSERT … SELECT, and its lines change state with one UPDATE per action.
import type pg from 'pg';
import pgRuntime from 'pg';
import { containsPattern } from '../../db/like.ts';
import type { FindOptions, Queryable } from '../../db/pool.ts';
import { PAYOUT, type BatchStatus, type PayoutStatus, type ShownStatus } from './lifecycle.ts';
import { BANK_ACCOUNT, TEST_WALLETS, WALLET_ACCOUNT } from './accounts.ts';
import { AWAITING_APPROVAL, SUBMITTED } from './sandbox.ts';

export interface BatchRow {
  batch_number: number;
  merchant_account_number: number;
  currency_code: string;
  level_number: number;
  upload_type: 'JSON' | 'CSV' | 'XLSX';
  is_batch_scheduled: boolean;
  scheduled_date: string | null;
  status_code: BatchStatus;
  captured_by: string;
  date_captured: Date;
  reviewed_by: string | null;
  date_reviewed: Date | null;
  approved_by: string | null;
  date_approved: Date | null;
  rejected_by: string | null;
  rejection_reason: string | null;
  date_rejected: Date | null;
  cancelled_by: string | null;
  date_cancelled: Date | null;
  transferred_by: string | null;
  date_transferred: Date | null;
  date_completed: Date | null;
  error_message: string | null;
  number_of_entries: number;
  number_of_invalid_entries: number;
  number_of_successful_entries: number;
  number_of_failed_entries: number;
  number_of_reversed_entries: number;
  total_amount_minor: number;
  total_fee_minor: number;
  successful_amount_minor: number;
  failed_amount_minor: number;
  reversed_amount_minor: number;
}

/**
 * BATCH_COLUMNS for an UPDATE's RETURNING: scheduled_date as the date itself, read as its text by
 * DATE_AS_TEXT. Citus refuses to_char() there on a distributed table (not IMMUTABLE: "non-IMMUTABLE
 * functions are not allowed in the RETURNING clause"); the text of a date is its YYYY-MM-DD.
 */
const RETURNING_BATCH_COLUMNS = () => BATCH_COLUMNS.replace(`to_char(scheduled_date, 'YYYY-MM-DD') as scheduled_date`, 'scheduled_date');
const DATE_OID = 1082;
export const DATE_AS_TEXT = {
  getTypeParser: (oid: number, format?: string) => (oid === DATE_OID ? (value: string) => value : pgRuntime.types.getTypeParser(oid, format as 'text')),
} as unknown as pg.CustomTypesConfig;

/** Every column but the staged upload, which can be 10 MB. */
const BATCH_COLUMNS = `batch_number, merchant_account_number, currency_code, level_number, upload_type, is_batch_scheduled,
  to_char(scheduled_date, 'YYYY-MM-DD') as scheduled_date, status_code, captured_by, date_captured, reviewed_by, date_reviewed,
  approved_by, date_approved, rejected_by, rejection_reason, date_rejected, cancelled_by, date_cancelled, transferred_by,
  date_transferred, date_completed, error_message, number_of_entries, number_of_invalid_entries, number_of_successful_entries,
  number_of_failed_entries, number_of_reversed_entries, total_amount_minor, total_fee_minor, successful_amount_minor,
  failed_amount_minor, reversed_amount_minor`;

export interface PayoutRow {
  payout_id: number;
  merchant_account_number: number;
  batch_number: number | null;
  line_number: number | null;
  transaction_reference_number: string;
  source_reference_number: string;
  beneficiary_name: string;
  connector_id: number;
  connector_name: string | null;
  beneficiary_account_number: string;
  transaction_description: string;
  /** Null only for an invalid line whose amount was not one (E, amountFormat: error_params.amount has the text as written). */
  amount_minor: number | null;
  fee_minor: number;
  currency_code: string;
  transaction_code: string | null;
  status_code: PayoutStatus;
  error_code: string | null;
  error_params: Record<string, string | number> | null;
  response_code: string | null;
  response_message: string | null;
  captured_by: string;
  created_at: Date;
  transferred_at: Date | null;
  completed_at: Date | null;
  reversed_at: Date | null;
  /** Single payouts only (migrations/0009): the level captured at, and who acted on it. */
  level_number: number | null;
  reviewed_by: string | null;
  date_reviewed: Date | null;
  approved_by: string | null;
  date_approved: Date | null;
  rejected_by: string | null;
  rejection_reason: string | null;
  date_rejected: Date | null;
}

const PAYOUT_COLUMNS = `p.payout_id, p.merchant_account_number, p.batch_number, p.line_number, p.transaction_reference_number,
  p.source_reference_number, p.beneficiary_name, p.connector_id, c.connector_name, p.beneficiary_account_number,
  p.transaction_description, p.amount_minor, p.fee_minor, p.currency_code, p.transaction_code, p.status_code, p.error_code,
  p.error_params, p.response_code, p.response_message, p.captured_by, p.created_at, p.transferred_at, p.completed_at, p.reversed_at,
  p.level_number, p.reviewed_by, p.date_reviewed, p.approved_by, p.date_approved, p.rejected_by, p.rejection_reason, p.date_rejected`;
/** Payouts with their connector's name: every read of PayoutRow starts here. */
const SELECT_PAYOUT = `select ${PAYOUT_COLUMNS} from payouts p left join connectors c on c.connector_id = p.connector_id`;

// ---------------------------------------------------------------------------------------------
// Batches

export interface NewBatch {
  merchantAccountNumber: number;
  currencyCode: string;
  levelNumber: number;
  uploadType: BatchRow['upload_type'];
  isBatchScheduled: boolean;
  scheduledDate: string | null;
  capturedBy: string;
  numberOfEntries: number;
  /**
   * The lines: compact JSON, [[beneficiaryName, connectorId, beneficiaryAccountNumber, description,
   * amountMinor, sourceReferenceNumber(, fileRow)], …] (upload.ts compactLines: the amount slot is
   * the text as written when it is not an amount), or the id of the upload (batch_upload_chunks)
   * copied in this transaction.
   */
  lines: { stagedLines: string } | { uploadId: string };
}

export async function insertBatch(tx: pg.PoolClient, b: NewBatch): Promise<number> {
  const { rows } = await tx.query<{ batch_number: number }>(
    `insert into batches (merchant_account_number, currency_code, level_number, upload_type, is_batch_scheduled, scheduled_date, captured_by, number_of_entries, staged_lines, upload_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning batch_number`,
    [
      b.merchantAccountNumber, b.currencyCode, b.levelNumber, b.uploadType, b.isBatchScheduled, b.scheduledDate, b.capturedBy, b.numberOfEntries,
      'stagedLines' in b.lines ? b.lines.stagedLines : null,
      'uploadId' in b.lines ? b.lines.uploadId : null,
    ],
  );
  return rows[0].batch_number;
}

export async function findBatch(q: Queryable, merchantAccountNumber: number, batchNumber: number, options: FindOptions = {}): Promise<BatchRow | undefined> {
  const { rows } = await q.query<BatchRow>(
    `select ${BATCH_COLUMNS} from batches where batch_number = $1 and merchant_account_number = $2${options.lock ? ' for update' : ''}`,
    [batchNumber, merchantAccountNumber],
  );
  return rows[0];
}

/** The merchant of a batch named by its number alone (a validation job queued without it), lock-free. */
export async function merchantOfBatch(q: Queryable, batchNumber: number): Promise<number | undefined> {
  const { rows } = await q.query<{ merchant_account_number: number }>('select merchant_account_number from batches where batch_number = $1', [batchNumber]);
  return rows[0]?.merchant_account_number;
}

/**
 * The batch if it is still queued, locked: the validation job's claim (a re-run finds nothing).
 * Pinned to its merchant: on Citus a lock must name the shard (no multi-shard FOR UPDATE).
 */
export async function lockQueuedBatch(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number): Promise<(BatchRow & { upload_id: string | null }) | undefined> {
  const { rows } = await tx.query<BatchRow & { upload_id: string | null }>(
    `select ${BATCH_COLUMNS}, upload_id from batches where merchant_account_number = $1 and batch_number = $2 and status_code = 'Q' for update`,
    [merchantAccountNumber, batchNumber],
  );
  return rows[0];
}

/** A copied upload's bytes, in the order they arrived. */
/**
 * The chunks come back in PostgreSQL's binary format, as the bytes they are: in text format a
 * 13 MB upload arrives as 26 MB of hex to decode (measured: 27–58 ms instead of 51–91).
 */
const RAW_BYTEA = { getTypeParser: () => (value: Buffer) => value } as unknown as pg.CustomTypesConfig;

export async function readUpload(tx: pg.PoolClient, merchantAccountNumber: number, uploadId: string): Promise<Buffer> {
  // `binary` is node-postgres's (lib/query.js), missing from its type definitions.
  const query = {
    text: 'select bytes from batch_upload_chunks where merchant_account_number = $1 and upload_id = $2 order by seq',
    values: [merchantAccountNumber, uploadId],
    binary: true,
    types: RAW_BYTEA,
  };
  const { rows } = await tx.query<{ bytes: Buffer }>(query as pg.QueryConfig<string[]>);
  return Buffer.concat(rows.map((r) => r.bytes));
}

/**
 * Expands a queued batch's lines (its staged_lines, or `stagedLines` read from its upload) into
 * payouts and validates them in the same statement:
 * amount an amount (only a console upload keeps a line whose amount is not: amountFormat, no
 * amount stored, checked first so that it is the reason given); connector known, active and open
 * to payouts; account format per channel; amount within the merchant's limits for the transaction
 * code (MMW wallets, MBA banks); sourceReferenceNumber unique in the batch. Valid lines get their
 * fee; invalid ones status E with the first reason. A file's lines keep their row (file_row).
 */
export async function expandBatch(tx: pg.PoolClient, batch: BatchRow, validStatus: 'P' | 'D', stagedLines: string | null = null): Promise<void> {
  // The duplicate-reference window sorts every line: in memory, not in temporary files.
  await tx.query(`set local work_mem = '64MB'`);
  const drawn = await tx.query<{ seqs: string[] }>(
    `select coalesce(array_agg(nextval('payout_reference_seq') order by g.i), '{}') as seqs from generate_series(1, $1::integer) as g(i)`,
    [batch.number_of_entries],
  );
  await tx.query(
    `insert into payouts (merchant_account_number, batch_number, line_number, file_row, transaction_reference_number, source_reference_number,
                          beneficiary_name, connector_id, beneficiary_account_number, transaction_description, amount_minor, fee_minor,
                          currency_code, transaction_code, status_code, error_code, error_params, captured_by)
     select b.merchant_account_number, b.batch_number, l.line_number, l.file_row, payout_reference(l.reference_seq, to_char(now() at time zone 'UTC', 'YYMMDD')), l.source_reference_number,
            l.beneficiary_name, l.connector_id, l.beneficiary_account_number, l.transaction_description, l.amount_minor,
            case when v.error_code is null then fee_for_amount(l.amount_minor, coalesce(f.percent_basis_points, 0), coalesce(f.flat_minor, 0)) else 0 end,
            b.currency_code, l.transaction_code,
            case when v.error_code is null then $2 else 'E' end, v.error_code,
            -- In the select list, not a lateral subquery without FROM: Citus refuses one that calls
            -- a function that is not IMMUTABLE (jsonb_build_object) ("cannot push down this subquery").
            case
              when v.error_code is null then null
              when v.error_code = 'amountBelowMinimum' then jsonb_build_object('limit', ml.minimum_amount_minor, 'transactionCode', l.transaction_code)
              when v.error_code = 'amountAboveMaximum' then jsonb_build_object('limit', ml.maximum_amount_minor, 'transactionCode', l.transaction_code)
              when v.error_code = 'amountFormat' then jsonb_build_object('amount', l.amount_text)
              when v.error_code = 'duplicateReference' then jsonb_build_object('line', coalesce(l.first_row, l.first_line))
              else jsonb_build_object('connectorId', l.connector_id)
            end,
            b.captured_by
       from batches b
       cross join lateral (
         select e.n as beneficiary_name, e.c as connector_id, e.a as beneficiary_account_number, e.d as transaction_description,
                e.m as amount_minor, e.amount_text, e.r as source_reference_number, e.fr as file_row,
                e.i as line_number, c.connector_id is not null as connector_known, c.is_active, c.is_disbursement_allowed, c.channel_code,
                case c.channel_code when 'M' then 'MMW' when 'B' then 'MBA' end as transaction_code,
                row_number() over (partition by e.r order by e.i) as reference_occurrence,
                min(e.i) over (partition by e.r) as first_line,
                -- A file's rows rise with its lines: the first occurrence's row, which its messages name.
                min(e.fr) over (partition by e.r) as first_row,
                -- Drawn before, on the coordinator (the sequence is not on Citus's workers, where
                -- this select runs), one per line in line order; a column, so that
                -- payout_reference(…) is inlined (calling it per drawn value tripled the cost).
                ($8::bigint[])[e.i] as reference_seq
           -- Each line is parsed once (jsonb), then its fields are read by position. The amount is
           -- minor units when a number, the text as written when a string (not an amount: no amount).
           from (select (x.v->>0) as n, (x.v->>1)::integer as c, (x.v->>2) as a, (x.v->>3) as d,
                        case when jsonb_typeof(x.v->4) = 'number' then (x.v->>4)::bigint end as m,
                        case when jsonb_typeof(x.v->4) = 'string' then x.v->>4 end as amount_text,
                        (x.v->>5) as r, (x.v->>6)::integer as fr, x.i::integer as i
                   from jsonb_array_elements(coalesce($7::text, b.staged_lines)::jsonb) with ordinality as x(v, i)) e
           left join connectors c on c.connector_id = e.c
       ) l
       left join merchant_limits ml on ml.merchant_account_number = b.merchant_account_number and ml.transaction_code = l.transaction_code and ml.currency_code = b.currency_code
       left join fee_schedules f on f.transaction_code = l.transaction_code and f.currency_code = b.currency_code
       cross join lateral (
         select case
           when l.amount_text is not null then 'amountFormat'
           when not l.connector_known then 'connectorUnknown'
           when not l.is_active then 'connectorInactive'
           when not l.is_disbursement_allowed then 'connectorNoPayouts'
           when l.channel_code = 'M' and not (l.beneficiary_account_number ~ $5 or l.beneficiary_account_number = any($3::text[])) then 'walletFormat'
           when l.channel_code = 'B' and l.beneficiary_account_number !~ $6 then 'bankFormat'
           when ml.merchant_account_number is not null and l.amount_minor < ml.minimum_amount_minor then 'amountBelowMinimum'
           when ml.merchant_account_number is not null and l.amount_minor > ml.maximum_amount_minor then 'amountAboveMaximum'
           when l.reference_occurrence > 1 then 'duplicateReference'
         end as error_code
       ) v
      where b.merchant_account_number = $1 and b.batch_number = $4
      order by l.line_number`,
    [batch.merchant_account_number, validStatus, TEST_WALLETS, batch.batch_number, WALLET_ACCOUNT.source, BANK_ACCOUNT.source, stagedLines, drawn.rows[0].seqs],
  );
}

/** Counts and totals of the expanded lines, and the batch's new state; the staged lines or upload are dropped. */
export async function finishValidation(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number, noValidLinesMessage: string): Promise<BatchRow> {
  const { rows } = await tx.query<BatchRow>({
    text: `with dropped as (delete from batch_upload_chunks c using batches b
                        where b.merchant_account_number = $3 and b.batch_number = $1 and c.merchant_account_number = $3 and c.upload_id = b.upload_id)
     update batches b set staged_lines = null, upload_id = null,
            number_of_invalid_entries = s.invalid,
            total_amount_minor = s.amount, total_fee_minor = s.fee,
            status_code = case when s.invalid = b.number_of_entries then 'E' else 'P' end,
            error_message = case when s.invalid = b.number_of_entries then $2 end
       from (select count(*) filter (where status_code = 'E')::integer as invalid,
                    coalesce(sum(amount_minor) filter (where status_code <> 'E'), 0)::bigint as amount,
                    coalesce(sum(fee_minor) filter (where status_code <> 'E'), 0)::bigint as fee
               from payouts where merchant_account_number = $3 and batch_number = $1) s
      where b.merchant_account_number = $3 and b.batch_number = $1
      returning ${RETURNING_BATCH_COLUMNS()}`,
    values: [batchNumber, noValidLinesMessage, merchantAccountNumber],
    types: DATE_AS_TEXT,
  });
  return rows[0];
}

/** A batch that cannot be validated at all (its merchant was deactivated): E, no lines. */
export async function failQueuedBatch(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number, errorMessage: string): Promise<BatchRow> {
  const { rows } = await tx.query<BatchRow>({
    text: `with dropped as (delete from batch_upload_chunks c using batches b
                        where b.merchant_account_number = $3 and b.batch_number = $1 and c.merchant_account_number = $3 and c.upload_id = b.upload_id)
     update batches set staged_lines = null, upload_id = null, status_code = 'E', error_message = $2, number_of_invalid_entries = number_of_entries
      where merchant_account_number = $3 and batch_number = $1 returning ${RETURNING_BATCH_COLUMNS()}`,
    values: [batchNumber, errorMessage, merchantAccountNumber],
    types: DATE_AS_TEXT,
  });
  return rows[0];
}

/** Moves the batch to `to` and records who did it; lines follow per LINE_STATUS_ON. */
export async function setBatchStatus(
  tx: pg.PoolClient,
  merchantAccountNumber: number,
  batchNumber: number,
  to: BatchStatus,
  actor: { column: 'reviewed' | 'approved' | 'rejected' | 'cancelled' | 'transferred'; by: string },
  rejectionReason?: string,
): Promise<BatchRow> {
  const { rows } = await tx.query<BatchRow>({
    text: `update batches set status_code = $2, ${actor.column}_by = $3, date_${actor.column} = now()${actor.column === 'rejected' ? ', rejection_reason = $5' : ''}
      where merchant_account_number = $4 and batch_number = $1 returning ${RETURNING_BATCH_COLUMNS()}`,
    values: actor.column === 'rejected' ? [batchNumber, to, actor.by, merchantAccountNumber, rejectionReason ?? null] : [batchNumber, to, actor.by, merchantAccountNumber],
    types: DATE_AS_TEXT,
  });
  return rows[0];
}

export async function setLineStatus(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number, from: string[], to: string): Promise<void> {
  await tx.query('update payouts set status_code = $3 where merchant_account_number = $4 and batch_number = $1 and status_code = any($2::text[])', [batchNumber, from, to, merchantAccountNumber]);
}

/** Valid lines ready for transfer, per transaction code: what the debit and the daily limits count. */
export async function readyTotals(tx: Queryable, merchantAccountNumber: number, batchNumber: number): Promise<Array<{ transaction_code: string; amount_minor: number; fee_minor: number; lines: number }>> {
  const { rows } = await tx.query(
    `select transaction_code, sum(amount_minor)::bigint as amount_minor, sum(fee_minor)::bigint as fee_minor, count(*)::integer as lines
       from payouts where merchant_account_number = $2 and batch_number = $1 and status_code = 'D' group by transaction_code order by transaction_code`,
    [batchNumber, merchantAccountNumber],
  );
  return rows;
}

/** D → T for the whole batch, due when processing may start. */
/**
 * D → T for the whole batch, due now, or from the start (UTC) of its scheduled day. Returns when,
 * by the database's clock: the one the payout worker compares due_at with.
 */
export async function startTransfer(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number, scheduledDate: string | null): Promise<Date> {
  const { rows } = await tx.query<{ due_at: Date }>(`select greatest(now(), $1::date::timestamp at time zone 'UTC') as due_at`, [scheduledDate]);
  await tx.query(`update payouts set status_code = 'T', due_at = $2, transferred_at = now() where merchant_account_number = $3 and batch_number = $1 and status_code = 'D'`, [batchNumber, rows[0].due_at, merchantAccountNumber]);
  return rows[0].due_at;
}

/**
 * Adds to a day's transferred total for a code and returns the new total: `day` (YYYY-MM-DD, UTC),
 * the day the money leaves, or today by the database's clock when null. Call under the limit row's lock.
 */
export async function addToDailyTotal(tx: pg.PoolClient, merchantAccountNumber: number, transactionCode: string, currencyCode: string, amountMinor: number, day: string | null = null): Promise<number> {
  const { rows } = await tx.query<{ amount_minor: number }>(
    `insert into payout_daily_totals (merchant_account_number, transaction_code, currency_code, day, amount_minor)
     values ($1, $2, $3, coalesce($5::date, (now() at time zone 'UTC')::date), $4)
     on conflict (merchant_account_number, transaction_code, currency_code, day) do update set amount_minor = payout_daily_totals.amount_minor + excluded.amount_minor
     returning amount_minor`,
    [merchantAccountNumber, transactionCode, currencyCode, amountMinor, day],
  );
  return rows[0].amount_minor;
}

/**
 * Locks the valid lines of a transferred batch for cancelling it, and tells whether every one still
 * waits for its scheduled date: T, never attempted, due later than now. The payout worker claims
 * due lines with FOR UPDATE SKIP LOCKED and only then locks their batch; this runs under the batch's
 * lock, so it must not wait for the worker's lines (the two would deadlock): SKIP LOCKED here too,
 * and a line the worker holds (being sent now) is simply not counted as waiting. Whichever takes
 * the lines first wins: the worker then finds them C, or this finds them held, S or F.
 */
export async function lockWaitingLines(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number): Promise<boolean> {
  // The merchant in both conditions: the lock stays on one merchant's rows (one shard on Citus).
  const { rows } = await tx.query<{ lines: number; waiting: number }>(
    `with locked as (
       select status_code, attempts, due_at from payouts
        where merchant_account_number = $1 and batch_number = $2 and status_code <> 'E'
        for update skip locked
     )
     select (select count(*) from payouts where merchant_account_number = $1 and batch_number = $2 and status_code <> 'E')::integer as lines,
            count(*) filter (where status_code = 'T' and attempts = 0 and due_at > now())::integer as waiting
       from locked`,
    [merchantAccountNumber, batchNumber],
  );
  return rows[0].lines > 0 && rows[0].waiting === rows[0].lines;
}

/**
 * T → C for a cancelled batch's waiting lines (locked by lockWaitingLines). Per transaction code
 * and due day: what the lines had debited (amounts, fees) and reserved of that day's limit
 * (transferFunds counts a line against the UTC day it comes due).
 */
export async function cancelWaitingLines(tx: pg.PoolClient, merchantAccountNumber: number, batchNumber: number): Promise<Array<{ transaction_code: string; day: string; amount_minor: number; fee_minor: number }>> {
  const { rows } = await tx.query(
    `with cancelled as (
       update payouts p set status_code = 'C', due_at = null
         from payouts was
        where was.merchant_account_number = p.merchant_account_number and was.payout_id = p.payout_id
          and p.merchant_account_number = $2 and p.batch_number = $1 and p.status_code = 'T'
       returning p.transaction_code, (was.due_at at time zone 'UTC')::date as day, p.amount_minor, p.fee_minor
     )
     select transaction_code, to_char(day, 'YYYY-MM-DD') as day, sum(amount_minor)::bigint as amount_minor, sum(fee_minor)::bigint as fee_minor
       from cancelled group by transaction_code, day order by transaction_code, day`,
    [batchNumber, merchantAccountNumber],
  );
  return rows;
}

/** Gives back what cancelled payouts had reserved of a day's total. */
export async function releaseDailyTotal(tx: pg.PoolClient, merchantAccountNumber: number, transactionCode: string, currencyCode: string, day: string, amountMinor: number): Promise<void> {
  await tx.query(
    `update payout_daily_totals set amount_minor = amount_minor - $5
      where merchant_account_number = $1 and transaction_code = $2 and currency_code = $3 and day = $4::date`,
    [merchantAccountNumber, transactionCode, currencyCode, day, amountMinor],
  );
}

// ---------------------------------------------------------------------------------------------
// Reads

export interface BatchFilter {
  batchDate?: string;
  searchBy?: 'CapturedBy' | 'ReviewedBy' | 'ApprovedBy' | 'BatchStatus' | 'BatchStatusDescription';
  searchText?: string;
  /** One status (the console's filter). */
  status?: BatchStatus;
  /** E4's statuses, as status and level pairs (searchBy BatchStatus or BatchStatusDescription). */
  statuses?: ShownStatus[];
  /**
   * E4 lists a batch only once it is validated; a person who has just uploaded one expects to see
   * it (the console).
   */
  queued: 'hidden' | 'shown';
  /** 'all': no limit (the console's export, which reads the statement through a cursor: listBatchesQuery). */
  limit: number | 'all';
  /** E4's pages by number, or the console's keyset: the batches before this number (newest first). */
  page: { offset: number } | { beforeBatchNumber: number | undefined };
}

const BATCH_SEARCH_COLUMNS: Record<string, string> = { CapturedBy: 'captured_by', ReviewedBy: 'reviewed_by', ApprovedBy: 'approved_by' };

/** The merchant's batches, newest first (batch_number desc, the index batches_merchant_idx): E4's and the console's lists. */
export async function listBatches(q: Queryable, merchantAccountNumber: number, f: BatchFilter): Promise<BatchRow[]> {
  const { text, values } = listBatchesQuery(merchantAccountNumber, f);
  const { rows } = await q.query<BatchRow>(text, values);
  return rows;
}

/** listBatches' statement (rows of BatchRow), for the console's export to read through a cursor. */
export function listBatchesQuery(merchantAccountNumber: number, f: BatchFilter): { text: string; values: unknown[] } {
  const where = [`merchant_account_number = $1`];
  const values: unknown[] = [merchantAccountNumber];
  const param = (value: unknown) => `$${values.push(value)}`;
  if (f.queued === 'hidden') where.push(`status_code <> 'Q'`);
  if (f.batchDate) {
    const day = param(f.batchDate);
    // The UTC day, whatever the session's TimeZone (a bare date::timestamptz would use it).
    where.push(`date_captured >= (${day}::date)::timestamp at time zone 'UTC' and date_captured < (${day}::date + 1)::timestamp at time zone 'UTC'`);
  }
  if (f.status) where.push(`status_code = ${param(f.status)}`);
  if (f.statuses) {
    where.push(`(status_code, level_number) in (select * from unnest(${param(f.statuses.map((x) => x.status))}::text[], ${param(f.statuses.map((x) => x.level))}::smallint[]))`);
  } else if (f.searchBy && f.searchText && BATCH_SEARCH_COLUMNS[f.searchBy]) {
    where.push(`${BATCH_SEARCH_COLUMNS[f.searchBy]} ilike ${param(containsPattern(f.searchText))}`);
  }
  let window = f.limit === 'all' ? '' : `limit ${param(f.limit)}`;
  if ('offset' in f.page) window += ` offset ${param(f.page.offset)}`;
  else if (f.page.beforeBatchNumber !== undefined) where.push(`batch_number < ${param(f.page.beforeBatchNumber)}`);
  return { text: `select ${BATCH_COLUMNS} from batches where ${where.join(' and ')} order by batch_number desc ${window}`, values };
}

export interface PayoutFilter {
  batchNumber?: number;
  /** Single payouts instead of batch lines. */
  single?: boolean;
  searchBy?: 'BeneficiaryName' | 'BeneficiaryAccountNumber' | 'TransactionReferenceNumber' | 'SourceReferenceNumber';
  searchText?: string;
  statusCode?: string;
  transactionDate?: string;
  offset: number;
  limit: number;
}

const PAYOUT_SEARCH_COLUMNS: Record<string, string> = {
  BeneficiaryName: 'p.beneficiary_name',
  BeneficiaryAccountNumber: 'p.beneficiary_account_number',
  TransactionReferenceNumber: 'p.transaction_reference_number',
  SourceReferenceNumber: 'p.source_reference_number',
};

/**
 * E3 and single/getTransactions. One batch's lines without a filter are read by line number,
 * which is dense (1…n): page 1,000 is an index range, not an offset scan.
 */
export async function listPayouts(q: Queryable, merchantAccountNumber: number, f: PayoutFilter): Promise<PayoutRow[]> {
  const where = ['p.merchant_account_number = $1'];
  const values: unknown[] = [merchantAccountNumber];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  let order: string;
  let paging: string;
  if (f.single) {
    where.push('p.batch_number is null');
    order = 'p.payout_id desc';
  } else if (f.batchNumber !== undefined) {
    where.push(`p.batch_number = ${add(f.batchNumber)}`);
    order = 'p.line_number';
  } else {
    where.push('p.batch_number is not null');
    order = 'p.batch_number desc, p.line_number';
  }
  const filtered = Boolean(f.statusCode || (f.searchBy && f.searchText) || f.transactionDate);
  if (f.statusCode) where.push(`p.status_code = ${add(f.statusCode)}`);
  if (f.searchBy && f.searchText) where.push(`${PAYOUT_SEARCH_COLUMNS[f.searchBy]} ilike ${add(containsPattern(f.searchText))}`);
  if (f.transactionDate) {
    const day = add(f.transactionDate);
    where.push(`p.created_at >= (${day}::date)::timestamp at time zone 'UTC' and p.created_at < (${day}::date + 1)::timestamp at time zone 'UTC'`);
  }
  if (f.batchNumber !== undefined && !filtered) {
    where.push(`p.line_number > ${add(f.offset)} and p.line_number <= ${add(f.offset + f.limit)}`);
    paging = '';
  } else {
    paging = `limit ${add(f.limit)} offset ${add(f.offset)}`;
  }
  const { rows } = await q.query<PayoutRow>(
    `${SELECT_PAYOUT}
      where ${where.join(' and ')} order by ${order} ${paging}`,
    values,
  );
  return rows;
}

/** A payout of the merchant by reference: a single payout or a batch line; `lock`: for an action on it. */
export async function findPayout(q: Queryable, merchantAccountNumber: number, reference: string, options: FindOptions & { single: boolean }): Promise<PayoutRow | undefined> {
  const { rows } = await q.query<PayoutRow>(
    `${SELECT_PAYOUT}
      where p.transaction_reference_number = $1 and p.merchant_account_number = $2 and (p.batch_number is null) = $3
      ${options.lock ? 'for update of p' : ''}`,
    [reference.toUpperCase(), merchantAccountNumber, options.single],
  );
  return rows[0];
}

/** A payout with its merchant account's name: what batch/getTransaction and single/getTransaction answer. */
export type PayoutDetailRow = PayoutRow & { merchant_account_name: string };

export async function findPayoutDetail(q: Queryable, merchantAccountNumber: number, reference: string, options: { single: boolean }): Promise<PayoutDetailRow | undefined> {
  const { rows } = await q.query<PayoutDetailRow>(
    `select ${PAYOUT_COLUMNS}, m.account_name as merchant_account_name
       from payouts p
       left join connectors c on c.connector_id = p.connector_id
       join merchants m on m.merchant_account_number = p.merchant_account_number
      where p.transaction_reference_number = $1 and p.merchant_account_number = $2 and (p.batch_number is null) = $3`,
    [reference.toUpperCase(), merchantAccountNumber, options.single],
  );
  return rows[0];
}

async function payoutById(q: Queryable, payoutId: number): Promise<PayoutRow> {
  const { rows } = await q.query<PayoutRow>(`${SELECT_PAYOUT} where p.payout_id = $1`, [payoutId]);
  return rows[0];
}

/** A batch's invalid lines in line order, each with its row in the file for a file's batch (file_row; null for E8's). */
export async function invalidLines(q: Queryable, merchantAccountNumber: number, batchNumber: number): Promise<Array<PayoutRow & { file_row: number | null }>> {
  const { rows } = await q.query<PayoutRow & { file_row: number | null }>(
    `select ${PAYOUT_COLUMNS}, p.file_row from payouts p left join connectors c on c.connector_id = p.connector_id
      where p.batch_number = $1 and p.merchant_account_number = $2 and p.status_code = 'E' order by p.line_number`,
    [batchNumber, merchantAccountNumber],
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Single payouts

export interface NewPayout {
  merchantAccountNumber: number;
  sourceReferenceNumber: string;
  beneficiaryName: string;
  connectorId: number;
  beneficiaryAccountNumber: string;
  transactionDescription: string;
  amountMinor: number;
  feeMinor: number;
  currencyCode: string;
  transactionCode: string;
  capturedBy: string;
  /** The merchant's authorisation level now: the rules this payout follows (lifecycle.ts). */
  levelNumber: number;
  /** T: submitted at once (level 1), due now; P: awaiting review or approval, no due time. */
  statusCode: typeof PAYOUT.transferring | typeof PAYOUT.pending;
}

export async function insertSinglePayout(tx: pg.PoolClient, p: NewPayout): Promise<PayoutRow> {
  const transferring = p.statusCode === PAYOUT.transferring;
  const { rows } = await tx.query<{ payout_id: number }>(
    `insert into payouts (merchant_account_number, transaction_reference_number, source_reference_number, beneficiary_name, connector_id,
                          beneficiary_account_number, transaction_description, amount_minor, fee_minor, currency_code, transaction_code,
                          status_code, response_code, response_message, captured_by, transferred_at, due_at, level_number)
     values ($1, payout_reference(nextval('payout_reference_seq'), to_char(now() at time zone 'UTC', 'YYMMDD')), $2, $3, $4, $5, $6, $7, $8, $9, $10,
             $14, $11, $12, $13, case when $15 then now() end, case when $15 then now() end, $16)
     returning payout_id`,
    [
      p.merchantAccountNumber,
      p.sourceReferenceNumber,
      p.beneficiaryName,
      p.connectorId,
      p.beneficiaryAccountNumber,
      p.transactionDescription,
      p.amountMinor,
      p.feeMinor,
      p.currencyCode,
      p.transactionCode,
      transferring ? SUBMITTED.responseCode : AWAITING_APPROVAL.responseCode,
      transferring ? SUBMITTED.responseMessage : AWAITING_APPROVAL.responseMessage,
      p.capturedBy,
      p.statusCode,
      transferring,
      p.levelNumber,
    ],
  );
  return payoutById(tx, rows[0].payout_id);
}

/** A single payout of the merchant by reference, locked for an action on it (review, approve, reject). */
export function lockSinglePayout(tx: pg.PoolClient, merchantAccountNumber: number, reference: string): Promise<PayoutRow | undefined> {
  return findPayout(tx, merchantAccountNumber, reference, { single: true, lock: 'for update' });
}

/**
 * The state a single payout's action leaves it in (lifecycle.ts SINGLE_TRANSITIONS), and who did
 * it: review keeps P and records the reviewer; approve submits it (T, due now, the time its money
 * left); reject makes it X with the reason. Call under lockSinglePayout's lock.
 */
export async function actOnSinglePayout(
  tx: pg.PoolClient,
  payoutId: number,
  action: 'review' | 'approve' | 'reject',
  by: string,
  reason?: string,
): Promise<PayoutRow> {
  const set = {
    review: `reviewed_by = $2, date_reviewed = now()`,
    approve: `approved_by = $2, date_approved = now(), status_code = 'T', due_at = now(), transferred_at = now(), response_code = $3, response_message = $4`,
    reject: `rejected_by = $2, date_rejected = now(), status_code = 'X', rejection_reason = $3, response_code = null, response_message = null`,
  }[action];
  const params = { review: [], approve: [SUBMITTED.responseCode, SUBMITTED.responseMessage], reject: [reason ?? ''] }[action];
  await tx.query(`update payouts set ${set} where payout_id = $1`, [payoutId, by, ...params]);
  return payoutById(tx, payoutId);
}

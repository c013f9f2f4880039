// The payout worker: sends transferring payouts (batch lines and single payouts alike) through the
// sandbox connector in chunks; in production only through connectors with a real adapter (none
// yet: adapters.ts), so there every payout fails at once with F105 and is refunded in full. Each
// chunk is one transaction: the lines' outcomes, one balanced ledger transfer for the whole chunk
// (in flight → settled + fees, failures refunded), the batch counters and the events. A worker
// killed mid-chunk rolls the chunk back; the lines are still T and the next worker takes them: no
// line is ever paid twice. Chunks are claimed with FOR UPDATE SKIP LOCKED, so two workers on the
// same merchant never take the same line.
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import type { Deps } from '../../http/types.ts';
import { emitEvent, emitEvents } from '../../jobs/outbox.ts';
import { toMajor } from '../../lib/money.ts';
import { applyStats, utcDay, type StatChange } from '../analytics/stats.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../merchants/ledger.ts';
import { payoutPayload, type PayoutLine } from '../webhooks/payloads.ts';
import { batchEvent, schedulePayouts, type BatchEventFields } from './service.ts';
import { payableConnectors } from './adapters.ts';
import { AWAITING, CONNECTOR_UNAVAILABLE, MAGIC_SUFFIXES, MERCHANT_UNAVAILABLE, SUCCESS } from './sandbox.ts';

/** Lines per transaction: big enough to amortise the statements, small enough to keep locks short. */
export const CHUNK_LINES = 1000;
/** Transactions per batch.payout.* event (product.md §9). */
export const LINES_PER_EVENT = 10;
/** One job run stops taking chunks after this and re-queues itself, so other jobs get a turn. */
const RUN_BUDGET_MS = 20_000;
/** The soonest a run schedules the next one. */
const RECHECK_MS = 1000;

interface ProcessedRow {
  payout_id: number;
  merchant_account_number: number;
  batch_number: number | null;
  transaction_reference_number: string;
  source_reference_number: string;
  beneficiary_name: string;
  beneficiary_account_number: string;
  connector_id: number;
  connector_name: string;
  amount_minor: number;
  fee_minor: number;
  currency_code: string;
  status_code: 'T' | 'S' | 'F' | 'R';
  response_code: string;
  response_message: string;
  /** When this outcome happened. */
  at: Date;
  /** When the payout became final (for a reversal: its original success). */
  completed_at: Date | null;
}

function payoutStats(merchantAccountNumber: number, rows: ProcessedRow[]): StatChange[] {
  return rows.map((r) => ({
    merchantAccountNumber,
    summaryType: 'D',
    connectorId: r.connector_id,
    currencyCode: r.currency_code,
    day: utcDay(new Date(r.completed_at ?? r.at)),
    outcome: r.status_code as 'S' | 'F' | 'R',
    amountMinor: r.amount_minor,
  }));
}

/** Processes everything due for one merchant, then schedules the next wake-up (time-outs, reversals). */
export async function processMerchantPayouts(deps: Deps, merchantAccountNumber: number): Promise<{ processed: number; reversed: number }> {
  const started = Date.now();
  let processed = 0;
  let reversed = 0;
  for (;;) {
    const n = await withTransaction(deps.db, (tx) => processChunk(deps, tx, merchantAccountNumber));
    processed += n;
    if (n === 0) break;
    if (Date.now() - started > RUN_BUDGET_MS) {
      await schedulePayouts(deps.db, merchantAccountNumber, new Date());
      return { processed, reversed };
    }
  }
  for (;;) {
    const n = await withTransaction(deps.db, (tx) => reverseChunk(tx, merchantAccountNumber));
    reversed += n;
    if (n === 0) break;
  }
  // Work still due now is held by another worker's open chunk: look again shortly, not in a spin.
  const next = await nextWakeUp(deps.db, merchantAccountNumber);
  if (next) await schedulePayouts(deps.db, merchantAccountNumber, new Date(Math.max(next.getTime(), Date.now() + RECHECK_MS)));
  return { processed, reversed };
}

async function nextWakeUp(q: Deps['db'], merchantAccountNumber: number): Promise<Date | null> {
  const { rows } = await q.query<{ next: Date | null }>(
    `select least((select min(due_at) from payouts where merchant_account_number = $1 and status_code = 'T'),
                  (select min(reverse_at) from payouts where merchant_account_number = $1 and status_code = 'S' and reverse_at is not null)) as next`,
    [merchantAccountNumber],
  );
  return rows[0].next;
}

async function processChunk(deps: Deps, tx: pg.PoolClient, merchantAccountNumber: number): Promise<number> {
  // null: sandbox, every connector simulated (with its magic suffixes); otherwise only these
  // connectors can take a payout, and nothing is simulated.
  const payable = payableConnectors(deps.config.mode);
  const suffixes = payable === null ? MAGIC_SUFFIXES : [];
  const { rows } = await tx.query<ProcessedRow>(
    `with picked as (
       select payout_id from payouts
        where merchant_account_number = $1 and status_code = 'T' and due_at <= now()
        order by due_at, payout_id limit $2 for update skip locked
     ), decided as (
       select p.payout_id, c.connector_name,
              case when m.status_code <> 'A' then 'merchant'
                   when c.connector_id is null or not c.is_active or not c.is_disbursement_allowed
                        or ($17::integer[] is not null and p.connector_id <> all($17::integer[])) then 'connector'
                   when s.outcome = 'timeout' and p.attempts = 0 then 'awaiting'
                   else coalesce(s.outcome, 'success') end as outcome,
              s.code, s.message
         from payouts p join picked using (payout_id)
         join merchants m on m.merchant_account_number = p.merchant_account_number
         left join connectors c on c.connector_id = p.connector_id
         left join unnest($3::text[], $4::text[], $5::text[], $6::text[]) as s(suffix, outcome, code, message) on right(p.beneficiary_account_number, 4) = s.suffix
     )
     update payouts p set
            status_code = case d.outcome when 'awaiting' then 'T' when 'success' then 'S' when 'reverse' then 'S' else 'F' end,
            due_at = case when d.outcome = 'awaiting' then now() + make_interval(secs => $7) end,
            attempts = p.attempts + 1,
            response_code = case d.outcome when 'merchant' then $9 when 'connector' then $10 when 'awaiting' then $11 when 'success' then $12 when 'reverse' then $12 else d.code end,
            response_message = case d.outcome when 'merchant' then $13 when 'connector' then $14 when 'awaiting' then $15 when 'success' then $16 when 'reverse' then $16 else d.message end,
            completed_at = case when d.outcome <> 'awaiting' then now() end,
            reverse_at = case when d.outcome = 'reverse' then now() + make_interval(secs => $8) end
       from decided d
      where p.payout_id = d.payout_id
      returning p.payout_id, p.merchant_account_number, p.batch_number, p.transaction_reference_number, p.source_reference_number,
                p.beneficiary_name, p.beneficiary_account_number, p.connector_id, coalesce(d.connector_name, '') as connector_name,
                p.amount_minor, p.fee_minor, p.currency_code, p.status_code, p.response_code, p.response_message, now() as at, p.completed_at`,
    [
      merchantAccountNumber,
      CHUNK_LINES,
      suffixes.map((m) => m.suffix),
      suffixes.map((m) => m.outcome),
      suffixes.map((m) => (m.outcome === 'reverse' ? SUCCESS.responseCode : m.responseCode)),
      suffixes.map((m) => (m.outcome === 'reverse' ? SUCCESS.responseMessage : m.responseMessage)),
      deps.config.payoutTimeoutSeconds,
      deps.config.payoutReversalSeconds,
      MERCHANT_UNAVAILABLE.responseCode,
      CONNECTOR_UNAVAILABLE.responseCode,
      AWAITING.responseCode,
      SUCCESS.responseCode,
      MERCHANT_UNAVAILABLE.responseMessage,
      CONNECTOR_UNAVAILABLE.responseMessage,
      AWAITING.responseMessage,
      SUCCESS.responseMessage,
      payable,
    ],
  );
  if (rows.length === 0) return 0;
  const final = rows.filter((r) => r.status_code !== 'T');
  if (final.length === 0) return rows.length;
  const succeeded = final.filter((r) => r.status_code === 'S');
  const failed = final.filter((r) => r.status_code === 'F');
  const currency = final[0].currency_code;
  const sum = (list: ProcessedRow[], f: (r: ProcessedRow) => number) => list.reduce((s, r) => s + f(r), 0);
  await postTransfer(tx, {
    merchantAccountNumber,
    type: 'payout_settle',
    reference: `P${final[0].payout_id}-${final.length}`,
    metadata: { succeeded: succeeded.length, failed: failed.length },
    entries: [
      { accountId: await systemAccountId(tx, 'payouts_in_flight', currency), amountMinor: -sum(final, (r) => r.amount_minor + r.fee_minor) },
      { accountId: await systemAccountId(tx, 'payouts_settled', currency), amountMinor: sum(succeeded, (r) => r.amount_minor) },
      { accountId: await systemAccountId(tx, 'fees', currency), amountMinor: sum(succeeded, (r) => r.fee_minor) },
      // A failed payout is refunded in full, fee included: the merchant paid for nothing.
      { accountId: await merchantAccountId(tx, merchantAccountNumber, 'disbursement', currency), amountMinor: sum(failed, (r) => r.amount_minor + r.fee_minor) },
    ],
  });
  await updateBatchCounters(tx, final);
  await applyStats(tx, payoutStats(merchantAccountNumber, final));
  await emitPayoutEvents(tx, merchantAccountNumber, final);
  await completeBatches(deps, tx, final);
  return rows.length;
}

/** Successful payouts whose (simulated) reversal is due: R, the amount back to the merchant. */
async function reverseChunk(tx: pg.PoolClient, merchantAccountNumber: number): Promise<number> {
  const reversal = MAGIC_SUFFIXES.find((m) => m.outcome === 'reverse')!;
  const { rows } = await tx.query<ProcessedRow>(
    `update payouts p set status_code = 'R', reversed_at = now(), response_code = $3, response_message = $4
       from (select payout_id from payouts
              where merchant_account_number = $1 and status_code = 'S' and reverse_at <= now()
              order by reverse_at, payout_id limit $2 for update skip locked) d
      where p.payout_id = d.payout_id
      returning p.payout_id, p.merchant_account_number, p.batch_number, p.transaction_reference_number, p.source_reference_number,
                p.beneficiary_name, p.beneficiary_account_number, p.connector_id,
                coalesce((select connector_name from connectors c where c.connector_id = p.connector_id), '') as connector_name,
                p.amount_minor, p.fee_minor, p.currency_code, p.status_code, p.response_code, p.response_message, now() as at, p.completed_at`,
    [merchantAccountNumber, CHUNK_LINES, reversal.responseCode, reversal.responseMessage],
  );
  if (rows.length === 0) return 0;
  const currency = rows[0].currency_code;
  const amount = rows.reduce((s, r) => s + r.amount_minor, 0);
  // The beneficiary's institution returned the amount; the fee stays charged (the payout was made).
  await postTransfer(tx, {
    merchantAccountNumber,
    type: 'payout_reversal',
    reference: `R${rows[0].payout_id}-${rows.length}`,
    entries: [
      { accountId: await systemAccountId(tx, 'payouts_settled', currency), amountMinor: -amount },
      { accountId: await merchantAccountId(tx, merchantAccountNumber, 'disbursement', currency), amountMinor: amount },
    ],
  });
  await updateBatchCounters(tx, rows);
  await applyStats(tx, payoutStats(merchantAccountNumber, rows));
  await emitPayoutEvents(tx, merchantAccountNumber, rows);
  return rows.length;
}

/** Per batch touched: successful / failed / reversed counts and amounts, in one statement. */
async function updateBatchCounters(tx: pg.PoolClient, rows: ProcessedRow[]): Promise<void> {
  const lines = rows.filter((r) => r.batch_number !== null);
  if (lines.length === 0) return;
  // Locked in batch-number order first: two workers whose chunks span the same batches then
  // queue behind each other instead of deadlocking.
  await tx.query('select 1 from batches where batch_number = any($1::integer[]) order by batch_number for update', [[...new Set(lines.map((r) => r.batch_number))]]);
  await tx.query(
    `update batches b set
            number_of_successful_entries = b.number_of_successful_entries + d.s - d.r,
            successful_amount_minor = b.successful_amount_minor + d.s_amount - d.r_amount,
            number_of_failed_entries = b.number_of_failed_entries + d.f,
            failed_amount_minor = b.failed_amount_minor + d.f_amount,
            number_of_reversed_entries = b.number_of_reversed_entries + d.r,
            reversed_amount_minor = b.reversed_amount_minor + d.r_amount
       from (select batch_number,
                    count(*) filter (where status = 'S') as s, coalesce(sum(amount) filter (where status = 'S'), 0) as s_amount,
                    count(*) filter (where status = 'F') as f, coalesce(sum(amount) filter (where status = 'F'), 0) as f_amount,
                    count(*) filter (where status = 'R') as r, coalesce(sum(amount) filter (where status = 'R'), 0) as r_amount
               from unnest($1::integer[], $2::text[], $3::bigint[]) as u(batch_number, status, amount) group by batch_number) d
      where b.batch_number = d.batch_number`,
    [lines.map((r) => r.batch_number), lines.map((r) => r.status_code), lines.map((r) => r.amount_minor)],
  );
}

/**
 * Batches with no line left in T are done: C, or F when nothing could even start (every line
 * failed because the merchant was deactivated before a scheduled batch ran). The batch row was
 * locked by updateBatchCounters, so two workers finishing the last chunks of one batch take turns,
 * and the second sees the first's lines.
 */
async function completeBatches(deps: Deps, tx: pg.PoolClient, rows: ProcessedRow[]): Promise<void> {
  const batches = [...new Set(rows.map((r) => r.batch_number).filter((b): b is number => b !== null))];
  if (batches.length === 0) return;
  const { rows: done } = await tx.query<BatchEventFields>(
    `update batches b set date_completed = now(),
            status_code = case when b.number_of_successful_entries = 0 and b.number_of_reversed_entries = 0
                                 and not exists (select 1 from payouts p where p.batch_number = b.batch_number and p.status_code = 'F' and p.response_code <> $2)
                               then 'F' else 'C' end,
            error_message = case when b.number_of_successful_entries = 0 and b.number_of_reversed_entries = 0
                                   and not exists (select 1 from payouts p where p.batch_number = b.batch_number and p.status_code = 'F' and p.response_code <> $2)
                                 then $3 else b.error_message end
      where b.batch_number = any($1::integer[]) and b.status_code = 'T'
        and not exists (select 1 from payouts p where p.batch_number = b.batch_number and p.status_code = 'T')
      returning b.batch_number, b.merchant_account_number, b.status_code, b.is_batch_scheduled, to_char(b.scheduled_date, 'YYYY-MM-DD') as scheduled_date,
                b.upload_type, b.captured_by, b.date_captured, b.error_message, b.total_amount_minor, b.number_of_entries, b.number_of_invalid_entries`,
    [batches, MERCHANT_UNAVAILABLE.responseCode, `${MERCHANT_UNAVAILABLE.responseMessage}: the batch could not be processed; every amount was refunded.`],
  );
  for (const b of done.filter((d) => d.status_code === 'F')) await emitEvent(tx, b.merchant_account_number, 'batch.failed', batchEvent(deps, b));
}

function payoutLine(r: ProcessedRow): PayoutLine {
  return {
    batchNumber: r.batch_number,
    transactionReferenceNumber: r.transaction_reference_number,
    sourceReferenceNumber: r.source_reference_number,
    beneficiaryName: r.beneficiary_name,
    beneficiaryAccountNumber: r.beneficiary_account_number,
    connectorId: r.connector_id,
    connectorName: r.connector_name,
    transactionAmount: toMajor(r.amount_minor),
    transactionFee: toMajor(r.fee_minor),
    currencyCode: r.currency_code,
    transactionStatusCode: r.status_code,
    responseCode: r.response_code,
    responseMessage: r.response_message,
    transactionDate: new Date(r.at).toISOString(),
  };
}

const OUTCOME_EVENT = { S: 'success', F: 'failed', R: 'reversed' } as const;

/** batch.payout.* per batch and outcome, at most 10 lines per event; payout.* one per single payout. */
async function emitPayoutEvents(tx: pg.PoolClient, merchantAccountNumber: number, rows: ProcessedRow[]): Promise<void> {
  const groups = new Map<string, ProcessedRow[]>();
  for (const r of rows) {
    if (r.status_code === 'T') continue;
    const code = `${r.batch_number === null ? 'payout' : 'batch.payout'}.${OUTCOME_EVENT[r.status_code]}`;
    const key = `${code}|${r.batch_number ?? ''}`;
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  for (const [key, list] of groups) {
    const code = key.split('|')[0];
    const perEvent = code.startsWith('batch.') ? LINES_PER_EVENT : 1;
    const payloads: object[] = [];
    for (let i = 0; i < list.length; i += perEvent) {
      payloads.push(payoutPayload(code as never, merchantAccountNumber, list.slice(i, i + perEvent).map(payoutLine)));
    }
    await emitEvents(tx, merchantAccountNumber, code, payloads);
  }
}

/**
 * Finds merchants whose payouts are overdue (their job was lost with a killed worker, whose lock
 * graphile-worker keeps for hours) and wakes their job. Runs every minute and at worker start.
 */
export async function sweepPayouts(deps: Deps, overdueSeconds: number): Promise<number> {
  const { rows } = await deps.db.query<{ merchant_account_number: number }>(
    `select distinct merchant_account_number from payouts
      where (status_code = 'T' and due_at <= now() - make_interval(secs => $1))
         or (status_code = 'S' and reverse_at <= now() - make_interval(secs => $1))`,
    [overdueSeconds],
  );
  for (const r of rows) await schedulePayouts(deps.db, r.merchant_account_number, new Date());
  return rows.length;
}

// What every rail's outcome does once a payout is final (S or F) or reversed (R), whichever rail
// carried it (src/rails/): one balanced ledger transfer for the rows (from the account the money
// waited in → settled + fees, failures refunded in full), the batch counters, the analytics, the
// merchant's events and the batches that are now complete, all in the caller's transaction, which
// also holds the rows' own status change. A rail decides outcomes; this file books them.
import type pg from 'pg';
import type { Deps } from '../../http/types.ts';
import { emitEvent, emitEvents } from '../../jobs/outbox.ts';
import { toMajor } from '../../lib/money.ts';
import { applyStats, utcDay, type StatChange } from '../analytics/stats.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../ledger/ledger.ts';
import { payoutPayload, type PayoutLine } from '../webhooks/payloads.ts';
import { BATCH, PAYOUT } from './lifecycle.ts';
import { batchEvent, type BatchEventFields } from './service.ts';
import { MERCHANT_UNAVAILABLE } from './sandbox.ts';
import { DATE_AS_TEXT } from './repository.ts';

/** Transactions per batch.payout.* event (product.md §9). */
export const LINES_PER_EVENT = 10;

/** The columns a rail's UPDATE … RETURNING gives for each payout it decided (`p` the payouts row). */
export const PROCESSED_COLUMNS = `p.payout_id, p.merchant_account_number, p.batch_number, p.transaction_reference_number, p.source_reference_number,
                p.beneficiary_name, p.beneficiary_account_number, p.connector_id,
                coalesce((select connector_name from connectors c where c.connector_id = p.connector_id), '') as connector_name,
                p.amount_minor, p.fee_minor, p.currency_code, p.status_code, p.response_code, p.response_message, p.completed_at`;

/**
 * An UPDATE … RETURNING PROCESSED_COLUMNS, its rows stamped with the transaction's now() as `at`:
 * Citus refuses now() in the RETURNING clause of a distributed table ("non-IMMUTABLE functions are
 * not allowed in the RETURNING clause"), so it is read on its own, in the same transaction (the
 * same value), and only when there are rows.
 */
export async function updateReturningProcessed(tx: pg.PoolClient, text: string, values: unknown[]): Promise<ProcessedRow[]> {
  const { rows } = await tx.query<Omit<ProcessedRow, 'at'>>(text, values);
  if (rows.length === 0) return [];
  const at = (await tx.query<{ at: Date }>('select now() as at')).rows[0].at;
  return rows.map((r) => ({ ...r, at }));
}

export interface ProcessedRow {
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

export function payoutStats(merchantAccountNumber: number, rows: ProcessedRow[]): StatChange[] {
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


/** Per batch touched: successful / failed / reversed counts and amounts, in one statement. */
export async function updateBatchCounters(tx: pg.PoolClient, rows: ProcessedRow[]): Promise<void> {
  const lines = rows.filter((r) => r.batch_number !== null);
  if (lines.length === 0) return;
  // Locked in batch-number order first: two workers whose chunks span the same batches then
  // queue behind each other instead of deadlocking. Merchant by merchant (a chunk is one
  // merchant's), in merchant order, so that no lock spans merchants (shards on Citus).
  const merchants = [...new Set(lines.map((r) => r.merchant_account_number))].sort((a, b) => a - b);
  for (const merchant of merchants) {
    const batches = [...new Set(lines.filter((r) => r.merchant_account_number === merchant).map((r) => r.batch_number))];
    await tx.query('select 1 from batches where merchant_account_number = $1 and batch_number = any($2::bigint[]) order by batch_number for update', [merchant, batches]);
  }
  // One statement per merchant, pinned to it: one shard on Citus.
  for (const merchant of merchants) {
    const mine = lines.filter((r) => r.merchant_account_number === merchant);
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
                 from unnest($1::bigint[], $2::text[], $3::bigint[]) as u(batch_number, status, amount) group by batch_number) d
        where b.merchant_account_number = $4 and b.batch_number = d.batch_number`,
      [mine.map((r) => r.batch_number), mine.map((r) => r.status_code), mine.map((r) => r.amount_minor), merchant],
    );
  }
}

/**
 * Batches with no line left in T are done: C, or F when nothing could even start (every line
 * failed because the merchant was deactivated before a scheduled batch ran). The batch row was
 * locked by updateBatchCounters, so two workers finishing the last chunks of one batch take turns,
 * and the second sees the first's lines.
 */
export async function completeBatches(deps: Deps, tx: pg.PoolClient, rows: ProcessedRow[]): Promise<void> {
  const batches = [...new Set(rows.map((r) => r.batch_number).filter((b): b is number => b !== null))];
  if (batches.length === 0) return;
  const merchants = [...new Set(rows.filter((r) => r.batch_number !== null).map((r) => r.merchant_account_number))];
  const done: BatchEventFields[] = [];
  // Per merchant, pinned to it (one shard on Citus); scheduled_date as the date (DATE_AS_TEXT):
  // Citus refuses to_char() in the RETURNING clause of a distributed table.
  for (const merchant of merchants) {
    const mine = [...new Set(rows.filter((r) => r.merchant_account_number === merchant).map((r) => r.batch_number).filter((n): n is number => n !== null))];
    const result = await tx.query<BatchEventFields>({
      text: `update batches b set date_completed = now(),
              status_code = case when b.number_of_successful_entries = 0 and b.number_of_reversed_entries = 0
                                   and not exists (select 1 from payouts p where p.merchant_account_number = b.merchant_account_number and p.batch_number = b.batch_number and p.status_code = 'F' and p.response_code <> $2)
                                 then 'F' else 'C' end,
              error_message = case when b.number_of_successful_entries = 0 and b.number_of_reversed_entries = 0
                                     and not exists (select 1 from payouts p where p.merchant_account_number = b.merchant_account_number and p.batch_number = b.batch_number and p.status_code = 'F' and p.response_code <> $2)
                                   then $3 else b.error_message end
        where b.merchant_account_number = $4 and b.batch_number = any($1::bigint[]) and b.status_code = 'T'
          and not exists (select 1 from payouts p where p.merchant_account_number = b.merchant_account_number and p.batch_number = b.batch_number and p.status_code = 'T')
        returning b.batch_number, b.merchant_account_number, b.status_code, b.is_batch_scheduled, b.scheduled_date,
                  b.upload_type, b.captured_by, b.date_captured, b.error_message, b.total_amount_minor, b.number_of_entries, b.number_of_invalid_entries`,
      values: [mine, MERCHANT_UNAVAILABLE.responseCode, `${MERCHANT_UNAVAILABLE.responseMessage}: the batch could not be processed; every amount was refunded.`, merchant],
      types: DATE_AS_TEXT,
    });
    done.push(...result.rows);
  }
  for (const b of done.filter((d) => d.status_code === BATCH.failed)) await emitEvent(tx, b.merchant_account_number, 'batch.failed', batchEvent(deps, b));
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
export async function emitPayoutEvents(tx: pg.PoolClient, merchantAccountNumber: number, rows: ProcessedRow[]): Promise<void> {
  const groups = new Map<string, ProcessedRow[]>();
  for (const r of rows) {
    if (r.status_code === PAYOUT.transferring) continue;
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


/** Where the money of payouts being decided waited: debited, not yet sent (payouts_in_flight), or sent over a rail (rail_in_flight). */
export type InFlightAccount = 'payouts_in_flight' | 'rail_in_flight';

export interface SettleOptions {
  from: InFlightAccount;
  /** The ledger transfer's type and reference (ledger/verify.ts lists them). */
  transferType: string;
  reference: string;
  metadata?: object;
}

/**
 * Books payouts a rail has just decided (their rows already updated in `tx`): S paid (amount to
 * payouts_settled, fee to fees), F refunded in full to the merchant (the fee too: the merchant paid
 * for nothing); rows still T are left alone. Then counters, analytics, events, complete batches.
 */
export async function bookOutcomes(deps: Deps, tx: pg.PoolClient, merchantAccountNumber: number, rows: ProcessedRow[], options: SettleOptions): Promise<void> {
  const final = rows.filter((r) => r.status_code === PAYOUT.successful || r.status_code === PAYOUT.failed);
  if (final.length === 0) return;
  const succeeded = final.filter((r) => r.status_code === PAYOUT.successful);
  const failed = final.filter((r) => r.status_code === PAYOUT.failed);
  const currency = final[0].currency_code;
  const sum = (list: ProcessedRow[], f: (r: ProcessedRow) => number) => list.reduce((s, r) => s + f(r), 0);
  await postTransfer(tx, {
    merchantAccountNumber,
    type: options.transferType,
    reference: options.reference,
    metadata: { succeeded: succeeded.length, failed: failed.length, ...options.metadata },
    entries: [
      { accountId: await systemAccountId(tx, merchantAccountNumber, options.from, currency), amountMinor: -sum(final, (r) => r.amount_minor + r.fee_minor) },
      { accountId: await systemAccountId(tx, merchantAccountNumber, 'payouts_settled', currency), amountMinor: sum(succeeded, (r) => r.amount_minor) },
      { accountId: await systemAccountId(tx, merchantAccountNumber, 'fees', currency), amountMinor: sum(succeeded, (r) => r.fee_minor) },
      { accountId: await merchantAccountId(tx, merchantAccountNumber, 'disbursement', currency), amountMinor: sum(failed, (r) => r.amount_minor + r.fee_minor) },
    ],
  });
  await applyStats(tx, payoutStats(merchantAccountNumber, final));
  await emitPayoutEvents(tx, merchantAccountNumber, final);
  // The batch row last: a rail's outcomes arrive one payout at a time, each in its own
  // transaction, and all of a batch's queue on its row, so it is held for the fewest statements.
  await updateBatchCounters(tx, final);
  await completeBatches(deps, tx, final);
}

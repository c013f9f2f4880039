// What the upload route and the live batch page read: a form key already spent (a resubmitted
// upload is answered without reading its file again), and the figures of the batches open live
// pages watch, all of them in one statement per poll (by primary key, each scoped by merchant).
import type { Queryable } from '../../../db/pool.ts';
import { BATCH, type BatchStatus } from '../../disbursements/lifecycle.ts';
import type { ActionOutcome } from '../kit/actions.tsx';

/** The submission of form key `formKey`, if one went through (console_form_submissions, as runAction writes it). */
export async function spentFormKey(q: Queryable, merchantAccountNumber: number, formKey: string): Promise<{ userId: string; action: string; outcome: ActionOutcome } | undefined> {
  const { rows } = await q.query<{ user_id: string; action: string; outcome: ActionOutcome }>(
    'select user_id, action, outcome from console_form_submissions where merchant_account_number = $1 and form_key = $2',
    [merchantAccountNumber, formKey],
  );
  const row = rows[0];
  return row ? { userId: row.user_id, action: row.action, outcome: row.outcome } : undefined;
}

/** A batch's figures as a live page shows them: its own counters, which the validation job and the payout worker keep. */
export interface LiveFigures {
  merchantAccountNumber: number;
  batchNumber: number;
  statusCode: BatchStatus;
  levelNumber: number;
  currencyCode: string;
  entries: number;
  invalid: number;
  /** 0 while queued for validation (as payouts/queries.ts counts it). */
  valid: number;
  successful: number;
  failed: number;
  reversed: number;
  /** Successful, failed and reversed lines. */
  final: number;
  /** final ÷ valid in percent, one decimal. */
  finalPercent: number;
  totalAmountMinor: number;
  successfulAmountMinor: number;
}

interface LiveRow {
  merchant_account_number: number;
  batch_number: number;
  status_code: BatchStatus;
  level_number: number;
  currency_code: string;
  number_of_entries: number;
  number_of_invalid_entries: number;
  number_of_successful_entries: number;
  number_of_failed_entries: number;
  number_of_reversed_entries: number;
  total_amount_minor: number;
  successful_amount_minor: number;
}

/** The figures of counters as the batches list reads them (payouts/queries.ts batchItem: the same arithmetic). */
export function liveFigures(r: LiveRow): LiveFigures {
  const valid = r.status_code === BATCH.queued ? 0 : r.number_of_entries - r.number_of_invalid_entries;
  const final = r.number_of_successful_entries + r.number_of_failed_entries + r.number_of_reversed_entries;
  return {
    merchantAccountNumber: r.merchant_account_number,
    batchNumber: r.batch_number,
    statusCode: r.status_code,
    levelNumber: r.level_number,
    currencyCode: r.currency_code,
    entries: r.number_of_entries,
    invalid: r.number_of_invalid_entries,
    valid,
    successful: r.number_of_successful_entries,
    failed: r.number_of_failed_entries,
    reversed: r.number_of_reversed_entries,
    final,
    finalPercent: valid === 0 ? 0 : Math.round((final * 1000) / valid) / 10,
    totalAmountMinor: r.total_amount_minor,
    successfulAmountMinor: r.successful_amount_minor,
  };
}

/** `${merchant}:${batch}`: how the live streams key the batches they watch. */
export const liveKey = (merchantAccountNumber: number, batchNumber: number) => `${merchantAccountNumber}:${batchNumber}`;

/**
 * The figures of every batch in `batches` that belongs to the merchant named with it, by liveKey:
 * one statement whatever the number of batches (the primary key, each row matched on its
 * merchant too). A batch of another merchant is simply absent.
 */
export async function watchedBatches(q: Queryable, batches: ReadonlyArray<{ merchantAccountNumber: number; batchNumber: number }>): Promise<Map<string, LiveFigures>> {
  const found = new Map<string, LiveFigures>();
  if (batches.length === 0) return found;
  const { rows } = await q.query<LiveRow>(
    `select b.merchant_account_number, b.batch_number, b.status_code, b.level_number, b.currency_code, b.number_of_entries,
            b.number_of_invalid_entries, b.number_of_successful_entries, b.number_of_failed_entries, b.number_of_reversed_entries,
            b.total_amount_minor, b.successful_amount_minor
       from unnest($1::integer[], $2::bigint[]) as w(merchant_account_number, batch_number)
       join batches b on b.batch_number = w.batch_number and b.merchant_account_number = w.merchant_account_number`,
    [batches.map((b) => b.merchantAccountNumber), batches.map((b) => b.batchNumber)],
  );
  for (const r of rows) found.set(liveKey(r.merchant_account_number, r.batch_number), liveFigures(r));
  return found;
}

// Maintained aggregates behind analytics (connector_daily_stats): every feature that finalises or
// reverses a transaction calls applyStats in the same database transaction, so the aggregates
// always equal the transaction tables (the analytics tests compare them on every path).
import type pg from 'pg';

export type SummaryType = 'D' | 'C';

export interface StatChange {
  merchantAccountNumber: number;
  summaryType: SummaryType;
  connectorId: number;
  currencyCode: string;
  /** The transaction's UTC day, YYYY-MM-DD: a collection's transaction date, a payout's completion date. */
  day: string;
  /** S or F: a new final transaction. R: a successful one reversed (moved from S to R). */
  outcome: 'S' | 'F' | 'R';
  amountMinor: number;
}

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Adds the changes, grouped per row, in one statement. */
export async function applyStats(tx: pg.PoolClient, changes: StatChange[]): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `insert into connector_daily_stats as s (merchant_account_number, summary_type, connector_id, currency_code, day,
                                             successful_count, failed_count, reversed_count, successful_minor, failed_minor, reversed_minor)
     select merchant, kind, connector, currency, day::date,
            sum(case outcome when 'S' then 1 when 'R' then -1 else 0 end), count(*) filter (where outcome = 'F'), count(*) filter (where outcome = 'R'),
            sum(case outcome when 'S' then amount when 'R' then -amount else 0 end),
            coalesce(sum(amount) filter (where outcome = 'F'), 0), coalesce(sum(amount) filter (where outcome = 'R'), 0)
       from unnest($1::integer[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::text[], $7::bigint[])
            as u(merchant, kind, connector, currency, day, outcome, amount)
      group by merchant, kind, connector, currency, day
      order by merchant, kind, day, connector, currency
     on conflict (merchant_account_number, summary_type, day, connector_id, currency_code) do update set
            successful_count = s.successful_count + excluded.successful_count,
            failed_count = s.failed_count + excluded.failed_count,
            reversed_count = s.reversed_count + excluded.reversed_count,
            successful_minor = s.successful_minor + excluded.successful_minor,
            failed_minor = s.failed_minor + excluded.failed_minor,
            reversed_minor = s.reversed_minor + excluded.reversed_minor`,
    [
      changes.map((c) => c.merchantAccountNumber),
      changes.map((c) => c.summaryType),
      changes.map((c) => c.connectorId),
      changes.map((c) => c.currencyCode),
      changes.map((c) => c.day),
      changes.map((c) => c.outcome),
      changes.map((c) => c.amountMinor),
    ],
  );
}

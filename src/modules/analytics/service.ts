// Analytics (E5, its sum variant, GetDisbursementMetrics; product.md §14), read from the
// maintained daily aggregates (stats.ts): a 90-day range reads at most 90 rows per connector.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../http/types.ts';
import { toMajor } from '../../lib/money.ts';
import { utcDay, type SummaryType } from './stats.ts';

/** The longest range one request may cover. */
export const MAX_RANGE_DAYS = 366;
/** Without dates: the last 30 days, today included. */
const DEFAULT_RANGE_DAYS = 30;
const DAY_MS = 86_400_000;
/** The first day PostgreSQL's date type knows (there is no year 0). */
const FIRST_DAY = '0001-01-01';

export interface Range {
  fromDate: string;
  toDate: string;
}

/** Inclusive UTC range; 400 when reversed or longer than a year. */
export function rangeOf(clock: Clock, fromDate?: string, toDate?: string): Range {
  const to = toDate ?? utcDay(clock.now());
  const from = fromDate ?? utcDay(new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS));
  // ISO 8601 (and the `date` format) allow year 0000, PostgreSQL's date type does not: refuse it
  // here rather than fail in the query.
  if (from < FIRST_DAY || to < FIRST_DAY) {
    throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.format', params: { field: to < FIRST_DAY ? 'toDate' : 'fromDate', format: 'date' } }] });
  }
  if (from > to) throw new AppError('validation', 'detail.rangeReversed', { fromDate: from, toDate: to });
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) throw new AppError('validation', 'detail.rangeTooLong', { days, max: MAX_RANGE_DAYS });
  return { fromDate: from, toDate: to };
}

interface ConnectorTotals {
  summary_type: SummaryType;
  connector_name: string;
  currency_code: string;
  successful_count: number;
  failed_count: number;
  reversed_count: number;
  successful_minor: number;
  failed_minor: number;
  reversed_minor: number;
}

/**
 * Per connector and currency: every connector open to that kind of transaction (zeros when
 * idle), plus any other that has activity in the range. An alias (the ids of the gateway's
 * documentation examples, connectors.alias_of) counts on its institution's line.
 */
async function connectorTotals(q: Queryable, merchantAccountNumber: number, types: SummaryType[], range: Range): Promise<ConnectorTotals[]> {
  const { rows } = await q.query<ConnectorTotals>(
    `with activity as (
       select s.summary_type, coalesce(a.alias_of, s.connector_id) as connector_id, s.currency_code,
              sum(s.successful_count)::bigint as successful_count, sum(s.failed_count)::bigint as failed_count, sum(s.reversed_count)::bigint as reversed_count,
              sum(s.successful_minor)::bigint as successful_minor, sum(s.failed_minor)::bigint as failed_minor, sum(s.reversed_minor)::bigint as reversed_minor
         from connector_daily_stats s left join connectors a on a.connector_id = s.connector_id
        where s.merchant_account_number = $1 and s.summary_type = any($2::text[]) and s.day between $3::date and $4::date
        group by s.summary_type, coalesce(a.alias_of, s.connector_id), s.currency_code
     ), open_connectors as (
       select t.summary_type, c.connector_id, m.currency_code
         from connectors c cross join unnest($2::text[]) as t(summary_type) cross join merchants m
        where m.merchant_account_number = $1 and c.is_active and c.alias_of is null
          and ((t.summary_type = 'D' and c.is_disbursement_allowed) or (t.summary_type = 'C' and c.is_collection_allowed))
     )
     select k.summary_type, c.connector_name, k.currency_code,
            coalesce(a.successful_count, 0)::bigint as successful_count, coalesce(a.failed_count, 0)::bigint as failed_count,
            coalesce(a.reversed_count, 0)::bigint as reversed_count, coalesce(a.successful_minor, 0)::bigint as successful_minor,
            coalesce(a.failed_minor, 0)::bigint as failed_minor, coalesce(a.reversed_minor, 0)::bigint as reversed_minor
       from (select summary_type, connector_id, currency_code from activity union select * from open_connectors) k
       join connectors c on c.connector_id = k.connector_id
       left join activity a on a.summary_type = k.summary_type and a.connector_id = k.connector_id and a.currency_code = k.currency_code
      order by k.summary_type desc, c.connector_name, k.currency_code`,
    [merchantAccountNumber, types, range.fromDate, range.toDate],
  );
  return rows;
}

/** E5: counts. Total counts every final transaction: successful, failed and reversed. */
export async function countMetrics(q: Queryable, merchantAccountNumber: number, types: SummaryType[], range: Range) {
  return (await connectorTotals(q, merchantAccountNumber, types, range)).map((r) => ({
    summaryType: r.summary_type,
    connectorName: r.connector_name,
    currencyCode: r.currency_code,
    successfulTransactions: r.successful_count,
    failedTransactions: r.failed_count,
    totalTransactions: r.successful_count + r.failed_count + r.reversed_count,
  }));
}

/** The same items with amounts instead of counts. */
export async function sumMetrics(q: Queryable, merchantAccountNumber: number, types: SummaryType[], range: Range) {
  return (await connectorTotals(q, merchantAccountNumber, types, range)).map((r) => ({
    summaryType: r.summary_type,
    connectorName: r.connector_name,
    currencyCode: r.currency_code,
    successfulTransactions: toMajor(r.successful_minor),
    failedTransactions: toMajor(r.failed_minor),
    totalTransactions: toMajor(r.successful_minor + r.failed_minor + r.reversed_minor),
  }));
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 100);

/**
 * transactionsTrend: the change in the number of transactions against the period of the same
 * length just before fromDate, in percent with 2 decimals (positive growth, negative decline; the
 * docs' 12.5). When that previous period had none: 0 if this one has none either, otherwise 100
 * (all of it is growth; a number, never null or infinity, as clients decode one).
 */
export function trendPercent(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) * 10_000) / previous) / 100;
}

/**
 * Totals over the range for one kind (D payouts, as the name says, by default; C collections, as
 * the docs' summaryType allows), the trend against the previous period of the same length, and the
 * day-by-day series (every day of the range, zeros included).
 */
export async function disbursementMetrics(q: Queryable, merchantAccountNumber: number, range: Range, summaryType: SummaryType = 'D') {
  const { rows } = await q.query<{ day: string; s: number; f: number; r: number; s_minor: number; f_minor: number; r_minor: number }>(
    `select to_char(d.day, 'YYYY-MM-DD') as day,
            coalesce(sum(s.successful_count), 0)::bigint as s, coalesce(sum(s.failed_count), 0)::bigint as f, coalesce(sum(s.reversed_count), 0)::bigint as r,
            coalesce(sum(s.successful_minor), 0)::bigint as s_minor, coalesce(sum(s.failed_minor), 0)::bigint as f_minor, coalesce(sum(s.reversed_minor), 0)::bigint as r_minor
       from generate_series($2::date, $3::date, interval '1 day') as d(day)
       left join connector_daily_stats s on s.merchant_account_number = $1 and s.summary_type = $4 and s.day = d.day::date
      group by d.day order by d.day`,
    [merchantAccountNumber, range.fromDate, range.toDate, summaryType],
  );
  // The previous period: as many days, ending the day before fromDate. (Before year 1 PostgreSQL
  // counts in BC dates, where there is no activity; the dates answered are ISO 8601's, year 0000 = 1 BC.)
  const { rows: previous } = await q.query<{ n: number }>(
    `select coalesce(sum(successful_count + failed_count + reversed_count), 0)::bigint as n from connector_daily_stats
      where merchant_account_number = $1 and summary_type = $4 and day between $2::date - $3::int and $2::date - 1`,
    [merchantAccountNumber, range.fromDate, rows.length, summaryType],
  );
  const dayBefore = (n: number) => utcDay(new Date(Date.parse(`${range.fromDate}T00:00:00Z`) - n * DAY_MS));
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((acc, r) => acc + f(r), 0);
  const successful = sum((r) => r.s);
  const failed = sum((r) => r.f);
  const total = successful + failed + sum((r) => r.r);
  return {
    fromDate: range.fromDate,
    toDate: range.toDate,
    summaryType,
    totalSuccessfulTransactionsAmount: toMajor(sum((r) => r.s_minor)),
    numberOfSuccessfulTransactions: successful,
    totalFailedTransactionsAmount: toMajor(sum((r) => r.f_minor)),
    numberOfFailedTransactions: failed,
    totalTransactionsAmount: toMajor(sum((r) => r.s_minor + r.f_minor + r.r_minor)),
    numberOfTransactions: total,
    successRate: percent(successful, total),
    failureRate: percent(failed, total),
    transactionsTrend: trendPercent(total, previous[0].n),
    previousFromDate: dayBefore(rows.length),
    previousToDate: dayBefore(1),
    previousNumberOfTransactions: previous[0].n,
    dailyTrend: rows.map((r) => ({
      date: r.day,
      numberOfTransactions: r.s + r.f + r.r,
      numberOfSuccessfulTransactions: r.s,
      numberOfFailedTransactions: r.f,
      totalTransactionsAmount: toMajor(r.s_minor + r.f_minor + r.r_minor),
    })),
  };
}

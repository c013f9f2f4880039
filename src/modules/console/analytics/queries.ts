// The console's analytics: E5's counts and sums per connector over a range of UTC days, and the
// day-by-day series behind them, from the analytics module's own service (the maintained daily
// aggregates): the page shows exactly what the API answers.
import type { Queryable } from '../../../db/pool.ts';
import { countMetrics, disbursementMetrics, rangeOf, sumMetrics } from '../../analytics/service.ts';
import type { SummaryType } from '../../analytics/stats.ts';
import { checkDay, checkOrder } from '../../../http/keyset-pages.ts';

export interface ConnectorFigures {
  /** D payouts (by completion date), C collections (by transaction date). */
  summaryType: SummaryType;
  connectorName: string;
  currencyCode: string;
  successfulCount: number;
  failedCount: number;
  /** Every final transaction: successful, failed and reversed. */
  totalCount: number;
  successfulMinor: number;
  failedMinor: number;
  totalMinor: number;
}

export interface DailyFigures {
  date: string;
  count: number;
  successfulCount: number;
  failedCount: number;
  totalMinor: number;
}

export interface AnalyticsOverview {
  fromDate: string;
  toDate: string;
  /** Every connector open to each kind (zeros when idle) and any other with activity, as E5 lists them. */
  connectors: ConnectorFigures[];
  collections: { daily: DailyFigures[]; successRate: number; trendPercent: number };
  payouts: { daily: DailyFigures[]; successRate: number; trendPercent: number };
}

/** E5's major-unit amounts back to minor units (they are exact 2-decimal values). */
const minor = (major: number) => Math.round(major * 100);

/**
 * Counts and sums per connector (E5 and its sum variant) and each kind's daily series
 * (GetDisbursementMetrics), over fromDate…toDate (default: the 30 days up to `now`; at most 366
 * days, 400 beyond, as the API).
 */
export async function analyticsOverview(db: Queryable, merchantAccountNumber: number, range: { fromDate?: string; toDate?: string }, now: Date): Promise<AnalyticsOverview> {
  const fromDate = checkDay('fromDate', range.fromDate);
  const toDate = checkDay('toDate', range.toDate);
  checkOrder(fromDate, toDate);
  const r = rangeOf({ now: () => now }, fromDate, toDate);
  const types: SummaryType[] = ['D', 'C'];
  // One after another: `db` may be a single client (a transaction), which runs one query at a time.
  const counts = await countMetrics(db, merchantAccountNumber, types, r);
  const sums = await sumMetrics(db, merchantAccountNumber, types, r);
  const collections = await disbursementMetrics(db, merchantAccountNumber, r, 'C');
  const payouts = await disbursementMetrics(db, merchantAccountNumber, r, 'D');
  // Two reads, so matched by key: a connector's first transaction between them shows in one only.
  const key = (x: { summaryType: string; connectorName: string; currencyCode: string }) => `${x.summaryType}|${x.connectorName}|${x.currencyCode}`;
  const sumsByKey = new Map(sums.map((x) => [key(x), x]));
  const connectors = counts.map((c) => ({
    summaryType: c.summaryType,
    connectorName: c.connectorName,
    currencyCode: c.currencyCode,
    successfulCount: c.successfulTransactions,
    failedCount: c.failedTransactions,
    totalCount: c.totalTransactions,
    successfulMinor: minor(sumsByKey.get(key(c))?.successfulTransactions ?? 0),
    failedMinor: minor(sumsByKey.get(key(c))?.failedTransactions ?? 0),
    totalMinor: minor(sumsByKey.get(key(c))?.totalTransactions ?? 0),
  }));
  const series = (m: typeof collections) => ({
    daily: m.dailyTrend.map((d) => ({ date: d.date, count: d.numberOfTransactions, successfulCount: d.numberOfSuccessfulTransactions, failedCount: d.numberOfFailedTransactions, totalMinor: minor(d.totalTransactionsAmount) })),
    successRate: m.successRate,
    trendPercent: m.transactionsTrend,
  });
  return { fromDate: r.fromDate, toDate: r.toDate, connectors, collections: series(collections), payouts: series(payouts) };
}

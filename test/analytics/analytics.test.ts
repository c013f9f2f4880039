// Analytics (product.md §14): E5 GetConnectorSummaryCountMetrics, GetConnectorSummarySumMetrics
// and GetDisbursementMetrics, read from the maintained daily aggregates, checked against figures
// computed directly from the transaction tables (collections by UTC transaction date, S and R;
// payouts by UTC completion date, S, F and R). Activity is real: payments, request-to-pay,
// reversals, batches and single payouts through the API and the jobs (run directly, taskList),
// with the sandbox connector's magic suffixes for failures (9901), time-outs (9904) and
// reversals (9905). The aggregates are never written by hand here.
import fc from 'fast-check';
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskList } from '../../src/composition.ts';
import { BASE, clientError, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR } from '../routes.ts';

let t: TestApp;
let tasks: ReturnType<typeof taskList>;
/** The merchant whose activity is measured. */
let m: TestMerchant;
/** Another merchant of the same organisation, with activity of its own that must not show in m's. */
let other: TestMerchant;

const AIRTEL = 112400;
const MPAMBA = 112500;
const NBM = 212188;
const STANDARD = 221300;
const FDH = 221500;

const DAY_MS = 86_400_000;
const utcDay = (d: Date) => d.toISOString().slice(0, 10);
/** `day` moved by `n` days. */
const addDays = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

beforeAll(async () => {
  // Time-outs (9904) and reversals (9905) come due at once: the next worker pass resolves them.
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  tasks = taskList(t.deps);
  m = await newMerchant(t, { accountName: 'Analytics Shop' });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
  await activity(m);
  await activity(other, true);
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// The API

function post(who: TestMerchant, path: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: who.auth, payload });
}

async function ok<T = Record<string, unknown>>(who: TestMerchant, path: string, payload: Record<string, unknown>): Promise<T> {
  const res = await post(who, path, payload);
  expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
  return res.json() as T;
}

let refSeq = 0;
const ref = () => `REF${Date.now().toString(36).toUpperCase()}${++refSeq}`;
const src = () => `SRC-${Date.now().toString(36)}-${++refSeq}`;
const major = (minor: number) => (minor / 100).toFixed(2);

/** A direct customer payment (E11); returns its transaction reference. */
async function pay(who: TestMerchant, connectorId: number, amountMinor: number): Promise<string> {
  const body = await ok<{ transaction: { transactionReferenceNumber: string } }>(who, '/collections/addFakeCustomPayment', {
    beneficiaryAccountNumber: who.paymentAccountNumber,
    connectorId,
    transactionAmount: major(amountMinor),
    createdBy: ACTOR,
  });
  return body.transaction.transactionReferenceNumber;
}

/** A request-to-pay (E12) paid through addFakeTransaction; returns the collection's reference. */
async function payRequest(who: TestMerchant, connectorId: number, amountMinor: number): Promise<string> {
  const { timedAccountNumber } = await ok<{ timedAccountNumber: string }>(who, '/collections/requestToPay/initiate', {
    merchantAccountNumber: who.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    transactionDescription: 'Order',
    referenceNumber: ref(),
    capturedBy: ACTOR,
  });
  const body = await ok<{ transaction: { transactionReferenceNumber: string } }>(who, '/collections/requestToPay/addFakeTransaction', {
    merchantAccountNumber: who.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    connectorId,
    timedAccountNumber,
    currencyCode: 'MWK',
    capturedBy: ACTOR,
  });
  return body.transaction.transactionReferenceNumber;
}

async function reverse(who: TestMerchant, transactionReferenceNumber: string): Promise<void> {
  await ok(who, '/collections/reverse', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber, reason: 'Customer refund' });
}

async function topup(who: TestMerchant, amountMajor: number): Promise<void> {
  await ok(who, '/merchants/accounts/topup', { merchantAccountNumber: who.merchantAccountNumber, connectorId: NBM, topupAmount: amountMajor, createdBy: ACTOR });
}

/** A payout line; `suffix` picks the sandbox outcome (9901 fails, 9904 times out, 9905 is reversed). */
function line(connectorId: number, amountMinor: number, suffix = '1234'): Record<string, unknown> {
  const wallet = connectorId === AIRTEL || connectorId === MPAMBA;
  return {
    beneficiaryName: 'Chisomo Banda',
    connectorId,
    beneficiaryAccountNumber: wallet ? `26599123${suffix}` : `100123${suffix}`,
    transactionDescription: 'Salary',
    transactionAmount: major(amountMinor),
    sourceReferenceNumber: src(),
  };
}

/** A batch through E8, the validation job and transferFunds (level 1); returns its number. */
async function batch(who: TestMerchant, lines: Array<Record<string, unknown>>): Promise<number> {
  const { batchNumber } = await ok<{ batchNumber: number }>(who, '/disbursements/batch/addJson', {
    header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: ACTOR },
    transactions: lines,
  });
  await tasks.validate_batch!({ batchNumber }, {} as JobHelpers);
  await ok(who, '/disbursements/batch/transferFunds', { merchantAccountNumber: who.merchantAccountNumber, batchNumber, transferredBy: ACTOR });
  return batchNumber;
}

async function single(who: TestMerchant, connectorId: number, amountMinor: number, suffix?: string): Promise<string> {
  const body = await ok<{ transactionReferenceNumber: string }>(who, '/disbursements/single/add', { merchantAccountNumber: who.merchantAccountNumber, ...line(connectorId, amountMinor, suffix), capturedBy: ACTOR });
  return body.transactionReferenceNumber;
}

const runPayouts = (who: TestMerchant) => tasks.process_payouts!({ merchantAccountNumber: who.merchantAccountNumber }, {} as JobHelpers);

/** Runs the payout worker until no payout of `who` is in flight or due for reversal. */
async function settle(who: TestMerchant): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await runPayouts(who);
    const { rows } = await t.db.query<{ n: number }>(
      `select count(*)::int as n from payouts where merchant_account_number = $1 and (status_code = 'T' or (status_code = 'S' and reverse_at is not null))`,
      [who.merchantAccountNumber],
    );
    if (rows[0].n === 0) return;
    await new Promise((r) => setTimeout(r, 1100));
  }
  throw new Error('payouts did not settle');
}

/** Collections, reversals, a batch and single payouts of every outcome for `who`. */
async function activity(who: TestMerchant, small = false): Promise<void> {
  const e11 = [await pay(who, NBM, 5_000_000), await pay(who, NBM, 1_234_567), await pay(who, STANDARD, 250_000), await pay(who, AIRTEL, 99_999)];
  const rtp = [await payRequest(who, AIRTEL, 250_000), await payRequest(who, MPAMBA, 1_000_050)];
  await reverse(who, e11[1]);
  await reverse(who, rtp[0]);
  if (small) return;
  await topup(who, 1_000_000);
  await batch(who, [
    line(AIRTEL, 100_000),
    line(AIRTEL, 150_050, '9901'),
    line(AIRTEL, 220_000, '9905'),
    line(NBM, 500_000),
    line(NBM, 730_000, '9904'),
    line(FDH, 123_456),
    // Invalid (below the minimum): never transferred, never counted.
    line(AIRTEL, 50),
  ]);
  await single(who, AIRTEL, 300_000);
  await single(who, NBM, 410_000, '9901');
  await single(who, MPAMBA, 275_000, '9905');
  await runPayouts(who);
  // Reversals are due PAYOUT_REVERSAL_SECONDS (0) after success: a later pass reverses them.
  await new Promise((r) => setTimeout(r, 1100));
  await settle(who);
  // A payout still in flight (T) is not final: not counted.
  await single(who, NBM, 200_000);
}

// ---------------------------------------------------------------------------------------------
// Figures straight from the transaction tables

interface Direct {
  summaryType: 'D' | 'C';
  connectorName: string;
  currencyCode: string;
  s: number;
  f: number;
  r: number;
  sMinor: number;
  fMinor: number;
  rMinor: number;
}

async function direct(who: TestMerchant, fromDate: string, toDate: string, types: Array<'D' | 'C'> = ['D', 'C']): Promise<Direct[]> {
  const { rows } = await t.db.query<Direct>(
    `select * from (
       select 'C' as "summaryType", c.connector_name as "connectorName", x.currency_code as "currencyCode",
              count(*) filter (where x.status_code = 'S')::int as s, 0 as f, count(*) filter (where x.status_code = 'R')::int as r,
              coalesce(sum(x.amount_minor) filter (where x.status_code = 'S'), 0)::bigint as "sMinor", 0::bigint as "fMinor",
              coalesce(sum(x.amount_minor) filter (where x.status_code = 'R'), 0)::bigint as "rMinor"
         from collections x join connectors c on c.connector_id = x.connector_id
        where x.merchant_account_number = $1 and (x.transaction_date at time zone 'UTC')::date between $2::date and $3::date
        group by 1, 2, 3
       union all
       select 'D', c.connector_name, p.currency_code,
              count(*) filter (where p.status_code = 'S')::int, count(*) filter (where p.status_code = 'F')::int, count(*) filter (where p.status_code = 'R')::int,
              coalesce(sum(p.amount_minor) filter (where p.status_code = 'S'), 0)::bigint, coalesce(sum(p.amount_minor) filter (where p.status_code = 'F'), 0)::bigint,
              coalesce(sum(p.amount_minor) filter (where p.status_code = 'R'), 0)::bigint
         from payouts p join connectors c on c.connector_id = p.connector_id
        where p.merchant_account_number = $1 and p.completed_at is not null and p.status_code in ('S', 'F', 'R')
          and (p.completed_at at time zone 'UTC')::date between $2::date and $3::date
        group by 1, 2, 3
     ) d where "summaryType" = any($4::text[])`,
    [who.merchantAccountNumber, fromDate, toDate, types],
  );
  return rows;
}

interface Metric {
  summaryType: string;
  connectorName: string;
  currencyCode: string;
  successfulTransactions: number;
  failedTransactions: number;
  totalTransactions: number;
}

const key = (x: { summaryType: string; connectorName: string; currencyCode: string }) => `${x.summaryType}|${x.connectorName}|${x.currencyCode}`;
const sorted = <T extends { summaryType: string; connectorName: string; currencyCode: string }>(list: T[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));

const countsOf = (d: Direct): Metric => ({ summaryType: d.summaryType, connectorName: d.connectorName, currencyCode: d.currencyCode, successfulTransactions: d.s, failedTransactions: d.f, totalTransactions: d.s + d.f + d.r });
const sumsOf = (d: Direct): Metric => ({
  summaryType: d.summaryType,
  connectorName: d.connectorName,
  currencyCode: d.currencyCode,
  successfulTransactions: d.sMinor / 100,
  failedTransactions: d.fMinor / 100,
  totalTransactions: (d.sMinor + d.fMinor + d.rMinor) / 100,
});
const isZero = (x: Metric) => x.successfulTransactions === 0 && x.failedTransactions === 0 && x.totalTransactions === 0;

/** Connectors open to that kind of transaction: listed with zeros when idle. */
/** One line per institution: an alias (the documentation's example ids) counts on its institution's line. */
async function openConnectors(types: Array<'D' | 'C'>): Promise<string[]> {
  const { rows } = await t.db.query<{ k: string }>(
    `select t.kind || '|' || c.connector_name || '|MWK' as k from connectors c cross join unnest($1::text[]) as t(kind)
      where c.is_active and c.alias_of is null and ((t.kind = 'D' and c.is_disbursement_allowed) or (t.kind = 'C' and c.is_collection_allowed))`,
    [types],
  );
  return rows.map((r) => r.k);
}

const body = (who: TestMerchant, fromDate?: string, toDate?: string, summaryType?: string) => ({
  merchantAccountNumber: who.merchantAccountNumber,
  ...(summaryType === undefined ? {} : { summaryType }),
  ...(fromDate === undefined ? {} : { fromDate }),
  ...(toDate === undefined ? {} : { toDate }),
});

/**
 * E5 and its sum variant over [fromDate, toDate] equal the direct figures: every connector with
 * activity exactly, every other open connector with zeros. Returns the direct figures.
 */
async function expectMetricsMatch(who: TestMerchant, fromDate: string, toDate: string, summaryType?: 'D' | 'C'): Promise<Direct[]> {
  const types: Array<'D' | 'C'> = summaryType ? [summaryType] : ['D', 'C'];
  const expected = await direct(who, fromDate, toDate, types);
  const open = await openConnectors(types);
  for (const [path, of] of [
    ['/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', countsOf],
    ['/core/MerchantAnalytics/GetConnectorSummarySumMetrics', sumsOf],
  ] as const) {
    const got = await ok<Metric[]>(who, path, body(who, fromDate, toDate, summaryType));
    const label = `${path} ${fromDate}..${toDate} ${summaryType ?? 'D+C'}`;
    expect(new Set(got.map(key)).size, label).toBe(got.length);
    expect(sorted(got.filter((x) => !isZero(x))), label).toEqual(sorted(expected.map(of).filter((x) => !isZero(x))));
    expect(got.map(key).sort(), label).toEqual([...new Set([...open, ...expected.map(key)])].sort());
    expect(got.every((x) => types.includes(x.summaryType as 'D' | 'C')), label).toBe(true);
  }
  return expected;
}

interface DisbursementMetrics {
  fromDate: string;
  toDate: string;
  totalSuccessfulTransactionsAmount: number;
  numberOfSuccessfulTransactions: number;
  totalFailedTransactionsAmount: number;
  numberOfFailedTransactions: number;
  totalTransactionsAmount: number;
  numberOfTransactions: number;
  successRate: number;
  failureRate: number;
  summaryType: string;
  transactionsTrend: number;
  previousFromDate: string;
  previousToDate: string;
  previousNumberOfTransactions: number;
  dailyTrend: Array<{ date: string; numberOfTransactions: number; numberOfSuccessfulTransactions: number; numberOfFailedTransactions: number; totalTransactionsAmount: number }>;
}

/** Final payouts (S, F, R) of `who` completed in [fromDate, toDate], UTC days, straight from the payouts table. */
async function payoutCount(who: TestMerchant, fromDate: string, toDate: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    `select count(*)::int as n from payouts where merchant_account_number = $1 and completed_at is not null and status_code in ('S', 'F', 'R')
        and (completed_at at time zone 'UTC')::date between $2::date and $3::date`,
    [who.merchantAccountNumber, fromDate, toDate],
  );
  return rows[0].n;
}

/** GetDisbursementMetrics over [fromDate, toDate] equals the payouts table, day by day. */
async function expectDisbursementsMatch(who: TestMerchant, fromDate: string, toDate: string): Promise<DisbursementMetrics> {
  const got = await ok<DisbursementMetrics>(who, '/core/MerchantAnalytics/GetDisbursementMetrics', body(who, fromDate, toDate));
  const { rows: days } = await t.db.query<{ date: string; s: number; f: number; r: number; s_minor: number; f_minor: number; r_minor: number }>(
    `select to_char(d.day, 'YYYY-MM-DD') as date,
            count(p.*) filter (where p.status_code = 'S')::int as s, count(p.*) filter (where p.status_code = 'F')::int as f, count(p.*) filter (where p.status_code = 'R')::int as r,
            coalesce(sum(p.amount_minor) filter (where p.status_code = 'S'), 0)::bigint as s_minor, coalesce(sum(p.amount_minor) filter (where p.status_code = 'F'), 0)::bigint as f_minor,
            coalesce(sum(p.amount_minor) filter (where p.status_code = 'R'), 0)::bigint as r_minor
       from generate_series($2::date, $3::date, interval '1 day') as d(day)
       left join payouts p on p.merchant_account_number = $1 and p.completed_at is not null and p.status_code in ('S', 'F', 'R')
                          and (p.completed_at at time zone 'UTC')::date = d.day::date
      group by d.day order by d.day`,
    [who.merchantAccountNumber, fromDate, toDate],
  );
  const total = (f: (d: (typeof days)[number]) => number) => days.reduce((acc, d) => acc + f(d), 0);
  const s = total((d) => d.s);
  const f = total((d) => d.f);
  const n = s + f + total((d) => d.r);
  const previousFromDate = addDays(fromDate, -days.length);
  const previousToDate = addDays(fromDate, -1);
  const previous = await payoutCount(who, previousFromDate, previousToDate);
  expect(got).toEqual({
    fromDate,
    toDate,
    summaryType: 'D',
    totalSuccessfulTransactionsAmount: total((d) => d.s_minor) / 100,
    numberOfSuccessfulTransactions: s,
    totalFailedTransactionsAmount: total((d) => d.f_minor) / 100,
    numberOfFailedTransactions: f,
    totalTransactionsAmount: total((d) => d.s_minor + d.f_minor + d.r_minor) / 100,
    numberOfTransactions: n,
    successRate: n === 0 ? 0 : expect.closeTo((s * 100) / n, 2),
    failureRate: n === 0 ? 0 : expect.closeTo((f * 100) / n, 2),
    transactionsTrend: previous === 0 ? (n === 0 ? 0 : 100) : expect.closeTo(((n - previous) * 100) / previous, 2),
    previousFromDate,
    previousToDate,
    previousNumberOfTransactions: previous,
    dailyTrend: days.map((d) => ({
      date: d.date,
      numberOfTransactions: d.s + d.f + d.r,
      numberOfSuccessfulTransactions: d.s,
      numberOfFailedTransactions: d.f,
      totalTransactionsAmount: (d.s_minor + d.f_minor + d.r_minor) / 100,
    })),
  });
  // Rates are percentages with at most 2 decimals.
  for (const rate of [got.successRate, got.failureRate, got.transactionsTrend]) expect(Math.round(rate * 100)).toBeCloseTo(rate * 100, 6);
  return got;
}

/** The UTC days on which `who` has counted activity (collections or final payouts), oldest first. */
async function activityDays(who: TestMerchant): Promise<string[]> {
  const { rows } = await t.db.query<{ day: string }>(
    `select to_char(day, 'YYYY-MM-DD') as day from (
       select (transaction_date at time zone 'UTC')::date as day from collections where merchant_account_number = $1
       union select (completed_at at time zone 'UTC')::date from payouts where merchant_account_number = $1 and completed_at is not null and status_code in ('S', 'F', 'R')
     ) d order by 1`,
    [who.merchantAccountNumber],
  );
  return rows.map((r) => r.day);
}

/** The merchant's aggregate rows equal the migration's backfill run over the transaction tables. */
async function expectStatsEqualBackfill(who: TestMerchant): Promise<void> {
  const q = (sql: string) => t.db.query(sql, [who.merchantAccountNumber]).then((r) => r.rows);
  const columns = `summary_type, connector_id, currency_code, to_char(day, 'YYYY-MM-DD') as day, successful_count::bigint, failed_count::bigint, reversed_count::bigint,
                   successful_minor::bigint, failed_minor::bigint, reversed_minor::bigint`;
  const stored = await q(`select ${columns} from connector_daily_stats where merchant_account_number = $1 order by 1, 2, 3, 4`);
  const rebuilt = await q(
    `select ${columns} from (
       select 'C' as summary_type, connector_id, currency_code, (transaction_date at time zone 'UTC')::date as day,
              count(*) filter (where status_code = 'S')::bigint as successful_count, 0::bigint as failed_count, count(*) filter (where status_code = 'R')::bigint as reversed_count,
              coalesce(sum(amount_minor) filter (where status_code = 'S'), 0)::bigint as successful_minor, 0::bigint as failed_minor,
              coalesce(sum(amount_minor) filter (where status_code = 'R'), 0)::bigint as reversed_minor
         from collections where merchant_account_number = $1 group by 1, 2, 3, 4
       union all
       select 'D', connector_id, currency_code, (completed_at at time zone 'UTC')::date,
              count(*) filter (where status_code = 'S'), count(*) filter (where status_code = 'F'), count(*) filter (where status_code = 'R'),
              coalesce(sum(amount_minor) filter (where status_code = 'S'), 0), coalesce(sum(amount_minor) filter (where status_code = 'F'), 0),
              coalesce(sum(amount_minor) filter (where status_code = 'R'), 0)
         from payouts where merchant_account_number = $1 and completed_at is not null and status_code in ('S', 'F', 'R') group by 1, 2, 3, 4
     ) x order by 1, 2, 3, 4`,
  );
  expect(stored).toEqual(rebuilt);
}

// ---------------------------------------------------------------------------------------------

describe('the activity built for the tests', () => {
  it('has every kind of outcome, so the comparisons below are not vacuous', async () => {
    const days = await activityDays(m);
    const all = await direct(m, days[0], days[days.length - 1]);
    const sum = (kind: 'C' | 'D', f: (d: Direct) => number) => all.filter((d) => d.summaryType === kind).reduce((acc, d) => acc + f(d), 0);
    expect(sum('C', (d) => d.s)).toBe(4);
    expect(sum('C', (d) => d.r)).toBe(2);
    // Batch: 3 successful (one of them 9905 → R), 2 failed (9901, 9904); singles: 1 S, 1 F, 1 R.
    expect(sum('D', (d) => d.s)).toBe(4);
    expect(sum('D', (d) => d.f)).toBe(3);
    expect(sum('D', (d) => d.r)).toBe(2);
    // The payout still in flight and the invalid batch line exist, but are not final.
    const { rows } = await t.db.query<{ status_code: string; n: number }>(
      `select status_code, count(*)::int as n from payouts where merchant_account_number = $1 and status_code in ('T', 'E') group by 1 order by 1`,
      [m.merchantAccountNumber],
    );
    expect(rows).toEqual([
      { status_code: 'E', n: 1 },
      { status_code: 'T', n: 1 },
    ]);
  });

  it('left the aggregates equal to a recomputation from the transaction tables, for both merchants', async () => {
    await expectStatsEqualBackfill(m);
    await expectStatsEqualBackfill(other);
  });
});

describe('E5 GetConnectorSummaryCountMetrics and GetConnectorSummarySumMetrics', () => {
  it('equal the transaction tables over the activity, for D, C and both', async () => {
    const days = await activityDays(m);
    const from = days[0];
    const to = days[days.length - 1];
    for (const type of [undefined, 'D', 'C'] as const) await expectMetricsMatch(m, from, to, type);
    // Spot checks of the figures, by hand: NBM collections (5,000,000 S + 1,234,567 R tambala).
    const counts = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', body(m, from, to, 'C'));
    expect(counts.find((x) => x.connectorName === 'National Bank of Malawi')).toEqual({
      summaryType: 'C',
      connectorName: 'National Bank of Malawi',
      currencyCode: 'MWK',
      successfulTransactions: 1,
      failedTransactions: 0,
      totalTransactions: 2,
    });
    const sums = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', body(m, from, to, 'C'));
    expect(sums.find((x) => x.connectorName === 'National Bank of Malawi')).toMatchObject({ successfulTransactions: 50_000, failedTransactions: 0, totalTransactions: 62_345.67 });
    // Airtel payouts: 1,000.00 S, 1,500.50 F, 2,200.00 R (batch) and 3,000.00 S (single).
    const d = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', body(m, from, to, 'D'));
    expect(d.find((x) => x.connectorName === 'Airtel Money')).toMatchObject({ successfulTransactions: 4_000, failedTransactions: 1_500.5, totalTransactions: 7_700.5 });
    const dc = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', body(m, from, to, 'D'));
    expect(dc.find((x) => x.connectorName === 'Airtel Money')).toMatchObject({ successfulTransactions: 2, failedTransactions: 1, totalTransactions: 4 });
  });

  it('include both boundaries and nothing outside them', async () => {
    const days = await activityDays(m);
    const first = days[0];
    const last = days[days.length - 1];
    // Single-day ranges on each activity day, and ranges reaching just past either end.
    for (const day of days) await expectMetricsMatch(m, day, day);
    await expectMetricsMatch(m, addDays(first, -1), last);
    await expectMetricsMatch(m, first, addDays(last, 1));
    // The day before the first activity and the day after the last: zeros only.
    for (const [from, to] of [
      [addDays(first, -1), addDays(first, -1)],
      [addDays(first, -90), addDays(first, -1)],
      [addDays(last, 1), addDays(last, 1)],
      [addDays(last, 1), addDays(last, 30)],
    ]) {
      expect(await direct(m, from, to)).toEqual([]);
      for (const path of ['/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', '/core/MerchantAnalytics/GetConnectorSummarySumMetrics']) {
        const got = await ok<Metric[]>(m, path, body(m, from, to));
        expect(got.length).toBeGreaterThan(0);
        expect(got.every(isZero), `${path} ${from}..${to}`).toBe(true);
        expect(got.map(key).sort()).toEqual((await openConnectors(['D', 'C'])).sort());
      }
    }
  });

  it('without dates cover the last 30 days, today included', async () => {
    const today = utcDay(new Date());
    const expected = await direct(m, addDays(today, -29), today);
    expect(expected.length).toBeGreaterThan(0);
    const got = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', { merchantAccountNumber: m.merchantAccountNumber });
    expect(sorted(got.filter((x) => !isZero(x)))).toEqual(sorted(expected.map(countsOf).filter((x) => !isZero(x))));
    const onlyTo = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', { merchantAccountNumber: m.merchantAccountNumber, toDate: today });
    expect(sorted(onlyTo)).toEqual(sorted(got));
  });

  it('accept a range of exactly 366 days', async () => {
    const days = await activityDays(m);
    const last = days[days.length - 1];
    await expectMetricsMatch(m, addDays(last, -365), last);
  });

  it("never count another merchant's transactions", async () => {
    const days = await activityDays(other);
    const from = days[0];
    const to = days[days.length - 1];
    await expectMetricsMatch(other, from, to);
    // other made no payouts: its D items are all zeros, where m's are not.
    const d = await ok<Metric[]>(other, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', body(other, from, to, 'D'));
    expect(d.every(isZero)).toBe(true);
  });

  it('accept property names in any case', async () => {
    const days = await activityDays(m);
    const got = await ok<Metric[]>(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', {
      MerchantAccountNumber: m.merchantAccountNumber,
      SUMMARYTYPE: 'C',
      fromdate: days[0],
      ToDate: days[days.length - 1],
    });
    expect(sorted(got.filter((x) => !isZero(x)))).toEqual(sorted((await direct(m, days[0], days[days.length - 1], ['C'])).map(countsOf)));
  });
});

describe('GetDisbursementMetrics', () => {
  it('equals the payouts table: totals, rates and one trend entry per day, zeros included', async () => {
    const days = await activityDays(m);
    const last = days[days.length - 1];
    const got = await expectDisbursementsMatch(m, addDays(last, -6), last);
    expect(got.dailyTrend).toHaveLength(7);
    expect(got.dailyTrend.map((d) => d.date)).toEqual(Array.from({ length: 7 }, (_, i) => addDays(last, i - 6)));
    // By hand: 4 S, 3 F, 2 R (one in flight and one invalid line not counted).
    expect(got).toMatchObject({ numberOfSuccessfulTransactions: 4, numberOfFailedTransactions: 3, numberOfTransactions: 9, successRate: 44.44, failureRate: 33.33 });
    // S: 1,000.00 + 5,000.00 + 1,234.56 + 3,000.00; F: 1,500.50 + 7,300.00 + 4,100.00; R: 2,200.00 + 2,750.00.
    expect(got.totalSuccessfulTransactionsAmount).toBe(10_234.56);
    expect(got.totalFailedTransactionsAmount).toBe(12_900.5);
    expect(got.totalTransactionsAmount).toBe(28_085.06);
    const sumOfTrend = got.dailyTrend.reduce((acc, d) => acc + d.numberOfTransactions, 0);
    expect(sumOfTrend).toBe(got.numberOfTransactions);
    // Days without payouts are listed with zeros.
    const idle = got.dailyTrend.filter((d) => !days.includes(d.date));
    expect(idle.length).toBeGreaterThanOrEqual(6 - days.length + 1);
    for (const d of idle) expect(d).toEqual({ date: d.date, numberOfTransactions: 0, numberOfSuccessfulTransactions: 0, numberOfFailedTransactions: 0, totalTransactionsAmount: 0 });
  });

  it('answers zeros and rates of 0 over a range without payouts, and for a merchant without any', async () => {
    const days = await activityDays(m);
    const got = await expectDisbursementsMatch(m, addDays(days[0], -10), addDays(days[0], -1));
    expect(got).toMatchObject({ numberOfTransactions: 0, totalTransactionsAmount: 0, successRate: 0, failureRate: 0 });
    expect(got.dailyTrend).toHaveLength(10);
    const theirs = await expectDisbursementsMatch(other, days[0], days[days.length - 1]);
    expect(theirs.numberOfTransactions).toBe(0);
  });

  it('covers single days and 366 days, and defaults to the last 30 days', async () => {
    const days = await activityDays(m);
    for (const day of days) await expectDisbursementsMatch(m, day, day);
    const last = days[days.length - 1];
    const year = await expectDisbursementsMatch(m, addDays(last, -365), last);
    expect(year.dailyTrend).toHaveLength(366);
    const today = utcDay(new Date());
    const byDefault = await ok<DisbursementMetrics>(m, '/core/MerchantAnalytics/GetDisbursementMetrics', { merchantAccountNumber: m.merchantAccountNumber });
    expect(byDefault.fromDate).toBe(addDays(today, -29));
    expect(byDefault.toDate).toBe(today);
    expect(byDefault.dailyTrend).toHaveLength(30);
  });
});

describe('bad input', () => {
  const PATHS = ['/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', '/core/MerchantAnalytics/GetDisbursementMetrics'];

  it.each(PATHS)('%s refuses fromDate after toDate with 400 E900 naming both', async (path) => {
    const p = clientError(await post(m, path, body(m, '2026-03-02', '2026-03-01')), 400);
    expect(p.errorCode).toBe('E900');
    expect(p.detail).toContain('2026-03-02');
    expect(p.detail).toContain('2026-03-01');
  });

  it.each(PATHS)('%s refuses a range of 367 days (and a fromDate alone more than a year back) with 400', async (path) => {
    const p = clientError(await post(m, path, body(m, '2025-01-01', '2026-01-02')), 400);
    expect(p.errorCode).toBe('E900');
    expect(p.detail).toContain('367');
    clientError(await post(m, path, body(m, '2000-01-01')), 400);
    clientError(await post(m, path, body(m, '0001-01-01', '9999-12-31')), 400);
    // Year 0000 is a valid ISO 8601 date but not a PostgreSQL one: refused, never a 500.
    const zero = clientError(await post(m, path, body(m, '0000-01-01', '0000-01-05')), 400);
    expect(zero.errors).toEqual(['toDate must be a valid date.']);
    clientError(await post(m, path, body(m, '0000-12-31')), 400);
    clientError(await post(m, path, body(m, undefined, '0001-01-10')), 400);
    expect((await post(m, path, body(m, '0001-01-01', '0001-01-10'))).statusCode).toBe(200);
    // Exactly 366 days is fine.
    expect((await post(m, path, body(m, '2025-01-01', '2026-01-01'))).statusCode).toBe(200);
  });

  it.each(
    PATHS.flatMap((path) =>
      ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-1-5', '20260105', '05/01/2026', 'yesterday', '2026-01-05T25:00:00Z', '2026-02-30T00:00:00Z', '', '0000-01-01', ' 2026-01-05'].map(
        (date) => [path, date] as const,
      ),
    ),
  )('%s refuses the date %j with 400, as fromDate and as toDate', async (path, date) => {
    clientError(await post(m, path, body(m, date, '2026-03-01')), 400);
    clientError(await post(m, path, body(m, '2026-01-01', date)), 400);
  });

  it.each(PATHS.slice(0, 2).flatMap((path) => ['X', 'd', 'c', 'DC', '', 'Disbursement', 1].map((summaryType) => [path, summaryType] as const)))(
    '%s refuses summaryType %j with 400 E900',
    async (path, summaryType) => {
      const p = clientError(await post(m, path, { ...body(m, '2026-01-01', '2026-01-31'), summaryType }), 400);
      expect(p.errorCode).toBe('E900');
    },
  );

  it.each(PATHS)("%s answers 404 E903 to another merchant's account number", async (path) => {
    const p = clientError(await post(m, path, body(other, '2026-01-01', '2026-01-31')), 404);
    expect(p.errorCode).toBe('E903');
  });

  it.each(PATHS)('%s refuses a missing or malformed merchantAccountNumber with 400', async (path) => {
    clientError(await post(m, path, { fromDate: '2026-01-01', toDate: '2026-01-31' }), 400);
    clientError(await post(m, path, { merchantAccountNumber: 'abc', fromDate: '2026-01-01', toDate: '2026-01-31' }), 400);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: whatever the sequence of payments, reversals and payouts, the aggregates equal the tables.

type Op =
  | { kind: 'pay'; via: 'e11' | 'rtp'; connectorId: number; amountMinor: number }
  | { kind: 'reverse'; pick: number }
  | { kind: 'payout'; connectorId: number; amountMinor: number; suffix: string }
  | { kind: 'process' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('pay' as const),
    via: fc.constantFrom('e11' as const, 'rtp' as const),
    connectorId: fc.constantFrom(AIRTEL, MPAMBA, NBM, STANDARD, FDH),
    amountMinor: fc.integer({ min: 10_000, max: 2_000_000 }),
  }),
  fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('payout' as const),
    connectorId: fc.constantFrom(AIRTEL, MPAMBA, NBM, FDH),
    amountMinor: fc.integer({ min: 10_000, max: 500_000 }),
    suffix: fc.constantFrom('1234', '5678', '9901', '9902', '9904', '9905'),
  }),
  fc.record({ kind: fc.constant('process' as const) }),
);

describe('property: aggregates equal the transaction tables', () => {
  it('after random sequences of payments, reversals and payouts', { timeout: 180_000 }, async () => {
    const done = { pay: 0, reverse: 0, payout: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 16 }), async (ops) => {
        const who = await newMerchant(t, { organisationId: m.organisationId });
        await topup(who, 200_000);
        const reversible: string[] = [];
        for (const op of ops) {
          if (op.kind === 'pay') {
            reversible.push(await (op.via === 'e11' ? pay(who, op.connectorId, op.amountMinor) : payRequest(who, op.connectorId, op.amountMinor)));
            done.pay += 1;
          } else if (op.kind === 'reverse') {
            if (reversible.length === 0) continue;
            await reverse(who, reversible.splice(op.pick % reversible.length, 1)[0]);
            done.reverse += 1;
          } else if (op.kind === 'payout') {
            await single(who, op.connectorId, op.amountMinor, op.suffix);
            done.payout += 1;
          } else await runPayouts(who);
        }
        await settle(who);
        await expectStatsEqualBackfill(who);
        const days = await activityDays(who);
        const today = utcDay(new Date());
        const from = days[0] ?? today;
        const to = days[days.length - 1] ?? today;
        await expectMetricsMatch(who, from, to);
        await expectMetricsMatch(who, addDays(from, -1), addDays(to, 1), 'D');
        await expectMetricsMatch(who, from, to, 'C');
        await expectDisbursementsMatch(who, from, to);
      }),
      { numRuns: 12, seed: 20261122 },
    );
    // The runs did exercise every kind of change.
    expect(done.pay).toBeGreaterThan(0);
    expect(done.reverse).toBeGreaterThan(0);
    expect(done.payout).toBeGreaterThan(0);
  });
});

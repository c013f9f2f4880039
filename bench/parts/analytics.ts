// `BENCH_ONLY=analytics npm run bench` (and part of the default run): analytics (product.md §14)
// on 1,000,000 transactions of ONE merchant, on a database of its own.
//   load            600,000 collections (about 3 % reversed) and 400,000 final payouts (40 completed
//                   batches of 8,000 lines, 4 days apart, and 80,000 single payouts; about 90 %
//                   successful, 6 % failed, 4 % reversed) spread over the last 180 UTC days and 8
//                   connectors (2 wallets, 6 banks), inserted set-based (generate_series), with the
//                   merchant's limits, fees and account numbers as the service would store them. No
//                   ledger entries are written: analytics never reads them. Then connector_daily_stats
//                   is built by the migration's own backfill statements (read from
//                   migrations/0005_back_office.sql), which is what applyStats would have maintained
//                   row by row, and the tables are ANALYZEd.
//   e5              POST GetConnectorSummaryCountMetrics over the last 90 days through the real
//                   HTTP API (the app in this process on a real port, rate limit off, undici
//                   keep-alive client): 50 sequential requests after 3 warm-up ones, for summaryType
//                   absent, D and C; median and p95. Also the sum variant (summaryType absent).
//   disbursementMetrics  POST GetDisbursementMetrics over the same 90 days, measured the same way.
//   direct          the same figures as E5 (summaryType absent, 90 days) computed straight from
//                   collections and payouts: one run, timed, and compared with E5's answer — what
//                   every request would cost without the maintained aggregates.
// Target: E5 ≤ 100 ms (median and p95 of every variant); reported with `met` flags, for reading
// only: nothing fails on them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request as undiciRequest } from 'undici';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { migrateQueue } from '../../src/jobs/queue.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { SANDBOX as PREFIX } from '../lib/api.ts';
import { log, round1, timed } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { accessToken } from '../lib/merchants.ts';
import { ROOT } from '../lib/service.ts';
import { percentileOf as percentile } from '../lib/stats.ts';

const COLLECTIONS = 600_000;
const PAYOUTS = 400_000;
const SPREAD_DAYS = 180;
const RANGE_DAYS = 90;
const BATCHES = 40;
const BATCH_LINES = 8000;
const RUNS = 50;
const WARMUP = 3;
const TARGET_MS = 100;
/** 2 wallets and 6 banks, all open to collections and payouts. */
const CONNECTORS = [112400, 112500, 212188, 221300, 221500, 221700, 221800, 221900];
const WALLETS = [112400, 112500];
const DAY_MS = 86_400_000;

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** The two backfill statements of the migration that created connector_daily_stats. */
function backfillStatements(): string[] {
  const sql = fs.readFileSync(path.join(ROOT, 'migrations', '0005_back_office.sql'), 'utf8');
  const statements = sql.match(/insert into connector_daily_stats[\s\S]*?;/g) ?? [];
  if (statements.length !== 2) throw new Error(`expected 2 backfill statements in 0005_back_office.sql, found ${statements.length}`);
  return statements;
}

/** 1,000,000 transactions of one merchant, then the aggregates. */
async function load(db: Db, merchantAccountNumber: number, paymentAccountNumber: string) {
  const connectors = `array[${CONNECTORS.join(', ')}]`;
  const wallets = `array[${WALLETS.join(', ')}]`;
  // Spread over the last SPREAD_DAYS days: i's time is a pseudo-random second of that span.
  const collections = await timed(() =>
    db.query(
      `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, connector_id, source_account_number, source_account_name,
                                source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_description,
                                bridge_reference_number, status_code, created_by, transaction_date, value_date, reversed_at, reversal_reason)
       select $1, 'C' || upper(lpad(to_hex(i), 11, '0')), 'BAM', c.connector_id,
              case when c.connector_id = any(${wallets}) then '26599' || lpad((i % 10000000)::text, 7, '0') else '1001' || lpad((i % 100000000)::text, 8, '0') end,
              (array['Chisomo Banda', 'Tiyamike Phiri', 'Kondwani Mwale', 'Thokozani Chirwa', 'Madalitso Nyirenda'])[1 + i % 5],
              'SRC' || lpad(i::text, 9, '0'), $2, a.amount, a.amount / 100, 'MWK', 'Customer payment', 'BR' || lpad(i::text, 12, '0'),
              case when i % 33 = 0 then 'R' else 'S' end, 'bench@example.mw', d.at, d.at,
              case when i % 33 = 0 then d.at + interval '2 hours' end, case when i % 33 = 0 then 'Customer refund' end
         from generate_series(1, $3::int) as i
         cross join lateral (select (${connectors})[1 + (i * 7) % ${CONNECTORS.length}] as connector_id) c
         cross join lateral (select 10000 + (i::bigint * 7919) % 4990000 as amount) a
         cross join lateral (select now() - ((i::bigint * 104729) % ($4::int * 86400)) * interval '1 second' as at) d`,
      [merchantAccountNumber, paymentAccountNumber, COLLECTIONS, SPREAD_DAYS],
    ),
  );
  log(`analytics: ${COLLECTIONS} collections in ${round1(collections.ms / 1000)} s`);
  // Payouts: 40 batches of 8,000 lines (4 days apart) and 80,000 single payouts, all final.
  const batches = await timed(async () => {
    const { rows } = await db.query<{ batch_number: number }>(
      `insert into batches (merchant_account_number, currency_code, level_number, upload_type, status_code, captured_by, date_captured, transferred_by,
                            date_transferred, date_completed, number_of_entries)
       select $1, 'MWK', 1, 'JSON', 'C', 'bench@example.mw', now() - (b * 4) * interval '1 day' - interval '1 hour', 'bench@example.mw',
              now() - (b * 4) * interval '1 day', now() - (b * 4) * interval '1 day' + interval '1 hour', $3
         from generate_series(1, $2::int) as b order by b returning batch_number`,
      [merchantAccountNumber, BATCHES, BATCH_LINES],
    );
    return rows.map((r) => r.batch_number);
  });
  const payouts = await timed(() =>
    db.query(
      `insert into payouts (merchant_account_number, batch_number, line_number, transaction_reference_number, source_reference_number, beneficiary_name,
                            connector_id, beneficiary_account_number, transaction_description, amount_minor, fee_minor, currency_code, transaction_code,
                            status_code, response_code, response_message, captured_by, created_at, transferred_at, attempts, completed_at, reversed_at)
       select $1, case when i <= $5 then ($2::int[])[1 + (i - 1) / $6] end, case when i <= $5 then 1 + (i - 1) % $6 end,
              'P' || upper(lpad(to_hex(i), 11, '0')), 'PAY-' || lpad(i::text, 8, '0'),
              (array['Chikondi Phiri', 'Mphatso Banda', 'Tadala Mwale', 'Limbani Zulu', 'Grace Chirwa'])[1 + i % 5],
              c.connector_id,
              case when c.connector_id = any(${wallets}) then '26588' || lpad((i % 10000000)::text, 7, '0') else '2002' || lpad((i % 100000000)::text, 8, '0') end,
              'Salary', a.amount, case when c.connector_id = any(${wallets}) then 10000 else 15000 end, 'MWK',
              case when c.connector_id = any(${wallets}) then 'MMW' else 'MBA' end,
              s.status, case s.status when 'S' then 'S100' when 'F' then 'F101' else 'R101' end,
              case s.status when 'S' then 'Transaction successful' when 'F' then 'Beneficiary account not found' else 'Reversed by the beneficiary institution' end,
              'bench@example.mw', d.at - interval '1 minute', d.at - interval '1 minute', 1, d.at,
              case when s.status = 'R' then d.at + interval '1 hour' end
         from generate_series(1, $3::int) as i
         cross join lateral (select (${connectors})[1 + (i * 5) % ${CONNECTORS.length}] as connector_id) c
         cross join lateral (select 10000 + (i::bigint * 6151) % 2990000 as amount) a
         cross join lateral (select case when i % 50 < 3 then 'F' when i % 25 = 7 then 'R' else 'S' end as status) s
         -- A batch's lines complete within the hour after its transfer; single payouts any time.
         cross join lateral (select case when i <= $5 then now() - (1 + (i - 1) / $6) * interval '4 days' + ((i - 1) % $6) * interval '400 milliseconds'
                                         else now() - ((i::bigint * 130363) % ($4::int * 86400)) * interval '1 second' end as at) d`,
      [merchantAccountNumber, batches.result, PAYOUTS, SPREAD_DAYS, BATCHES * BATCH_LINES, BATCH_LINES],
    ),
  );
  log(`analytics: ${PAYOUTS} payouts in ${round1(payouts.ms / 1000)} s`);
  const stats = await timed(async () => {
    for (const statement of backfillStatements()) await db.query(statement);
  });
  log(`analytics: connector_daily_stats built by the migration's backfill in ${round1(stats.ms / 1000)} s`);
  const analyze = await timed(() => db.query('analyze collections; analyze payouts; analyze batches; analyze connector_daily_stats'));
  return {
    collectionsSeconds: round1(collections.ms / 1000),
    payoutsSeconds: round1((batches.ms + payouts.ms) / 1000),
    statsBackfillSeconds: round1(stats.ms / 1000),
    analyzeSeconds: round1(analyze.ms / 1000),
  };
}

interface Metric {
  summaryType: string;
  connectorName: string;
  currencyCode: string;
  successfulTransactions: number;
  failedTransactions: number;
  totalTransactions: number;
}

/** E5's figures (summaryType absent) straight from the transaction tables, for the range. */
const DIRECT_SQL = `
  select kind as "summaryType", c.connector_name as "connectorName", x.currency_code as "currencyCode",
         sum(s)::int as "successfulTransactions", sum(f)::int as "failedTransactions", sum(s + f + r)::int as "totalTransactions"
    from (
      select 'C' as kind, connector_id, currency_code, count(*) filter (where status_code = 'S') as s, 0 as f, count(*) filter (where status_code = 'R') as r
        from collections
       where merchant_account_number = $1 and (transaction_date at time zone 'UTC')::date between $2::date and $3::date
       group by connector_id, currency_code
      union all
      select 'D', connector_id, currency_code, count(*) filter (where status_code = 'S'), count(*) filter (where status_code = 'F'), count(*) filter (where status_code = 'R')
        from payouts
       where merchant_account_number = $1 and completed_at is not null and status_code in ('S', 'F', 'R')
         and (completed_at at time zone 'UTC')::date between $2::date and $3::date
       group by connector_id, currency_code
    ) x join connectors c on c.connector_id = x.connector_id
   group by 1, 2, 3`;

export async function benchAnalytics({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`analytics: database ${databaseName} created`);
  let db: Db | undefined;
  let built: BuiltApp | undefined;
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  try {
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'bench-analytics-jwt-secret-0123456789abcdef', HOST: '127.0.0.1', PORT: '0' });
    db = createPool(databaseUrl, config.dbPoolSize);
    await migrate(db);
    await migrateQueue(db);
    const deps = benchDeps(db, config);
    const merchant = await createMerchant(deps, { accountName: 'Bench Analytics', capturedBy: 'bench' });
    const m = merchant.merchantAccountNumber;
    log(`analytics: loading ${COLLECTIONS + PAYOUTS} transactions for merchant ${m} over ${SPREAD_DAYS} days and ${CONNECTORS.length} connectors`);
    const loadTimes = await load(db, m, merchant.paymentAccountNumber);
    const { rows: counts } = await db.query<{ collections: number; payouts: number; stats: number; stats_in_range: number; days: number }>(
      `select (select count(*)::int from collections where merchant_account_number = $1) as collections,
              (select count(*)::int from payouts where merchant_account_number = $1) as payouts,
              (select count(*)::int from connector_daily_stats where merchant_account_number = $1) as stats,
              (select count(*)::int from connector_daily_stats where merchant_account_number = $1 and day >= (now() at time zone 'UTC')::date - $2::int) as stats_in_range,
              (select count(distinct day)::int from connector_daily_stats where merchant_account_number = $1) as days`,
      [m, RANGE_DAYS - 1],
    );
    const { rows: sizes } = await db.query<{ collections: string; payouts: string; stats: string }>(
      `select pg_size_pretty(pg_total_relation_size('collections')) as collections, pg_size_pretty(pg_total_relation_size('payouts')) as payouts,
              pg_size_pretty(pg_total_relation_size('connector_daily_stats')) as stats`,
    );
    log(`analytics: ${JSON.stringify(counts[0])}`);

    built = await buildApp(deps);
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const authorization = `Bearer ${await accessToken(baseUrl, merchant, agent)}`;

    const toDate = utcDay(new Date());
    const fromDate = utcDay(new Date(Date.parse(`${toDate}T00:00:00Z`) - (RANGE_DAYS - 1) * DAY_MS));
    const call = async (route: string, body: object) => {
      const t0 = performance.now();
      const res = await undiciRequest(`${baseUrl}${PREFIX}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body), dispatcher: agent });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`${route}: HTTP ${res.statusCode} ${text.slice(0, 400)}`);
      return { ms, body: JSON.parse(text) as unknown };
    };
    const measure = async (label: string, route: string, body: object) => {
      for (let i = 0; i < WARMUP; i++) await call(route, body);
      const samples: number[] = [];
      let last: unknown;
      for (let i = 0; i < RUNS; i++) {
        const r = await call(route, body);
        samples.push(r.ms);
        last = r.body;
      }
      const result = { medianMs: round1(percentile(samples, 50)), p95Ms: round1(percentile(samples, 95)), minMs: round1(Math.min(...samples)), maxMs: round1(Math.max(...samples)) };
      log(`analytics: ${label} ${JSON.stringify(result)}`);
      return { ...result, answer: last };
    };
    const E5 = '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics';
    const range = { merchantAccountNumber: m, fromDate, toDate };
    const e5All = await measure('e5 (summaryType absent)', E5, range);
    const e5D = await measure('e5 (D)', E5, { ...range, summaryType: 'D' });
    const e5C = await measure('e5 (C)', E5, { ...range, summaryType: 'C' });
    const sums = await measure('sum metrics (summaryType absent)', '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', range);
    const disbursements = await measure('GetDisbursementMetrics', '/core/MerchantAnalytics/GetDisbursementMetrics', range);

    // The same figures without the aggregates: one run over the transaction tables.
    const direct = await timed(() => db!.query<Metric>(DIRECT_SQL, [m, fromDate, toDate]));
    log(`analytics: direct aggregate over the transaction tables ${round1(direct.ms)} ms`);
    const key = (x: Metric) => `${x.summaryType}|${x.connectorName}|${x.currencyCode}`;
    const nonZero = (list: Metric[]) =>
      list
        .filter((x) => x.totalTransactions > 0)
        .map((x) => JSON.stringify([key(x), x.successfulTransactions, x.failedTransactions, x.totalTransactions]))
        .sort();
    const e5Answer = e5All.answer as Metric[];
    const matchesDirect = JSON.stringify(nonZero(e5Answer)) === JSON.stringify(nonZero(direct.result.rows));
    const transactionsInRange = e5Answer.reduce((acc, x) => acc + x.totalTransactions, 0);
    const trend = (disbursements.answer as { dailyTrend: unknown[] }).dailyTrend.length;

    const strip = ({ answer: _answer, ...rest }: Awaited<ReturnType<typeof measure>>) => rest;
    const e5 = { summaryTypeAbsent: strip(e5All), summaryTypeD: strip(e5D), summaryTypeC: strip(e5C) };
    const variants = Object.values(e5);
    const worstMedian = Math.max(...variants.map((v) => v.medianMs));
    const worstP95 = Math.max(...variants.map((v) => v.p95Ms));
    return {
      app: 'buildApp in the bench process on a real port (rate limit off), undici keep-alive client, one request at a time',
      data: {
        merchantAccountNumber: m,
        collections: counts[0].collections,
        payouts: counts[0].payouts,
        transactions: counts[0].collections + counts[0].payouts,
        spreadDays: SPREAD_DAYS,
        connectors: CONNECTORS.length,
        connectorDailyStatsRows: counts[0].stats,
        connectorDailyStatsRowsIn90Days: counts[0].stats_in_range,
        daysWithActivity: counts[0].days,
        tableSizes: sizes[0],
      },
      loadTimes,
      range: { fromDate, toDate, days: RANGE_DAYS, transactionsInRange, disbursementTrendEntries: trend },
      requestsPerVariant: RUNS,
      e5,
      sumMetrics: strip(sums),
      disbursementMetrics: strip(disbursements),
      directAggregateOverTransactionTables: { ms: round1(direct.ms), runs: 1, matchesE5: matchesDirect },
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
      targets: {
        e5MedianMs: { atMost: TARGET_MS, measured: worstMedian, met: worstMedian <= TARGET_MS },
        e5P95Ms: { atMost: TARGET_MS, measured: worstP95, met: worstP95 <= TARGET_MS },
      },
    };
  } finally {
    await built?.app.close().catch(() => undefined);
    await agent.close();
    await db?.end().catch(() => undefined);
    await dropDatabase(adminUrl, databaseName, 'analytics: ');
  }
}

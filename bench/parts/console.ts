// `BENCH_ONLY=console npm run bench` (and part of the default run): the merchant console's data
// functions (src/modules/console/<area>/queries.ts) and its pages as served over HTTP, for ONE merchant with
// 1,000,000 collections, on a database of its own.
//   load     1,000,000 collections over the last 180 UTC days (about 3 % reversed; 8 connectors),
//            each with its ledger transfer and entries (customer payments → collection balance less
//            the fee → fees; a reversal's mirror transfer), its payment.success event (and
//            payment.reversed) and one webhook delivery per event (1 in 500 failed); 40 completed
//            batches of 2,500 lines and 5 batches awaiting funds transfer; 20,000 single payouts (10
//            awaiting approval); a top-up and each batch's and single payout's debit on the
//            disbursement balance, failed lines refunded. All inserted set-based (generate_series),
//            balances set from their entries, connector_daily_stats built by the migration's own
//            backfill statements, then VACUUM ANALYZE. An administrator user (for `attention`, and
//            for signing in to the pages) with a random password, added by the users service.
//   days     statementSummary over the 180 days before the closed days' totals are written (every
//            entry read), then the hourly ledger_account_days job's run over this history, timed.
//   calls    each function called directly (no HTTP: the page's server time is these calls plus
//            rendering), 3 warm-up calls then 50 measured ones, one at a time: p50 and p95 in ms.
//            homeSummary; attention; listCollections' first page and a page 500,000 rows deep (its
//            cursor is the row at that position), and first pages filtered by status and connector;
//            collectionDetail; batchesPage; batchLines (first page, and from line 2,000);
//            listSinglePayouts; statementSummary for the last 30 days and for all 180; statementLines'
//            first page of both; analyticsOverview (90 days); searches by a customer's name that one in five
//            collections has, and by a source reference that one collection has.
//   pages    the same pages as served: the real app (buildApp) on this database, on 127.0.0.1 and a
//            free port, signed in over HTTP as a browser does (GET the sign-in form for its cookie
//            and _csrf field, POST e-mail and password with this origin, keep the session cookie of
//            the 303). On one keep-alive connection, one request at a time, 3 warm-ups then 50
//            measured, each answer read to its end and checked (200 and the page's table or marker:
//            a redirect to sign-in cannot pass for a fast page): home; collections (first page,
//            filtered by status, by connector, its htmx fragment, the page 500,000 rows deep by the
//            cursor the list writes into its Next link, the two searches); a collection; batches; a batch with its
//            lines; single payouts; statements for the last 30 days; analytics (its default range).
//            Client p50/p95 (request to last byte) and server p50/p95 (Fastify's reply.elapsedTime,
//            read by an onResponse hook on the bench's own app instance: nothing added to the product).
//   csv      streamStatementCsv over the 180 days (every movement: ≥ 1,000,000 lines), read to the
//            end by counting newlines (nothing kept): lines/s, and the bench process's RSS sampled
//            every 20 ms, its growth over the value before the stream.
// Targets (issue 18): the pages' functions ≤ 100 ms p95, and the pages served ≤ 100 ms p95 server
// time (client time reported beside it); the CSV ≥ 100,000 lines/s with flat memory. Reported with
// `met` flags, for reading only: nothing fails on them.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { Client } from 'undici';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { migrateQueue } from '../../src/jobs/queue.ts';
import { cookieNames } from '../../src/modules/console/kit/cookies.ts';
import { analyticsOverview } from '../../src/modules/console/analytics/queries.ts';
import { collectionDetail, listCollections } from '../../src/modules/console/collections/queries.ts';
import { attention, homeSummary } from '../../src/modules/console/home/queries.ts';
import { encodeCursor, listScope } from '../../src/http/keyset-pages.ts';
import { batchLines, batchesPage, listSinglePayouts } from '../../src/modules/console/payouts/queries.ts';
import { fillLedgerAccountDays, LEDGER_DAYS_TASK } from '../../src/modules/ledger/days.ts';
import { statementLines, statementSummary, streamStatementCsv } from '../../src/modules/ledger/statements.ts';
import { ANALYTICS_PATH } from '../../src/modules/console/analytics/pages/analytics.tsx';
import { collectionsUrl, COLLECTIONS_PATH, RESULTS_ID, type CollectionsFilterValues } from '../../src/modules/console/collections/pages/collections.tsx';
import { batchPath, PAYOUTS_PATH, SINGLE_PAYOUTS_PATH } from '../../src/modules/console/payouts/pages/payouts.tsx';
import { STATEMENTS_PATH } from '../../src/modules/console/statements/pages/statements.tsx';
import { collectionPath, CONSOLE_PATH, SIGN_IN_PATH } from '../../src/modules/console/kit/paths.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { addUserWithPassword } from '../../src/modules/users/service.ts';
import { log, round1, sleep, timed } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { ROOT } from '../lib/service.ts';
import { percentileOf as percentile } from '../lib/stats.ts';

const COLLECTIONS = 1_000_000;
const SPREAD_DAYS = 180;
const BATCHES = 40;
const BATCH_LINES = 2_500;
const PENDING_BATCHES = 5;
const SINGLE_PAYOUTS = 20_000;
const PENDING_SINGLES = 10;
const DEEP_ROW = 500_000;
const RUNS = 50;
const WARMUP = 3;
const TARGET_MS = 100;
const TARGET_LINES_PER_SECOND = 100_000;
const RSS_SAMPLE_MS = 20;
/** 2 wallets and 6 banks, all open to collections and payouts. */
const CONNECTORS = [112400, 112500, 212188, 221300, 221500, 221700, 221800, 221900];
const WALLETS = [112400, 112500];
const DAY_MS = 86_400_000;
const ADMIN_EMAIL = 'admin@bench-console.mw';
/** Random per run (the policy refuses common passwords); only its argon2id hash is stored. */
const ADMIN_PASSWORD = randomBytes(18).toString('base64url');

const utcDay = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (days: number) => utcDay(new Date(Date.now() - days * DAY_MS));

/** The two backfill statements of the migration that created connector_daily_stats. */
function backfillStatements(): string[] {
  const sql = fs.readFileSync(path.join(ROOT, 'migrations', '0005_back_office.sql'), 'utf8');
  const statements = sql.match(/insert into connector_daily_stats[\s\S]*?;/g) ?? [];
  if (statements.length !== 2) throw new Error(`expected 2 backfill statements in 0005_back_office.sql, found ${statements.length}`);
  return statements;
}

async function step(label: string, fn: () => Promise<unknown>): Promise<number> {
  const { ms } = await timed(fn);
  log(`console: ${label} in ${round1(ms / 1000)} s`);
  return round1(ms / 1000);
}

/** The merchant's data, set-based. Returns the seconds each step took. */
async function load(db: pg.PoolClient, m: number, paymentAccountNumber: string, organisationId: string): Promise<Record<string, number>> {
  const connectors = `array[${CONNECTORS.join(', ')}]`;
  const wallets = `array[${WALLETS.join(', ')}]`;
  const account = async (kind: string) =>
    (await db.query<{ account_id: number }>(`select account_id from ledger_accounts where kind = $1 and currency_code = 'MWK' and merchant_account_number = ${m}`, [kind])).rows[0]?.account_id ??
    // The merchant's own system account (migration 0029), created on first use as systemAccountId does.
    (await db.query<{ account_id: number }>(`insert into ledger_accounts (merchant_account_number, kind, currency_code) values (${m}, $1, 'MWK') returning account_id`, [kind])).rows[0].account_id;
  const ids = {
    collection: await account('collection'),
    disbursement: await account('disbursement'),
    customers: await account('customer_payments'),
    fees: await account('fees'),
    funding: await account('funding'),
    inFlight: await account('payouts_in_flight'),
  };
  const seconds: Record<string, number> = {};
  seconds.collections = await step(`${COLLECTIONS} collections`, () =>
    db.query(
      `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, connector_id, source_account_number, source_account_name,
                                source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_description,
                                bridge_reference_number, status_code, created_by, transaction_date, value_date, reversed_at, reversal_reason)
       select $1, 'C' || upper(lpad(to_hex(i), 11, '0')), 'BAM', c.connector_id,
              case when c.connector_id = any(${wallets}) then '26599' || lpad((i % 10000000)::text, 7, '0') else '1001' || lpad((i % 100000000)::text, 8, '0') end,
              (array['Chisomo Banda', 'Tiyamike Phiri', 'Kondwani Mwale', 'Thokozani Chirwa', 'Madalitso Nyirenda'])[1 + i % 5],
              'SRC' || lpad(i::text, 9, '0'), $2, a.amount, (a.amount * 100 + 5000) / 10000, 'MWK', 'Customer payment', 'BR' || lpad(i::text, 12, '0'),
              case when i % 33 = 0 then 'R' else 'S' end, 'bench@example.mw', d.at, d.at,
              case when i % 33 = 0 then d.at + interval '2 hours' end, case when i % 33 = 0 then 'Customer refund' end
         from generate_series(1, $3::int) as i
         cross join lateral (select (${connectors})[1 + (i * 7) % ${CONNECTORS.length}] as connector_id) c
         cross join lateral (select 10000 + (i::bigint * 7919) % 4990000 as amount) a
         -- A pseudo-random second of the span, never in the future (a reversal comes 2 hours later).
         cross join lateral (select now() - interval '3 hours' - ((i::bigint * 104729) % ($4::int * 86400 - 10800)) * interval '1 second' as at) d`,
      [m, paymentAccountNumber, COLLECTIONS, SPREAD_DAYS],
    ),
  );
  seconds.collectionTransfers = await step('their ledger transfers (payments, then reversals)', async () => {
    await db.query(
      `insert into ledger_transfers (merchant_account_number, transfer_type, reference, created_at)
       select $1, 'payment', transaction_reference_number, transaction_date from collections where merchant_account_number = $1 order by transaction_date`,
      [m],
    );
    await db.query(
      `insert into ledger_transfers (merchant_account_number, transfer_type, reference, metadata, created_at)
       select $1, 'reversal', transaction_reference_number, json_build_object('reason', reversal_reason), reversed_at
         from collections where merchant_account_number = $1 and status_code = 'R' order by reversed_at`,
      [m],
    );
  });
  seconds.collectionEntries = await step('their ledger entries', () =>
    db.query(
      `insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor, created_at)
       select t.transfer_id, x.account_id, $1, case when t.transfer_type = 'reversal' then -x.amount else x.amount end, t.created_at
         from ledger_transfers t
         join collections c on c.transaction_reference_number = t.reference
         cross join lateral (values ($2::bigint, -c.amount_minor), ($3::bigint, c.amount_minor - c.fee_minor), ($4::bigint, c.fee_minor)) as x(account_id, amount)
        where t.merchant_account_number = $1 and t.transfer_type in ('payment', 'reversal') and x.amount <> 0
        order by t.created_at, t.transfer_id`,
      [m, ids.customers, ids.collection, ids.fees],
    ),
  );
  seconds.events = await step('their events and webhook deliveries', async () => {
    const { rows } = await db.query<{ webhook_id: number }>(
      `insert into webhook_subscriptions (merchant_account_number, event_code, callback_url, webhook_signature, signing_secret, created_by)
       values ($1, 'payment.success', 'https://shop.example.mw/hooks', repeat('A', 52), 'whsec_' || repeat('B', 43) || '=', 'bench@example.mw') returning webhook_id`,
      [m],
    );
    await db.query(
      `insert into outbox_events (merchant_account_number, event_code, payload, created_at)
       select $1, x.code,
              json_build_object('eventCode', x.code, 'merchantAccountNumber', $1::integer, 'connectorId', c.connector_id, 'transactionReferenceNumber', c.transaction_reference_number,
                                'transactionAmount', c.amount_minor / 100.0, 'transactionFee', c.fee_minor / 100.0, 'currencyCode', 'MWK'),
              x.at
         from collections c
         cross join lateral (values ('payment.success', c.transaction_date), ('payment.reversed', c.reversed_at)) as x(code, at)
        where c.merchant_account_number = $1 and x.at is not null
        order by x.at`,
      [m],
    );
    await db.query(
      `insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id, status, round_attempts,
                                       total_attempts, next_attempt_at, created_at, completed_at)
       select $1, e.event_id, $2, e.event_code, 'https://shop.example.mw/hooks', 'msg_' || e.event_id,
              case when e.event_id % 500 = 0 then 'failed' else 'succeeded' end, 1, case when e.event_id % 500 = 0 then 8 else 1 end,
              e.created_at, e.created_at, e.created_at + interval '1 second'
         from outbox_events e where e.merchant_account_number = $1 and e.event_code = 'payment.success'`,
      [m, rows[0].webhook_id],
    );
  });
  seconds.payouts = await step(`${BATCHES} + ${PENDING_BATCHES} batches and ${SINGLE_PAYOUTS} single payouts, with their debits`, async () => {
    const { rows } = await db.query<{ batch_number: number }>(
      `insert into batches (merchant_account_number, currency_code, level_number, upload_type, status_code, captured_by, date_captured, transferred_by,
                            date_transferred, date_completed, number_of_entries)
       select $1, 'MWK', 1, 'JSON', 'C', 'bench@example.mw', now() - (b * 4) * interval '1 day' - interval '1 hour', 'bench@example.mw',
              now() - (b * 4) * interval '1 day', now() - (b * 4) * interval '1 day' + interval '1 hour', $3
         from generate_series($2::int, 1, -1) as b returning batch_number`,
      [m, BATCHES, BATCH_LINES],
    );
    const batchNumbers = rows.map((r) => r.batch_number);
    await db.query(
      `insert into payouts (merchant_account_number, batch_number, line_number, transaction_reference_number, source_reference_number, beneficiary_name,
                            connector_id, beneficiary_account_number, transaction_description, amount_minor, fee_minor, currency_code, transaction_code,
                            status_code, response_code, response_message, captured_by, created_at, transferred_at, attempts, completed_at, reversed_at)
       select $1, ($2::int[])[1 + (i - 1) / $3], 1 + (i - 1) % $3, 'B' || upper(lpad(to_hex(i), 11, '0')), 'PAY-' || lpad(i::text, 8, '0'),
              (array['Chikondi Phiri', 'Mphatso Banda', 'Tadala Mwale', 'Limbani Zulu', 'Grace Chirwa'])[1 + i % 5], c.connector_id,
              case when w then '26588' || lpad((i % 10000000)::text, 7, '0') else '2002' || lpad((i % 100000000)::text, 8, '0') end,
              'Salary', 10000 + (i::bigint * 6151) % 2990000, case when w then 10000 else 15000 end, 'MWK', case when w then 'MMW' else 'MBA' end,
              s.status, case s.status when 'S' then 'S100' else 'F101' end, case s.status when 'S' then 'Transaction successful' else 'Beneficiary account not found' end,
              'bench@example.mw', b.date_transferred, b.date_transferred, 1, b.date_completed, null
         from generate_series(1, $4::int) as i
         cross join lateral (select (${connectors})[1 + (i * 5) % ${CONNECTORS.length}] as connector_id) c
         cross join lateral (select c.connector_id = any(${wallets}) as w) k
         cross join lateral (select case when i % 50 < 3 then 'F' else 'S' end as status) s
         join batches b on b.batch_number = ($2::int[])[1 + (i - 1) / $3]`,
      [m, batchNumbers, BATCH_LINES, BATCHES * BATCH_LINES],
    );
    await db.query(
      `update batches b set number_of_successful_entries = s.ok, successful_amount_minor = s.ok_minor, number_of_failed_entries = s.failed,
              failed_amount_minor = s.failed_minor, total_amount_minor = s.amount, total_fee_minor = s.fee
         from (select batch_number, count(*) filter (where status_code = 'S') as ok, coalesce(sum(amount_minor) filter (where status_code = 'S'), 0) as ok_minor,
                      count(*) filter (where status_code = 'F') as failed, coalesce(sum(amount_minor) filter (where status_code = 'F'), 0) as failed_minor,
                      sum(amount_minor) as amount, sum(fee_minor) as fee
                 from payouts where merchant_account_number = $1 and batch_number is not null group by batch_number) s
        where b.batch_number = s.batch_number`,
      [m],
    );
    // Batches awaiting funds transfer (level 1, validated: lines D), for `attention`.
    await db.query(
      `with b as (
         insert into batches (merchant_account_number, currency_code, level_number, upload_type, status_code, captured_by, date_captured, number_of_entries,
                              total_amount_minor, total_fee_minor)
         select $1, 'MWK', 1, 'JSON', 'P', 'capturer@bench-console.mw', now() - j * interval '1 hour', 100, 100 * 50000, 100 * 10000
           from generate_series(1, $2::int) as j returning batch_number
       )
       insert into payouts (merchant_account_number, batch_number, line_number, transaction_reference_number, source_reference_number, beneficiary_name,
                            connector_id, beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_code, status_code, captured_by)
       select $1, b.batch_number, l, 'Q' || upper(lpad(to_hex(b.batch_number * 1000 + l), 11, '0')), 'PEND-' || l, 'Grace Chirwa', 112400,
              '265881234567', 50000, 10000, 'MWK', 'MMW', 'D', 'capturer@bench-console.mw'
         from b cross join generate_series(1, 100) as l`,
      [m, PENDING_BATCHES],
    );
    await db.query(
      `insert into payouts (merchant_account_number, transaction_reference_number, source_reference_number, beneficiary_name, connector_id,
                            beneficiary_account_number, transaction_description, amount_minor, fee_minor, currency_code, transaction_code, status_code,
                            response_code, response_message, captured_by, created_at, transferred_at, attempts, completed_at, level_number)
       select $1, 'S' || upper(lpad(to_hex(i), 11, '0')), 'ONE-' || lpad(i::text, 8, '0'), 'Tadala Mwale', 221300, '200212345678', 'Invoice',
              10000 + (i::bigint * 7717) % 990000, 15000, 'MWK', 'MBA', case when i % 40 = 0 then 'F' else 'S' end,
              case when i % 40 = 0 then 'F101' else 'S100' end, case when i % 40 = 0 then 'Beneficiary account not found' else 'Transaction successful' end,
              'bench@example.mw', d.at, d.at, 1, d.at + interval '1 minute', 1
         from generate_series(1, $2::int) as i
         cross join lateral (select now() - interval '1 hour' - ((i::bigint * 130363) % ($3::int * 86400 - 7200)) * interval '1 second' as at) d`,
      [m, SINGLE_PAYOUTS, SPREAD_DAYS],
    );
    // Awaiting approval (captured while the merchant was at level 2): P, nothing debited.
    await db.query(
      `insert into payouts (merchant_account_number, transaction_reference_number, source_reference_number, beneficiary_name, connector_id,
                            beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_code, status_code, captured_by, level_number)
       select $1, 'A' || upper(lpad(to_hex(i), 11, '0')), 'WAIT-' || i, 'Limbani Zulu', 112400, '265881234567', 75000, 10000, 'MWK', 'MMW', 'P',
              'capturer@bench-console.mw', 2
         from generate_series(1, $2::int) as i`,
      [m, PENDING_SINGLES],
    );
    // The money: one top-up large enough, then each completed batch's and single payout's debit
    // (amounts + fees) and its failed lines' refund, at their times.
    await db.query(
      `with t as (
         insert into ledger_transfers (merchant_account_number, transfer_type, reference, created_at)
         values ($1, 'topup', 'TOPUPBENCH01', now() - ($2::int + 1) * interval '1 day') returning transfer_id, created_at
       )
       insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor, created_at)
       select t.transfer_id, x.account_id, $1, x.amount, t.created_at from t
        cross join (values ($3::bigint, -10000000000000::bigint), ($4::bigint, 10000000000000::bigint)) as x(account_id, amount)`,
      [m, SPREAD_DAYS, ids.funding, ids.disbursement],
    );
    await db.query(
      `with moves as (
         select 'payout_debit' as type, 'B' || batch_number as reference, date_transferred as at, total_amount_minor + total_fee_minor as amount
           from batches where merchant_account_number = $1 and status_code = 'C'
         union all
         select 'payout_settle', 'P-B' || batch_number, date_completed, sum(p.amount_minor + p.fee_minor)
           from batches b join payouts p using (batch_number)
          where b.merchant_account_number = $1 and b.status_code = 'C' and p.status_code = 'F' group by batch_number, date_completed
         union all
         select 'payout_debit', transaction_reference_number, transferred_at, amount_minor + fee_minor
           from payouts where merchant_account_number = $1 and batch_number is null and status_code in ('S', 'F')
         union all
         select 'payout_settle', 'P-' || transaction_reference_number, completed_at, amount_minor + fee_minor
           from payouts where merchant_account_number = $1 and batch_number is null and status_code = 'F'
       ), t as (
         insert into ledger_transfers (merchant_account_number, transfer_type, reference, created_at)
         select $1, type, reference, at from moves order by at returning transfer_id, transfer_type, reference, created_at
       )
       insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor, created_at)
       select t.transfer_id, x.account_id, $1, x.amount, t.created_at
         from t join moves mv on mv.reference = t.reference and mv.type = t.transfer_type
        cross join lateral (values ($2::bigint, case when t.transfer_type = 'payout_debit' then -mv.amount else mv.amount end),
                                   ($3::bigint, case when t.transfer_type = 'payout_debit' then mv.amount else -mv.amount end)) as x(account_id, amount)`,
      [m, ids.disbursement, ids.inFlight],
    );
  });
  seconds.balancesAndStats = await step('balances from the entries, and connector_daily_stats', async () => {
    await db.query(
      `update ledger_accounts a set balance_minor = (select coalesce(sum(amount_minor), 0) from ledger_entries e where e.account_id = a.account_id)
        where a.merchant_account_number = $1 and not a.is_system`,
      [m],
    );
    for (const statement of backfillStatements()) await db.query(statement);
  });
  // As the demo administrator is made (src/runtime.ts): active, with a password, no invitation.
  seconds.adminUser = await step('an administrator user with a password', () =>
    addUserWithPassword(
      db,
      { organisationId, merchantAccountNumber: m, firstName: 'Bench', lastName: 'Admin', emailAddress: ADMIN_EMAIL, phoneNumber: '265991234567', roleId: 'MERC_ADMIN', capturedBy: 'bench' },
      ADMIN_PASSWORD,
    ),
  );
  seconds.vacuumAnalyze = await step('VACUUM ANALYZE', () => db.query('vacuum analyze'));
  return seconds;
}

interface Measured {
  p50Ms: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
}

async function measure(label: string, fn: () => Promise<unknown>): Promise<Measured> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  const result = { p50Ms: round1(percentile(samples, 50)), p95Ms: round1(percentile(samples, 95)), minMs: round1(Math.min(...samples)), maxMs: round1(Math.max(...samples)) };
  log(`console: ${label} ${JSON.stringify(result)}`);
  return result;
}

/** Reads the CSV to its end, counting lines; the process's RSS sampled meanwhile. */
async function measureCsv(db: Db, m: number, fromDate: string, toDate: string) {
  global.gc?.();
  const rssBeforeMb = process.memoryUsage.rss() / 1048576;
  let peakRssMb = rssBeforeMb;
  const timer = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, process.memoryUsage.rss() / 1048576);
  }, RSS_SAMPLE_MS);
  let newlines = 0;
  let bytes = 0;
  const t0 = performance.now();
  let firstByteMs = 0;
  try {
    for await (const chunk of streamStatementCsv(db, m, fromDate, toDate)) {
      const buffer = chunk as Buffer;
      if (bytes === 0) firstByteMs = performance.now() - t0;
      bytes += buffer.length;
      for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) newlines++;
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - t0) / 1000;
  peakRssMb = Math.max(peakRssMb, process.memoryUsage.rss() / 1048576);
  const lines = newlines - 1;
  return {
    fromDate,
    toDate,
    lines,
    megabytes: round1(bytes / 1048576),
    seconds: round1(seconds * 10) / 10,
    firstByteMs: round1(firstByteMs),
    linesPerSecond: Math.round(lines / seconds),
    rssBeforeMb: round1(rssBeforeMb),
    peakRssMb: round1(peakRssMb),
    rssGrowthMb: round1(peakRssMb - rssBeforeMb),
  };
}

// ---------------------------------------------------------------------------------------------
// The pages over HTTP

interface Answer {
  status: number;
  body: string;
}

/**
 * A browser stand-in on one keep-alive connection (an undici Client: one socket, one request at a
 * time). It keeps the cookies it is given by name (Max-Age=0 deletes), as test/console/client.ts
 * does over inject, and follows no redirect: every answer is looked at.
 */
function consoleBrowser(baseUrl: string) {
  const client = new Client(baseUrl, { pipelining: 1 });
  const cookies = new Map<string, string>();
  let answers = 0;
  async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await client.request({ method, path, headers: { ...(cookie ? { cookie } : {}), ...headers }, body });
    const text = await res.body.text();
    answers += 1;
    const setCookie = res.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) cookies.delete(name);
      else cookies.set(name, value);
    }
    return { status: res.statusCode, body: text };
  }
  return {
    send,
    cookies,
    /** Answers read so far. */
    get answers() {
      return answers;
    },
    close: () => client.close(),
  };
}

type ConsoleBrowser = ReturnType<typeof consoleBrowser>;

/**
 * Signs in as a person does: the form (its pre-session cookie and hidden _csrf field), then the
 * POST with this origin (the same-origin check), answered 303 with the session cookie.
 */
async function signIn(browser: ConsoleBrowser, origin: string, sessionCookie: string): Promise<void> {
  const form = await browser.send('GET', SIGN_IN_PATH);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`the sign-in form answered ${form.status}${csrf ? '' : ' without a _csrf field'}`);
  const fields = new URLSearchParams({ _csrf: csrf, email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).toString();
  const done = await browser.send('POST', SIGN_IN_PATH, { 'content-type': 'application/x-www-form-urlencoded', origin }, fields);
  if (done.status !== 303 || !browser.cookies.has(sessionCookie)) throw new Error(`signing in answered ${done.status}${browser.cookies.has(sessionCookie) ? '' : ' without a session cookie'}`);
}

interface PageTarget {
  path: string;
  /** Text only the page itself holds (its table): a redirect or an error page has none. */
  marker: string;
  headers?: Record<string, string>;
  /** An htmx fragment: answered without the page around it (no <html>). */
  fragment?: boolean;
}

/** A source reference that one collection of the million carries (the loader's 'SRC' || lpad(i, 9, '0')). */
const RARE_REFERENCE = 'SRC000000033';
const NO_FILTER: CollectionsFilterValues = { from: '', to: '', status: '', connector: '', search: '', limit: '' };

/**
 * Waits until the app's onResponse hook (one sample in `serverMs` per answer) has run for every
 * answer the browser has read: it runs once the server has handed the answer over, which may be a
 * moment after the client has read it.
 */
async function settled(browser: ConsoleBrowser, serverMs: number[]): Promise<void> {
  for (const deadline = performance.now() + 5_000; serverMs.length < browser.answers; await sleep(1)) {
    if (performance.now() > deadline) throw new Error(`${serverMs.length} server times for ${browser.answers} answers`);
  }
}

/**
 * One page: client times (request to the body's last byte) through measure(), server times from
 * the app's onResponse samples. On one connection, one request at a time, the hook runs once per
 * answer and in order, so the samples past the warm-ups are the measured requests'.
 */
async function measurePage(label: string, browser: ConsoleBrowser, serverMs: number[], target: PageTarget) {
  let bytes = 0;
  await settled(browser, serverMs);
  const firstMeasured = serverMs.length + WARMUP;
  const client = await measure(`page ${label}`, async () => {
    const res = await browser.send('GET', target.path, target.headers);
    const isFragment = !res.body.includes('<html');
    if (res.status !== 200 || !res.body.includes(target.marker) || isFragment !== (target.fragment ?? false)) {
      throw new Error(`page ${label}: GET ${target.path} answered ${res.status}, ${res.body.length} chars, ${res.body.includes(target.marker) ? 'with' : 'without'} ${target.marker}`);
    }
    bytes = Buffer.byteLength(res.body);
  });
  await settled(browser, serverMs);
  const server = serverMs.slice(firstMeasured);
  const serverP95Ms = round1(percentile(server, 95));
  return { path: target.path, bytes, p50Ms: client.p50Ms, p95Ms: client.p95Ms, maxMs: client.maxMs, serverP50Ms: round1(percentile(server, 50)), serverP95Ms, met: serverP95Ms <= TARGET_MS };
}

export async function benchConsole({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`console: database ${databaseName} created`);
  let db: Db | undefined;
  let built: BuiltApp | undefined;
  let browser: ConsoleBrowser | undefined;
  try {
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'bench-console-jwt-secret-0123456789abcdef', HOST: '127.0.0.1', PORT: '0' });
    db = createPool(databaseUrl, config.dbPoolSize);
    await migrate(db);
    await migrateQueue(db);
    const deps = benchDeps(db, config);
    const merchant = await createMerchant(deps, { accountName: 'Bench Console', capturedBy: 'bench' });
    const m = merchant.merchantAccountNumber;
    log(`console: loading ${COLLECTIONS} collections and their ledger, events and deliveries for merchant ${m}`);
    // On a connection of its own without the pool's 30 s statement timeout: loading a million rows takes longer.
    const loader = await db.connect();
    let loadSeconds: Record<string, number>;
    try {
      await loader.query('set statement_timeout = 0');
      loadSeconds = await load(loader, m, merchant.paymentAccountNumber, merchant.organisationId);
    } finally {
      loader.release(true);
    }
    const { rows: counts } = await db.query<Record<string, number>>(
      `select (select count(*)::int from collections where merchant_account_number = $1) as collections,
              (select count(*)::int from payouts where merchant_account_number = $1) as payouts,
              (select count(*)::int from ledger_entries where merchant_account_number = $1) as "ledgerEntries",
              (select count(*)::int from outbox_events where merchant_account_number = $1) as events,
              (select count(*)::int from webhook_deliveries where merchant_account_number = $1) as deliveries`,
      [m],
    );
    const { rows: user } = await db.query<{ user_id: string }>('select user_id from merchant_users where merchant_account_number = $1', [m]);
    const admin = { userId: user[0].user_id, roleId: 1, emailAddress: ADMIN_EMAIL };

    // A cursor DEEP_ROW rows down the list, as the list itself would have written it after that many pages.
    const { rows: deep } = await db.query<{ date_key: string; collection_id: number }>(
      `select to_char(transaction_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as date_key, collection_id from collections
        where merchant_account_number = $1 order by transaction_date desc, collection_id desc offset $2 limit 1`,
      [m, DEEP_ROW - 1],
    );
    const deepCursor = encodeCursor(listScope('collections', m, {}), [deep[0].date_key, deep[0].collection_id]);
    const { rows: someCollection } = await db.query<{ ref: string }>(`select transaction_reference_number as ref from collections where merchant_account_number = $1 and status_code = 'R' limit 1`, [m]);
    const { rows: batchRows } = await db.query<{ n: number }>(`select batch_number as n from batches where merchant_account_number = $1 and status_code = 'C' order by batch_number desc limit 1`, [m]);
    const batchNumber = batchRows[0].n;
    const linesPage = (await batchLines(db, m, batchNumber, { limit: 25 }))!;
    const deepLines = encodeCursor(listScope('batchLines', m, { batchNumber }), [2000]);
    const now = new Date();
    const today = utcDay(now);
    const last30 = daysAgo(29);
    const allDays = daysAgo(SPREAD_DAYS + 1);

    // The whole period before the hourly job has written the closed days' totals (every entry read,
    // as before migration 0022), then the job's run over this history, as the worker would do it.
    const statementBeforeDayTotals = await measure(`statementSummary, ${SPREAD_DAYS + 2} days, before the day totals`, () => statementSummary(db!, m, allDays, today));
    const dayTotals = await timed(() => fillLedgerAccountDays(db!, now, 600_000));
    log(`console: ledger totals of closed days (the ${LEDGER_DAYS_TASK} job) ${JSON.stringify(dayTotals.result)} in ${round1(dayTotals.ms / 1000)} s`);
    const calls = {
      homeSummary: await measure('homeSummary', () => homeSummary(db!, m, now)),
      attention: await measure('attention (administrator)', () => attention(db!, m, admin)),
      listCollectionsFirstPage: await measure('listCollections first page', () => listCollections(db!, m, { limit: 25 })),
      listCollectionsDeepPage: await measure(`listCollections page ${DEEP_ROW} rows deep`, () => listCollections(db!, m, { limit: 25, after: deepCursor })),
      listCollectionsReversed: await measure('listCollections status R', () => listCollections(db!, m, { limit: 25, status: 'R' })),
      listCollectionsConnectorAndRange: await measure('listCollections connector + 30 days', () => listCollections(db!, m, { limit: 25, connectorId: 221300, fromDate: last30, toDate: today })),
      collectionDetail: await measure('collectionDetail', () => collectionDetail(db!, m, someCollection[0].ref)),
      listBatches: await measure('listBatches', () => batchesPage(db!, m, { limit: 25 })),
      batchLinesFirstPage: await measure('batchLines first page', () => batchLines(db!, m, batchNumber, { limit: 25 })),
      batchLinesFromLine2000: await measure('batchLines from line 2,000', () => batchLines(db!, m, batchNumber, { limit: 25, after: deepLines })),
      listSinglePayouts: await measure('listSinglePayouts', () => listSinglePayouts(db!, m, { limit: 25 })),
      statementSummary30Days: await measure('statementSummary, 30 days', () => statementSummary(db!, m, last30, today)),
      statementSummary180Days: await measure(`statementSummary, ${SPREAD_DAYS + 2} days`, () => statementSummary(db!, m, allDays, today)),
      statementLinesFirstPage: await measure('statementLines first page, 30 days', () => statementLines(db!, m, last30, today, { limit: 25 })),
      statementLinesFirstPage180Days: await measure(`statementLines first page, ${SPREAD_DAYS + 2} days`, () => statementLines(db!, m, allDays, today, { limit: 25 })),
      analyticsOverview90Days: await measure('analyticsOverview, 90 days', () => analyticsOverview(db!, m, { fromDate: daysAgo(89), toDate: today }, now)),
      // Contains-matches (ILIKE '%…%'): a common text is found by walking the collections newest
      // first, a rare one through the trigram indexes (migration 0021).
      listCollectionsSearchCommonName: await measure('listCollections search "banda"', () => listCollections(db!, m, { limit: 25, search: 'banda' })),
      listCollectionsSearchRareReference: await measure(`listCollections search ${RARE_REFERENCE}`, () => listCollections(db!, m, { limit: 25, search: RARE_REFERENCE })),
    };
    if (linesPage.items.length !== 25) throw new Error('batchLines read no page');

    log('console: the pages over HTTP');
    built = await buildApp(deps);
    // Server time as Fastify measures it, on this instance only: the product has no such hook.
    const serverMs: number[] = [];
    built.app.addHook('onResponse', async (_request, reply) => {
      serverMs.push(reply.elapsedTime);
    });
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    browser = consoleBrowser(baseUrl);
    await signIn(browser, new URL(baseUrl).origin, cookieNames(config.mode).session);
    const page = (label: string, target: PageTarget) => measurePage(label, browser!, serverMs, target);
    const listed = 'id="collections-table"';
    const pages = {
      home: await page('home', { path: CONSOLE_PATH, marker: 'id="flow-collections-table"' }),
      collections: await page('collections', { path: COLLECTIONS_PATH, marker: 'id="collections-next"' }),
      collectionsReversed: await page('collections status R', { path: collectionsUrl({ ...NO_FILTER, status: 'R' }), marker: listed }),
      collectionsByConnector: await page('collections connector 221300', { path: collectionsUrl({ ...NO_FILTER, connector: '221300' }), marker: listed }),
      // What htmx asks for when the filter form or a pager link swaps the results region.
      collectionsFragment: await page('collections htmx fragment', { path: COLLECTIONS_PATH, headers: { 'hx-request': 'true', 'hx-target': RESULTS_ID }, marker: listed, fragment: true }),
      // The list's Next link is collectionsUrl(filters, cursor): here the cursor of row DEEP_ROW. The
      // "first page" link shows only on a page read from a cursor the list accepted.
      collectionsDeepPage: await page(`collections ${DEEP_ROW} rows deep`, { path: collectionsUrl(NO_FILTER, deepCursor), marker: 'id="collections-first"' }),
      collectionsSearchCommonName: await page('collections search "banda"', { path: collectionsUrl({ ...NO_FILTER, search: 'banda' }), marker: listed }),
      collectionsSearchRareReference: await page(`collections search ${RARE_REFERENCE}`, { path: collectionsUrl({ ...NO_FILTER, search: RARE_REFERENCE }), marker: listed }),
      collection: await page('collection', { path: collectionPath(someCollection[0].ref), marker: 'id="ledger-lines"' }),
      batches: await page('batches', { path: PAYOUTS_PATH, marker: 'id="batches-table"' }),
      batch: await page('batch with its lines', { path: batchPath(batchNumber), marker: 'id="lines-table"' }),
      singlePayouts: await page('single payouts', { path: SINGLE_PAYOUTS_PATH, marker: 'id="single-table"' }),
      statements30Days: await page('statements, 30 days', { path: `${STATEMENTS_PATH}?${new URLSearchParams({ from: last30, to: today })}`, marker: 'id="movements-table"' }),
      analytics: await page('analytics', { path: ANALYTICS_PATH, marker: 'id="analytics-collections"' }),
    };
    await browser.close();
    browser = undefined;
    await built.app.close();
    built = undefined;

    log('console: streaming the statement CSV');
    const csv = await measureCsv(db, m, allDays, today);
    log(`console: csv ${JSON.stringify(csv)}`);
    const worstP95 = Math.max(...Object.values(calls).map((c) => c.p95Ms));
    const worst = Object.entries(calls).find(([, c]) => c.p95Ms === worstP95)![0];
    /** The slowest page by `key`, and its value. */
    const slowestPage = (key: 'serverP95Ms' | 'p95Ms') => {
      const [name, measured] = Object.entries(pages).reduce((a, b) => (b[1][key] > a[1][key] ? b : a));
      return { atMost: TARGET_MS, measured: measured[key], worst: name, met: measured[key] <= TARGET_MS };
    };
    return {
      how: 'each function called directly in the bench process (no HTTP), one at a time, 3 warm-up calls then 50 measured',
      data: { merchantAccountNumber: m, ...counts[0], spreadDays: SPREAD_DAYS },
      loadSeconds,
      dayTotals: { seconds: round1(dayTotals.ms / 1000), ...dayTotals.result, statementSummaryBefore: statementBeforeDayTotals },
      calls,
      pages: {
        how: 'the real app (buildApp) on this database on 127.0.0.1, signed in over HTTP; one keep-alive connection, one request at a time, 3 warm-ups then 50 measured; p50Ms/p95Ms/maxMs client (request to last byte), serverP50Ms/serverP95Ms Fastify reply.elapsedTime; met: server p95 ≤ 100 ms',
        ...pages,
      },
      csv,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
      targets: {
        pagesP95Ms: { atMost: TARGET_MS, measured: worstP95, worst, met: worstP95 <= TARGET_MS },
        pagesServedServerP95Ms: slowestPage('serverP95Ms'),
        pagesServedClientP95Ms: slowestPage('p95Ms'),
        csvLinesPerSecond: { atLeast: TARGET_LINES_PER_SECOND, measured: csv.linesPerSecond, met: csv.linesPerSecond >= TARGET_LINES_PER_SECOND },
        csvLines: { atLeast: 1_000_000, measured: csv.lines, met: csv.lines >= 1_000_000 },
      },
    };
  } finally {
    await browser?.close().catch(() => undefined);
    await built?.app.close().catch((err: Error) => log(`console: closing the app failed: ${err.message}`));
    await db?.end().catch(() => undefined);
    await dropDatabase(adminUrl, databaseName, 'console: ');
  }
}

// `npm run bench`: HTTP throughput and latency of the real app on a real port and a fresh
// database, measured with autocannon. Prints ONE JSON document to stdout; progress goes to stderr.
// It measures and asserts nothing; non-2xx answers and connection errors are reported as counted.
//
// Targets, each warmed up for WARMUP_SECONDS (not measured) then measured for BENCH_SECONDS:
//   healthLive   GET /health/live — the floor: routing, hooks and serialisation, no auth, no SQL.
//   accessToken  POST /sandbox/v1/account/getAccessToken — key lookup, secret hash check, JWT signing.
//   e10Limits    GET /sandbox/v1/merchants/limits/getAll — JWT check, key-status cache, rate
//                limiter (limit set far above reach so it runs but never refuses), limits from
//                the per-process read cache (READ_CACHE_MS).
//   e10LimitsUncached  the same with READ_CACHE_MS=0: one query per request.
// Then `startup`: `src/server.ts` on a new embedded data directory, first start and restart,
// each timed from spawn to /health/ready answering 200.
//
// Then `webhooks` (the webhook worker in this process, local node:http receivers, keep-alive):
//   latencyMs    event committed (emitEvent in its own transaction; from the moment its commit
//                returns) → the request arriving at a receiver that answers 204 at once; 300
//                events 10 ms apart after 20 warm-up ones. Target p50 ≤ 50 ms, p99 ≤ 250 ms.
//   throughput   5000 events written in 5 transactions held open, committed together; time from
//                the commits to the 5000th distinct webhook-id arriving. Checks the database
//                (all succeeded) and counts duplicate arrivals. Target ≥ 1000 deliveries/s.
//   isolation    200 events to a receiver that never answers (attempt timeout 2 s for the bench),
//                then 200 to a fast one: the fast one must have all of them before the hanging
//                receiver's first attempt times out.
//
// Then `collections` (an app with the rate limit off, 50 merchants each with its own token):
//   e12          POST /sandbox/v1/collections/requestToPay/initiate under autocannon, every
//                connection cycling through the merchants, a unique referenceNumber per request,
//                no idempotency key. Reports the CPU split (this process's main thread — the
//                server's event loop — its other threads — the load generator, GC — PostgreSQL's
//                processes, and everything else on the machine, from /proc) and the rows inserted
//                (≥ the 2xx count: requests in flight when a run ends still commit).
//                Requests that arrive together share one insert (INITIATE_BATCH_ROWS, default
//                64): e12.batchRows shows how many shared a statement on average.
//   e12OneByOne  the same for min(5, BENCH_SECONDS) s on a second app with INITIATE_BATCH_ROWS=1:
//                one insert and one commit per request, as the baseline does.
//   e12Idempotent  the same for min(5, BENCH_SECONDS) s with a unique X-Idempotency-Key each
//                (adds the key's claim, its own transaction, and its completion; never shared).
//   postgresBaseline  the same database work without HTTP: BENCH_CONNECTIONS clients in one pool
//                running E12's transaction back to back through node-postgres (the statements
//                createPaymentRequest sends, through the same repository functions) for
//                BENCH_SECONDS; e12VsBaselinePercent compares the two. Run before e12, so e12
//                meets the larger table.
//   roundTrips   200 E12 requests one at a time, with and without a key: statements per request
//                (every node-postgres query of the process is counted) and time spent waiting
//                on them (the client runs in this thread too, so the rest is not all server).
//   concurrent1000  1,000 E12 requests at once (one keep-alive connection each): all must
//                succeed with distinct timed accounts, checked in the answers and the database.
//   racingPayments  20 timed accounts, each paid by 10 concurrent addFakeTransaction requests:
//                exactly one 200 and one collection row per account.
//   meetsTargets  the targets (≥ 1,500 req/s, p99 ≤ 50 ms, ≥ 60 % of the baseline, the two
//                races) as booleans, for reading only: nothing fails on them.
//                e12OneByOneVsBaselinePercent is reported beside e12VsBaselinePercent.
//
// Then `disbursements` (bench/disbursements.ts): a 50,000-line E8 batch through the real service
// process (src/server.ts with npm start's defaults) on a database of its own: acceptance against a
// bare node:http JSON.parse floor, validation, transferFunds until every line is final, the
// service's peak memory, and E3 paging and search on the batch.
//
// Then `files` (bench/files.ts): three merchants upload maximal CSV files to batch/addFile, all at
// once, while a fourth merchant's authenticated read keeps being answered (its p50 ≤ 50 ms): once
// with ≈11 MB of short rows (refused: too many lines) and once with 50,000 rows of ≈11 MB.
//
// Then `analytics` (bench/analytics.ts): 1,000,000 transactions of one merchant loaded set-based
// on a database of its own, connector_daily_stats built by the migration's backfill, then E5 and
// GetDisbursementMetrics over 90 days through HTTP (median and p95 of 50 sequential requests)
// against one run of the same aggregate computed directly over the transaction tables.
// The machine is shared: cpu.otherProcesses shows how much of it other work took during a run.
//
// The report is also written to bench/results/results.json, with the targeted figures as a
// markdown table in bench/results/results.md (bench/report.ts; BENCH_OUT_DIR moves them; a
// BENCH_ONLY run writes results-<part>.json and .md instead).
//
// Environment: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32), DATABASE_URL (an
// external server; otherwise an embedded one under .bench-data/), BENCH_LOAD_GENERATOR
// (`worker`, the default, or `inprocess`), BENCH_ONLY (`http`, `webhooks`, `collections`,
// `disbursements`, `files` or `analytics`: that part alone).
//
// Where the load generator runs: the machine has 2 cores. With autocannon in the server's own
// event loop (`inprocess`) the two compete for one thread and the numbers mostly measure that
// contention; in a worker thread (autocannon's `workers: 1`) the generator gets its own thread
// and the server's loop is the server's alone. Measured on the 2-core development machine (32
// connections, 5 s, two interleaved runs each, requests/s):
//   worker:    health 7916 / 6844, token  992 / 1680, E10  955 / 1183
//   inprocess: health 3550 / 3512, token  834 /  731, E10 1082 /  963  (p99 about twice as high)
// The worker thread roughly doubles the floor and never loses by more than noise, so it is the
// default. Server, PostgreSQL and generator still share 2 cores: these are lower bounds of what
// a separate client machine would see, and other load on the machine shows up in them.
import { writeReport } from './report.ts';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { pino } from 'pino';
import { Agent, request as undiciRequest } from 'undici';
import { buildApp, type BuiltApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, withTransaction, type Db } from '../src/db/pool.ts';
import { systemClock, type Deps } from '../src/http/types.ts';
import { emitEvent } from '../src/jobs/outbox.ts';
import { migrateQueue, startWorker } from '../src/jobs/queue.ts';
import { randomDigits } from '../src/lib/ids.ts';
import { insertPaymentRequest } from '../src/modules/collections/repository.ts';
import { createMerchant, type MerchantCredentials } from '../src/modules/merchants/service.ts';
import { samplePayload } from '../src/modules/webhooks/payloads.ts';
import { addWebhook } from '../src/modules/webhooks/service.ts';
import { benchAnalytics } from './analytics.ts';
import { benchDisbursements } from './disbursements.ts';
import { benchFiles } from './files.ts';
import { adminQuery, log, round1, withDatabase } from './common.ts';

const WARMUP_SECONDS = 2;
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 32);
const DURATION_SECONDS = positiveInt('BENCH_SECONDS', 10);
const LOAD_GENERATORS = ['worker', 'inprocess'] as const;
type LoadGenerator = (typeof LOAD_GENERATORS)[number];
const LOAD_GENERATOR = loadGenerator();
const PARTS = ['http', 'webhooks', 'collections', 'disbursements', 'files', 'analytics'] as const;
type Part = (typeof PARTS)[number];
const ONLY = benchOnly();
const runs = (part: Part) => ONLY === undefined || ONLY === part;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,6}$/.test(raw.trim()) || Number(raw) < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return Number(raw);
}

function loadGenerator(): LoadGenerator {
  const raw = process.env.BENCH_LOAD_GENERATOR ?? 'worker';
  if (!(LOAD_GENERATORS as readonly string[]).includes(raw)) throw new Error(`BENCH_LOAD_GENERATOR must be one of ${LOAD_GENERATORS.join(', ')}, got "${raw}"`);
  return raw as LoadGenerator;
}

function benchOnly(): Part | undefined {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!(PARTS as readonly string[]).includes(raw.trim())) throw new Error(`BENCH_ONLY must be one of ${PARTS.join(', ')}, got "${raw}"`);
  return raw.trim() as Part;
}

/** Databases of interrupted runs (names carry their birth time) at least an hour old. */
async function dropStaleDatabases(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname ~ '^onekhusa_bench_[0-9]+$'`);
    const hourAgoMs = Date.now() - 3_600_000;
    for (const { datname } of rows) {
      if (Number(datname.slice('onekhusa_bench_'.length)) >= hourAgoMs) continue;
      await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
      log(`dropped ${datname}, left behind by an interrupted run`);
    }
  } finally {
    await client.end();
  }
}

interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

async function load(baseUrl: string, target: Target, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: baseUrl + target.path,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
    duration: seconds,
    ...(LOAD_GENERATOR === 'worker' ? { workers: 1 } : {}),
  });
}

async function measure(name: string, baseUrl: string, target: Target): Promise<Measured> {
  log(`${name}: warming up ${WARMUP_SECONDS} s`);
  await load(baseUrl, target, WARMUP_SECONDS);
  log(`${name}: measuring ${DURATION_SECONDS} s with ${CONNECTIONS} connections`);
  const r = await load(baseUrl, target, DURATION_SECONDS);
  const measured = { requestsPerSecond: round1(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  log(`${name}: ${JSON.stringify(measured)}`);
  return measured;
}

/** Milliseconds from spawning `src/server.ts` until /health/ready answers 200, then SIGTERM. */
async function timeStart(dataDir: string, port: number): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} during start-up`);
      if (performance.now() - started > 60_000) throw new Error('server not ready within 60 s');
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ready) return Math.round(performance.now() - started);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** `npm start` on the embedded database: first start (initdb, migrations, demo) and a restart. */
async function measureStartup(): Promise<{ firstStartMs: number; restartMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-bench-start-'));
  try {
    const port = 18_000 + Math.floor(Math.random() * 2000);
    log('start-up: first start on an empty data directory');
    const firstStartMs = await timeStart(dataDir, port);
    log('start-up: restart on the initialised data directory');
    const restartMs = await timeStart(dataDir, port);
    return { firstStartMs, restartMs };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The HTTP benches (autocannon) and start-up: the report's fields before `webhooks`. */
async function benchHttp(deps: Deps, built: BuiltApp, embedded: boolean) {
  const { config } = deps;
  const address = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = address.replace(/\/$/, '');
  log(`app listening on ${baseUrl}; load generator: ${LOAD_GENERATOR}`);

  const merchant = await createMerchant(deps, { accountName: 'Bench Shop', capturedBy: 'bench' });
  const credentials = JSON.stringify({ apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, organisationId: merchant.organisationId, merchantAccountNumber: merchant.merchantAccountNumber });
  const tokenRes = await fetch(`${baseUrl}/sandbox/v1/account/getAccessToken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials, signal: AbortSignal.timeout(15_000) });
  if (!tokenRes.ok) throw new Error(`token request failed: HTTP ${tokenRes.status} ${await tokenRes.text()}`);
  // Valid 5 minutes: enough for the E10 run, which starts well within that.
  const { accessToken } = (await tokenRes.json()) as { accessToken: string };

  // The same E10 read with the limits cache off (READ_CACHE_MS=0): one query per request.
  const uncached = await buildApp({ ...deps, config: { ...config, readCacheMs: 0 } });
  const uncachedUrl = (await uncached.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
  const e10: Target = {
    method: 'GET',
    path: `/sandbox/v1/merchants/limits/getAll?merchantAccountNumber=${merchant.merchantAccountNumber}`,
    headers: { authorization: `Bearer ${accessToken}` },
  };

  const results = {
    healthLive: await measure('healthLive', baseUrl, { method: 'GET', path: '/health/live' }),
    accessToken: await measure('accessToken', baseUrl, { method: 'POST', path: '/sandbox/v1/account/getAccessToken', headers: { 'content-type': 'application/json' }, body: credentials }),
    e10Limits: await measure('e10Limits', baseUrl, e10),
    e10LimitsUncached: await measure('e10LimitsUncached', uncachedUrl, e10),
  };
  await uncached.app.close();
  const startup = await measureStartup();
  return {
    connections: CONNECTIONS,
    durationSeconds: DURATION_SECONDS,
    loadGenerator: LOAD_GENERATOR === 'worker' ? 'autocannon in a worker thread' : 'autocannon in the server process',
    database: embedded ? 'embedded PostgreSQL' : 'DATABASE_URL',
    results,
    startup,
    e10VsFloorPercent: results.healthLive.requestsPerSecond > 0 ? round1((results.e10Limits.requestsPerSecond / results.healthLive.requestsPerSecond) * 100) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Webhooks: the in-process worker (graphile-worker and the dispatcher, as `npm run worker` runs
// them) against local node:http receivers in this same process, so arrival and commit times are
// read from one clock (performance.now()).

const LATENCY_WARMUP_EVENTS = 20;
const LATENCY_EVENTS = 300;
const LATENCY_SPACING_MS = 10;
const THROUGHPUT_EVENTS = 5000;
const THROUGHPUT_TRANSACTIONS = 5;
const ISOLATION_EVENTS = 200;
const ISOLATION_TIMEOUT_MS = 2000;

interface Receiver {
  url: string;
  /** Requests received, duplicates included. */
  hits: number;
  /** Distinct webhook-id headers seen. */
  readonly ids: Set<string>;
  /** performance.now() at the first request, and when each distinct delivery arrived (by payload benchSeq). */
  firstAt: number | undefined;
  readonly arrivals: Map<number, number>;
  /** Resolves with the arrival time of the n-th distinct delivery. */
  distinct(n: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** `fast` answers 204 as soon as the (small) body is in; `hang` reads the request and never answers. */
async function startReceiver(kind: 'fast' | 'hang'): Promise<Receiver> {
  const waiters: { n: number; resolve: (at: number) => void }[] = [];
  const server = http.createServer((req, res) => {
    const at = performance.now();
    receiver.hits += 1;
    receiver.firstAt ??= at;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!receiver.ids.has(id)) {
        receiver.ids.add(id);
        const seq = (JSON.parse(Buffer.concat(chunks).toString()) as { benchSeq?: number }).benchSeq;
        if (typeof seq === 'number') receiver.arrivals.set(seq, at);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (receiver.ids.size >= waiters[i].n) {
            waiters[i].resolve(at);
            waiters.splice(i, 1);
          }
        }
      }
      if (kind === 'fast') res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/${kind}`,
    hits: 0,
    ids: new Set(),
    firstAt: undefined,
    arrivals: new Map(),
    distinct: (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (receiver.ids.size >= n) {
          resolve(performance.now());
          return;
        }
        const timer = setTimeout(() => reject(new Error(`${kind} receiver: ${receiver.ids.size} of ${n} deliveries within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return receiver;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A merchant subscribed to payment.success at `callbackUrl`. */
async function subscribedMerchant(deps: Deps, name: string, callbackUrl: string): Promise<MerchantCredentials> {
  const merchant = await createMerchant(deps, { accountName: name, capturedBy: 'bench' });
  await addWebhook(deps, { merchantAccountNumber: merchant.merchantAccountNumber, eventCode: 'payment.success', callbackUrl, capturedBy: 'bench@example.mw' });
  return merchant;
}

function payload(merchant: MerchantCredentials, benchSeq: number): object {
  return { ...samplePayload('payment.success', merchant.merchantAccountNumber, merchant.paymentAccountNumber, new Date()), benchSeq };
}

/** `count` events in one transaction on its own connection, committed only when `commit` is called. */
async function openTransaction(db: Db, merchant: MerchantCredentials, firstSeq: number, count: number): Promise<{ commit(): Promise<void> }> {
  const client = await db.connect();
  try {
    await client.query('begin');
    for (let i = 0; i < count; i++) await emitEvent(client, merchant.merchantAccountNumber, 'payment.success', payload(merchant, firstSeq + i));
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    client.release();
    throw err;
  }
  return {
    commit: async () => {
      try {
        await client.query('commit');
      } finally {
        client.release();
      }
    },
  };
}

async function deliveryStates(db: Db, merchant: MerchantCredentials) {
  const { rows } = await db.query<{ total: number; succeeded: number; retried: number; attempts: number }>(
    `select count(*)::int as total,
            count(*) filter (where status = 'succeeded')::int as succeeded,
            count(*) filter (where total_attempts > 1)::int as retried,
            coalesce(sum(total_attempts), 0)::int as attempts
       from webhook_deliveries where merchant_account_number = $1`,
    [merchant.merchantAccountNumber],
  );
  return rows[0];
}

/** Event committed → request at the receiver, one event at a time. */
async function benchLatency(deps: Deps) {
  const receiver = await startReceiver('fast');
  try {
    const merchant = await subscribedMerchant(deps, 'Bench Latency', receiver.url);
    const emit = (seq: number) => withTransaction(deps.db, (tx) => emitEvent(tx, merchant.merchantAccountNumber, 'payment.success', payload(merchant, seq)));
    log(`webhooks latency: ${LATENCY_WARMUP_EVENTS} warm-up events, then ${LATENCY_EVENTS} measured, ${LATENCY_SPACING_MS} ms apart`);
    for (let i = 0; i < LATENCY_WARMUP_EVENTS; i++) {
      await emit(-1 - i);
      await sleep(LATENCY_SPACING_MS);
    }
    await receiver.distinct(LATENCY_WARMUP_EVENTS, 30_000);
    const committedAt = new Map<number, number>();
    for (let seq = 0; seq < LATENCY_EVENTS; seq++) {
      await emit(seq);
      committedAt.set(seq, performance.now());
      await sleep(LATENCY_SPACING_MS);
    }
    await receiver.distinct(LATENCY_WARMUP_EVENTS + LATENCY_EVENTS, 30_000);
    const samples = [...committedAt].map(([seq, at]) => receiver.arrivals.get(seq)! - at).sort((a, b) => a - b);
    const latencyMs = { p50: round1(percentile(samples, 50)), p99: round1(percentile(samples, 99)), max: round1(samples[samples.length - 1]), samples: samples.length };
    log(`webhooks latency: ${JSON.stringify(latencyMs)}`);
    return latencyMs;
  } finally {
    await receiver.close();
  }
}

/** N events committed at once (a few transactions), then the time until all have arrived. */
async function benchThroughput(deps: Deps) {
  const receiver = await startReceiver('fast');
  try {
    const merchant = await subscribedMerchant(deps, 'Bench Throughput', receiver.url);
    log(`webhooks throughput: emitting ${THROUGHPUT_EVENTS} events in ${THROUGHPUT_TRANSACTIONS} open transactions`);
    const perTransaction = THROUGHPUT_EVENTS / THROUGHPUT_TRANSACTIONS;
    const emitStarted = performance.now();
    const transactions = await Promise.all(Array.from({ length: THROUGHPUT_TRANSACTIONS }, (_, i) => openTransaction(deps.db, merchant, i * perTransaction, perTransaction)));
    const emitSeconds = (performance.now() - emitStarted) / 1000;
    log(`webhooks throughput: emitted in ${emitSeconds.toFixed(2)} s; committing and measuring`);
    const started = performance.now();
    await Promise.all(transactions.map((tx) => tx.commit()));
    const lastArrival = await receiver.distinct(THROUGHPUT_EVENTS, 120_000);
    const seconds = (lastArrival - started) / 1000;
    // Every attempt recorded as succeeded, and no late duplicates.
    let states = await deliveryStates(deps.db, merchant);
    for (const deadline = performance.now() + 30_000; states.succeeded < THROUGHPUT_EVENTS && performance.now() < deadline; ) {
      await sleep(50);
      states = await deliveryStates(deps.db, merchant);
    }
    await sleep(500);
    const throughput = {
      deliveries: receiver.ids.size,
      seconds: Math.round(seconds * 1000) / 1000,
      deliveriesPerSecond: round1(THROUGHPUT_EVENTS / seconds),
      duplicates: receiver.hits - receiver.ids.size,
      succeededInDatabase: states.succeeded,
      deliveriesInDatabase: states.total,
      retriedInDatabase: states.retried,
      allSucceeded: states.succeeded === THROUGHPUT_EVENTS && states.total === THROUGHPUT_EVENTS,
      emitSeconds: Math.round(emitSeconds * 1000) / 1000,
      transactions: THROUGHPUT_TRANSACTIONS,
    };
    log(`webhooks throughput: ${JSON.stringify(throughput)}`);
    return throughput;
  } finally {
    await receiver.close();
  }
}

/** A receiver that never answers gets its events first; the fast one's must not wait for its timeouts. */
async function benchIsolation(deps: Deps) {
  const hanging = await startReceiver('hang');
  const fast = await startReceiver('fast');
  const worker = await startWorker(deps, 2);
  try {
    const hangingMerchant = await subscribedMerchant(deps, 'Bench Hanging', hanging.url);
    const fastMerchant = await subscribedMerchant(deps, 'Bench Fast', fast.url);
    log(`webhooks isolation: ${ISOLATION_EVENTS} events to a receiver that never answers (timeout ${deps.config.webhookTimeoutMs} ms), then ${ISOLATION_EVENTS} to a fast one`);
    const toHanging = await openTransaction(deps.db, hangingMerchant, 0, ISOLATION_EVENTS);
    const toFast = await openTransaction(deps.db, fastMerchant, 0, ISOLATION_EVENTS);
    const hangingCommitted = performance.now();
    await toHanging.commit();
    // The hanging receiver has its first requests (the dispatcher is busy with it) before the fast one's events exist.
    await hanging.distinct(1, 10_000);
    const fastCommitStarted = performance.now();
    await toFast.commit();
    const fastDone = await fast.distinct(ISOLATION_EVENTS, 60_000);
    const firstTimeoutAt = (hanging.firstAt ?? hangingCommitted) + deps.config.webhookTimeoutMs;
    const { rows: claimedRows } = await deps.db.query<{ n: number; attempts: number }>(
      `select count(*) filter (where locked_until is not null)::int as n, coalesce(sum(total_attempts), 0)::int as attempts from webhook_deliveries where merchant_account_number = $1`,
      [hangingMerchant.merchantAccountNumber],
    );
    const hangingLeasedAtFastDone = claimedRows[0].n;
    const isolation = {
      hangingEvents: ISOLATION_EVENTS,
      fastEvents: ISOLATION_EVENTS,
      timeoutMs: deps.config.webhookTimeoutMs,
      concurrency: deps.config.webhookConcurrency,
      perHostConcurrency: deps.config.webhookPerHostConcurrency,
      fastAllDeliveredMs: round1(fastDone - fastCommitStarted),
      hangingFirstRequestToFastDoneMs: round1(fastDone - (hanging.firstAt ?? hangingCommitted)),
      hangingRequestsInFlightAtFastDone: hanging.hits,
      hangingLeasedAtFastDone,
      fastFinishedBeforeFirstTimeout: fastDone < firstTimeoutAt,
    };
    log(`webhooks isolation: ${JSON.stringify(isolation)}`);
    return isolation;
  } finally {
    await worker.stop();
    await hanging.close();
    await fast.close();
  }
}

async function benchWebhooks(deps: Deps) {
  const worker = await startWorker(deps, 2);
  let latencyMs;
  let throughput;
  try {
    latencyMs = await benchLatency(deps);
    throughput = await benchThroughput(deps);
  } finally {
    await worker.stop();
  }
  // Shorter attempt timeout so the bench does not wait 15 s; the lease must stay longer.
  const isolation = await benchIsolation({ ...deps, config: { ...deps.config, webhookTimeoutMs: ISOLATION_TIMEOUT_MS, webhookLeaseMs: ISOLATION_TIMEOUT_MS + 15_000 } });
  return {
    worker: `in process: dispatcher concurrency ${deps.config.webhookConcurrency}, per host ${deps.config.webhookPerHostConcurrency}; receivers in the same process`,
    latencyMs,
    throughput,
    isolation,
  };
}

// ---------------------------------------------------------------------------------------------
// Collections: E12 (request to pay) under load, the same transaction sent straight through
// node-postgres as the ceiling it is measured against, 1,000 concurrent E12s, and racing
// payments of one timed account. The app runs with the rate limit off (RATE_LIMIT_PER_SECOND=0).

const COLLECTION_MERCHANTS = 50;
const COLLECTION_AMOUNT = '1500.00';
const COLLECTION_AMOUNT_MINOR = 150_000;
const COLLECTION_DESCRIPTION = 'Bench request to pay';
const COLLECTION_CAPTURED_BY = 'bench@example.mw';
const E12_PATH = '/sandbox/v1/collections/requestToPay/initiate';
const PAY_PATH = '/sandbox/v1/collections/requestToPay/addFakeTransaction';
const PAY_CONNECTOR_ID = 112400;
const IDEMPOTENT_SECONDS = Math.min(5, DURATION_SECONDS);
const ROUND_TRIP_PROBE_REQUESTS = 200;
const BURST_REQUESTS = 1000;
const RACE_ACCOUNTS = 20;
const RACE_PAYERS = 10;

/**
 * autocannon's setupRequest as a file (in a worker thread autocannon takes functions only by
 * path). Every request gets a reference no other request has (a random prefix per load run and a
 * counter shared by the run's connections) and, where the template has one, a fresh idempotency key.
 */
const SETUP_REQUEST_SOURCE = `'use strict';
const prefix = require('node:crypto').randomBytes(5).toString('hex');
let n = 0;
module.exports = function setupRequest(req) {
  n += 1;
  const seq = n.toString(36);
  req.body = req.body.replace('@REF@', 'B' + prefix + seq);
  // A new headers object: the one autocannon passes in is shared with the template, and a key
  // written into it would be sent again with every later request of that template.
  if (req.headers['x-idempotency-key'] !== undefined) req.headers = { ...req.headers, 'x-idempotency-key': 'bench-' + prefix + '-' + seq };
  return req;
};
`;

/** autocannon's onResponse as a file: the first few non-2xx answers, kept for the report. */
const ON_RESPONSE_SOURCE = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
let kept = 0;
module.exports = function onResponse(status, body) {
  if (status >= 200 && status < 300) return;
  if (kept >= 20) return;
  kept += 1;
  fs.appendFileSync(path.join(__dirname, 'non2xx.log'), JSON.stringify({ status, body: String(body).slice(0, 600) }) + '\\n');
};
`;

// CPU time from /proc (Linux): this process's main thread (the server's event loop, or the
// node-postgres driver in the baseline), its other threads (autocannon's worker, GC, libuv), the
// PostgreSQL server's processes (when it runs on this machine) and everything else on the machine.

interface CpuSample {
  at: number;
  mainThread: number;
  process: number;
  postgres: Map<number, number>;
  machineBusy: number;
}

function statFields(file: string): string[] | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8');
    // Fields after "pid (comm)": state is field 3, ppid 4, utime 14, stime 15.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const cpuTicks = (fields: string[] | undefined) => (fields ? Number(fields[11]) + Number(fields[12]) : 0);

function cpuSample(postmasterPid: number | undefined): CpuSample {
  const postgres = new Map<number, number>();
  if (postmasterPid !== undefined) {
    postgres.set(postmasterPid, cpuTicks(statFields(`/proc/${postmasterPid}/stat`)));
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = statFields(`/proc/${entry}/stat`);
      if (fields && Number(fields[1]) === postmasterPid) postgres.set(Number(entry), cpuTicks(fields));
    }
  }
  let machineBusy = 0;
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    machineBusy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + (cpu[7] ?? 0);
  } catch {
    machineBusy = Number.NaN;
  }
  return { at: performance.now(), mainThread: cpuTicks(statFields(`/proc/self/task/${process.pid}/stat`)), process: cpuTicks(statFields('/proc/self/stat')), postgres, machineBusy };
}

/** Percent of one core over the interval (the machine has os.cpus().length of them); USER_HZ is 100. */
function cpuSplit(before: CpuSample, after: CpuSample) {
  const seconds = (after.at - before.at) / 1000;
  const percent = (ticks: number) => round1(ticks / seconds);
  let postgres = 0;
  for (const [pid, ticks] of after.postgres) postgres += ticks - (before.postgres.get(pid) ?? 0);
  const ours = after.process - before.process + postgres;
  return {
    unit: `percent of one core (${os.cpus().length} cores)`,
    nodeMainThread: percent(after.mainThread - before.mainThread),
    nodeOtherThreads: percent(after.process - before.process - (after.mainThread - before.mainThread)),
    postgres: after.postgres.size > 0 ? percent(postgres) : null,
    otherProcesses: Number.isNaN(after.machineBusy) ? null : percent(Math.max(0, after.machineBusy - before.machineBusy - ours)),
  };
}

/** The PostgreSQL server's postmaster, when it runs on this machine and its data directory is readable. */
async function findPostmaster(db: Db): Promise<number | undefined> {
  try {
    const { rows } = await db.query<{ data_directory: string }>('show data_directory');
    const pid = Number(fs.readFileSync(path.join(rows[0].data_directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && fs.existsSync(`/proc/${pid}/stat`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

interface CollectionMerchant {
  merchantAccountNumber: number;
  credentials: string;
}

async function accessTokens(baseUrl: string, merchants: CollectionMerchant[]): Promise<string[]> {
  return Promise.all(
    merchants.map(async (m) => {
      const res = await fetch(`${baseUrl}/sandbox/v1/account/getAccessToken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: m.credentials, signal: AbortSignal.timeout(15_000) });
      if (!res.ok) throw new Error(`token request failed: HTTP ${res.status} ${await res.text()}`);
      return ((await res.json()) as { accessToken: string }).accessToken;
    }),
  );
}

function e12Body(merchantAccountNumber: number, referenceNumber: string): string {
  return JSON.stringify({ merchantAccountNumber, transactionAmount: COLLECTION_AMOUNT, transactionDescription: COLLECTION_DESCRIPTION, referenceNumber, capturedBy: COLLECTION_CAPTURED_BY });
}

/** One E12 template per merchant; every connection cycles through all of them. */
function e12Requests(merchants: CollectionMerchant[], tokens: string[], hooks: { setupRequest: string; onResponse: string }, idempotent: boolean): autocannon.Request[] {
  return merchants.map((m, i) => ({
    method: 'POST',
    path: E12_PATH,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[i]}`, ...(idempotent ? { 'x-idempotency-key': '@KEY@' } : {}) },
    body: e12Body(m.merchantAccountNumber, '@REF@'),
    ...hooks,
  }));
}

/** The shared-insert histogram's count and sum, from the app's /metrics. */
async function batchRowsMetric(baseUrl: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
  const value = (suffix: string) => Number(new RegExp(`^db_batched_statement_rows_${suffix}\\{statement="insert_payment_requests"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

async function countRequests(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from payment_requests');
  return rows[0].n;
}

/** E12 under autocannon: warm-up, then measured with CPU split and a row count as a cross-check. */
/** Distinct non-2xx answers the onResponse hook kept (status, errorCode, detail), at most five. */
function non2xxSamples(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  const samples = new Set<string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { status, body } = JSON.parse(line) as { status: number; body: string };
    let text = body;
    try {
      const problem = JSON.parse(body) as { errorCode?: string; detail?: string };
      text = `${problem.errorCode ?? ''} ${problem.detail ?? ''}`;
    } catch {
      // not JSON: kept as it is
    }
    samples.add(`${status} ${text}`.slice(0, 200));
  }
  return [...samples].slice(0, 5);
}

async function measureE12(name: string, deps: Deps, postmaster: number | undefined, baseUrl: string, requests: autocannon.Request[], seconds: number, non2xxLog: string) {
  const run = (s: number) =>
    autocannon({ url: baseUrl, requests, connections: CONNECTIONS, duration: s, ...(LOAD_GENERATOR === 'worker' ? { workers: 1 } : {}) });
  log(`${name}: warming up ${WARMUP_SECONDS} s`);
  await run(WARMUP_SECONDS);
  log(`${name}: measuring ${seconds} s with ${CONNECTIONS} connections over ${requests.length} merchants`);
  fs.rmSync(non2xxLog, { force: true });
  const rowsBefore = await countRequests(deps.db);
  const before = cpuSample(postmaster);
  const r = await run(seconds);
  const after = cpuSample(postmaster);
  await sleep(200);
  const rowsInserted = (await countRequests(deps.db)) - rowsBefore;
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  const measured = {
    requestsPerSecond: round1(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    ...(r.non2xx > 0 ? { non2xxSamples: non2xxSamples(non2xxLog) } : {}),
    rowsInserted,
    seconds,
    cpu: cpuSplit(before, after),
  };
  log(`${name}: ${JSON.stringify(measured)}`);
  return measured;
}

/**
 * E12's transaction through node-postgres alone: the statements createPaymentRequest sends, each
 * through the repository function that sends it (so the SQL stays E12's), in one transaction on
 * a pooled client, without HTTP, Fastify, authentication or the service's checks.
 */
async function baselineTransaction(db: Db, merchantAccountNumber: number, referenceNumber: string, expiryMinutes: number): Promise<void> {
  // E12 without an idempotency key is this one statement (merchant check, limits, insert), sent
  // on its own: an implicit transaction.
  for (let attempt = 0; ; attempt++) {
    const outcome = await insertPaymentRequest(db, {
      merchantAccountNumber,
      timedAccountNumber: randomDigits(8, '1'),
      amountMinor: COLLECTION_AMOUNT_MINOR,
      transactionDescription: COLLECTION_DESCRIPTION,
      referenceNumber,
      capturedBy: COLLECTION_CAPTURED_BY,
      expiryMinutes,
    });
    if (outcome.request) return;
    if (attempt >= 19) throw new Error('no free timed account number in 20 attempts');
  }
}
/** What baselineTransaction sends, for the report (the round-trip probe shows what E12 sends). */
const BASELINE_STATEMENTS = ['insertPaymentRequest (one statement: merchant for share, RTP limits, insert … on conflict do nothing)'];

/** `concurrency` loops each running `one` back to back until the deadline; what finished in time counts. */
async function closedLoop(concurrency: number, seconds: number, one: () => Promise<void>) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await one();
          const t1 = performance.now();
          if (t1 <= deadline) latencies.push(t1 - t0);
        } catch (err) {
          errors += 1;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, seconds: (performance.now() - started) / 1000, latencies, errors, firstError };
}

async function measureBaseline(databaseUrl: string, deps: Deps, postmaster: number | undefined, merchants: CollectionMerchant[]) {
  const pool = createPool(databaseUrl, CONNECTIONS);
  const prefix = randomBytes(5).toString('hex');
  let seq = 0;
  const one = () => {
    seq += 1;
    return baselineTransaction(pool, merchants[seq % merchants.length].merchantAccountNumber, `P${prefix}${seq.toString(36)}`, deps.config.timedAccountMinutes);
  };
  try {
    log(`postgresBaseline: warming up ${WARMUP_SECONDS} s`);
    await closedLoop(CONNECTIONS, WARMUP_SECONDS, one);
    log(`postgresBaseline: measuring ${DURATION_SECONDS} s with ${CONNECTIONS} clients in one pool`);
    const before = cpuSample(postmaster);
    const r = await closedLoop(CONNECTIONS, DURATION_SECONDS, one);
    const after = cpuSample(postmaster);
    const measured = {
      transactionsPerSecond: round1(r.count / r.seconds),
      p50Ms: round1(percentile(r.latencies, 50)),
      p99Ms: round1(percentile(r.latencies, 99)),
      errors: r.errors,
      ...(r.firstError ? { firstError: r.firstError } : {}),
      clients: CONNECTIONS,
      seconds: DURATION_SECONDS,
      statements: BASELINE_STATEMENTS,
      cpu: cpuSplit(before, after),
    };
    log(`postgresBaseline: ${JSON.stringify(measured)}`);
    return measured;
  } finally {
    await pool.end();
  }
}

/**
 * Statements per request and time spent waiting on them, one request at a time: every
 * node-postgres query of the process is counted while the probe runs (the app is otherwise idle).
 */
async function probeRoundTrips(baseUrl: string, merchants: CollectionMerchant[], tokens: string[], idempotent: boolean) {
  const statements = new Map<string, { count: number; ms: number }>();
  let queries = 0;
  let dbMs = 0;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; name?: string };
    const text = typeof config === 'string' ? config : (config.name ?? config.text ?? '?');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 48);
    const entry = statements.get(key) ?? { count: 0, ms: 0 };
    statements.set(key, entry);
    entry.count += 1;
    queries += 1;
    const started = performance.now();
    const done = () => {
      const ms = performance.now() - started;
      dbMs += ms;
      entry.ms += ms;
    };
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (...a: unknown[]) => void;
      args[last] = (...a: unknown[]) => {
        done();
        callback(...a);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  const agent = new Agent({ connections: 1 });
  const prefix = randomBytes(5).toString('hex');
  const latencies: number[] = [];
  let failed = 0;
  try {
    for (let i = 0; i < ROUND_TRIP_PROBE_REQUESTS; i++) {
      const m = i % merchants.length;
      const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${tokens[m]}` };
      if (idempotent) headers['x-idempotency-key'] = `probe-${prefix}-${i.toString().padStart(6, '0')}`;
      const t0 = performance.now();
      const res = await undiciRequest(baseUrl + E12_PATH, { method: 'POST', headers, body: e12Body(merchants[m].merchantAccountNumber, `R${prefix}${i}`), dispatcher: agent });
      await res.body.text();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) failed += 1;
    }
  } finally {
    proto.query = original;
    await agent.close();
  }
  latencies.sort((a, b) => a - b);
  const n = ROUND_TRIP_PROBE_REQUESTS;
  const meanMs = latencies.reduce((a, b) => a + b, 0) / n;
  return {
    requests: n,
    failed,
    queriesPerRequest: round1(queries / n),
    // Per statement: how many per request, and the mean milliseconds from sending it to its answer.
    statements: Object.fromEntries([...statements].map(([k, v]) => [k, { perRequest: Math.round((v.count / n) * 100) / 100, meanMs: Math.round((v.ms / v.count) * 100) / 100 }])),
    meanLatencyMs: Math.round(meanMs * 100) / 100,
    meanDbWaitMs: Math.round((dbMs / n) * 100) / 100,
    meanOutsideDbMs: Math.round((meanMs - dbMs / n) * 100) / 100,
  };
}

interface Answer {
  status: number;
  body: string;
}

async function post(agent: Agent, url: string, token: string, body: string): Promise<Answer> {
  try {
    const res = await undiciRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body, dispatcher: agent });
    return { status: res.statusCode, body: await res.body.text() };
  } catch (err) {
    return { status: 0, body: (err as Error).message };
  }
}

/** "200", or "402 E921" for a problem answer, or "0" for a transport error. */
function outcome(a: Answer): string {
  if (a.status === 200 || a.status === 0) return String(a.status);
  try {
    return `${a.status} ${(JSON.parse(a.body) as { errorCode?: string }).errorCode ?? ''}`.trim();
  } catch {
    return String(a.status);
  }
}

function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[outcome(a)] = (counts[outcome(a)] ?? 0) + 1;
  return counts;
}

/** 1,000 E12 requests at once over real HTTP (one keep-alive connection each), across the merchants. */
async function burstE12(deps: Deps, baseUrl: string, merchants: CollectionMerchant[], tokens: string[]) {
  const agent = new Agent({ connections: BURST_REQUESTS, keepAliveTimeout: 30_000 });
  const prefix = randomBytes(5).toString('hex');
  const references = Array.from({ length: BURST_REQUESTS }, (_, i) => `C${prefix}${i}`);
  try {
    log(`concurrent1000: ${BURST_REQUESTS} E12 requests at once`);
    const started = performance.now();
    const answers = await Promise.all(references.map((ref, i) => post(agent, baseUrl + E12_PATH, tokens[i % merchants.length], e12Body(merchants[i % merchants.length].merchantAccountNumber, ref))));
    const seconds = (performance.now() - started) / 1000;
    const timed = answers.filter((a) => a.status === 200).map((a) => (JSON.parse(a.body) as { timedAccountNumber: string }).timedAccountNumber);
    const { rows } = await deps.db.query<{ n: number; accounts: number; open: number }>(
      `select count(*)::int as n, count(distinct timed_account_number)::int as accounts, count(*) filter (where status_code = 'O')::int as open
         from payment_requests where reference_number = any($1::text[])`,
      [references],
    );
    const { rows: matching } = await deps.db.query<{ n: number }>(`select count(*)::int as n from payment_requests where status_code = 'O' and timed_account_number = any($1::text[])`, [timed]);
    const result = {
      requests: BURST_REQUESTS,
      succeeded: timed.length,
      outcomes: tally(answers),
      distinctTimedAccountsInResponses: new Set(timed).size,
      rowsInDatabase: rows[0].n,
      distinctTimedAccountsInDatabase: rows[0].accounts,
      openInDatabase: rows[0].open,
      openRequestsHoldingTheAnsweredAccounts: matching[0].n,
      allSucceededAndDistinct: timed.length === BURST_REQUESTS && new Set(timed).size === BURST_REQUESTS && rows[0].accounts === BURST_REQUESTS && matching[0].n === BURST_REQUESTS,
      seconds: Math.round(seconds * 1000) / 1000,
    };
    log(`concurrent1000: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await agent.close();
  }
}

/** For each of RACE_ACCOUNTS timed accounts, RACE_PAYERS concurrent payments: exactly one may win. */
async function racePayments(deps: Deps, baseUrl: string, merchants: CollectionMerchant[], tokens: string[]) {
  const agent = new Agent({ connections: RACE_PAYERS * 2, keepAliveTimeout: 30_000 });
  const prefix = randomBytes(5).toString('hex');
  try {
    log(`racingPayments: ${RACE_ACCOUNTS} timed accounts, ${RACE_PAYERS} concurrent payments of each`);
    const accounts: { merchant: CollectionMerchant; token: string; timedAccountNumber: string }[] = [];
    for (let i = 0; i < RACE_ACCOUNTS; i++) {
      const m = i % merchants.length;
      const a = await post(agent, baseUrl + E12_PATH, tokens[m], e12Body(merchants[m].merchantAccountNumber, `D${prefix}${i}`));
      if (a.status !== 200) throw new Error(`E12 for the race failed: HTTP ${a.status} ${a.body}`);
      accounts.push({ merchant: merchants[m], token: tokens[m], timedAccountNumber: (JSON.parse(a.body) as { timedAccountNumber: string }).timedAccountNumber });
    }
    const all: Answer[] = [];
    let accountsWithOneWinner = 0;
    for (const account of accounts) {
      const body = JSON.stringify({
        merchantAccountNumber: account.merchant.merchantAccountNumber,
        transactionAmount: COLLECTION_AMOUNT,
        connectorId: PAY_CONNECTOR_ID,
        timedAccountNumber: account.timedAccountNumber,
        currencyCode: 'MWK',
        capturedBy: COLLECTION_CAPTURED_BY,
      });
      const answers = await Promise.all(Array.from({ length: RACE_PAYERS }, () => post(agent, baseUrl + PAY_PATH, account.token, body)));
      all.push(...answers);
      if (answers.filter((a) => a.status === 200).length === 1) accountsWithOneWinner += 1;
    }
    const { rows } = await deps.db.query<{ timed_account_number: string; status_code: string; collections: number }>(
      `select r.timed_account_number, r.status_code, count(c.collection_id)::int as collections
         from payment_requests r left join collections c on c.request_id = r.request_id
        where r.reference_number like $1 group by r.request_id`,
      [`D${prefix}%`],
    );
    const collectionsPerAccount: Record<string, number> = {};
    for (const row of rows) collectionsPerAccount[String(row.collections)] = (collectionsPerAccount[String(row.collections)] ?? 0) + 1;
    const result = {
      timedAccounts: RACE_ACCOUNTS,
      paymentsPerAccount: RACE_PAYERS,
      outcomes: tally(all),
      accountsWithExactlyOne200: accountsWithOneWinner,
      accountsByCollectionRows: collectionsPerAccount,
      accountsPaidInDatabase: rows.filter((r) => r.status_code === 'P').length,
      exactlyOnePaymentEach: accountsWithOneWinner === RACE_ACCOUNTS && rows.length === RACE_ACCOUNTS && rows.every((r) => r.collections === 1 && r.status_code === 'P'),
    };
    log(`racingPayments: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await agent.close();
  }
}

async function benchCollections(deps: Deps, databaseUrl: string) {
  log(`collections: creating ${COLLECTION_MERCHANTS} merchants`);
  const merchants: CollectionMerchant[] = [];
  for (let i = 0; i < COLLECTION_MERCHANTS; i++) {
    const m = await createMerchant(deps, { accountName: `Bench Collections ${i + 1}`, capturedBy: 'bench' });
    merchants.push({
      merchantAccountNumber: m.merchantAccountNumber,
      credentials: JSON.stringify({ apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }),
    });
  }
  const built = await buildApp({ ...deps, config: { ...deps.config, rateLimitPerSecond: 0 } });
  const setupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-bench-collections-'));
  const setupRequest = path.join(setupDir, 'setup-request.cjs');
  fs.writeFileSync(setupRequest, SETUP_REQUEST_SOURCE);
  const onResponse = path.join(setupDir, 'on-response.cjs');
  fs.writeFileSync(onResponse, ON_RESPONSE_SOURCE);
  const hooks = { setupRequest, onResponse };
  const non2xxLog = path.join(setupDir, 'non2xx.log');
  try {
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const postmaster = await findPostmaster(deps.db);
    log(`collections: app listening on ${baseUrl} (rate limit off); PostgreSQL postmaster ${postmaster ?? 'not on this machine or not readable'}`);
    // Tokens last 5 minutes: fetched again before each part.
    let tokens = await accessTokens(baseUrl, merchants);

    const postgresBaseline = await measureBaseline(databaseUrl, deps, postmaster, merchants);
    tokens = await accessTokens(baseUrl, merchants);
    const batchesBefore = await batchRowsMetric(baseUrl);
    const e12Run = await measureE12('e12', deps, postmaster, baseUrl, e12Requests(merchants, tokens, hooks, false), DURATION_SECONDS, non2xxLog);
    const batchesAfter = await batchRowsMetric(baseUrl);
    const e12 = { ...e12Run, batchRows: { statements: batchesAfter.count - batchesBefore.count, meanRowsPerStatement: round1((batchesAfter.sum - batchesBefore.sum) / Math.max(1, batchesAfter.count - batchesBefore.count)) } };
    const oneByOne = await buildApp({ ...deps, config: { ...deps.config, rateLimitPerSecond: 0, initiateBatchRows: 1 } });
    let e12OneByOne: Awaited<ReturnType<typeof measureE12>>;
    try {
      const oneByOneUrl = (await oneByOne.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
      e12OneByOne = await measureE12('e12OneByOne', deps, postmaster, oneByOneUrl, e12Requests(merchants, tokens, hooks, false), IDEMPOTENT_SECONDS, non2xxLog);
    } finally {
      await oneByOne.app.close();
    }
    tokens = await accessTokens(baseUrl, merchants);
    const e12Idempotent = await measureE12('e12Idempotent', deps, postmaster, baseUrl, e12Requests(merchants, tokens, hooks, true), IDEMPOTENT_SECONDS, non2xxLog);

    tokens = await accessTokens(baseUrl, merchants);
    log(`roundTrips: ${ROUND_TRIP_PROBE_REQUESTS} E12 requests one at a time, without and with an idempotency key`);
    const roundTrips = {
      e12: await probeRoundTrips(baseUrl, merchants, tokens, false),
      e12Idempotent: await probeRoundTrips(baseUrl, merchants, tokens, true),
    };
    log(`roundTrips: ${JSON.stringify(roundTrips)}`);

    tokens = await accessTokens(baseUrl, merchants);
    const concurrent1000 = await burstE12(deps, baseUrl, merchants, tokens);
    tokens = await accessTokens(baseUrl, merchants);
    const racingPayments = await racePayments(deps, baseUrl, merchants, tokens);

    const percentOfBaseline = (rps: number) => (postgresBaseline.transactionsPerSecond > 0 ? round1((rps / postgresBaseline.transactionsPerSecond) * 100) : null);
    const e12VsBaselinePercent = percentOfBaseline(e12.requestsPerSecond);
    return {
      merchants: COLLECTION_MERCHANTS,
      connections: CONNECTIONS,
      appDbPoolSize: deps.config.dbPoolSize,
      rateLimit: 'off (RATE_LIMIT_PER_SECOND=0)',
      loadAverageAtEnd: os.loadavg().map(round1),
      e12,
      e12OneByOne,
      e12Idempotent,
      postgresBaseline,
      e12VsBaselinePercent,
      e12OneByOneVsBaselinePercent: percentOfBaseline(e12OneByOne.requestsPerSecond),
      roundTrips,
      concurrent1000,
      racingPayments,
      meetsTargets: {
        e12AtLeast1500PerSecond: e12.requestsPerSecond >= 1500,
        e12P99AtMost50Ms: e12.p99Ms <= 50,
        e12AtLeast60PercentOfBaseline: e12VsBaselinePercent !== null && e12VsBaselinePercent >= 60,
        concurrent1000AllSucceededDistinct: concurrent1000.allSucceededAndDistinct,
        exactlyOnePaymentPerTimedAccount: racingPayments.exactlyOnePaymentEach,
      },
    };
  } finally {
    await built.app.close();
    fs.rmSync(setupDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  let embedded: EmbeddedServer | undefined;
  let adminUrl = process.env.DATABASE_URL;
  let databaseName: string | undefined;
  let db: Db | undefined;
  let built: BuiltApp | undefined;
  try {
    if (!adminUrl) {
      log('starting embedded PostgreSQL under .bench-data/');
      embedded = await startEmbeddedPostgres(path.resolve('.bench-data'), log);
      adminUrl = embedded.connectionString;
    }
    await dropStaleDatabases(adminUrl);
    databaseName = `onekhusa_bench_${Date.now()}`;
    await adminQuery(adminUrl, `create database ${databaseName}`);
    const databaseUrl = withDatabase(adminUrl, databaseName);
    log(`database ${databaseName} created`);

    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      // High enough never to refuse, so the limiter's code path is measured but not its 429s.
      RATE_LIMIT_PER_SECOND: '1000000',
      JWT_SECRET: randomBytes(48).toString('base64url'),
      DB_POOL_SIZE: '20',
      // Every client of the bench is 127.0.0.1, and concurrent1000 holds 1,000 connections at once.
      MAX_CONNECTIONS_PER_ADDRESS: '4096',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    db = createPool(databaseUrl, config.dbPoolSize);
    await migrate(db);
    await migrateQueue(db);
    const deps: Deps = { db, config, clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };
    const report: Record<string, unknown> = { machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version } };
    if (runs('http')) {
      built = await buildApp(deps);
      Object.assign(report, await benchHttp(deps, built, embedded !== undefined));
      await built.app.close();
      built = undefined;
    } else {
      report.database = embedded ? 'embedded PostgreSQL' : 'DATABASE_URL';
    }
    if (runs('webhooks')) report.webhooks = await benchWebhooks(deps);
    if (runs('collections')) report.collections = await benchCollections(deps, databaseUrl);
    if (runs('disbursements')) report.disbursements = await benchDisbursements(adminUrl);
    if (runs('files')) report.files = await benchFiles(adminUrl);
    if (runs('analytics')) report.analytics = await benchAnalytics(adminUrl);
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    log(`written to ${writeReport(report, process.env.BENCH_ONLY?.trim() || undefined)} and its .md table`);
  } finally {
    // Each step on its own: a failure in one still lets the others run.
    await built?.app.close().catch((err: Error) => log(`closing the app failed: ${err.message}`));
    await db?.end().catch((err: Error) => log(`closing the pool failed: ${err.message}`));
    if (adminUrl && databaseName) {
      await adminQuery(adminUrl, `drop database if exists ${databaseName} with (force)`).then(
        () => log(`database ${databaseName} dropped`),
        (err: Error) => log(`dropping ${databaseName} failed: ${err.message}`),
      );
    }
    await embedded?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);

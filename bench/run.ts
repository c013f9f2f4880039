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
// Environment: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32), DATABASE_URL (an
// external server; otherwise an embedded one under .bench-data/), BENCH_LOAD_GENERATOR
// (`worker`, the default, or `inprocess`), BENCH_ONLY (`http` or `webhooks`: that part alone).
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
import { buildApp, type BuiltApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, withTransaction, type Db } from '../src/db/pool.ts';
import { systemClock, type Deps } from '../src/http/types.ts';
import { emitEvent } from '../src/jobs/outbox.ts';
import { migrateQueue, startWorker } from '../src/jobs/queue.ts';
import { createMerchant, type MerchantCredentials } from '../src/modules/merchants/service.ts';
import { samplePayload } from '../src/modules/webhooks/payloads.ts';
import { addWebhook } from '../src/modules/webhooks/service.ts';

const WARMUP_SECONDS = 2;
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 32);
const DURATION_SECONDS = positiveInt('BENCH_SECONDS', 10);
const LOAD_GENERATORS = ['worker', 'inprocess'] as const;
type LoadGenerator = (typeof LOAD_GENERATORS)[number];
const LOAD_GENERATOR = loadGenerator();
const PARTS = ['http', 'webhooks'] as const;
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

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
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

const round1 = (n: number) => Math.round(n * 10) / 10;

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
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
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

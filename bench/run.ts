// `npm run bench`: throughput and latency of the real app and service on real ports and fresh
// databases. Prints the JSON report to stdout (then, when the keyed part ran, its table of keyed /
// unkeyed pairs); progress goes to stderr. It measures and asserts nothing: non-2xx answers and
// connection errors are reported as counted, targets as `met` flags for reading only.
//
// The parts, in this order (each file's header says what it measures and how):
//   http           bench/parts/http.ts: health floor, token, E10 cached and uncached; start-up time
//   webhooks       bench/parts/webhooks.ts: delivery latency, throughput, isolation from a hanging receiver
//   collections    bench/parts/collections.ts: E12 against a node-postgres baseline, 1,000 at once, racing payments
//   keyed          bench/parts/keyed.ts: every idempotent write with and without X-Idempotency-Key, side by side
//   disbursements  bench/parts/disbursements.ts: a 50,000-line E8 batch through the service, to every line final
//   files          bench/parts/files.ts: CSV uploads of three merchants against a fourth one's reads
//   analytics      bench/parts/analytics.ts: E5 over 1,000,000 transactions
//   console        bench/parts/console.ts: the console's data functions and statement CSV for a merchant with 1,000,000 collections
//   consoleFiles   bench/parts/console-files.ts: a 50,000-line XLSX uploaded and validated through the console, next to the API
//   exports        bench/parts/exports.ts: the console's collections list as CSV and XLSX, 1,000,000 rows, streamed over HTTP
//   rails          bench/parts/rails.ts: a 10,000-line batch paid over Mojaloop (TTK as the switch) and to the simulated connector
//   rails-inbound  bench/parts/rails-inbound.ts: payments into timed accounts over Mojaloop (TTK, then a bare payer) and commit → webhook
//   docs           bench/parts/docs.ts: /docs in Chromium to its first operation, compressed and not
//   database       bench/parts/database.ts: E12 and E10 through PgBouncer vs direct, a list from a replica vs the primary, five failovers
// Shared helpers are in bench/lib: load generation (autocannon, hooks), percentiles, CPU and
// memory from /proc, databases and merchants, the service as a child process, the report files.
// http, webhooks, collections and keyed use the database this file creates (migrated, queue
// included); the others create their own on the same server.
//
// The report is also written to bench/results/results.json, with the targeted figures and the
// keyed pairs as a markdown table in bench/results/results.md (bench/lib/report.ts; BENCH_OUT_DIR
// moves them; a BENCH_ONLY run writes results-<part>.json and .md instead).
//
// Environment: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32), DATABASE_URL (an
// external server; otherwise an embedded one under .bench-data/), BENCH_LOAD_GENERATOR
// (`worker`, the default, or `inprocess`), BENCH_ONLY (one part's name: that part alone),
// BENCH_KEEP_DATABASE=1 (keep each part's database, to EXPLAIN queries on its data),
// BENCH_CITUS_WORKERS (host:port,…: DATABASE_URL is a Citus coordinator, and each part's database
// is made on the whole cluster, distributed; docs/scaling.md, "Measured on Citus").
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
// The machine is shared: cpu.otherProcesses shows how much of it other work took during a run.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, type Db } from '../src/db/pool.ts';
import { migrateQueue } from '../src/jobs/queue.ts';
import { log } from './lib/common.ts';
import { describeDatabase, type BenchContext } from './lib/context.ts';
import { benchDeps, createDatabase, dropDatabase, dropStaleDatabases } from './lib/db.ts';
import { LOAD_GENERATORS, type LoadGenerator } from './lib/load.ts';
import { writeReport } from './lib/report.ts';
import { benchAnalytics } from './parts/analytics.ts';
import { benchCollections } from './parts/collections.ts';
import { benchConsole } from './parts/console.ts';
import { benchConsoleFiles } from './parts/console-files.ts';
import { benchDisbursements } from './parts/disbursements.ts';
import { benchExports } from './parts/exports.ts';
import { benchDatabase } from './parts/database.ts';
import { benchDocs } from './parts/docs.ts';
import { benchFiles } from './parts/files.ts';
import { benchHttp } from './parts/http.ts';
import { benchKeyed, keyedTable } from './parts/keyed.ts';
import { benchRails } from './parts/rails.ts';
import { benchRailsInbound } from './parts/rails-inbound.ts';
import { benchWebhooks } from './parts/webhooks.ts';

/** Each part's report goes under its name; http's fields are the report's own (its first part). */
const PARTS = {
  http: benchHttp,
  webhooks: benchWebhooks,
  collections: benchCollections,
  keyed: benchKeyed,
  disbursements: benchDisbursements,
  files: benchFiles,
  analytics: benchAnalytics,
  console: benchConsole,
  consoleFiles: benchConsoleFiles,
  exports: benchExports,
  rails: benchRails,
  'rails-inbound': benchRailsInbound,
  docs: benchDocs,
  database: benchDatabase,
} satisfies Record<string, (ctx: BenchContext) => Promise<object>>;
type Part = keyof typeof PARTS;
const PART_NAMES = Object.keys(PARTS) as Part[];

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,6}$/.test(raw.trim()) || Number(raw) < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
  return Number(raw);
}

function oneOf<T extends string>(name: string, allowed: readonly T[], fallback?: T): T | undefined {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 32);
const SECONDS = positiveInt('BENCH_SECONDS', 10);
const GENERATOR = oneOf<LoadGenerator>('BENCH_LOAD_GENERATOR', LOAD_GENERATORS, 'worker')!;
const ONLY = oneOf<Part>('BENCH_ONLY', PART_NAMES);

async function main(): Promise<void> {
  let embedded: EmbeddedServer | undefined;
  let adminUrl = process.env.DATABASE_URL;
  let databaseName: string | undefined;
  let db: Db | undefined;
  try {
    if (!adminUrl) {
      log('starting embedded PostgreSQL under .bench-data/');
      embedded = await startEmbeddedPostgres(path.resolve('.bench-data'), log);
      adminUrl = embedded.connectionString;
    }
    await dropStaleDatabases(adminUrl);
    const database = await createDatabase(adminUrl);
    databaseName = database.name;
    log(`database ${databaseName} created`);

    const config = loadConfig({
      DATABASE_URL: database.url,
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
    db = createPool(database.url, config.dbPoolSize);
    await migrate(db);
    await migrateQueue(db);
    const ctx: BenchContext = {
      deps: benchDeps(db, config),
      databaseUrl: database.url,
      adminUrl,
      embedded: embedded !== undefined,
      seconds: SECONDS,
      load: { connections: CONNECTIONS, generator: GENERATOR },
    };
    const report: Record<string, unknown> = { machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', node: process.version } };
    if (ONLY !== undefined && ONLY !== 'http') report.database = describeDatabase(ctx);
    for (const part of PART_NAMES) {
      if (ONLY !== undefined && ONLY !== part) continue;
      const result = await PARTS[part](ctx);
      if (part === 'http') Object.assign(report, result);
      else report[part] = result;
    }
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    if (report.keyed) process.stdout.write('\n' + keyedTable(report.keyed as Awaited<ReturnType<typeof benchKeyed>>));
    log(`written to ${writeReport(report, ONLY)} and its .md table`);
  } finally {
    // Each step on its own: a failure in one still lets the others run.
    await db?.end().catch((err: Error) => log(`closing the pool failed: ${err.message}`));
    if (adminUrl && databaseName) await dropDatabase(adminUrl, databaseName);
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

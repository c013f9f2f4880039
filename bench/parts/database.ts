// `BENCH_ONLY=database npm run bench` (and part of the default run): the database topologies of
// docs/operations.md, "A standby, replicas and a pooler" (issue 29).
//   pooler    E12 (keyed, fresh references) and E10 with its cache off (one query a request)
//             against the run's database, direct and through Debian's PgBouncer 1.18 in
//             transaction mode (DB_POOL_SIZE 20 on the app, PgBouncer's pool 20): the app in this
//             process, autocannon as everywhere (BENCH_SECONDS, BENCH_CONNECTIONS); direct and
//             through PgBouncer interleaved, two rounds each.
//   replica   a merchant's collections list (POST /collections/getTransactions, 500 collections,
//             page of 50) from a streaming replica (DATABASE_REPLICA_URL) and from the primary
//             itself, on a pair of Debian's PostgreSQL 15 (test/db/pg-replication-kit.ts) on this
//             machine: what routing a read costs or saves, not a second machine's capacity.
//   failover  five times: a new synchronous pair, the real service (src/server.ts) on both hosts
//             (target_session_attrs=read-write), four clients writing keyed E12s; the primary
//             SIGKILLed, the standby promoted one second later (the operator's part, the same
//             every run), and from the answers: the unavailable window (first 503 → first 200
//             after it), the service's own part of it (promotion done → first 200), 503s and 500s.
// Needs Debian's postgresql-15 and pgbouncer (.ci/run installs them); a part whose binaries are
// missing reports why instead of figures. Reported for reading only: nothing fails on a figure.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { ReplicaSet } from '../../src/db/replicas.ts';
import { systemClock, type Deps } from '../../src/http/types.ts';
import { migrateQueue } from '../../src/jobs/queue.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { available, pgbouncerAvailable, startPgBouncer, startReplicationPair } from '../../test/db/pg-replication-kit.ts';
import { SANDBOX } from '../lib/api.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { adminQuery } from '../lib/db.ts';
import { HookFiles, measureTarget, requestTemplates, runLoad, statusCodes, WARMUP_SECONDS } from '../lib/load.ts';
import { accessToken, accessTokens, createMerchants } from '../lib/merchants.ts';
import { e12Body, E12_PATH, PAY_PATH, payBody } from '../lib/requests.ts';
import { startService, stopService } from '../lib/service.ts';

const FAILOVER_RUNS = 5;
const POOLER_ROUNDS = 2;
const FAILOVER_CLIENTS = 4;
const PROMOTE_AFTER_MS = 1_000;
const REPLICA_COLLECTIONS = 500;
const JWT_SECRET = 'bench-database-jwt-secret-0123456789abcdef';

export async function benchDatabase(ctx: BenchContext) {
  return {
    pooler: await benchPooler(ctx).catch((err: Error) => ({ skipped: err.message })),
    replica: await benchReplica(ctx).catch((err: Error) => ({ skipped: err.message })),
    failover: await benchFailover().catch((err: Error) => ({ skipped: err.message })),
  };
}

/** E12 and uncached E10 on `app`, the same merchants and tokens. */
async function measureWrites(name: string, ctx: BenchContext, app: BuiltApp, deps: Deps) {
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = address.replace(/\/$/, '');
  const merchants = await createMerchants(deps, 8, `Bench ${name}`);
  const tokens = await accessTokens(baseUrl, merchants);
  const files = new HookFiles(`database-${name}`);
  try {
    const requests = requestTemplates(E12_PATH, tokens, (i) => e12Body(merchants[i].merchantAccountNumber, '@REF@'), files.hooks, true);
    log(`database/${name}: E12 warming up ${WARMUP_SECONDS} s`);
    await runLoad(ctx.load, { url: baseUrl, requests }, WARMUP_SECONDS);
    const r = await runLoad(ctx.load, { url: baseUrl, requests }, ctx.seconds);
    const e12 = { requestsPerSecond: round1(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, statusCodes: statusCodes(r), errors: r.errors };
    log(`database/${name}: E12 ${JSON.stringify(e12)}`);
    const e10 = await measureTarget(`database/${name}: E10 uncached`, ctx.load, baseUrl, { method: 'GET', path: `${SANDBOX}/merchants/limits/getAll?merchantAccountNumber=${merchants[0].merchantAccountNumber}`, headers: { authorization: `Bearer ${tokens[0]}` } }, ctx.seconds);
    return { e12, e10Uncached: e10 };
  } finally {
    files.remove();
    await app.app.close();
  }
}

async function benchPooler(ctx: BenchContext) {
  const can = pgbouncerAvailable();
  if (!can.ok) throw new Error(can.why);
  const admin = new URL(ctx.adminUrl);
  const bouncer = await startPgBouncer({ host: admin.hostname === 'localhost' ? '127.0.0.1' : admin.hostname, port: Number(admin.port || 5432) }, { poolSize: ctx.deps.config.dbPoolSize, passwords: { [decodeURIComponent(admin.username)]: decodeURIComponent(admin.password) } });
  const through = new URL(ctx.databaseUrl);
  through.hostname = '127.0.0.1';
  through.port = String(bouncer.port);
  through.searchParams.delete('host');
  const pooled = createPool(through.toString(), ctx.deps.config.dbPoolSize, { pooler: 'transaction' });
  try {
    const config = { ...ctx.deps.config, rateLimitPerSecond: 0, readCacheMs: 0 };
    const pooledDeps: Deps = { ...ctx.deps, db: pooled, sessionDb: ctx.deps.db, config };
    // Interleaved, twice each: one run after the other on a shared machine moves by a third.
    const direct = [];
    const viaPgBouncer = [];
    for (let round = 1; round <= POOLER_ROUNDS; round++) {
      direct.push(await measureWrites(`direct-${round}`, ctx, await buildApp({ ...ctx.deps, config }), ctx.deps));
      viaPgBouncer.push(await measureWrites(`pgbouncer-${round}`, ctx, await buildApp(pooledDeps), pooledDeps));
    }
    return { direct, viaPgBouncer, pgbouncerPoolSize: config.dbPoolSize };
  } finally {
    await pooled.end();
    await bouncer.close();
  }
}

async function benchReplica(ctx: BenchContext) {
  const can = available();
  if (!can.ok) throw new Error(can.why);
  const pair = await startReplicationPair();
  const silent = pino({ level: 'silent' });
  let db: Db | undefined;
  let reads: ReplicaSet | undefined;
  try {
    await adminQuery(pair.primary.url(), 'create database onekhusa');
    db = createPool(pair.primary.url('onekhusa'), 20);
    await migrate(db);
    await migrateQueue(db);
    const config = loadConfig({ DATABASE_URL: pair.primary.url('onekhusa'), RATE_LIMIT_PER_SECOND: '0', JWT_SECRET, LOG_LEVEL: 'silent' });
    const deps: Deps = { db, config, clock: systemClock, log: silent, jwtSecret: new TextEncoder().encode(JWT_SECRET) };
    const merchant = await createMerchant(deps, { accountName: 'Bench Replica', capturedBy: 'bench' });
    const seeding = await buildApp(deps);
    await seedCollections(seeding, merchant, await accessTokenInProcess(seeding, merchant));
    await seeding.app.close();
    reads = new ReplicaSet(db, [pair.standby.url('onekhusa')], 10, silent);
    await reads.start();
    const list = async (name: string, withReads: ReplicaSet | undefined) => {
      const app = await buildApp({ ...deps, reads: withReads });
      const baseUrl = (await app.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
      try {
        const token = await accessToken(baseUrl, merchant);
        const body = JSON.stringify({ merchantAccountNumber: merchant.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 50 });
        return await measureTarget(`database/replica: list from the ${name}`, ctx.load, baseUrl, { method: 'POST', path: `${SANDBOX}/collections/getTransactions`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body }, ctx.seconds);
      } finally {
        await app.app.close();
      }
    };
    return { collections: REPLICA_COLLECTIONS, fromPrimary: await list('primary', undefined), fromReplica: await list('replica', reads), replicaStatus: reads.status() };
  } finally {
    await reads?.stop();
    await db?.end();
    await pair.close();
  }
}

async function accessTokenInProcess(app: BuiltApp, m: { apiKey: string; apiSecret: string; organisationId: string; merchantAccountNumber: number }): Promise<string> {
  const res = await app.app.inject({ method: 'POST', url: `${SANDBOX}/account/getAccessToken`, payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber } });
  return res.json().accessToken as string;
}

async function seedCollections(app: BuiltApp, m: { merchantAccountNumber: number }, token: string): Promise<void> {
  log(`database/replica: ${REPLICA_COLLECTIONS} collections`);
  const headers = { authorization: `Bearer ${token}` };
  for (let i = 0; i < REPLICA_COLLECTIONS; i++) {
    const open = await app.app.inject({ method: 'POST', url: `${SANDBOX}/collections/requestToPay/initiate`, headers, payload: JSON.parse(e12Body(m.merchantAccountNumber, `RB${i}X${randomBytes(3).toString('hex')}`)) });
    const timedAccountNumber = open.json().timedAccountNumber as string;
    await app.app.inject({ method: 'POST', url: PAY_PATH, headers, payload: JSON.parse(payBody(m.merchantAccountNumber, timedAccountNumber)) });
  }
}

/** One failover under load: the answers' timeline around the kill and the promotion. */
async function failoverOnce(run: number) {
  const pair = await startReplicationPair({ synchronous: true });
  try {
    await adminQuery(pair.primary.url(), 'create database onekhusa');
    const url = `postgres://postgres@127.0.0.1:${pair.primary.port},127.0.0.1:${pair.standby.port}/onekhusa?target_session_attrs=read-write`;
    const service = await startService(url, { JWT_SECRET, LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0' });
    try {
      const db = createPool(pair.primary.url('onekhusa'), 2);
      const merchant = await createMerchant({ db, config: loadConfig({ DATABASE_URL: pair.primary.url('onekhusa'), JWT_SECRET }), clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(JWT_SECRET) }, { accountName: `Failover ${run}`, capturedBy: 'bench' });
      await db.end();
      const token = await accessToken(service.baseUrl, merchant);
      const answers: { at: number; status: number }[] = [];
      let stop = false;
      const client = async () => {
        for (let i = 0; !stop; i++) {
          const key = `fo-${randomBytes(8).toString('hex')}`;
          const body = e12Body(merchant.merchantAccountNumber, `FO${randomBytes(6).toString('hex')}`);
          for (;;) {
            const res = await fetch(service.baseUrl + E12_PATH, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-idempotency-key': key }, body, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
            answers.push({ at: performance.now(), status: res?.status ?? 0 });
            await res?.arrayBuffer();
            if (res?.status === 200 || stop) break;
            await sleep(50);
          }
        }
      };
      const clients = Array.from({ length: FAILOVER_CLIENTS }, client);
      await sleep(2_000);
      const killedAt = performance.now();
      await pair.killPrimary();
      await sleep(PROMOTE_AFTER_MS);
      await pair.promoteStandby();
      const promotedAt = performance.now();
      const deadline = promotedAt + 30_000;
      while (!answers.some((a) => a.at > promotedAt && a.status === 200) && performance.now() < deadline) await sleep(20);
      await sleep(1_000);
      stop = true;
      await Promise.all(clients);
      const firstFailure = answers.find((a) => a.at >= killedAt && a.status !== 200);
      const recovered = answers.find((a) => a.at > (firstFailure?.at ?? killedAt) && a.status === 200);
      const count = (s: number) => answers.filter((a) => a.status === s).length;
      return {
        unavailableMs: firstFailure && recovered ? Math.round(recovered.at - firstFailure.at) : null,
        afterPromotionMs: recovered ? Math.round(recovered.at - promotedAt) : null,
        answered200: count(200),
        answered503: count(503),
        answered500: count(500),
        noAnswer: count(0),
      };
    } finally {
      await stopService(service);
    }
  } finally {
    await pair.close();
  }
}

async function benchFailover() {
  const can = available();
  if (!can.ok) throw new Error(can.why);
  const runs = [];
  for (let run = 1; run <= FAILOVER_RUNS; run++) {
    log(`database/failover: run ${run} of ${FAILOVER_RUNS}`);
    const r = await failoverOnce(run);
    log(`database/failover: ${JSON.stringify(r)}`);
    runs.push(r);
  }
  const windows = runs.map((r) => r.unavailableMs).filter((x): x is number => x !== null).sort((a, b) => a - b);
  return { promoteAfterMs: PROMOTE_AFTER_MS, clients: FAILOVER_CLIENTS, runs, unavailableMsMedian: windows[Math.floor(windows.length / 2)] ?? null };
}

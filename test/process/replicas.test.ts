// Issue 29, read replicas (DATABASE_REPLICA_URL; src/db/replicas.ts): a primary and a streaming
// standby of Debian's PostgreSQL 15 (test/db/pg-replication-kit.ts), the standby's replay paused
// so that what it serves is visibly behind. A merchant's list is read from the replica; the
// merchant's own reads right after its write, and every read once the replica lags beyond the
// bound, is down, or was never a replica, come from the primary; nothing answers an error.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { ReplicaSet } from '../../src/db/replicas.ts';
import type { Deps } from '../../src/http/types.ts';
import { migrateQueue } from '../../src/jobs/queue.ts';
import { available, startReplicationPair, type ReplicationPair } from '../db/pg-replication-kit.ts';
import { BASE, newMerchant, TestClock, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL } from '../money-ops.ts';

const postgres15 = available();
const JWT_SECRET = 'replica-test-jwt-secret-0123456789abcdef01';
const silent = pino({ level: 'silent' });

describe.skipIf(!postgres15.ok)(`read replicas${postgres15.ok ? '' : ` (skipped: ${postgres15.why})`}`, () => {
  let pair: ReplicationPair;
  let db: Db;
  /** Apps over the same primary: without replicas (another process), and with the standby under a bound of an hour or of nothing. */
  let plain: TestApp;
  let lenient: TestApp & { reads: ReplicaSet };
  let strict: TestApp & { reads: ReplicaSet };

  async function app(reads?: ReplicaSet): Promise<TestApp> {
    const config = loadConfig({ DATABASE_URL: pair.primary.url('onekhusa'), RATE_LIMIT_PER_SECOND: '0', JWT_SECRET, LOG_LEVEL: 'silent' });
    const deps: Deps = { db, reads, config, clock: new TestClock(), log: silent, jwtSecret: new TextEncoder().encode(JWT_SECRET) };
    const built = await buildApp(deps);
    await built.app.ready();
    return { built, app: built.app, db, deps, clock: deps.clock as TestClock, close: () => built.app.close() };
  }

  beforeAll(async () => {
    pair = await startReplicationPair();
    const admin = new pg.Client({ connectionString: pair.primary.url() });
    await admin.connect();
    await admin.query('create database onekhusa');
    await admin.end();
    db = createPool(pair.primary.url('onekhusa'), 10);
    await migrate(db);
    await migrateQueue(db);
    const replicaUrl = [pair.standby.url('onekhusa')];
    plain = await app();
    const lenientReads = new ReplicaSet(db, replicaUrl, 3600, silent);
    const strictReads = new ReplicaSet(db, replicaUrl, 0, silent);
    lenient = Object.assign(await app(lenientReads), { reads: lenientReads });
    strict = Object.assign(await app(strictReads), { reads: strictReads });
  }, 120_000);

  afterAll(async () => {
    for (const a of [plain, lenient, strict]) await a?.close();
    await lenient?.reads.stop();
    await strict?.reads.stop();
    await db?.end();
    await pair?.close();
  });

  /** A collection of `m` written through `t`: a request to pay, paid. Returns its reference. */
  async function collect(t: TestApp, m: TestMerchant, referenceNumber: string): Promise<void> {
    const post = (path: string, payload: object) => t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: m.auth, payload });
    const open = await post('/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Replica', referenceNumber, capturedBy: 'replica@shop.mw' });
    expect(open.statusCode, open.body).toBe(200);
    const paid = await post('/collections/requestToPay/addFakeTransaction', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, connectorId: AIRTEL, timedAccountNumber: open.json().timedAccountNumber, currencyCode: 'MWK', capturedBy: 'replica@shop.mw' });
    expect(paid.statusCode, paid.body).toBe(200);
  }

  /** The merchant's listed collections' references, as `t` reads them (200 or the test fails). */
  async function listed(t: TestApp, m: TestMerchant): Promise<string[]> {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/collections/getTransactions`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 50 } });
    expect(res.statusCode, res.body).toBe(200);
    return JSON.stringify(res.json()).match(/REPL[A-Z0-9]+/g) ?? [];
  }

  it('reads lists from the replica, the writer\'s own from the primary, and skips a replica beyond the bound, down or promoted', async () => {
    const [a, b] = [await newMerchant(plain, { accountName: 'Replica A' }), await newMerchant(plain, { accountName: 'Replica B' })];
    await collect(plain, b, 'REPLB1');
    await expect.poll(async () => (await lenient.reads.refresh(), lenient.reads.status()[0]), { timeout: 10_000 }).toMatchObject({ usable: true, lagSeconds: 0 });
    expect(await listed(lenient, b)).toEqual(['REPLB1']);

    // The standby stops replaying: B's next collection, written by another process, is on the primary only.
    await pair.pauseReplay();
    await collect(plain, b, 'REPLB2');
    await lenient.reads.refresh();
    await strict.reads.refresh();
    expect(lenient.reads.status()[0].usable).toBe(true);
    expect(await listed(lenient, b), 'within the bound: the replica, a little behind').toEqual(['REPLB1']);
    expect(strict.reads.status()[0]).toMatchObject({ usable: false, reason: expect.stringMatching(/behind the primary \(bound 0 s\)/) });
    expect((await listed(strict, b)).sort(), 'beyond the bound: the primary').toEqual(['REPLB1', 'REPLB2']);

    // A writes through the app that reads from the (stale) replica: its own list shows its write at once.
    await collect(lenient, a, 'REPLA1');
    expect(await listed(lenient, a)).toEqual(['REPLA1']);

    await pair.resumeReplay();
    await expect.poll(async () => (await strict.reads.refresh(), strict.reads.status()[0].usable), { timeout: 10_000 }).toBe(true);
    expect((await listed(strict, b)).sort()).toEqual(['REPLB1', 'REPLB2']);

    // Down: skipped, and the lists go on from the primary.
    await pair.stopStandby();
    await lenient.reads.refresh();
    expect(lenient.reads.status()[0]).toMatchObject({ usable: false, reason: expect.stringMatching(/^unreachable/) });
    expect((await listed(lenient, b)).sort()).toEqual(['REPLB1', 'REPLB2']);
  }, 120_000);

  it('does not take the primary itself for a replica', async () => {
    const wrong = new ReplicaSet(db, [pair.primary.url('onekhusa')], 3600, silent);
    try {
      await wrong.refresh();
      expect(wrong.status()[0]).toMatchObject({ usable: false, reason: expect.stringMatching(/not in recovery/) });
      expect(wrong.forRead()).toBe(db);
    } finally {
      await wrong.stop();
    }
  });
});

// Issue 29, "behind a pooler in transaction mode": the app with DATABASE_POOLER=transaction's pools
// (src/db/pool.ts createPool { pooler: 'transaction' }) through Debian's PgBouncer 1.18 in
// pool_mode=transaction (test/db/pg-replication-kit.ts), two server connections for every client,
// so that consecutive transactions of one client land on different server connections and any
// session state would leak between clients. The job runner and the webhook dispatcher LISTEN on a
// direct pool (DATABASE_DIRECT_URL's role).
//
// Before: a named prepared statement (insert_payment_requests, list_limits, fee_for…) lives on one
// server connection; the next client on it got "prepared statement … already exists" (a 500), and
// the pool's statement_timeout was a startup parameter PgBouncer refuses.
import http from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { workerPlan } from '../../src/composition.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool, withTransaction, type Db } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { startWorker, type Worker } from '../../src/jobs/queue.ts';
import { pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../db/pg-replication-kit.ts';
import { ADMIN_TOKEN, BASE, createTestDatabase, newMerchant, TestClock, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL } from '../money-ops.ts';
import { webhookFor } from '../routes.ts';

const can = pgbouncerAvailable();
const SERVER_CONNECTIONS = 2;
const JWT_SECRET = 'pooler-test-jwt-secret-0123456789abcdef012';

describe.skipIf(!can.ok)(`through PgBouncer in transaction mode${can.ok ? '' : ` (skipped: ${can.why})`}`, () => {
  let bouncer: PgBouncer;
  let t: TestApp;
  let sessionDb: Db;
  let drop: () => Promise<void>;
  let worker: Worker | undefined;
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  beforeAll(async () => {
    const admin = new URL(inject('adminDatabaseUrl'));
    bouncer = await startPgBouncer({ host: admin.hostname === 'localhost' ? '127.0.0.1' : admin.hostname, port: Number(admin.port || 5432) }, { poolSize: SERVER_CONNECTIONS, passwords: { [decodeURIComponent(admin.username)]: decodeURIComponent(admin.password) } });
    const database = await createTestDatabase();
    drop = database.drop;
    const through = new URL(database.url);
    through.hostname = '127.0.0.1';
    through.port = String(bouncer.port);
    // The embedded server's URL names its socket directory (?host=…): PgBouncer listens on TCP.
    through.searchParams.delete('host');
    const config = { ...loadConfig({ DATABASE_URL: through.toString(), DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: database.url, ADMIN_TOKEN, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET }), webhookRetryScheduleMs: [0, 100, 100] };
    const db = createPool(through.toString(), 10, { pooler: 'transaction' });
    sessionDb = createPool(database.url, 4);
    const deps: Deps = { db, sessionDb, config, clock: new TestClock(), log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(JWT_SECRET) };
    const built = await buildApp(deps);
    await built.app.ready();
    t = { built, app: built.app, db, deps, clock: deps.clock as TestClock, close: async () => undefined };
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.app.close();
    await t?.db.end();
    await sessionDb?.end();
    await drop?.();
    await bouncer?.close();
    receiver.close();
  });

  const post = (m: TestMerchant, path: string, payload: object) => t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: m.auth, payload });

  it('answers 60 concurrent requests of 3 merchants (named statements on every path) without one failure', async () => {
    const merchants = await Promise.all([1, 2, 3].map((i) => newMerchant(t, { accountName: `Pooled Shop ${i}` })));
    const calls = Array.from({ length: 60 }, (_, i) => {
      const m = merchants[i % 3];
      if (i % 3 === 0) return t.app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
      return post(m, '/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Pooled', referenceNumber: `POOL${i}X${m.merchantAccountNumber}`, capturedBy: 'pool@shop.mw' });
    });
    const answers = await Promise.all(calls);
    expect(answers.filter((a) => a.statusCode !== 200).map((a) => `${a.statusCode} ${a.body.slice(0, 200)}`)).toEqual([]);
  });

  it('sends no named prepared statement: 40 clients asking by one name never meet another\'s', async () => {
    // pg prepares a named query once per client connection; through PgBouncer the next client on
    // that server connection met it ("prepared statement … already exists").
    const answers = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => t.db.query<{ n: number }>({ name: 'pooler_probe', text: 'select $1::int as n, pg_sleep(0.01)', values: [i] })));
    expect(answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason))).toEqual([]);
    expect(answers.map((a) => (a as PromiseFulfilledResult<{ rows: { n: number }[] }>).value.rows[0].n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('sets the timeouts in each transaction and leaves nothing on the server connection', async () => {
    const inside = await withTransaction(t.db, async (tx) => (await tx.query<{ s: string; i: string }>('select current_setting($1) as s, current_setting($2) as i', ['statement_timeout', 'idle_in_transaction_session_timeout'])).rows[0]);
    expect(inside).toEqual({ s: '30s', i: '1min' });
    // Outside a transaction, on whichever server connection comes: the server's default (PgBouncer
    // refuses the startup parameter; nothing set by SET LOCAL survives its transaction).
    for (let i = 0; i < SERVER_CONNECTIONS * 2; i++) expect((await t.db.query<{ s: string }>("select current_setting('statement_timeout') as s")).rows[0].s).toBe('0');
  });

  it('keeps LISTEN off the pooler: the worker and the dispatcher deliver a payment\'s webhook', async () => {
    worker = await startWorker(t.deps, 2, workerPlan(t.deps));
    const m = await newMerchant(t, { accountName: 'Pooled Webhooks' });
    const address = receiver.address() as { port: number };
    await webhookFor(t, m, 'payrequest.success', `http://127.0.0.1:${address.port}/hooks`);
    const open = await post(m, '/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Pooled', referenceNumber: `POOLHOOK${m.merchantAccountNumber}`, capturedBy: 'pool@shop.mw' });
    expect(open.statusCode, open.body).toBe(200);
    const paid = await post(m, '/collections/requestToPay/addFakeTransaction', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, connectorId: AIRTEL, timedAccountNumber: open.json().timedAccountNumber, currencyCode: 'MWK', capturedBy: 'pool@shop.mw' });
    expect(paid.statusCode, paid.body).toBe(200);
    await until('the webhook delivered', async () => received.some((b) => b.includes(`POOLHOOK${m.merchantAccountNumber}`)), 20_000);
    // The dispatcher's LISTEN holds a session of its own on the database itself, not on PgBouncer.
    const { rows } = await sessionDb.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen %'");
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
  });
});

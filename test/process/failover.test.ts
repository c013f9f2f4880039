// Issue 29, "follow the primary": the real service (src/server.ts, API and worker in one process)
// on a primary and a synchronous streaming standby of Debian's PostgreSQL 15
// (test/db/pg-replication-kit.ts), DATABASE_URL naming both hosts with
// target_session_attrs=read-write. Clients write requests to pay (E12), each with its own
// idempotency key and reference, while the primary is killed (SIGKILL: a crash, no shutdown) and
// the standby promoted. Nothing is restarted or reconfigured.
//
// What must hold: no answer is a 500; every 503 carries Retry-After; a client that retries with the
// same key until it is answered gets exactly one effect (one request to pay per reference, the same
// timed account when replayed); every write acknowledged before the crash is on the new primary
// (synchronous_commit = on with the standby in synchronous_standby_names: a COMMIT is acknowledged
// only once the standby has flushed it); and the service serves writes again without a restart.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { systemClock, type Deps } from '../../src/http/types.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { createMerchant, type MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { available, startReplicationPair, type ReplicationPair } from '../db/pg-replication-kit.ts';
import { ADMIN_TOKEN, BASE, ROOT, sleep, until } from '../helpers.ts';

const postgres15 = available();
const CLIENTS = 6;
const KEYS_PER_CLIENT = 40;
/** Acknowledged writes before the crash: the rest of each client's keys straddle it. */
const ACKED_BEFORE_CRASH = 60;
const JWT_SECRET = 'failover-test-jwt-secret-0123456789abcdef';

interface Outcome {
  key: string;
  referenceNumber: string;
  statuses: number[];
  timedAccountNumber?: string;
  /** An answer from before the crash was acknowledged (2xx). */
  ackedBeforeCrash: boolean;
}

describe.skipIf(!postgres15.ok)(`failover: the primary crashes under load and the pool follows the promoted standby${postgres15.ok ? '' : ` (skipped: ${postgres15.why})`}`, () => {
  let pair: ReplicationPair;
  let service: ChildProcess | undefined;
  let output = '';
  let url = '';
  let merchant: MerchantCredentials;
  let token = '';

  beforeAll(async () => {
    pair = await startReplicationPair({ synchronous: true });
    const admin = new pg.Client({ connectionString: pair.primary.url() });
    await admin.connect();
    await admin.query('create database onekhusa');
    await admin.end();
    const databaseUrl = `postgres://postgres@127.0.0.1:${pair.primary.port},127.0.0.1:${pair.standby.port}/onekhusa?target_session_attrs=read-write`;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    service = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', APP_MODE: 'sandbox', LOG_LEVEL: 'warn', JWT_SECRET, ADMIN_TOKEN, RATE_LIMIT_PER_SECOND: '0', WORKER_CONCURRENCY: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (d: Buffer) => (output += d));
    service.stderr!.on('data', (d: Buffer) => (output += d));
    await until('service ready', async () => {
      if (service!.exitCode !== null) throw new Error(`service exited: ${output}`);
      return fetch(`${url}/health/ready`).then((r) => r.ok).catch(() => false);
    }, 60_000, 100, () => output);
    // The merchant, made on the primary the service migrated.
    const db = createPool(pair.primary.url('onekhusa'), 2);
    const deps: Deps = { db, config: loadConfig({ DATABASE_URL: pair.primary.url('onekhusa'), JWT_SECRET }), clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(JWT_SECRET) };
    merchant = await createMerchant(deps, { accountName: 'Failover Shop', capturedBy: 'failover@shop.mw' });
    await db.end();
    const res = await fetch(`${url}${BASE}/account/getAccessToken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, organisationId: merchant.organisationId, merchantAccountNumber: merchant.merchantAccountNumber }) });
    token = ((await res.json()) as { accessToken: string }).accessToken;
  }, 120_000);

  afterAll(async () => {
    if (service && service.exitCode === null) {
      service.kill('SIGKILL');
      await new Promise((resolve) => service!.once('exit', resolve));
    }
    await pair?.close();
  });

  async function initiate(o: Outcome): Promise<{ status: number; retryAfter: string | null; body: string }> {
    const res = await fetch(`${url}${BASE}/collections/requestToPay/initiate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-idempotency-key': o.key },
      body: JSON.stringify({ merchantAccountNumber: merchant.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Failover', referenceNumber: o.referenceNumber, capturedBy: 'failover@shop.mw' }),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
  }

  /** Sends until answered 2xx (or a status that is neither 503 nor 2xx, which fails the test). */
  async function untilAnswered(o: Outcome, crashed: () => boolean, problems: string[]): Promise<void> {
    for (;;) {
      const r = await initiate(o);
      o.statuses.push(r.status);
      if (r.status === 200) {
        o.timedAccountNumber = (JSON.parse(r.body) as { timedAccountNumber: string }).timedAccountNumber;
        if (!crashed()) o.ackedBeforeCrash = true;
        return;
      }
      if (r.status !== 503) {
        problems.push(`${o.key}: ${r.status} ${r.body.slice(0, 300)}`);
        return;
      }
      if (r.retryAfter === null) problems.push(`${o.key}: 503 without Retry-After`);
      await sleep(Number(r.retryAfter ?? 1) * 100);
    }
  }

  it('started on the standby alone, waits for a primary without migrating, and says so', async () => {
    const port = await freePort();
    let said = '';
    const onStandby = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${pair.standby.port}/onekhusa?target_session_attrs=read-write`, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', JWT_SECRET, WORKER_CONCURRENCY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onStandby.stdout!.on('data', (d: Buffer) => (said += d));
    onStandby.stderr!.on('data', (d: Buffer) => (said += d));
    try {
      await until('the waiting line', async () => /is a standby \(read-only\) or unreachable; not migrating, waiting for a primary/.test(said), 30_000, 100, () => said);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status, () => 0);
      expect(ready).not.toBe(200);
      expect(onStandby.exitCode).toBeNull();
    } finally {
      onStandby.kill('SIGKILL');
    }
  });

  it('answers 503 with Retry-After (never 500) during the switch, one effect per key, every acknowledged write kept', async () => {
    const outcomes: Outcome[] = Array.from({ length: CLIENTS * KEYS_PER_CLIENT }, (_, i) => ({ key: `failover-${i}-${randomBytes(6).toString('hex')}`, referenceNumber: `FO${i}${randomBytes(3).toString('hex')}`, statuses: [], ackedBeforeCrash: false }));
    const problems: string[] = [];
    let crashedAt: number | undefined;
    const crashed = () => crashedAt !== undefined;
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let k = 0; k < KEYS_PER_CLIENT; k++) await untilAnswered(outcomes[c * KEYS_PER_CLIENT + k], crashed, problems);
    });
    await until('writes acknowledged before the crash', async () => outcomes.filter((o) => o.ackedBeforeCrash).length >= ACKED_BEFORE_CRASH || problems.length > 0, 60_000, 10);
    expect(problems).toEqual([]);
    crashedAt = Date.now();
    await pair.killPrimary();
    // The switch an operator (or a failover manager) makes: promote the standby.
    await sleep(500);
    await pair.promoteStandby();
    await Promise.all(clients);

    const statuses = outcomes.flatMap((o) => o.statuses);
    expect(problems, output).toEqual([]);
    expect(statuses.filter((s) => s === 500)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length, 'requests during the switch answered 503').toBeGreaterThan(0);
    expect(outcomes.every((o) => o.timedAccountNumber !== undefined)).toBe(true);

    // On the new primary (the promoted standby): one request to pay per reference, each the one answered.
    const db = new pg.Client({ connectionString: pair.standby.url('onekhusa') });
    await db.connect();
    try {
      const { rows } = await db.query<{ reference_number: string; n: number; accounts: string[] }>(
        `select reference_number, count(*)::int as n, array_agg(timed_account_number::text) as accounts
           from payment_requests where merchant_account_number = $1 group by reference_number`,
        [merchant.merchantAccountNumber],
      );
      const byReference = new Map(rows.map((r) => [r.reference_number, r]));
      const missing = outcomes.filter((o) => !byReference.has(o.referenceNumber));
      expect(missing.filter((o) => o.ackedBeforeCrash).map((o) => o.key), 'acknowledged before the crash, lost').toEqual([]);
      expect(missing.map((o) => o.key), 'acknowledged after the crash, lost').toEqual([]);
      expect(rows.filter((r) => r.n !== 1), 'more than one effect for a key').toEqual([]);
      expect(rows.length).toBe(outcomes.length);
      const differ = outcomes.filter((o) => byReference.get(o.referenceNumber)!.accounts[0] !== o.timedAccountNumber);
      expect(differ.map((o) => o.key), 'answered a timed account the database does not hold').toEqual([]);
    } finally {
      await db.end();
    }
    // A replay of a key from before the crash answers what it answered then, from the new primary.
    const before = outcomes.find((o) => o.ackedBeforeCrash)!;
    const replay = await initiate(before);
    expect(replay.status).toBe(200);
    expect((JSON.parse(replay.body) as { timedAccountNumber: string }).timedAccountNumber).toBe(before.timedAccountNumber);
    // The service found the new primary by itself and said so.
    expect(output).toMatch(/new connections go to 127\.0\.0\.1:\d+/);
    expect(service!.exitCode).toBeNull();
  }, 180_000);
});

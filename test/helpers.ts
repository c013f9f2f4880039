// Test harness: a fresh database per test file (cloned from the migrated template), the real app
// on it, and helpers to create merchants and tokens. Nothing of our own stack is mocked.
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { expect, inject } from 'vitest';
import { buildApp, type BuiltApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createLogger } from '../src/runtime.ts';
import { createPool, type Db } from '../src/db/pool.ts';
import type { Clock, Deps } from '../src/http/types.ts';
import { freePort } from '../src/lib/free-port.ts';
import { signAccessToken } from '../src/modules/auth/tokens.ts';
import { createMerchant, type CreateMerchantInput, type MerchantCredentials } from '../src/modules/merchants/service.ts';
import { createCitusTestDatabase, dropCitusTestDatabase, onCitus } from './citus-mode.ts';

export const BASE = '/sandbox/v1';
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A new, migrated, empty database; dropped by the returned cleanup. */
/** The test app's log level: silent, unless TEST_LOG_LEVEL says otherwise (to read a failure's cause, e.g. on Citus). */
const TEST_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';

export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `onekhusa_t_${Date.now()}_${randomBytes(4).toString('hex')}`;
  if (onCitus) {
    await createCitusTestDatabase(adminUrl, name);
    return { url: withDatabase(adminUrl, name), drop: () => dropCitusTestDatabase(adminUrl, name) };
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Two files cloning at the same instant can collide on the template; retry briefly.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${inject('templateDatabase')}`);
        break;
      } catch (err) {
        if (attempt >= 20 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await c.end();
    },
  };
}

/**
 * A test app's pools: on the database itself, or, with TEST_POOLER=pgbouncer, through the run's
 * PgBouncer in transaction mode (test/global-setup.ts) with a direct pool for what needs a session
 * (LISTEN), as DATABASE_POOLER=transaction and DATABASE_DIRECT_URL set them up in the service.
 */
export function testPools(url: string, max: number): { db: Db; sessionDb?: Db } {
  const poolerPort = inject('poolerPort');
  if (!poolerPort) return { db: createPool(url, max) };
  const through = new URL(url);
  through.hostname = '127.0.0.1';
  through.port = String(poolerPort);
  // The embedded server's URL names its socket directory (?host=…): PgBouncer listens on TCP.
  through.searchParams.delete('host');
  return { db: createPool(through.toString(), max, { pooler: 'transaction' }), sessionDb: createPool(url, 4) };
}

/** A clock tests can move. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface TestApp {
  built: BuiltApp;
  app: BuiltApp['app'];
  db: Db;
  deps: Deps;
  clock: TestClock;
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, configOverrides: Partial<Config> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config: Config = {
    ...loadConfig({ DATABASE_URL: database.url, ADMIN_TOKEN, LOG_LEVEL: TEST_LOG_LEVEL, RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789', ...env }),
    ...configOverrides,
  };
  const { db, sessionDb } = testPools(database.url, 10);
  const clock = new TestClock();
  const deps: Deps = { db, sessionDb, config, clock, log: pino({ level: TEST_LOG_LEVEL }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };
  const built = await buildApp(deps);
  await built.app.ready();
  return {
    built,
    app: built.app,
    db,
    deps,
    clock,
    close: async () => {
      await built.app.close();
      await db.end();
      await sessionDb?.end();
      await database.drop();
    },
  };
}

export interface TestMerchant extends MerchantCredentials {
  token: string;
  auth: { authorization: string };
}

export async function newMerchant(t: TestApp, input: Partial<CreateMerchantInput> = {}): Promise<TestMerchant> {
  const creds = await createMerchant(t.deps, { accountName: 'Test Shop', ...input });
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/account/getAccessToken`,
    payload: { apiKey: creds.apiKey, apiSecret: creds.apiSecret, organisationId: creds.organisationId, merchantAccountNumber: creds.merchantAccountNumber },
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  const token = res.json().accessToken as string;
  return { ...creds, token, auth: { authorization: `Bearer ${token}` } };
}

/** A correctly signed token whose lifetime ended `minutesAgo` minutes ago. */
export async function expiredToken(t: TestApp, m: MerchantCredentials, minutesAgo = 10): Promise<string> {
  const { token } = await signAccessToken(t.deps.jwtSecret, { clientId: m.clientId, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }, new Date(Date.now() - minutesAgo * 60_000), 5);
  return token;
}

/** Asserts the RFC 9457 problem shape and returns the parsed body. */
export function problemOf(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const body = JSON.parse(res.body);
  if (!String(res.headers['content-type']).startsWith('application/problem+json')) throw new Error(`not problem+json: ${res.headers['content-type']} ${res.body}`);
  for (const field of ['type', 'title', 'status', 'errorCode', 'detail', 'instance', 'errors', 'requestId']) {
    if (!(field in body)) throw new Error(`problem lacks ${field}: ${res.body}`);
  }
  if (body.status !== res.statusCode) throw new Error(`problem status ${body.status} != HTTP ${res.statusCode}`);
  return body as { type: string; title: string; status: number; errorCode: string; detail: string; instance: string; errors: string[]; requestId: string };
}

/** Sum of all ledger entries (must always be zero) and merchant balances vs. their entries. */
export async function ledgerInvariants(db: Db): Promise<{ total: number; mismatched: number }> {
  const total = (await db.query<{ s: number }>('select coalesce(sum(amount_minor), 0)::bigint as s from ledger_entries')).rows[0].s;
  const mismatched = (
    await db.query<{ n: number }>(
      `select count(*)::int as n from ledger_accounts a
        where a.balance_minor is not null
          and a.balance_minor <> coalesce((select sum(e.amount_minor) from ledger_entries e where e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id), 0)`,
    )
  ).rows[0].n;
  return { total, mismatched };
}

export type InjectResult = { statusCode: number; headers: Record<string, unknown>; body: string };

/** Asserts a 4xx problem+json (of `status` when given) and returns it. */
export function clientError(res: InjectResult, status?: number) {
  expect(res.statusCode, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  if (status !== undefined) expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  return problemOf(res);
}

/**
 * A fingerprint of every table: "nothing changed" compares two. Idempotency records are left
 * out: a refused request with an X-Idempotency-Key is recorded so that its retry gets the same answer.
 */
export async function dbState(db: Db): Promise<Record<string, string>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'idempotency_keys' order by table_name`,
  );
  const state: Record<string, string> = {};
  for (const { table_name } of tables) {
    const { rows } = await db.query<{ h: string | null; n: number }>(`select md5(string_agg(x::text, ',' order by x::text)) as h, count(*)::int as n from "${table_name}" x`);
    state[table_name] = `${rows[0].n}:${rows[0].h}`;
  }
  return state;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` every `everyMs` until it returns a truthy value, which it returns; fails after
 * `timeoutMs` with `diagnostics()` in the message. For tests that wait on other processes.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 100, diagnostics = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms\n${diagnostics()}`);
    await sleep(everyMs);
  }
}

/** The repository's root: the working directory of processes the tests start. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run cli -- …` as a real process: this process's environment plus `env` (undefined deletes). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on: bound, then released. */
export const closedPort = freePort;

/** The app on `t`'s database with the service's own logger at its most verbose, writing into `lines`. */
export async function appLoggingTo(t: TestApp, lines: string[]): Promise<BuiltApp> {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = await buildApp({ ...t.deps, log: createLogger({ logLevel: 'trace' }, sink), config: { ...t.deps.config, logLevel: 'trace' } });
  await app.app.ready();
  return app;
}

// The shared rate limiter (RATE_LIMIT_STORE=postgres): the limit holds across processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { deleteOldRateWindows, MemoryRateLimiter, PostgresRateLimiter } from '../../src/http/rate-limit.ts';
import type { Clock } from '../../src/http/types.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;
const NOW_MS = Date.now();

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(() => t.close());

describe('PostgresRateLimiter', () => {
  it('grants no more than the limit in a window, summed over several processes', async () => {
    // Two limiters on one database stand for two server processes.
    const a = new PostgresRateLimiter(t.db, 10);
    const b = new PostgresRateLimiter(t.db, 10);
    const second = Math.floor(NOW_MS / 1000) * 1000;
    const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take('m:shared', second + 5)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    for (const d of decisions.filter((x) => !x.allowed)) {
      expect(d.remaining).toBe(0);
      expect(d.resetUnixSeconds).toBe(second / 1000 + 1);
    }
    // The next window starts afresh.
    const next = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('m:shared', second + 1005)));
    expect(next.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('keeps keys apart', async () => {
    const limiter = new PostgresRateLimiter(t.db, 2);
    const results = await Promise.all(['k1', 'k1', 'k1', 'k2', 'k2', 'k2'].map((k) => limiter.take(k, NOW_MS + 50_000)));
    expect(results.map((r) => r.allowed)).toEqual([true, true, false, true, true, false]);
  });

  it('asks the database once per chunk, not once per request', async () => {
    const limiter = new PostgresRateLimiter(t.db, 100);
    const at = NOW_MS + 90_000;
    for (let i = 0; i < 25; i++) expect((await limiter.take('m:chunks', at)).allowed).toBe(true);
    const { rows } = await t.db.query<{ requested: number }>('select requested from rate_limit_windows where limiter_key = $1', ['m:chunks']);
    // 25 permits in chunks of 10: three leases.
    expect(rows[0].requested).toBe(30);
  });

  it('old windows are cleaned up', async () => {
    await new PostgresRateLimiter(t.db, 5).take('m:old', NOW_MS - 3_600_000);
    await deleteOldRateWindows(t.db, NOW_MS);
    const { rowCount } = await t.db.query('select 1 from rate_limit_windows where limiter_key = $1', ['m:old']);
    expect(rowCount).toBe(0);
  });
});

describe('MemoryRateLimiter', () => {
  it('counts per key and window', () => {
    const limiter = new MemoryRateLimiter(2);
    expect([1, 2, 3].map(() => limiter.take('x', 1000).allowed)).toEqual([true, true, false]);
    expect(limiter.take('x', 2000).allowed).toBe(true);
  });
});

describe('two API processes sharing the database', () => {
  let first: BuiltApp;
  let second: BuiltApp;

  beforeAll(async () => {
    // A frozen clock: every request falls in the same one-second window, whatever the machine does.
    const frozen: Clock = { now: () => new Date(NOW_MS) };
    const config = { ...t.deps.config, rateLimitPerSecond: 4, rateLimitStore: 'postgres' as const };
    first = await buildApp({ ...t.deps, clock: frozen, config });
    second = await buildApp({ ...t.deps, clock: frozen, config });
  });
  afterAll(async () => {
    await first.app.close();
    await second.app.close();
  });

  it('let at most the limit through between them, and answer 429 E905 with headers after', async () => {
    const url = `${BASE}/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`;
    const responses = [];
    for (let i = 0; i < 10; i++) responses.push(await (i % 2 ? first : second).app.inject({ method: 'GET', url, headers: m.auth }));
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(4);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(6);
    expect(refused[0].json().errorCode).toBe('E905');
    expect(refused[0].headers['x-ratelimit-limit']).toBe('4');
    expect(refused[0].headers['x-ratelimit-remaining']).toBe('0');
    expect(refused[0].headers['retry-after']).toBe('1');
  });
});

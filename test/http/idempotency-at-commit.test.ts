// Idempotency records written with the effect's commit (http/idempotency.ts, migration 0012):
// every keyed write, its replay, concurrent duplicates, a write killed before its commit, the
// batched E12 whose record is written by the shared statement, and IDEMPOTENCY_REQUIRED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, CAPTURER, customPayment, major, payoutLine, singlePayout, topup, walletLine } from '../money-ops.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  // Money to pay out and a collection balance to reverse from.
  expect((await topup(t, m, 100_000_000)).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
const newKey = () => `commit-key-${Date.now().toString(36)}-${(++seq).toString(36)}-abcdef`;
const ref = () => `REF${Date.now().toString(36).toUpperCase()}${(++seq).toString(36).toUpperCase()}`;

function post(path: string, payload: object, headers: Record<string, string> = {}, method: 'POST' | 'PUT' = 'POST') {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...m.auth, ...headers }, payload });
}

async function record(key: string, who: TestMerchant = m) {
  const { rows } = await t.db.query<{ state: string; response_status: number; response_body: string }>(
    'select state, response_status, response_body from idempotency_keys where merchant_account_number = $1 and idempotency_key = $2',
    [who.merchantAccountNumber, key],
  );
  return rows[0];
}

async function count(sql: string, params: unknown[] = [m.merchantAccountNumber]): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(sql, params);
  return rows[0].n;
}

const transfers = (type: string) => count('select count(*)::int as n from ledger_transfers where merchant_account_number = $1 and transfer_type = $2', [m.merchantAccountNumber, type]);

const e12Body = (referenceNumber = ref()) => ({
  merchantAccountNumber: m.merchantAccountNumber,
  transactionAmount: '1500.00',
  transactionDescription: 'School shoes',
  referenceNumber,
  capturedBy: CAPTURER,
});

async function openTimedAccount(): Promise<string> {
  const res = await post('/collections/requestToPay/initiate', e12Body());
  expect(res.statusCode, res.body).toBe(200);
  return res.json().timedAccountNumber;
}

const payTimedBody = (timedAccountNumber: string) => ({
  merchantAccountNumber: m.merchantAccountNumber,
  transactionAmount: '1500.00',
  connectorId: AIRTEL,
  timedAccountNumber,
  currencyCode: 'MWK',
  capturedBy: CAPTURER,
});

interface KeyedOp {
  name: string;
  /** A request whose effect can be counted; `send(headers)` sends the same request each time. */
  prepare(): Promise<{ send(headers: Record<string, string>): ReturnType<typeof post>; effects(): Promise<number> }>;
}

const OPS: KeyedOp[] = [
  {
    name: 'top-up',
    prepare: async () => ({ send: (h) => topup(t, m, 12_345, h), effects: () => transfers('topup') }),
  },
  {
    name: 'E11 addFakeCustomPayment',
    prepare: async () => ({ send: (h) => customPayment(t, m, 23_456, h), effects: () => transfers('payment') }),
  },
  {
    name: 'E12 initiate',
    prepare: async () => {
      const body = e12Body();
      return { send: (h) => post('/collections/requestToPay/initiate', body, h), effects: () => count('select count(*)::int as n from payment_requests where reference_number = $1', [body.referenceNumber]) };
    },
  },
  {
    name: 'addFakeTransaction',
    prepare: async () => {
      const timed = await openTimedAccount();
      return { send: (h) => post('/collections/requestToPay/addFakeTransaction', payTimedBody(timed), h), effects: () => transfers('payrequest') };
    },
  },
  {
    name: 'single payout',
    prepare: async () => {
      const line = payoutLine({ amountMinor: 50_000, channel: 'wallet', suffix: '1234' });
      return { send: (h) => singlePayout(t, m, line, h), effects: () => count('select count(*)::int as n from payouts where merchant_account_number = $1', [m.merchantAccountNumber]) };
    },
  },
  {
    name: 'E8 addJson',
    prepare: async () => {
      const payload = { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: [walletLine(1000), walletLine(2000)] };
      return { send: (h) => post('/disbursements/batch/addJson', payload, h), effects: () => count('select count(*)::int as n from batches where merchant_account_number = $1', [m.merchantAccountNumber]) };
    },
  },
];

describe('keyed writes: the record is written with the commit', () => {
  for (const op of OPS) {
    it(`${op.name}: one effect, one completed record holding the exact answer, a byte-identical replay`, async () => {
      const { send, effects } = await op.prepare();
      const before = await effects();
      const key = newKey();
      const first = await send({ 'x-idempotency-key': key });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await record(key)).toEqual({ state: 'completed', response_status: 200, response_body: first.body });
      expect(await effects()).toBe(before + 1);

      const again = await send({ 'x-idempotency-key': key });
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(await effects()).toBe(before + 1);
      // Nothing is ever left in progress: there is no claim before the commit.
      expect(await count(`select count(*)::int as n from idempotency_keys where merchant_account_number = $1 and state <> 'completed'`)).toBe(0);
    });

    it(`${op.name}: 12 concurrent identical requests make one effect; every answer is the first's, byte for byte`, async () => {
      const { send, effects } = await op.prepare();
      const before = await effects();
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 12 }, () => send({ 'x-idempotency-key': key })));
      expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((a) => a.body)).size).toBe(1);
      expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect(await effects()).toBe(before + 1);
      expect((await record(key)).response_body).toBe(answers[0].body);
    });
  }

  it('a different request under a used key is refused with 409 E907 and changes nothing', async () => {
    const key = newKey();
    expect((await topup(t, m, 1_000, { 'x-idempotency-key': key })).statusCode).toBe(200);
    const before = await transfers('topup');
    const other = await topup(t, m, 2_000, { 'x-idempotency-key': key });
    expect(other.statusCode).toBe(409);
    expect(problemOf(other).errorCode).toBe('E907');
    expect(problemOf(other).type).toMatch(/reused$/);
    expect(await transfers('topup')).toBe(before);
  });

  it('a retry whose effect would now be refused (the reference is open, the batch moved on) is answered from the record', async () => {
    const body = e12Body();
    const key = newKey();
    const first = await post('/collections/requestToPay/initiate', body, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    // Without the key the same reference is refused: it is open.
    expect((await post('/collections/requestToPay/initiate', body)).statusCode).toBe(409);
    const retry = await post('/collections/requestToPay/initiate', body, { 'x-idempotency-key': key });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
  });

  it('a refusal is stored and replayed like a success; a conflict is not stored', async () => {
    const key = newKey();
    const refused = await post('/collections/requestToPay/addFakeTransaction', payTimedBody('19999999'), { 'x-idempotency-key': key });
    expect(refused.statusCode).toBe(404);
    expect(await record(key)).toMatchObject({ state: 'completed', response_status: 404, response_body: refused.body });
    const replay = await post('/collections/requestToPay/addFakeTransaction', payTimedBody('19999999'), { 'x-idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(refused.body);

    const open = e12Body();
    expect((await post('/collections/requestToPay/initiate', open)).statusCode).toBe(200);
    const conflictKey = newKey();
    expect((await post('/collections/requestToPay/initiate', open, { 'x-idempotency-key': conflictKey })).statusCode).toBe(409);
    expect(await record(conflictKey)).toBeUndefined();
  });
});

describe('large E8 bodies are fingerprinted by their bytes', () => {
  const batches = () => count('select count(*)::int as n from batches where merchant_account_number = $1');
  const batchBody = (lines: number) => ({
    header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER },
    transactions: Array.from({ length: lines }, (_, i) => walletLine(1000 + i)),
  });
  const send = (text: string, key: string) =>
    t.app.inject({ method: 'POST', url: `${BASE}/disbursements/batch/addJson`, headers: { ...m.auth, 'content-type': 'application/json', 'x-idempotency-key': key }, payload: text });

  it('a retry of the same bytes is replayed; the same batch re-encoded is refused with 409 E907, never added twice', async () => {
    const body = batchBody(7_000);
    const text = JSON.stringify(body);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const key = newKey();
    const before = await batches();
    const first = await send(text, key);
    expect(first.statusCode, first.body).toBe(200);
    const again = await send(text, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const reencoded = await send(JSON.stringify(body, null, 1), key);
    expect(reencoded.statusCode).toBe(409);
    expect(problemOf(reencoded).type).toMatch(/reused$/);
    expect(await batches()).toBe(before + 1);
  });

  it('a small batch is compared in canonical form: re-encoded, it is still the same request', async () => {
    const body = batchBody(3);
    const key = newKey();
    const first = await send(JSON.stringify(body), key);
    expect(first.statusCode).toBe(200);
    const reordered = { transactions: body.transactions.map((l) => Object.fromEntries(Object.entries(l).reverse())), header: body.header };
    const again = await send(JSON.stringify(reordered, null, 2), key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});

describe('E12 in a shared statement', () => {
  it('writes each keyed request\'s record in the statement that inserts it, with the answer the schema serialises', async () => {
    const metricsBefore = await batchRows();
    const bodies = Array.from({ length: 40 }, () => e12Body());
    const keys = bodies.map(() => newKey());
    const answers = await Promise.all(bodies.map((b, i) => post('/collections/requestToPay/initiate', b, { 'x-idempotency-key': keys[i] })));
    const metricsAfter = await batchRows();
    // The requests shared statements: fewer statements than rows.
    expect(metricsAfter.sum - metricsBefore.sum).toBe(40);
    expect(metricsAfter.count - metricsBefore.count).toBeLessThan(40);
    for (const [i, answer] of answers.entries()) {
      expect(answer.statusCode, answer.body).toBe(200);
      const { rows } = await t.db.query<{ merchant_account_number: number; timed_account_number: string; expires_at: Date }>(
        'select merchant_account_number, timed_account_number, expires_at from payment_requests where merchant_account_number = $1 and reference_number = $2',
        [m.merchantAccountNumber, bodies[i].referenceNumber],
      );
      expect(rows).toHaveLength(1);
      // Made in SQL, it is exactly what the route's serialiser writes for the same row.
      expect(answer.body).toBe(
        JSON.stringify({ merchantAccountNumber: rows[0].merchant_account_number, timedAccountNumber: rows[0].timed_account_number, expiryDate: rows[0].expires_at.toISOString(), expiryInMinutes: t.deps.config.timedAccountMinutes }),
      );
      expect(await record(keys[i])).toEqual({ state: 'completed', response_status: 200, response_body: answer.body });
    }
  });

  it('a key past its retention is taken over: the request runs again, once', async () => {
    const body = e12Body();
    const key = newKey();
    expect((await post('/collections/requestToPay/initiate', body, { 'x-idempotency-key': key })).statusCode).toBe(200);
    await t.db.query(`update payment_requests set status_code = 'E' where reference_number = $1`, [body.referenceNumber]);
    await t.db.query(`update idempotency_keys set expires_at = now() - interval '1 second' where merchant_account_number = $1 and idempotency_key = $2`, [m.merchantAccountNumber, key]);
    const again = await post('/collections/requestToPay/initiate', body, { 'x-idempotency-key': key });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await count('select count(*)::int as n from payment_requests where reference_number = $1', [body.referenceNumber])).toBe(2);
    expect((await record(key)).response_body).toBe(again.body);
  });
});

async function batchRows(): Promise<{ count: number; sum: number }> {
  const text = await t.built.metrics.registry.metrics();
  const value = (suffix: string) => Number(new RegExp(`_${suffix}\\{statement="insert_payment_requests"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

describe('a write killed before its commit', () => {
  /** Holds inserts into idempotency_keys until released, so a write can be caught at its commit. */
  async function holdRecords(): Promise<{ client: pg.Client; release(): Promise<void> }> {
    const client = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query('lock table idempotency_keys in exclusive mode');
    return {
      client,
      release: async () => {
        await client.query('rollback');
        await client.end();
      },
    };
  }

  /** Terminates the backend whose statement matches `pattern` once it waits on the lock. */
  async function killWaiting(pattern: string): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const { rows } = await t.db.query<{ n: number }>(
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like $1`,
        [`%${pattern}%`],
      );
      if (rows[0].n > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no backend waited with ${pattern}`);
  }

  it('a top-up killed at its commit leaves neither transfer nor record; its retry runs once', async () => {
    const before = await transfers('topup');
    const key = newKey();
    const hold = await holdRecords();
    const pending = topup(t, m, 7_777, { 'x-idempotency-key': key });
    await killWaiting('store_idempotent_answer');
    const killed = await pending;
    await hold.release();
    expect(killed.statusCode).toBeGreaterThanOrEqual(500);
    expect(await transfers('topup')).toBe(before);
    expect(await record(key)).toBeUndefined();

    const retry = await topup(t, m, 7_777, { 'x-idempotency-key': key });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await transfers('topup')).toBe(before + 1);
    expect((await record(key)).response_body).toBe(retry.body);
  });

  it('a shared E12 statement killed before it ends inserts nothing; its requests are then made alone, once each', async () => {
    const bodies = Array.from({ length: 5 }, () => e12Body());
    const keys = bodies.map(() => newKey());
    const hold = await holdRecords();
    const pending = Promise.all(bodies.map((b, i) => post('/collections/requestToPay/initiate', b, { 'x-idempotency-key': keys[i] })));
    await killWaiting('unnest($1::integer[]');
    // Let the shared statement's failure be seen before the records are free again.
    await new Promise((r) => setTimeout(r, 100));
    await hold.release();
    const answers = await pending;
    for (const [i, answer] of answers.entries()) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(await count('select count(*)::int as n from payment_requests where reference_number = $1', [bodies[i].referenceNumber])).toBe(1);
      expect((await record(keys[i])).response_body).toBe(answer.body);
    }
  });
});

describe('IDEMPOTENCY_REQUIRED', () => {
  it('is on by default in production mode and off in sandbox mode, and can be set either way', () => {
    const base = { DATABASE_URL: 'postgres://x/y', JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789' };
    expect(loadConfig(base).idempotencyRequired).toBe(false);
    expect(loadConfig({ ...base, APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw', ADMIN_TOKEN: 'a'.repeat(32) }).idempotencyRequired).toBe(true);
    expect(loadConfig({ ...base, IDEMPOTENCY_REQUIRED: 'true' }).idempotencyRequired).toBe(true);
    expect(loadConfig({ ...base, APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw', ADMIN_TOKEN: 'a'.repeat(32), IDEMPOTENCY_REQUIRED: 'false' }).idempotencyRequired).toBe(false);
    expect(() => loadConfig({ ...base, IDEMPOTENCY_REQUIRED: 'maybe' })).toThrow(/IDEMPOTENCY_REQUIRED must be true or false/);
  });

  it('refuses a financial write without a valid key with 400 and changes nothing; reads and keyed writes go through', async () => {
    const strict = await startTestApp({ IDEMPOTENCY_REQUIRED: 'true' });
    try {
      const who = await newMerchant(strict);
      const topupBody = { merchantAccountNumber: who.merchantAccountNumber, connectorId: AIRTEL, topupAmount: major(5_000), createdBy: CAPTURER };
      const send = (headers: Record<string, string>) => strict.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: { ...who.auth, ...headers }, payload: topupBody });
      const missing = await send({});
      expect(missing.statusCode).toBe(400);
      expect(problemOf(missing).errorCode).toBe('E900');
      expect(problemOf(missing).errors.join(' ')).toMatch(/X-Idempotency-Key is required/);
      expect((await send({ 'x-idempotency-key': 'short' })).statusCode).toBe(400);
      const { rows } = await strict.db.query<{ n: number }>('select count(*)::int as n from ledger_transfers where merchant_account_number = $1', [who.merchantAccountNumber]);
      expect(rows[0].n).toBe(0);
      expect((await send({ 'x-idempotency-key': newKey() })).statusCode).toBe(200);
      const read = await strict.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: who.auth });
      expect(read.statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

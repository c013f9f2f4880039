// Collections (product.md §10): request-to-pay with timed accounts (E12), paying a timed account,
// direct customer payments (E11), the transaction views, reversals and the expiry job, against the
// real app and database: fees from configuration, limits, the ledger and the outbox.
import { randomBytes, randomInt } from 'node:crypto';
import type { JobHelpers } from 'graphile-worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { AppError } from '../../src/http/errors.ts';
import { taskList } from '../../src/composition.ts';
import { insertPaymentRequest } from '../../src/modules/collections/repository.ts';
import { createPaymentRequest, createRequestBatcher, payTimedAccount, type InitiateInput } from '../../src/modules/collections/service.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../../src/modules/ledger/ledger.ts';
import { BASE, clientError, dbState, ledgerInvariants, newMerchant, problemOf, startTestApp, type InjectResult, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, webhookFor } from '../routes.ts';

let t: TestApp;
/** The merchant most tests act as. */
let m: TestMerchant;
/** Another merchant of the same organisation. */
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Chikondi Stores' });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
});
afterAll(() => t.close());

const NBM = 212188;
const AIRTEL = 112400;

/** A fresh merchant reference (alphanumeric, 5–25 characters). */
const ref = () => `REF${randomBytes(6).toString('hex').toUpperCase()}`;
let keySeq = 0;
/** A fresh, valid idempotency key. */
const idemKey = () => `coll-key-${Date.now()}-${++keySeq}-abcdef`;

function post(who: TestMerchant, path: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

const initiate = (who: TestMerchant, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(who, '/collections/requestToPay/initiate', { merchantAccountNumber: who.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Order 42', referenceNumber: ref(), capturedBy: ACTOR, ...over }, headers);

const payTimed = (who: TestMerchant, timedAccountNumber: string, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(
    who,
    '/collections/requestToPay/addFakeTransaction',
    { merchantAccountNumber: who.merchantAccountNumber, transactionAmount: 2500, connectorId: AIRTEL, timedAccountNumber, currencyCode: 'MWK', capturedBy: ACTOR, ...over },
    headers,
  );

const customPay = (who: TestMerchant, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(who, '/collections/addFakeCustomPayment', { beneficiaryAccountNumber: who.paymentAccountNumber, connectorId: NBM, transactionAmount: 50000, createdBy: ACTOR, ...over }, headers);

const list = (who: TestMerchant, over: Record<string, unknown> = {}) => post(who, '/collections/getTransactions', { merchantAccountNumber: who.merchantAccountNumber, ...over });

const getOne = (who: TestMerchant, transactionReferenceNumber: string, over: Record<string, unknown> = {}) =>
  post(who, '/collections/getTransaction', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber, ...over });

const reverseReq = (who: TestMerchant, transactionReferenceNumber: string, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(who, '/collections/reverse', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber, reason: 'Customer refund', ...over }, headers);

/** An open request-to-pay of `who` through E12; returns its timed account and reference. */
async function openRequest(who: TestMerchant, amount: number | string = 2500, referenceNumber = ref()): Promise<{ timedAccountNumber: string; referenceNumber: string; expiryDate: string }> {
  const res = await initiate(who, { transactionAmount: amount, referenceNumber });
  expect(res.statusCode, res.body).toBe(200);
  return { ...res.json(), referenceNumber };
}

/** A successful E11 payment of `amount` to `who`; returns the response body. */
async function paid(who: TestMerchant, amount: number | string = 50000, over: Record<string, unknown> = {}) {
  const res = await customPay(who, { transactionAmount: amount, ...over });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function account(who: TestMerchant) {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: who.auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { collectionBalance: number; disbursmentBalance: number; accountBalance: number };
}

async function collectionMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ b: number }>(`select balance_minor as b from ledger_accounts where merchant_account_number = $1 and kind = 'collection'`, [who.merchantAccountNumber]);
  return rows[0].b;
}

async function requestRow(timedAccountNumber: string) {
  const { rows } = await t.db.query('select * from payment_requests where timed_account_number = $1 order by request_id desc limit 1', [timedAccountNumber]);
  return rows[0];
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(sql, params);
  return rows[0].n;
}

/** The outbox events carrying this transaction reference, oldest first. */
async function eventsFor(reference: string) {
  const { rows } = await t.db.query<{ event_code: string; merchant_account_number: number; payload: Record<string, unknown> }>(
    `select event_code, merchant_account_number, payload from outbox_events where payload->>'transactionReferenceNumber' = $1 order by event_id`,
    [reference],
  );
  return rows;
}

async function expectLedgerBalanced(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
}

/** Runs `act` (which must be refused with `status`/`errorCode`) and checks that no table changed. */
async function refusedUnchanged(act: () => Promise<InjectResult>, status: number, errorCode: string) {
  const before = await dbState(t.db);
  const res = await act();
  const p = clientError(res, status);
  expect(p.errorCode).toBe(errorCode);
  expect(await dbState(t.db)).toEqual(before);
  return p;
}

async function setLimit(who: TestMerchant, code: string, minMinor: number, maxMinor: number, dailyMinor: number): Promise<void> {
  await t.db.query(
    `update merchant_limits set minimum_amount_minor = $3, maximum_amount_minor = $4, daily_limit_minor = $5
      where merchant_account_number = $1 and transaction_code = $2`,
    [who.merchantAccountNumber, code, minMinor, maxMinor, dailyMinor],
  );
}

// ---------------------------------------------------------------------------------------------
// E12

describe('E12 POST /collections/requestToPay/initiate', () => {
  it('returns an 8-digit timed account beginning with 1 that expires 15 minutes later', async () => {
    const referenceNumber = ref();
    const before = Date.now();
    const res = await initiate(m, { transactionAmount: '1500.50', referenceNumber, transactionDescription: 'Two bags of maize' });
    const after = Date.now();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expiryDate', 'expiryInMinutes', 'merchantAccountNumber', 'timedAccountNumber']);
    expect(body.merchantAccountNumber).toBe(m.merchantAccountNumber);
    expect(body.timedAccountNumber).toMatch(/^1[0-9]{7}$/);
    expect(body.expiryInMinutes).toBe(15);
    expect(body.expiryDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const expiry = Date.parse(body.expiryDate);
    expect(expiry).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1_000);
    expect(expiry).toBeLessThanOrEqual(after + 15 * 60_000 + 1_000);

    const row = await requestRow(body.timedAccountNumber);
    expect(row).toMatchObject({
      merchant_account_number: m.merchantAccountNumber,
      amount_minor: 150_050,
      currency_code: 'MWK',
      transaction_description: 'Two bags of maize',
      reference_number: referenceNumber,
      captured_by: ACTOR,
      status_code: 'O',
      paid_at: null,
    });
    // Exactly 15 minutes by the database clock, and the answer is the stored expiry.
    expect((row.expires_at as Date).getTime() - (row.created_at as Date).getTime()).toBe(15 * 60_000);
    expect((row.expires_at as Date).toISOString()).toBe(body.expiryDate);
  });

  it('uses TIMED_ACCOUNT_MINUTES for the lifetime', async () => {
    const t5 = await startTestApp({ TIMED_ACCOUNT_MINUTES: '5' });
    try {
      const who = await newMerchant(t5);
      const before = Date.now();
      const res = await t5.app.inject({
        method: 'POST',
        url: `${BASE}/collections/requestToPay/initiate`,
        headers: who.auth,
        payload: { merchantAccountNumber: who.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Order', referenceNumber: ref(), capturedBy: ACTOR },
      });
      const after = Date.now();
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.expiryInMinutes).toBe(5);
      expect(Date.parse(body.expiryDate)).toBeGreaterThanOrEqual(before + 5 * 60_000 - 1_000);
      expect(Date.parse(body.expiryDate)).toBeLessThanOrEqual(after + 5 * 60_000 + 1_000);
      const { rows } = await t5.db.query<{ s: number }>('select extract(epoch from expires_at - created_at)::int as s from payment_requests where timed_account_number = $1', [body.timedAccountNumber]);
      expect(rows[0].s).toBe(300);
    } finally {
      await t5.close();
    }
  });

  it('accepts references of 5 and 25 alphanumerics', async () => {
    expect((await initiate(m, { referenceNumber: `A${randomBytes(2).toString('hex')}` })).statusCode).toBe(200);
    expect((await initiate(m, { referenceNumber: `Z${randomBytes(12).toString('hex')}` })).statusCode).toBe(200);
  });

  it.each([
    ['4 characters', 'AB12'],
    ['26 characters', `A${'1'.repeat(25)}`],
    ['a hyphen', 'REF-12345'],
    ['a space', 'REF 12345'],
    ['an underscore', 'REF_12345'],
    ['a percent sign', 'REF%12345'],
    ['a non-ASCII letter', 'RÉF12345'],
    ['an empty string', ''],
  ])('refuses a referenceNumber with %s with 400 E900 and creates nothing', async (_name, referenceNumber) => {
    const p = await refusedUnchanged(() => initiate(m, { referenceNumber }), 400, 'E900');
    expect(p.errors.join(' ')).toMatch(/Reference Number/);
  });

  it.each([
    ['zero', 0],
    ['a negative amount', -100],
    ['3 decimals', '100.005'],
    ['above 50,000,000', '50000000.01'],
    ['text', 'lots'],
  ])('refuses a transactionAmount of %s with 400 E900', async (_name, transactionAmount) => {
    await refusedUnchanged(() => initiate(m, { transactionAmount }), 400, 'E900');
  });

  it('refuses missing fields and a malformed capturedBy, one message per field', async () => {
    const res = await post(m, '/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, capturedBy: 'nobody' });
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toHaveLength(4); // transactionAmount, transactionDescription, referenceNumber missing; capturedBy format
  });

  it('refuses a reference that is open with 409 E906, for the same merchant only', async () => {
    const { referenceNumber } = await openRequest(m);
    const p = await refusedUnchanged(() => initiate(m, { referenceNumber }), 409, 'E906');
    expect(p.detail).toContain(referenceNumber);
    // Another merchant may use the same reference.
    expect((await initiate(other, { referenceNumber })).statusCode).toBe(200);
  });

  it('allows the reference again once its request is paid', async () => {
    const open = await openRequest(m, 2500);
    expect((await payTimed(m, open.timedAccountNumber, { transactionAmount: 2500 })).statusCode).toBe(200);
    const again = await initiate(m, { referenceNumber: open.referenceNumber });
    expect(again.statusCode, again.body).toBe(200);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and reference_number = $2', [m.merchantAccountNumber, open.referenceNumber])).toBe(2);
  });

  it('allows the reference again once its request has expired, before the expiry job runs', async () => {
    const open = await openRequest(m);
    await t.db.query(`update payment_requests set expires_at = now() - interval '1 second', created_at = now() - interval '16 minutes' where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
    const again = await initiate(m, { referenceNumber: open.referenceNumber });
    expect(again.statusCode, again.body).toBe(200);
    // The old request is expired (it can never be paid), the new one open.
    const { rows } = await t.db.query<{ status_code: string }>('select status_code from payment_requests where merchant_account_number = $1 and reference_number = $2 order by request_id', [
      m.merchantAccountNumber,
      open.referenceNumber,
    ]);
    expect(rows.map((r) => r.status_code)).toEqual(['E', 'O']);
  });

  it('enforces the RTP minimum and maximum with 402 E914', async () => {
    // Defaults: MWK 100 to 10,000,000.
    await refusedUnchanged(() => initiate(m, { transactionAmount: '99.99' }), 402, 'E914');
    await refusedUnchanged(() => initiate(m, { transactionAmount: '10000000.01' }), 402, 'E914');
    expect((await initiate(m, { transactionAmount: 100 })).statusCode).toBe(200);
    expect((await initiate(m, { transactionAmount: 10_000_000 })).statusCode).toBe(200);
    // From the merchant's own limits.
    const who = await newMerchant(t);
    await setLimit(who, 'RTP', 50_000, 100_000, 2_000_000_000);
    const p = await refusedUnchanged(() => initiate(who, { transactionAmount: 499 }), 402, 'E914');
    expect(p.detail).toContain('500.00');
    await refusedUnchanged(() => initiate(who, { transactionAmount: '1000.01' }), 402, 'E914');
    expect((await initiate(who, { transactionAmount: 500 })).statusCode).toBe(200);
  });

  it('replays the first answer for the same idempotency key, with one request row', async () => {
    const key = idemKey();
    const payload = { transactionAmount: 2500, referenceNumber: ref() };
    const first = await initiate(m, payload, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    const second = await initiate(m, payload, { 'x-idempotency-key': key });
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and reference_number = $2', [m.merchantAccountNumber, payload.referenceNumber])).toBe(1);
    // The same key with another request: 409 E907.
    const mismatch = await initiate(m, { ...payload, transactionAmount: 2600 }, { 'x-idempotency-key': key });
    expect(problemOf(mismatch).errorCode).toBe('E907');
    expect(mismatch.statusCode).toBe(409);
  });

  it('creates one request for concurrent retries with one idempotency key', async () => {
    const key = idemKey();
    const payload = { transactionAmount: 2500, referenceNumber: ref() };
    const results = await Promise.all(Array.from({ length: 8 }, () => initiate(m, payload, { 'x-idempotency-key': key })));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of results) if (r.statusCode !== 200) expect(problemOf(r).errorCode).toBe('E907');
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and reference_number = $2', [m.merchantAccountNumber, payload.referenceNumber])).toBe(1);
  });

  it("answers 404 E903 when the body names another merchant's account, and creates nothing", async () => {
    await refusedUnchanged(() => initiate(m, { merchantAccountNumber: other.merchantAccountNumber }), 404, 'E903');
  });

  it('answers 401 without a token', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/requestToPay/initiate`,
      payload: { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'x', referenceNumber: ref(), capturedBy: ACTOR },
    });
    expect(clientError(res, 401).errorCode).toBe('E901');
  });

  it("refuses an inactive merchant's requests and creates nothing", async () => {
    const who = await newMerchant(t);
    await t.db.query(`update merchants set status_code = 'I' where merchant_account_number = $1`, [who.merchantAccountNumber]);
    // Its keys stop working with it (the service itself would answer 402 E910).
    await refusedUnchanged(() => initiate(who), 401, 'E901');
  });

  it('gives 1,000 concurrent requests over 10 merchants 1,000 distinct timed accounts', { timeout: 120_000 }, async () => {
    const merchants = await Promise.all(Array.from({ length: 10 }, (_, i) => newMerchant(t, { accountName: `Busy Shop ${i}` })));
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => {
        const who = merchants[i % merchants.length];
        return initiate(who, { transactionAmount: 100 + i, referenceNumber: `BULK${String(i).padStart(6, '0')}` });
      }),
    );
    const failures = results.filter((r) => r.statusCode !== 200);
    expect(failures.map((r) => r.body).slice(0, 3)).toEqual([]);
    const numbers = results.map((r) => r.json().timedAccountNumber as string);
    for (const n of numbers) expect(n).toMatch(/^1[0-9]{7}$/);
    expect(new Set(numbers).size).toBe(1000);
    const { rows } = await t.db.query<{ n: number; distinct_accounts: number; distinct_refs: number }>(
      `select count(*)::int as n, count(distinct timed_account_number)::int as distinct_accounts,
              count(distinct (merchant_account_number, reference_number))::int as distinct_refs
         from payment_requests where merchant_account_number = any($1) and status_code = 'O'`,
      [merchants.map((x) => x.merchantAccountNumber)],
    );
    expect(rows[0]).toEqual({ n: 1000, distinct_accounts: 1000, distinct_refs: 1000 });
    // Every answer names its own merchant and its own row.
    for (let i = 0; i < 20; i++) {
      const body = results[i].json();
      expect(body.merchantAccountNumber).toBe(merchants[i % merchants.length].merchantAccountNumber);
      expect((await requestRow(body.timedAccountNumber)).reference_number).toBe(`BULK${String(i).padStart(6, '0')}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// E12 batching (lib/coalescer.ts): concurrent requests without an idempotency key share one insert

describe('E12 requests that arrive together share one insert', () => {
  /** The db_batched_statement_rows histogram's count and sum for the E12 insert, from /metrics. */
  async function batchedRows(app = t.app): Promise<{ count: number; sum: number }> {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    const read = (suffix: 'count' | 'sum') => {
      const line = res.body.split('\n').find((l) => l.startsWith(`db_batched_statement_rows_${suffix}{`) && l.includes('statement="insert_payment_requests"'));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    return { count: read('count'), sum: read('sum') };
  }

  /** A batcher of its own over the test app's database, recording its batches and its warnings. */
  function ownBatcher(configOverrides: Partial<TestApp['deps']['config']> = {}) {
    const sizes: number[] = [];
    const warnings: Array<{ msg: string; rows?: number }> = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
    const batcher = createRequestBatcher({ db: t.db, config: { ...t.deps.config, ...configOverrides }, log }, (rows) => sizes.push(rows));
    if (!batcher) throw new Error('expected a batcher');
    return { batcher, sizes, warnings };
  }

  const input = (who: TestMerchant, over: Partial<InitiateInput> = {}): InitiateInput => ({
    merchantAccountNumber: who.merchantAccountNumber,
    amountMinor: 250_000,
    transactionDescription: 'Batched order',
    referenceNumber: ref(),
    capturedBy: ACTOR,
    ...over,
  });

  /** Every promise's outcome, in order, without failing on the first rejection. */
  const outcomes = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

  it('answers 200 concurrent requests over 3 merchants, each with its own row, sharing inserts', { timeout: 60_000 }, async () => {
    const merchants = await Promise.all([0, 1, 2].map((i) => newMerchant(t, { accountName: `Batch Shop ${i}` })));
    const tag = randomBytes(3).toString('hex').toUpperCase();
    const sent = Array.from({ length: 200 }, (_, i) => ({
      who: merchants[i % 3],
      referenceNumber: `SH${tag}${String(i).padStart(4, '0')}`,
      amountMinor: 10_000 + i * 101,
      description: `Shared order ${i}`,
    }));
    const before = await batchedRows();
    const results = await Promise.all(
      sent.map((s) => initiate(s.who, { transactionAmount: (s.amountMinor / 100).toFixed(2), referenceNumber: s.referenceNumber, transactionDescription: s.description })),
    );
    const after = await batchedRows();

    expect(results.filter((r) => r.statusCode !== 200).map((r) => r.body).slice(0, 3)).toEqual([]);
    const bodies = results.map((r) => r.json() as { merchantAccountNumber: number; timedAccountNumber: string });
    expect(new Set(bodies.map((b) => b.timedAccountNumber)).size).toBe(200);

    // The open row holding each answer's timed account is that request's: merchant, reference, amount, description.
    const { rows } = await t.db.query<{ timed_account_number: string; merchant_account_number: number; reference_number: string; amount_minor: number; transaction_description: string }>(
      `select timed_account_number, merchant_account_number, reference_number, amount_minor, transaction_description
         from payment_requests where timed_account_number = any($1) and status_code = 'O'`,
      [bodies.map((b) => b.timedAccountNumber)],
    );
    expect(rows).toHaveLength(200);
    const byNumber = new Map(rows.map((r) => [r.timed_account_number, r]));
    sent.forEach((s, i) => {
      expect(bodies[i].merchantAccountNumber).toBe(s.who.merchantAccountNumber);
      expect(byNumber.get(bodies[i].timedAccountNumber)).toEqual({
        timed_account_number: bodies[i].timedAccountNumber,
        merchant_account_number: s.who.merchantAccountNumber,
        reference_number: s.referenceNumber,
        amount_minor: s.amountMinor,
        transaction_description: s.description,
      });
    });
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = any($1)', [merchants.map((x) => x.merchantAccountNumber)])).toBe(200);

    // Sharing really happened: on average the batches carried more than one row each.
    const batches = after.count - before.count;
    const batchedRequests = after.sum - before.sum;
    expect(batches).toBeGreaterThan(0);
    expect(batchedRequests).toBe(200);
    expect(batchedRequests).toBeGreaterThan(batches);
  });

  it('decides each request of a mixed batch on its own: valid, out of limits, one reference ten times', { timeout: 60_000 }, async () => {
    const who = await newMerchant(t, { accountName: 'Mixed Batch Shop' });
    await setLimit(who, 'RTP', 50_000, 100_000, 2_000_000_000); // MWK 500.00 to 1,000.00
    const shared = ref();
    type Kind = 'valid' | 'outOfRange' | 'sameReference';
    const sent: Array<{ kind: Kind; amount: number | string; referenceNumber: string }> = [
      ...Array.from({ length: 30 }, (_, i) => ({ kind: 'valid' as Kind, amount: i === 29 ? 1000 : 500 + i * 10, referenceNumber: ref() })),
      ...['499.99', 100, 1, 499, '0.01', '1000.01', 1001, 5000, 20_000, 10_000_000].map((amount) => ({ kind: 'outOfRange' as Kind, amount, referenceNumber: ref() })),
      ...Array.from({ length: 10 }, () => ({ kind: 'sameReference' as Kind, amount: 600, referenceNumber: shared })),
    ];
    // Interleaved, so that the kinds travel in the same batches.
    const order = sent.map((_, i) => i).sort((a, b) => (a % 5) - (b % 5) || a - b);
    const before = await batchedRows();
    const answers = new Array<Awaited<ReturnType<typeof initiate>>>(sent.length);
    await Promise.all(order.map(async (i) => (answers[i] = await initiate(who, { transactionAmount: sent[i].amount, referenceNumber: sent[i].referenceNumber }))));
    const after = await batchedRows();

    const okNumbers: string[] = [];
    sent.forEach((s, i) => {
      const res = answers[i];
      if (s.kind === 'valid') {
        expect(res.statusCode, res.body).toBe(200);
        okNumbers.push(res.json().timedAccountNumber);
      } else if (s.kind === 'outOfRange') {
        const p = clientError(res, 402);
        expect(p.errorCode).toBe('E914');
        expect(p.detail).toContain('500.00');
      }
    });
    const same = answers.filter((_, i) => sent[i].kind === 'sameReference');
    const sameOk = same.filter((r) => r.statusCode === 200);
    expect(sameOk).toHaveLength(1);
    for (const r of same.filter((x) => x.statusCode !== 200)) {
      const p = clientError(r, 409);
      expect(p.errorCode).toBe('E906');
      expect(p.detail).toContain(shared);
    }
    okNumbers.push(sameOk[0].json().timedAccountNumber);

    // Exactly the answered requests exist, open; nothing of the refused ones.
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1', [who.merchantAccountNumber])).toBe(31);
    const { rows } = await t.db.query<{ timed_account_number: string; status_code: string }>('select timed_account_number, status_code from payment_requests where merchant_account_number = $1', [
      who.merchantAccountNumber,
    ]);
    expect(rows.map((r) => r.timed_account_number).sort()).toEqual([...okNumbers].sort());
    expect(rows.every((r) => r.status_code === 'O')).toBe(true);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and amount_minor not between 50000 and 100000', [who.merchantAccountNumber])).toBe(0);
    const sharedRow = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where merchant_account_number = $1 and reference_number = $2', [
      who.merchantAccountNumber,
      shared,
    ]);
    expect(sharedRow.rows.map((r) => r.timed_account_number)).toEqual([sameOk[0].json().timedAccountNumber]);
    // Every request went through the shared insert first (refused ones included), and some shared.
    expect(after.sum - before.sum).toBe(50);
    expect(after.sum - before.sum).toBeGreaterThan(after.count - before.count);
  });

  it('inserts the good requests of a batch whose statement fails one by one, and the bad one not at all', async () => {
    const { batcher, sizes, warnings } = ownBatcher();
    const inputs = Array.from({ length: 8 }, (_, i) => input(m, { amountMinor: 300_000 + i, transactionDescription: i === 5 ? 'Bad \u0000 byte' : `Good order ${i}` }));
    // Submitted in one turn: one batch of 8.
    const settled = await outcomes(inputs.map((x) => createPaymentRequest(t.deps, t.db, x, batcher)));
    expect(sizes).toEqual([8]);
    // The batch statement failed (PostgreSQL refuses NUL in text), so every request went on alone.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ rows: 8 });

    const bad = settled[5];
    expect(bad.status).toBe('rejected');
    expect((bad as PromiseRejectedResult).reason).not.toBeInstanceOf(AppError);
    expect(((bad as PromiseRejectedResult).reason as { code?: string }).code).toBe('22021');
    expect(await count('select count(*)::int as n from payment_requests where reference_number = $1', [inputs[5].referenceNumber])).toBe(0);

    for (const [i, s] of settled.entries()) {
      if (i === 5) continue;
      expect(s.status, String((s as PromiseRejectedResult).reason)).toBe('fulfilled');
      const request = (s as PromiseFulfilledResult<Awaited<ReturnType<typeof createPaymentRequest>>>).value;
      expect(request).toMatchObject({ merchant_account_number: m.merchantAccountNumber, reference_number: inputs[i].referenceNumber, amount_minor: 300_000 + i, status_code: 'O' });
      expect(await requestRow(request.timed_account_number)).toMatchObject({
        merchant_account_number: m.merchantAccountNumber,
        reference_number: inputs[i].referenceNumber,
        amount_minor: 300_000 + i,
        transaction_description: `Good order ${i}`,
        status_code: 'O',
      });
    }
    expect(await count('select count(*)::int as n from payment_requests where reference_number = any($1)', [inputs.map((x) => x.referenceNumber)])).toBe(7);
  });

  it('refuses with detail.referenceOpen only the batched request whose reference is already open', async () => {
    const who = await newMerchant(t);
    const open = await openRequest(who);
    const { batcher, sizes, warnings } = ownBatcher();
    const twice = ref();
    const inputs = [
      input(who),
      input(who),
      input(who, { referenceNumber: open.referenceNumber, amountMinor: 777_700 }),
      input(who),
      // Two of one batch with the same new reference: the first placed wins, the other is refused.
      input(who, { referenceNumber: twice }),
      input(who, { referenceNumber: twice }),
      // The same reference for another merchant is no conflict.
      input(other, { referenceNumber: open.referenceNumber }),
    ];
    const settled = await outcomes(inputs.map((x) => createPaymentRequest(t.deps, t.db, x, batcher)));
    expect(sizes).toEqual([7]);
    expect(warnings).toEqual([]);

    const reused = settled[2];
    expect(reused.status).toBe('rejected');
    const err = (reused as PromiseRejectedResult).reason;
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('conflict');
    expect((err as AppError).detailKey).toBe('detail.referenceOpen');
    for (const i of [0, 1, 3, 6]) expect(settled[i].status, String((settled[i] as PromiseRejectedResult).reason)).toBe('fulfilled');
    const pair = [settled[4], settled[5]];
    expect(pair.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
    const loser = pair.find((s) => s.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(AppError);
    expect((loser.reason as AppError).detailKey).toBe('detail.referenceOpen');

    // The open request is untouched and still the only one with its reference; no 7,777.00 request exists.
    const { rows } = await t.db.query<{ timed_account_number: string; status_code: string }>(
      'select timed_account_number, status_code from payment_requests where merchant_account_number = $1 and reference_number = $2',
      [who.merchantAccountNumber, open.referenceNumber],
    );
    expect(rows).toEqual([{ timed_account_number: open.timedAccountNumber, status_code: 'O' }]);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and amount_minor = 777700', [who.merchantAccountNumber])).toBe(0);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and reference_number = $2', [who.merchantAccountNumber, twice])).toBe(1);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1', [who.merchantAccountNumber])).toBe(5);
    expect(await count('select count(*)::int as n from payment_requests where merchant_account_number = $1 and reference_number = $2', [other.merchantAccountNumber, open.referenceNumber])).toBe(1);
  });

  it('makes no batcher with INITIATE_BATCH_ROWS 1, and sizes one from the config otherwise', async () => {
    expect(createRequestBatcher({ ...t.deps, config: { ...t.deps.config, initiateBatchRows: 1 } })).toBeUndefined();
    const two = createRequestBatcher({ ...t.deps, config: { ...t.deps.config, initiateBatchRows: 2, dbPoolSize: 12 } });
    expect(two?.maxBatch).toBe(2);
    expect(two?.maxInFlight).toBe(3);
    expect(createRequestBatcher({ ...t.deps, config: { ...t.deps.config, dbPoolSize: 2 } })?.maxInFlight).toBe(1);
    // Without a batcher, requests are inserted one by one.
    const request = await createPaymentRequest(t.deps, t.db, input(m), undefined);
    expect((await requestRow(request.timed_account_number)).status_code).toBe('O');
  });

  it('inserts each request alone when the app runs with INITIATE_BATCH_ROWS=1', async () => {
    const solo = await startTestApp({ INITIATE_BATCH_ROWS: '1' });
    try {
      const who = await newMerchant(solo);
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          solo.app.inject({
            method: 'POST',
            url: `${BASE}/collections/requestToPay/initiate`,
            headers: who.auth,
            payload: { merchantAccountNumber: who.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Alone', referenceNumber: ref(), capturedBy: ACTOR },
          }),
        ),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      expect(new Set(results.map((r) => r.json().timedAccountNumber)).size).toBe(20);
      expect((await solo.db.query<{ n: number }>('select count(*)::int as n from payment_requests where merchant_account_number = $1', [who.merchantAccountNumber])).rows[0].n).toBe(20);
      // No shared insert ran.
      expect(await batchedRows(solo.app)).toEqual({ count: 0, sum: 0 });
    } finally {
      await solo.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Paying a timed account

describe('POST /collections/requestToPay/addFakeTransaction', () => {
  it('records a successful RTP collection, credits the merchant less 1 % and emits payrequest.success', async () => {
    const who = await newMerchant(t, { accountName: 'Mwale Traders' });
    await webhookFor(t, who, 'payrequest.success');
    const open = await openRequest(who, '1234.50');
    const res = await payTimed(who, open.timedAccountNumber, { transactionAmount: '1234.50', connectorId: AIRTEL });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.beneficiary).toEqual({ accountNumber: open.timedAccountNumber, accountName: 'Mwale Traders', amountReceived: 1222.15, currencyCode: 'MWK' });
    expect(body.source).toMatchObject({ amountSent: 1234.5, currencyCode: 'MWK', connectorId: AIRTEL, connectorName: 'Airtel Money' });
    expect(body.source.accountNumber).toMatch(/^265[0-9]{9}$/);
    expect(body.transaction).toMatchObject({
      transactionFee: 12.35, // 1 % of 1,234.50 = 12.345, rounded half up
      transactionDescription: 'Order 42',
      transactionCode: 'RTP',
      transactionTypeName: 'Request to pay',
      transactionStatusCode: 'S',
      transactionStatusName: 'Success',
      responseCode: 'S100',
      responseMessage: 'Transaction successful',
    });
    expect(body.transaction.transactionReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
    expect(body.metaData).toEqual({ timedAccountNumber: open.timedAccountNumber, referenceNumber: open.referenceNumber });

    const row = await requestRow(open.timedAccountNumber);
    expect(row.status_code).toBe('P');
    expect(row.paid_at).toBeInstanceOf(Date);
    expect(await collectionMinor(who)).toBe(122_215);
    expect((await account(who)).collectionBalance).toBe(1222.15);

    const events = await eventsFor(body.transaction.transactionReferenceNumber);
    expect(events).toHaveLength(1);
    expect(events[0].event_code).toBe('payrequest.success');
    expect(events[0].payload).toMatchObject({
      eventCode: 'payrequest.success',
      merchantAccountNumber: who.merchantAccountNumber,
      transactionAmount: 1234.5,
      transactionFee: 12.35,
      transactionStatusCode: 'S',
      transactionCode: 'RTP',
      responseCode: 'S100',
      beneficiaryAccountNumber: open.timedAccountNumber,
      metaData: { timedAccountNumber: open.timedAccountNumber, referenceNumber: open.referenceNumber },
    });
    expect(await count('select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and event_code = $2', [who.merchantAccountNumber, 'payrequest.success'])).toBe(1);
    await expectLedgerBalanced();
  });

  it('answers 404 E903 for an unknown timed account and records nothing', async () => {
    // A well-formed number no open or past request holds.
    let unknown = '';
    do unknown = `1${String(randomInt(1e7)).padStart(7, '0')}`;
    while ((await count('select count(*)::int as n from payment_requests where timed_account_number = $1', [unknown])) > 0);
    const p = await refusedUnchanged(() => payTimed(m, unknown), 404, 'E903');
    expect(p.detail).toBe(`Timed account ${unknown} was not found.`);
  });

  it("answers 404 E903 for another merchant's timed account, indistinguishable from an unknown one", async () => {
    const theirs = await openRequest(other, 2500);
    const p = await refusedUnchanged(() => payTimed(m, theirs.timedAccountNumber), 404, 'E903');
    expect(p.detail).toBe(`Timed account ${theirs.timedAccountNumber} was not found.`);
    expect(p.title).toBe('Not found');
    expect(JSON.stringify(p)).not.toContain(String(other.merchantAccountNumber));
    expect((await requestRow(theirs.timedAccountNumber)).status_code).toBe('O');
    // With the other merchant's own number in the body, the token's binding refuses it first.
    await refusedUnchanged(() => payTimed(m, theirs.timedAccountNumber, { merchantAccountNumber: other.merchantAccountNumber }), 404, 'E903');
  });

  it('answers 402 E920 for an expired timed account and records nothing', async () => {
    const open = await openRequest(m);
    await t.db.query(`update payment_requests set created_at = now() - interval '20 minutes', expires_at = now() - interval '5 minutes' where timed_account_number = $1 and status_code = 'O'`, [
      open.timedAccountNumber,
    ]);
    const p = await refusedUnchanged(() => payTimed(m, open.timedAccountNumber), 402, 'E920');
    expect(p.detail).toContain(open.timedAccountNumber);
    // Also once the job has marked it expired.
    await t.db.query(`update payment_requests set status_code = 'E' where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
    await refusedUnchanged(() => payTimed(m, open.timedAccountNumber), 402, 'E920');
  });

  it('refuses payment from expiryDate on, by the database clock', async () => {
    const open = await openRequest(m);
    const input = { merchantAccountNumber: m.merchantAccountNumber, amountMinor: 250_000, connectorId: AIRTEL, timedAccountNumber: open.timedAccountNumber, currencyCode: 'MWK', capturedBy: ACTOR };
    const client = await t.db.connect();
    try {
      // Inside one transaction now() stands still: expires_at = now() is the exact boundary.
      await client.query('begin');
      await client.query(`update payment_requests set expires_at = now() where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
      const refused = await payTimedAccount(client, input).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).kind).toBe('timedAccountExpired');
      await client.query('rollback');
      // One microsecond before expiryDate it is still payable.
      await client.query('begin');
      await client.query(`update payment_requests set expires_at = now() + interval '1 microsecond' where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
      const collection = await payTimedAccount(client, input);
      expect(collection.request_id).toBe((await requestRow(open.timedAccountNumber)).request_id);
      await client.query('rollback');
    } finally {
      client.release();
    }
    // Over HTTP: an expiry that has just passed by the database clock is refused.
    await t.db.query(`update payment_requests set expires_at = now() where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
    const p = await refusedUnchanged(() => payTimed(m, open.timedAccountNumber), 402, 'E920');
    const { expires_at } = await requestRow(open.timedAccountNumber);
    expect(p.detail).toContain((expires_at as Date).toISOString());
  });

  it("decides expiry by the database clock, not the application's", async () => {
    const open = await openRequest(m);
    await t.db.query(`update payment_requests set expires_at = now() + interval '1 minute' where timed_account_number = $1 and status_code = 'O'`, [open.timedAccountNumber]);
    // The application's clock is 2 minutes ahead (past expiryDate); the database's is not.
    t.clock.advance(2 * 60_000);
    try {
      const res = await payTimed(m, open.timedAccountNumber);
      expect(res.statusCode, res.body).toBe(200);
    } finally {
      t.clock.advance(-2 * 60_000);
    }
  });

  it('answers 402 E921 for a paid timed account and records nothing more', async () => {
    const open = await openRequest(m);
    expect((await payTimed(m, open.timedAccountNumber)).statusCode).toBe(200);
    const p = await refusedUnchanged(() => payTimed(m, open.timedAccountNumber), 402, 'E921');
    expect(p.detail).toContain(open.timedAccountNumber);
  });

  it('answers 402 E922 for an amount other than the requested one', async () => {
    const open = await openRequest(m, 2500);
    const p = await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, { transactionAmount: '2499.99' }), 402, 'E922');
    expect(p.detail).toContain('2,500.00');
    await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, { transactionAmount: '2500.01' }), 402, 'E922');
    // Still payable with the right amount, given as a string.
    expect((await payTimed(m, open.timedAccountNumber, { transactionAmount: '2500.00' })).statusCode).toBe(200);
  });

  it('answers 402 E923 for another currency', async () => {
    const open = await openRequest(m, 2500);
    const p = await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, { currencyCode: 'USD' }), 402, 'E923');
    expect(p.detail).toContain('USD');
    expect((await requestRow(open.timedAccountNumber)).status_code).toBe('O');
  });

  it.each([
    ['a timed account of 7 digits', { timedAccountNumber: '1234567' }],
    ['a timed account not beginning with 1', { timedAccountNumber: '23456789' }],
    ['a lower-case currency', { currencyCode: 'mwk' }],
    ['a connector of 5 digits', { connectorId: 12345 }],
    ['a zero amount', { transactionAmount: 0 }],
    ['a malformed capturedBy', { capturedBy: 'nobody' }],
  ])('refuses %s with 400 E900', async (_name, over) => {
    const open = await openRequest(m);
    await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, over), 400, 'E900');
  });

  it('answers 404 for an unknown connector and 402 E917 for one that takes no collections', async () => {
    const open = await openRequest(m);
    await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, { connectorId: 999999 }), 404, 'E903');
    await t.db.query('update connectors set is_collection_allowed = false where connector_id = 221900');
    try {
      await refusedUnchanged(() => payTimed(m, open.timedAccountNumber, { connectorId: 221900 }), 402, 'E917');
    } finally {
      await t.db.query('update connectors set is_collection_allowed = true where connector_id = 221900');
    }
  });

  it('pays a timed account exactly once under 10 concurrent payments', async () => {
    const who = await newMerchant(t);
    const open = await openRequest(who, 2500);
    const results = await Promise.all(Array.from({ length: 10 }, () => payTimed(who, open.timedAccountNumber)));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    const refused = results.filter((r) => r.statusCode !== 200);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(r.statusCode).toBe(402);
      expect(problemOf(r).errorCode).toBe('E921');
    }
    const reference = ok[0].json().transaction.transactionReferenceNumber as string;
    const { request_id } = await requestRow(open.timedAccountNumber);
    expect(await count('select count(*)::int as n from collections where request_id = $1', [request_id])).toBe(1);
    expect(await count('select count(*)::int as n from collections where merchant_account_number = $1', [who.merchantAccountNumber])).toBe(1);
    expect(await count(`select count(*)::int as n from ledger_transfers where merchant_account_number = $1`, [who.merchantAccountNumber])).toBe(1);
    expect(await count(`select count(*)::int as n from ledger_transfers where reference = $1 and transfer_type = 'payrequest'`, [reference])).toBe(1);
    const events = await t.db.query<{ event_code: string; payload: { metaData: unknown } }>('select event_code, payload from outbox_events where merchant_account_number = $1', [who.merchantAccountNumber]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].event_code).toBe('payrequest.success');
    expect(events.rows[0].payload.metaData).toEqual({ timedAccountNumber: open.timedAccountNumber, referenceNumber: open.referenceNumber });
    expect(await collectionMinor(who)).toBe(250_000 - 2_500);
    await expectLedgerBalanced();
  });

  it('replays a payment for the same idempotency key, once in the ledger', async () => {
    const who = await newMerchant(t);
    const open = await openRequest(who, 2500);
    const key = idemKey();
    const results = await Promise.all(Array.from({ length: 5 }, () => payTimed(who, open.timedAccountNumber, {}, { 'x-idempotency-key': key })));
    for (const r of results) if (r.statusCode !== 200) expect(problemOf(r).errorCode).toBe('E907');
    const again = await payTimed(who, open.timedAccountNumber, {}, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(results.filter((r) => r.statusCode === 200).every((r) => r.body === again.body)).toBe(true);
    expect(await count('select count(*)::int as n from collections where merchant_account_number = $1', [who.merchantAccountNumber])).toBe(1);
    expect(await collectionMinor(who)).toBe(247_500);
  });
});

// ---------------------------------------------------------------------------------------------
// E11

describe('E11 POST /collections/addFakeCustomPayment', () => {
  it('returns the nested result: 500 fee on 50,000, S100, and the merchant is credited 49,500', async () => {
    const who = await newMerchant(t, { accountName: 'Banda Hardware' });
    const res = await customPay(who, { transactionAmount: 50000, connectorId: NBM });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['beneficiary', 'source', 'transaction']);
    expect(body.beneficiary).toEqual({ accountNumber: who.paymentAccountNumber, accountName: 'Banda Hardware', amountReceived: 49500, currencyCode: 'MWK' });
    expect(Object.keys(body.source).sort()).toEqual(['accountNumber', 'amountSent', 'connectorId', 'connectorName', 'currencyCode', 'customerName', 'sourceReferenceNumber']);
    expect(body.source).toMatchObject({ amountSent: 50000, currencyCode: 'MWK', connectorId: NBM, connectorName: 'National Bank of Malawi' });
    expect(typeof body.source.accountNumber).toBe('string');
    expect(body.source.customerName.length).toBeGreaterThan(0);
    expect(body.source.sourceReferenceNumber.length).toBeGreaterThan(0);
    expect(Object.keys(body.transaction).sort()).toEqual(
      [
        'bridgeReferenceNumber',
        'responseCode',
        'responseMessage',
        'transactionCode',
        'transactionDate',
        'transactionDescription',
        'transactionFee',
        'transactionReferenceNumber',
        'transactionStatusCode',
        'transactionStatusName',
        'transactionTypeName',
        'valueDate',
      ].sort(),
    );
    expect(body.transaction).toMatchObject({
      transactionFee: 500,
      transactionCode: 'BAM',
      transactionTypeName: 'Account to merchant',
      transactionStatusCode: 'S',
      transactionStatusName: 'Success',
      responseCode: 'S100',
      responseMessage: 'Transaction successful',
    });
    expect(body.transaction.transactionReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
    expect(body.transaction.bridgeReferenceNumber.length).toBeGreaterThan(0);
    for (const field of ['transactionDate', 'valueDate']) {
      expect(body.transaction[field]).toMatch(/Z$/);
      expect(new Date(body.transaction[field]).toISOString()).toBe(body.transaction[field]);
    }
    expect(body.beneficiary.amountReceived).toBe(body.source.amountSent - body.transaction.transactionFee);
    expect(await collectionMinor(who)).toBe(4_950_000);
    expect(await account(who)).toMatchObject({ collectionBalance: 49500, disbursmentBalance: 0, accountBalance: 49500 });
    // One balanced transfer: customer → merchant (less the fee) → fees.
    const { rows } = await t.db.query<{ amount_minor: number; kind: string; merchant: number | null }>(
      `select e.amount_minor, a.kind, a.merchant_account_number as merchant
         from ledger_entries e join ledger_transfers tr using (merchant_account_number, transfer_id) join ledger_accounts a using (merchant_account_number, account_id)
        where tr.reference = $1 and tr.transfer_type = 'payment' order by e.amount_minor`,
      [body.transaction.transactionReferenceNumber],
    );
    expect(rows).toEqual([
      // The merchant's own system accounts (migration 0029): every entry of a transfer is its merchant's.
      { amount_minor: -5_000_000, kind: 'customer_payments', merchant: who.merchantAccountNumber },
      { amount_minor: 50_000, kind: 'fees', merchant: who.merchantAccountNumber },
      { amount_minor: 4_950_000, kind: 'collection', merchant: who.merchantAccountNumber },
    ]);
    await expectLedgerBalanced();
  });

  it('emits payment.success with the flat payload of product.md §11', async () => {
    const who = await newMerchant(t);
    await webhookFor(t, who, 'payment.success');
    const body = await paid(who, '1500.75', { connectorId: AIRTEL });
    const events = await eventsFor(body.transaction.transactionReferenceNumber);
    expect(events).toHaveLength(1);
    expect(events[0].event_code).toBe('payment.success');
    expect(events[0].merchant_account_number).toBe(who.merchantAccountNumber);
    expect(events[0].payload).toEqual({
      eventCode: 'payment.success',
      merchantAccountNumber: who.merchantAccountNumber,
      connectorId: AIRTEL,
      connectorName: 'Airtel Money',
      sourceInstitution: 'Airtel Money',
      sourceAccountNumber: body.source.accountNumber,
      sourceAccountName: body.source.customerName,
      sourceReferenceNumber: body.source.sourceReferenceNumber,
      beneficiaryAccountNumber: who.paymentAccountNumber,
      transactionReferenceNumber: body.transaction.transactionReferenceNumber,
      transactionDescription: body.transaction.transactionDescription,
      transactionAmount: 1500.75,
      transactionFee: 15.01, // 15.0075 rounded half up
      currencyCode: 'MWK',
      transactionDate: body.transaction.transactionDate,
      transactionStatusCode: 'S',
      transactionCode: 'BAM',
      responseCode: 'S100',
      responseMessage: 'Transaction successful',
    });
    expect(body.source.accountNumber).toMatch(/^265[0-9]{9}$/);
    expect(await count('select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and event_code = $2', [who.merchantAccountNumber, 'payment.success'])).toBe(1);
  });

  it.each([
    ['a beneficiaryAccountNumber of 9 characters', { beneficiaryAccountNumber: '123456789' }],
    ['a beneficiaryAccountNumber of 16 characters', { beneficiaryAccountNumber: '1234567890123456' }],
    ['a beneficiaryAccountNumber with letters', { beneficiaryAccountNumber: '12345ABCDE' }],
    ['a connectorId of 5 digits', { connectorId: 99999 }],
    ['a connectorId of 7 digits', { connectorId: 1000000 }],
    ['an amount of 0', { transactionAmount: 0 }],
    ['a negative amount', { transactionAmount: -50 }],
    ['an amount with 3 decimals', { transactionAmount: '100.125' }],
    ['an amount above 50,000,000', { transactionAmount: '50000000.01' }],
    ['a createdBy of 61 characters', { createdBy: `${'a'.repeat(53)}@shop.mw` }],
    ['a malformed createdBy', { createdBy: 'not-an-email' }],
    ['a missing createdBy', { createdBy: undefined }],
  ])('refuses %s with 400 E900 and changes nothing', async (_name, over) => {
    await refusedUnchanged(() => customPay(m, over), 400, 'E900');
  });

  it('accepts the bounds: 10- and 15-character accounts (when they exist), 50,000,000 and a 60-character createdBy', async () => {
    const who = await newMerchant(t);
    expect(who.paymentAccountNumber).toMatch(/^[0-9]{10,15}$/);
    await setLimit(who, 'BAM', 100, 5_000_000_000, 10_000_000_000);
    const createdBy = `${'a'.repeat(52)}@shop.mw`;
    expect(createdBy).toHaveLength(60);
    const max = await customPay(who, { transactionAmount: 50_000_000, createdBy });
    expect(max.statusCode, max.body).toBe(200);
    expect(max.json().transaction.transactionFee).toBe(500_000);
    const smallest = await customPay(who, { transactionAmount: 100 });
    expect(smallest.statusCode, smallest.body).toBe(200);
  });

  it('answers 404 E903 for an unknown 6-digit connector and for an unknown payment account', async () => {
    const p = await refusedUnchanged(() => customPay(m, { connectorId: 999999 }), 404, 'E903');
    expect(p.detail).toContain('999999');
    let unknown = '';
    do unknown = `9${String(randomInt(1e11)).padStart(11, '0')}`;
    while ((await count('select count(*)::int as n from merchants where payment_account_number = $1', [unknown])) > 0);
    await refusedUnchanged(() => customPay(m, { beneficiaryAccountNumber: unknown }), 404, 'E903');
  });

  it("answers 404 E903 for another merchant's payment account, as for an unknown one", async () => {
    const p = await refusedUnchanged(() => customPay(m, { beneficiaryAccountNumber: other.paymentAccountNumber }), 404, 'E903');
    expect(p.detail).toBe(`Payment account ${other.paymentAccountNumber} was not found.`);
    expect(JSON.stringify(p)).not.toContain(String(other.merchantAccountNumber));
    expect(JSON.stringify(p)).not.toContain(other.accountName);
  });

  it("answers 404 E903 when the request also names another merchant's account number", async () => {
    await refusedUnchanged(() => customPay(m, { merchantAccountNumber: other.merchantAccountNumber }), 404, 'E903');
    const p = await refusedUnchanged(() => customPay(m, { merchantAccountNumber: 1234 }), 400, 'E900');
    expect(p.errors).toContain('Merchant Account Number should be 8 numbers only.');
    // Its own number is fine.
    expect((await customPay(m, { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 1000 })).statusCode).toBe(200);
  });

  it('enforces the BAM per-transaction minimum with 402 E914', async () => {
    await refusedUnchanged(() => customPay(m, { transactionAmount: '99.99' }), 402, 'E914');
  });

  it('refuses the payment that would cross the daily limit with 402 E912', async () => {
    const who = await newMerchant(t);
    // Maximum MWK 1,000 per payment, MWK 1,500 a day.
    await setLimit(who, 'BAM', 10_000, 100_000, 150_000);
    await paid(who, 1000);
    const p = await refusedUnchanged(() => customPay(who, { transactionAmount: 600 }), 402, 'E912');
    expect(p.detail).toContain('1,500.00');
    await refusedUnchanged(() => customPay(who, { transactionAmount: '1000.00' }), 402, 'E912');
    // Up to the limit exactly is allowed; then nothing more.
    await paid(who, 500);
    await refusedUnchanged(() => customPay(who, { transactionAmount: 100 }), 402, 'E912');
    expect(await collectionMinor(who)).toBe(150_000 - 1_500);
    // RTP has its own daily total.
    const open = await openRequest(who, 1000);
    expect((await payTimed(who, open.timedAccountNumber, { transactionAmount: 1000 })).statusCode).toBe(200);
  });

  it('keeps the day\'s collected total as a running total per merchant, code and currency; a reversal frees its part of the limit', async () => {
    const who = await newMerchant(t);
    await setLimit(who, 'BAM', 10_000, 100_000, 150_000);
    const first = await paid(who, 1000);
    await paid(who, 300);
    const totals = () =>
      t.db.query<{ transaction_code: string; amount_minor: number; today: boolean }>(
        `select transaction_code, amount_minor, day = (now() at time zone 'UTC')::date as today from collection_daily_totals where merchant_account_number = $1`,
        [who.merchantAccountNumber],
      );
    // One row, read under the limit's lock instead of summing the day's collections on every payment.
    expect((await totals()).rows).toEqual([{ transaction_code: 'BAM', amount_minor: 130_000, today: true }]);
    await refusedUnchanged(() => customPay(who, { transactionAmount: 300 }), 402, 'E912');
    expect((await reverseReq(who, first.transaction.transactionReferenceNumber)).statusCode).toBe(200);
    expect((await totals()).rows).toEqual([{ transaction_code: 'BAM', amount_minor: 30_000, today: true }]);
    await paid(who, 1000);
    await paid(who, 200);
    await refusedUnchanged(() => customPay(who, { transactionAmount: 100 }), 402, 'E912');
  });

  it('finds the request holding a timed account number through an index, however many requests there are', async () => {
    const who = await newMerchant(t);
    // Many requests, most of them no longer open: the lookup must not walk them.
    await t.db.query(
      `insert into payment_requests (merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description, reference_number, captured_by, status_code, created_at, expires_at)
       select $1, (10000000 + g)::text, 100000, 'MWK', 'Old', 'OLDREF' || g, 'a@b.mw', 'E', now() - interval '1 day', now() - interval '23 hours'
         from generate_series(1, 20000) g`,
      [who.merchantAccountNumber],
    );
    await t.db.query(
      `insert into timed_account_claims (timed_account_number, merchant_account_number, request_id, is_open)
       select timed_account_number, merchant_account_number, request_id, false from payment_requests
        where merchant_account_number = $1 and reference_number like 'OLDREF%'
       on conflict do nothing`,
      [who.merchantAccountNumber],
    );
    await t.db.query('analyze payment_requests');
    await t.db.query('analyze timed_account_claims');
    // The number's claim by its primary key (migration 0032), then the request by its key (repository.ts lockRequestByTimedAccount).
    const plan = async (sql: string, params: unknown[]) => (await t.db.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(await plan(`select merchant_account_number, request_id, is_open from timed_account_claims where timed_account_number = '10000042'`, [])).toMatch(
      /Index (Only )?Scan[^\n]*timed_account_claims_pkey/,
    );
    expect(await plan('select * from payment_requests where merchant_account_number = $1 and request_id = 42 for update', [who.merchantAccountNumber])).toMatch(
      /Index (Only )?Scan[^\n]*payment_requests_(pkey|request_id_idx)/,
    );
  });

  it('keeps the daily limit under concurrent payments', async () => {
    const who = await newMerchant(t);
    await setLimit(who, 'BAM', 10_000, 100_000, 150_000);
    const results = await Promise.all(Array.from({ length: 10 }, () => customPay(who, { transactionAmount: 500 })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.statusCode !== 200)) expect(problemOf(r).errorCode).toBe('E912');
    expect(await count(`select count(*)::int as n from collections where merchant_account_number = $1`, [who.merchantAccountNumber])).toBe(3);
  });

  it('replays the first answer for the same idempotency key, once in the ledger', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    const first = await customPay(who, { transactionAmount: 2000 }, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    const second = await customPay(who, { transactionAmount: 2000 }, { 'x-idempotency-key': key });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await count('select count(*)::int as n from collections where merchant_account_number = $1', [who.merchantAccountNumber])).toBe(1);
    expect(await collectionMinor(who)).toBe(198_000);
    expect(problemOf(await customPay(who, { transactionAmount: 2001 }, { 'x-idempotency-key': key })).errorCode).toBe('E907');
  });
});

// ---------------------------------------------------------------------------------------------
// Fees and the ledger

describe('fees and the ledger', () => {
  it('credits the sum of (amount − fee) exactly, with 1 % fees rounded half up', async () => {
    const who = await newMerchant(t);
    // [amount, expected fee] in tambala.
    const direct: Array<[string, number, number]> = [
      ['50000', 5_000_000, 50_000],
      ['150.50', 15_050, 151], // 150.5 tambala → 151 (half up; banker's rounding would give 150)
      ['100.49', 10_049, 100], // 100.49 → 100
      ['123.45', 12_345, 123], // 123.45 → 123
    ];
    let expected = 0;
    for (const [amount, minor, fee] of direct) {
      const body = await paid(who, amount);
      expect(Math.round(body.transaction.transactionFee * 100)).toBe(fee);
      expect(Math.round(body.beneficiary.amountReceived * 100)).toBe(minor - fee);
      expected += minor - fee;
    }
    const viaRtp: Array<[string, number, number]> = [
      ['1234.50', 123_450, 1_235], // 1234.5 → 1235
      ['333.33', 33_333, 333], // 333.33 → 333
      ['250.50', 25_050, 251], // 250.5 → 251
    ];
    for (const [amount, minor, fee] of viaRtp) {
      const open = await openRequest(who, amount);
      const res = await payTimed(who, open.timedAccountNumber, { transactionAmount: amount });
      expect(res.statusCode, res.body).toBe(200);
      expect(Math.round(res.json().transaction.transactionFee * 100)).toBe(fee);
      expected += minor - fee;
    }
    expect(expected).toBe(4_950_000 + 14_899 + 9_949 + 12_222 + 122_215 + 33_000 + 24_799);
    expect(await collectionMinor(who)).toBe(expected);
    expect(Math.round((await account(who)).collectionBalance * 100)).toBe(expected);
    expect((await account(who)).collectionBalance).toBe(expected / 100);
    const { rows } = await t.db.query<{ net: number }>('select sum(amount_minor - fee_minor)::bigint as net from collections where merchant_account_number = $1', [who.merchantAccountNumber]);
    expect(rows[0].net).toBe(expected);
    await expectLedgerBalanced();
  });

  it('takes fees from fee_schedules (2.5 % + MWK 10 flat)', async () => {
    const who = await newMerchant(t);
    await t.db.query(`update fee_schedules set percent_basis_points = 250, flat_minor = 1000 where transaction_code in ('BAM', 'RTP') and currency_code = 'MWK'`);
    try {
      const direct = await paid(who, 1000);
      expect(direct.transaction.transactionFee).toBe(35); // 25.00 + 10.00
      expect(direct.beneficiary.amountReceived).toBe(965);
      const open = await openRequest(who, '100.10');
      const res = await payTimed(who, open.timedAccountNumber, { transactionAmount: '100.10' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().transaction.transactionFee).toBe(12.5); // 2.5025 → 2.50, + 10.00
      expect(await collectionMinor(who)).toBe(96_500 + 10_010 - 1_250);
      const stored = await t.db.query<{ fee_minor: number }>('select fee_minor from collections where merchant_account_number = $1 order by collection_id', [who.merchantAccountNumber]);
      expect(stored.rows.map((r) => r.fee_minor)).toEqual([3_500, 1_250]);
    } finally {
      await t.db.query(`update fee_schedules set percent_basis_points = 100, flat_minor = 0 where transaction_code in ('BAM', 'RTP') and currency_code = 'MWK'`);
    }
    await expectLedgerBalanced();
  });

  it('handles a fee as large as the payment (the merchant receives nothing) without error, and reverses it', async () => {
    const who = await newMerchant(t);
    await t.db.query(`update fee_schedules set percent_basis_points = 0, flat_minor = 20000 where transaction_code = 'BAM' and currency_code = 'MWK'`);
    let body;
    try {
      body = await paid(who, 150);
    } finally {
      await t.db.query(`update fee_schedules set percent_basis_points = 100, flat_minor = 0 where transaction_code = 'BAM' and currency_code = 'MWK'`);
    }
    expect(body.transaction.transactionFee).toBe(150);
    expect(body.beneficiary.amountReceived).toBe(0);
    expect(await collectionMinor(who)).toBe(0);
    await expectLedgerBalanced();
    const reversed = await reverseReq(who, body.transaction.transactionReferenceNumber);
    expect(reversed.statusCode, reversed.body).toBe(200);
    expect(await collectionMinor(who)).toBe(0);
    await expectLedgerBalanced();
  });
});

// ---------------------------------------------------------------------------------------------
// Views

describe('POST /collections/getTransactions and /collections/getTransaction', () => {
  let g: TestMerchant;
  /** References in creation order (oldest first). */
  const refs: string[] = [];
  let rtp: { timedAccountNumber: string; referenceNumber: string; transactionReferenceNumber: string };

  beforeAll(async () => {
    g = await newMerchant(t, { accountName: 'Gondwe Pharmacy' });
    for (const amount of [1000, 1100, 1200, 1300, 1400]) refs.push((await paid(g, amount)).transaction.transactionReferenceNumber);
    const open = await openRequest(g, 2500, `ORDERabc${randomBytes(3).toString('hex')}`);
    const res = await payTimed(g, open.timedAccountNumber);
    expect(res.statusCode).toBe(200);
    rtp = { ...open, transactionReferenceNumber: res.json().transaction.transactionReferenceNumber };
    refs.push(rtp.transactionReferenceNumber);
    refs.push((await paid(g, 1600)).transaction.transactionReferenceNumber);
    // Deterministic names for the search tests.
    const names = ['Chisomo Banda', 'CHISOMO PHIRI', 'Mercy 100% Pure', 'Under_Score Shop', 'Plain Name', 'Yamikani Gondwe', 'Limbani Zulu'];
    for (let i = 0; i < refs.length; i++) await t.db.query('update collections set source_account_name = $2 where transaction_reference_number = $1', [refs[i], names[i]]);
    // Some other merchant's collections never show.
    await paid(other, 1000);
  });

  const refsOf = (res: InjectResult) => (JSON.parse(res.body) as Array<{ transactionReferenceNumber: string }>).map((x) => x.transactionReferenceNumber);
  const newestFirst = () => [...refs].reverse();

  it('lists the merchant’s collections newest first, flat, as the gateway lists them (default page size 50)', async () => {
    const res = await list(g);
    expect(res.statusCode, res.body).toBe(200);
    expect(refsOf(res)).toEqual(newestFirst());
    const items = res.json();
    const first = items.find((x: { transactionReferenceNumber: string }) => x.transactionReferenceNumber === refs[0]);
    expect(first).toMatchObject({ transactionAmount: 1000, transactionFee: 10, amountReceived: 990, currencyCode: 'MWK', transactionStatusCode: 'S', transactionStatusName: 'Success' });
    const byRtp = items.find((x: { transactionReferenceNumber: string }) => x.transactionReferenceNumber === rtp.transactionReferenceNumber);
    expect(byRtp.metaData).toEqual({ timedAccountNumber: rtp.timedAccountNumber, referenceNumber: rtp.referenceNumber });
  });

  it('pages with pageNumber and numberOfReturnedRows, and isIncremental includes the earlier pages', async () => {
    const all = newestFirst();
    const page = async (pageNumber: number, numberOfReturnedRows: number, isIncremental = false) => {
      const res = await list(g, { pageNumber, numberOfReturnedRows, isIncremental });
      expect(res.statusCode, res.body).toBe(200);
      return refsOf(res);
    };
    expect(await page(1, 3)).toEqual(all.slice(0, 3));
    expect(await page(2, 3)).toEqual(all.slice(3, 6));
    expect(await page(3, 3)).toEqual(all.slice(6, 9));
    expect(await page(4, 3)).toEqual([]);
    expect(await page(2, 3, true)).toEqual(all.slice(0, 6));
    expect(await page(3, 3, true)).toEqual(all);
    expect(await page(1, 1)).toEqual(all.slice(0, 1));
    expect(await page(1, 1000)).toEqual(all);
  });

  it.each([
    ['numberOfReturnedRows 0', { numberOfReturnedRows: 0 }],
    ['numberOfReturnedRows 1001', { numberOfReturnedRows: 1001 }],
    ['pageNumber 0', { pageNumber: 0 }],
    ['a malformed transactionDate', { transactionDate: '01/03/2024' }],
    ['an impossible transactionDate', { transactionDate: '2024-02-30' }],
    ['an unknown searchBy', { searchBy: 'Amount', searchText: '1' }],
  ])('refuses %s with 400 E900', async (_name, over) => {
    expect(clientError(await list(g, over), 400).errorCode).toBe('E900');
  });

  it('filters on transactionDate (UTC day)', async () => {
    await t.db.query(`update collections set transaction_date = '2024-03-01T00:00:00Z' where transaction_reference_number = $1`, [refs[0]]);
    await t.db.query(`update collections set transaction_date = '2024-03-01T23:59:59.999Z' where transaction_reference_number = $1`, [refs[1]]);
    await t.db.query(`update collections set transaction_date = '2024-03-02T00:00:00Z' where transaction_reference_number = $1`, [refs[2]]);
    await t.db.query(`update collections set transaction_date = '2024-02-29T23:59:59.999Z' where transaction_reference_number = $1`, [refs[3]]);
    try {
      expect(refsOf(await list(g, { transactionDate: '2024-03-01' })).sort()).toEqual([refs[0], refs[1]].sort());
      expect(refsOf(await list(g, { transactionDate: '2024-03-02' }))).toEqual([refs[2]]);
      expect(refsOf(await list(g, { transactionDate: '2024-02-29' }))).toEqual([refs[3]]);
      expect(refsOf(await list(g, { transactionDate: '2024-03-03' }))).toEqual([]);
      const today = new Date().toISOString().slice(0, 10);
      expect(refsOf(await list(g, { transactionDate: today })).sort()).toEqual(refs.slice(4).sort());
    } finally {
      await t.db.query(`update collections set transaction_date = value_date where transaction_reference_number = any($1)`, [refs.slice(0, 4)]);
    }
  });

  it('searches case-insensitively by searchBy/searchText', async () => {
    const search = async (searchBy: string, searchText: string) => {
      const res = await list(g, { searchBy, searchText });
      expect(res.statusCode, res.body).toBe(200);
      return refsOf(res).sort();
    };
    expect(await search('CustomerName', 'chisomo')).toEqual([refs[0], refs[1]].sort());
    expect(await search('CustomerName', 'GONDWE')).toEqual([refs[5]]);
    expect(await search('TransactionReferenceNumber', refs[2].toLowerCase())).toEqual([refs[2]]);
    expect(await search('TransactionReferenceNumber', refs[2].slice(3, 9).toLowerCase())).toContain(refs[2]);
    expect(await search('ReferenceNumber', rtp.referenceNumber.toLowerCase().slice(0, 8))).toEqual([rtp.transactionReferenceNumber]);
    const { rows } = await t.db.query<{ source_reference_number: string; source_account_number: string }>(
      'select source_reference_number, source_account_number from collections where transaction_reference_number = $1',
      [refs[4]],
    );
    expect(await search('SourceReferenceNumber', rows[0].source_reference_number.toLowerCase())).toEqual([refs[4]]);
    expect(await search('SourceAccountNumber', rows[0].source_account_number)).toContain(refs[4]);
    expect(await search('CustomerName', 'nobody like this')).toEqual([]);
    // searchText without searchBy filters nothing, nor does an empty searchText (as the docs send it).
    expect(refsOf(await list(g, { searchText: 'chisomo' })).sort()).toEqual([...refs].sort());
    expect(refsOf(await list(g, { searchBy: 'CustomerName', searchText: '' })).sort()).toEqual([...refs].sort());
  });

  it('treats % and _ in searchText literally', async () => {
    const search = async (searchText: string) => refsOf(await list(g, { searchBy: 'CustomerName', searchText })).sort();
    expect(await search('%')).toEqual([refs[2]]);
    expect(await search('100%')).toEqual([refs[2]]);
    expect(await search('_')).toEqual([refs[3]]);
    expect(await search('r_s')).toEqual([refs[3]]);
    // As wildcards these would match "Chisomo Banda" and every name.
    expect(await search('o_B')).toEqual([]);
    expect(await search('Chisomo%Banda')).toEqual([]);
    expect(await search('\\')).toEqual([]);
  });

  it("answers 404 E903 to a list naming another merchant's account", async () => {
    expect(clientError(await post(g, '/collections/getTransactions', { merchantAccountNumber: other.merchantAccountNumber }), 404).errorCode).toBe('E903');
  });

  it('getTransaction returns one collection in the same shape as E11 answered', async () => {
    const body = await paid(g, 1750);
    refs.push(body.transaction.transactionReferenceNumber);
    const res = await getOne(g, body.transaction.transactionReferenceNumber);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(body);
    // The reference matches case-insensitively.
    expect((await getOne(g, body.transaction.transactionReferenceNumber.toLowerCase())).json()).toEqual(body);
    const byRtp = (await getOne(g, rtp.transactionReferenceNumber)).json();
    expect(byRtp.transaction.transactionCode).toBe('RTP');
    expect(byRtp.metaData).toEqual({ timedAccountNumber: rtp.timedAccountNumber, referenceNumber: rtp.referenceNumber });
  });

  it('getTransaction answers 404 E903 for an unknown reference and for another merchant’s', async () => {
    const unknown = clientError(await getOne(g, 'ZZZZZZZZZZZ9'), 404);
    expect(unknown.errorCode).toBe('E903');
    const theirs = (await paid(other, 1000)).transaction.transactionReferenceNumber;
    const p = clientError(await getOne(g, theirs), 404);
    expect(p.errorCode).toBe('E903');
    expect(p.detail).toBe(`Transaction ${theirs} was not found.`);
    expect(clientError(await post(g, '/collections/getTransaction', { merchantAccountNumber: other.merchantAccountNumber, transactionReferenceNumber: theirs }), 404).errorCode).toBe('E903');
  });

  it.each([['ABC'], ['ABCDEFGHIJKLM'], ['ABCDEF-GHIJK']])('getTransaction refuses reference %j with 400 E900', async (reference) => {
    expect(clientError(await getOne(g, reference), 400).errorCode).toBe('E900');
  });
});

// ---------------------------------------------------------------------------------------------
// Reversal

describe('POST /collections/reverse', () => {
  it('reverses a direct payment: balance back, fee returned, status R, payment.reversed', async () => {
    const who = await newMerchant(t);
    await webhookFor(t, who, 'payment.reversed');
    const keep = await paid(who, 2000);
    const body = await paid(who, 50000);
    const reference = body.transaction.transactionReferenceNumber as string;
    expect(await collectionMinor(who)).toBe(198_000 + 4_950_000);
    const res = await reverseReq(who, reference.toLowerCase());
    expect(res.statusCode, res.body).toBe(200);
    const reversed = res.json();
    expect(reversed.transaction).toMatchObject({ transactionReferenceNumber: reference, transactionStatusCode: 'R', transactionStatusName: 'Reversed', responseCode: 'R100', responseMessage: 'Transaction reversed' });
    expect(reversed.source.amountSent).toBe(50000);
    expect(await collectionMinor(who)).toBe(198_000);
    expect((await account(who)).collectionBalance).toBe(1980);
    // Fee returned: the fees account nets to zero for this reference; the customer got it all back.
    const { rows } = await t.db.query<{ kind: string; net: number }>(
      `select a.kind, sum(e.amount_minor)::bigint as net
         from ledger_entries e join ledger_transfers tr using (merchant_account_number, transfer_id) join ledger_accounts a using (merchant_account_number, account_id)
        where tr.reference = $1 group by a.kind order by a.kind`,
      [reference],
    );
    expect(rows).toEqual([
      { kind: 'collection', net: 0 },
      { kind: 'customer_payments', net: 0 },
      { kind: 'fees', net: 0 },
    ]);
    const stored = await t.db.query('select status_code, reversed_at, reversal_reason from collections where transaction_reference_number = $1', [reference]);
    expect(stored.rows[0]).toMatchObject({ status_code: 'R', reversal_reason: 'Customer refund' });
    expect(stored.rows[0].reversed_at).toBeInstanceOf(Date);
    expect((await getOne(who, reference)).json().transaction.transactionStatusCode).toBe('R');
    const events = await eventsFor(reference);
    expect(events.map((e) => e.event_code)).toEqual(['payment.success', 'payment.reversed']);
    expect(events[1].payload).toMatchObject({ eventCode: 'payment.reversed', transactionStatusCode: 'R', transactionAmount: 50000, transactionFee: 500, responseCode: 'R100' });
    expect(events[1].payload).not.toHaveProperty('metaData');
    expect(await count('select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and event_code = $2', [who.merchantAccountNumber, 'payment.reversed'])).toBe(1);
    expect((await getOne(who, keep.transaction.transactionReferenceNumber)).json().transaction.transactionStatusCode).toBe('S');
    await expectLedgerBalanced();
  });

  it('reverses a request-to-pay payment with payrequest.reversed and its metaData', async () => {
    const who = await newMerchant(t);
    const open = await openRequest(who, 2500);
    const paidRes = await payTimed(who, open.timedAccountNumber);
    const reference = paidRes.json().transaction.transactionReferenceNumber as string;
    const res = await reverseReq(who, reference);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().transaction.transactionStatusCode).toBe('R');
    expect(res.json().metaData).toEqual({ timedAccountNumber: open.timedAccountNumber, referenceNumber: open.referenceNumber });
    expect(await collectionMinor(who)).toBe(0);
    const events = await eventsFor(reference);
    expect(events.map((e) => e.event_code)).toEqual(['payrequest.success', 'payrequest.reversed']);
    expect(events[1].payload).toMatchObject({
      eventCode: 'payrequest.reversed',
      transactionStatusCode: 'R',
      transactionCode: 'RTP',
      metaData: { timedAccountNumber: open.timedAccountNumber, referenceNumber: open.referenceNumber },
    });
    await expectLedgerBalanced();
  });

  it('answers 402 E924 to a second reversal and changes nothing', async () => {
    const who = await newMerchant(t);
    await paid(who, 3000);
    const reference = (await paid(who, 1000)).transaction.transactionReferenceNumber;
    expect((await reverseReq(who, reference)).statusCode).toBe(200);
    const p = await refusedUnchanged(() => reverseReq(who, reference), 402, 'E924');
    expect(p.detail).toContain(reference);
  });

  it('answers 402 E911 when the collection balance cannot cover it, and changes nothing', async () => {
    const who = await newMerchant(t);
    const first = (await paid(who, 1000)).transaction.transactionReferenceNumber;
    const second = (await paid(who, 1000)).transaction.transactionReferenceNumber;
    // Money leaves the collection balance (as a settlement would): 1,980 − 1,500 = 480 left.
    await withTransaction(t.db, async (tx) =>
      postTransfer(tx, {
        merchantAccountNumber: who.merchantAccountNumber,
        type: 'settlement',
        reference: `SETTLE${randomBytes(4).toString('hex')}`,
        entries: [
          { accountId: await merchantAccountId(tx, who.merchantAccountNumber, 'collection', 'MWK'), amountMinor: -150_000 },
          { accountId: await systemAccountId(tx, who.merchantAccountNumber, 'funding', 'MWK'), amountMinor: 150_000 },
        ],
      }),
    );
    expect(await collectionMinor(who)).toBe(48_000);
    await refusedUnchanged(() => reverseReq(who, first), 402, 'E911');
    // Another reversal empties it further: topped back up to 990 exactly, one reversal fits, the next does not.
    await withTransaction(t.db, async (tx) =>
      postTransfer(tx, {
        merchantAccountNumber: who.merchantAccountNumber,
        type: 'settlement',
        reference: `SETTLE${randomBytes(4).toString('hex')}`,
        entries: [
          { accountId: await systemAccountId(tx, who.merchantAccountNumber, 'funding', 'MWK'), amountMinor: -51_000 },
          { accountId: await merchantAccountId(tx, who.merchantAccountNumber, 'collection', 'MWK'), amountMinor: 51_000 },
        ],
      }),
    );
    expect((await reverseReq(who, second)).statusCode).toBe(200);
    expect(await collectionMinor(who)).toBe(0);
    await refusedUnchanged(() => reverseReq(who, first), 402, 'E911');
    expect((await getOne(who, first)).json().transaction.transactionStatusCode).toBe('S');
    await expectLedgerBalanced();
  });

  it('answers 404 E903 for an unknown reference and for another merchant’s collection', async () => {
    await refusedUnchanged(() => reverseReq(m, 'ZZZZZZZZZZZ8'), 404, 'E903');
    const theirs = (await paid(other, 1000)).transaction.transactionReferenceNumber;
    const p = await refusedUnchanged(() => reverseReq(m, theirs), 404, 'E903');
    expect(p.detail).toBe(`Transaction ${theirs} was not found.`);
    await refusedUnchanged(() => post(m, '/collections/reverse', { merchantAccountNumber: other.merchantAccountNumber, transactionReferenceNumber: theirs, reason: 'x' }), 404, 'E903');
    expect((await getOne(other, theirs)).json().transaction.transactionStatusCode).toBe('S');
  });

  it('refuses a missing reason or a malformed reference with 400 E900', async () => {
    const reference = (await paid(m, 1000)).transaction.transactionReferenceNumber;
    await refusedUnchanged(() => post(m, '/collections/reverse', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reference }), 400, 'E900');
    await refusedUnchanged(() => reverseReq(m, 'NOT-A-REF'), 400, 'E900');
  });

  it('replays a reversal for the same idempotency key instead of answering E924', async () => {
    const who = await newMerchant(t);
    const reference = (await paid(who, 1000)).transaction.transactionReferenceNumber;
    const key = idemKey();
    const first = await reverseReq(who, reference, {}, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    const second = await reverseReq(who, reference, {}, { 'x-idempotency-key': key });
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await count(`select count(*)::int as n from ledger_transfers where reference = $1 and transfer_type = 'reversal'`, [reference])).toBe(1);
  });

  it('reverses once under concurrent requests', async () => {
    const who = await newMerchant(t);
    await paid(who, 5000);
    const reference = (await paid(who, 1000)).transaction.transactionReferenceNumber;
    const results = await Promise.all(Array.from({ length: 6 }, () => reverseReq(who, reference)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) expect(problemOf(r).errorCode).toBe('E924');
    expect(await collectionMinor(who)).toBe(495_000);
    await expectLedgerBalanced();
  });
});

// ---------------------------------------------------------------------------------------------
// The expiry job

describe('the expire_timed_accounts job', () => {
  const runJob = () => taskList(t.deps).expire_timed_accounts!({}, {} as JobHelpers);

  it('marks past-expiry requests E and frees their timed account number and reference', async () => {
    const who = await newMerchant(t);
    const expiring = await openRequest(who, 2500);
    const live = await openRequest(who, 2500);
    const paidOne = await openRequest(who, 2500);
    expect((await payTimed(who, paidOne.timedAccountNumber)).statusCode).toBe(200);
    await t.db.query(`update payment_requests set created_at = now() - interval '20 minutes', expires_at = now() - interval '5 minutes' where timed_account_number = any($1) and merchant_account_number = $2`, [
      [expiring.timedAccountNumber, paidOne.timedAccountNumber],
      who.merchantAccountNumber,
    ]);
    await runJob();
    expect((await requestRow(expiring.timedAccountNumber)).status_code).toBe('E');
    expect((await requestRow(live.timedAccountNumber)).status_code).toBe('O');
    expect((await requestRow(paidOne.timedAccountNumber)).status_code).toBe('P');
    // Payment stays refused as expired.
    await refusedUnchanged(() => payTimed(who, expiring.timedAccountNumber), 402, 'E920');
    // The reference is free again.
    const again = await initiate(who, { referenceNumber: expiring.referenceNumber });
    expect(again.statusCode, again.body).toBe(200);
    // The timed account number can be issued again (to anyone).
    const reissued = await withTransaction(t.db, (tx) =>
      insertPaymentRequest(tx, {
        merchantAccountNumber: m.merchantAccountNumber,
        timedAccountNumber: expiring.timedAccountNumber,
        amountMinor: 10_000,
        transactionDescription: 'Reissued',
        referenceNumber: ref(),
        capturedBy: ACTOR,
        expiryMinutes: 15,
      }),
    );
    expect(reissued.request?.timed_account_number).toBe(expiring.timedAccountNumber);
    // …and then belongs to its new holder only.
    await refusedUnchanged(() => payTimed(who, expiring.timedAccountNumber), 404, 'E903');
    expect((await payTimed(m, expiring.timedAccountNumber, { transactionAmount: 100 })).statusCode).toBe(200);
    // A second run has nothing to do.
    const before = await dbState(t.db);
    await runJob();
    expect(await dbState(t.db)).toEqual(before);
  });
});

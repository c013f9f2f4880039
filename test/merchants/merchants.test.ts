// Merchant accounts, sandbox top-ups, idempotency (product.md §4, §6) and the double-entry ledger,
// against the real app and database.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { postTransfer } from '../../src/modules/ledger/ledger.ts';
import { BASE, ledgerInvariants, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Chikondi Stores', levelNumber: 2, capturedBy: 'owner@chikondi.mw' });
  other = await newMerchant(t);
});
afterAll(() => t.close());

const NBM = 212188;
const AIRTEL = 112400;

function topupRequest(who: TestMerchant, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/merchants/accounts/topup`,
    headers: { ...who.auth, ...headers },
    payload: { merchantAccountNumber: who.merchantAccountNumber, connectorId: NBM, topupAmount: 1000, createdBy: 'ops@shop.mw', ...over },
  });
}

function account(who: TestMerchant, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: { ...who.auth, ...headers } });
}

async function topupTransfers(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from ledger_transfers where merchant_account_number = $1 and transfer_type = 'topup'`, [who.merchantAccountNumber]);
  return rows[0].n;
}

async function disbursementMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ b: number }>(`select balance_minor as b from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`, [who.merchantAccountNumber]);
  return rows[0].b;
}

async function expectLedgerBalanced(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
}

let keySeq = 0;
/** A fresh, valid idempotency key. */
const idemKey = () => `test-key-${Date.now()}-${++keySeq}-abcdef`;

describe('GET /merchants/accounts/get', () => {
  it('returns the account with the documented fields, including disbursmentBalance (sic)', async () => {
    const res = await account(m);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    for (const field of [
      'organisationId',
      'accountName',
      'merchantAccountNumber',
      'accountBalance',
      'collectionBalance',
      'disbursmentBalance',
      'currencyCode',
      'levelNumber',
      'levelName',
      'statusCode',
      'statusName',
      'capturedBy',
      'dateCreated',
    ]) {
      expect(body).toHaveProperty(field);
    }
    expect(body).not.toHaveProperty('disbursementBalance');
    expect(body).toMatchObject({
      organisationId: m.organisationId,
      accountName: 'Chikondi Stores',
      merchantAccountNumber: m.merchantAccountNumber,
      paymentAccountNumber: m.paymentAccountNumber,
      accountBalance: 0,
      collectionBalance: 0,
      disbursmentBalance: 0,
      currencyCode: 'MWK',
      levelNumber: 2,
      levelName: 'Initiator -> Approver',
      statusCode: 'A',
      statusName: 'Active',
      capturedBy: 'owner@chikondi.mw',
    });
    expect(body.organisationId).toMatch(/^[A-Z0-9]{12}$/);
    expect(body.paymentAccountNumber).toMatch(/^[0-9]{10,15}$/);
    expect(new Date(body.dateCreated).toISOString()).toBe(body.dateCreated);
  });

  it('localises names, never field names or codes', async () => {
    const res = await account(m, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-language']).toBe('ny');
    expect(res.json()).toMatchObject({ statusCode: 'A', statusName: 'Ikugwira ntchito', levelName: 'Woyambitsa -> Wovomereza', disbursmentBalance: 0 });
  });

  it('refuses a missing or malformed account number with 400', async () => {
    const missing = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get`, headers: m.auth });
    expect(missing.statusCode).toBe(400);
    expect(problemOf(missing).errorCode).toBe('E900');
    const bad = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=abc`, headers: m.auth });
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad).errors).toEqual(['Merchant Account Number should be 8 numbers only.']);
  });

  it('requires a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}` });
    expect(res.statusCode).toBe(401);
  });

  it("answers 404 for another merchant's account, as for one that does not exist", async () => {
    const theirs = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${other.merchantAccountNumber}`, headers: m.auth });
    expect(theirs.statusCode).toBe(404);
    expect(problemOf(theirs).errorCode).toBe('E903');
    expect(theirs.body).not.toContain(other.accountName === m.accountName ? '\u0000' : other.accountName);
    const viaHeader = await t.app.inject({
      method: 'GET',
      url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`,
      headers: { ...m.auth, 'x-merchant-account-number': String(other.merchantAccountNumber) },
    });
    expect(viaHeader.statusCode).toBe(404);
  });
});

describe('POST /merchants/accounts/topup', () => {
  it('credits the disbursement balance (numeric amount) and posts one balanced transfer', async () => {
    const who = await newMerchant(t);
    const res = await topupRequest(who, { topupAmount: 2500, connectorId: AIRTEL });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      merchantAccountNumber: who.merchantAccountNumber,
      connectorId: AIRTEL,
      connectorName: 'Airtel Money',
      topupAmount: 2500,
      currencyCode: 'MWK',
      disbursmentBalance: 2500,
      accountBalance: 2500,
    });
    expect(body.transactionReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await topupTransfers(who)).toBe(1);
    expect(await disbursementMinor(who)).toBe(250_000);
    const { rows } = await t.db.query<{ amount_minor: number; merchant: number | null }>(
      `select e.amount_minor, a.merchant_account_number as merchant
         from ledger_entries e join ledger_transfers tr using (merchant_account_number, transfer_id) join ledger_accounts a using (merchant_account_number, account_id)
        where tr.reference = $1 order by e.amount_minor`,
      [body.transactionReferenceNumber],
    );
    expect(rows).toEqual([
      // The merchant's own funding account (migration 0029): every entry of a transfer is its merchant's.
      { amount_minor: -250_000, merchant: who.merchantAccountNumber },
      { amount_minor: 250_000, merchant: who.merchantAccountNumber },
    ]);
    const acc = (await account(who)).json();
    expect(acc).toMatchObject({ disbursmentBalance: 2500, collectionBalance: 0, accountBalance: 2500 });
    await expectLedgerBalanced();
  });

  it('accepts a numeric string amount ("1500.50")', async () => {
    const who = await newMerchant(t);
    const res = await topupRequest(who, { topupAmount: '1500.50' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().topupAmount).toBe(1500.5);
    expect(await disbursementMinor(who)).toBe(150_050);
  });

  it('adds amounts exactly: 0.1 + 0.2 = 0.3', async () => {
    const who = await newMerchant(t);
    expect((await topupRequest(who, { topupAmount: 0.1 })).statusCode).toBe(200);
    const second = await topupRequest(who, { topupAmount: '0.2' });
    expect(second.json().disbursmentBalance).toBe(0.3);
    expect((await account(who)).json().disbursmentBalance).toBe(0.3);
    expect(await disbursementMinor(who)).toBe(30);
    // And at the large end, where a float would lose the cents.
    expect((await topupRequest(who, { topupAmount: '4999999999.99' })).statusCode).toBe(200);
    const third = await topupRequest(who, { topupAmount: 0.01 });
    expect(third.json().disbursmentBalance).toBe(5000000000.3);
    expect(await disbursementMinor(who)).toBe(500_000_000_030);
    await expectLedgerBalanced();
  });

  it('accepts the bounds 0.01 and 5,000,000,000', async () => {
    const who = await newMerchant(t);
    expect((await topupRequest(who, { topupAmount: 0.01 })).statusCode).toBe(200);
    expect((await topupRequest(who, { topupAmount: 5_000_000_000 })).statusCode).toBe(200);
    expect(await disbursementMinor(who)).toBe(500_000_000_001);
  });

  it.each([
    ['more than 2 decimals (number)', 1500.555],
    ['more than 2 decimals (string)', '1500.555'],
    ['zero', 0],
    ['zero as a string', '0.00'],
    ['a negative amount', -100],
    ['a negative string', '-100'],
    ['above 5,000,000,000', 5_000_000_000.01],
    ['above 5,000,000,000 as a string', '5000000000.01'],
    ['exponent notation', '1e3'],
    ['a huge number', 1e21],
    ['text', 'lots'],
    ['an empty string', ''],
    ['a boolean', true],
    ['false', false],
    ['an object', { amount: 5 }],
    ['null', null],
  ])('refuses %s with 400 E900 and moves no money', async (_name, amount) => {
    const before = await topupTransfers(m);
    const res = await topupRequest(m, { topupAmount: amount });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E900');
    expect(p.errors.join(' ')).toMatch(/Topup Amount/);
    expect(await topupTransfers(m)).toBe(before);
  });

  it('refuses missing and malformed fields with one message per field', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, connectorId: 12, createdBy: 'nobody' } });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errors).toHaveLength(3); // connectorId range, topupAmount missing, createdBy format
  });

  it('answers 404 E903 for an unknown connector and moves no money', async () => {
    const before = await topupTransfers(m);
    const res = await topupRequest(m, { connectorId: 999999 });
    expect(res.statusCode).toBe(404);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E903');
    expect(p.detail).toContain('999999');
    expect(await topupTransfers(m)).toBe(before);
  });

  it('answers 402 E913 for an inactive connector', async () => {
    await t.db.query('update connectors set is_active = false where connector_id = 222100');
    try {
      const res = await topupRequest(m, { connectorId: 222100 });
      expect(res.statusCode).toBe(402);
      expect(problemOf(res).errorCode).toBe('E913');
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = 222100');
    }
  });

  it('refuses a top-up that would take the balance past the largest amount an account may hold: 402 E915', async () => {
    const who = await newMerchant(t);
    // Bring the balance to 1 MWK below the cap (10^13 MWK) with a direct, balanced posting.
    const { rows } = await t.db.query<{ kind: string; account_id: number }>(
      `with funding as (
           -- The merchant's own funding account (migration 0029), created as systemAccountId does.
           insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, 'funding', 'MWK')
           on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning kind, account_id)
        select kind, account_id from funding
        union all select kind, account_id from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`,
      [who.merchantAccountNumber],
    );
    const id = (kind: string) => rows.find((r) => r.kind === kind)!.account_id;
    await t.db.query(`select ledger_post($1, 'test', 'NEARCAP', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [id('funding'), id('disbursement')], [-999_999_999_999_900, 999_999_999_999_900]]);
    const res = await topupRequest(who, { topupAmount: 2 });
    expect(res.statusCode).toBe(402);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E915');
    expect(p.detail).toMatch(/largest amount/);
    expect(await disbursementMinor(who)).toBe(999_999_999_999_900);
    // Exactly up to the cap is fine.
    expect((await topupRequest(who, { topupAmount: 1 })).statusCode).toBe(200);
    expect(await disbursementMinor(who)).toBe(1_000_000_000_000_000);
    await expectLedgerBalanced();
  });

  it('matches property names case-insensitively', async () => {
    const who = await newMerchant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/accounts/topup`,
      headers: who.auth,
      payload: { MerchantAccountNumber: who.merchantAccountNumber, ConnectorID: NBM, TOPUPAMOUNT: '10', createdby: 'ops@shop.mw' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await disbursementMinor(who)).toBe(1000);
  });

  it("cannot top up another merchant's account (404), whose balance is unchanged", async () => {
    const before = await disbursementMinor(other);
    const res = await topupRequest(m, { merchantAccountNumber: other.merchantAccountNumber });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
    expect(await disbursementMinor(other)).toBe(before);
    expect(await topupTransfers(other)).toBe(0);
  });

  it('requires a token', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, payload: { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: 1, createdBy: 'ops@shop.mw' } });
    expect(res.statusCode).toBe(401);
  });

  it('property: the balance is the exact decimal sum of any sequence of top-ups, and the ledger stays balanced', async () => {
    // Amounts as strings with 0, 1 or 2 decimals, 0.01 to 5,000,000,000.
    const amount = fc
      .tuple(fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 4_999_999_999 })), fc.integer({ min: 0, max: 99 }), fc.constantFrom(0, 1, 2))
      .map(([whole, cents, decimals]) => {
        if (decimals === 0) return String(whole);
        if (decimals === 1) return `${whole}.${cents % 10}`;
        return `${whole}.${String(cents).padStart(2, '0')}`;
      })
      .filter((s) => /[1-9]/.test(s));
    const toMinorBig = (s: string): bigint => {
      const [whole, fraction = ''] = s.split('.');
      return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'));
    };
    const decimal = (minor: bigint): string => `${minor / 100n}.${String(minor % 100n).padStart(2, '0')}`;

    await fc.assert(
      fc.asyncProperty(fc.array(amount, { minLength: 1, maxLength: 8 }), async (amounts) => {
        const who = await newMerchant(t);
        let expected = 0n;
        for (const a of amounts) {
          const res = await topupRequest(who, { topupAmount: a });
          expect(res.statusCode, res.body).toBe(200);
          expected += toMinorBig(a);
          expect(res.json().topupAmount).toBe(Number(a));
          expect(res.json().disbursmentBalance).toBe(Number(decimal(expected)));
        }
        expect(BigInt(await disbursementMinor(who))).toBe(expected);
        const acc = (await account(who)).json();
        expect(acc.disbursmentBalance).toBe(Number(decimal(expected)));
        expect(acc.accountBalance).toBe(Number(decimal(expected)));
        await expectLedgerBalanced();
      }),
      { numRuns: 25, seed: 20261122 },
    );
  });
});

describe('X-Idempotency-Key on top-ups', () => {
  it('replays the first response byte-for-byte for the same key and body, and moves money once', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    const first = await topupRequest(who, { topupAmount: '123.45' }, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await topupRequest(who, { topupAmount: '123.45' }, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    // Key order and property-name casing do not make a different request.
    const reordered = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/accounts/topup`,
      headers: { ...who.auth, 'x-idempotency-key': key },
      payload: { CreatedBy: 'ops@shop.mw', topupAmount: '123.45', connectorId: NBM, merchantAccountNumber: who.merchantAccountNumber },
    });
    expect(reordered.statusCode).toBe(200);
    expect(reordered.body).toBe(first.body);
    expect(await topupTransfers(who)).toBe(1);
    expect(await disbursementMinor(who)).toBe(12_345);
    await expectLedgerBalanced();
  });

  it('refuses the same key with a different body: 409 E907, no money moves', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    expect((await topupRequest(who, { topupAmount: 100 }, { 'x-idempotency-key': key })).statusCode).toBe(200);
    const res = await topupRequest(who, { topupAmount: 200 }, { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(409);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E907');
    expect(p.type).toMatch(/idempotency-key-reused$/);
    expect(await topupTransfers(who)).toBe(1);
    expect(await disbursementMinor(who)).toBe(10_000);
    // The original is still replayed afterwards.
    const replay = await topupRequest(who, { topupAmount: 100 }, { 'x-idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('keys are case-sensitive', async () => {
    const who = await newMerchant(t);
    const key = `CaseKey-${Date.now()}-abcdef`;
    expect((await topupRequest(who, { topupAmount: 1 }, { 'x-idempotency-key': key })).statusCode).toBe(200);
    const lower = await topupRequest(who, { topupAmount: 1 }, { 'x-idempotency-key': key.toLowerCase() });
    expect(lower.statusCode).toBe(200);
    expect(lower.headers['idempotent-replayed']).toBeUndefined();
    expect(await topupTransfers(who)).toBe(2);
  });

  it.each([
    ['too short (14 characters)', 'a'.repeat(14)],
    ['too long (81 characters)', 'a'.repeat(81)],
    ['underscores', 'abc_def_ghi_jkl_mno'],
    ['spaces', 'abc def ghi jkl mno'],
    ['dots', 'abc.def.ghi.jkl.mno'],
    ['non-ASCII letters', 'ábcdefghijklmnopq'],
  ])('refuses a key with %s: 400 E900, no money moves', async (_name, key) => {
    const before = await topupTransfers(m);
    const res = await topupRequest(m, {}, { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E900');
    expect(p.errors[0]).toMatch(/X-Idempotency-Key/);
    expect(await topupTransfers(m)).toBe(before);
  });

  it('accepts keys of exactly 15 and 80 characters', async () => {
    const who = await newMerchant(t);
    expect((await topupRequest(who, {}, { 'x-idempotency-key': `K${Date.now()}`.padEnd(15, 'x').slice(0, 15) })).statusCode).toBe(200);
    expect((await topupRequest(who, {}, { 'x-idempotency-key': `K-${Date.now()}-`.padEnd(80, 'Z') })).statusCode).toBe(200);
    expect(await topupTransfers(who)).toBe(2);
  });

  it('scopes keys per merchant: two merchants may use the same key independently', async () => {
    const a = await newMerchant(t);
    const b = await newMerchant(t);
    const key = idemKey();
    const ra = await topupRequest(a, { topupAmount: 10 }, { 'x-idempotency-key': key });
    const rb = await topupRequest(b, { topupAmount: 20 }, { 'x-idempotency-key': key });
    expect(ra.statusCode).toBe(200);
    expect(rb.statusCode).toBe(200);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.json().merchantAccountNumber).toBe(b.merchantAccountNumber);
    expect(await topupTransfers(a)).toBe(1);
    expect(await topupTransfers(b)).toBe(1);
    // B's replay never shows A's response.
    const replayB = await topupRequest(b, { topupAmount: 20 }, { 'x-idempotency-key': key });
    expect(replayB.body).toBe(rb.body);
    expect(replayB.body).not.toContain(String(a.merchantAccountNumber));
  });

  it('under 20 concurrent retries: one transfer; every answer is the original, its replay, or 409 E907 in progress', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => topupRequest(who, { topupAmount: '777.77' }, { 'x-idempotency-key': key })));
    const ok = responses.filter((r) => r.statusCode === 200);
    const busy = responses.filter((r) => r.statusCode === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of ok) expect(r.body).toBe(ok[0].body);
    for (const r of busy) {
      const p = problemOf(r);
      expect(p.errorCode).toBe('E907');
      expect(p.type).toMatch(/in-progress$/);
      expect(r.headers['retry-after']).toBeDefined();
    }
    expect(await topupTransfers(who)).toBe(1);
    expect(await disbursementMinor(who)).toBe(77_777);
    // Once settled, a retry is a replay of the one original.
    const after = await topupRequest(who, { topupAmount: '777.77' }, { 'x-idempotency-key': key });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toBe(ok[0].body);
    await expectLedgerBalanced();
  });

  it('replays a 4xx answer (unknown connector) too', async () => {
    const key = idemKey();
    const first = await topupRequest(m, { connectorId: 999998 }, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(404);
    const again = await topupRequest(m, { connectorId: 999998 }, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('does not record a key for a request refused before it ran (validation)', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    expect((await topupRequest(who, { topupAmount: 0 }, { 'x-idempotency-key': key })).statusCode).toBe(400);
    const ok = await topupRequest(who, { topupAmount: 5 }, { 'x-idempotency-key': key });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('an in-progress key answers 409 E907 with Retry-After; once its lock is stale, a retry takes it over', async () => {
    const who = await newMerchant(t);
    const payload = { topupAmount: '42.00' };
    // Learn the fingerprint of this exact request from a completed one (it does not include the key).
    const probeKey = idemKey();
    expect((await topupRequest(who, payload, { 'x-idempotency-key': probeKey })).statusCode).toBe(200);
    const { rows } = await t.db.query<{ request_fingerprint: string }>('select request_fingerprint from idempotency_keys where merchant_account_number = $1 and idempotency_key = $2', [
      who.merchantAccountNumber,
      probeKey,
    ]);
    const print = rows[0].request_fingerprint;

    // A request that claimed the key and is still running (its lock is live).
    const key = idemKey();
    await t.db.query(
      `insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until, expires_at)
       values ($1, $2, $3, 'in_progress', gen_random_uuid(), now() + interval '1 minute', now() + interval '1 day')`,
      [who.merchantAccountNumber, key, print],
    );
    const busy = await topupRequest(who, payload, { 'x-idempotency-key': key });
    expect(busy.statusCode).toBe(409);
    expect(problemOf(busy).errorCode).toBe('E907');
    expect(busy.headers['retry-after']).toBe('1');
    // A different request under a held key is a mismatch, not a wait.
    const different = await topupRequest(who, { topupAmount: '43.00' }, { 'x-idempotency-key': key });
    expect(different.statusCode).toBe(409);
    expect(problemOf(different).type).toMatch(/reused$/);

    // Its owner died: the lock runs out, and the next retry takes the key over and runs once.
    await t.db.query(`update idempotency_keys set locked_until = now() - interval '1 second' where merchant_account_number = $1 and idempotency_key = $2`, [who.merchantAccountNumber, key]);
    const before = await topupTransfers(who);
    const taken = await topupRequest(who, payload, { 'x-idempotency-key': key });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(await topupTransfers(who)).toBe(before + 1);
    const replay = await topupRequest(who, payload, { 'x-idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(taken.body);
    expect(await topupTransfers(who)).toBe(before + 1);
  });

  it('a stale in-progress key is not taken over by a different request', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    await t.db.query(
      `insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until, expires_at)
       values ($1, $2, $3, 'in_progress', gen_random_uuid(), now() - interval '1 second', now() + interval '1 day')`,
      [who.merchantAccountNumber, key, 'f'.repeat(64)],
    );
    const res = await topupRequest(who, {}, { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(409);
    expect(problemOf(res).errorCode).toBe('E907');
    expect(await topupTransfers(who)).toBe(0);
  });

  it('a key past its retention is forgotten: the same request runs again', async () => {
    const who = await newMerchant(t);
    const key = idemKey();
    expect((await topupRequest(who, {}, { 'x-idempotency-key': key })).statusCode).toBe(200);
    await t.db.query(`update idempotency_keys set expires_at = now() - interval '1 second' where merchant_account_number = $1 and idempotency_key = $2`, [who.merchantAccountNumber, key]);
    const again = await topupRequest(who, {}, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await topupTransfers(who)).toBe(2);
  });

  it("another merchant's token with the same key and body is refused (404), not replayed", async () => {
    const key = idemKey();
    const first = await topupRequest(m, { topupAmount: 3 }, { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/accounts/topup`,
      headers: { ...other.auth, 'x-idempotency-key': key },
      payload: { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: 3, createdBy: 'ops@shop.mw' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body).not.toContain(first.json().transactionReferenceNumber);
  });
});

describe('the ledger in the database', () => {
  async function accounts(who: TestMerchant): Promise<{ disbursement: number; funding: number }> {
    const { rows } = await t.db.query<{ kind: string; account_id: number }>(
      `with funding as (
           -- The merchant's own funding account (migration 0029), created as systemAccountId does.
           insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, 'funding', 'MWK')
           on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning kind, account_id)
        select kind, account_id from funding
        union all select kind, account_id from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`,
      [who.merchantAccountNumber],
    );
    return { disbursement: rows.find((r) => r.kind === 'disbursement')!.account_id, funding: rows.find((r) => r.kind === 'funding')!.account_id };
  }

  it('posts a balanced transfer given directly to ledger_post', async () => {
    const who = await newMerchant(t);
    const a = await accounts(who);
    await t.db.query(`select ledger_post($1, 'test', 'DIRECT1', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [a.funding, a.disbursement], [-500, 500]]);
    expect(await disbursementMinor(who)).toBe(500);
    await expectLedgerBalanced();
  });

  it('rejects an unbalanced transfer and writes nothing', async () => {
    const who = await newMerchant(t);
    const a = await accounts(who);
    await expect(
      t.db.query(`select ledger_post($1, 'test', 'UNBAL1', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [a.funding, a.disbursement], [-100, 99]]),
    ).rejects.toThrow(/unbalanced/);
    await expect(
      t.db.query(`select ledger_post($1, 'test', 'UNBAL2', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [a.disbursement], [100]]),
    ).rejects.toThrow(/at least two entries/);
    await expect(
      t.db.query(`select ledger_post($1, 'test', 'UNBAL3', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [a.funding, a.disbursement], [-100, 100, 5]]),
    ).rejects.toThrow();
    const { rowCount } = await t.db.query(`select 1 from ledger_transfers where reference like 'UNBAL%'`);
    expect(rowCount).toBe(0);
    expect(await disbursementMinor(who)).toBe(0);
    await expectLedgerBalanced();
  });

  it('refuses a transfer that would make a merchant balance negative', async () => {
    const who = await newMerchant(t);
    const a = await accounts(who);
    await expect(
      t.db.query(`select ledger_post($1, 'test', 'NEG1', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [who.merchantAccountNumber, [a.funding, a.disbursement], [100, -100]]),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await disbursementMinor(who)).toBe(0);
  });

  it('postTransfer names the broken rule: insufficient balance for a debit below zero, too large past the cap', async () => {
    const who = await newMerchant(t);
    const a = await accounts(who);
    const post = (reference: string, amounts: [number, number]) =>
      withTransaction(t.db, (tx) =>
        postTransfer(tx, { merchantAccountNumber: who.merchantAccountNumber, type: 'test', reference, entries: [{ accountId: a.funding, amountMinor: amounts[0] }, { accountId: a.disbursement, amountMinor: amounts[1] }] }),
      );
    await expect(post('DEBIT1', [100, -100])).rejects.toMatchObject({ kind: 'insufficientBalance' });
    await expect(post('CREDIT1', [-1_000_000_000_000_001, 1_000_000_000_000_001])).rejects.toMatchObject({ kind: 'balanceTooLarge' });
    await expect(post('UNBAL4', [-100, 101])).rejects.toThrow(/unbalanced/);
    expect(await post('OK1', [-100, 100])).toBeGreaterThan(0);
    expect(await disbursementMinor(who)).toBe(100);
    await expectLedgerBalanced();
  });

  it('ledger entries can be neither updated nor deleted', async () => {
    const who = await newMerchant(t);
    expect((await topupRequest(who, { topupAmount: 10 })).statusCode).toBe(200);
    await expect(t.db.query('update ledger_entries set amount_minor = amount_minor * 2 where merchant_account_number = $1', [who.merchantAccountNumber])).rejects.toThrow(/immutable/);
    await expect(t.db.query('delete from ledger_entries where merchant_account_number = $1', [who.merchantAccountNumber])).rejects.toThrow(/immutable/);
    const { rows } = await t.db.query<{ s: number }>('select sum(amount_minor)::bigint as s from ledger_entries where account_id in (select account_id from ledger_accounts where merchant_account_number = $1 and not is_system)', [
      who.merchantAccountNumber,
    ]);
    expect(rows[0].s).toBe(1000);
    await expectLedgerBalanced();
  });
});

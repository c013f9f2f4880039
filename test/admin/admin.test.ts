// The operator API: POST and GET /admin/v1/merchants, behind ADMIN_TOKEN (404 when none is set).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { ADMIN_TOKEN, BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(() => t.close());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

function create(payload: Record<string, unknown>, headers: Record<string, string> = admin) {
  return t.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers, payload });
}

function list(query = '', headers: Record<string, string> = admin) {
  return t.app.inject({ method: 'GET', url: `/admin/v1/merchants${query}`, headers });
}

type Created = MerchantCredentials;

async function created(payload: Record<string, unknown> = { accountName: 'Mandala Hardware' }): Promise<Created> {
  const res = await create(payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function tokenFor(c: Created) {
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/account/getAccessToken`,
    payload: { apiKey: c.apiKey, apiSecret: c.apiSecret, organisationId: c.organisationId, merchantAccountNumber: c.merchantAccountNumber },
  });
}

describe('POST /admin/v1/merchants', () => {
  it('creates a merchant (201) whose credentials get a working token', async () => {
    const res = await create({ accountName: 'Mandala Hardware', levelNumber: 3 });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const c = res.json() as Created;
    expect(c).toMatchObject({ accountName: 'Mandala Hardware', levelNumber: 3, currencyCode: 'MWK' });
    expect(c.organisationId).toMatch(/^[A-Z0-9]{12}$/);
    expect(c.merchantAccountNumber).toBeGreaterThanOrEqual(10000000);
    expect(c.merchantAccountNumber).toBeLessThanOrEqual(99999999);
    expect(c.paymentAccountNumber).toMatch(/^[0-9]{10,15}$/);
    expect(c.apiKey).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(c.apiSecret).toMatch(/^[A-Za-z0-9]{45}$/);
    expect(Number.isInteger(c.clientId)).toBe(true);

    const token = await tokenFor(c);
    expect(token.statusCode, token.body).toBe(200);
    const auth = { authorization: `Bearer ${token.json().accessToken}` };
    const account = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${c.merchantAccountNumber}`, headers: auth });
    expect(account.statusCode).toBe(200);
    expect(account.json()).toMatchObject({ organisationId: c.organisationId, accountName: 'Mandala Hardware', levelNumber: 3, disbursmentBalance: 0, statusCode: 'A' });
    const limits = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${c.merchantAccountNumber}`, headers: auth });
    expect(limits.json()).toHaveLength(4);
    // The secret is stored only as a hash.
    const { rows } = await t.db.query<{ secret_hash: Buffer }>('select secret_hash from api_keys where client_id = $1', [c.clientId]);
    expect(rows[0].secret_hash.toString('latin1')).not.toContain(c.apiSecret);
  });

  it('defaults to level 1', async () => {
    const c = await created({ accountName: 'Level One' });
    expect(c.levelNumber).toBe(1);
  });

  it('adds a merchant to an existing organisation (any casing) and refuses an unknown one with 404', async () => {
    const first = await created({ accountName: 'Branch A' });
    const second = await created({ accountName: 'Branch B', organisationId: first.organisationId.toLowerCase() });
    expect(second.organisationId).toBe(first.organisationId);
    expect(second.merchantAccountNumber).not.toBe(first.merchantAccountNumber);
    expect((await tokenFor(second)).statusCode).toBe(200);
    const unknown = await create({ accountName: 'Nowhere', organisationId: 'ZZZZZZZZZZZZ' });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown).errorCode).toBe('E903');
  });

  it.each([
    ['levelNumber 0', { accountName: 'X', levelNumber: 0 }],
    ['levelNumber 4', { accountName: 'X', levelNumber: 4 }],
    ['levelNumber 1.5', { accountName: 'X', levelNumber: 1.5 }],
    ['levelNumber text', { accountName: 'X', levelNumber: 'two' }],
    ['no accountName', { levelNumber: 1 }],
    ['an empty accountName', { accountName: '' }],
    ['an accountName of 201 characters', { accountName: 'a'.repeat(201) }],
    ['a currency other than MWK', { accountName: 'X', currencyCode: 'USD' }],
    ['a malformed organisationId', { accountName: 'X', organisationId: 'short' }],
  ])('refuses %s with 400 E900 and creates nothing', async (_name, payload) => {
    const before = (await t.db.query<{ n: number }>('select count(*)::int as n from merchants')).rows[0].n;
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
    expect((await t.db.query<{ n: number }>('select count(*)::int as n from merchants')).rows[0].n).toBe(before);
  });

  it('refuses a body that is not JSON', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...admin, 'content-type': 'application/json' }, payload: '{"accountName":' });
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-admin-token-0123456789' }],
    ['the token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['a non-Bearer scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
  ])('answers 401 E901 to %s, for both operations', async (_name, headers) => {
    const before = (await t.db.query<{ n: number }>('select count(*)::int as n from merchants')).rows[0].n;
    const post = await create({ accountName: 'Intruder' }, headers as Record<string, string>);
    expect(post.statusCode).toBe(401);
    expect(problemOf(post).errorCode).toBe('E901');
    const get = await list('', headers as Record<string, string>);
    expect(get.statusCode).toBe(401);
    expect(get.body).not.toContain(m.accountName === 'Intruder' ? '\u0000' : String(m.merchantAccountNumber));
    expect((await t.db.query<{ n: number }>('select count(*)::int as n from merchants')).rows[0].n).toBe(before);
  });

  it("refuses a merchant's access token (401); the admin token is no merchant token either", async () => {
    expect((await create({ accountName: 'Sneaky' }, m.auth)).statusCode).toBe(401);
    expect((await list('', m.auth)).statusCode).toBe(401);
    const merchantApi = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: admin });
    expect(merchantApi.statusCode).toBe(401);
  });

  it('is not served under the merchant API prefix', async () => {
    for (const headers of [admin, m.auth]) {
      const res = await t.app.inject({ method: 'GET', url: `${BASE}/admin/v1/merchants`, headers });
      expect(res.statusCode).toBe(404);
      expect(problemOf(res).errorCode).toBe('E903');
    }
  });

  it("a created merchant cannot see another merchant's account (404)", async () => {
    const c = await created({ accountName: 'Curious Shop' });
    const token = (await tokenFor(c)).json().accessToken as string;
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
  });
});

describe('GET /admin/v1/merchants', () => {
  it('lists merchants with their balances, in account-number order, without secrets', async () => {
    const c = await created({ accountName: 'Listed Shop', levelNumber: 2 });
    const res = await list('?limit=500');
    expect(res.statusCode).toBe(200);
    const all = res.json() as Array<Record<string, unknown>>;
    const numbers = all.map((x) => x.merchantAccountNumber as number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(numbers).toContain(m.merchantAccountNumber);
    expect(all.find((x) => x.merchantAccountNumber === c.merchantAccountNumber)).toMatchObject({
      organisationId: c.organisationId,
      accountName: 'Listed Shop',
      levelNumber: 2,
      levelName: 'Initiator -> Approver',
      currencyCode: 'MWK',
      accountBalance: 0,
      collectionBalance: 0,
      disbursmentBalance: 0,
      statusCode: 'A',
    });
    expect(res.body).not.toContain(c.apiSecret);
    expect(res.body).not.toContain(c.apiKey);
  });

  it('shows balances after a top-up', async () => {
    const top = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/accounts/topup`,
      headers: m.auth,
      payload: { merchantAccountNumber: m.merchantAccountNumber, connectorId: 212188, topupAmount: '250.25', createdBy: 'ops@shop.mw' },
    });
    expect(top.statusCode).toBe(200);
    const all = (await list('?limit=500')).json() as Array<Record<string, unknown>>;
    expect(all.find((x) => x.merchantAccountNumber === m.merchantAccountNumber)).toMatchObject({ disbursmentBalance: 250.25, accountBalance: 250.25 });
  });

  it('pages with limit and afterAccountNumber, covering everyone exactly once', async () => {
    for (let i = 0; i < 3; i++) await created({ accountName: `Paged ${i}` });
    const everyone = ((await list('?limit=500')).json() as Array<{ merchantAccountNumber: number }>).map((x) => x.merchantAccountNumber);
    expect(everyone.length).toBeGreaterThanOrEqual(4);

    const first = (await list('?limit=1')).json() as Array<{ merchantAccountNumber: number }>;
    expect(first.map((x) => x.merchantAccountNumber)).toEqual([everyone[0]]);

    const paged: number[] = [];
    let after: number | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const res = await list(`?limit=2${after === undefined ? '' : `&afterAccountNumber=${after}`}`);
      expect(res.statusCode).toBe(200);
      const page = (res.json() as Array<{ merchantAccountNumber: number }>).map((x) => x.merchantAccountNumber);
      expect(page.length).toBeLessThanOrEqual(2);
      if (page.length === 0) break;
      paged.push(...page);
      after = page[page.length - 1];
    }
    expect(paged).toEqual(everyone);

    const beyond = await list('?afterAccountNumber=99999999');
    expect(beyond.statusCode).toBe(200);
    expect(beyond.json()).toEqual([]);
  });

  it('matches query parameter names case-insensitively', async () => {
    const res = await list('?Limit=1');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(1);
  });

  it.each(['?limit=0', '?limit=501', '?limit=abc', '?afterAccountNumber=-1', '?afterAccountNumber=100000000'])('answers 400 E900 to %s', async (query) => {
    const res = await list(query);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
  });
});

describe('without ADMIN_TOKEN configured', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp({}, { adminToken: undefined });
  });
  afterAll(() => bare.close());

  it.each([
    ['with the would-be token', admin],
    ['without any token', {}],
  ])('both operations answer 404, %s, and nothing is created', async (_name, headers) => {
    const post = await bare.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers, payload: { accountName: 'Ghost' } });
    expect(post.statusCode).toBe(404);
    expect(problemOf(post).errorCode).toBe('E903');
    const get = await bare.app.inject({ method: 'GET', url: '/admin/v1/merchants', headers });
    expect(get.statusCode).toBe(404);
    expect(problemOf(get).errorCode).toBe('E903');
    expect((await bare.db.query<{ n: number }>('select count(*)::int as n from merchants')).rows[0].n).toBe(0);
  });

  it('says there is no such operation, in the language asked for', async () => {
    const en = await bare.app.inject({ method: 'GET', url: '/admin/v1/merchants?limit=5', headers: admin });
    expect(problemOf(en).detail).toBe('No operation exists at GET /admin/v1/merchants.');
    const ny = await bare.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...admin, 'accept-language': 'ny' }, payload: { accountName: 'Ghost' } });
    expect(ny.headers['content-language']).toBe('ny');
    expect(problemOf(ny).detail).toBe('Palibe ntchito pa POST /admin/v1/merchants.');
  });
});

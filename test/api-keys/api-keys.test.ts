// API key pairs: E1 generate, E2 list (query and JSON-body forms), add, get, activate,
// deactivate and delete (product.md §2), each against the real app and database.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp({}, { keyStatusCacheMs: 0 });
  m = await newMerchant(t);
  other = await newMerchant(t);
});
afterAll(() => t.close());

const url = (path: string) => `${BASE}${path}`;

async function keyCount(merchantAccountNumber: number): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from api_keys where merchant_account_number = $1', [merchantAccountNumber]);
  return rows[0].n;
}

async function generate(who: TestMerchant = m): Promise<{ key: string; secret: string }> {
  const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/generate?merchantAccountNumber=${who.merchantAccountNumber}`), headers: who.auth });
  expect(res.statusCode).toBe(200);
  return res.json();
}

function addRequest(who: TestMerchant, pair: { key: string; secret: string }, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: url('/security/apiKeys/add'),
    headers: { ...who.auth, ...headers },
    payload: { organisationId: who.organisationId, merchantAccountNumber: who.merchantAccountNumber, clientKey: pair.key, clientSecret: pair.secret, capturedBy: 'ops@shop.mw', ...over },
  });
}

/** Generates and adds a new pair for `who`; returns it. */
async function addedPair(who: TestMerchant = m, over: Record<string, unknown> = {}): Promise<{ key: string; secret: string }> {
  const pair = await generate(who);
  const res = await addRequest(who, pair, over);
  expect(res.statusCode, res.body).toBe(201);
  return pair;
}

function tokenFor(who: TestMerchant, pair: { key: string; secret: string }) {
  return t.app.inject({
    method: 'POST',
    url: url('/account/getAccessToken'),
    payload: { apiKey: pair.key, apiSecret: pair.secret, organisationId: who.organisationId, merchantAccountNumber: who.merchantAccountNumber },
  });
}

async function tokenOf(who: TestMerchant, pair: { key: string; secret: string }): Promise<string> {
  const res = await tokenFor(who, pair);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().accessToken as string;
}

/** A protected, read-only call made with `token`: its status says whether the token works. */
async function callWith(who: TestMerchant, token: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: url(`/merchants/limits/getAll?merchantAccountNumber=${who.merchantAccountNumber}`), headers: { authorization: `Bearer ${token}` } });
  return res.statusCode;
}

function keyAction(method: 'PUT' | 'POST' | 'DELETE', path: string, who: TestMerchant, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: url(path), headers: { ...who.auth, ...headers }, payload: { merchantAccountNumber: who.merchantAccountNumber, ...payload } });
}

describe('E1 GET /security/apiKeys/generate', () => {
  it('returns a 30-character key and a 45-character secret, persists nothing and forbids caching', async () => {
    const before = await keyCount(m.merchantAccountNumber);
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/generate?merchantAccountNumber=${m.merchantAccountNumber}`), headers: m.auth });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['key', 'secret']);
    expect(body.key).toMatch(/^[A-Za-z0-9]{30}$/);
    expect(body.secret).toMatch(/^[A-Za-z0-9]{45}$/);
    expect(await keyCount(m.merchantAccountNumber)).toBe(before);

    const list = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: m.auth });
    expect(list.json().map((k: { clientKey: string }) => k.clientKey)).not.toContain(body.key);
  });

  it('gives a different pair every time', async () => {
    const a = await generate();
    const b = await generate();
    expect(a.key).not.toBe(b.key);
    expect(a.secret).not.toBe(b.secret);
  });

  it('requires a valid merchantAccountNumber', async () => {
    const missing = await t.app.inject({ method: 'GET', url: url('/security/apiKeys/generate'), headers: m.auth });
    expect(missing.statusCode).toBe(400);
    expect(problemOf(missing).errorCode).toBe('E900');
    const bad = await t.app.inject({ method: 'GET', url: url('/security/apiKeys/generate?merchantAccountNumber=123'), headers: m.auth });
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad).errors).toContain('Merchant Account Number should be 8 numbers only.');
  });

  it('requires a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/generate?merchantAccountNumber=${m.merchantAccountNumber}`) });
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
  });

  it("answers 404 for another merchant's account", async () => {
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/generate?merchantAccountNumber=${other.merchantAccountNumber}`), headers: m.auth });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
  });
});

describe('E2 GET /security/apiKeys/getAll', () => {
  it('lists the merchant\'s keys in query form, secrets null', async () => {
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: m.auth });
    expect(res.statusCode).toBe(200);
    const keys = res.json() as Array<Record<string, unknown>>;
    const first = keys.find((k) => k.clientKey === m.apiKey)!;
    expect(first).toBeDefined();
    expect(first).toMatchObject({
      clientId: m.clientId,
      organisationId: m.organisationId,
      merchantAccountNumber: m.merchantAccountNumber,
      clientKey: m.apiKey,
      clientSecret: null,
      statusCode: 'A',
      statusName: 'Active',
      expiryDate: null,
      modifiedBy: null,
      dateModified: null,
    });
    for (const field of ['capturedBy', 'createdBy', 'dateCaptured', 'dateCreated']) expect(first).toHaveProperty(field);
    expect(new Date(first.dateCaptured as string).toISOString()).toBe(first.dateCaptured);
    for (const k of keys) {
      expect(k.clientSecret).toBeNull();
      expect(k.merchantAccountNumber).toBe(m.merchantAccountNumber);
    }
    expect(res.body).not.toContain(m.apiSecret);
  });

  it('accepts merchantAccountNumber in a JSON body on the GET', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('/security/apiKeys/getAll'),
      headers: { ...m.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ merchantAccountNumber: m.merchantAccountNumber }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().map((k: { clientKey: string }) => k.clientKey)).toContain(m.apiKey);
  });

  it('matches the body property name case-insensitively', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: url('/security/apiKeys/getAll'),
      headers: { ...m.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ MerchantAccountNumber: m.merchantAccountNumber }),
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('never stores the secret itself', async () => {
    const pair = await addedPair();
    const { rows } = await t.db.query<{ secret_hash: Buffer }>('select secret_hash from api_keys where client_key = $1', [pair.key]);
    expect(rows).toHaveLength(1);
    const stored = rows[0].secret_hash;
    expect(stored.length).toBe(32);
    expect(stored.equals(Buffer.from(pair.secret))).toBe(false);
    expect(stored.toString('latin1')).not.toContain(pair.secret);
    expect(stored.toString('hex')).not.toContain(Buffer.from(pair.secret).toString('hex'));
    // A one-way hash of it.
    expect(stored.equals(createHash('sha256').update(pair.secret).digest())).toBe(true);
    // The listing never shows it.
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: m.auth });
    expect(res.body).not.toContain(pair.secret);
  });

  it('refuses a missing or malformed merchantAccountNumber with 400', async () => {
    const missing = await t.app.inject({ method: 'GET', url: url('/security/apiKeys/getAll'), headers: m.auth });
    expect(missing.statusCode).toBe(400);
    expect(problemOf(missing).errorCode).toBe('E900');
    const badJson = await t.app.inject({ method: 'GET', url: url('/security/apiKeys/getAll'), headers: { ...m.auth, 'content-type': 'application/json' }, payload: '{"merchantAccountNumber":' });
    expect(badJson.statusCode).toBe(400);
    expect(problemOf(badJson).errorCode).toBe('E900');
  });

  it("answers 404 for another merchant's account, in both forms", async () => {
    const query = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/getAll?merchantAccountNumber=${other.merchantAccountNumber}`), headers: m.auth });
    expect(query.statusCode).toBe(404);
    expect(problemOf(query).errorCode).toBe('E903');
    const body = await t.app.inject({
      method: 'GET',
      url: url('/security/apiKeys/getAll'),
      headers: { ...m.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ merchantAccountNumber: other.merchantAccountNumber }),
    });
    expect(body.statusCode).toBe(404);
    expect(body.body).not.toContain(other.apiKey);
  });
});

describe('POST /security/apiKeys/add', () => {
  it('stores a generated pair (201, bare JSON string) that can then get a token', async () => {
    const before = await keyCount(m.merchantAccountNumber);
    const pair = await generate();
    const res = await addRequest(m, pair);
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe('"API key has been created successfully"');
    expect(res.json()).toBe('API key has been created successfully');
    expect(await keyCount(m.merchantAccountNumber)).toBe(before + 1);
    const token = await tokenOf(m, pair);
    expect(await callWith(m, token)).toBe(200);
  });

  it('accepts createdBy instead of capturedBy', async () => {
    const pair = await generate();
    const res = await addRequest(m, pair, { capturedBy: undefined, createdBy: 'creator@shop.mw' });
    expect(res.statusCode).toBe(201);
    const got = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${pair.key}`), headers: m.auth });
    expect(got.json().capturedBy).toBe('creator@shop.mw');
  });

  it('answers in Chichewa when asked', async () => {
    const pair = await generate();
    const res = await addRequest(m, pair, {}, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-language']).toBe('ny');
    expect(res.json()).toBe('Kiyi ya API yapangidwa bwino');
  });

  it('refuses a duplicate clientKey with 409 E906', async () => {
    const pair = await addedPair();
    const res = await addRequest(m, { key: pair.key, secret: (await generate()).secret });
    expect(res.statusCode).toBe(409);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E906');
    expect(p.detail).toContain(pair.key);
  });

  it('refuses an expiryDate in the past with 400', async () => {
    const pair = await generate();
    const before = await keyCount(m.merchantAccountNumber);
    const res = await addRequest(m, pair, { expiryDate: new Date(Date.now() - 60_000).toISOString() });
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
    expect(await keyCount(m.merchantAccountNumber)).toBe(before);
  });

  it('refuses missing and malformed fields with one message per field', async () => {
    const res = await t.app.inject({ method: 'POST', url: url('/security/apiKeys/add'), headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, clientKey: 'short', clientSecret: 'also-short' } });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E900');
    expect(p.errors.length).toBeGreaterThanOrEqual(3); // organisationId missing, clientKey and clientSecret too short
    const noActor = await addRequest(m, await generate(), { capturedBy: undefined });
    expect(noActor.statusCode).toBe(400);
    const badExpiry = await addRequest(m, await generate(), { expiryDate: 'tomorrow' });
    expect(badExpiry.statusCode).toBe(400);
  });

  it('gives a Chichewa problem when asked', async () => {
    const pair = await generate();
    const res = await addRequest(m, pair, { expiryDate: '2000-01-01T00:00:00Z' }, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-language']).toBe('ny');
    const p = problemOf(res);
    expect(p.title).toBe('Zomwe mwatumiza sizili bwino');
    expect(p.detail).toContain('ladutsa kale');
    expect(p.errorCode).toBe('E900');
  });

  it('refuses to add a key to another merchant or organisation (404) and stores nothing', async () => {
    const before = await keyCount(other.merchantAccountNumber);
    const pair = await generate();
    const res = await addRequest(m, pair, { merchantAccountNumber: other.merchantAccountNumber, organisationId: other.organisationId });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
    const orgOnly = await addRequest(m, pair, { organisationId: other.organisationId });
    expect(orgOnly.statusCode).toBe(404);
    expect(await keyCount(other.merchantAccountNumber)).toBe(before);
    expect((await t.db.query('select 1 from api_keys where client_key = $1', [pair.key])).rowCount).toBe(0);
  });
});

describe('a key with an expiry date', () => {
  it('works until it expires, then neither its tokens nor new tokens work', async () => {
    const expiry = new Date(t.clock.now().getTime() + 60_000);
    const pair = await addedPair(m, { expiryDate: expiry.toISOString() });
    const got = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${pair.key}`), headers: m.auth });
    expect(got.json().expiryDate).toBe(expiry.toISOString());
    const token = await tokenOf(m, pair);
    expect(await callWith(m, token)).toBe(200);

    t.clock.advance(61_000);
    const res = await t.app.inject({ method: 'GET', url: url(`/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
    expect((await tokenFor(m, pair)).statusCode).toBe(401);
    // Keys without an expiry are unaffected.
    expect(await callWith(m, m.token)).toBe(200);
  });
});

describe('GET /security/apiKeys/get', () => {
  it('returns one record without its secret', async () => {
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${m.apiKey}`), headers: m.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ clientId: m.clientId, clientKey: m.apiKey, clientSecret: null, statusCode: 'A', merchantAccountNumber: m.merchantAccountNumber });
    expect(res.body).not.toContain(m.apiSecret);
  });

  it('matches query parameter names case-insensitively', async () => {
    const res = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?MerchantAccountNumber=${m.merchantAccountNumber}&ClientKey=${m.apiKey}`), headers: m.auth });
    expect(res.statusCode).toBe(200);
  });

  it('answers 404 for an unknown key and 400 for a malformed one', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${'Z'.repeat(30)}`), headers: m.auth });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown).errorCode).toBe('E903');
    const malformed = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=a%20b`), headers: m.auth });
    expect(malformed.statusCode).toBe(400);
  });

  it("answers 404 for another merchant's key, however it is asked for", async () => {
    const own = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${other.apiKey}`), headers: m.auth });
    expect(own.statusCode).toBe(404);
    const theirs = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${other.merchantAccountNumber}&clientKey=${other.apiKey}`), headers: m.auth });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).not.toContain(other.apiKey);
    // Indistinguishable from an account that does not exist at all.
    const nobody = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=10000001&clientKey=${other.apiKey}`), headers: m.auth });
    expect(nobody.statusCode).toBe(404);
    expect(problemOf(theirs).detail.replace(String(other.merchantAccountNumber), 'N')).toBe(problemOf(nobody).detail.replace('10000001', 'N'));
  });
});

describe('PUT /security/apiKeys/activate and /deactivate', () => {
  it('deactivating stops the key and its tokens; activating brings them back', async () => {
    const pair = await addedPair();
    const token = await tokenOf(m, pair);
    expect(await callWith(m, token)).toBe(200);

    const off = await keyAction('PUT', '/security/apiKeys/deactivate', m, { clientKey: pair.key, changedBy: 'ops@shop.mw' });
    expect(off.statusCode).toBe(200);
    // The documented text (docs.onekhusa.com apiKeys/deactivate-key).
    expect(off.json()).toBe('API key status has been changed successfully');
    expect(await callWith(m, token)).toBe(401);
    expect((await tokenFor(m, pair)).statusCode).toBe(401);
    const record = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${pair.key}`), headers: m.auth });
    expect(record.json()).toMatchObject({ statusCode: 'I', statusName: 'Inactive', modifiedBy: 'ops@shop.mw' });
    expect(record.json().dateModified).not.toBeNull();

    const on = await keyAction('PUT', '/security/apiKeys/activate', m, { clientKey: pair.key, changedBy: 'boss@shop.mw' });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toBe('API key has been activated successfully');
    expect(await callWith(m, token)).toBe(200);
    expect(await callWith(m, await tokenOf(m, pair))).toBe(200);
    const again = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${pair.key}`), headers: m.auth });
    expect(again.json()).toMatchObject({ statusCode: 'A', modifiedBy: 'boss@shop.mw' });
  });

  it('answers in Chichewa when asked', async () => {
    const pair = await addedPair();
    const off = await keyAction('PUT', '/security/apiKeys/deactivate', m, { clientKey: pair.key, changedBy: 'ops@shop.mw' }, { 'accept-language': 'ny' });
    expect(off.json()).toBe('Momwe kiyi ya API ilili zasinthidwa bwino');
    const on = await keyAction('PUT', '/security/apiKeys/activate', m, { clientKey: pair.key, changedBy: 'ops@shop.mw' }, { 'accept-language': 'ny' });
    expect(on.json()).toBe('Kiyi ya API yayambitsidwa bwino');
  });

  it('answers 404 for an unknown key and 400 without changedBy', async () => {
    const unknown = await keyAction('PUT', '/security/apiKeys/deactivate', m, { clientKey: 'Q'.repeat(30), changedBy: 'ops@shop.mw' });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown).errorCode).toBe('E903');
    const noActor = await keyAction('PUT', '/security/apiKeys/activate', m, { clientKey: m.apiKey });
    expect(noActor.statusCode).toBe(400);
    const badActor = await keyAction('PUT', '/security/apiKeys/activate', m, { clientKey: m.apiKey, changedBy: 'not an email' });
    expect(badActor.statusCode).toBe(400);
  });

  it("cannot touch another merchant's key (404), which keeps working", async () => {
    const viaOwnNumber = await keyAction('PUT', '/security/apiKeys/deactivate', m, { clientKey: other.apiKey, changedBy: 'evil@shop.mw' });
    expect(viaOwnNumber.statusCode).toBe(404);
    const viaTheirNumber = await keyAction('PUT', '/security/apiKeys/deactivate', m, { merchantAccountNumber: other.merchantAccountNumber, clientKey: other.apiKey, changedBy: 'evil@shop.mw' });
    expect(viaTheirNumber.statusCode).toBe(404);
    expect(problemOf(viaTheirNumber).errorCode).toBe('E903');
    expect(await callWith(other, other.token)).toBe(200);
    const { rows } = await t.db.query<{ status_code: string; modified_by: string | null }>('select status_code, modified_by from api_keys where client_key = $1', [other.apiKey]);
    expect(rows[0]).toEqual({ status_code: 'A', modified_by: null });
  });
});

describe('DELETE and POST /security/apiKeys/delete', () => {
  it.each(['DELETE', 'POST'] as const)('%s deletes the key: its tokens stop, get answers 404, a second delete answers 404', async (method) => {
    const pair = await addedPair();
    const token = await tokenOf(m, pair);
    expect(await callWith(m, token)).toBe(200);

    const res = await keyAction(method, '/security/apiKeys/delete', m, { clientKey: pair.key, deletedBy: 'ops@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toBe('API key has been deleted successfully');

    const after = await t.app.inject({ method: 'GET', url: url(`/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: { authorization: `Bearer ${token}` } });
    expect(after.statusCode).toBe(401);
    expect(problemOf(after).errorCode).toBe('E901');
    expect((await tokenFor(m, pair)).statusCode).toBe(401);

    const got = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${pair.key}`), headers: m.auth });
    expect(got.statusCode).toBe(404);
    const list = await t.app.inject({ method: 'GET', url: url(`/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`), headers: m.auth });
    expect(list.json().map((k: { clientKey: string }) => k.clientKey)).not.toContain(pair.key);

    const twice = await keyAction(method, '/security/apiKeys/delete', m, { clientKey: pair.key, deletedBy: 'ops@shop.mw' });
    expect(twice.statusCode).toBe(404);
    expect(problemOf(twice).errorCode).toBe('E903');
    // Activating a deleted key does not bring it back.
    const revive = await keyAction('PUT', '/security/apiKeys/activate', m, { clientKey: pair.key, changedBy: 'ops@shop.mw' });
    expect(revive.statusCode).toBe(404);
    expect(await callWith(m, token)).toBe(401);
  });

  it('lets a deleted clientKey be added again, with a new secret', async () => {
    const pair = await addedPair();
    expect((await keyAction('DELETE', '/security/apiKeys/delete', m, { clientKey: pair.key, deletedBy: 'ops@shop.mw' })).statusCode).toBe(200);
    const secret = (await generate()).secret;
    expect((await addRequest(m, { key: pair.key, secret })).statusCode).toBe(201);
    expect((await tokenFor(m, pair)).statusCode).toBe(401);
    expect(await callWith(m, await tokenOf(m, { key: pair.key, secret }))).toBe(200);
  });

  it('answers in Chichewa when asked', async () => {
    const pair = await addedPair();
    const res = await keyAction('POST', '/security/apiKeys/delete', m, { clientKey: pair.key, deletedBy: 'ops@shop.mw' }, { 'accept-language': 'ny' });
    expect(res.json()).toBe('Kiyi ya API yachotsedwa bwino');
  });

  it('refuses a body without deletedBy', async () => {
    const res = await keyAction('DELETE', '/security/apiKeys/delete', m, { clientKey: m.apiKey });
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
  });

  it("cannot delete another merchant's key (404), which keeps working", async () => {
    const viaOwnNumber = await keyAction('DELETE', '/security/apiKeys/delete', m, { clientKey: other.apiKey, deletedBy: 'evil@shop.mw' });
    expect(viaOwnNumber.statusCode).toBe(404);
    const viaTheirNumber = await keyAction('POST', '/security/apiKeys/delete', m, { merchantAccountNumber: other.merchantAccountNumber, clientKey: other.apiKey, deletedBy: 'evil@shop.mw' });
    expect(viaTheirNumber.statusCode).toBe(404);
    expect(await callWith(other, other.token)).toBe(200);
    expect((await t.db.query('select 1 from api_keys where client_key = $1 and date_deleted is null', [other.apiKey])).rowCount).toBe(1);
  });
});

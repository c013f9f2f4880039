// The shared security suite: every merchant-API route in test/routes.ts goes through the same
// authentication and merchant-scoping cases, and the suite fails when the app serves a
// /sandbox/v1 route the registry does not list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/pool.ts';
import { BASE, expiredToken, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, injectFor, MERCHANT_ROUTES, withMerchantNumber, type RouteSpec } from '../routes.ts';

let t: TestApp;
/** The caller. */
let a: TestMerchant;
/** Another merchant of the same organisation: only the account number tells them apart. */
let b: TestMerchant;
/** A merchant of another organisation. */
let c: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  a = await newMerchant(t, { accountName: 'Shop A' });
  b = await newMerchant(t, { accountName: 'Shop B', organisationId: a.organisationId });
  c = await newMerchant(t, { accountName: 'Shop C' });
});
afterAll(() => t.close());

/**
 * Everything the database holds for one merchant: every row of every table that has a
 * merchant_account_number column (so tables added by later features are covered too).
 */
async function merchantState(db: Db, merchantAccountNumber: number): Promise<Record<string, string[]>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'merchant_account_number' and t.table_type = 'BASE TABLE'
      order by c.table_name`,
  );
  const state: Record<string, string[]> = {};
  for (const { table_name } of tables) {
    const ident = `"${table_name.replace(/"/g, '""')}"`;
    const { rows } = await db.query<{ r: string }>(`select x::text as r from ${ident} x where merchant_account_number = $1 order by 1`, [merchantAccountNumber]);
    state[table_name] = rows.map((row) => row.r);
  }
  return state;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const label = (r: RouteSpec) => `${r.method} ${r.url.slice(BASE.length)}`;

describe.each(MERCHANT_ROUTES.map((route) => [label(route), route] as const))('%s', (_name, route) => {
  it('answers 401 E901 without a token and changes nothing', async () => {
    const req = await route.build(t, a);
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req));
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
  });

  it('answers 401 E901 to an expired token and changes nothing', async () => {
    const req = await route.build(t, a);
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, bearer(await expiredToken(t, a))));
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
  });

  it("answers 404 E903 when merchant A's token names merchant B's account, and B's data is unchanged", async () => {
    // A request that would be valid for B, sent with A's token (same organisation, so only the
    // account number check stands between them).
    const req = route.merchantIn === 'none' ? withMerchantNumber(route, await route.build(t, b), b.merchantAccountNumber) : await route.build(t, b);
    const beforeB = await merchantState(t.db, b.merchantAccountNumber);
    const beforeA = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, a.auth));
    expect(res.statusCode).toBe(404);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E903');
    expect(await merchantState(t.db, b.merchantAccountNumber)).toEqual(beforeB);
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(beforeA);
  });

  it("answers 404 E903 when B's account number is spelled in another case", async () => {
    const req = withMerchantNumber(route, await route.build(t, b), b.merchantAccountNumber, 'MERCHANTACCOUNTNUMBER');
    const beforeB = await merchantState(t.db, b.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, a.auth));
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
    expect(await merchantState(t.db, b.merchantAccountNumber)).toEqual(beforeB);
  });

  it.each([[1234], ['abcdefgh'], ['1234567'], [123456789]])('answers 400 E900 to merchantAccountNumber %j', async (bad) => {
    const req = withMerchantNumber(route, await route.build(t, a), bad);
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, a.auth));
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toContain('Merchant Account Number should be 8 numbers only.');
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
  });

  it('answers 404 E903 to an X-Merchant-Account-Number header naming another merchant', async () => {
    const req = await route.build(t, a);
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, { ...a.auth, 'x-merchant-account-number': String(b.merchantAccountNumber) }));
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
  });

  it('answers 404 E903 to an X-Organisation-Id header naming another organisation', async () => {
    const req = await route.build(t, a);
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, { ...a.auth, 'x-organisation-id': c.organisationId }));
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
  });

  it('accepts matching X-Merchant-Account-Number and X-Organisation-Id headers', async () => {
    const req = await route.build(t, a);
    const res = await t.app.inject(injectFor(route, req, { ...a.auth, 'x-merchant-account-number': String(a.merchantAccountNumber), 'x-organisation-id': a.organisationId.toLowerCase() }));
    expect(res.statusCode).toBe(route.status ?? 200);
  });

  it('answers 2xx to a valid request', async () => {
    const req = await route.build(t, a);
    const res = await t.app.inject(injectFor(route, req, a.auth));
    expect(res.statusCode, res.body).toBe(route.status ?? 200);
    // An operation that is always refused for a merchant's token (the operator's) answers problem+json.
    expect(String(res.headers['content-type'])).toMatch((route.status ?? 200) < 400 ? /^application\/json/ : /^application\/problem\+json/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe("another merchant's API keys", () => {
  // B holds a valid token for its own account and names A's keys: they do not exist for B.
  const keyRoutes = MERCHANT_ROUTES.filter((r) => r.url.includes('/security/apiKeys/') && r.merchantIn !== 'none' && !r.url.endsWith('/add') && !r.url.endsWith('/generate') && !r.url.endsWith('/getAll'));

  it('covers get, activate, deactivate and delete', () => {
    expect(keyRoutes.map(label).sort()).toEqual(
      ['DELETE /security/apiKeys/delete', 'GET /security/apiKeys/get', 'POST /security/apiKeys/delete', 'PUT /security/apiKeys/activate', 'PUT /security/apiKeys/deactivate'].sort(),
    );
  });

  it.each(keyRoutes.map((route) => [label(route), route] as const))('%s with A\'s clientKey and B\'s token answers 404 and leaves the key alone', async (_name, route) => {
    // A's own key: the one behind A's token, so any change would also show on A's next request.
    const req = await route.build(t, b);
    const clientKey = a.apiKey;
    const target = route.merchantIn === 'body' ? { ...req, body: { ...req.body, clientKey } } : { ...req, query: { ...req.query, clientKey } };
    const before = await merchantState(t.db, a.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, target, b.auth));
    expect(res.statusCode).toBe(404);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E903');
    expect(res.body).not.toContain(String(a.merchantAccountNumber));
    expect(await merchantState(t.db, a.merchantAccountNumber)).toEqual(before);
    // A's token still works.
    const ok = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get`, query: { merchantAccountNumber: String(a.merchantAccountNumber) }, headers: a.auth });
    expect(ok.statusCode).toBe(200);
  });

  it("does not list A's keys to B", async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/getAll`, query: { merchantAccountNumber: String(b.merchantAccountNumber) }, headers: b.auth });
    expect(res.statusCode).toBe(200);
    const keys = res.json() as Array<{ clientKey: string; merchantAccountNumber: number }>;
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.merchantAccountNumber === b.merchantAccountNumber)).toBe(true);
    expect(keys.map((k) => k.clientKey)).not.toContain(a.apiKey);
  });

  it('refuses a key added for another merchant of the same organisation', async () => {
    const route = MERCHANT_ROUTES.find((r) => r.method === 'POST' && r.url.endsWith('/security/apiKeys/add'))!;
    const req = await route.build(t, b);
    const before = await merchantState(t.db, b.merchantAccountNumber);
    const res = await t.app.inject(injectFor(route, req, a.auth));
    expect(res.statusCode).toBe(404);
    expect(await merchantState(t.db, b.merchantAccountNumber)).toEqual(before);
  });
});

describe('E2 with its documented JSON body', () => {
  it("answers 404 when the body names another merchant's account", async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/getAll`, headers: { ...a.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ merchantAccountNumber: b.merchantAccountNumber }) });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res).errorCode).toBe('E903');
  });

  it('answers 200 when the body names the caller', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/getAll`, headers: { ...a.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ MerchantAccountNumber: a.merchantAccountNumber }) });
    expect(res.statusCode).toBe(200);
  });
});

describe('a revoked key', () => {
  it("stops its tokens on every route once deleted, and they never reach another merchant's data", async () => {
    const d = await newMerchant(t, { organisationId: a.organisationId });
    const del = await t.app.inject({ method: 'DELETE', url: `${BASE}/security/apiKeys/delete`, headers: d.auth, payload: { merchantAccountNumber: d.merchantAccountNumber, clientKey: d.apiKey, deletedBy: ACTOR } });
    expect(del.statusCode).toBe(200);
    for (const route of MERCHANT_ROUTES) {
      const res = await t.app.inject(injectFor(route, await route.build(t, d), d.auth));
      expect(res.statusCode, label(route)).toBe(401);
      expect(problemOf(res).errorCode).toBe('E901');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Completeness: the registry lists every merchant-API route the app serves.

/**
 * Every (method, path) the app routes, from `printRoutes`' tree (hidden routes included, which
 * the OpenAPI document leaves out). HEAD routes that Fastify adds for GET routes are dropped.
 * Paths come back lower-cased: the router matches case-insensitively.
 */
function servedRoutes(tree: string): Array<{ method: string; path: string }> {
  const out: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│   |    )*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    stack.length = depth;
    stack.push(match[2]);
    const methods = match[3]?.split(',').map((m) => m.trim()) ?? [];
    for (const method of methods) if (method !== 'HEAD') out.push({ method, path: stack.join('') });
  }
  return out;
}

describe('the route registry', () => {
  // Routes without a Bearer token (credentials in the body), which the registry does not list:
  // the token endpoint and the hosted checkout's initiate (test/checkout/checkout.test.ts covers it).
  const UNAUTHENTICATED = new Set([`${BASE}/account/getAccessToken`, `${BASE}/checkout/rtp/initiate`].map((p) => p.toLowerCase()));
  const key = (method: string, path: string) => `${method} ${path.toLowerCase()}`;
  const registered = new Set(MERCHANT_ROUTES.map((r) => key(r.method, r.url)));

  it('lists each route once, and each exists in the app', () => {
    expect(registered.size).toBe(MERCHANT_ROUTES.length);
    for (const route of MERCHANT_ROUTES) expect(t.app.hasRoute({ method: route.method, url: route.url }), label(route)).toBe(true);
  });

  it('lists every /sandbox/v1 route the app serves (printRoutes)', () => {
    const served = servedRoutes(t.app.printRoutes({ commonPrefix: false }));
    // Sanity: the parser sees the routes we know about, hidden alias included.
    expect(served.map((r) => key(r.method, r.path))).toContain(key('GET', `${BASE}/merchants/limits/getAll`));
    expect(served.map((r) => key(r.method, r.path))).toContain(key('GET', `${BASE}/api/core/Connectors/GetSummary`));
    const missing = served
      .filter((r) => r.path.startsWith(BASE.toLowerCase()) && !UNAUTHENTICATED.has(r.path))
      .map((r) => key(r.method, r.path))
      .filter((k) => !registered.has(k));
    expect(missing, 'add these routes to test/routes.ts').toEqual([]);
  });

  it('lists every /sandbox/v1 operation of the OpenAPI document', () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith(`${BASE}/`) || UNAUTHENTICATED.has(path.toLowerCase())) continue;
      for (const method of Object.keys(operations)) if (!registered.has(key(method.toUpperCase(), path))) missing.push(`${method.toUpperCase()} ${path}`);
    }
    expect(missing, 'add these routes to test/routes.ts').toEqual([]);
  });
});

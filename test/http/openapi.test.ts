// The API reference works as it is (issue 15, item 6): every operation of /openapi.json has a
// summary, a description and a description for every response; every operation that honours
// X-Idempotency-Key declares it (found by behaviour, not by a list); the examples are working
// requests once the illustrative numbers are replaced by a merchant's own, as "Try it" users do;
// the docs page carries this project's name; GET / leads to the docs. The page itself, in a real
// browser, is test/http/docs.browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { DOCS_TITLE, EXAMPLE, PROJECT_NAME } from '../../src/http/docs.ts';
import { MAGIC_SUFFIXES, TEST_WALLETS } from '../../src/modules/disbursements/sandbox.ts';
import { validateBatch } from '../../src/modules/disbursements/service.ts';
import { EVENT_CODES } from '../../src/modules/webhooks/catalogue.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { injectFor, MERCHANT_ROUTES } from '../routes.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  example?: unknown;
  schema?: { examples?: unknown[] };
}
interface Operation {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, Response & { $ref?: string }>;
}
interface Response {
  description?: string;
  content?: Record<string, unknown>;
}
interface Document {
  info: { description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Response> };
}

let t: TestApp;
let m: TestMerchant;
let doc: Document;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Docs Shop' });
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as Document;
});
afterAll(() => t.close());

function operations(): Array<{ name: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));
}

/** A response as written, or the shared one its $ref names (#/components/responses/…). */
function response(op: Operation, status: string): Response | undefined {
  const r = op.responses[status];
  return r?.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r;
}

function operation(method: string, path: string): Operation | undefined {
  const item = Object.entries(doc.paths).find(([p]) => p.toLowerCase() === path.toLowerCase())?.[1];
  return item?.[method.toLowerCase()];
}

describe('every operation of /openapi.json', () => {
  it('has a summary, a description and a description for every response', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(60);
    const missing: string[] = [];
    for (const { name, op } of all) {
      if (!op.summary?.trim()) missing.push(`${name}: no summary`);
      if (!op.description?.trim()) missing.push(`${name}: no description`);
      for (const status of Object.keys(op.responses)) {
        const described = response(op, status)?.description;
        // "Default Response" is what @fastify/swagger writes when the schema says nothing.
        if (!described?.trim() || described === 'Default Response') missing.push(`${name}: response ${status} undescribed`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents its errors as problem+json, one status at a time, each said once and referred to', () => {
    for (const { name, op } of operations()) {
      // (503 may be the route's own: /health/ready's body says what is not ready.)
      for (const status of ['400', '500']) {
        expect(op.responses[status]?.$ref, `${name} ${status}`).toMatch(/^#\/components\/responses\/Status/);
        expect(response(op, status)?.content, `${name} ${status}`).toHaveProperty(['application/problem+json']);
      }
      expect(response(op, '400')!.description, name).toContain('400 E900');
      if (!op.responses['503'].description) expect(response(op, '503')!.description, name).toContain('503 E952');
      expect(Object.keys(op.responses).filter((s) => /x/i.test(s)), `${name}: a range instead of its statuses`).toEqual([]);
    }
    const topup = operation('post', `${BASE}/merchants/accounts/topup`)!;
    expect(response(topup, '401')!.description).toContain('401 E901');
    expect(response(topup, '409')!.description).toContain('409 E907');
    expect(response(topup, '429')!.description).toContain('429 E905');
    // An operator route's 401 says what an operator must send, not a merchant.
    expect(response(operation('get', '/admin/v1/emails')!, '401')!.description).toContain('ADMIN_TOKEN');
  });
});

describe('X-Idempotency-Key', () => {
  it('is declared by exactly the operations that honour it', async () => {
    const honoured: string[] = [];
    const declared: string[] = [];
    for (const route of MERCHANT_ROUTES) {
      const name = `${route.method} ${route.url}`;
      const op = operation(route.method, route.url);
      // Hidden aliases (GET /api/core/Connectors/GetSummary) are not in the document.
      if (!op) continue;
      if (op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-idempotency-key')) declared.push(name);
      // A key of the wrong format is refused, naming the header, by exactly the operations that read it.
      const req = await route.build(t, m);
      const res = await t.app.inject(injectFor(route, req, { ...m.auth, 'x-idempotency-key': 'bad' }));
      if (res.statusCode === 400 && res.body.includes('X-Idempotency-Key')) honoured.push(name);
    }
    expect(honoured.length).toBeGreaterThanOrEqual(10);
    for (const name of [`POST ${BASE}/disbursements/batch/addJson`, `POST ${BASE}/collections/requestToPay/initiate`, `POST ${BASE}/merchants/accounts/topup`]) {
      expect(honoured).toContain(name);
    }
    expect(declared.sort()).toEqual(honoured.sort());
  });

  it('says what it is: its format, how long it is kept and what a replay does', () => {
    const header = operation('post', `${BASE}/disbursements/batch/addJson`)!.parameters!.find((p) => p.name === 'x-idempotency-key')!;
    expect(header.required).toBe(false);
    expect(header.description).toContain('15–80 characters of [A-Za-z0-9-]');
    expect(header.description).toContain('24 hours');
    expect(header.description).toContain('Idempotent-Replayed');
    expect(header.description).toContain('409 E907');
  });
});

describe('sandbox test accounts, magic suffixes and events', () => {
  it('are listed, from the data, by the payout and webhook operations', () => {
    for (const path of ['/disbursements/batch/addJson', '/disbursements/batch/addFile', '/disbursements/single/add', '/disbursements/batch/transferFunds']) {
      const description = operation('post', `${BASE}${path}`)!.description!;
      expect(description, path).toContain('3333888800–3333888809');
      for (const wallet of TEST_WALLETS) expect(description, path).toContain(wallet);
      for (const magic of MAGIC_SUFFIXES) {
        expect(description, path).toContain(magic.suffix);
        expect(description, path).toContain(magic.responseCode);
      }
    }
    for (const path of ['/merchants/webhooks/add', '/merchants/webhooks/update', '/merchants/webhooks/delete']) {
      const description = operation('post', `${BASE}${path}`)!.description!;
      for (const code of EVENT_CODES) expect(description, path).toContain(`\`${code}\``);
    }
  });

  it('the document says the examples are illustrative and the banner prints your own numbers', () => {
    expect(doc.info.description).toContain(String(EXAMPLE.merchantAccountNumber));
    expect(doc.info.description).toMatch(/banner/);
  });
});

// ---------------------------------------------------------------------------------------------
// "Try it": each main operation's example, with the illustrative numbers replaced by the
// merchant's own (and ids the earlier calls returned), is a working request.

/** The merchant "Try it" is done for. */
let who: TestMerchant;

/** Replaces the example set's values by `who`'s, and fields named in `ids` by the ids earlier calls returned. */
function personalise(value: unknown, ids: Record<string, unknown>, key?: string): unknown {
  if (key !== undefined && key in ids) return ids[key];
  if (Array.isArray(value)) return value.map((v) => personalise(v, ids));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, personalise(v, ids, k)]));
  const swaps = new Map<unknown, unknown>([
    [EXAMPLE.merchantAccountNumber, who.merchantAccountNumber],
    [String(EXAMPLE.merchantAccountNumber), String(who.merchantAccountNumber)],
    [EXAMPLE.organisationId, who.organisationId],
    [EXAMPLE.paymentAccountNumber, who.paymentAccountNumber],
    [EXAMPLE.apiKey, who.apiKey],
    [EXAMPLE.apiSecret, who.apiSecret],
  ]);
  return swaps.has(value) ? swaps.get(value) : value;
}

async function tryIt(method: string, path: string, ids: Record<string, unknown> = {}) {
  const op = operation(method, `${BASE}${path}`);
  expect(op, `${method} ${path}`).toBeDefined();
  const media = op!.requestBody?.content['application/json'];
  const example = media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
  if (op!.requestBody) expect(example, `${method} ${path}: no body example`).toBeDefined();
  const query: Record<string, string> = {};
  const headers: Record<string, string> = { ...who.auth };
  for (const p of op!.parameters ?? []) {
    const value = p.example ?? p.schema?.examples?.[0];
    if (value === undefined) continue;
    if (p.in === 'query') query[p.name] = String(personalise(value, ids, p.name));
    if (p.in === 'header' && p.required) headers[p.name] = String(personalise(value, ids, p.name));
  }
  const res = await t.app.inject({ method: method as 'POST', url: `${BASE}${path}`, query, headers, ...(example === undefined ? {} : { payload: personalise(example, ids) as object }) });
  expect(res.statusCode, `${method} ${path} → ${res.body.slice(0, 500)}`).toBeGreaterThanOrEqual(200);
  expect(res.statusCode, `${method} ${path} → ${res.body.slice(0, 500)}`).toBeLessThan(300);
  return res;
}

describe('the examples', () => {
  it('are working requests for the main operations (E1–E15 and the calls around them)', async () => {
    // A merchant of its own: the other tests give theirs merchant users, who then must act on batches.
    who = await newMerchant(t, { accountName: 'Try It Shop' });
    expect((await tryIt('POST', '/account/getAccessToken')).json().accessToken).toBeTruthy();
    await tryIt('GET', '/security/apiKeys/generate'); // E1
    await tryIt('GET', '/security/apiKeys/getAll'); // E2
    await tryIt('GET', '/core/Connectors/GetSummary'); // E9
    await tryIt('GET', '/merchants/limits/getAll'); // E10
    await tryIt('POST', '/merchants/accounts/topup');

    // E8, then what the worker does with it: every example line is valid in the sandbox.
    const batchNumber = (await tryIt('POST', '/disbursements/batch/addJson')).json().batchNumber as number;
    await withTransaction(t.db, (tx) => validateBatch(t.deps, tx, batchNumber));
    const lines = (await tryIt('POST', '/disbursements/batch/getTransactions', { batchNumber })).json().message as Array<{ transactionStatusCode: string }>; // E3
    expect(lines.length).toBe(2);
    expect(lines.every((line) => line.transactionStatusCode !== 'E')).toBe(true);
    await tryIt('POST', '/disbursements/batch/getBatches'); // E4
    expect((await tryIt('POST', '/disbursements/batch/transferFunds', { batchNumber })).json().BatchStatusCode).toBe('T');
    await tryIt('POST', '/disbursements/batch/addFile');
    expect((await tryIt('POST', '/disbursements/single/add')).json().responseCode).toBe('T100');

    // E12, and the customer paying its timed account; E11.
    const timedAccountNumber = (await tryIt('POST', '/collections/requestToPay/initiate')).json().timedAccountNumber as string;
    await tryIt('POST', '/collections/requestToPay/addFakeTransaction', { timedAccountNumber });
    await tryIt('POST', '/collections/addFakeCustomPayment'); // E11
    await tryIt('POST', '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics'); // E5
    await tryIt('POST', '/core/MerchantAnalytics/GetDisbursementMetrics');

    // Settlement accounts: add, E7 activate, E15 update.
    const accountId = Number((await tryIt('POST', '/merchants/bankAccounts/add')).headers['x-account-id']);
    await tryIt('POST', '/merchants/bankAccounts/activate', { accountId }); // E7
    await tryIt('POST', '/merchants/bankAccounts/update', { accountId }); // E15

    // Webhooks: add, E13 update, a test event, E14 delete.
    await tryIt('POST', '/merchants/webhooks/add');
    const webhookId = ((await tryIt('GET', '/merchants/webhooks/getAll')).json() as Array<{ webhookId: number }>)[0].webhookId;
    await tryIt('POST', '/merchants/webhooks/update', { webhookId }); // E13
    await tryIt('POST', '/merchants/webhooks/test');
    await tryIt('POST', '/merchants/webhooks/delete'); // E14

    // Merchant users: add, E6 reinvite.
    const userId = String((await tryIt('POST', '/security/merchantUsers/add')).headers['x-user-id']);
    await tryIt('POST', '/security/merchantUsers/reinvite', { userId }); // E6

    // The hosted checkout takes the key pair in its body.
    expect((await tryIt('POST', '/checkout/rtp/initiate')).json().checkoutUrl).toBeTruthy();
  });
});

describe('the docs page', () => {
  it('carries this project\'s name and icon, not the framework\'s logo', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<title>${DOCS_TITLE}</title>`);
    expect(page.body).not.toContain('<title>Swagger UI</title>');
    expect(page.body).toContain('theme/favicon.svg');
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain(JSON.stringify(PROJECT_NAME));
    // The stock top bar logo is replaced by our Logo component, and no image logo is inlined.
    expect(init.body).toContain('Logo');
    expect(init.body).not.toContain('data:image/');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('is where GET / leads', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/docs');
  });
});

// Malformed input of every kind gets a 4xx application/problem+json and changes nothing; no input
// produces a 500 (product.md §3). Also the cross-cutting wire behaviour: request ids, languages,
// rate limits and the operations endpoints.
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { t as translate } from '../../src/http/i18n.ts';
import { BASE, ledgerInvariants, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { clientError, dbState } from '../helpers.ts';
import { ACTOR, CONNECTOR_ID } from '../routes.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(() => t.close());

const TOPUP = `${BASE}/merchants/accounts/topup`;
const TOKEN = `${BASE}/account/getAccessToken`;
const ADD_KEY = `${BASE}/security/apiKeys/add`;
const LIMITS = `${BASE}/merchants/limits/getAll`;

type Res = { statusCode: number; headers: Record<string, unknown>; body: string };

const validTopup = () => ({ merchantAccountNumber: m.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: 1500, createdBy: ACTOR });
const validToken = () => ({ apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber });
const validAddKey = (over: Record<string, unknown> = {}) => ({
  organisationId: m.organisationId,
  merchantAccountNumber: m.merchantAccountNumber,
  clientKey: `key${Math.random().toString(36).slice(2)}${Date.now()}`.slice(0, 40),
  clientSecret: 's'.repeat(40),
  capturedBy: ACTOR,
  ...over,
});

/** A raw request with a JSON content type unless told otherwise. */
function raw(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload: string | Buffer | undefined, headers: Record<string, string> = {}, auth = true) {
  return t.app.inject({ method, url, payload, headers: { ...(auth ? m.auth : {}), 'content-type': 'application/json', ...headers } });
}



/** 2xx with JSON, or a 4xx problem; never a 5xx. */
function neverServerError(res: Res): void {
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  if (res.statusCode >= 400) problemOf(res);
  else expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
}

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(Object.prototype).not.toHaveProperty('isAdmin');
}

describe('malformed JSON bodies', () => {
  const cases: Array<[string, string]> = [
    ['invalid JSON', '{"merchantAccountNumber": '],
    ['trailing garbage', `${JSON.stringify({ merchantAccountNumber: 10000000 })}x`],
    ['single quotes', "{'merchantAccountNumber': 12345678}"],
    ['JSON null', 'null'],
    ['a JSON array', '[]'],
    ['an array holding a valid body', '[{"merchantAccountNumber":12345678}]'],
    ['a JSON string', '"hello"'],
    ['a JSON number', '42'],
    ['JSON true', 'true'],
    ['whitespace only', '   '],
  ];

  describe.each([
    ['POST /merchants/accounts/topup', TOPUP, true],
    ['POST /security/apiKeys/add', ADD_KEY, true],
    ['POST /account/getAccessToken', TOKEN, false],
  ] as const)('%s', (_name, url, auth) => {
    it.each(cases)('answers 400 E900 to %s and changes nothing', async (_case, payload) => {
      const before = await dbState(t.db);
      const res = await raw('POST', url, payload, {}, auth);
      const p = clientError(res, 400);
      expect(p.errorCode).toBe('E900');
      expect(p.errors.length).toBeGreaterThan(0);
      expect(await dbState(t.db)).toEqual(before);
    });

    it('answers 400 to an empty body declared as JSON', async () => {
      const before = await dbState(t.db);
      const res = await raw('POST', url, '', {}, auth);
      expect(clientError(res, 400).errorCode).toBe('E900');
      expect(await dbState(t.db)).toEqual(before);
    });
  });

  it('answers 400 to the gateway-documented GET body when it is not JSON', async () => {
    const res = await raw('GET', `${BASE}/security/apiKeys/getAll`, '{"merchantAccountNumber":');
    expect(clientError(res, 400).errorCode).toBe('E900');
  });
});

describe('wrong types, ranges and missing fields', () => {
  it('reports each wrongly typed field once', async () => {
    const before = await dbState(t.db);
    const res = await t.app.inject({ method: 'POST', url: TOPUP, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, connectorId: 'abc', topupAmount: { value: 5 }, createdBy: [] } });
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toHaveLength(3);
    expect(p.errors.join('\n')).toMatch(/Connector Id/);
    expect(p.errors.join('\n')).toMatch(/Topup Amount/);
    expect(p.errors.join('\n')).toMatch(/Created By/);
    expect(await dbState(t.db)).toEqual(before);
  });

  it.each([
    ['topupAmount', 0],
    ['topupAmount', -5],
    ['topupAmount', -0],
    ['topupAmount', 0.001],
    ['topupAmount', 1.005],
    ['topupAmount', 5_000_000_000.01],
    ['topupAmount', 1e308],
    ['topupAmount', -1e308],
    ['topupAmount', 5e-324],
    ['topupAmount', 'NaN'],
    ['topupAmount', 'Infinity'],
    ['topupAmount', '-Infinity'],
    ['topupAmount', '1e3'],
    ['topupAmount', '0x10'],
    ['topupAmount', '1,500'],
    ['topupAmount', ''],
    ['topupAmount', null],
    ['topupAmount', true],
    ['topupAmount', '9'.repeat(400)],
    ['connectorId', 99_999],
    ['connectorId', 1_000_000],
    ['connectorId', 212188.5],
    ['connectorId', 1e308],
    ['connectorId', 'NaN'],
    ['merchantAccountNumber', 1e308],
    ['merchantAccountNumber', -10000000],
    ['merchantAccountNumber', 12345678.5],
    ['createdBy', 'not-an-email'],
    ['createdBy', ''],
  ])('refuses %s = %j with one message for that field and no money moved', async (field, value) => {
    const before = await dbState(t.db);
    const res = await t.app.inject({ method: 'POST', url: TOPUP, headers: m.auth, payload: { ...validTopup(), [field]: value } });
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toHaveLength(1);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('refuses -0 written literally in the JSON text', async () => {
    const body = JSON.stringify(validTopup()).replace('"topupAmount":1500', '"topupAmount":-0');
    expect(body).toContain('-0');
    const res = await raw('POST', TOPUP, body);
    expect(clientError(res, 400).errors).toHaveLength(1);
  });

  it.each([
    ['POST /merchants/accounts/topup', TOPUP, ['Merchant Account Number', 'Connector Id', 'Topup Amount', 'Created By']],
    ['POST /account/getAccessToken', TOKEN, ['Api Key', 'Api Secret', 'Organisation Id', 'Merchant Account Number']],
    ['POST /security/apiKeys/add', ADD_KEY, ['Organisation Id', 'Merchant Account Number', 'Client Key', 'Client Secret']],
  ] as const)('%s with an empty object lists one error per missing field', async (_name, url, fields) => {
    const before = await dbState(t.db);
    const res = await raw('POST', url, '{}');
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toHaveLength(fields.length);
    for (const field of fields) expect(p.errors).toContain(`${field} is required.`);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('lists each missing field once when only some are present', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOPUP, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, topupAmount: 10 } });
    const p = clientError(res, 400);
    expect(p.errors.sort()).toEqual(['Connector Id is required.', 'Created By is required.']);
  });

  it('refuses a missing query parameter', async () => {
    const res = await t.app.inject({ method: 'GET', url: LIMITS, headers: m.auth });
    const p = clientError(res, 400);
    expect(p.errors).toEqual(['Merchant Account Number is required.']);
  });
});

describe('unknown fields', () => {
  it('are ignored on a write (200) and never echoed', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: TOPUP,
      headers: m.auth,
      payload: { ...validTopup(), foo: 'bar', nested: { deep: [1, 2, { x: null }] }, transactionReferenceNumber: 'CHOSEN123456', accountBalance: 1e12 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).not.toHaveProperty('foo');
    expect(body).not.toHaveProperty('nested');
    expect(body.transactionReferenceNumber).not.toBe('CHOSEN123456');
    expect(body.topupAmount).toBe(1500);
  });

  it('are ignored on getAccessToken (200)', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN, payload: { ...validToken(), grant_type: 'client_credentials', scope: ['all'] } });
    expect(res.statusCode).toBe(200);
  });

  it('are ignored in the query string (200)', async () => {
    const res = await t.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(m.merchantAccountNumber), page: '2', x: 'y' }, headers: m.auth });
    expect(res.statusCode).toBe(200);
  });
});

describe('huge strings inside the body limit', () => {
  const MB = 1_000_000;

  it.each([
    ['clientKey on apiKeys/add', ADD_KEY, () => validAddKey({ clientKey: 'k'.repeat(MB) })],
    ['clientSecret on apiKeys/add', ADD_KEY, () => validAddKey({ clientSecret: 's'.repeat(MB) })],
    ['apiKey on getAccessToken', TOKEN, () => ({ ...validToken(), apiKey: 'k'.repeat(MB) })],
    ['apiSecret on getAccessToken', TOKEN, () => ({ ...validToken(), apiSecret: 's'.repeat(MB) })],
    ['createdBy on topup', TOPUP, () => ({ ...validTopup(), createdBy: `${'a'.repeat(MB)}@shop.mw` })],
    ['topupAmount on topup', TOPUP, () => ({ ...validTopup(), topupAmount: '1'.repeat(MB) })],
  ])('answers 400 (not 500, not 413) to a 1 MB %s and does not echo it', async (_name, url, body) => {
    const payload = JSON.stringify(body());
    expect(payload.length).toBeLessThan(1024 * 1024);
    const before = await dbState(t.db);
    const res = await raw('POST', url, payload);
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(res.body.length).toBeLessThan(10_000);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('answers 400 to a 1 MB query parameter value', async () => {
    // Node's HTTP parser caps the request line far below this; inject has no such cap, so the
    // schema limits must hold on their own.
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/get`, query: { merchantAccountNumber: String(m.merchantAccountNumber), clientKey: 'k'.repeat(MB) }, headers: m.auth });
    clientError(res, 400);
    expect(res.body.length).toBeLessThan(10_000);
  });
});

describe('content types', () => {
  it.each([
    ['text/plain', JSON.stringify({ merchantAccountNumber: 12345678 })],
    ['application/xml', '<topup><merchantAccountNumber>12345678</merchantAccountNumber></topup>'],
    ['application/x-www-form-urlencoded', 'merchantAccountNumber=12345678&connectorId=212188'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--'],
    ['application/octet-stream', 'binary'],
    ['nonsense', '{}'],
  ])('refuses %s with 415 or 400 and changes nothing', async (type, payload) => {
    const before = await dbState(t.db);
    const res = await raw('POST', TOPUP, payload, { 'content-type': type });
    const p = clientError(res);
    expect([400, 415]).toContain(res.statusCode);
    expect(p.errorCode).toBe('E900');
    expect(await dbState(t.db)).toEqual(before);
  });

  it('refuses a body sent without a content type', async () => {
    const before = await dbState(t.db);
    const res = await t.app.inject({ method: 'POST', url: TOPUP, headers: m.auth, payload: Buffer.from(JSON.stringify(validTopup())) });
    expect([400, 415]).toContain(res.statusCode);
    expect(problemOf(res).errorCode).toBe('E900');
    expect(await dbState(t.db)).toEqual(before);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await raw('POST', TOPUP, JSON.stringify(validTopup()), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(200);
  });
});

describe('bodies beyond the size limit', () => {
  const FORTY_MB = 40 * 1024 * 1024;

  it('answers 413 E908 through inject and changes nothing', async () => {
    const before = await dbState(t.db);
    const res = await raw('POST', TOPUP, Buffer.alloc(FORTY_MB, 'a'));
    const p = clientError(res, 413);
    expect(p.errorCode).toBe('E908');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(await dbState(t.db)).toEqual(before);
  });

  it('answers 413 E908 on a real socket, and the server keeps answering', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const before = await dbState(t.db);

    // Declared length above the limit: refused before the body is read.
    const big = await fetch(`${base}${TOPUP}`, { method: 'POST', headers: { ...m.auth, 'content-type': 'application/json' }, body: Buffer.alloc(FORTY_MB, 'a'), signal: AbortSignal.timeout(20_000) });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await big.json()).errorCode).toBe('E908');

    // No declared length (chunked): refused once the limit is crossed.
    let sent = 0;
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= FORTY_MB) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const chunked = await fetch(`${base}${TOPUP}`, { method: 'POST', headers: { ...m.auth, 'content-type': 'application/json' }, body: stream, duplex: 'half', signal: AbortSignal.timeout(20_000) } as RequestInit).catch((err: unknown) => err);
    if (chunked instanceof Response) {
      expect(chunked.status).toBe(413);
      expect((await chunked.json()).errorCode).toBe('E908');
    } else {
      // The server may cut the upload off after answering; it must not have waited for all 40 MB.
      expect(sent).toBeLessThan(FORTY_MB);
    }

    // Still alive, and still serving authenticated requests.
    const live = await fetch(`${base}/health/live`, { signal: AbortSignal.timeout(5_000) });
    expect(live.status).toBe(200);
    const ok = await fetch(`${base}${LIMITS}?merchantAccountNumber=${m.merchantAccountNumber}`, { headers: m.auth, signal: AbortSignal.timeout(5_000) });
    expect(ok.status).toBe(200);
    expect(await dbState(t.db)).toEqual(before);
  });
});

describe('deeply nested JSON', () => {
  const DEPTH = 10_000;
  const arrays = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
  const objects = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
  const withExtra = (nested: string) => `${JSON.stringify(validTopup()).slice(0, -1)},"extra":${nested}}`;

  it.each([
    ['nested arrays as the body', arrays],
    ['nested objects as the body', objects],
  ])('answers 4xx to %s', async (_name, payload) => {
    const before = await dbState(t.db);
    const res = await raw('POST', TOPUP, payload);
    clientError(res);
    expect(await dbState(t.db)).toEqual(before);
  });

  it.each([
    ['nested arrays', arrays],
    ['nested objects', objects],
  ])('never answers 5xx to %s inside an unknown field', async (_name, nested) => {
    neverServerError(await raw('POST', TOPUP, withExtra(nested)));
  });

  it.each([
    ['nested arrays', arrays],
    ['nested objects', objects],
  ])('never answers 5xx to %s inside an unknown field of an idempotent request', async (_name, nested) => {
    const before = await dbState(t.db);
    const res = await raw('POST', TOPUP, withExtra(nested), { 'x-idempotency-key': `deep-${_name.replace(/\W/g, '')}-${Date.now()}` });
    neverServerError(res);
    if (res.statusCode >= 400) expect(await dbState(t.db)).toEqual(before);
  });

  it('never answers 5xx to deep nesting in getAccessToken', async () => {
    neverServerError(await raw('POST', TOKEN, `${JSON.stringify(validToken()).slice(0, -1)},"x":${arrays}}`, {}, false));
    clientError(await raw('POST', TOKEN, objects, {}, false));
  });
});

describe('prototype pollution', () => {
  it.each([
    ['__proto__ at the top', (b: string) => `{"__proto__":{"polluted":"yes","isAdmin":true},${b.slice(1)}`],
    ['__proto__ nested', (b: string) => `{"x":{"__proto__":{"polluted":"yes"}},${b.slice(1)}`],
    ['constructor.prototype', (b: string) => `{"constructor":{"prototype":{"polluted":"yes"}},${b.slice(1)}`],
    ['__proto__ as a differently-cased field name', (b: string) => `{"__PROTO__":{"polluted":"yes"},${b.slice(1)}`],
  ])('%s is refused or ignored, and nothing is polluted', async (_name, build) => {
    for (const [url, body, auth] of [
      [TOPUP, JSON.stringify(validTopup()), true],
      [TOKEN, JSON.stringify(validToken()), false],
    ] as const) {
      const res = await raw('POST', url, build(body), {}, auth);
      neverServerError(res);
      assertNoPollution();
    }
  });

  it('query strings and GET bodies cannot pollute either', async () => {
    for (const query of ['__proto__[polluted]=yes', '__proto__=yes', 'constructor[prototype][polluted]=yes', 'merchantAccountNumber[__proto__]=1']) {
      neverServerError(await t.app.inject({ method: 'GET', url: `${LIMITS}?merchantAccountNumber=${m.merchantAccountNumber}&${query}`, headers: m.auth }));
      assertNoPollution();
    }
    neverServerError(await raw('GET', `${BASE}/security/apiKeys/getAll`, `{"__proto__":{"polluted":"yes"},"merchantAccountNumber":${m.merchantAccountNumber}}`));
    neverServerError(await raw('GET', `${BASE}/security/apiKeys/getAll`, `{"constructor":{"prototype":{"polluted":"yes"}},"merchantAccountNumber":${m.merchantAccountNumber}}`));
    assertNoPollution();
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET /sandbox/v1/nope with a token', 'GET', `${BASE}/nope`, true],
    ['GET /sandbox/v1/nope without a token', 'GET', `${BASE}/nope`, false],
    ['POST to an unknown merchant path', 'POST', `${BASE}/merchants/accounts/nope`, true],
    ['an unrouted method on a known path', 'DELETE', `${BASE}/merchants/limits/getAll`, true],
    ['another API version', 'GET', '/sandbox/v2/merchants/limits/getAll', false],
    ['/live/v1 in sandbox mode', 'GET', '/live/v1/merchants/limits/getAll', true],
    // GET / leads to the docs (test/http/openapi.test.ts); other methods there are unrouted.
    ['POST to the root', 'POST', '/', false],
    ['a 5000-character path', 'GET', `/${'x'.repeat(5000)}`, false],
  ] as const)('%s answers 404 E903 problem+json', async (_name, method, url, auth) => {
    const res = await t.app.inject({ method, url, headers: auth ? m.auth : {}, ...(method === 'POST' ? { payload: {} } : {}) });
    const p = clientError(res, 404);
    expect(p.errorCode).toBe('E903');
    expect(p.instance.length).toBeLessThanOrEqual(url.length);
    expect(res.body.length).toBeLessThan(10_000);
  });
});

describe('unicode', () => {
  it('keeps emoji and accents in stored strings exactly', async () => {
    const capturedBy = 'zoë.tião😀@shop.mw';
    const body = validAddKey({ capturedBy });
    const res = await t.app.inject({ method: 'POST', url: ADD_KEY, headers: m.auth, payload: body });
    expect(res.statusCode, res.body).toBe(201);
    const got = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/get`, query: { merchantAccountNumber: String(m.merchantAccountNumber), clientKey: body.clientKey }, headers: m.auth });
    expect(got.statusCode).toBe(200);
    expect(got.json().capturedBy).toBe(capturedBy);
  });

  it('accepts an emoji e-mail on a money write', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOPUP, headers: m.auth, payload: { ...validTopup(), createdBy: '😀@shop.mw' } });
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['NUL in apiKey', TOKEN, () => ({ ...validToken(), apiKey: 'abc\u0000def' }), false],
    ['NUL in apiSecret', TOKEN, () => ({ ...validToken(), apiSecret: '\u0000' }), false],
    ['NUL in createdBy', TOPUP, () => ({ ...validTopup(), createdBy: 'a\u0000b@shop.mw' }), true],
    ['NUL in capturedBy', ADD_KEY, () => validAddKey({ capturedBy: 'a\u0000b@shop.mw' }), true],
    ['a lone surrogate in apiKey', TOKEN, () => ({ ...validToken(), apiKey: 'abc\ud800' }), false],
    ['a lone surrogate in createdBy', TOPUP, () => ({ ...validTopup(), createdBy: 'a\udfffb@shop.mw' }), true],
    ['right-to-left override in capturedBy', ADD_KEY, () => validAddKey({ capturedBy: 'a\u202eb@shop.mw' }), true],
  ])('%s never answers 5xx', async (_name, url, body, auth) => {
    const before = await dbState(t.db);
    const res = await raw('POST', url, JSON.stringify(body()), {}, auth);
    neverServerError(res);
    if (res.statusCode >= 400) expect(await dbState(t.db)).toEqual(before);
  });

  it('refuses NUL in a query parameter without a 5xx', async () => {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=abc%00defghijklmnopqrs`, headers: m.auth });
    clientError(res, 400);
  });
});

describe('random JSON (property tests)', () => {
  // Any code point, with the characters that have broken servers before mixed in more often.
  const char = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constant('\u0000') },
    { weight: 1, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff') },
    { weight: 2, arbitrary: fc.constantFrom('\u202e', '\ufeff', '😀', 'é', '"', '\\', '%', '@', ' ') },
  );
  const anyJson = fc.jsonValue({ stringUnit: char, maxDepth: 4 });
  /** The good value, random JSON, random text, or the good value with one odd character slipped in. */
  const sometimes = <T>(good: T) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constant<unknown>(good) },
      { weight: 1, arbitrary: anyJson },
      { weight: 1, arbitrary: fc.string({ unit: char, maxLength: 30 }) },
      { weight: 3, arbitrary: fc.tuple(fc.nat(), char).map(([at, c]) => { const text = String(good); const i = at % (text.length + 1); return text.slice(0, i) + c + text.slice(i); }) },
    );
  const withExtras = <T extends Record<string, unknown>>(record: fc.Arbitrary<T>) =>
    fc.tuple(record, fc.dictionary(fc.string({ unit: char, maxLength: 20 }), anyJson, { maxKeys: 3 })).map(([base, extra]) => ({ ...extra, ...base }));

  const send = async (url: string, payload: string, auth: boolean) => {
    const res = await raw('POST', url, payload, {}, auth);
    if (res.statusCode >= 500) throw new Error(`${res.statusCode} for ${payload.slice(0, 500)}: ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400) {
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      problemOf(res);
    } else {
      expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    }
  };

  it('POST /merchants/accounts/topup answers 2xx or 4xx problem+json to any JSON value', async () => {
    await fc.assert(fc.asyncProperty(anyJson, async (value) => send(TOPUP, JSON.stringify(value) ?? 'null', true)), { numRuns: 200, seed: 20261122 });
  });

  it('POST /merchants/accounts/topup answers 2xx or 4xx to bodies with random field values', async () => {
    const body = withExtras(
      fc.record(
        { merchantAccountNumber: sometimes(m.merchantAccountNumber), connectorId: sometimes(CONNECTOR_ID), topupAmount: sometimes('12.50'), createdBy: sometimes(ACTOR) },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(fc.asyncProperty(body, async (value) => send(TOPUP, JSON.stringify(value), true)), { numRuns: 200, seed: 20261122 });
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  });

  it('POST /account/getAccessToken answers 2xx or 4xx problem+json to any JSON value', async () => {
    await fc.assert(fc.asyncProperty(anyJson, async (value) => send(TOKEN, JSON.stringify(value) ?? 'null', false)), { numRuns: 200, seed: 20261122 });
  });

  it('POST /account/getAccessToken answers 2xx or 4xx to bodies with random field values', async () => {
    const body = withExtras(
      fc.record(
        { apiKey: sometimes(m.apiKey), apiSecret: sometimes(m.apiSecret), organisationId: sometimes(m.organisationId), merchantAccountNumber: sometimes(m.merchantAccountNumber) },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(fc.asyncProperty(body, async (value) => send(TOKEN, JSON.stringify(value), false)), { numRuns: 200, seed: 20261122 });
  });
});

describe('X-Request-Id', () => {
  it('echoes a valid X-Request-Id in the header and the problem', async () => {
    const res = await raw('POST', TOPUP, '{}', { 'x-request-id': 'client-req_42.a:b' });
    expect(res.headers['x-request-id']).toBe('client-req_42.a:b');
    expect(problemOf(res).requestId).toBe('client-req_42.a:b');
  });

  it('echoes it on success too', async () => {
    const res = await t.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(m.merchantAccountNumber) }, headers: { ...m.auth, 'x-request-id': 'abc-123' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('generates one when none is sent, and each request gets its own', async () => {
    const one = await raw('POST', TOPUP, '{}');
    const two = await raw('POST', TOPUP, '{}');
    const id = String(one.headers['x-request-id']);
    expect(id).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    expect(problemOf(one).requestId).toBe(id);
    expect(two.headers['x-request-id']).not.toBe(id);
  });

  it.each([
    ['spaces', 'has spaces in it'],
    ['too long', 'a'.repeat(129)],
    ['a header injection attempt', 'abc%0d%0aSet-Cookie:x'],
    ['empty', ''],
  ])('replaces an invalid one (%s) with a generated id', async (_name, value) => {
    const res = await raw('POST', TOPUP, '{}', { 'x-request-id': value });
    expect(res.headers['x-request-id']).not.toBe(value);
    expect(String(res.headers['x-request-id'])).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    expect(problemOf(res).requestId).toBe(res.headers['x-request-id']);
  });

  it('is set on 401, 404 and 413 answers', async () => {
    for (const res of [
      await t.app.inject({ method: 'GET', url: LIMITS, headers: { 'x-request-id': 'r-401' } }),
      await t.app.inject({ method: 'GET', url: `${BASE}/nope`, headers: { 'x-request-id': 'r-404' } }),
      await raw('POST', TOPUP, Buffer.alloc(2 * 1024 * 1024, 'a'), { 'x-request-id': 'r-413' }),
    ]) {
      expect(res.headers['x-request-id']).toBe(`r-${res.statusCode}`);
      expect(problemOf(res).requestId).toBe(`r-${res.statusCode}`);
    }
  });
});

describe('Accept-Language', () => {
  const invalid = (lang?: string) => raw('POST', TOPUP, '{"merchantAccountNumber":1234}', lang ? { 'accept-language': lang } : {});

  it('ny localises title, detail and errors, never field names, codes or the type', async () => {
    const en = await invalid('en');
    const ny = await invalid('ny');
    expect(en.headers['content-language']).toBe('en');
    expect(ny.headers['content-language']).toBe('ny');
    const pe = problemOf(en);
    const pn = problemOf(ny);
    expect(pn.status).toBe(pe.status);
    expect(pn.errorCode).toBe(pe.errorCode);
    expect(pn.type).toBe(pe.type);
    expect(pn.instance).toBe(pe.instance);
    expect(pn.title).not.toBe(pe.title);
    expect(pn.detail).not.toBe(pe.detail);
    expect(pn.errors).toHaveLength(pe.errors.length);
    for (let i = 0; i < pe.errors.length; i++) expect(pn.errors[i]).not.toBe(pe.errors[i]);
    expect(pn.title).toBe(translate('ny', 'title.validation'));
    expect(pn.errors).toContain(translate('ny', 'field.merchantAccountNumber'));
    // Field labels stay as the API names them.
    expect(pn.errors).toContain(translate('ny', 'field.required', { field: 'Connector Id' }));
    expect(pe.errors).toContain('Connector Id is required.');
    expect(Object.keys(ny.json()).sort()).toEqual(Object.keys(en.json()).sort());
  });

  it.each([
    ['fr', 'en'],
    ['de-DE,fr;q=0.8', 'en'],
    ['*', 'en'],
    ['', 'en'],
    ['NY', 'ny'],
    ['ny-MW', 'ny'],
    ['fr, ny;q=0.5', 'ny'],
    ['en;q=0.4, ny;q=0.9', 'ny'],
    ['ny;q=0.1, en;q=0.9', 'en'],
    ['ny;q=abc', 'en'],
  ])('%j → %s', async (header, expected) => {
    const res = await raw('POST', TOPUP, '{}', { 'accept-language': header });
    expect(res.headers['content-language']).toBe(expected);
    const title = problemOf(res).title;
    expect(title).toBe(translate(expected as 'en' | 'ny', 'title.validation'));
  });

  it('answers a 15 KB Accept-Language header in a supported language', async () => {
    const res = await raw('POST', TOPUP, '{}', { 'accept-language': `${'xx,'.repeat(5000)}ny` });
    expect(['en', 'ny']).toContain(res.headers['content-language']);
    expect(problemOf(res).errorCode).toBe('E900');
  });

  it('localises 401 and 404 problems and success messages', async () => {
    const unauthorized = await t.app.inject({ method: 'GET', url: LIMITS, headers: { 'accept-language': 'ny' } });
    expect(problemOf(unauthorized).title).toBe(translate('ny', 'title.unauthorized'));
    expect(unauthorized.headers['content-language']).toBe('ny');
    const notFound = await t.app.inject({ method: 'GET', url: `${BASE}/nope`, headers: { 'accept-language': 'ny' } });
    expect(problemOf(notFound).title).toBe(translate('ny', 'title.notFound'));
    expect(notFound.headers['content-language']).toBe('ny');
    const created = await t.app.inject({ method: 'POST', url: ADD_KEY, headers: { ...m.auth, 'accept-language': 'ny' }, payload: validAddKey() });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toBe(translate('ny', 'ok.apiKeyCreated'));
    expect(created.json()).not.toBe(translate('en', 'ok.apiKeyCreated'));
  });
});

describe('rate limiting', () => {
  let limited: TestApp;
  let lm: TestMerchant;

  beforeAll(async () => {
    limited = await startTestApp({ RATE_LIMIT_PER_SECOND: '3' });
    lm = await newMerchant(limited);
  });
  afterAll(() => limited.close());

  /** Fires `n` requests at once and groups the answers by the rate-limit window they fell in. */
  async function burst(n: number, request: () => Promise<Res>) {
    const responses = await Promise.all(Array.from({ length: n }, request));
    const windows = new Map<string, Res[]>();
    for (const res of responses) {
      const window = String(res.headers['x-ratelimit-reset']);
      windows.set(window, [...(windows.get(window) ?? []), res]);
    }
    return { responses, windows };
  }

  it('answers 429 E905 past 3 requests a second, with limit headers, and lets at most 3 through per window', async () => {
    const { responses, windows } = await burst(10, () =>
      limited.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(lm.merchantAccountNumber) }, headers: lm.auth }),
    );
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(responses.every((r) => r.statusCode === 200 || r.statusCode === 429)).toBe(true);
    for (const [window, inWindow] of windows) {
      expect(Number.isInteger(Number(window)), `reset ${window}`).toBe(true);
      expect(inWindow.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(3);
    }
    for (const res of responses) {
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(2);
    }
    for (const res of refused) {
      const p = problemOf(res);
      expect(p.errorCode).toBe('E905');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number.isInteger(Number(res.headers['retry-after']))).toBe(true);
    }
    for (const res of responses.filter((r) => r.statusCode === 200)) expect(res.headers['retry-after']).toBeUndefined();
  });

  it('refused writes move no money', async () => {
    const before = await limited.db.query<{ n: number }>('select count(*)::int as n from ledger_transfers where merchant_account_number = $1', [lm.merchantAccountNumber]);
    const { responses } = await burst(10, () =>
      limited.app.inject({ method: 'POST', url: TOPUP, headers: lm.auth, payload: { merchantAccountNumber: lm.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: 10, createdBy: ACTOR } }),
    );
    const accepted = responses.filter((r) => r.statusCode === 200).length;
    expect(responses.some((r) => r.statusCode === 429)).toBe(true);
    const after = await limited.db.query<{ n: number }>('select count(*)::int as n from ledger_transfers where merchant_account_number = $1', [lm.merchantAccountNumber]);
    expect(after.rows[0].n - before.rows[0].n).toBe(accepted);
    expect(await ledgerInvariants(limited.db)).toEqual({ total: 0, mismatched: 0 });
  });

  it("counts per merchant account: another merchant's first request passes", async () => {
    const other = await newMerchant(limited);
    await burst(6, () => limited.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(lm.merchantAccountNumber) }, headers: lm.auth }));
    const res = await limited.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(other.merchantAccountNumber) }, headers: other.auth });
    expect(res.statusCode).toBe(200);
  });

  it('does not limit getAccessToken or the operations endpoints by merchant', async () => {
    const { responses } = await burst(6, () => limited.app.inject({ method: 'GET', url: '/health/live' }));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
  });

  it('is off with RATE_LIMIT_PER_SECOND=0: no 429, no limit headers', async () => {
    const { responses } = await burst(20, () => t.app.inject({ method: 'GET', url: LIMITS, query: { merchantAccountNumber: String(m.merchantAccountNumber) }, headers: m.auth }));
    for (const res of responses) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(res.headers['x-ratelimit-reset']).toBeUndefined();
      expect(res.headers['retry-after']).toBeUndefined();
    }
  });
});

describe('operations endpoints (no token)', () => {
  it('GET /health/live and /health/ready answer 200', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json().status).toBe('ok');
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', database: 'up' });
  });

  it('GET /metrics exposes request counts, the job queue depth and the pool', async () => {
    await t.app.inject({ method: 'GET', url: '/health/live' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
    expect(res.body).toContain('http_requests_total');
    expect(res.body).toMatch(/http_requests_total\{[^}]*route="\/health\/live"[^}]*\} \d+/);
    expect(res.body).toContain('job_queue_depth');
    expect(res.body).toContain('db_pool_connections');
  });

  it('GET /openapi.json is an OpenAPI 3.1 document of the merchant API', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.paths).toHaveProperty(['/sandbox/v1/merchants/limits/getAll']);
    expect(doc.paths['/sandbox/v1/merchants/limits/getAll']).toHaveProperty('get');
  });

  it('GET /docs serves the HTML reference', async () => {
    let url = '/docs';
    let res = await t.app.inject({ method: 'GET', url });
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
      res = await t.app.inject({ method: 'GET', url });
    }
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
    const slash = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(slash.statusCode).toBe(200);
    expect(String(slash.headers['content-type'])).toMatch(/^text\/html/);
  });
});

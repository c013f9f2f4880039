// `npm run cli -- …`: the operator's command line. It talks to a running server over HTTP (the
// same API anyone could call) and prints the JSON answer to stdout.
//
// Exit codes: 0 done; 1 the server refused (its problem+json goes to stderr) or could not be
// reached; 2 bad usage. Secrets given as options are never echoed back in messages.
//
// `ledger verify` is the exception: it reads the database itself (DATABASE_URL, else the embedded
// server under DATA_DIR, as `npm start` resolves it) and checks the ledger's invariants.
//
// `listen` is the long-running one: a local webhook receiver that gets a copy of the merchant's
// events through a temporary listener whose lease it renews, and prints every delivery as one JSON
// line. The merchant's own subscriptions are never changed; if listen dies, the lease lapses.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EVENT_CODES } from './modules/webhooks/catalogue.ts';
import type { LedgerReport } from './modules/merchants/ledger-verify.ts';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  merchants create --name NAME [--level 1|2|3] [--currency MWK] [--organisation ORGID]
      Create a merchant (organisation, account, ledger accounts, limits and a first key pair).
      Prints the new credentials once; the secret is not stored anywhere else.
  merchants list [--limit N] [--after ACCOUNTNUMBER]
      List merchants in account-number order; --after the last number of the previous page.
  merchants fund --merchant ACCOUNTNUMBER --amount AMOUNT --bank-reference REF
                 --received-on YYYY-MM-DD --recorded-by EMAIL
      Record money the bank received for a merchant: credits its disbursement balance from the
      bank settlement account. The only funding in production mode. The bank reference is unique:
      running the same command again prints the first record and credits nothing.
  merchants fundings --merchant ACCOUNTNUMBER [--limit N] [--after FUNDINGID]
      List a merchant's fundings, oldest first, with who recorded each.
  emails list [--status pending|sent|held|failed] [--recipient ADDRESS] [--page N] [--limit N]
      List the e-mail outbox, newest first (N ≤ 100 a page, default 50), with each message's
      status, attempts, last error and text body. Without SMTP_URL the server sends nothing and
      keeps its e-mails here as "held": this is where invitation links can be read.
  keys create --merchant ACCOUNTNUMBER
      Issue a new key pair for a merchant (lost credentials, the demo merchant's included).
      Prints organisationId, merchantAccountNumber, clientId, apiKey and apiSecret once; the
      secret is stored only as a hash. The merchant's other key pairs keep working.
  token --key KEY --secret SECRET --organisation ORGID --merchant ACCOUNTNUMBER
      Get a 5-minute access token for a key pair.
  listen --key KEY --secret SECRET --organisation ORGID --merchant ACCOUNTNUMBER
         [--events payment.success,payrequest.success] [--forward-to URL] [--port P]
         [--lease-seconds S]
      Debug webhooks locally: start a receiver on 127.0.0.1 (port P, else a free one), get a copy
      of the events (default: all ${EVENT_CODES.length}) through a temporary listener, and print every
      delivery as one JSON line {receivedAt, eventCode, deliveryId, webhookMessageId,
      signatureValid, isTest, body} on stdout. deliveryId is the delivery log's (redeliver takes
      it); webhookMessageId is the webhook-id header. signatureValid is the Standard Webhooks HMAC
      check with the listener's signingSecret (and a timestamp within 5 minutes). With
      --forward-to each delivery is also POSTed, same body and headers, to URL, and the service
      gets that answer's status (502 if unreachable, 504 after 10 s).
      The merchant's webhook subscriptions are not changed: they keep receiving as before. The
      listener's lease (S seconds, 5-300, default 60) is renewed every S/3 seconds; Ctrl-C (or
      SIGTERM) deletes it, and if listen is killed it lapses by itself after at most S seconds.
      The server must be able to reach 127.0.0.1 (same machine, sandbox mode).
  ledger verify
      Check the ledger against the database directly (DATABASE_URL, else the embedded database in
      DATA_DIR; no server needed): every transfer balances, every merchant balance equals its
      entries, all entries sum to zero, no balance is negative, payouts in flight and the fees,
      settled and customer-payment accounts match the payouts and collections, each collection
      has exactly one payment (and reversal) transfer, each transferred batch and single payout
      exactly one debit. Prints a JSON report (per check: checked, passed, failed, up to 20
      offending examples); exit status 1 when any check fails.
  help
      Show this text.

Options for every command but ledger verify:
  --url URL              server base URL (default: $ONEKHUSA_URL, else http://localhost:$PORT or :8080)
  --admin-token TOKEN    operator token for the merchants, keys and emails commands (default: $ADMIN_TOKEN);
                         a server started without ADMIN_TOKEN has no operator API, and says so

Exit status: 0 success, 1 refused by the server or server unreachable (ledger verify: a check
failed or the database unreachable), 2 bad usage.
`;

const OPTIONS = {
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  level: { type: 'string' },
  currency: { type: 'string' },
  organisation: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  page: { type: 'string' },
  status: { type: 'string' },
  recipient: { type: 'string' },
  key: { type: 'string' },
  secret: { type: 'string' },
  merchant: { type: 'string' },
  amount: { type: 'string' },
  'bank-reference': { type: 'string' },
  'received-on': { type: 'string' },
  'recorded-by': { type: 'string' },
  events: { type: 'string' },
  'forward-to': { type: 'string' },
  port: { type: 'string' },
  'lease-seconds': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const COMMON: OptionName[] = ['url', 'admin-token', 'help'];
const COMMAND_OPTIONS: Record<string, OptionName[]> = {
  'merchants create': ['name', 'level', 'currency', 'organisation'],
  'merchants list': ['limit', 'after'],
  'merchants fund': ['merchant', 'amount', 'bank-reference', 'received-on', 'recorded-by'],
  'merchants fundings': ['merchant', 'limit', 'after'],
  'emails list': ['status', 'recipient', 'page', 'limit'],
  'keys create': ['merchant'],
  token: ['key', 'secret', 'organisation', 'merchant'],
  listen: ['key', 'secret', 'organisation', 'merchant', 'events', 'forward-to', 'port', 'lease-seconds'],
  'ledger verify': [],
};

const REQUEST_TIMEOUT_MS = 15_000;
const EMAIL_STATUSES = ['pending', 'sent', 'held', 'failed'];

class UsageError extends Error {}

/** A refusal or an unreachable server: the message (or problem body) is already worded for stderr. */
class FailureError extends Error {}

function usage(message: string): never {
  throw new UsageError(message);
}

function required(values: Values, name: 'name' | 'key' | 'secret' | 'organisation' | 'merchant' | 'amount' | 'bank-reference' | 'received-on' | 'recorded-by'): string {
  const value = values[name];
  if (value === undefined || value.trim() === '') usage(`missing --${name}`);
  return value;
}

function wholeNumber(values: Values, name: 'level' | 'limit' | 'after' | 'merchant' | 'port' | 'page' | 'lease-seconds'): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) usage(`--${name} must be a whole number, got "${value.slice(0, 40)}"`);
  return Number(value.trim());
}

function baseUrl(values: Values): URL {
  const raw = values.url ?? process.env.ONEKHUSA_URL ?? `http://localhost:${process.env.PORT || '8080'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    usage(`--url is not a URL: "${raw.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') usage(`--url must be http:// or https://, got "${url.protocol}"`);
  return url;
}

/** The base URL as shown in messages: without any user:password part. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

function adminToken(values: Values): string {
  const token = values['admin-token'] ?? process.env.ADMIN_TOKEN;
  if (!token || token.trim() === '') usage('the merchants, keys and emails commands need the operator token: pass --admin-token or set ADMIN_TOKEN (the one the server was started with)');
  return token.trim();
}

interface Answer {
  status: number;
  statusText: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  text: string;
  method: string;
  path: string;
}

interface CallOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, number | string | undefined>;
  headers?: Record<string, string>;
}

type HttpMethod = 'GET' | 'POST' | 'PUT';

/** One request; any HTTP answer is returned, only an unreachable or silent server throws. */
async function send(base: URL, method: HttpMethod, path: string, options: CallOptions = {}): Promise<Answer> {
  const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new FailureError(`no answer from ${shown(base)} within ${REQUEST_TIMEOUT_MS / 1000} s — is the server overloaded or stuck?`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    // fetch() refuses some well-known ports (1, 25, 6000…) before connecting at all.
    if (cause?.message === 'bad port') throw new FailureError(`cannot reach ${shown(base)} — fetch() refuses to connect to port ${base.port}; use another port`);
    throw new FailureError(`cannot reach ${shown(base)} — is the server running?${cause?.code ? ` (${cause.code})` : ''}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, statusText: res.statusText, body, text, method, path: url.pathname };
}

/** A refusal as worded for stderr: the problem+json body as the server sent it (pretty-printed), anything else with its status. */
function refusal(answer: Answer): FailureError {
  return new FailureError(
    answer.body !== undefined
      ? JSON.stringify(answer.body, null, 2)
      : `HTTP ${answer.status} ${answer.statusText} from ${answer.method} ${answer.path}${answer.text ? `\n${answer.text.slice(0, 2000)}` : ''}`,
  );
}

/**
 * An operator request (ADMIN_TOKEN), as call(). A server started without ADMIN_TOKEN answers 404 to
 * every operator route, as if it did not exist: its /health/live says so (operatorApi false), and
 * then the message says that, not "not found".
 */
async function adminCall(base: URL, method: HttpMethod, path: string, values: Values, options: Omit<CallOptions, 'token'> = {}): Promise<unknown> {
  const answer = await send(base, method, path, { ...options, token: adminToken(values) });
  if (answer.status === 404 && (await operatorApiOff(base))) {
    throw new FailureError(
      `the server was started without ADMIN_TOKEN: ${shown(base)} has no operator API (/admin/v1). ` +
        'Restart it with ADMIN_TOKEN set (16 characters or more) and pass the same token here (--admin-token or ADMIN_TOKEN).',
    );
  }
  if (answer.status < 200 || answer.status > 299) throw refusal(answer);
  if (answer.body === undefined) throw new FailureError(`HTTP ${answer.status} from ${method} ${answer.path} was not JSON${answer.text ? `:\n${answer.text.slice(0, 2000)}` : ''}`);
  return answer.body;
}

/** Whether the server says its operator API is off (GET /health/live: operatorApi false). */
async function operatorApiOff(base: URL): Promise<boolean> {
  const live = await send(base, 'GET', '/health/live').catch(() => undefined);
  return live?.status === 200 && typeof live.body === 'object' && live.body !== null && (live.body as { operatorApi?: unknown }).operatorApi === false;
}

/** One request whose answer must be 2xx JSON: its body, else a FailureError. */
async function call(base: URL, method: HttpMethod, path: string, options: CallOptions = {}): Promise<unknown> {
  const answer = await send(base, method, path, options);
  if (answer.status < 200 || answer.status > 299) throw refusal(answer);
  if (answer.body === undefined) throw new FailureError(`HTTP ${answer.status} from ${method} ${answer.path} was not JSON${answer.text ? `:\n${answer.text.slice(0, 2000)}` : ''}`);
  return answer.body;
}

// ---------------------------------------------------------------------------------------------
// listen

const LISTEN_BODY_LIMIT_BYTES = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 10_000;
/** Of the forward target's answer, at most this much is passed back to the service. */
const FORWARD_ANSWER_LIMIT_BYTES = 64 * 1024;
/** Standard Webhooks: a webhook-timestamp further than this from now does not verify. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Recorded as capturedBy on the temporary listeners listen creates. */
const LISTEN_ACTOR = 'cli.listen@onekhusa.local';
/** The listener's lease unless --lease-seconds says otherwise (the server accepts 5–300). */
const LEASE_DEFAULT_SECONDS = 60;
const LEASE_MIN_SECONDS = 5;
const LEASE_MAX_SECONDS = 300;
const EVENT_CODE_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
// Not forwarded: they describe this connection, not the delivery.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);

interface ListenOptions {
  credentials: { apiKey: string; apiSecret: string; organisationId: string; merchantAccountNumber: number };
  events: string[];
  forwardTo: URL | undefined;
  port: number;
  leaseSeconds: number;
}

function listenOptions(values: Values): ListenOptions {
  const credentials = {
    apiKey: required(values, 'key'),
    apiSecret: required(values, 'secret'),
    organisationId: required(values, 'organisation').trim(),
    merchantAccountNumber: wholeNumber(values, 'merchant') ?? usage('missing --merchant'),
  };
  let events: string[] = [...EVENT_CODES];
  if (values.events !== undefined) {
    events = [...new Set(values.events.split(',').map((code) => code.trim()).filter((code) => code !== ''))];
    if (events.length === 0) usage('--events needs at least one event code');
    for (const code of events) {
      if (!EVENT_CODE_PATTERN.test(code) || !(EVENT_CODES as readonly string[]).includes(code)) {
        usage(`--events: unknown event code "${code.slice(0, 100)}" (known: ${EVENT_CODES.join(', ')})`);
      }
    }
  }
  let forwardTo: URL | undefined;
  if (values['forward-to'] !== undefined) {
    try {
      forwardTo = new URL(values['forward-to']);
    } catch {
      usage(`--forward-to is not a URL: "${values['forward-to'].slice(0, 200)}"`);
    }
    if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') usage(`--forward-to must be http:// or https://, got "${forwardTo.protocol}"`);
  }
  const port = wholeNumber(values, 'port') ?? 0;
  if (port > 65535) usage(`--port must be between 0 and 65535, got ${port}`);
  const leaseSeconds = wholeNumber(values, 'lease-seconds') ?? LEASE_DEFAULT_SECONDS;
  if (leaseSeconds < LEASE_MIN_SECONDS || leaseSeconds > LEASE_MAX_SECONDS) usage(`--lease-seconds must be between ${LEASE_MIN_SECONDS} and ${LEASE_MAX_SECONDS}, got ${leaseSeconds}`);
  return { credentials, events, forwardTo, port, leaseSeconds };
}

/** A key pair's access token, fetched again shortly before it expires or when it is refused. */
class ApiSession {
  private token: string | undefined;
  private expiresAtMs = 0;

  constructor(
    private readonly base: URL,
    private readonly credentials: ListenOptions['credentials'],
  ) {}

  private async accessToken(fresh: boolean): Promise<string> {
    if (fresh || !this.token || Date.now() > this.expiresAtMs - 30_000) {
      const body = (await call(this.base, 'POST', '/sandbox/v1/account/getAccessToken', { body: this.credentials })) as { accessToken?: unknown; expiryInMinutes?: unknown };
      if (typeof body.accessToken !== 'string') throw new FailureError('the server answered getAccessToken without an accessToken');
      this.token = body.accessToken;
      this.expiresAtMs = Date.now() + (typeof body.expiryInMinutes === 'number' ? body.expiryInMinutes : 5) * 60_000;
    }
    return this.token;
  }

  async send(method: HttpMethod, path: string, options: Omit<CallOptions, 'token'> = {}): Promise<Answer> {
    const answer = await send(this.base, method, `/sandbox/v1${path}`, { ...options, token: await this.accessToken(false) });
    // A token refused early (clock skew, a restarted server with a new JWT secret): once more with a new one.
    if (answer.status === 401) return send(this.base, method, `/sandbox/v1${path}`, { ...options, token: await this.accessToken(true) });
    return answer;
  }

  async call(method: HttpMethod, path: string, options: Omit<CallOptions, 'token'> = {}): Promise<unknown> {
    const answer = await this.send(method, path, options);
    if (answer.status < 200 || answer.status > 299) throw refusal(answer);
    return answer.body;
  }
}

/** A temporary listener (POST /merchants/webhooks/listeners): its own secret, its lease. */
interface Lease {
  listenerId: number;
  signingSecret: string;
  leaseSeconds: number;
  expiresAt: string;
}

/**
 * A copy of the events for the receiver, through a lease: the merchant's own subscriptions are
 * never touched, and a listen that dies without deleting its listener leaves nothing behind that
 * outlives the lease.
 */
async function createLease(api: ApiSession, merchant: number, events: string[], callbackUrl: string, leaseSeconds: number): Promise<Lease> {
  const body = (await api.call('POST', '/merchants/webhooks/listeners', {
    body: { merchantAccountNumber: merchant, callbackUrl, eventCodes: events, leaseSeconds, capturedBy: LISTEN_ACTOR },
  })) as Partial<Lease> | undefined;
  if (typeof body?.listenerId !== 'number' || typeof body.signingSecret !== 'string' || typeof body.leaseSeconds !== 'number') {
    throw new FailureError('the server answered POST /merchants/webhooks/listeners without listenerId, signingSecret and leaseSeconds');
  }
  return body as Lease;
}

/** The first line of an error's message: a refusal's problem body is pretty-printed JSON. */
function briefly(err: unknown): string {
  const message = (err as Error).message ?? String(err);
  try {
    const problem = JSON.parse(message) as { status?: number; detail?: string };
    if (problem.detail) return `${problem.status ?? ''} ${problem.detail}`.trim();
  } catch {
    // not JSON
  }
  return message.split('\n')[0];
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Standard Webhooks: one of the space-separated `v1,<base64>` signatures is the HMAC of `id.timestamp.body`. */
function standardSignatureValid(signingSecret: string | undefined, id: string | undefined, timestamp: string | undefined, signatures: string | undefined, body: Buffer, nowMs: number): boolean {
  if (!signingSecret || !id || !timestamp || !signatures || !/^\d{1,15}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const key = Buffer.from(signingSecret.startsWith('whsec_') ? signingSecret.slice('whsec_'.length) : signingSecret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(' ').some((part) => {
    if (!part.startsWith('v1,')) return false;
    const given = Buffer.from(part.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The request body, or undefined when it is larger than the limit. */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      req.resume();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!tooLarge) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

interface Forwarded {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  error?: string;
}

/** POSTs the delivery on, same body and headers; the target's answer (bounded), or 502/504 and why. */
async function forward(target: URL, req: http.IncomingMessage, body: Buffer): Promise<Forwarded> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const signal = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
  try {
    const res = await fetch(target, { method: 'POST', headers, body: new Uint8Array(body), redirect: 'manual', signal });
    const chunks: Buffer[] = [];
    let size = 0;
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(Buffer.from(value));
        size += value.length;
        if (size >= FORWARD_ANSWER_LIMIT_BYTES) {
          await reader.cancel().catch(() => undefined);
          break;
        }
      }
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? undefined, body: Buffer.concat(chunks).subarray(0, FORWARD_ANSWER_LIMIT_BYTES) };
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || signal.aborted;
    const error = timedOut
      ? `no answer from ${shown(target)} within ${FORWARD_TIMEOUT_MS / 1000} s`
      : `cannot reach ${shown(target)}${e.cause?.code ? ` (${e.cause.code})` : e.cause?.message ? ` (${e.cause.message})` : ''}`;
    return { status: timedOut ? 504 : 502, contentType: 'text/plain; charset=utf-8', body: Buffer.from(error), error };
  }
}

function writeLine(line: object): void {
  process.stdout.write(JSON.stringify(line) + '\n');
}

async function listen(base: URL, options: ListenOptions): Promise<void> {
  const merchant = options.credentials.merchantAccountNumber;
  const api = new ApiSession(base, options.credentials);
  // The listener's signing secret, and those of earlier leases (a lapsed lease is replaced): a
  // copy sent just before a replacement still verifies.
  const secrets: string[] = [];

  // Stop on the first SIGINT/SIGTERM (or when stdout goes away); a second one leaves at once.
  let stopping = false;
  let stopRequested!: (why: string) => void;
  const stopped = new Promise<string>((resolve) => (stopRequested = resolve));
  const requestStop = (why: string) => {
    if (stopping) return;
    stopping = true;
    stopRequested(why);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      requestStop(signal);
      return;
    }
    process.stderr.write(`${signal} again: leaving at once; the listener lapses by itself within ${options.leaseSeconds} s\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', () => requestStop('stdout closed'));

  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 }, (req, res) => {
    void receive(req, res).catch((err: unknown) => {
      process.stderr.write(`could not handle a delivery: ${(err as Error).message}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    });
  });
  // A receiver that answers slowly must not keep a connection open for ever.
  server.keepAliveTimeout = 5_000;

  async function receive(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain; charset=utf-8' }).end('webhook receiver: POST only\n');
      return;
    }
    const receivedAt = new Date();
    const raw = await readBody(req, LISTEN_BODY_LIMIT_BYTES);
    if (raw === undefined) {
      process.stderr.write(`refused a delivery larger than ${LISTEN_BODY_LIMIT_BYTES} bytes (webhook-id ${header(req, 'webhook-id') ?? 'none'})\n`);
      res.writeHead(413, { connection: 'close', 'content-type': 'text/plain; charset=utf-8' }).end('body too large\n');
      return;
    }
    const text = raw.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const eventCode = header(req, 'x-onekhusa-webhook-event') ?? (typeof fields.eventCode === 'string' ? fields.eventCode : null);
    const signatureValid = secrets.some((secret) =>
      standardSignatureValid(secret, header(req, 'webhook-id'), header(req, 'webhook-timestamp'), header(req, 'webhook-signature'), raw, receivedAt.getTime()),
    );
    // deliveryId is the delivery log's (POST /merchants/webhooks/redeliver takes it); webhookId, in
    // the API, names a subscription, which a listener's copy does not have.
    const deliveryId = header(req, 'x-onekhusa-delivery-id');
    const line = {
      receivedAt: receivedAt.toISOString(),
      eventCode,
      deliveryId: deliveryId !== undefined && /^\d{1,15}$/.test(deliveryId) ? Number(deliveryId) : null,
      webhookMessageId: header(req, 'webhook-id') ?? null,
      signatureValid,
      isTest: header(req, 'x-onekhusa-webhook-test') === 'true' || fields.isTest === true,
      body,
    };
    if (!options.forwardTo) {
      writeLine(line);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      return;
    }
    const answer = await forward(options.forwardTo, req, raw);
    writeLine({ ...line, forwardStatus: answer.error ? null : answer.status, ...(answer.error ? { forwardError: answer.error } : {}) });
    res.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {}).end(answer.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new FailureError(err.code === 'EADDRINUSE' ? `port ${options.port} on 127.0.0.1 is already in use; pick another --port or leave it out` : `cannot listen on 127.0.0.1:${options.port}: ${err.message}`)),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const callbackUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/webhooks`;

  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const detach = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };

  let lease: Lease;
  try {
    lease = await createLease(api, merchant, options.events, callbackUrl, options.leaseSeconds);
  } catch (err) {
    await closeServer();
    detach();
    throw err;
  }
  secrets.unshift(lease.signingSecret);

  // Renewed every third of the lease, so two renewals can fail before it lapses. One that lapsed
  // anyway (the machine slept, the server was away) is replaced by a new listener.
  let renewing: Promise<void> | undefined;
  const renew = async () => {
    const answer = await api.send('PUT', '/merchants/webhooks/listeners/renew', { body: { merchantAccountNumber: merchant, listenerId: lease.listenerId } });
    if (answer.status >= 200 && answer.status <= 299) return;
    if (answer.status !== 404) throw refusal(answer);
    const lapsed = lease.listenerId;
    lease = await createLease(api, merchant, options.events, callbackUrl, options.leaseSeconds);
    secrets.unshift(lease.signingSecret);
    secrets.length = Math.min(secrets.length, 3);
    process.stderr.write(`the lease of listener ${lapsed} had lapsed (events meanwhile were not copied); listening again as listener ${lease.listenerId}\n`);
  };
  const renewEveryMs = Math.max(1000, Math.floor((lease.leaseSeconds * 1000) / 3));
  const timer = setInterval(() => {
    if (renewing || stopping) return;
    renewing = renew()
      .catch((err: unknown) => {
        process.stderr.write(`could not renew the lease of listener ${lease.listenerId} (trying again in ${Math.round(renewEveryMs / 1000)} s): ${briefly(err)}\n`);
      })
      .finally(() => {
        renewing = undefined;
      });
  }, renewEveryMs);

  const forwarding = options.forwardTo ? `; forwarding to ${shown(options.forwardTo)}` : '';
  // A stop asked for while the listener was being created goes straight to clean-up.
  if (!stopping) {
    process.stderr.write(
      `listening on ${callbackUrl} for merchant ${merchant}, events: ${options.events.join(', ')}${forwarding} — Ctrl-C to stop\n` +
        `(a copy of each event, through listener ${lease.listenerId}: the merchant's webhook subscriptions are not changed; the lease lasts ${lease.leaseSeconds} s and is renewed every ${Math.round(renewEveryMs / 1000)} s)\n`,
    );
  }

  const why = await stopped;
  clearInterval(timer);
  await renewing;
  process.stderr.write(`stopping (${why}): deleting listener ${lease.listenerId}\n`);
  let failure: string | undefined;
  try {
    const answer = await api.send('POST', '/merchants/webhooks/listeners/delete', { body: { merchantAccountNumber: merchant, listenerId: lease.listenerId } });
    // Already lapsed (and perhaps swept) is as good as deleted.
    if (answer.status !== 404 && (answer.status < 200 || answer.status > 299)) throw refusal(answer);
  } catch (err) {
    failure = `could not delete listener ${lease.listenerId} (it lapses by itself within ${lease.leaseSeconds} s): ${briefly(err)}`;
  }
  await closeServer();
  detach();
  if (failure) throw new FailureError(failure);
  process.stderr.write('listener deleted; bye\n');
}

// ---------------------------------------------------------------------------------------------
// ledger verify

/** The database as `npm start` finds it: DATABASE_URL, else the embedded server (reused if running). */
async function ledgerVerify(): Promise<void> {
  // Loaded here: the other commands need neither pg nor the embedded server.
  const [{ loadConfig, ConfigError }, { default: pg }, { verifyLedger }] = await Promise.all([
    import('./config.ts'),
    import('pg'),
    import('./modules/merchants/ledger-verify.ts'),
  ]);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) usage(`configuration: ${err.message}`);
    throw err;
  }
  let connectionString = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!connectionString) {
    const [{ default: fs }, { default: path }, { startEmbeddedPostgres }, { EMBEDDED_DATABASE }] = await Promise.all([
      import('node:fs'),
      import('node:path'),
      import('./db/embedded.ts'),
      import('./runtime.ts'),
    ]);
    // Never initialise a new, empty cluster just to verify it.
    if (!fs.existsSync(path.join(config.dataDir, 'pg', 'PG_VERSION'))) {
      throw new FailureError(`no database to verify: DATABASE_URL is not set and there is no embedded database in ${config.dataDir} (set DATA_DIR or DATABASE_URL)`);
    }
    let embedded;
    try {
      embedded = await startEmbeddedPostgres(config.dataDir);
    } catch (err) {
      throw new FailureError(`cannot start the embedded database in ${config.dataDir}: ${(err as Error).message}`);
    }
    stopEmbedded = () => embedded.stop();
    const url = new URL(embedded.connectionString);
    url.pathname = `/${EMBEDDED_DATABASE}`;
    connectionString = url.toString();
  }
  const client = new pg.Client({ connectionString, application_name: 'onekhusa-ledger-verify', connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  let report: LedgerReport;
  try {
    try {
      await client.connect();
    } catch (err) {
      throw new FailureError(`cannot connect to the database: ${(err as Error).message}`);
    }
    try {
      report = await verifyLedger(client);
    } catch (err) {
      const e = err as { code?: string; message: string };
      if (e.code === '42P01') throw new FailureError(`the database has no ledger tables (${e.message}); start the server once to migrate it`);
      throw new FailureError(`ledger verify could not run: ${e.message}`);
    }
  } finally {
    await client.end().catch(() => undefined);
    await stopEmbedded?.();
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  const failed = report.checks.filter((c) => c.failed > 0);
  if (failed.length > 0) {
    throw new FailureError(`ledger verify: ${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => `${c.name} (${c.failed})`).join(', ')}`);
  }
}

async function run(argv: string[]): Promise<void> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (err) {
    usage((err as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0 || (positionals.length === 1 && positionals[0] === 'help')) {
    process.stdout.write(USAGE);
    return;
  }

  const group = ['merchants', 'emails', 'ledger', 'keys'].includes(positionals[0]) ? positionals[0] : undefined;
  const command = group ? positionals.slice(0, 2).join(' ') : positionals[0];
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) {
    if (group === 'merchants') usage(`unknown merchants command "${(positionals[1] ?? '').slice(0, 40)}" (expected create, list, fund or fundings)`);
    if (group === 'emails') usage(`unknown emails command "${(positionals[1] ?? '').slice(0, 40)}" (expected list)`);
    if (group === 'keys') usage(`unknown keys command "${(positionals[1] ?? '').slice(0, 40)}" (expected create)`);
    if (group === 'ledger') usage(`unknown ledger command "${(positionals[1] ?? '').slice(0, 40)}" (expected verify)`);
    usage(`unknown command "${positionals[0]}"`);
  }
  const extra = positionals.slice(command.split(' ').length);
  if (extra.length > 0) usage(`unexpected argument "${extra[0].slice(0, 40)}" for ${command}`);
  // ledger verify talks to the database, not to a server: --url and --admin-token mean nothing there.
  const common: OptionName[] = command === 'ledger verify' ? ['help'] : COMMON;
  for (const name of Object.keys(values) as OptionName[]) {
    if (!allowed.includes(name) && !common.includes(name)) usage(`--${name} is not an option of "${command}"`);
  }
  if (command === 'ledger verify') {
    await ledgerVerify();
    return;
  }

  const base = baseUrl(values);
  let result: unknown;
  switch (command) {
    case 'merchants create': {
      const accountName = required(values, 'name').trim();
      const levelNumber = wholeNumber(values, 'level');
      if (levelNumber !== undefined && ![1, 2, 3].includes(levelNumber)) usage(`--level must be 1, 2 or 3, got ${levelNumber}`);
      const body = { accountName, levelNumber, currencyCode: values.currency?.trim(), organisationId: values.organisation?.trim() };
      result = await adminCall(base, 'POST', '/admin/v1/merchants', values, { body });
      break;
    }
    case 'merchants list':
      result = await adminCall(base, 'GET', '/admin/v1/merchants', values, {
        query: { limit: wholeNumber(values, 'limit'), afterAccountNumber: wholeNumber(values, 'after') },
      });
      break;
    case 'merchants fund': {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      const receivedOn = required(values, 'received-on').trim();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(receivedOn)) usage(`--received-on must be a date such as 2026-11-24, got "${receivedOn.slice(0, 40)}"`);
      // The amount goes as text: the server parses it without floating point.
      const body = { amount: required(values, 'amount').trim(), bankReference: required(values, 'bank-reference').trim(), receivedOn, recordedBy: required(values, 'recorded-by').trim() };
      result = await adminCall(base, 'POST', `/admin/v1/merchants/${merchant}/fundings`, values, { body });
      break;
    }
    case 'merchants fundings': {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      result = await adminCall(base, 'GET', `/admin/v1/merchants/${merchant}/fundings`, values, {
        query: { limit: wholeNumber(values, 'limit'), afterFundingId: wholeNumber(values, 'after') },
      });
      break;
    }
    case 'emails list': {
      const status = values.status?.trim();
      if (status !== undefined && !EMAIL_STATUSES.includes(status)) usage(`--status must be one of ${EMAIL_STATUSES.join(', ')}, got "${status.slice(0, 40)}"`);
      result = await adminCall(base, 'GET', '/admin/v1/emails', values, {
        query: { status, recipient: values.recipient?.trim(), pageNumber: wholeNumber(values, 'page'), numberOfReturnedRows: wholeNumber(values, 'limit') },
      });
      break;
    }
    case 'keys create': {
      const merchant = wholeNumber(values, 'merchant') ?? usage('missing --merchant');
      result = await adminCall(base, 'POST', `/admin/v1/merchants/${merchant}/keys`, values, { body: { capturedBy: 'cli.keys@onekhusa.local' } });
      break;
    }
    case 'token': {
      const body = {
        apiKey: required(values, 'key'),
        apiSecret: required(values, 'secret'),
        organisationId: required(values, 'organisation'),
        merchantAccountNumber: wholeNumber(values, 'merchant') ?? usage('missing --merchant'),
      };
      result = await call(base, 'POST', '/sandbox/v1/account/getAccessToken', { body });
      break;
    }
    case 'listen':
      await listen(base, listenOptions(values));
      return;
  }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

// exitCode rather than exit(): stdout is flushed before the process ends, even into a pipe.
run(process.argv.slice(2)).then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nRun "npm run cli -- help" for usage.\n`);
      process.exitCode = 2;
    } else if (err instanceof FailureError) {
      process.stderr.write(err.message + '\n');
      process.exitCode = 1;
    } else {
      process.stderr.write(`unexpected error: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
  },
);

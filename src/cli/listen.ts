// The listen command, the long-running one: a local webhook receiver that gets a copy of the
// merchant's events through a temporary listener whose lease it renews, and prints every delivery
// as one JSON line. The merchant's own subscriptions are never changed; if listen dies, the lease
// lapses. Alone in its file because it is most of the CLI: a receiver, signature checks,
// forwarding and the lease's life.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { EVENT_CODES, type EventCode } from '../modules/webhooks/catalogue.ts';
import { OneKhusaError, type OneKhusa } from '../../packages/sdk/src/index.ts';
import { failure, merchantClient } from './sdk.ts';
import { shown } from './request.ts';
import { FailureError, required, usage, wholeNumber, type CliCommand, type Values } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'listen',
    usage: `\
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
`,
    options: ['key', 'secret', 'organisation', 'merchant', 'events', 'forward-to', 'port', 'lease-seconds'],
    server: true,
    async run(values, base) {
      await listen(base, listenOptions(values));
    },
  },
];

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
async function createLease(api: OneKhusa, merchant: number, events: string[], callbackUrl: string, leaseSeconds: number): Promise<Lease> {
  const body = await api.call('merchantsWebhooksListeners', { merchantAccountNumber: merchant, callbackUrl, eventCodes: events as EventCode[], leaseSeconds, capturedBy: LISTEN_ACTOR }).catch((err: unknown) => {
    throw failure(err);
  });
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

/** Stops on the first SIGINT/SIGTERM (or when stdout goes away); a second one leaves at once. */
function stopSignals(leaseSeconds: number) {
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
    process.stderr.write(`${signal} again: leaving at once; the listener lapses by itself within ${leaseSeconds} s\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', () => requestStop('stdout closed'));
  return {
    stopped,
    isStopping: () => stopping,
    detach: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** One delivery: checked against the listener's secrets, written as a line, answered (or forwarded and answered with the target's answer). */
async function receive(req: http.IncomingMessage, res: http.ServerResponse, secrets: readonly string[], forwardTo: URL | undefined): Promise<void> {
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
  if (!forwardTo) {
    writeLine(line);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    return;
  }
  const answer = await forward(forwardTo, req, raw);
  writeLine({ ...line, forwardStatus: answer.error ? null : answer.status, ...(answer.error ? { forwardError: answer.error } : {}) });
  res.writeHead(answer.status, answer.contentType ? { 'content-type': answer.contentType } : {}).end(answer.body);
}

/** The receiver on 127.0.0.1:`port` (0: any free port), and its callback address. */
async function startReceiver(port: number, secrets: readonly string[], forwardTo: URL | undefined): Promise<{ callbackUrl: string; close: () => Promise<void> }> {
  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 }, (req, res) => {
    void receive(req, res, secrets, forwardTo).catch((err: unknown) => {
      process.stderr.write(`could not handle a delivery: ${(err as Error).message}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end();
    });
  });
  // A receiver that answers slowly must not keep a connection open for ever.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new FailureError(err.code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is already in use; pick another --port or leave it out` : `cannot listen on 127.0.0.1:${port}: ${err.message}`)),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    callbackUrl: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Renews the lease every third of it, so two renewals can fail before it lapses. One that lapsed
 * anyway (the machine slept, the server was away) is replaced by a new listener, whose secret
 * joins `secrets` (a copy sent just before the replacement still verifies).
 */
function keepLeaseAlive(api: OneKhusa, options: ListenOptions, callbackUrl: string, first: Lease, secrets: string[], isStopping: () => boolean) {
  const merchant = options.credentials.merchantAccountNumber;
  let lease = first;
  let renewing: Promise<void> | undefined;
  const renew = async () => {
    const renewed = await api.safe.call('merchantsWebhooksListenersRenew', { merchantAccountNumber: merchant, listenerId: lease.listenerId });
    if (renewed.ok) return;
    if (!(renewed.error instanceof OneKhusaError) || renewed.error.status !== 404) throw failure(renewed.error);
    const lapsed = lease.listenerId;
    lease = await createLease(api, merchant, options.events, callbackUrl, options.leaseSeconds);
    secrets.unshift(lease.signingSecret);
    secrets.length = Math.min(secrets.length, 3);
    process.stderr.write(`the lease of listener ${lapsed} had lapsed (events meanwhile were not copied); listening again as listener ${lease.listenerId}\n`);
  };
  const everyMs = Math.max(1000, Math.floor((lease.leaseSeconds * 1000) / 3));
  const timer = setInterval(() => {
    if (renewing || isStopping()) return;
    renewing = renew()
      .catch((err: unknown) => {
        process.stderr.write(`could not renew the lease of listener ${lease.listenerId} (trying again in ${Math.round(everyMs / 1000)} s): ${briefly(err)}\n`);
      })
      .finally(() => {
        renewing = undefined;
      });
  }, everyMs);
  return {
    everyMs,
    lease: () => lease,
    /** Stops renewing, once a renewal under way has ended; answers the lease as it is then. */
    stop: async (): Promise<Lease> => {
      clearInterval(timer);
      await renewing;
      return lease;
    },
  };
}

/** Deletes the listener; undefined when done (or already lapsed), else why not. */
async function deleteListener(api: OneKhusa, merchant: number, lease: Lease): Promise<string | undefined> {
  try {
    const deleted = await api.safe.call('merchantsWebhooksListenersDelete', { merchantAccountNumber: merchant, listenerId: lease.listenerId });
    // Already lapsed (and perhaps swept) is as good as deleted.
    if (!deleted.ok && !(deleted.error instanceof OneKhusaError && deleted.error.status === 404)) throw failure(deleted.error);
    return undefined;
  } catch (err) {
    return `could not delete listener ${lease.listenerId} (it lapses by itself within ${lease.leaseSeconds} s): ${briefly(err)}`;
  }
}

async function listen(base: URL, options: ListenOptions): Promise<void> {
  const merchant = options.credentials.merchantAccountNumber;
  const api = merchantClient(base, options.credentials);
  // The listener's signing secret, and those of earlier leases (a lapsed lease is replaced).
  const secrets: string[] = [];
  const signals = stopSignals(options.leaseSeconds);
  const receiver = await startReceiver(options.port, secrets, options.forwardTo);

  let first: Lease;
  try {
    first = await createLease(api, merchant, options.events, receiver.callbackUrl, options.leaseSeconds);
  } catch (err) {
    await receiver.close();
    signals.detach();
    throw err;
  }
  secrets.unshift(first.signingSecret);
  const renewal = keepLeaseAlive(api, options, receiver.callbackUrl, first, secrets, signals.isStopping);

  const forwarding = options.forwardTo ? `; forwarding to ${shown(options.forwardTo)}` : '';
  // A stop asked for while the listener was being created goes straight to clean-up.
  if (!signals.isStopping()) {
    process.stderr.write(
      `listening on ${receiver.callbackUrl} for merchant ${merchant}, events: ${options.events.join(', ')}${forwarding} — Ctrl-C to stop\n` +
        `(a copy of each event, through listener ${first.listenerId}: the merchant's webhook subscriptions are not changed; the lease lasts ${first.leaseSeconds} s and is renewed every ${Math.round(renewal.everyMs / 1000)} s)\n`,
    );
  }

  const why = await signals.stopped;
  const lease = await renewal.stop();
  process.stderr.write(`stopping (${why}): deleting listener ${lease.listenerId}\n`);
  const failure = await deleteListener(api, merchant, lease);
  await receiver.close();
  signals.detach();
  if (failure) throw new FailureError(failure);
  process.stderr.write('listener deleted; bye\n');
}

// Webhook delivery guarantees (product.md §11), end to end: the real app and database, the real
// worker (graphile-worker + the dispatcher, in process or as a child process that gets killed),
// and real HTTP receivers on 127.0.0.1. Nothing of our own stack is mocked, and no assertion is on
// wall-clock durations: tests wait for conditions with a bounded poll, and compare times only as
// the database recorded them.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { withTransaction } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { emitEvent } from '../../src/jobs/outbox.ts';
import { startWorker, type Worker } from '../../src/jobs/queue.ts';
import { workerPlan } from '../../src/composition.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EVENT = 'payment.success';
const SCHEDULE = [0, 100, 100, 100];
const TIMEOUT_MS = 500;

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({}, { webhookRetryScheduleMs: SCHEDULE, webhookTimeoutMs: TIMEOUT_MS, webhookLeaseMs: 1500 });
});
afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------
// Receivers, workers, polling

interface Received {
  id: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

type Reply = { status: number; body?: string | Buffer; headers?: Record<string, string> } | 'hang';

/** A real HTTP receiver. `respond` decides each answer (n counts from 1); 'hang' never answers. */
class Receiver {
  readonly requests: Received[] = [];
  /** Requests held open ('hang') whose connection is still up. */
  readonly held = new Set<http.ServerResponse>();
  /** The most requests ever held open at once. */
  maxHeld = 0;
  respond: (n: number, req: Received) => Reply = () => ({ status: 200, body: '{"received":true}' });
  port = 0;
  private server: http.Server | undefined;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/onekhusa`;
  }

  ids(): string[] {
    return this.requests.map((r) => r.id);
  }

  async listen(port = 0): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received: Received = { id: String(req.headers['webhook-id']), headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' };
        this.requests.push(received);
        const reply = this.respond(this.requests.length, received);
        if (reply === 'hang') {
          this.held.add(res);
          this.maxHeld = Math.max(this.maxHeld, this.held.size);
          res.on('close', () => this.held.delete(res));
          return;
        }
        res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8', ...reply.headers });
        res.end(reply.body ?? '');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Answers every held request. */
  release(status: number, body = ''): void {
    for (const res of [...this.held]) {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    }
  }

  /** Closes the port: from now on connections are refused. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];
const workers: Worker[] = [];
const children: ChildProcess[] = [];

async function receiver(respond?: Receiver['respond']): Promise<Receiver> {
  const r = new Receiver();
  if (respond) r.respond = respond;
  receivers.push(r);
  await r.listen();
  return r;
}

/** The real worker (graphile-worker + dispatcher), optionally with other delivery settings. */
async function worker(overrides: Partial<Config> = {}): Promise<Worker> {
  const deps: Deps = { ...t.deps, config: { ...t.deps.config, ...overrides } };
  const w = await startWorker(deps, 2, workerPlan(deps));
  workers.push(w);
  return w;
}

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  // Nothing a test left pending may be attempted by the next test's worker.
  await t.db.query(`update webhook_deliveries set status = 'failed', completed_at = now(), locked_until = null where status = 'pending'`);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The API and the database

interface Subscription {
  webhookId: number;
  eventCode: string;
  callbackUrl: string;
  webhookSignature: string;
  signingSecret: string;
}

interface DeliveryLog {
  deliveryId: number;
  eventId: number;
  webhookMessageId: string;
  callbackUrl: string;
  status: 'pending' | 'succeeded' | 'failed';
  numberOfAttempts: number;
  nextAttemptDate: string | null;
  attempts: Array<{ attemptNumber: number; attemptedAt: string; httpStatus: number | null; latencyMs: number; responseSnippet: string | null; error: string | null }>;
}

async function subscribe(m: TestMerchant, callbackUrl: string, eventCode = EVENT): Promise<Subscription> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/merchants/webhooks/add`,
    headers: m.auth,
    payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode, callbackUrl, capturedBy: 'ops@shop.mw' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const list = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/webhooks/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
  expect(list.statusCode, list.body).toBe(200);
  return (list.json() as Subscription[]).find((s) => s.eventCode === eventCode)!;
}

async function deliveryLog(m: TestMerchant): Promise<DeliveryLog[]> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/merchants/webhooks/deliveries`,
    headers: m.auth,
    payload: { merchantAccountNumber: m.merchantAccountNumber, numberOfReturnedRows: 1000 },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as DeliveryLog[];
}

async function deliveryOf(m: TestMerchant, eventId: number): Promise<DeliveryLog> {
  const found = (await deliveryLog(m)).find((d) => d.eventId === eventId);
  if (!found) throw new Error(`no delivery for event ${eventId}`);
  return found;
}

/** Waits until the event's delivery is no longer pending and returns its log entry. */
async function settled(m: TestMerchant, eventId: number, limitMs = 15_000): Promise<DeliveryLog> {
  return until(`delivery of event ${eventId} settled`, async () => {
    const d = await deliveryOf(m, eventId);
    return d.status !== 'pending' && d;
  }, limitMs, 20);
}

function paymentPayload(m: TestMerchant, n: number) {
  return {
    eventCode: EVENT,
    merchantAccountNumber: m.merchantAccountNumber,
    connectorId: 212188,
    connectorName: 'National Bank of Malawi',
    sourceAccountNumber: '1001234567',
    sourceAccountName: 'Chikondi Banda',
    sourceReferenceNumber: `SRC${String(n).padStart(8, '0')}`,
    beneficiaryAccountNumber: String(m.merchantAccountNumber),
    transactionReferenceNumber: `TRX${String(n).padStart(10, '0')}`,
    transactionDescription: `Order #${n} — zikomo, café ✓`,
    transactionAmount: 1500.5 + n,
    transactionFee: 15.01,
    currencyCode: 'MWK',
    transactionDate: '2025-01-31T10:15:00.000Z',
    transactionStatusCode: 'S',
    transactionCode: 'PAY',
    responseCode: 'S100',
    responseMessage: 'Transaction processed successfully',
  };
}

let eventSeq = 0;
async function emit(m: TestMerchant, payload: object = paymentPayload(m, ++eventSeq)): Promise<number> {
  const emitted = await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, EVENT, payload));
  expect(emitted.deliveries).toBe(1);
  return emitted.eventId;
}

async function messageIdOf(eventId: number): Promise<string> {
  const { rows } = await t.db.query<{ message_id: string }>('select message_id from webhook_deliveries where event_id = $1', [eventId]);
  return rows[0].message_id;
}

async function attemptsRecorded(eventId: number): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.delivery_id = a.delivery_id where d.event_id = $1',
    [eventId],
  );
  return rows[0].n;
}

// ---------------------------------------------------------------------------------------------

describe('webhook delivery', () => {
  it('delivers the flat body byte for byte, with both signatures, and logs the attempt', async () => {
    const m = await newMerchant(t);
    const r = await receiver();
    const sub = await subscribe(m, r.url);
    await worker();
    const payload = paymentPayload(m, 1);
    const eventId = await emit(m, payload);

    const got = await until('the receiver got the event', async () => r.requests[0], 15_000, 20);
    expect(got.body).toBe(JSON.stringify(payload));
    expect(got.path).toBe('/hooks/onekhusa');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-onekhusa-webhook-event']).toBe(EVENT);
    expect(got.headers['x-onekhusa-webhook-signature']).toBe(sub.webhookSignature);
    expect(sub.webhookSignature).toMatch(/^[A-Za-z0-9]{52}$/);
    expect(got.headers['webhook-id']).toBe(await messageIdOf(eventId));
    expect(got.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const headers = { 'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']) };
    expect(new Webhook(sub.signingSecret).verify(got.body, headers)).toEqual(payload);
    // A tampered body or another secret does not verify.
    expect(() => new Webhook(sub.signingSecret).verify(got.body.replace('1501.5', '9999'), headers)).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, headers)).toThrow();

    const d = await settled(m, eventId);
    expect(d).toMatchObject({ status: 'succeeded', numberOfAttempts: 1, webhookMessageId: got.id, callbackUrl: r.url, nextAttemptDate: null });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attemptNumber: 1, httpStatus: 200, responseSnippet: '{"received":true}', error: null });
    expect(Number.isInteger(d.attempts[0].latencyMs) && d.attempts[0].latencyMs >= 0).toBe(true);
    expect(r.requests).toHaveLength(1);
  });

  it('retries a failing receiver with the same webhook-id until it succeeds, then stops', async () => {
    const m = await newMerchant(t);
    const r = await receiver((n) => (n <= 2 ? { status: 500, body: `failure ${n}` } : { status: 200, body: 'ok' }));
    await subscribe(m, r.url);
    await worker();
    const eventId = await emit(m);

    const d = await settled(m, eventId);
    // Longer than the whole schedule: a fourth request would have come by now.
    await sleep(SCHEDULE.reduce((a, b) => a + b, 0) * 3);
    expect(r.ids()).toEqual([d.webhookMessageId, d.webhookMessageId, d.webhookMessageId]);
    const after = await deliveryOf(m, eventId);
    expect(after.status).toBe('succeeded');
    expect(after.numberOfAttempts).toBe(3);
    expect(after.attempts.map((a) => [a.attemptNumber, a.httpStatus, a.responseSnippet])).toEqual([
      [1, 500, 'failure 1'],
      [2, 500, 'failure 2'],
      [3, 200, 'ok'],
    ]);
  });

  it('delivers everything emitted while the receiver was down once it is back on its port', async () => {
    const m = await newMerchant(t);
    const port = await freePort();
    const r = new Receiver();
    receivers.push(r);
    r.port = port;
    await subscribe(m, r.url);
    await worker({ webhookRetryScheduleMs: [0, 200, 200, 200, 200, 200, 200, 200, 500, 1000, 2000] });
    const eventIds: number[] = [];
    for (let i = 0; i < 5; i++) eventIds.push(await emit(m));

    // Down: every delivery fails at least twice (connection refused) and stays pending.
    await until('every delivery failed twice', async () => {
      for (const id of eventIds) if ((await attemptsRecorded(id)) < 2) return false;
      return true;
    }, 15_000, 20);
    for (const id of eventIds) {
      const d = await deliveryOf(m, id);
      expect(d.status).toBe('pending');
      expect(d.attempts.every((a) => a.httpStatus === null && /ECONNREFUSED/.test(a.error ?? ''))).toBe(true);
    }
    expect(r.requests).toHaveLength(0);

    await r.listen(port);
    const settledAll = await Promise.all(eventIds.map((id) => settled(m, id)));
    expect(settledAll.every((d) => d.status === 'succeeded')).toBe(true);
    const ids = new Set(r.ids());
    for (const d of settledAll) expect(ids.has(d.webhookMessageId)).toBe(true);
  });

  it('gives up after the schedule (failed, every attempt logged) and redelivers with the same webhook-id', async () => {
    const m = await newMerchant(t);
    const port = await freePort();
    const r = new Receiver();
    receivers.push(r);
    r.port = port;
    await subscribe(m, r.url);
    await worker();
    const eventId = await emit(m);

    const failed = await settled(m, eventId);
    expect(failed.status).toBe('failed');
    expect(failed.numberOfAttempts).toBe(SCHEDULE.length);
    expect(failed.attempts.map((a) => a.attemptNumber)).toEqual([1, 2, 3, 4]);
    for (const a of failed.attempts) {
      expect(a.httpStatus).toBeNull();
      expect(a.error).toMatch(/ECONNREFUSED/);
    }
    await sleep(300); // a failed delivery stays failed
    expect((await deliveryOf(m, eventId)).numberOfAttempts).toBe(SCHEDULE.length);

    await r.listen(port);
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/webhooks/redeliver`,
      headers: m.auth,
      payload: { merchantAccountNumber: m.merchantAccountNumber, deliveryId: failed.deliveryId },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, numberOfDeliveries: 1 });

    const redelivered = await settled(m, eventId);
    expect(redelivered.status).toBe('succeeded');
    expect(r.ids()).toEqual([failed.webhookMessageId]);
    expect(redelivered.webhookMessageId).toBe(failed.webhookMessageId);
    expect(redelivered.numberOfAttempts).toBe(SCHEDULE.length + 1);
    expect(redelivered.attempts.at(-1)).toMatchObject({ attemptNumber: SCHEDULE.length + 1, httpStatus: 200, error: null });
  });

  it('honours Retry-After: a 429 with Retry-After: 1 is not retried before a second has passed', async () => {
    const m = await newMerchant(t);
    const r = await receiver((n) => (n === 1 ? { status: 429, body: 'slow down', headers: { 'retry-after': '1' } } : { status: 200, body: 'ok' }));
    await subscribe(m, r.url);
    // Retry-After is honoured up to the schedule's longest step (so a receiver cannot park a
    // delivery for ever); this schedule's retry step (100 ms) is far shorter than what is asked.
    await worker({ webhookRetryScheduleMs: [0, 100, 100, 5000] });
    const eventId = await emit(m);

    // Between the two attempts: the delivery waits, unleased, for its recorded next attempt time.
    const waiting = await until('the 429 recorded', async () => {
      const { rows } = await t.db.query<{ next_attempt_at: Date; attempted_at: Date }>(
        `select d.next_attempt_at, a.attempted_at from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.delivery_id
          where d.event_id = $1 and d.status = 'pending' and d.locked_until is null and a.attempt_number = 1`,
        [eventId],
      );
      return rows[0];
    }, 15_000, 20);
    expect(waiting.next_attempt_at.getTime() - waiting.attempted_at.getTime()).toBeGreaterThanOrEqual(990);

    const d = await settled(m, eventId);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => a.httpStatus)).toEqual([429, 200]);
    const gap = Date.parse(d.attempts[1].attemptedAt) - Date.parse(d.attempts[0].attemptedAt);
    expect(gap).toBeGreaterThanOrEqual(990);
    expect(r.ids()).toEqual([d.webhookMessageId, d.webhookMessageId]);
  });

  it('does not let a hanging receiver stall deliveries to another one', async () => {
    const slowMerchant = await newMerchant(t);
    const fastMerchant = await newMerchant(t);
    const hanging = await receiver(() => 'hang');
    const fast = await receiver();
    await subscribe(slowMerchant, hanging.url);
    await subscribe(fastMerchant, fast.url);
    const perHost = 4;
    // More hanging deliveries than the whole worker may have in flight.
    const hangingEvents = await withTransaction(t.db, async (tx) => {
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) ids.push((await emitEvent(tx, slowMerchant.merchantAccountNumber, EVENT, paymentPayload(slowMerchant, i))).eventId);
      return ids;
    });
    const fastEvents: number[] = [];
    for (let i = 0; i < 3; i++) fastEvents.push(await emit(fastMerchant));
    await worker({ webhookConcurrency: 8, webhookPerHostConcurrency: perHost });

    await until('the fast receiver got its events', async () => fast.requests.length >= fastEvents.length, 15_000, 20);
    // Meanwhile the hanging receiver's first attempts are still in flight: none has ended yet, and
    // the worker holds no more of its deliveries than the per-host limit.
    const { rows: slowState } = await t.db.query<{ attempts: number; leased: number }>(
      `select (select count(*)::int from webhook_attempts a join webhook_deliveries d on d.delivery_id = a.delivery_id where d.merchant_account_number = $1) as attempts,
              (select count(*)::int from webhook_deliveries where merchant_account_number = $1 and locked_until is not null) as leased`,
      [slowMerchant.merchantAccountNumber],
    );
    expect(slowState[0].attempts).toBe(0);
    expect(slowState[0].leased).toBeGreaterThan(0);
    expect(slowState[0].leased).toBeLessThanOrEqual(perHost);

    for (const id of fastEvents) expect((await settled(fastMerchant, id)).status).toBe('succeeded');
    expect(new Set(fast.ids()).size).toBe(fastEvents.length);

    // The hanging attempts end at the timeout, with the reason recorded.
    const firstHanging = await until('a hanging attempt ended', async () => {
      const d = await deliveryOf(slowMerchant, hangingEvents[0]);
      return d.attempts.length > 0 && d;
    }, 15_000, 20);
    expect(firstHanging.attempts[0]).toMatchObject({ httpStatus: null, error: `no response within ${TIMEOUT_MS} ms`, responseSnippet: null });
    expect(hanging.requests.length).toBeGreaterThan(0);
    expect(hanging.maxHeld).toBeLessThanOrEqual(perHost);
  });

  it('loses nothing when a worker is killed mid-delivery: the lease runs out and another worker delivers', { timeout: 90_000 }, async () => {
    const m = await newMerchant(t);
    let answering = false;
    const r = await receiver(() => (answering ? { status: 200, body: 'ok' } : 'hang'));
    await subscribe(m, r.url);
    const eventId = await emit(m);

    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: t.deps.config.databaseUrl,
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '6000',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','),
      LOG_LEVEL: 'warn',
      APP_MODE: 'sandbox',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

    const first = await until('the receiver holds the child worker’s request', async () => r.held.size === 1 && r.requests[0], 30_000, 20).catch((err: Error) => {
      throw new Error(`${err.message}; child output: ${output}`);
    });
    const { rows: leased } = await t.db.query<{ lease: Date; status: string; total_attempts: number }>(
      'select locked_until as lease, status, total_attempts from webhook_deliveries where event_id = $1',
      [eventId],
    );
    expect(leased[0]).toMatchObject({ status: 'pending', total_attempts: 1 });
    expect(leased[0].lease).toBeInstanceOf(Date);

    child.kill('SIGKILL');
    await exited;
    answering = true;
    await worker();

    const d = await settled(m, eventId, 30_000);
    expect(d.status).toBe('succeeded');
    expect(r.ids()).toEqual([first.id, first.id]);
    expect(d.webhookMessageId).toBe(first.id);
    // The killed attempt left no result; the re-claim came only once the lease had run out.
    expect(d.numberOfAttempts).toBe(2);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attemptNumber: 2, httpStatus: 200, error: null });
    expect(Date.parse(d.attempts[0].attemptedAt)).toBeGreaterThanOrEqual(leased[0].lease.getTime());
  });

  it('delivers 500 events emitted in one transaction exactly once each, every attempt logged', { timeout: 60_000 }, async () => {
    const m = await newMerchant(t);
    const r = await receiver();
    await subscribe(m, r.url);
    const N = 500;
    await withTransaction(t.db, async (tx) => {
      for (let i = 0; i < N; i++) await emitEvent(tx, m.merchantAccountNumber, EVENT, paymentPayload(m, i));
    });
    // A lease far longer than any attempt here: duplicates are then a bug, not a lease that ran out
    // on a machine busy with other test files (at-least-once is what short leases promise).
    await worker({ webhookTimeoutMs: 10_000, webhookLeaseMs: 60_000 });

    await until(
      'all 500 delivered',
      async () => {
        const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and status = 'succeeded'`, [m.merchantAccountNumber]);
        return rows[0].n === N;
      },
      45_000,
      20,
    );
    await sleep(300); // room for a wrong duplicate
    const ids = r.ids();
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    const { rows: messageIds } = await t.db.query<{ message_id: string }>('select message_id from webhook_deliveries where merchant_account_number = $1', [m.merchantAccountNumber]);
    expect(new Set(ids)).toEqual(new Set(messageIds.map((row) => row.message_id)));
    const { rows } = await t.db.query<{ deliveries: number; attempts: number; bad: number }>(
      `select count(*)::int as deliveries,
              sum((select count(*) from webhook_attempts a where a.delivery_id = d.delivery_id))::int as attempts,
              count(*) filter (where d.total_attempts <> 1
                                  or not exists (select 1 from webhook_attempts a where a.delivery_id = d.delivery_id and a.attempt_number = 1 and a.http_status = 200))::int as bad
         from webhook_deliveries d where d.merchant_account_number = $1`,
      [m.merchantAccountNumber],
    );
    expect(rows[0]).toEqual({ deliveries: N, attempts: N, bad: 0 });
  });

  it('stores at most 1 KB of a large response and records a response with NUL bytes', async () => {
    const m = await newMerchant(t);
    const bigBody = '0123456789abcdef'.repeat(320); // 5 KB
    const big = await receiver(() => ({ status: 200, body: bigBody }));
    const nul = await receiver(() => ({ status: 500, body: Buffer.from('bad\u0000\u0000news\u0000', 'utf8') }));
    await subscribe(m, big.url, 'payment.success');
    await subscribe(m, nul.url, 'payment.reversed');
    await worker();
    const bigEvent = await emit(m);
    const nulEvent = (await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, 'payment.reversed', paymentPayload(m, 99)))).eventId;

    const bigDelivery = await settled(m, bigEvent);
    expect(bigDelivery.status).toBe('succeeded');
    expect(bigDelivery.attempts[0].responseSnippet).toBe(bigBody.slice(0, 1024));

    const nulDelivery = await settled(m, nulEvent);
    expect(nulDelivery.status).toBe('failed');
    expect(nulDelivery.attempts).toHaveLength(SCHEDULE.length);
    for (const a of nulDelivery.attempts) expect(a).toMatchObject({ httpStatus: 500, responseSnippet: 'badnews', error: null });
    expect(nul.requests).toHaveLength(SCHEDULE.length);
  });

  it('sends the next attempt to the new callbackUrl after E13 update', async () => {
    const m = await newMerchant(t);
    const old = await receiver(() => 'hang');
    const moved = await receiver();
    const sub = await subscribe(m, old.url);
    // The held attempt must not time out before the test answers it.
    await worker({ webhookTimeoutMs: 10_000, webhookLeaseMs: 15_000 });
    const eventId = await emit(m);

    await until('the old URL holds the first attempt', async () => old.held.size === 1, 15_000, 20);
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/webhooks/update`,
      headers: m.auth,
      payload: { webhookId: sub.webhookId, merchantAccountNumber: m.merchantAccountNumber, eventCode: EVENT, callbackUrl: moved.url, capturedBy: 'ops@shop.mw' },
    });
    expect(res.statusCode, res.body).toBe(200);
    old.release(500, 'gone');

    const d = await settled(m, eventId);
    expect(d.status).toBe('succeeded');
    expect(old.ids()).toEqual([d.webhookMessageId]);
    expect(moved.ids()).toEqual([d.webhookMessageId]);
    expect(d.attempts.map((a) => a.httpStatus)).toEqual([500, 200]);
  });

  it('fails pending deliveries and sends nothing more after E14 delete', async () => {
    const m = await newMerchant(t);
    const r = await receiver(() => 'hang');
    await subscribe(m, r.url);
    // One attempt at a time to this host: the second delivery waits, pending, behind the first.
    // The held attempt must not time out before the test answers it.
    await worker({ webhookPerHostConcurrency: 1, webhookTimeoutMs: 10_000, webhookLeaseMs: 15_000 });
    const inFlight = await emit(m);
    await until('the receiver holds the first attempt', async () => r.held.size === 1, 15_000, 20);
    const waiting = await emit(m);
    await sleep(200);
    expect(r.requests).toHaveLength(1);
    expect((await deliveryOf(m, waiting)).status).toBe('pending');

    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/webhooks/delete`,
      headers: { ...m.auth, merchantaccountnumber: String(m.merchantAccountNumber) },
      payload: { eventCode: EVENT, merchantAccountNumber: m.merchantAccountNumber, deletedBy: 'ops@shop.mw' },
    });
    expect(res.statusCode, res.body).toBe(200);
    for (const id of [inFlight, waiting]) expect((await deliveryOf(m, id)).status).toBe('failed');

    // The receiver answers with a failure, which would normally schedule a retry.
    r.release(500, 'try again');
    await sleep(SCHEDULE.reduce((a, b) => a + b, 0) * 3 + TIMEOUT_MS);
    expect(r.requests).toHaveLength(1);
    for (const id of [inFlight, waiting]) expect((await deliveryOf(m, id)).status).toBe('failed');
    // A new event finds no subscription: no delivery at all.
    const after = await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, EVENT, paymentPayload(m, 7)));
    expect(after.deliveries).toBe(0);
  });
});

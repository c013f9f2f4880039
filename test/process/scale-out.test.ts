// Scale-out (issue 6/6): two API processes (`npm start` with WORKER_CONCURRENCY=0: the API alone)
// and two worker processes (`npm run worker`) on ONE PostgreSQL database, RATE_LIMIT_STORE=postgres
// on both API processes. Real processes, real sockets, a real webhook receiver on 127.0.0.1.
//
// 1. Under concurrent load spread over both API processes, nothing happens twice: single payouts
//    and batches (level 1: addJson → validation job → transferFunds → process_payouts), E11
//    payments and transferFunds sent to BOTH API processes at once with one idempotency key, the
//    webhook deliveries of every event. Each payout is processed once (attempts = 1, one debit, one
//    event line), each batch validated once (the workers' logs), each delivery attempted by one
//    worker at a time (its attempts never overlap, and the receiver never sees one message twice
//    at once), and the ledger balances.
// 2. The rate limit is shared: a burst of 3N requests split over both processes gets at most N 2xx
//    per one-second window (counted per X-RateLimit-Reset, the window the limiter charged), the
//    rest 429 problem+json E905 with Retry-After.
//
// No assertion is on wall-clock durations: the load waits for conditions with bounded polls, and
// the rate-limit check groups answers by the window the server says it charged.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../src/db/pool.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { ADMIN_TOKEN, BASE, createTestDatabase, ledgerInvariants, until } from '../helpers.ts';

const LIMIT = 20;
/** The postgres limiter leases permits in chunks of a tenth of the limit (src/http/rate-limit.ts). */
const CHUNK = Math.ceil(LIMIT / 10);
const MERCHANTS = 6;
/** Per merchant: single payouts (every third sent to both API processes with one key). */
const SINGLES = 18;
/** Per merchant: batches submitted under load, plus one submitted before any worker ran. */
const BATCHES = 3;
const LINES = 25;
/** Per merchant: E11 payments, each sent to both API processes at once with one key. */
const PAYMENTS = 15;
const EVENTS = ['payout.success', 'batch.payout.success', 'batch.received', 'payment.success'];
const ACTOR = 'ops@shop.mw';
const CAPTURER = 'capturer@shop.mw';
const NBM = 212188;
const AIRTEL = 112400;

// ---------------------------------------------------------------------------------------------
// Processes

interface Proc {
  name: string;
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

const procs: Proc[] = [];

function spawnProc(name: string, script: string, env: Record<string, string>, port = 0): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const proc = { name, child, port, output: () => out, exited };
  procs.push(proc);
  return proc;
}

async function startApi(name: string, databaseUrl: string): Promise<Proc> {
  const port = await freePort();
  const p = spawnProc(
    name,
    'src/server.ts',
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN,
      WORKER_CONCURRENCY: '0',
      RATE_LIMIT_STORE: 'postgres',
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      DB_POOL_SIZE: '10',
    },
    port,
  );
  await until(`${name} ready`, async () => {
    if (p.child.exitCode !== null) throw new Error(`${name} exited early: ${p.output()}`);
    return fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok, () => false);
  }, 90_000);
  return p;
}

async function startWorkerProc(name: string, databaseUrl: string): Promise<Proc> {
  const p = spawnProc(name, 'src/worker.ts', { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '4', DB_POOL_SIZE: '10', WEBHOOK_RETRY_SCHEDULE: '0,500ms,1s,2s' });
  await until(`${name} started`, async () => {
    if (p.child.exitCode !== null) throw new Error(`${name} exited early: ${p.output()}`);
    return p.output().includes('worker started');
  }, 90_000);
  return p;
}

/** The JSON log lines of a process. */
function logLines(p: Proc): Array<Record<string, any>> {
  const lines: Array<Record<string, any>> = [];
  for (const line of p.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // a line cut by the exit
    }
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// HTTP

interface Res {
  status: number;
  headers: Headers;
  body: string;
  port: number;
}

const stats = { requests: 0, retriedAfter429: 0 };

/** One request; a 429 is retried after its Retry-After (as a well-behaved client does) unless told not to. */
async function call(port: number, method: string, path: string, options: { token?: string; admin?: boolean; body?: unknown; key?: string; retry429?: boolean } = {}): Promise<Res> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
  if (options.key) headers['x-idempotency-key'] = options.key;
  for (let attempt = 0; ; attempt++) {
    stats.requests += 1;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal: AbortSignal.timeout(60_000) });
    const body = await res.text();
    if (res.status === 429 && options.retry429 !== false && attempt < 200) {
      stats.retriedAfter429 += 1;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000 * Math.random() + 50));
      continue;
    }
    return { status: res.status, headers: res.headers, body, port };
  }
}

function ok(res: Res, status = 200): any {
  expect(res.status, `${res.port}: ${res.body.slice(0, 300)}`).toBe(status);
  return JSON.parse(res.body);
}

/**
 * The same request with the same idempotency key, sent to both API processes at once: exactly one
 * effect. The other answer replays the first byte for byte, or is 409 E907 (still in progress).
 */
function onePairEffect(a: Res, b: Res): { kind: 'replayed' | 'conflict'; first: Res } {
  const done = [a, b].filter((r) => r.status === 200);
  expect(done.length, `${a.status} ${a.body.slice(0, 200)} / ${b.status} ${b.body.slice(0, 200)}`).toBeGreaterThanOrEqual(1);
  if (done.length === 2) {
    const replayed = done.filter((r) => r.headers.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(1);
    expect(a.body).toBe(b.body);
    return { kind: 'replayed', first: done.find((r) => r !== replayed[0])! };
  }
  const other = a.status === 200 ? b : a;
  expect(other.status, other.body).toBe(409);
  expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(other.body).errorCode).toBe('E907');
  return { kind: 'conflict', first: done[0] };
}

// ---------------------------------------------------------------------------------------------
// The webhook receiver

class Receiver {
  /** Receptions per webhook-id. */
  readonly received = new Map<string, number>();
  /** Receptions of a webhook-id while another reception of the same id was still open. */
  concurrentDuplicates = 0;
  private readonly open = new Map<string, number>();
  private server: http.Server | undefined;
  port = 0;

  async listen(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const id = String(req.headers['webhook-id']);
      const openNow = (this.open.get(id) ?? 0) + 1;
      this.open.set(id, openNow);
      if (openNow > 1) this.concurrentDuplicates += 1;
      this.received.set(id, (this.received.get(id) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        // Held briefly, so that a second worker attempting the same delivery would overlap.
        setTimeout(() => {
          this.open.set(id, (this.open.get(id) ?? 1) - 1);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"received":true}');
        }, 20);
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// Set-up

interface Merchant {
  organisationId: string;
  merchantAccountNumber: number;
  paymentAccountNumber: string;
  apiKey: string;
  apiSecret: string;
  token: string;
}

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let api: Proc[] = [];
let workers: Proc[] = [];
let merchants: Merchant[] = [];
const receiver = new Receiver();
/** Per merchant account: the batch submitted while no worker ran (still Q when the workers started). */
const earlyBatches = new Map<number, number>();
let started = 0;

const mac = (m: Merchant) => ({ merchantAccountNumber: m.merchantAccountNumber });
const line = (amount = 500) => ({
  beneficiaryName: 'Chisomo Banda',
  connectorId: AIRTEL,
  beneficiaryAccountNumber: '265991234567',
  transactionDescription: 'Salary',
  transactionAmount: amount,
  sourceReferenceNumber: `SRC${randomBytes(6).toString('hex')}`,
});
const idemKey = (what: string) => `${what}-${randomBytes(10).toString('hex')}`;
const portOf = (i: number) => api[i % 2].port;

async function addBatch(m: Merchant, i: number): Promise<number> {
  const res = await call(portOf(i), 'POST', `${BASE}/disbursements/batch/addJson`, {
    token: m.token,
    key: idemKey('batch'),
    body: { header: { ...mac(m), isBatchScheduled: false, capturedBy: CAPTURER }, transactions: Array.from({ length: LINES }, () => line()) },
  });
  return ok(res).batchNumber as number;
}

beforeAll(async () => {
  started = Date.now();
  database = await createTestDatabase();
  db = createPool(database.url, 4);
  await receiver.listen();
  api = await Promise.all([startApi('api-1', database.url), startApi('api-2', database.url)]);

  // Merchants through the operator API, tokens from alternating processes (one shared JWT secret:
  // generated once and kept in the database).
  merchants = await Promise.all(
    Array.from({ length: MERCHANTS }, async (_, i) => {
      const created = ok(await call(portOf(i), 'POST', '/admin/v1/merchants', { admin: true, body: { accountName: `Scale Shop ${i}`, levelNumber: 1 } }), 201);
      const token = ok(
        await call(portOf(i + 1), 'POST', `${BASE}/account/getAccessToken`, {
          body: { apiKey: created.apiKey, apiSecret: created.apiSecret, organisationId: created.organisationId, merchantAccountNumber: created.merchantAccountNumber },
        }),
      ).accessToken as string;
      return { ...created, token } as Merchant;
    }),
  );
  await Promise.all(
    merchants.map(async (m, i) => {
      ok(await call(portOf(i), 'POST', `${BASE}/merchants/accounts/topup`, { token: m.token, key: idemKey('topup'), body: { ...mac(m), connectorId: NBM, topupAmount: 100_000, createdBy: ACTOR } }));
      for (const [j, eventCode] of EVENTS.entries()) {
        const res = await call(portOf(i + j), 'POST', `${BASE}/merchants/webhooks/add`, {
          token: m.token,
          body: { ...mac(m), eventCode, callbackUrl: `http://127.0.0.1:${receiver.port}/hooks/${m.merchantAccountNumber}`, capturedBy: ACTOR },
        });
        ok(res, 201);
      }
      earlyBatches.set(m.merchantAccountNumber, await addBatch(m, i));
    }),
  );
  // No worker runs yet (the API processes have none): the batches wait in Q with their jobs.
  const { rows } = await db.query<{ status_code: string }>('select status_code from batches where batch_number = any($1::int[])', [[...earlyBatches.values()]]);
  expect(rows.map((r) => r.status_code)).toEqual(merchants.map(() => 'Q'));
  workers = await Promise.all([startWorkerProc('worker-1', database.url), startWorkerProc('worker-2', database.url)]);
}, 180_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await Promise.all(
    procs.map(async (p) => {
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
      await p.exited;
      clearTimeout(timer);
    }),
  );
  await receiver.close();
  await db?.end();
  await database?.drop();
  console.log(`scale-out: ${stats.requests} HTTP requests (${stats.retriedAfter429} retried after 429), ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
}, 60_000);

// ---------------------------------------------------------------------------------------------

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: number }>(sql, params);
  return rows[0].n;
}

describe('two API processes and two workers on one database', () => {
  it('run every job, payment, payout and webhook delivery once under concurrent load', async () => {
    const macs = merchants.map((m) => m.merchantAccountNumber);
    const pairs = { replayed: 0, conflict: 0 };
    const singleRefs: string[] = [];
    const batches: number[] = [...earlyBatches.values()];

    await Promise.all(
      merchants.map(async (m, mi) => {
        const singles = Array.from({ length: SINGLES }, async (_, i) => {
          const body = { ...mac(m), ...line(), capturedBy: CAPTURER };
          const key = idemKey('single');
          const path = `${BASE}/disbursements/single/add`;
          if (i % 3 === 0) {
            const [a, b] = await Promise.all([call(api[0].port, 'POST', path, { token: m.token, key, body }), call(api[1].port, 'POST', path, { token: m.token, key, body })]);
            const pair = onePairEffect(a, b);
            pairs[pair.kind] += 1;
            singleRefs.push(JSON.parse(pair.first.body).transactionReferenceNumber);
          } else {
            singleRefs.push(ok(await call(portOf(mi + i), 'POST', path, { token: m.token, key, body })).transactionReferenceNumber);
          }
        });
        const payments = Array.from({ length: PAYMENTS }, async () => {
          const body = { beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: AIRTEL, transactionAmount: 1250, createdBy: ACTOR };
          const key = idemKey('payment');
          const path = `${BASE}/collections/addFakeCustomPayment`;
          const [a, b] = await Promise.all([call(api[0].port, 'POST', path, { token: m.token, key, body }), call(api[1].port, 'POST', path, { token: m.token, key, body })]);
          pairs[onePairEffect(a, b).kind] += 1;
        });
        const batchFlows = Array.from({ length: BATCHES + 1 }, async (_, i) => {
          // The early batch is transferred like the others once a worker has validated it.
          const batchNumber = i === BATCHES ? earlyBatches.get(m.merchantAccountNumber)! : await addBatch(m, mi + i);
          if (i !== BATCHES) batches.push(batchNumber);
          const status = await until(`batch ${batchNumber} validated`, async () => {
            const { rows } = await db.query<{ status_code: string }>('select status_code from batches where batch_number = $1', [batchNumber]);
            return rows[0].status_code === 'Q' ? undefined : rows[0].status_code;
          }, 90_000);
          expect(status).toBe('P');
          // transferFunds to both processes at once, with one key: one debit.
          const body = { ...mac(m), batchNumber, transferredBy: ACTOR };
          const key = idemKey('transfer');
          const path = `${BASE}/disbursements/batch/transferFunds`;
          const [a, b] = await Promise.all([call(api[0].port, 'POST', path, { token: m.token, key, body }), call(api[1].port, 'POST', path, { token: m.token, key, body })]);
          pairs[onePairEffect(a, b).kind] += 1;
        });
        await Promise.all([...singles, ...payments, ...batchFlows]);
      }),
    );

    // Everything settles: payouts final, batches complete, every delivery done.
    await until('payouts, batches and deliveries to settle', async () => {
      const open =
        (await count(`select count(*)::int as n from payouts where merchant_account_number = any($1::int[]) and status_code not in ('S', 'F', 'R')`, [macs])) +
        (await count(`select count(*)::int as n from batches where merchant_account_number = any($1::int[]) and status_code <> 'C'`, [macs])) +
        (await count(`select count(*)::int as n from webhook_deliveries where status = 'pending'`));
      return open === 0;
    }, 120_000, 250);

    // Payouts: each exactly once — one processing (attempts), one debit, one event line.
    const expectedPayouts = MERCHANTS * (SINGLES + (BATCHES + 1) * LINES);
    const { rows: payouts } = await db.query<{ status_code: string; attempts: number; batch_number: number | null; transaction_reference_number: string }>(
      'select status_code, attempts, batch_number, transaction_reference_number from payouts where merchant_account_number = any($1::int[])',
      [macs],
    );
    expect(payouts).toHaveLength(expectedPayouts);
    expect(payouts.filter((p) => p.status_code !== 'S' || p.attempts !== 1)).toEqual([]);
    expect(payouts.filter((p) => p.batch_number === null).map((p) => p.transaction_reference_number).sort()).toEqual([...singleRefs].sort());
    const debits = await db.query<{ reference: string; n: number }>(
      `select reference, count(*)::int as n from ledger_transfers where transfer_type = 'payout_debit' and merchant_account_number = any($1::int[]) group by reference`,
      [macs],
    );
    expect(debits.rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(debits.rows.map((r) => r.reference).sort()).toEqual([...singleRefs, ...batches.map((b) => `B${b}`)].sort());
    const { rows: eventLines } = await db.query<{ ref: string; n: number }>(
      `select t->>'transactionReferenceNumber' as ref, count(*)::int as n
         from outbox_events e, json_array_elements(e.payload->'transactions') t
        where e.merchant_account_number = any($1::int[]) and e.event_code in ('payout.success', 'batch.payout.success')
        group by 1`,
      [macs],
    );
    expect(eventLines.filter((r) => r.n !== 1)).toEqual([]);
    expect(eventLines).toHaveLength(expectedPayouts);

    // Batches: every line paid once, counters exact, validated once (one batch.received, one log line).
    const { rows: batchRows } = await db.query<{ batch_number: number; status_code: string; number_of_successful_entries: number; number_of_entries: number }>(
      'select batch_number, status_code, number_of_successful_entries, number_of_entries from batches where merchant_account_number = any($1::int[])',
      [macs],
    );
    expect(batchRows.map((b) => b.batch_number).sort()).toEqual([...batches].sort());
    for (const b of batchRows) expect(b).toMatchObject({ status_code: 'C', number_of_successful_entries: LINES, number_of_entries: LINES });
    expect(await count(`select count(*)::int as n from outbox_events where event_code = 'batch.received' and merchant_account_number = any($1::int[])`, [macs])).toBe(batches.length);
    const validatedLogs = workers.flatMap((w) => logLines(w).filter((l) => l.msg === 'batch validated').map((l) => ({ batch: l.batchNumber as number, pid: l.pid as number })));
    expect(validatedLogs.map((l) => l.batch).sort()).toEqual([...batches].sort());

    // E11: one collection and one payment.success per key.
    expect(await count(`select count(*)::int as n from collections where merchant_account_number = any($1::int[])`, [macs])).toBe(MERCHANTS * PAYMENTS);
    expect(await count(`select count(*)::int as n from outbox_events where event_code = 'payment.success' and merchant_account_number = any($1::int[])`, [macs])).toBe(MERCHANTS * PAYMENTS);

    // Webhooks: one delivery per event, each succeeded and received; its attempts one after
    // another (numbered 1..n, none starting before the previous one ended), never two at once.
    const events = await count(`select count(*)::int as n from outbox_events where merchant_account_number = any($1::int[]) and event_code = any($2::text[])`, [macs, EVENTS]);
    const { rows: deliveries } = await db.query<{ delivery_id: number; message_id: string; status: string; total_attempts: number; per_event: number }>(
      `select d.delivery_id, d.message_id, d.status, d.total_attempts, count(*) over (partition by d.event_id)::int as per_event
         from webhook_deliveries d where d.merchant_account_number = any($1::int[])`,
      [macs],
    );
    expect(deliveries).toHaveLength(events);
    expect(deliveries.filter((d) => d.status !== 'succeeded' || d.per_event !== 1)).toEqual([]);
    const { rows: attempts } = await db.query<{ delivery_id: number; attempt_number: number; started: number; ended: number }>(
      `select delivery_id, attempt_number, extract(epoch from attempted_at) * 1000 as started, extract(epoch from attempted_at) * 1000 + latency_ms as ended
         from webhook_attempts where merchant_account_number = any($1::int[]) order by delivery_id, attempt_number`,
      [macs],
    );
    const byDelivery = new Map<number, typeof attempts>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    let duplicateReceptions = 0;
    for (const d of deliveries) {
      const list = byDelivery.get(d.delivery_id) ?? [];
      expect(list.map((a) => a.attempt_number)).toEqual(list.map((_, i) => i + 1));
      for (let i = 1; i < list.length; i++) expect(Number(list[i].started)).toBeGreaterThanOrEqual(Number(list[i - 1].ended));
      expect(list.length).toBeGreaterThanOrEqual(1);
      expect(list.length).toBeLessThanOrEqual(d.total_attempts);
      const received = receiver.received.get(d.message_id) ?? 0;
      expect(received, d.message_id).toBeGreaterThanOrEqual(1);
      // Every reception was a claim of the delivery (claims are counted in total_attempts).
      expect(received).toBeLessThanOrEqual(d.total_attempts);
      duplicateReceptions += received - 1;
    }
    expect(receiver.concurrentDuplicates).toBe(0);

    expect(await ledgerInvariants(db)).toEqual({ total: 0, mismatched: 0 });

    const processedBy = new Map<number, number>();
    for (const w of workers) for (const l of logLines(w)) if (l.msg === 'payouts processed' || l.msg === 'batch validated') processedBy.set(l.pid, (processedBy.get(l.pid) ?? 0) + 1);
    console.log(
      `scale-out load: ${MERCHANTS} merchants, ${expectedPayouts} payouts (${MERCHANTS * SINGLES} single, ${batches.length} batches of ${LINES}), ` +
        `${MERCHANTS * PAYMENTS} E11 payments; ${pairs.replayed + pairs.conflict} same-key pairs sent to both processes (${pairs.replayed} replayed, ${pairs.conflict} 409 E907); ` +
        `${deliveries.length} webhook deliveries, ${attempts.length} attempts, ${duplicateReceptions} duplicate receptions, ${receiver.concurrentDuplicates} concurrent; ` +
        `job log lines per worker pid ${JSON.stringify(Object.fromEntries(processedBy))}`,
    );
  }, 240_000);

  it(`share the rate limit: a burst of ${3 * LIMIT} requests over both gets at most ${LIMIT} 2xx per window, the rest 429 E905`, async () => {
    // A merchant of its own, so the load above does not share its windows.
    const created = ok(await call(api[0].port, 'POST', '/admin/v1/merchants', { admin: true, body: { accountName: 'Burst Shop' } }), 201);
    const token = ok(
      await call(api[1].port, 'POST', `${BASE}/account/getAccessToken`, {
        body: { apiKey: created.apiKey, apiSecret: created.apiSecret, organisationId: created.organisationId, merchantAccountNumber: created.merchantAccountNumber },
      }),
    ).accessToken as string;
    const path = `${BASE}/merchants/limits/getAll?merchantAccountNumber=${created.merchantAccountNumber}`;
    // Each process verifies the token once (then caches it): warm both before the burst.
    for (const p of api) ok(await call(p.port, 'GET', path, { token }));

    let proven = false;
    const summary: string[] = [];
    for (let round = 0; round < 6 && !proven; round++) {
      // Start at the top of a second, so that the burst has the best chance to fit in one window.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => call(api[i % 2].port, 'GET', path, { token, retry429: false })));
      const windows = new Map<string, { ok: number; refused: number; okByPort: Set<number>; ports: Set<number> }>();
      for (const res of answers) {
        expect([200, 429]).toContain(res.status);
        expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
        const reset = res.headers.get('x-ratelimit-reset')!;
        expect(reset).toMatch(/^\d+$/);
        const w = windows.get(reset) ?? { ok: 0, refused: 0, okByPort: new Set<number>(), ports: new Set<number>() };
        w.ports.add(res.port);
        if (res.status === 200) {
          w.ok += 1;
          w.okByPort.add(res.port);
        } else {
          w.refused += 1;
          expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          const problem = JSON.parse(res.body);
          expect(problem).toMatchObject({ status: 429, errorCode: 'E905' });
          expect(res.headers.get('retry-after')).toBe('1');
          expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
        }
        windows.set(reset, w);
      }
      for (const [reset, w] of windows) {
        // The limit holds across both processes: never more than N in a window.
        expect(w.ok, `window ending ${reset}`).toBeLessThanOrEqual(LIMIT);
        summary.push(`round ${round} window ${reset}: ${w.ok} ok (from ${w.okByPort.size} processes), ${w.refused} x 429`);
        if (w.ok + w.refused > LIMIT) {
          // A window asked for more than N: the rest were refused, and at most the leasing slack
          // (a chunk held unused per process) was lost.
          expect(w.refused).toBeGreaterThan(0);
          expect(w.ok).toBeGreaterThanOrEqual(LIMIT - 2 * CHUNK);
          // Well past N, over both processes: two limits of their own would have let more through.
          if (w.ok + w.refused > LIMIT + 2 * CHUNK && w.ports.size === 2) proven = true;
        }
      }
    }
    console.log(`rate limit: ${summary.join('; ')}`);
    // At least one window got well over N requests, from both processes.
    expect(proven, summary.join('\n')).toBe(true);
  }, 120_000);
});

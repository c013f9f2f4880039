// Crash safety (issue "6/6 Hardening"): the real service, `src/server.ts` (API and worker in one
// process, as `npm start` runs it), SIGKILLed again and again at seeded random moments while
// clients drive payments (E11), requests to pay, top-ups, single payouts and batches through HTTP,
// and a real receiver on 127.0.0.1 takes every webhook. A client treats a broken connection as an
// unknown outcome and sends the same request with the same X-Idempotency-Key again once the
// service is back. After the last restart everything drains, and the test proves: no payout paid
// twice, no retried write took effect twice, no event lost (the receiver may see an event twice:
// at-least-once; duplicates are counted), the ledger balanced to the tambala.
//
// Deterministic in what it attempts: the kill schedule (moment, target phase) and every request
// body come from a seeded PRNG; CRASH_SEED=<n> replays a schedule, CRASH_KILLS=<n> changes the
// number of kills after readiness (default 20, plus 2 during start-up). The interleaving with the
// service is up to the machine.
//
// A write the kill interrupted before its commit left nothing: its idempotency record is written
// with the commit (http/idempotency.ts), so its retry runs at once; one that had committed is
// answered from the record.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../src/lib/free-port.ts';
import { topup } from '../../src/modules/merchants/service.ts';
import { ADMIN_TOKEN, BASE, ledgerInvariants, newMerchant, sleep, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SEED = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : 20_250_606;
const KILLS_AFTER_READY = process.env.CRASH_KILLS ? Number(process.env.CRASH_KILLS) : 20;
const STARTUP_KILLS = 2;
/** The service's database sessions carry this application_name, so the test can tell them apart. */
const APP_NAME = 'crash-safety-server';
const EVENT_CODES = ['payment.success', 'payrequest.success', 'batch.received', 'batch.payout.success', 'batch.payout.failed', 'payout.success', 'payout.failed'];
const INITIAL_TOPUP_MINOR = 20_000_000_00; // MWK 20,000,000.00 per merchant
const BATCH_LINES: [number, number] = [1500, 3000];
const ACTOR = 'ops@crash.mw';

// ---------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32)

type Rng = () => number;
function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const between = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const major = (minor: number) => minor / 100;


// ---------------------------------------------------------------------------------------------
// The webhook receiver: records every request, answers 200 at once

interface Received {
  id: string;
  event: string;
  path: string;
  body: string;
  at: number;
}

class Receiver {
  readonly requests: Received[] = [];
  lastAt = 0;
  port = 0;
  private server: http.Server | undefined;

  async listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.lastAt = Date.now();
        this.requests.push({
          id: String(req.headers['webhook-id']),
          event: String(req.headers['x-onekhusa-webhook-event']),
          path: req.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          at: this.lastAt,
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"received":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// The service as a child process

interface Service {
  child: ChildProcess;
  port: number;
  url: string;
  exited: Promise<void>;
  output: () => string;
}

let t: TestApp;
const receiver = new Receiver();
const children = new Set<ChildProcess>();
/** Everything every service process wrote (LOG_LEVEL warn: warnings and errors only). */
const serviceLog: string[] = [];

async function spawnService(): Promise<Service> {
  const port = await freePort();
  const databaseUrl = new URL(t.deps.config.databaseUrl!);
  databaseUrl.searchParams.set('application_name', APP_NAME);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_MODE: 'sandbox',
    LOG_LEVEL: 'warn',
    JWT_SECRET: t.deps.config.jwtSecret!,
    ADMIN_TOKEN,
    RATE_LIMIT_PER_SECOND: '0',
    WORKER_CONCURRENCY: '4',
    // A killed attempt's delivery is re-claimed when its lease ends: short, so the run stays short.
    WEBHOOK_TIMEOUT_MS: '4000',
    WEBHOOK_LEASE_MS: '6000',
    WEBHOOK_RETRY_SCHEDULE: '0,250ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
    SHUTDOWN_GRACE_MS: '5000',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  const collect = (d: Buffer) => {
    out += d;
    serviceLog.push(String(d));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, port, url: `http://127.0.0.1:${port}`, exited, output: () => out };
}

async function waitReady(s: Service): Promise<void> {
  await until(
    'service ready',
    async () => {
      if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`service exited early: ${s.output()}`);
      return fetch(`${s.url}/health/ready`).then((r) => r.ok).catch(() => false);
    },
    60_000,
    50,
    s.output,
  );
}

/** The service clients talk to; undefined while it is down. Clients wait for the next one. */
let live: Service | undefined;
let waiting: Array<(s: Service) => void> = [];
function setLive(s: Service | undefined): void {
  live = s;
  if (s) for (const resolve of waiting.splice(0)) resolve(s);
}
function liveService(): Promise<Service> {
  return live ? Promise.resolve(live) : new Promise((resolve) => waiting.push(resolve));
}

async function serviceSessions(): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1`, [APP_NAME]);
  return rows[0].n;
}

/** SIGKILL, then wait until PostgreSQL has ended the dead process's sessions (rolling back what they had open). */
async function killHard(s: Service): Promise<void> {
  setLive(undefined);
  s.child.kill('SIGKILL');
  await s.exited;
  await until('dead service sessions gone', async () => (await serviceSessions()) === 0, 60_000, 20);
}

// ---------------------------------------------------------------------------------------------
// Clients: every write carries an idempotency key and is retried until it gets an answer

interface Merchant extends TestMerchant {
  label: string;
  collections: Array<{ key: string; ref: string; amountMinor: number; code: 'BAM' | 'RTP' }>;
  requests: Array<{ key: string; timedAccountNumber: string }>;
  singles: Array<{ key: string; ref: string; amountMinor: number; failing: boolean }>;
  batches: Array<{ key: string; transferKey: string; batchNumber: number; lines: number; failing: number; amountMinor: number }>;
  topups: Array<{ key: string; ref: string; amountMinor: number }>;
  /** Batch submissions not yet transferred. */
  batchOpsRunning: number;
  /** Writes of this merchant running now, and those of them waiting out a key held by a killed request. */
  running: number;
  held: Record<Kind, number>;
}

type Kind = 'payment' | 'initiate' | 'rtpPay' | 'single' | 'topup' | 'batch' | 'transfer';

const stats = {
  operations: 0,
  /** Writes sent more than once (connection lost, or the key still held by a request the kill interrupted). */
  retriedOps: 0,
  /** Extra sends of those writes. */
  resends: 0,
  /** Writes whose connection broke: outcome unknown to the client. */
  unknownOutcome: 0,
  /** Of those, the ones whose retry was answered from the idempotency record: the effect had committed before the kill. */
  replayedAfterUnknown: 0,
  /** 409 E907: the key was still held by a request that died with the process. */
  keyInProgress: 0,
  tokenRefreshes: 0,
  /** 5xx and 429 answers (retried). */
  serverErrors: 0,
};
const inFlight: Record<Kind, number> = { payment: 0, initiate: 0, rtpPay: 0, single: 0, topup: 0, batch: 0, transfer: 0 };

async function refreshToken(m: Merchant, s: Service): Promise<void> {
  const res = await fetch(`${s.url}${BASE}/account/getAccessToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }),
  });
  if (res.ok) {
    m.token = ((await res.json()) as { accessToken: string }).accessToken;
    m.auth = { authorization: `Bearer ${m.token}` };
    stats.tokenRefreshes++;
  }
}

/**
 * One write, exactly as a careful client does it: the same body and key on every attempt; a broken
 * connection or a 5xx is an unknown outcome and is retried; 409 E907 (the key is held by a request
 * still running, or by one that died with the process) is retried with a growing pause; any other
 * answer is final, and anything but 200 fails the test.
 */
async function write<T>(m: Merchant, kind: Kind, route: string, body: object, key: string): Promise<T> {
  stats.operations++;
  let sends = 0;
  let unknown = false;
  let heldAnswers = 0;
  let errorAnswers = 0;
  for (;;) {
    const s = await liveService();
    sends++;
    if (sends === 2) stats.retriedOps++;
    if (sends > 1) stats.resends++;
    let status: number;
    let text: string;
    let replayed: boolean;
    inFlight[kind]++;
    try {
      const res = await fetch(`${s.url}${BASE}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-idempotency-key': key, ...m.auth },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      status = res.status;
      replayed = res.headers.get('idempotent-replayed') === 'true';
      text = await res.text();
    } catch {
      // Connection refused, reset or closed mid-request: the service died. Did the write happen?
      // Only the retry can tell.
      if (!unknown) stats.unknownOutcome++;
      unknown = true;
      await sleep(50);
      continue;
    } finally {
      inFlight[kind]--;
    }
    if (status === 200) {
      if (unknown && replayed) stats.replayedAfterUnknown++;
      return JSON.parse(text) as T;
    }
    if (status === 401) {
      await refreshToken(m, s).catch(() => undefined);
      continue;
    }
    if (status === 409 && text.includes('E907')) {
      // Retry-After: 1, backing off up to 5 s: the first request with this key is still committing.
      stats.keyInProgress++;
      m.held[kind]++;
      await sleep(Math.min(5000, 1000 * 1.5 ** heldAnswers++));
      m.held[kind]--;
      continue;
    }
    if (status >= 500 || status === 429) {
      // Retryable by the contract (a 5xx frees the key), but a service answering 5xx for ever is a bug.
      stats.serverErrors++;
      if (++errorAnswers > 20) throw new Error(`${kind} ${route} (key ${key}): ${status} ${errorAnswers} times, last ${text.slice(0, 500)}`);
      await sleep(200);
      continue;
    }
    throw new Error(`${kind} ${route} (key ${key}): unexpected ${status} ${text.slice(0, 500)}`);
  }
}

const newKey = (kind: string) => `${kind}-${randomUUID()}`;

async function payment(m: Merchant, r: Rng): Promise<void> {
  const key = newKey('pay');
  const amountMinor = between(r, 100_00, 5_000_00);
  const res = await write<{ transaction: { transactionReferenceNumber: string } }>(m, 'payment', '/collections/addFakeCustomPayment', {
    beneficiaryAccountNumber: m.paymentAccountNumber,
    connectorId: r() < 0.5 ? 212188 : 112400,
    transactionAmount: major(amountMinor),
    createdBy: ACTOR,
  }, key);
  m.collections.push({ key, ref: res.transaction.transactionReferenceNumber, amountMinor, code: 'BAM' });
}

async function requestToPay(m: Merchant, r: Rng): Promise<void> {
  const initiateKey = newKey('rtp');
  const amountMinor = between(r, 100_00, 5_000_00);
  const request = await write<{ timedAccountNumber: string }>(m, 'initiate', '/collections/requestToPay/initiate', {
    merchantAccountNumber: m.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    transactionDescription: 'Crash order',
    referenceNumber: `R${initiateKey.replace(/-/g, '').slice(3, 23)}`,
    capturedBy: ACTOR,
  }, initiateKey);
  m.requests.push({ key: initiateKey, timedAccountNumber: request.timedAccountNumber });
  const payKey = newKey('rtppay');
  const res = await write<{ transaction: { transactionReferenceNumber: string } }>(m, 'rtpPay', '/collections/requestToPay/addFakeTransaction', {
    merchantAccountNumber: m.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    connectorId: 112400,
    timedAccountNumber: request.timedAccountNumber,
    currencyCode: 'MWK',
    capturedBy: ACTOR,
  }, payKey);
  m.collections.push({ key: payKey, ref: res.transaction.transactionReferenceNumber, amountMinor, code: 'RTP' });
}

let singleSeq = 0;
async function singlePayout(m: Merchant, r: Rng): Promise<void> {
  const key = newKey('single');
  const n = String(++singleSeq).padStart(6, '0');
  const failing = r() < 0.15;
  const wallet = !failing && r() < 0.5;
  const amountMinor = between(r, 100_00, 600_00);
  const res = await write<{ transactionReferenceNumber: string }>(m, 'single', '/disbursements/single/add', {
    merchantAccountNumber: m.merchantAccountNumber,
    beneficiaryName: `Single ${n}`,
    connectorId: wallet ? 112400 : 212188,
    // Wallets end in 10, banks in 11, and failing ones in 9901 (the sandbox refuses them at once).
    beneficiaryAccountNumber: wallet ? `2659${n}10` : failing ? `100000${n}9901` : `1000${n}11`,
    transactionDescription: 'refund',
    transactionAmount: major(amountMinor),
    sourceReferenceNumber: `S${m.label}-${n}`,
    capturedBy: ACTOR,
  }, key);
  m.singles.push({ key, ref: res.transactionReferenceNumber, amountMinor, failing });
}

async function httpTopup(m: Merchant, r: Rng): Promise<void> {
  const key = newKey('topup');
  const amountMinor = between(r, 10_000_00, 100_000_00);
  const res = await write<{ transactionReferenceNumber: string }>(m, 'topup', '/merchants/accounts/topup', {
    merchantAccountNumber: m.merchantAccountNumber,
    connectorId: 212188,
    topupAmount: major(amountMinor),
    createdBy: ACTOR,
  }, key);
  m.topups.push({ key, ref: res.transactionReferenceNumber, amountMinor });
}

/** Batch lines: wallets end in 10, banks in 11; every 37th line is a bank account the sandbox refuses (9901). */
function batchLines(tag: string, n: number) {
  return Array.from({ length: n }, (_, i) => {
    const amountMinor = 100_00 + (i % 37) * 100 + (i % 100);
    const seq = String(i).padStart(6, '0');
    const common = { beneficiaryName: `Beneficiary ${i}`, transactionAmount: major(amountMinor), sourceReferenceNumber: `${tag}-${i}`, transactionDescription: 'salary' };
    if (i % 37 === 36) return { ...common, connectorId: 212188, beneficiaryAccountNumber: `100000${seq}9901`, amountMinor, failing: true };
    if (i % 2 === 0) return { ...common, connectorId: 112400, beneficiaryAccountNumber: `2658${seq}10`, amountMinor, failing: false };
    return { ...common, connectorId: 212188, beneficiaryAccountNumber: `1000${seq}11`, amountMinor, failing: false };
  });
}

let batchSeq = 0;
/** Submit (E8), wait until validated (P), transferFunds: a batch on its way. */
async function batch(m: Merchant, r: Rng): Promise<void> {
  m.batchOpsRunning++;
  try {
    const key = newKey('batch');
    const tag = `${m.label}${++batchSeq}`;
    const lines = batchLines(tag, between(r, BATCH_LINES[0], BATCH_LINES[1]));
    const accepted = await write<{ batchNumber: number }>(m, 'batch', '/disbursements/batch/addJson', {
      header: { merchantAccountNumber: m.merchantAccountNumber, capturedBy: 'payroll@crash.mw' },
      transactions: lines.map(({ amountMinor: _a, failing: _f, ...line }) => line),
    }, key);
    // Validated by the service's worker; a worker killed mid-validation leaves it Q for the next one.
    await until(`batch ${accepted.batchNumber} validated`, async () => {
      const { rows } = await t.db.query<{ status_code: string }>('select status_code from batches where batch_number = $1', [accepted.batchNumber]);
      if (rows[0].status_code !== 'Q' && rows[0].status_code !== 'P') throw new Error(`batch ${accepted.batchNumber} is ${rows[0].status_code} after validation`);
      return rows[0].status_code === 'P';
    }, 180_000, 100);
    const transferKey = newKey('transfer');
    const transferred = await write<{ BatchStatusCode: string }>(m, 'transfer', '/disbursements/batch/transferFunds', {
      merchantAccountNumber: m.merchantAccountNumber,
      batchNumber: accepted.batchNumber,
      transferredBy: 'finance@crash.mw',
    }, transferKey);
    // The recorded answer says T, even when replayed after the batch has completed.
    expect(transferred.BatchStatusCode).toBe('T');
    m.batches.push({
      key,
      transferKey,
      batchNumber: accepted.batchNumber,
      lines: lines.length,
      failing: lines.filter((l) => l.failing).length,
      amountMinor: lines.reduce((s, l) => s + l.amountMinor, 0),
    });
  } finally {
    m.batchOpsRunning--;
  }
}

// ---------------------------------------------------------------------------------------------
// What is going on in the service at a given instant

interface Phases {
  /** A session of the service inside a payout chunk (lines claimed FOR UPDATE and being updated). */
  chunkOpen: boolean;
  linesInT: number;
  batchesQueued: number;
  batchesTransferring: number;
  deliveriesPending: number;
  deliveriesLeased: number;
  /** The receiver got a request within the last 30 ms: a delivery attempt is under way. */
  deliveringNow: boolean;
  http: Partial<Record<Kind, number>>;
}

async function phasesNow(): Promise<Phases> {
  const { rows } = await t.db.query<{ chunk: number; lines_t: number; q: number; tb: number; pending: number; leased: number }>(
    `select (select count(*)::int from (
               select l.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
                where a.application_name = $1 and l.relation = 'payouts'::regclass and l.granted and l.mode in ('RowShareLock', 'RowExclusiveLock')
                group by l.pid having count(distinct l.mode) = 2) x) as chunk,
            (select count(*)::int from payouts where status_code = 'T') as lines_t,
            (select count(*)::int from batches where status_code = 'Q') as q,
            (select count(*)::int from batches where status_code = 'T') as tb,
            (select count(*)::int from webhook_deliveries where status = 'pending') as pending,
            (select count(*)::int from webhook_deliveries where status = 'pending' and locked_until > now()) as leased`,
    [APP_NAME],
  );
  const row = rows[0];
  const http = Object.fromEntries(Object.entries(inFlight).filter(([, n]) => n > 0)) as Partial<Record<Kind, number>>;
  return {
    chunkOpen: row.chunk > 0,
    linesInT: row.lines_t,
    batchesQueued: row.q,
    batchesTransferring: row.tb,
    deliveriesPending: row.pending,
    deliveriesLeased: row.leased,
    deliveringNow: Date.now() - receiver.lastAt < 30,
    http,
  };
}

function describePhases(p: Phases): string {
  const parts: string[] = [];
  const writes = Object.entries(p.http).map(([k, n]) => `${k} ${n}`);
  if (writes.length) parts.push(`HTTP writes in flight [${writes.join(', ')}]`);
  if (p.chunkOpen) parts.push('payout chunk open');
  if (p.linesInT) parts.push(`${p.linesInT} payout lines T (${p.batchesTransferring} batches T)`);
  if (p.batchesQueued) parts.push(`${p.batchesQueued} batches awaiting validation`);
  if (p.deliveringNow) parts.push('webhook attempt under way');
  if (p.deliveriesPending) parts.push(`${p.deliveriesPending} deliveries pending (${p.deliveriesLeased} leased)`);
  return parts.join('; ') || 'idle';
}

type Target = 'chunk' | 'delivery' | 'http' | 'any' | 'startup';
const hits: Record<'chunk' | 'transferring' | 'delivery' | 'http' | 'validation' | 'startup', number> = { chunk: 0, transferring: 0, delivery: 0, http: 0, validation: 0, startup: 0 };

function targetMet(target: Target, p: Phases): boolean {
  switch (target) {
    case 'chunk':
      return p.chunkOpen && p.batchesTransferring > 0;
    case 'delivery':
      return p.deliveringNow;
    case 'http':
      return Object.keys(p.http).length > 0;
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

/** What must hold at any instant the service is down: balanced ledger, in flight = lines in T, no line attempted twice. */
async function assertAtRest(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  const { rows } = await t.db.query<{ ledger: number; lines: number; twice: number }>(
    `select (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id)
              where a.kind = 'payouts_in_flight' and a.is_system) as ledger,
            (select coalesce(sum(amount_minor + fee_minor), 0)::bigint from payouts where status_code = 'T') as lines,
            (select count(*)::int from payouts where (status_code in ('S', 'F') and attempts <> 1) or (status_code = 'T' and attempts <> 0)) as twice`,
  );
  expect(rows[0].ledger, 'payouts in flight hold exactly the lines still in T').toBe(rows[0].lines);
  expect(rows[0].twice, 'no payout line attempted more than once').toBe(0);
}

async function drained(): Promise<string | undefined> {
  const { rows } = await t.db.query<{ open_batches: number; lines_t: number; pending: number; failed: number; keys: number }>(
    `select (select count(*)::int from batches where status_code <> 'C') as open_batches,
            (select count(*)::int from payouts where status_code = 'T') as lines_t,
            (select count(*)::int from webhook_deliveries where status = 'pending') as pending,
            (select count(*)::int from webhook_deliveries where status = 'failed') as failed,
            (select count(*)::int from idempotency_keys where state <> 'completed') as keys`,
  );
  const r = rows[0];
  if (r.failed > 0) throw new Error(`${r.failed} webhook deliveries failed for good`);
  return r.open_batches + r.lines_t + r.pending + r.keys === 0 ? 'drained' : undefined;
}

// ---------------------------------------------------------------------------------------------

const merchants: Merchant[] = [];

beforeAll(async () => {
  t = await startTestApp();
  await receiver.listen();
  for (const label of ['A', 'B']) {
    const created = await newMerchant(t, { accountName: `Crash Shop ${label}` });
    const held: Record<Kind, number> = { payment: 0, initiate: 0, rtpPay: 0, single: 0, topup: 0, batch: 0, transfer: 0 };
    const m: Merchant = { ...created, label, collections: [], requests: [], singles: [], batches: [], topups: [], batchOpsRunning: 0, running: 0, held };
    await t.db.query('update merchant_limits set daily_limit_minor = 1000000000000 where merchant_account_number = $1', [m.merchantAccountNumber]);
    const funded = await topup(t.deps, { merchantAccountNumber: m.merchantAccountNumber, connectorId: 212188, topupAmountMinor: INITIAL_TOPUP_MINOR, createdBy: ACTOR }, async (_tx, result) => result);
    m.topups.push({ key: 'initial', ref: funded.transactionReferenceNumber, amountMinor: INITIAL_TOPUP_MINOR });
    for (const eventCode of EVENT_CODES) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${BASE}/merchants/webhooks/add`,
        headers: m.auth,
        payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode, callbackUrl: `http://127.0.0.1:${receiver.port}/hooks/${m.merchantAccountNumber}`, capturedBy: ACTOR },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    merchants.push(m);
  }
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all([...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await receiver.close();
  await t?.close();
});

describe('crash safety of the whole service', () => {
  it(`survives ${KILLS_AFTER_READY + STARTUP_KILLS} SIGKILLs under load: no payout paid twice, no duplicate effect, no event lost, the ledger balanced`, { timeout: 600_000 }, async () => {
    const startedAt = Date.now();
    console.info(`crash-safety: seed ${SEED} (CRASH_SEED=${SEED} replays this schedule)`);
    const kills: string[] = [];
    onTestFailed(() => console.info(`crash-safety: seed ${SEED}; kills so far:\n${kills.map((k) => `  ${k}`).join('\n')}`));

    // The schedule: what each kill waits for, drawn before anything runs.
    const plan = rng(SEED);
    const startupAt = new Set<number>();
    while (startupAt.size < STARTUP_KILLS) startupAt.add(between(plan, 1, KILLS_AFTER_READY + STARTUP_KILLS - 1));
    const schedule = Array.from({ length: KILLS_AFTER_READY + STARTUP_KILLS }, (_, i) => {
      if (startupAt.has(i)) return { target: 'startup' as Target, delayMs: between(plan, 300, 2500) };
      const x = plan();
      const target: Target = x < 0.35 ? 'chunk' : x < 0.6 ? 'delivery' : x < 0.8 ? 'http' : 'any';
      return { target, delayMs: between(plan, 150, 1500) };
    });

    // Load: per merchant a stream of payments, requests to pay, single payouts and top-ups, and a
    // stream of batches (at most two in submission and two in transfer at a time). Each write runs
    // on its own until it has its answer, so one waiting for a held key does not stall the others.
    let stopping = false;
    const running = new Set<Promise<void>>();
    const failures: Error[] = [];
    const launch = (p: Promise<void>) => {
      const tracked = p.catch((err: Error) => void failures.push(err)).finally(() => running.delete(tracked));
      running.add(tracked);
    };
    const heldBy = (m: Merchant, kinds: Kind[]) => kinds.reduce((s, k) => s + m.held[k], 0);
    const streams = merchants.flatMap((m, i) => {
      const r = rng(SEED + 1000 * (i + 1));
      const rb = rng(SEED + 1000 * (i + 1) + 7);
      const ops = (async () => {
        while (!stopping) {
          await liveService();
          // At most 24 writes under way at once, not counting those waiting for a held key.
          if (m.running - heldBy(m, ['payment', 'initiate', 'rtpPay', 'single', 'topup']) < 24) {
            const x = r();
            const op = x < 0.35 ? payment(m, r) : x < 0.6 ? requestToPay(m, r) : x < 0.93 ? singlePayout(m, r) : httpTopup(m, r);
            m.running++;
            launch(op.finally(() => m.running--));
          }
          await sleep(between(r, 20, 80));
        }
      })();
      const batches = (async () => {
        while (!stopping) {
          await liveService();
          if (m.batchOpsRunning - heldBy(m, ['batch', 'transfer']) < 2) {
            const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from batches where merchant_account_number = $1 and status_code = 'T'`, [m.merchantAccountNumber]);
            if (rows[0].n < 2) launch(batch(m, rb));
          }
          await sleep(300);
        }
      })();
      return [ops, batches];
    });

    const startups: number[] = [];
    for (const [i, step] of schedule.entries()) {
      const spawnedAt = Date.now();
      const s = await spawnService();
      if (step.target === 'startup') {
        await sleep(step.delayMs);
        const sessions = await serviceSessions();
        hits.startup++;
        await killHard(s);
        kills.push(`#${i + 1} during start-up, ${step.delayMs} ms after spawn (${sessions} database sessions open)`);
      } else {
        await waitReady(s);
        const readyAt = Date.now();
        startups.push(readyAt - spawnedAt);
        setLive(s);
        await sleep(step.delayMs);
        // Then, for up to 2 s, wait for the phase this kill is aimed at.
        const deadline = Date.now() + 2000;
        let phases = await phasesNow();
        while (!targetMet(step.target, phases) && Date.now() < deadline) {
          await sleep(5);
          phases = await phasesNow();
        }
        // The client-side view at the very moment of the kill.
        phases.http = Object.fromEntries(Object.entries(inFlight).filter(([, n]) => n > 0));
        phases.deliveringNow = Date.now() - receiver.lastAt < 30;
        const at = Date.now() - readyAt;
        await killHard(s);
        if (phases.chunkOpen) hits.chunk++;
        if (phases.linesInT) hits.transferring++;
        if (phases.deliveringNow || phases.deliveriesLeased) hits.delivery++;
        if (Object.keys(phases.http).length) hits.http++;
        if (phases.batchesQueued) hits.validation++;
        kills.push(`#${i + 1} aimed at ${step.target}, ${at} ms after ready: ${describePhases(phases)}`);
      }
      // Nothing runs now: the money must be right at rest, after every single crash.
      await assertAtRest();
      if (failures.length) throw failures[0];
    }

    // The last start: the clients finish what they were doing (same keys), everything drains.
    const killedAt = Date.now();
    const last = await spawnService();
    await waitReady(last);
    setLive(last);
    stopping = true;
    await Promise.all(streams);
    while (running.size > 0) await Promise.all([...running]);
    if (failures.length) throw failures[0];
    const clientsDoneAt = Date.now();
    await until('everything drained (batches C, no line T, no delivery pending, no key in progress)', drained, 240_000, 250, () => last.output().slice(-3000));
    const drainedAt = Date.now();
    // The last process shuts down cleanly; what follows reads a database nobody writes to.
    last.child.kill('SIGTERM');
    await last.exited;
    expect(last.child.exitCode, last.output().slice(-2000)).toBe(0);

    // -----------------------------------------------------------------------------------------
    // (1) No payout paid twice
    const numbers = merchants.map((m) => m.merchantAccountNumber);
    await assertAtRest();
    for (const m of merchants) {
      const { rows } = await t.db.query<{ s: number; f: number; other: number; twice: number; s_amount: number; s_fee: number; settled: number; fees: number; settle_s: number; settle_f: number }>(
        `select count(*) filter (where status_code = 'S')::int as s,
                count(*) filter (where status_code = 'F')::int as f,
                count(*) filter (where status_code not in ('S', 'F'))::int as other,
                count(*) filter (where attempts <> 1)::int as twice,
                coalesce(sum(amount_minor) filter (where status_code = 'S'), 0)::bigint as s_amount,
                coalesce(sum(fee_minor) filter (where status_code = 'S'), 0)::bigint as s_fee,
                (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id) join ledger_transfers x using (merchant_account_number, transfer_id)
                  where e.merchant_account_number = $1 and a.kind = 'payouts_settled' and x.transfer_type = 'payout_settle') as settled,
                (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id) join ledger_transfers x using (merchant_account_number, transfer_id)
                  where e.merchant_account_number = $1 and a.kind = 'fees' and x.transfer_type = 'payout_settle') as fees,
                (select coalesce(sum((metadata->>'succeeded')::int), 0)::int from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle') as settle_s,
                (select coalesce(sum((metadata->>'failed')::int), 0)::int from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle') as settle_f
           from payouts where merchant_account_number = $1`,
        [m.merchantAccountNumber],
      );
      const p = rows[0];
      const expectedF = m.batches.reduce((s, b) => s + b.failing, 0) + m.singles.filter((x) => x.failing).length;
      const expectedLines = m.batches.reduce((s, b) => s + b.lines, 0) + m.singles.length;
      expect({ other: p.other, twice: p.twice }, `merchant ${m.label}: every payout final, attempted exactly once`).toEqual({ other: 0, twice: 0 });
      expect({ s: p.s, f: p.f }).toEqual({ s: expectedLines - expectedF, f: expectedF });
      expect({ settled: p.settled, fees: p.fees }, 'settled amounts and fees are exactly those of the S lines').toEqual({ settled: p.s_amount, fees: p.s_fee });
      expect({ s: p.settle_s, f: p.settle_f }, 'each line settled in exactly one chunk').toEqual({ s: p.s, f: p.f });
      // Each batch: C, counters matching its lines.
      const { rows: batchRows } = await t.db.query<{ batch_number: number; status_code: string; matches: boolean }>(
        `select b.batch_number, b.status_code,
                b.number_of_successful_entries = s.n and b.successful_amount_minor = s.amount
                  and b.number_of_failed_entries = f.n and b.failed_amount_minor = f.amount as matches
           from batches b,
                lateral (select count(*)::int as n, coalesce(sum(amount_minor), 0)::bigint as amount from payouts where batch_number = b.batch_number and status_code = 'S') s,
                lateral (select count(*)::int as n, coalesce(sum(amount_minor), 0)::bigint as amount from payouts where batch_number = b.batch_number and status_code = 'F') f
          where b.merchant_account_number = $1`,
        [m.merchantAccountNumber],
      );
      for (const b of batchRows) expect(b, `batch ${b.batch_number}`).toEqual({ batch_number: b.batch_number, status_code: 'C', matches: true });
    }

    // (2) No duplicate effect from retried writes: one effect per idempotency key, exactly.
    let duplicateEffects = 0;
    let lostWrites = 0;
    const compare = (what: string, clientSide: string[], dbSide: string[]) => {
      const client = new Set(clientSide);
      const db = new Map<string, number>();
      for (const x of dbSide) db.set(x, (db.get(x) ?? 0) + 1);
      const dup = dbSide.length - db.size + [...db.keys()].filter((x) => !client.has(x)).length;
      const lost = [...client].filter((x) => !db.has(x)).length;
      duplicateEffects += dup;
      lostWrites += lost;
      expect(client.size, `${what}: one result per key`).toBe(clientSide.length);
      expect({ what, duplicates: dup, missing: lost, count: dbSide.length }).toEqual({ what, duplicates: 0, missing: 0, count: clientSide.length });
    };
    for (const m of merchants) {
      const q = async (sql: string) => (await t.db.query<{ x: string }>(sql, [m.merchantAccountNumber])).rows.map((r) => String(r.x).trim());
      compare(`${m.label} collections`, m.collections.map((c) => c.ref), await q('select transaction_reference_number as x from collections where merchant_account_number = $1'));
      compare(`${m.label} requests to pay`, m.requests.map((c) => c.timedAccountNumber), await q(`select timed_account_number as x from payment_requests where merchant_account_number = $1`));
      compare(`${m.label} single payouts`, m.singles.map((c) => c.ref), await q('select transaction_reference_number as x from payouts where merchant_account_number = $1 and batch_number is null'));
      compare(`${m.label} batches`, m.batches.map((b) => String(b.batchNumber)), await q('select batch_number as x from batches where merchant_account_number = $1'));
      compare(`${m.label} top-ups`, m.topups.map((c) => c.ref), await q(`select reference as x from ledger_transfers where merchant_account_number = $1 and transfer_type = 'topup'`));
      // One debit per batch transfer and per single payout, of exactly its lines' amounts and fees.
      compare(
        `${m.label} payout debits`,
        [...m.batches.map((b) => `B${b.batchNumber}`), ...m.singles.map((x) => x.ref)],
        await q(`select reference as x from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_debit'`),
      );
      const { rows: debits } = await t.db.query<{ n: number }>(
        `select count(*)::int as n from (
           select x.reference, sum(e.amount_minor) as debit from ledger_transfers x join ledger_entries e using (merchant_account_number, transfer_id) join ledger_accounts a using (merchant_account_number, account_id)
            where x.merchant_account_number = $1 and x.transfer_type = 'payout_debit' and a.kind = 'payouts_in_flight' group by x.transfer_id, x.reference) d
          full join (select coalesce('B' || batch_number, transaction_reference_number::text) as reference, sum(amount_minor + fee_minor) as owed
                       from payouts where merchant_account_number = $1 group by 1) p using (reference)
         where d.debit is distinct from p.owed`,
        [m.merchantAccountNumber],
      );
      expect(debits[0].n, `${m.label}: every debit equals its lines' amounts and fees`).toBe(0);
      const { rows: paid } = await t.db.query<{ n: number }>(`select count(*)::int as n from payment_requests where merchant_account_number = $1 and status_code <> 'P'`, [m.merchantAccountNumber]);
      expect(paid[0].n, `${m.label}: every request to pay paid`).toBe(0);
      // Amounts: what the clients asked for, to the tambala.
      const { rows: sums } = await t.db.query<{ collected: number; singles: number; batches: number }>(
        `select (select coalesce(sum(amount_minor), 0)::bigint from collections where merchant_account_number = $1) as collected,
                (select coalesce(sum(amount_minor), 0)::bigint from payouts where merchant_account_number = $1 and batch_number is null) as singles,
                (select coalesce(sum(amount_minor), 0)::bigint from payouts where merchant_account_number = $1 and batch_number is not null) as batches`,
        [m.merchantAccountNumber],
      );
      expect(sums[0]).toEqual({
        collected: m.collections.reduce((s, c) => s + c.amountMinor, 0),
        singles: m.singles.reduce((s, c) => s + c.amountMinor, 0),
        batches: m.batches.reduce((s, c) => s + c.amountMinor, 0),
      });
    }
    const { rows: keys } = await t.db.query<{ n: number }>(`select count(*)::int as n from idempotency_keys where merchant_account_number = any($1) and state = 'completed'`, [numbers]);
    const keysUsed = merchants.reduce((s, m) => s + m.collections.length + m.requests.length + m.singles.length + 2 * m.batches.length + m.topups.length - 1, 0);
    expect(keys[0].n, 'one completed idempotency record per write').toBe(keysUsed);

    // (3) No event lost. Every collection and payout line has its event (exactly one), every
    // event its delivery (one subscription per code), every delivery succeeded, and the receiver
    // got each one, byte for byte, at least once.
    const { rows: missingEvents } = await t.db.query<{ what: string; ref: string; n: number }>(
      `select 'collection' as what, c.transaction_reference_number as ref, count(e.event_id)::int as n
         from collections c left join outbox_events e
           on e.merchant_account_number = c.merchant_account_number
          and e.event_code = case c.transaction_code when 'RTP' then 'payrequest.success' else 'payment.success' end
          and e.payload->>'transactionReferenceNumber' = c.transaction_reference_number
        where c.merchant_account_number = any($1) group by 1, 2 having count(e.event_id) <> 1
       union all
       select 'payout', p.transaction_reference_number, count(ev.event_id)::int
         from payouts p left join (
                select e.event_id, e.event_code, t->>'transactionReferenceNumber' as ref, t->>'transactionStatusCode' as status
                  from outbox_events e cross join lateral json_array_elements(e.payload->'transactions') t
                 where e.merchant_account_number = any($1) and e.event_code in ('batch.payout.success', 'batch.payout.failed', 'payout.success', 'payout.failed')) ev
           on ev.ref = p.transaction_reference_number and ev.status = p.status_code
          and ev.event_code = (case when p.batch_number is null then 'payout.' else 'batch.payout.' end) || case p.status_code when 'S' then 'success' else 'failed' end
        where p.merchant_account_number = any($1) group by 1, 2 having count(ev.event_id) <> 1
       union all
       select 'batch', b.batch_number::text, count(e.event_id)::int
         from batches b left join outbox_events e
           on e.event_code = 'batch.received' and (e.payload->'metaData'->>'batchNumber')::int = b.batch_number
        where b.merchant_account_number = any($1) group by 1, 2 having count(e.event_id) <> 1`,
      [numbers],
    );
    const { rows: payoutEventLines } = await t.db.query<{ n: number }>(
      `select count(*)::int as n from outbox_events e cross join lateral json_array_elements(e.payload->'transactions') t
        where e.merchant_account_number = any($1) and e.event_code like '%payout.%'`,
      [numbers],
    );
    const { rows: deliveries } = await t.db.query<{ message_id: string; event_id: number; event_code: string; merchant_account_number: number; status: string; payload: string; n: number }>(
      `select d.message_id, e.event_id, e.event_code, e.merchant_account_number, d.status, e.payload::text as payload,
              count(*) over (partition by e.event_id)::int as n
         from outbox_events e left join webhook_deliveries d on d.event_id = e.event_id
        where e.merchant_account_number = any($1)`,
      [numbers],
    );
    const byId = new Map(deliveries.map((d) => [d.message_id, d]));
    const receivedIds = new Map<string, number>();
    const receivedRefs = new Set<string>();
    for (const req of receiver.requests) {
      receivedIds.set(req.id, (receivedIds.get(req.id) ?? 0) + 1);
      const d = byId.get(req.id);
      expect(d, `the receiver got webhook-id ${req.id}, which no delivery has`).toBeDefined();
      expect({ event: req.event, path: req.path, body: req.body }).toEqual({ event: d!.event_code, path: `/hooks/${d!.merchant_account_number}`, body: d!.payload });
      const body = JSON.parse(req.body) as { transactionReferenceNumber?: string; transactions?: Array<{ transactionReferenceNumber: string }>; metaData?: { batchNumber?: string } };
      if (body.transactionReferenceNumber) receivedRefs.add(body.transactionReferenceNumber);
      for (const line of body.transactions ?? []) receivedRefs.add(line.transactionReferenceNumber);
      if (body.metaData?.batchNumber) receivedRefs.add(`batch:${body.metaData.batchNumber}`);
    }
    const notDelivered = deliveries.filter((d) => d.n !== 1 || d.status !== 'succeeded' || !receivedIds.has(d.message_id));
    const { rows: everything } = await t.db.query<{ x: string }>(
      `select transaction_reference_number as x from collections where merchant_account_number = any($1)
       union all select transaction_reference_number from payouts where merchant_account_number = any($1)
       union all select 'batch:' || batch_number from batches where merchant_account_number = any($1)`,
      [numbers],
    );
    const notSeenByRef = everything.filter((r) => !receivedRefs.has(r.x.trim()));
    const lostEvents = missingEvents.length + notDelivered.length + notSeenByRef.length;
    const totalLines = merchants.reduce((s, m) => s + m.batches.reduce((x, b) => x + b.lines, 0) + m.singles.length, 0);
    const receiverDuplicates = receiver.requests.length - receivedIds.size;
    expect(missingEvents, 'every collection, payout line and batch has exactly one event').toEqual([]);
    expect(payoutEventLines[0].n, 'payout events name each line once').toBe(totalLines);
    expect(notDelivered.map((d) => `${d.event_code} ${d.event_id} ${d.status} x${d.n}`), 'every event delivered to the receiver').toEqual([]);
    expect(notSeenByRef.map((r) => r.x), 'the receiver saw every reference').toEqual([]);

    // (4) The ledger balanced: every account, every merchant, every system account, to the tambala.
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
    for (const m of merchants) {
      const { rows } = await t.db.query<{ disbursement: number; collection: number; paid: number; collected: number }>(
        `select (select balance_minor from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement') as disbursement,
                (select balance_minor from ledger_accounts where merchant_account_number = $1 and kind = 'collection') as collection,
                (select coalesce(sum(amount_minor + fee_minor), 0)::bigint from payouts where merchant_account_number = $1 and status_code = 'S') as paid,
                (select coalesce(sum(amount_minor - fee_minor), 0)::bigint from collections where merchant_account_number = $1) as collected`,
        [m.merchantAccountNumber],
      );
      const topups = m.topups.reduce((s, x) => s + x.amountMinor, 0);
      // Top-ups less successful payouts and their fees (failed ones refunded in full); collections less their fees.
      expect({ disbursement: rows[0].disbursement, collection: rows[0].collection }, `merchant ${m.label} balances`).toEqual({ disbursement: topups - rows[0].paid, collection: rows[0].collected });
    }
    const { rows: system } = await t.db.query<{ kind: string; total: number }>(
      `select a.kind, coalesce(sum(e.amount_minor), 0)::bigint as total from ledger_accounts a left join ledger_entries e using (merchant_account_number, account_id)
        where a.is_system group by a.kind`,
    );
    const { rows: expected } = await t.db.query<{ collected: number; collection_fees: number; settled: number; payout_fees: number }>(
      `select (select coalesce(sum(amount_minor), 0)::bigint from collections) as collected,
              (select coalesce(sum(fee_minor), 0)::bigint from collections) as collection_fees,
              (select coalesce(sum(amount_minor), 0)::bigint from payouts where status_code = 'S') as settled,
              (select coalesce(sum(fee_minor), 0)::bigint from payouts where status_code = 'S') as payout_fees`,
    );
    const allTopups = merchants.reduce((s, m) => s + m.topups.reduce((x, y) => x + y.amountMinor, 0), 0);
    const e = expected[0];
    // Each kind's service-wide position is the sum of the merchants' own rows (migration 0029); a
    // kind no merchant ever posted to has no row yet, and stands at zero.
    expect({ bank_settlement: 0, rail_in_flight: 0, ...Object.fromEntries(system.map((a) => [a.kind, a.total])) }).toEqual({
      funding: -allTopups,
      bank_settlement: 0,
      customer_payments: -e.collected,
      fees: e.collection_fees + e.payout_fees,
      payouts_settled: e.settled,
      payouts_in_flight: 0,
      // No connector goes over a real rail here: its in-flight account never moved.
      rail_in_flight: 0,
    });

    const jobErrors = await t.db
      .query<{ n: number }>('select count(*)::int as n from graphile_worker.jobs where last_error is not null')
      .then((r) => String(r.rows[0].n), (err: Error) => `unknown (${err.message})`);
    const errors = serviceLog.join('').split('\n').filter((l) => /"level":(50|60)/.test(l));
    const count = (f: (m: Merchant) => number) => merchants.reduce((s, m) => s + f(m), 0);
    console.info(
      [
        `crash-safety: seed ${SEED}; ${kills.length} kills survived (${KILLS_AFTER_READY} after readiness, ${STARTUP_KILLS} during start-up); total ${Math.round((drainedAt - startedAt) / 1000)} s`,
        ...kills.map((k) => `  kill ${k}`),
        `  service start to ready: ${Math.min(...startups)}–${Math.max(...startups)} ms (mean ${Math.round(startups.reduce((a, b) => a + b, 0) / startups.length)} ms)`,
        `  kills landed with: a payout chunk open ${hits.chunk}, payout lines in T ${hits.transferring}, webhook delivery under way or leased ${hits.delivery}, HTTP writes in flight ${hits.http}, batches awaiting validation ${hits.validation}, start-up ${hits.startup}`,
        `  load: ${stats.operations} writes — ${count((m) => m.collections.filter((c) => c.code === 'BAM').length)} payments, ${count((m) => m.requests.length)} requests to pay, ${count((m) => m.singles.length)} single payouts, ${count((m) => m.batches.length)} batches (${count((m) => m.batches.reduce((s, b) => s + b.lines, 0))} lines), ${count((m) => m.topups.length - 1)} top-ups`,
        `  retried writes ${stats.retriedOps} (${stats.resends} resends): outcome unknown after a kill ${stats.unknownOutcome}, of which already committed (answered from the idempotency record) ${stats.replayedAfterUnknown}; 409 key-in-progress answers ${stats.keyInProgress}; 5xx/429 answers ${stats.serverErrors}; token refreshes ${stats.tokenRefreshes}`,
        `  duplicate effects ${duplicateEffects}, lost writes ${lostWrites}, lost events ${lostEvents}`,
        `  webhooks: ${receivedIds.size} events received, ${receiver.requests.length} requests, duplicates at the receiver ${receiverDuplicates} (at-least-once)`,
        `  after the last kill: clients done in ${Math.round((clientsDoneAt - killedAt) / 1000)} s, drained ${Math.round((drainedAt - clientsDoneAt) / 1000)} s later; service error lines logged: ${errors.length}; queue jobs with an error recorded: ${jobErrors}`,
        ...errors.slice(0, 5).map((l) => `    ${l.slice(0, 300)}`),
      ].join('\n'),
    );
    expect(duplicateEffects).toBe(0);
    expect(lostWrites).toBe(0);
    expect(lostEvents).toBe(0);
  });
});

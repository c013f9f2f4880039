// `BENCH_ONLY=rails-inbound npm run bench` (and part of the default run): payments INTO timed
// accounts over Mojaloop (issue 25, our DFSP as the payee), each made by a payer DFSP as the FSPIOP
// API has it: GET /parties/ACCOUNT_ID/{timed account}, POST /quotes, POST /transfers (FSPIOP 1.1:
// we answer RESERVED with the fulfilment), then the switch's PATCH /transfers/{id} COMMITTED,
// which credits the account (collection, ledger, outbox event payrequest.success) in the PATCH's
// own transaction; the merchant's webhook receiver then gets payrequest.success.
//
// The service runs as `npm start` runs it (bench/lib/service.ts: API and worker, the webhook
// dispatcher included, in one process) with the Mojaloop rail for connector 112400, no TLS and no
// signatures (sandbox: /fspiop on the service's own port), MOJALOOP_CALLBACK_SECONDS 60 (the payee
// sweep asks the switch only about a transfer whose PATCH is that late) and TIMED_ACCOUNT_MINUTES
// 120 (so a large BENCH_RAILS_INBOUND_PAYMENTS never outlives its accounts); the rest at npm
// start's defaults, the merchant API's rate limit (50/s per merchant) included: the timed accounts
// are opened at 40/s per merchant. Level-1 merchants, each with one webhook subscription (POST
// /merchants/webhooks/add, payrequest.success) to a node:http receiver in this process that
// answers 204 at once.
//
// Two payers, each on BENCH_RAILS_INBOUND_PAYMENTS (default 200) fresh timed accounts per run (E12
// through the API, amounts MWK 100–999), on one database, the service restarted between them:
//   viaTtk   the Mojaloop Testing Toolkit as the payer DFSP and the switch (test/ttk/payer.ts: each
//            FSPIOP request is a one-request template run by TTK's outbound runner, which waits
//            for our callback on its FSPIOP port; MOJALOOP_SWITCH_URL is TTK), the PATCH sent by
//            TTK with fspiop-source `switch`. BENCH_RAILS_INBOUND_TTK_CONCURRENCY payments at once
//            (default 16).
//   direct   this process as the payer DFSP (undici, keep-alive) against /fspiop, and a bare
//            node:http server standing in for the switch (MOJALOOP_SWITCH_URL): it takes our
//            callbacks (200) and hands them to the waiting payer. BENCH_RAILS_INBOUND_CONCURRENCY
//            payments at once (default 16). What the service can do without TTK's runner.
// Each payer runs twice: every payment to one merchant (one shop's busy till: viaTtk, direct),
// then the payments spread over BENCH_RAILS_INBOUND_SPREAD_MERCHANTS (default 8) other merchants
// in turn (spread.viaTtk, spread.direct). A merchant's transfers take turns on its row of
// merchant_limits (the daily limit is judged under that lock in POST /transfers's transaction),
// so one merchant's rate is bound by how long that transaction holds it; spread, that bound is 8
// times further away.
// Each run: 3 warm-up payments, then (one merchant only) ALONE_PAYMENTS (10) one at a time, each
// with its webhook before the next (alone: the floor), then the N at once. Measured:
//   paymentsPerSecond  N ÷ (first lookup sent → last PATCH answered); webhooksDoneSeconds: the
//                      same start → the last webhook.
//   stepMs             per payment, p50 / p95 / max: lookup (GET sent → our PUT /parties
//                      arrived), quote (POST → our PUT /quotes), transfer (POST → our PUT
//                      /transfers with the fulfilment), patchToCredited (PATCH sent → our 200: the
//                      credit is in the PATCH's transaction), payment (the four in sequence).
//                      viaTtk: as TTK timed them (its report's runDurationMs per request: from its
//                      runner starting the request to our callback taken); ttkRunnerWallMs: the
//                      same steps seen from this process (TTK's admin API, template set-up and
//                      report included).
//   commitToWebhookMs  per payment, p50 / p95 / max: the credit's commit → the payrequest.success
//                      webhook arriving at the receiver, both on this process's clock. The commit
//                      is when a LISTEN here hears the credit's NOTIFY to the webhook dispatcher
//                      (PostgreSQL delivers it at commit, to the dispatcher and here alike).
//   patchAnsweredToWebhookMs  our 200 to the PATCH read by the payer → the webhook's arrival
//                      (direct: this process's clock; viaTtk: TTK's record of the PATCH's end,
//                      Date.now() in TTK, ms steps, just after it read our 200 → Date.now() here).
//                      Negative when the webhook comes first: after the credit commits, the
//                      PATCH's route still writes two records (rail_transfer_reports,
//                      rail_messages) in transactions of their own before it answers.
//   patchSentToWebhookMs  the PATCH sent → the webhook's arrival: the switch's word to the
//                      merchant knowing, lock waits included.
//   commitsHeard       payments whose commit the LISTEN heard (all, unless a NOTIFY was lost).
//   cpu, peakRssMb     over the concurrent run: percent of one core and CPU ms per payment of the
//                      service, TTK, PostgreSQL (exited backends included), this process; peak
//                      resident sets of the service and TTK.
//   databaseActivity   the service's busy sessions sampled every 200 ms: what they wait for.
//   rowsReadPerPayment the five tables (sequential scans) or indexes read most over the run, in
//                      rows per payment (pg_stat_user_tables, pg_stat_user_indexes).
//   messages           FSPIOP messages the service kept per collection (lookups are not kept:
//                      POST /quotes, POST /transfers, PATCH in, PUT /quotes, PUT /transfers out:
//                      5 when nothing is sent twice); standInUnexpected: requests the stand-in
//                      got that no payer waited for (the payee sweep's GET /transfers/{id}).
// checks (after all runs): every timed account of the bench's merchants paid (P) and credited
// exactly once (one collection), every rail_collections row committed, one payrequest.success
// event per payment, one webhook per payment at the receiver (distinct webhook-id; duplicates
// counted), and `ledger verify` (verifyLedger) clean. A failed check is reported (allPassed
// false) and logged, not thrown: the figures are then not to be quoted.
// About 65 s at the default size on the 2-core machine (4 minutes at 1,000 payments); the figures
// and where their time goes: docs/performance.md, "Payments into timed accounts over a payment rail".
// Nothing here is a target: the figures are reported for reading.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { Agent, request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { DELIVERY_CHANNEL } from '../../src/jobs/outbox.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { createMerchant, type MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { ensureTtkInstalled, startTtk, Ttk, type RunningTtk } from '../../test/ttk/harness.ts';
import { fspiopRequest, quoteRequestBody, resultOf, runTemplate, transferRequestBody, type FspiopRequest, type PayerResult, type TtkTemplate } from '../../test/ttk/payer.ts';
import { Api } from '../lib/api.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { cpuSample, findPostmaster, processCpuMs } from '../lib/cpu.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { credentialsOf } from '../lib/merchants.ts';
import { ActivitySampler } from '../lib/activity.ts';
import { RssSampler } from '../lib/memory.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { median, percentileOf } from '../lib/stats.ts';

function intFromEnv(name: string, fallback: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new Error(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  return Number(raw);
}

const PAYMENTS = intFromEnv('BENCH_RAILS_INBOUND_PAYMENTS', 200, 100_000);
const DIRECT_CONCURRENCY = intFromEnv('BENCH_RAILS_INBOUND_CONCURRENCY', 16, 1024);
const TTK_CONCURRENCY = intFromEnv('BENCH_RAILS_INBOUND_TTK_CONCURRENCY', 16, 1024);
const SPREAD_MERCHANTS = intFromEnv('BENCH_RAILS_INBOUND_SPREAD_MERCHANTS', 8, 64);
const WARMUP_PAYMENTS = 3;
const ALONE_PAYMENTS = 10;
const FSP_ID = 'onekhusadfsp';
const PAYER_FSP = 'payerfsp';
const SWITCH_FSP = 'switch';
const CONNECTOR_ID = 112400;
const PAYER = { type: 'MSISDN', id: '265991234567', fspId: PAYER_FSP, name: 'Chisomo Banda' };
const CALLBACK_SECONDS = 60;
const TRANSFER_EXPIRY_SECONDS = 300;
const TIMED_ACCOUNT_MINUTES = 120;
/** The merchant API's default limit is 50 requests/s per merchant: the accounts are opened below it. */
const OPEN_PER_SECOND = 40;
const STEP_TIMEOUT_MS = 30_000;
const WEBHOOK_WAIT_MS = 60_000;
const PROGRESS_EVERY_MS = 15_000;
const TTK_LOG_LEVEL = process.env.TTK_LOG_LEVEL?.trim() || 'error';

const percentileMs = (values: number[], q: number) => (values.length === 0 ? null : round1(percentileOf(values, q)));
const spread = (values: number[]) => ({ p50: percentileMs(values, 50), p95: percentileMs(values, 95), max: values.length === 0 ? null : round1(Math.max(...values)) });

// ---------------------------------------------------------------------------------------------
// The merchant's webhook receiver.

interface Arrival {
  perf: number;
  epoch: number;
}

/** Answers 204 at once; the first arrival per timed account (payload metaData.timedAccountNumber). */
class WebhookReceiver {
  private readonly server: http.Server;
  hits = 0;
  readonly ids = new Set<string>();
  readonly arrivals = new Map<string, Arrival>();
  readonly events = new Map<string, number>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const arrival = { perf: performance.now(), epoch: Date.now() };
        res.writeHead(204).end();
        this.hits += 1;
        this.ids.add(String(req.headers['webhook-id']));
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventCode?: string; metaData?: { timedAccountNumber?: string } };
          this.events.set(String(body.eventCode), (this.events.get(String(body.eventCode)) ?? 0) + 1);
          const account = body.metaData?.timedAccountNumber;
          if (account !== undefined && !this.arrivals.has(account)) this.arrivals.set(account, arrival);
        } catch {
          this.events.set('(not JSON)', (this.events.get('(not JSON)') ?? 0) + 1);
        }
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/payrequest`;
  }

  /** Waits until every one of `accounts` has its webhook; the time the last one came. */
  async allOf(accounts: string[], timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const missing = accounts.filter((a) => !this.arrivals.has(a)).length;
      if (missing === 0) return Math.max(...accounts.map((a) => this.arrivals.get(a)!.perf));
      if (performance.now() > deadline) {
        log(`rails-inbound: ${missing} of ${accounts.length} webhooks still missing after ${timeoutMs} ms`);
        return Number.NaN;
      }
      await sleep(20);
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * When each credit committed: the service's credit transaction NOTIFYs the webhook dispatcher
 * (DELIVERY_CHANNEL, payload the event id) and PostgreSQL delivers a NOTIFY at commit, so a
 * LISTEN here hears it when the dispatcher does. The event's payload names the timed account.
 */
class CommitListener {
  private readonly client: pg.Client;
  private readonly heard = new Map<string, number>();

  constructor(databaseUrl: string) {
    this.client = new pg.Client({ connectionString: databaseUrl });
  }

  async start(): Promise<void> {
    await this.client.connect();
    this.client.on('notification', (n) => {
      const at = performance.now();
      if (n.channel === DELIVERY_CHANNEL && n.payload && !this.heard.has(n.payload)) this.heard.set(n.payload, at);
    });
    await this.client.query(`listen ${DELIVERY_CHANNEL}`);
  }

  /** performance.now() of each credit's commit, by timed account. */
  async byAccount(db: Db): Promise<Map<string, number>> {
    const { rows } = await db.query<{ event_id: string; account: string | null }>(
      `select event_id::text as event_id, payload->'metaData'->>'timedAccountNumber' as account from outbox_events where event_id = any($1::bigint[])`,
      [[...this.heard.keys()]],
    );
    return new Map(rows.filter((r) => r.account !== null).map((r) => [r.account!, this.heard.get(r.event_id)!]));
  }

  stop(): Promise<void> {
    return this.client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// A payment, as a payer DFSP makes it.

interface Account {
  number: string;
  amountMajor: number;
}

interface Payment {
  account: string;
  lookupMs: number;
  quoteMs: number;
  transferMs: number;
  patchMs: number;
  /** When the PATCH was sent: performance.now() here (viaTtk: when this process asked TTK to send it). */
  patchSentAt: number;
  /** When the PATCH's 200 was read: performance.now() here (direct), or TTK's Date.now() (viaTtk). */
  patchAnsweredAt: number;
  /** viaTtk: the same four steps seen from this process (TTK's runner and admin API included). */
  wall?: { lookupMs: number; quoteMs: number; transferMs: number; patchMs: number };
}

type Payer = (account: Account) => Promise<Payment>;

function quoteBodyFor(account: Account) {
  return quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: account.number, fspId: FSP_ID }, amount: String(account.amountMajor), currency: 'MWK' });
}

// ---- through TTK ----

/** One FSPIOP request through TTK's outbound runner (test/ttk/payer.ts's sendFspiop, without its config read per call). */
async function ttkStep(ttk: Ttk, r: FspiopRequest, what: string) {
  const t0 = performance.now();
  const request = fspiopRequest(r);
  const expectCallback = r.expectCallback !== false;
  const template: TtkTemplate = { name: `bench ${request.description}`, inputValues: {}, test_cases: [{ id: 1, name: String(request.description), requests: [request] }] };
  const report = await runTemplate(ttk, template, { timeoutMs: STEP_TIMEOUT_MS });
  const wallMs = performance.now() - t0;
  const item = report.test_cases[0]?.requests[0];
  if (!item) throw new Error(`${what}: TTK's report has no request`);
  const result: PayerResult = resultOf(item, expectCallback, undefined, wallMs);
  const status = expectCallback ? 202 : 200;
  if (result.error || result.status !== status || (expectCallback && (!result.callback || result.callback.error))) {
    throw new Error(`${what}: ${JSON.stringify({ status: result.status, error: result.error, callback: result.callback?.body }).slice(0, 400)}`);
  }
  const runMs = item.testResult?.runDurationMs ?? wallMs;
  return { result, wallMs, runMs, completedTS: item.testResult?.completedTS ?? Date.now() };
}

function ttkPayer(ttk: Ttk, fspiopBase: string): Payer {
  const payer = { baseUrl: fspiopBase, source: PAYER_FSP, destination: FSP_ID, version: '1.1' as const };
  return async (account) => {
    const lookup = await ttkStep(ttk, { ...payer, method: 'get', path: `/parties/ACCOUNT_ID/${account.number}` }, `lookup ${account.number}`);
    const quoteBody = quoteBodyFor(account);
    const quote = await ttkStep(ttk, { ...payer, method: 'post', path: '/quotes', body: quoteBody }, `quote ${account.number}`);
    const transferBody = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: quote.result.callback!.body, transferId: quoteBody.transactionId, expiration: new Date(Date.now() + TRANSFER_EXPIRY_SECONDS * 1000).toISOString() });
    const transfer = await ttkStep(ttk, { ...payer, method: 'post', path: '/transfers', body: transferBody }, `transfer ${account.number}`);
    if (transfer.result.callback!.body?.transferState !== 'RESERVED') throw new Error(`transfer ${account.number}: ${JSON.stringify(transfer.result.callback!.body).slice(0, 300)}`);
    const patchSentAt = performance.now();
    const patch = await ttkStep(
      ttk,
      { ...payer, source: SWITCH_FSP, method: 'patch', path: `/transfers/${transferBody.transferId}`, expectCallback: false, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } },
      `PATCH ${account.number}`,
    );
    return {
      account: account.number,
      lookupMs: lookup.runMs,
      quoteMs: quote.runMs,
      transferMs: transfer.runMs,
      patchMs: patch.runMs,
      patchSentAt,
      patchAnsweredAt: patch.completedTS,
      wall: { lookupMs: lookup.wallMs, quoteMs: quote.wallMs, transferMs: transfer.wallMs, patchMs: patch.wallMs },
    };
  };
}

// ---- directly, with a stand-in for the switch ----

/** The switch's FSPIOP port as far as our callbacks go: each PUT answered 200 and handed to the payer waiting for its path. */
class SwitchStandIn {
  private readonly server: http.Server;
  private readonly waiting = new Map<string, (arrival: { at: number; error: boolean; body: Record<string, unknown> }) => void>();
  /** Anything else (a GET /transfers/{id} of the payee sweep, a callback nobody waits for). */
  readonly unexpected = new Map<string, number>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const url = req.url ?? '';
        const error = url.endsWith('/error');
        const path = error ? url.slice(0, -'/error'.length) : url;
        const waiter = req.method === 'PUT' ? this.waiting.get(path) : undefined;
        res.writeHead(req.method === 'PUT' ? 200 : 202).end();
        if (!waiter) {
          const kind = `${req.method} ${url.split('/').slice(0, 2).join('/')}`;
          this.unexpected.set(kind, (this.unexpected.get(kind) ?? 0) + 1);
          return;
        }
        this.waiting.delete(path);
        waiter({ at, error, body: chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {} });
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Our callback to `path` or `path`/error (registered before the request goes out). */
  expect(path: string): Promise<{ at: number; error: boolean; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(path);
        reject(new Error(`no callback to ${path} within ${STEP_TIMEOUT_MS} ms`));
      }, STEP_TIMEOUT_MS);
      this.waiting.set(path, (arrival) => {
        clearTimeout(timer);
        resolve(arrival);
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The headers a payer DFSP (or, for the PATCH, the switch) sends us, FSPIOP 1.1, unsigned. */
function fspiopHeaders(method: string, resource: string, source: string): Record<string, string> {
  const type = `application/vnd.interoperability.${resource}+json;version=1.1`;
  const headers: Record<string, string> = { date: new Date().toUTCString(), 'fspiop-source': source, 'fspiop-destination': FSP_ID };
  // Our gate wants a content type on a GET too (as TTK's collections send it).
  headers['content-type'] = type;
  if (method === 'GET' || method === 'POST') headers.accept = type;
  return headers;
}

async function directStep(agent: Agent, fspiopBase: string, sink: SwitchStandIn, r: { method: 'GET' | 'POST' | 'PATCH'; path: string; resource: string; source: string; body?: object; callbackPath?: string }, what: string) {
  const arrival = r.callbackPath ? sink.expect(r.callbackPath) : undefined;
  // A refused request's callback never comes: its rejection is not left unhandled.
  arrival?.catch(() => undefined);
  const t0 = performance.now();
  const res = await undiciRequest(fspiopBase + r.path, { method: r.method, headers: fspiopHeaders(r.method, r.resource, r.source), body: r.body === undefined ? undefined : JSON.stringify(r.body), dispatcher: agent });
  const text = await res.body.text();
  const answeredAt = performance.now();
  if (res.statusCode !== (r.method === 'PATCH' ? 200 : 202)) throw new Error(`${what}: ${res.statusCode} ${text.slice(0, 300)}`);
  if (!arrival) return { ms: answeredAt - t0, sentAt: t0, at: answeredAt, body: {} as Record<string, unknown> };
  const callback = await arrival;
  if (callback.error) throw new Error(`${what}: error callback ${JSON.stringify(callback.body).slice(0, 300)}`);
  return { ms: callback.at - t0, sentAt: t0, at: callback.at, body: callback.body };
}

function directPayer(agent: Agent, fspiopBase: string, sink: SwitchStandIn): Payer {
  return async (account) => {
    const partyPath = `/parties/ACCOUNT_ID/${account.number}`;
    const lookup = await directStep(agent, fspiopBase, sink, { method: 'GET', path: partyPath, resource: 'parties', source: PAYER_FSP, callbackPath: partyPath }, `lookup ${account.number}`);
    const quoteBody = quoteBodyFor(account);
    const quote = await directStep(agent, fspiopBase, sink, { method: 'POST', path: '/quotes', resource: 'quotes', source: PAYER_FSP, body: quoteBody, callbackPath: `/quotes/${quoteBody.quoteId}` }, `quote ${account.number}`);
    const transferBody = transferRequestBody({
      payerFsp: PAYER_FSP,
      payeeFsp: FSP_ID,
      quote: quote.body as { transferAmount: { amount: string; currency: string }; ilpPacket: string; condition: string },
      transferId: quoteBody.transactionId,
      expiration: new Date(Date.now() + TRANSFER_EXPIRY_SECONDS * 1000).toISOString(),
    });
    const transfer = await directStep(agent, fspiopBase, sink, { method: 'POST', path: '/transfers', resource: 'transfers', source: PAYER_FSP, body: transferBody, callbackPath: `/transfers/${transferBody.transferId}` }, `transfer ${account.number}`);
    if (transfer.body.transferState !== 'RESERVED') throw new Error(`transfer ${account.number}: ${JSON.stringify(transfer.body).slice(0, 300)}`);
    const patch = await directStep(
      agent,
      fspiopBase,
      sink,
      { method: 'PATCH', path: `/transfers/${transferBody.transferId}`, resource: 'transfers', source: SWITCH_FSP, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } },
      `PATCH ${account.number}`,
    );
    return { account: account.number, lookupMs: lookup.ms, quoteMs: quote.ms, transferMs: transfer.ms, patchMs: patch.ms, patchSentAt: patch.sentAt, patchAnsweredAt: patch.at };
  };
}

// ---------------------------------------------------------------------------------------------
// Accounts, runs and what they cost.

interface Shop {
  m: number;
  api: Api;
}

/** `count` fresh timed accounts (E12 through the API), the shops in turn, each shop below its rate limit. */
async function openAccounts(shops: Shop[], count: number, offset: number): Promise<Account[]> {
  const accounts: Account[] = [];
  const t0 = performance.now();
  const perSecond = OPEN_PER_SECOND * shops.length;
  for (let i = 0; i < count; i++) {
    const wait = t0 + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await sleep(wait);
    const amountMajor = 100 + (((offset + i) * 37) % 900);
    const { m, api } = shops[i % shops.length];
    const a = await api.expect<{ timedAccountNumber: string }>(
      '/collections/requestToPay/initiate',
      JSON.stringify({ merchantAccountNumber: m, transactionAmount: amountMajor, transactionDescription: 'Bench order', referenceNumber: `BENCHIN${offset + i}`, capturedBy: 'bench-till@example.mw' }),
    );
    accounts.push({ number: a.body.timedAccountNumber, amountMajor });
  }
  return accounts;
}

interface Procs {
  service: Service;
  ttkPid?: number;
  postmaster: number | undefined;
}

/** CPU time the postmaster's exited children used (cutime + cstime, in ms): backends that ended during a run. */
function reapedChildrenMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

function cpuMark(p: Procs) {
  return { sample: cpuSample(p.postmaster), serviceMs: processCpuMs(p.service.child.pid!), ttkMs: p.ttkPid === undefined ? 0 : processCpuMs(p.ttkPid), reapedMs: reapedChildrenMs(p.postmaster) };
}

function cpuOver(p: Procs, before: ReturnType<typeof cpuMark>, payments: number) {
  const after = cpuMark(p);
  const seconds = (after.sample.at - before.sample.at) / 1000;
  const percent = (ms: number) => round1(ms / seconds / 10);
  let postgresTicks = 0;
  for (const [pid, ticks] of after.sample.postgres) postgresTicks += ticks - (before.sample.postgres.get(pid) ?? 0);
  for (const [pid, ticks] of before.sample.postgres) if (!after.sample.postgres.has(pid)) postgresTicks -= ticks; // counted whole in reapedMs
  const postgresMs = p.postmaster === undefined ? null : postgresTicks * 10 + (after.reapedMs - before.reapedMs);
  const serviceMs = after.serviceMs - before.serviceMs;
  const ttkMs = after.ttkMs - before.ttkMs;
  const benchMs = (after.sample.process - before.sample.process) * 10;
  const machineMs = (after.sample.machineBusy - before.sample.machineBusy) * 10;
  return {
    unit: `percent of one core (${os.cpus().length} cores)`,
    service: percent(serviceMs),
    ...(p.ttkPid === undefined ? {} : { ttk: percent(ttkMs) }),
    postgres: postgresMs === null ? null : percent(postgresMs),
    bench: percent(benchMs),
    elsewhere: Number.isNaN(machineMs) ? null : percent(Math.max(0, machineMs - serviceMs - ttkMs - benchMs - (postgresMs ?? 0))),
    msPerPayment: {
      service: round1(serviceMs / payments),
      ...(p.ttkPid === undefined ? {} : { ttk: round1(ttkMs / payments) }),
      postgres: postgresMs === null ? null : round1(postgresMs / payments),
      bench: round1(benchMs / payments),
    },
  };
}

/**
 * Rows read so far: per table by sequential scans, per index by index scans (pg_stat_user_tables,
 * pg_stat_user_indexes). A plan that rereads a table or an index range per message shows here.
 */
async function rowReads(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; n: string }>(
    `select relname || ' (sequential)' as name, coalesce(seq_tup_read, 0) as n from pg_stat_user_tables
     union all select relname || '.' || indexrelname, idx_tup_read from pg_stat_user_indexes`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.n)]));
}

/** The five tables or indexes read most between two rowReads, in rows per payment. */
function topRowReads(before: Map<string, number>, after: Map<string, number>, payments: number) {
  const deltas = [...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(deltas.slice(0, 5).map(([name, n]) => [name, round1(n / payments)]));
}

/** `accounts` paid by `pay`, `concurrency` at a time; failures counted, not thrown. */
async function payAll(accounts: Account[], concurrency: number, pay: Payer, label: string) {
  const payments: Payment[] = [];
  const failures: string[] = [];
  let next = 0;
  const t0 = performance.now();
  let logged = t0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, accounts.length) }, async () => {
      while (next < accounts.length) {
        const account = accounts[next++];
        try {
          payments.push(await pay(account));
        } catch (err) {
          failures.push((err as Error).message);
        }
        if (performance.now() - logged > PROGRESS_EVERY_MS) {
          logged = performance.now();
          log(`${label}: ${payments.length + failures.length} of ${accounts.length} after ${round1((logged - t0) / 1000)} s`);
        }
      }
    }),
  );
  return { payments, failures, ms: performance.now() - t0, startedAt: t0 };
}

function stepFigures(payments: Payment[]) {
  return {
    lookup: spread(payments.map((p) => p.lookupMs)),
    quote: spread(payments.map((p) => p.quoteMs)),
    transfer: spread(payments.map((p) => p.transferMs)),
    patchToCredited: spread(payments.map((p) => p.patchMs)),
    payment: spread(payments.map((p) => p.lookupMs + p.quoteMs + p.transferMs + p.patchMs)),
  };
}

/** Per payment with its webhook: `from` (a time on `clock`) → the webhook's arrival. */
function toWebhook(payments: Payment[], receiver: WebhookReceiver, clock: 'perf' | 'epoch', from: (p: Payment) => number | undefined): number[] {
  const out: number[] = [];
  for (const p of payments) {
    const arrival = receiver.arrivals.get(p.account);
    const start = from(p);
    if (arrival && start !== undefined) out.push(arrival[clock] - start);
  }
  return out;
}

/** The three views of commit → webhook (see the header). */
function webhookFigures(payments: Payment[], receiver: WebhookReceiver, commits: Map<string, number>, mode: 'viaTtk' | 'direct') {
  return {
    commitToWebhookMs: spread(toWebhook(payments, receiver, 'perf', (p) => commits.get(p.account))),
    patchAnsweredToWebhookMs: spread(toWebhook(payments, receiver, mode === 'direct' ? 'perf' : 'epoch', (p) => p.patchAnsweredAt)),
    patchSentToWebhookMs: spread(toWebhook(payments, receiver, 'perf', (p) => p.patchSentAt)),
  };
}

async function messagesPerPayment(db: Db, accounts: string[]) {
  const { rows } = await db.query<{ kind: string; n: number }>(
    `select m.direction || ' ' || m.method || ' ' || split_part(m.path, '/', 2) as kind, count(*)::int as n
       from rail_messages m join rail_collections c on c.merchant_account_number = m.merchant_account_number and c.inbound_id = m.inbound_id
      where c.party_identifier = any($1) group by 1 order by 1`,
    [accounts],
  );
  const total = rows.reduce((s, r) => s + r.n, 0);
  return { perPayment: Math.round((total / accounts.length) * 100) / 100, byKind: Object.fromEntries(rows.map((r) => [r.kind, r.n])) };
}

interface RunContext {
  db: Db;
  databaseName: string;
  shops: Shop[];
  receiver: WebhookReceiver;
  listener: CommitListener;
  procs: Procs;
}

/**
 * One payer over `run.shops`: warm-up, then (withAlone) ALONE_PAYMENTS one at a time, then
 * PAYMENTS `concurrency` at a time, the shops' accounts interleaved.
 */
async function benchPayer(run: RunContext, mode: 'viaTtk' | 'direct', pay: Payer, concurrency: number, offset: number, withAlone: boolean) {
  const label = `rails-inbound ${mode}${run.shops.length > 1 ? ` over ${run.shops.length} merchants` : ''}`;
  const openStarted = performance.now();
  const aloneCount = withAlone ? ALONE_PAYMENTS : 0;
  const accounts = await openAccounts(run.shops, WARMUP_PAYMENTS + aloneCount + PAYMENTS, offset);
  log(`${label}: ${accounts.length} timed accounts opened in ${round1((performance.now() - openStarted) / 1000)} s`);
  const warmup = accounts.slice(0, WARMUP_PAYMENTS);
  const aloneAccounts = accounts.slice(WARMUP_PAYMENTS, WARMUP_PAYMENTS + aloneCount);
  const loaded = accounts.slice(WARMUP_PAYMENTS + aloneCount);
  for (const a of warmup) await pay(a);
  const alone: Payment[] = [];
  for (const a of aloneAccounts) {
    alone.push(await pay(a));
    // Its webhook before the next payment: each is alone on the machine.
    await run.receiver.allOf([a.number], 10_000);
  }
  if (withAlone) log(`${label}: one payment alone, median ${round1(median(alone.map((p) => p.lookupMs + p.quoteMs + p.transferMs + p.patchMs)))} ms`);
  log(`${label}: ${PAYMENTS} payments with ${concurrency} at once`);

  const readsBefore = await rowReads(run.db);
  const before = cpuMark(run.procs);
  const sampler = new ActivitySampler(run.db, run.databaseName, 'rails-inbound');
  const rss = { service: new RssSampler(run.procs.service.child.pid!), ...(run.procs.ttkPid === undefined ? {} : { ttk: new RssSampler(run.procs.ttkPid) }) };
  const done = await payAll(loaded, concurrency, pay, label);
  const cpu = cpuOver(run.procs, before, Math.max(1, done.payments.length));
  const databaseActivity = await sampler.stop(6);
  for (const r of Object.values(rss)) r.stop();
  const lastWebhookAt = await run.receiver.allOf(
    done.payments.map((p) => p.account),
    WEBHOOK_WAIT_MS,
  );
  const commits = await run.listener.byAccount(run.db);
  await sleep(1000); // PostgreSQL publishes its backends' statistics within a second
  const rowsReadPerPayment = topRowReads(readsBefore, await rowReads(run.db), Math.max(1, done.payments.length));
  const seconds = done.ms / 1000;
  log(`${label}: ${done.payments.length} paid (${done.failures.length} failed) in ${round1(seconds)} s: ${round1(done.payments.length / seconds)} payments/s`);
  const peakRssMb = (r: RssSampler) => round1(Math.max(0, ...Object.values(r.peaksKb)) / 1024);
  return {
    merchants: run.shops.length,
    concurrency,
    payments: PAYMENTS,
    paid: done.payments.length,
    failed: done.failures.length,
    failureSamples: done.failures.slice(0, 5),
    seconds: round1(seconds),
    paymentsPerSecond: round1(done.payments.length / seconds),
    webhooksDoneSeconds: Number.isNaN(lastWebhookAt) ? null : round1((lastWebhookAt - done.startedAt) / 1000),
    commitsHeard: done.payments.filter((p) => commits.has(p.account)).length,
    stepMs: stepFigures(done.payments),
    ...(mode === 'viaTtk'
      ? {
          ttkRunnerWallMs: {
            lookup: spread(done.payments.map((p) => p.wall!.lookupMs)),
            quote: spread(done.payments.map((p) => p.wall!.quoteMs)),
            transfer: spread(done.payments.map((p) => p.wall!.transferMs)),
            patch: spread(done.payments.map((p) => p.wall!.patchMs)),
          },
        }
      : {}),
    ...webhookFigures(done.payments, run.receiver, commits, mode),
    alone: !withAlone ? undefined : {
      payments: ALONE_PAYMENTS,
      stepMedianMs: {
        lookup: round1(median(alone.map((p) => p.lookupMs))),
        quote: round1(median(alone.map((p) => p.quoteMs))),
        transfer: round1(median(alone.map((p) => p.transferMs))),
        patchToCredited: round1(median(alone.map((p) => p.patchMs))),
        payment: round1(median(alone.map((p) => p.lookupMs + p.quoteMs + p.transferMs + p.patchMs))),
      },
      ...webhookFigures(alone, run.receiver, commits, mode),
    },
    cpu,
    peakRssMb: Object.fromEntries(Object.entries(rss).map(([k, r]) => [k, peakRssMb(r)])),
    databaseActivity,
    rowsReadPerPayment,
    messages: await messagesPerPayment(
      run.db,
      done.payments.map((p) => p.account),
    ),
    accounts: accounts.map((a) => a.number),
  };
}

/** After both runs: credited once each, nothing else, the ledger clean, a webhook per payment. */
async function checks(db: Db, merchants: number[], receiver: WebhookReceiver, accounts: string[]) {
  const { rows: requests } = await db.query<{ timed_account_number: string; status_code: string; collections: number }>(
    `select r.timed_account_number, r.status_code, count(c.collection_id)::int as collections
       from payment_requests r left join collections c on c.request_id = r.request_id
      where r.merchant_account_number = any($1) group by 1, 2`,
    [merchants],
  );
  const { rows: phases } = await db.query<{ phase: string; n: number }>('select phase, count(*)::int as n from rail_collections where merchant_account_number = any($1) group by 1', [merchants]);
  const { rows: events } = await db.query<{ n: number }>(`select count(*)::int as n from outbox_events where merchant_account_number = any($1) and event_code = 'payrequest.success'`, [merchants]);
  const { rows: deliveries } = await db.query<{ status: string; n: number }>('select status, count(*)::int as n from webhook_deliveries where merchant_account_number = any($1) group by 1', [merchants]);
  const ledger = await verifyLedger(db);
  const notOnce = requests.filter((r) => r.status_code !== 'P' || r.collections !== 1);
  const committed = phases.find((p) => p.phase === 'committed')?.n ?? 0;
  const expected = accounts.length;
  const webhookAccounts = accounts.filter((a) => receiver.arrivals.has(a)).length;
  const result = {
    timedAccounts: requests.length,
    paidAndCreditedOnce: requests.length - notOnce.length,
    notPaidOnceSamples: notOnce.slice(0, 5),
    railCollections: Object.fromEntries(phases.map((p) => [p.phase, p.n])),
    payrequestSuccessEvents: events[0].n,
    webhooksReceived: { distinct: receiver.ids.size, requests: receiver.hits, duplicates: receiver.hits - receiver.ids.size, accountsWithWebhook: webhookAccounts, byEvent: Object.fromEntries(receiver.events) },
    webhookDeliveries: Object.fromEntries(deliveries.map((d) => [d.status, d.n])),
    ledgerVerify: { ok: ledger.ok, checks: ledger.checks.length, failed: ledger.checks.filter((c) => c.failed > 0).map((c) => ({ name: c.name, failed: c.failed, examples: c.examples.slice(0, 2) })) },
    allPassed: false,
  };
  result.allPassed =
    requests.length === expected &&
    notOnce.length === 0 &&
    committed === expected &&
    phases.every((p) => p.phase === 'committed') &&
    events[0].n === expected &&
    receiver.ids.size === expected &&
    webhookAccounts === expected &&
    ledger.ok;
  if (!result.allPassed) log(`rails-inbound: CHECKS FAILED: ${JSON.stringify(result).slice(0, 1500)}`);
  return result;
}

/** The service's settings on top of npm start's defaults: the Mojaloop rail, and no other MOJALOOP_* leaking in. */
function serviceEnv(switchUrl: string): Record<string, string> {
  const unset = ['API_VERSION', 'SWITCH_FSP_ID', 'IN_FLIGHT_BOUND_SECONDS', 'LOOKUP_ATTEMPTS', 'REQUEST_TIMEOUT_MS', 'TLS_CERT', 'TLS_KEY', 'TLS_CA', 'TLS_PORT', 'TLS_HOST', 'JWS_KEY', 'JWS_PUBLIC_KEYS', 'ILP_SECRET'];
  return {
    ...Object.fromEntries(unset.map((name) => [`MOJALOOP_${name}`, ''])),
    MOJALOOP_SWITCH_URL: switchUrl,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: String(CONNECTOR_ID),
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: String(TRANSFER_EXPIRY_SECONDS),
    MOJALOOP_CALLBACK_SECONDS: String(CALLBACK_SECONDS),
    TIMED_ACCOUNT_MINUTES: String(TIMED_ACCOUNT_MINUTES),
  };
}

// ---------------------------------------------------------------------------------------------

export async function benchRailsInbound({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  await ensureTtkInstalled();
  const receiver = new WebhookReceiver();
  const standIn = new SwitchStandIn();
  let ttkRun: RunningTtk | undefined;
  let service: Service | undefined;
  let db: Db | undefined;
  let databaseName: string | undefined;
  let listener: CommitListener | undefined;
  const apiAgent = new Agent({ connections: 4, keepAliveTimeout: 60_000 });
  const payerAgent = new Agent({ connections: DIRECT_CONCURRENCY, keepAliveTimeout: 60_000 });
  try {
    const webhookUrl = await receiver.listen();
    const standInUrl = await standIn.listen();
    log('rails-inbound: starting the Testing Toolkit');
    ttkRun = await startTtk({ logLevel: TTK_LOG_LEVEL });
    const ttk = new Ttk(ttkRun.info);
    const database = await createDatabase(adminUrl);
    databaseName = database.name;
    service = await startService(database.url, serviceEnv(ttk.fspiopUrl));
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: `${service.baseUrl}/fspiop` });
    log(`rails-inbound: database ${databaseName}; service pid ${service.child.pid} at ${service.baseUrl}, TTK pid ${ttkRun.info.pid}`);
    db = createPool(database.url, 2);
    const postmaster = await findPostmaster(db);
    listener = new CommitListener(database.url);
    await listener.start();

    const deps = benchDeps(db, loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }));
    // One shop takes the one-merchant runs; SPREAD_MERCHANTS others share the spread runs. Each
    // subscribes the receiver to payrequest.success through the API.
    const merchants: MerchantCredentials[] = [];
    for (let i = 0; i <= SPREAD_MERCHANTS; i++) merchants.push(await createMerchant(deps, { accountName: i === 0 ? 'Bench Inbound Shop' : `Bench Inbound Shop ${i}`, levelNumber: 1, capturedBy: 'bench' }));
    const shopsOn = (s: Service): Shop[] => merchants.map((merchant) => ({ m: merchant.merchantAccountNumber, api: new Api(s.baseUrl, apiAgent, credentialsOf(merchant), 'rails-inbound') }));
    let shops = shopsOn(service);
    for (const { m, api } of shops) {
      const added = await api.post('/merchants/webhooks/add', JSON.stringify({ merchantAccountNumber: m, eventCode: 'payrequest.success', callbackUrl: webhookUrl, capturedBy: 'bench-dev@example.mw' }));
      if (added.status !== 201 && added.status !== 200) throw new Error(`webhooks/add: HTTP ${added.status} ${added.text}`);
    }
    const context = (procs: Procs, spread: boolean): RunContext => ({ db: db!, databaseName: databaseName!, shops: spread ? shops.slice(1) : shops.slice(0, 1), receiver, listener: listener!, procs });

    const ttkProcs = { service, ttkPid: ttkRun.info.pid, postmaster };
    const payViaTtk = ttkPayer(ttk, `${service.baseUrl}/fspiop`);
    const viaTtk = await benchPayer(context(ttkProcs, false), 'viaTtk', payViaTtk, TTK_CONCURRENCY, 0, true);
    const viaTtkSpread = await benchPayer(context(ttkProcs, true), 'viaTtk', payViaTtk, TTK_CONCURRENCY, 1_000_000, false);
    await stopService(service);
    service = undefined;
    await ttkRun.stop();
    ttkRun = undefined;

    service = await startService(database.url, serviceEnv(standInUrl));
    shops = shopsOn(service);
    log(`rails-inbound: service restarted (pid ${service.child.pid}) with the switch stand-in at ${standInUrl}`);
    const directProcs = { service, postmaster };
    const payDirect = directPayer(payerAgent, `${service.baseUrl}/fspiop`, standIn);
    const direct = await benchPayer(context(directProcs, false), 'direct', payDirect, DIRECT_CONCURRENCY, 2_000_000, true);
    const directSpread = await benchPayer(context(directProcs, true), 'direct', payDirect, DIRECT_CONCURRENCY, 3_000_000, false);
    await sleep(1000); // a duplicate webhook, were there one, has time to come
    const runs = [viaTtk, viaTtkSpread, direct, directSpread];
    const verified = await checks(
      db,
      merchants.map((x) => x.merchantAccountNumber),
      receiver,
      runs.flatMap((r) => r.accounts),
    );
    const serviceExitCode = await stopService(service);
    service = undefined;
    const withoutAccounts = <T extends { accounts: string[] }>({ accounts: _a, ...rest }: T) => rest;
    const defaults = loadConfig({});
    return {
      service: `src/server.ts with npm start's defaults (worker concurrency ${defaults.workerConcurrency}, pool ${defaults.dbPoolSize}, webhook concurrency ${defaults.webhookConcurrency}) and the Mojaloop rail for connector ${CONNECTOR_ID}: MOJALOOP_FSP_ID ${FSP_ID}, FSPIOP 1.1 (PATCH notifications), MOJALOOP_CALLBACK_SECONDS ${CALLBACK_SECONDS}, TIMED_ACCOUNT_MINUTES ${TIMED_ACCOUNT_MINUTES}; /fspiop on its own port, no TLS, no JWS`,
      merchants: `viaTtk and direct: one level-1 merchant takes every payment; spread: the payments spread over ${SPREAD_MERCHANTS} other merchants in turn. Every merchant has one payrequest.success webhook to a node:http receiver in the bench process (204 at once)`,
      payments: PAYMENTS,
      viaTtk: { payer: "Mojaloop Testing Toolkit (test/ttk: ml-testing-toolkit 18.13.0) as payer DFSP and switch: each request a one-request template of its outbound runner; stepMs are TTK's own runDurationMs", ...withoutAccounts(viaTtk) },
      direct: {
        payer: 'this process as payer DFSP (undici, keep-alive) and a node:http stand-in for the switch receiving our callbacks (MOJALOOP_SWITCH_URL); stepMs from request start to our callback (PATCH: to our 200)',
        ...withoutAccounts(direct),
      },
      spread: { merchants: SPREAD_MERCHANTS, viaTtk: withoutAccounts(viaTtkSpread), direct: withoutAccounts(directSpread) },
      directOverViaTtkRate: { oneMerchant: Math.round((direct.paymentsPerSecond / viaTtk.paymentsPerSecond) * 10) / 10, spread: Math.round((directSpread.paymentsPerSecond / viaTtkSpread.paymentsPerSecond) * 10) / 10 },
      standInUnexpected: Object.fromEntries(standIn.unexpected),
      checks: verified,
      serviceExitCode,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
    };
  } finally {
    if (service) {
      const code = await stopService(service);
      if (code !== 0) log(`rails-inbound: service exited with ${code}: ${service.stderrTail()}`);
    }
    await ttkRun?.stop();
    await apiAgent.close();
    await payerAgent.close();
    await receiver.close();
    await standIn.close();
    await listener?.stop().catch(() => undefined);
    await db?.end().catch(() => undefined);
    if (databaseName) await dropDatabase(adminUrl, databaseName, 'rails-inbound: ');
  }
}

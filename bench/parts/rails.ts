// `BENCH_ONLY=rails npm run bench` (and part of the default run): one E8 batch of
// BENCH_RAILS_LINES (default 10,000) wallet lines paid to every line final over each payment rail
// (src/rails/), in one run and one service: first over Mojaloop, with the Mojaloop Testing Toolkit
// (test/ttk/harness.ts, default rules of test/ttk/rules.ts: every party found, every quote
// accepted, every transfer COMMITTED) as the switch, then the same lines to the simulated
// connector (sandbox mode). The service runs as `npm start` runs it (bench/lib/service.ts) with
// the Mojaloop rail configured for one connector (MOJALOOP_CONNECTOR_IDS=112400, Airtel Money;
// TTK's callbacks come to /fspiop on the service's own port: no TLS), and waits
// (MOJALOOP_CALLBACK_SECONDS 60, MOJALOOP_TRANSFER_EXPIRY_SECONDS 300) far above a payout's round
// trip, so that only a lost message is asked again. Each rail gets a level-1 merchant of its own,
// funded by sandbox top-up, its daily payout limits raised past the batch. Measured, per rail:
//   allFinalSeconds   transferFunds request start → getBatch (polled every 200 ms) showing C;
//                     payoutsPerSecond is lines ÷ that.
//   latencyMs         per payout, payouts.transferred_at → completed_at (both the database's
//                     now() of their transaction): p50 / p95 / p99 / max. The whole batch is
//                     transferred at once, so this is mostly the payout's place in the queue (p99
//                     is when 99 % of the batch was final: a lost message's wait shows in max
//                     only); onePayoutAloneMs is the same for a one-line batch (median of 3, each
//                     sent alone before the big batch): the floor.
//   perTenthOfRun     payouts/s in each tenth of the run (does the rate hold up?).
//   cpu               percent of one core over the run: the service's process, TTK's, the
//                     PostgreSQL server's (exited backends included), this process's, and
//                     everything else on the machine (/proc; the machine is shared), and the CPU
//                     ms per payout. peakRssMb: the service's and TTK's resident set.
//   databaseActivity  the service's busy sessions sampled every 200 ms: what they wait for.
//   indexTuplesReadPerPayout  the five indexes read most (pg_stat_user_indexes), per payout.
// and for Mojaloop, from the service's own records (rail_payouts, rail_messages):
//   messagesPerPayout FSPIOP messages kept ÷ lines (6 when nothing is asked twice: GET /parties,
//                     POST /quotes, POST /transfers and their 3 callbacks); reAskedPayouts the
//                     payouts with more than 3 requests sent; notAccepted the requests the switch
//                     did not answer 202 within MOJALOOP_REQUEST_TIMEOUT_MS (10 s).
//   phaseMs           per payout: transferred → its lookup claimed by the worker (rail_payouts
//                     created), → PUT /parties recorded, → PUT /quotes recorded, → PUT /transfers
//                     recorded (each callback's record is written right after its transaction).
// Before the service starts, TTK alone: this process plays the DFSP (a bare node:http server
// takes TTK's callbacks) and drives the same three round trips, first one payout at a time
// (ttkAlone.sequential: ms per step, TTK's CPU ms per payout), then 32 payouts in flight, as the
// service's switch client has (ttkAlone.concurrent: payouts/s, TTK's CPU ms per payout): the
// switch's own ceiling, which the service's rate over TTK cannot pass.
//
// Where the time goes (2-core machine shared with other work, 10,000 lines, 2026-11-28):
// - TTK itself: 11-15 ms a round trip alone, about 20 ms of its CPU a payout, 32-49 payouts/s
//   at most with 32 in flight (80-100 % of a core). Per request it rereads from disk the rule
//   files it finds empty (response, validation: rulesEngineModel.js getRules) and formats the
//   whole message for its log (util.inspect, whatever its log level), and it keeps every message
//   for 10 minutes (0.8-1.8 GB resident by the end of a run). It gives a callback 3 s (user
//   config DEFAULT_REQUEST_TIMEOUT) and never resends: a callback the service answers later than
//   that is lost, and its payout waits MOJALOOP_CALLBACK_SECONDS to be asked again.
// - The service, with TTK below its ceiling (23-46 % of a core): 15-23 payouts/s. Every
//   COMMITTED payout is booked in a transaction of its own (callbacks.ts settle → outcomes.ts
//   bookOutcomes), and each updates the same rows: the merchant's connector_daily_stats row
//   (applyStats), then the batch row (updateBatchCounters), both held to the commit. The
//   outcomes queue on the first of them: databaseActivity shows 4 to 6.5 sessions waiting on the
//   connector_daily_stats upsert all run long (on the batch row before it was moved last).
// - With statistics taken before transferFunds (a fresh database, or a payouts table so large
//   that a batch's lines never trigger a new ANALYZE), the planner takes the batch's payouts in T
//   to be few (estimate: 1 row), and onParty's first query (callbacks.ts lockRows) becomes a
//   nested loop over every payout in T (payouts_due_idx) × the merchant's rail_payouts
//   (rail_payouts_quote_key on the merchant alone): about 1 s per PUT /parties at 1,000 lines,
//   20,000-29,000 index tuples read per payout. It lasts until autovacuum analyzes payouts, so it
//   comes and goes by run.
// Nothing here is a target: the figures are reported for reading.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Agent, request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { outboundHeaders, type Resource } from '../../src/rails/mojaloop/headers.ts';
import { ensureTtkInstalled, startTtk, Ttk, type RunningTtk } from '../../test/ttk/harness.ts';
import { Api } from '../lib/api.ts';
import { BATCH_LINES, buildBatch, type Line } from '../lib/batch.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { cpuSample, findPostmaster, processCpuMs, type CpuSample } from '../lib/cpu.ts';
import { autovacuumDone, benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { credentialsOf } from '../lib/merchants.ts';
import { ActivitySampler } from '../lib/activity.ts';
import { RssSampler } from '../lib/memory.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { median, percentileOf } from '../lib/stats.ts';

function linesFromEnv(): number {
  const raw = process.env.BENCH_RAILS_LINES?.trim();
  if (raw === undefined || raw === '') return 10_000;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > BATCH_LINES) throw new Error(`BENCH_RAILS_LINES must be a whole number from 1 to ${BATCH_LINES}, got "${raw}"`);
  return Number(raw);
}

const LINES = linesFromEnv();
const MOJALOOP_RAIL = { rail: 'mojaloop', connectorId: 112400, connectorName: 'Airtel Money', msisdnPrefix: '26599' } as const;
const SIMULATED_RAIL = { rail: 'simulated', connectorId: 112500, connectorName: 'TNM Mpamba', msisdnPrefix: '26588' } as const;
type RailSpec = typeof MOJALOOP_RAIL | typeof SIMULATED_RAIL;
const FSP_ID = 'onekhusadfsp';
/** Far above a payout's round trip in this run (seconds at most), so nothing is asked again unless an answer is lost. */
const TRANSFER_EXPIRY_SECONDS = 300;
const CALLBACK_SECONDS = 60;
/**
 * TTK's own log (its run directory's ttk.log): at `info` it writes every message it handles in
 * full, about 300 KB a second at the rate of this part. Its CPU per payout is the same either way
 * (it formats each message before the level is looked at); the file is not. TTK_LOG_LEVEL overrides it.
 */
const TTK_LOG_LEVEL = process.env.TTK_LOG_LEVEL?.trim() || 'error';
const ALONE_RUNS = 3;
const TTK_SEQUENTIAL_PAYOUTS = 20;
const TTK_CONCURRENT_PAYOUTS = 500;
/** The service's switch client keeps this many requests in flight (src/rails/mojaloop/client.ts). */
const TTK_LANES = 32;
const CALLBACK_WAIT_MS = 30_000;
const VALIDATE_POLL_MS = 100;
const FINAL_POLL_MS = 200;
const PROGRESS_EVERY_MS = 15_000;
/** Generous: the run is reported however slow a rail is, up to this much per line. */
const FINAL_TIMEOUT_MS_PER_LINE = 300;
const TOPUP_MAX_MAJOR = 5_000_000_000;

// ---------------------------------------------------------------------------------------------
// The lines.

/** Seven digits unique per index, the last four 1000–8999: never a sandbox magic suffix (990x). */
function msisdnTail(i: number): string {
  return String(100 + Math.floor(i / 8000)) + String(1000 + (i % 8000));
}

/**
 * The bench's batch (bench/lib/batch.ts: names, amounts, descriptions, references) with every line
 * a wallet of the rail's connector. One MSISDN per line: two lines with one number would share a
 * lookup (PUT /parties answers every payout waiting for that party) and skew the message count.
 */
function railLines(base: Line[], rail: RailSpec, offset = 0): Line[] {
  return base.map((line, i) => ({ ...line, connectorId: rail.connectorId, beneficiaryAccountNumber: rail.msisdnPrefix + msisdnTail(offset + i) }));
}

/** The service's settings on top of npm start's defaults: the Mojaloop rail, and no other MOJALOOP_* leaking in from this environment. */
function mojaloopEnv(switchUrl: string): Record<string, string> {
  const unset = ['API_VERSION', 'SWITCH_FSP_ID', 'IN_FLIGHT_BOUND_SECONDS', 'LOOKUP_ATTEMPTS', 'REQUEST_TIMEOUT_MS', 'TLS_CERT', 'TLS_KEY', 'TLS_CA', 'TLS_PORT', 'TLS_HOST', 'JWS_KEY', 'JWS_PUBLIC_KEYS'];
  return {
    ...Object.fromEntries(unset.map((name) => [`MOJALOOP_${name}`, ''])),
    MOJALOOP_SWITCH_URL: switchUrl,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: String(MOJALOOP_RAIL.connectorId),
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: String(TRANSFER_EXPIRY_SECONDS),
    MOJALOOP_CALLBACK_SECONDS: String(CALLBACK_SECONDS),
  };
}

// ---------------------------------------------------------------------------------------------
// TTK alone: this process as the payer DFSP.

/** A bare node:http server taking TTK's callbacks: each PUT's arrival time and body, by path. */
class CallbackSink {
  private readonly server: http.Server;
  private readonly waiting = new Map<string, (arrival: { at: number; body: Record<string, unknown> }) => void>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
        this.waiting.get(req.url ?? '')?.({ at, body });
        this.waiting.delete(req.url ?? '');
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The callback to `path` (registered before the request is sent: it cannot come first). */
  expect(path: string): Promise<{ at: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(path);
        reject(new Error(`TTK sent no callback to ${path} within ${CALLBACK_WAIT_MS} ms (an error callback goes to …/error)`));
      }, CALLBACK_WAIT_MS);
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

/** One FSPIOP request to TTK with the headers the service sends, and its callback: ms from request start to the callback's arrival. */
async function roundTrip(fspiopUrl: string, agent: Agent, sink: CallbackSink, request: { method: 'GET' | 'POST'; path: string; resource: Resource; destination?: string; body?: object; callbackPath: string }) {
  const arrival = sink.expect(request.callbackPath);
  const t0 = performance.now();
  const headers = outboundHeaders({ resource: request.resource, source: FSP_ID, destination: request.destination, date: new Date(), version: '1.0', kind: 'request' });
  const res = await undiciRequest(fspiopUrl + request.path, { method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body), dispatcher: agent });
  const text = await res.body.text();
  if (res.statusCode !== 202) throw new Error(`TTK answered ${request.method} ${request.path} with ${res.statusCode}: ${text.slice(0, 300)}`);
  const { at, body } = await arrival;
  return { ms: at - t0, body };
}

/** A payout's three round trips with TTK, as the service makes them (src/rails/mojaloop/payouts.ts): ms per step. */
async function ttkPayout(fspiopUrl: string, agent: Agent, sink: CallbackSink, i: number) {
  const msisdn = `26599${msisdnTail(i)}`;
  const lookup = await roundTrip(fspiopUrl, agent, sink, { method: 'GET', path: `/parties/MSISDN/${msisdn}`, resource: 'parties', callbackPath: `/parties/MSISDN/${msisdn}` });
  const payeeFsp = (lookup.body as { party: { partyIdInfo: { fspId: string } } }).party.partyIdInfo.fspId;
  const [quoteId, transactionId, transferId] = [randomUUID(), randomUUID(), randomUUID()];
  const amount = { currency: 'MWK', amount: String(100 + (i % 900)) };
  const quote = await roundTrip(fspiopUrl, agent, sink, {
    method: 'POST',
    path: '/quotes',
    resource: 'quotes',
    destination: payeeFsp,
    callbackPath: `/quotes/${quoteId}`,
    body: {
      quoteId,
      transactionId,
      payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payeeFsp } },
      payer: { partyIdInfo: { partyIdType: 'BUSINESS', partyIdentifier: '1000001', fspId: FSP_ID }, name: 'Bench Rails' },
      amountType: 'RECEIVE',
      amount,
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'BUSINESS' },
    },
  });
  const terms = quote.body as { ilpPacket: string; condition: string };
  const transfer = await roundTrip(fspiopUrl, agent, sink, {
    method: 'POST',
    path: '/transfers',
    resource: 'transfers',
    destination: payeeFsp,
    callbackPath: `/transfers/${transferId}`,
    body: { transferId, payerFsp: FSP_ID, payeeFsp, amount, ilpPacket: terms.ilpPacket, condition: terms.condition, expiration: new Date(Date.now() + 60_000).toISOString() },
  });
  if ((transfer.body as { transferState?: string }).transferState !== 'COMMITTED') throw new Error(`TTK's transfer callback: ${JSON.stringify(transfer.body).slice(0, 300)}`);
  return { lookupMs: lookup.ms, quoteMs: quote.ms, transferMs: transfer.ms };
}

const percentileMs = (values: number[], q: number) => round1(percentileOf(values, q));

/** TTK's own cost: payouts driven by this process, one at a time, then TTK_LANES at once. */
async function measureTtkAlone(ttk: Ttk, ttkPid: number) {
  const sink = new CallbackSink();
  const agent = new Agent({ connections: TTK_LANES, keepAliveTimeout: 60_000 });
  try {
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: await sink.listen() });
    for (let i = 0; i < 3; i++) await ttkPayout(ttk.fspiopUrl, agent, sink, 900_000 + i); // warm-up
    let cpu0 = processCpuMs(ttkPid);
    const steps: Array<Awaited<ReturnType<typeof ttkPayout>>> = [];
    for (let i = 0; i < TTK_SEQUENTIAL_PAYOUTS; i++) steps.push(await ttkPayout(ttk.fspiopUrl, agent, sink, 910_000 + i));
    const sequentialCpuMs = processCpuMs(ttkPid) - cpu0;
    const total = steps.map((s) => s.lookupMs + s.quoteMs + s.transferMs);
    log(`rails: TTK alone, one payout at a time: median ${round1(median(total))} ms for its 3 round trips, TTK CPU ${round1(sequentialCpuMs / TTK_SEQUENTIAL_PAYOUTS)} ms a payout`);

    cpu0 = processCpuMs(ttkPid);
    const benchCpu0 = process.cpuUsage();
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: TTK_LANES }, async () => {
        while (next < TTK_CONCURRENT_PAYOUTS) await ttkPayout(ttk.fspiopUrl, agent, sink, 920_000 + next++);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const concurrentCpuMs = processCpuMs(ttkPid) - cpu0;
    const benchCpu = process.cpuUsage(benchCpu0);
    log(`rails: TTK alone, ${TTK_LANES} payouts in flight: ${round1(TTK_CONCURRENT_PAYOUTS / seconds)} payouts/s, TTK CPU ${round1(concurrentCpuMs / TTK_CONCURRENT_PAYOUTS)} ms a payout`);
    return {
      sequential: {
        payouts: TTK_SEQUENTIAL_PAYOUTS,
        payoutMs: { p50: percentileMs(total, 50), p95: percentileMs(total, 95) },
        stepMedianMs: { lookup: round1(median(steps.map((s) => s.lookupMs))), quote: round1(median(steps.map((s) => s.quoteMs))), transfer: round1(median(steps.map((s) => s.transferMs))) },
        ttkCpuMsPerPayout: round1(sequentialCpuMs / TTK_SEQUENTIAL_PAYOUTS),
      },
      concurrent: {
        payouts: TTK_CONCURRENT_PAYOUTS,
        inFlight: TTK_LANES,
        seconds: round1(seconds),
        payoutsPerSecond: round1(TTK_CONCURRENT_PAYOUTS / seconds),
        ttkCpuMsPerPayout: round1(concurrentCpuMs / TTK_CONCURRENT_PAYOUTS),
        ttkCpuPercentOfOneCore: round1(concurrentCpuMs / seconds / 10),
        dfspSideCpuMsPerPayout: round1((benchCpu.user + benchCpu.system) / 1000 / TTK_CONCURRENT_PAYOUTS),
      },
    };
  } finally {
    await agent.close();
    await sink.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Batches through the service.

interface BatchView {
  batchStatusCode: string;
  numberOfEntries: number;
  numberOfInvalidEntries: number;
  numberOfSuccessfulEntries: number;
  numberOfFailedEntries: number;
  errorMessage: string | null;
}

/** Polls getBatch until the status leaves `whileStatus`; logs progress every PROGRESS_EVERY_MS. */
async function pollBatch(api: Api, m: number, batchNumber: number, whileStatus: string, everyMs: number, timeoutMs: number, label: string) {
  const body = JSON.stringify({ merchantAccountNumber: m, batchNumber });
  const started = performance.now();
  let logged = started;
  for (;;) {
    const a = await api.expect<BatchView>('/disbursements/batch/getBatch', body);
    const now = performance.now();
    if (a.body.batchStatusCode !== whileStatus) return { at: now, batch: a.body };
    if (now - started > timeoutMs) throw new Error(`${label}: batch ${batchNumber} still ${whileStatus} after ${round1((now - started) / 1000)} s: ${a.text}`);
    if (now - logged >= PROGRESS_EVERY_MS) {
      const final = a.body.numberOfSuccessfulEntries + a.body.numberOfFailedEntries;
      log(`${label}: ${final} of ${a.body.numberOfEntries} final after ${round1((now - started) / 1000)} s (${round1(final / ((now - started) / 1000))} payouts/s so far)`);
      logged = now;
    }
    await sleep(everyMs);
  }
}

/** E8 (addJson) and the validation job: the batch's number once it is P with no invalid line. */
async function addValidated(api: Api, m: number, lines: Line[], label: string): Promise<number> {
  const body = JSON.stringify({ header: { merchantAccountNumber: m, isBatchScheduled: false, capturedBy: 'bench-capturer@example.mw' }, transactions: lines });
  const a = await api.expect<{ batchNumber: number; BatchStatusCode: string }>('/disbursements/batch/addJson', body);
  if (a.body.BatchStatusCode !== 'Q') throw new Error(`${label}: E8 answered ${a.text}`);
  const done = await pollBatch(api, m, a.body.batchNumber, 'Q', VALIDATE_POLL_MS, 300_000, label);
  if (done.batch.batchStatusCode !== 'P' || done.batch.numberOfInvalidEntries !== 0) {
    throw new Error(`${label}: batch ${a.body.batchNumber} validated as ${done.batch.batchStatusCode} with ${done.batch.numberOfInvalidEntries} invalid lines: ${done.batch.errorMessage ?? ''}`);
  }
  return a.body.batchNumber;
}

/** transferFunds, then getBatch until the batch leaves T: ms from the request's start. */
async function transferToFinal(api: Api, m: number, batchNumber: number, label: string) {
  const tf = await api.expect<{ BatchStatusCode: string }>('/disbursements/batch/transferFunds', JSON.stringify({ merchantAccountNumber: m, batchNumber, transferredBy: 'bench-treasurer@example.mw' }));
  const started = performance.now() - tf.ms;
  if (tf.body.BatchStatusCode !== 'T') throw new Error(`${label}: transferFunds answered ${tf.text}`);
  const final = await pollBatch(api, m, batchNumber, 'T', FINAL_POLL_MS, Math.max(120_000, LINES * FINAL_TIMEOUT_MS_PER_LINE), label);
  return { allFinalMs: final.at - started, batch: final.batch };
}

/** A level-1 merchant whose payout limits are past the batch, funded for `lines` and a few more. */
async function fundedMerchant(db: Db, databaseUrl: string, baseUrl: string, agent: Agent, rail: RailSpec, lines: Line[]) {
  const deps = benchDeps(db, loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }));
  const merchant = await createMerchant(deps, { accountName: `Bench Rails ${rail.rail}`, levelNumber: 1, capturedBy: 'bench' });
  const m = merchant.merchantAccountNumber;
  await db.query(`update merchant_limits set daily_limit_minor = greatest(daily_limit_minor, $2::bigint) where merchant_account_number = $1 and transaction_code in ('MMW', 'MBA')`, [m, 100_000_000_000_000]);
  const api = new Api(baseUrl, agent, credentialsOf(merchant), 'rails');
  // The batch's amounts and the one-line batches' (the first lines' again), and at most MWK 150 of fees a line.
  const minor = (list: Line[]) => list.reduce((s, l) => s + Math.round(l.transactionAmount * 100), 0);
  const amountMinor = minor(lines);
  let toFund = Math.ceil((amountMinor + minor(lines.slice(0, ALONE_RUNS))) / 100 + (lines.length + ALONE_RUNS) * 150);
  while (toFund > 0) {
    const amount = Math.min(toFund, TOPUP_MAX_MAJOR);
    await api.expect('/merchants/accounts/topup', JSON.stringify({ merchantAccountNumber: m, connectorId: 212188, topupAmount: amount, createdBy: 'bench-funding@example.mw' }));
    toFund -= amount;
  }
  return { m, api, amountMinor };
}

// ---------------------------------------------------------------------------------------------
// What the database says of a batch.

/** Per payout: transferred_at → completed_at, its status and response; latency percentiles, outcomes, the rate per tenth of the run. */
async function payoutFigures(db: Db, batchNumber: number) {
  const { rows } = await db.query<{ ms: number; done_ms: number; status_code: string; response_code: string }>(
    `select extract(epoch from completed_at - transferred_at) * 1000 as ms,
            extract(epoch from completed_at - min(transferred_at) over ()) * 1000 as done_ms, status_code, response_code
       from payouts where batch_number = $1`,
    [batchNumber],
  );
  const ms = rows.filter((r) => r.ms !== null).map((r) => Number(r.ms));
  const lastMs = Math.max(...rows.map((r) => Number(r.done_ms ?? 0)));
  const tenths = Array.from({ length: 10 }, () => 0);
  for (const r of rows) if (r.done_ms !== null) tenths[Math.min(9, Math.floor((Number(r.done_ms) / lastMs) * 10))] += 1;
  const responses: Record<string, number> = {};
  for (const r of rows) responses[`${r.status_code} ${r.response_code}`] = (responses[`${r.status_code} ${r.response_code}`] ?? 0) + 1;
  return {
    latencyMs: { p50: percentileMs(ms, 50), p95: percentileMs(ms, 95), p99: percentileMs(ms, 99), max: round1(Math.max(...ms)) },
    successful: rows.filter((r) => r.status_code === 'S').length,
    failed: rows.filter((r) => r.status_code === 'F').length,
    notFinal: rows.filter((r) => r.status_code === 'T').length,
    responses,
    perTenthOfRun: tenths.map((n) => round1(n / (lastMs / 10 / 1000))),
  };
}

/** The FSPIOP messages the service kept for the batch's payouts, and where each payout's time went. */
async function mojaloopFigures(db: Db, batchNumber: number, lines: number) {
  const { rows: messages } = await db.query<{ kind: string; accepted: boolean; n: number }>(
    `select m.direction || ' ' || m.method || ' ' || split_part(m.path, '/', 2) as kind, m.outcome = 'accepted' as accepted, count(*)::int as n
       from rail_messages m join payouts p on p.merchant_account_number = m.merchant_account_number and p.payout_id = m.payout_id
      where p.batch_number = $1 group by 1, 2 order by 1, 2`,
    [batchNumber],
  );
  const { rows: phases } = await db.query<{ claim: number; lookup: number; quote: number; transfer: number; rail: number; sent: number; name_matches: boolean | null }>(
    `select extract(epoch from r.created_at - p.transferred_at) * 1000 as claim,
            extract(epoch from x.party_at - r.created_at) * 1000 as lookup,
            extract(epoch from x.quote_at - x.party_at) * 1000 as quote,
            extract(epoch from x.transfer_at - x.quote_at) * 1000 as transfer,
            extract(epoch from r.completed_at - r.created_at) * 1000 as rail, x.sent, r.name_matches
       from payouts p join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
       cross join lateral (
         select min(created_at) filter (where direction = 'in' and path like '/parties/%') as party_at,
                min(created_at) filter (where direction = 'in' and path like '/quotes/%') as quote_at,
                min(created_at) filter (where direction = 'in' and path like '/transfers/%') as transfer_at,
                count(*) filter (where direction = 'out') as sent
           from rail_messages m where m.merchant_account_number = p.merchant_account_number and m.payout_id = p.payout_id) x
      where p.batch_number = $1`,
    [batchNumber],
  );
  const { rows: refused } = await db.query<{ n: number }>('select count(*)::int as n from rail_refused_messages');
  const stat = (key: 'claim' | 'lookup' | 'quote' | 'transfer' | 'rail') => {
    const values = phases.map((r) => r[key]).filter((v) => v !== null).map(Number);
    return { p50: percentileMs(values, 50), p95: percentileMs(values, 95) };
  };
  const total = messages.reduce((s, m) => s + m.n, 0);
  return {
    messagesPerPayout: Math.round((total / lines) * 100) / 100,
    messages: Object.fromEntries(messages.map((m) => [`${m.kind}${m.accepted ? '' : ' (not accepted)'}`, m.n])),
    notAccepted: messages.filter((m) => !m.accepted).reduce((s, m) => s + m.n, 0),
    refusedNamingNoPayout: refused[0].n,
    reAskedPayouts: phases.filter((r) => Number(r.sent) > 3).length,
    // TTK's default rules answer every lookup with the name 'Test Party': each payout is paid with the name warning.
    nameMismatches: phases.filter((r) => r.name_matches === false).length,
    phaseMs: { transferredToClaimed: stat('claim'), lookup: stat('lookup'), quote: stat('quote'), transfer: stat('transfer') },
    railRoundTripMs: stat('rail'),
  };
}

/** Index tuples read so far per index (pg_stat_user_indexes): a plan that rereads a table per payout shows here. */
async function indexReads(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; n: string }>(`select relname || '.' || indexrelname as name, idx_tup_read as n from pg_stat_user_indexes`);
  return new Map(rows.map((r) => [r.name, Number(r.n)]));
}

/** The five indexes read most between two indexReads, in tuples per payout. */
function topIndexReads(before: Map<string, number>, after: Map<string, number>, payouts: number) {
  const deltas = [...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const).sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(deltas.slice(0, 5).map(([name, n]) => [name, round1(n / payouts)]));
}

// ---------------------------------------------------------------------------------------------
// One rail.

interface Run {
  db: Db;
  databaseName: string;
  databaseUrl: string;
  service: Service;
  agent: Agent;
  ttkPid: number;
  postmaster: number | undefined;
  base: Line[];
}

/** CPU time the postmaster's exited children used (cutime + cstime, in ms): backends that ended during a run. */
function reapedChildrenMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // USER_HZ 100
  } catch {
    return 0;
  }
}

interface CpuMark {
  sample: CpuSample;
  serviceMs: number;
  ttkMs: number;
  reapedMs: number;
}

function cpuMark(run: Run): CpuMark {
  return { sample: cpuSample(run.postmaster), serviceMs: processCpuMs(run.service.child.pid!), ttkMs: processCpuMs(run.ttkPid), reapedMs: reapedChildrenMs(run.postmaster) };
}

/**
 * CPU over a rail's run: percent of one core per process, and ms per payout. PostgreSQL's is its
 * live processes' plus what the backends that exited meanwhile used (the pool closes idle
 * connections; lib/cpu.ts's cpuSplit sees only the processes alive at both ends, which over a
 * long run misses most of it).
 */
function cpuOver(run: Run, before: CpuMark, payouts: number) {
  const after = cpuMark(run);
  const seconds = (after.sample.at - before.sample.at) / 1000;
  const percent = (ms: number) => round1(ms / seconds / 10);
  let postgresTicks = 0;
  for (const [pid, ticks] of after.sample.postgres) postgresTicks += ticks - (before.sample.postgres.get(pid) ?? 0);
  for (const [pid, ticks] of before.sample.postgres) if (!after.sample.postgres.has(pid)) postgresTicks -= ticks; // counted whole in reapedMs
  const postgresMs = run.postmaster === undefined ? null : postgresTicks * 10 + (after.reapedMs - before.reapedMs);
  const [serviceMs, ttkMs, benchMs] = [after.serviceMs - before.serviceMs, after.ttkMs - before.ttkMs, (after.sample.process - before.sample.process) * 10];
  const machineMs = (after.sample.machineBusy - before.sample.machineBusy) * 10;
  return {
    unit: `percent of one core (${os.cpus().length} cores)`,
    service: percent(serviceMs),
    ttk: percent(ttkMs),
    postgres: postgresMs === null ? null : percent(postgresMs),
    bench: percent(benchMs),
    elsewhere: Number.isNaN(machineMs) ? null : percent(Math.max(0, machineMs - serviceMs - ttkMs - benchMs - (postgresMs ?? 0))),
    msPerPayout: { service: round1(serviceMs / payouts), ttk: round1(ttkMs / payouts), postgres: postgresMs === null ? null : round1(postgresMs / payouts) },
  };
}

/** The rail's one-line batches alone (the latency floor), then the whole batch to every line final. */
async function benchRail(run: Run, rail: RailSpec) {
  const label = `rails ${rail.rail}`;
  const lines = railLines(run.base, rail);
  const { m, api, amountMinor } = await fundedMerchant(run.db, run.databaseUrl, run.service.baseUrl, run.agent, rail, lines);
  const aloneMs: number[] = [];
  for (let i = 0; i < ALONE_RUNS; i++) {
    const one = await addValidated(api, m, railLines(run.base.slice(i, i + 1), rail, LINES + i), label);
    await transferToFinal(api, m, one, label);
    aloneMs.push((await payoutFigures(run.db, one)).latencyMs.p50);
  }
  log(`${label}: one payout alone ${aloneMs.join(', ')} ms; sending the ${LINES}-line batch to connector ${rail.connectorId} (${rail.connectorName})`);
  const batchNumber = await addValidated(api, m, lines, label);
  await autovacuumDone(run.db);
  const readsBefore = await indexReads(run.db);
  const before = cpuMark(run);
  const sampler = new ActivitySampler(run.db, run.databaseName, 'rails');
  const rss = { service: new RssSampler(run.service.child.pid!), ttk: new RssSampler(run.ttkPid) };
  const final = await transferToFinal(api, m, batchNumber, label).finally(() => {
    void sampler.stop();
    for (const r of Object.values(rss)) r.stop();
  });
  const cpu = cpuOver(run, before, LINES);
  const databaseActivity = await sampler.stop();
  await sleep(1000); // PostgreSQL publishes its backends' statistics within a second
  const indexTuplesReadPerPayout = topIndexReads(readsBefore, await indexReads(run.db), LINES);
  const peakRssMb = (r: RssSampler) => round1(Math.max(0, ...Object.values(r.peaksKb)) / 1024);
  log(`${label}: batch ${batchNumber} ${final.batch.batchStatusCode} after ${round1(final.allFinalMs / 1000)} s: ${round1(LINES / (final.allFinalMs / 1000))} payouts/s`);
  const figures = await payoutFigures(run.db, batchNumber);
  return {
    connector: { id: rail.connectorId, name: rail.connectorName },
    lines: LINES,
    totalAmount: amountMinor / 100,
    allFinalSeconds: round1(final.allFinalMs / 1000),
    payoutsPerSecond: round1(LINES / (final.allFinalMs / 1000)),
    ...figures,
    onePayoutAloneMs: { median: round1(median(aloneMs)), samples: aloneMs },
    batch: { batchNumber, status: final.batch.batchStatusCode, successful: final.batch.numberOfSuccessfulEntries, failed: final.batch.numberOfFailedEntries },
    cpu,
    databaseActivity,
    indexTuplesReadPerPayout,
    // Sampled every 100 ms over the run (VmRSS): TTK keeps every message it saw for 10 minutes.
    peakRssMb: { service: peakRssMb(rss.service), ttk: peakRssMb(rss.ttk) },
    ...(rail.rail === 'mojaloop' ? { mojaloop: await mojaloopFigures(run.db, batchNumber, LINES) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------

export async function benchRails({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  await ensureTtkInstalled();
  let ttkRun: RunningTtk | undefined;
  let service: Service | undefined;
  let db: Db | undefined;
  let databaseName: string | undefined;
  const agent = new Agent({ connections: 4, keepAliveTimeout: 60_000, bodyTimeout: 600_000, headersTimeout: 600_000 });
  try {
    log('rails: starting the Testing Toolkit');
    ttkRun = await startTtk({ logLevel: TTK_LOG_LEVEL });
    const ttk = new Ttk(ttkRun.info);
    await ttk.setRules([]); // defaultRules() alone
    const ttkAlone = await measureTtkAlone(ttk, ttkRun.info.pid);
    await ttk.clearHistory();

    const database = await createDatabase(adminUrl);
    databaseName = database.name;
    service = await startService(database.url, mojaloopEnv(ttk.fspiopUrl));
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: `${service.baseUrl}/fspiop` });
    log(`rails: database ${databaseName}; service pid ${service.child.pid} at ${service.baseUrl}, TTK pid ${ttkRun.info.pid} at ${ttk.fspiopUrl}`);
    db = createPool(database.url, 2);
    const run: Run = { db, databaseName, databaseUrl: database.url, service, agent, ttkPid: ttkRun.info.pid, postmaster: await findPostmaster(db), base: buildBatch().lines.slice(0, LINES) };
    const mojaloop = await benchRail(run, MOJALOOP_RAIL);
    const simulated = await benchRail(run, SIMULATED_RAIL);
    const serviceExitCode = await stopService(service);
    service = undefined;
    const defaults = loadConfig({});
    return {
      service: `src/server.ts with npm start's defaults (worker concurrency ${defaults.workerConcurrency}, pool ${defaults.dbPoolSize}) and the Mojaloop rail for connector ${MOJALOOP_RAIL.connectorId}: MOJALOOP_FSP_ID ${FSP_ID}, MOJALOOP_TRANSFER_EXPIRY_SECONDS ${TRANSFER_EXPIRY_SECONDS}, MOJALOOP_CALLBACK_SECONDS ${CALLBACK_SECONDS}; callbacks on its own port under /fspiop`,
      switch: 'Mojaloop Testing Toolkit (test/ttk: ml-testing-toolkit 18.13.0, defaultRules(), callbacks without keep-alive) on this machine',
      lines: LINES,
      ttkAlone,
      mojaloop,
      simulated,
      mojaloopShareOfSimulatedRate: Math.round((mojaloop.payoutsPerSecond / simulated.payoutsPerSecond) * 1000) / 1000,
      serviceExitCode,
      // The machine may be shared: other work shows up in these and in every number above.
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
    };
  } finally {
    if (service) {
      const code = await stopService(service);
      if (code !== 0) log(`rails: service exited with ${code}: ${service.stderrTail()}`);
    }
    await ttkRun?.stop();
    await agent.close();
    await db?.end().catch(() => undefined);
    if (databaseName) await dropDatabase(adminUrl, databaseName, 'rails: ');
  }
}

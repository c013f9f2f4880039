// `BENCH_ONLY=keyed npm run bench` (and part of the default run): every idempotent write measured
// with and without an X-Idempotency-Key in the same run, side by side. On the run's database,
// 8 merchants (level 1), BENCH_CONNECTIONS connections (32 by default), the rate limit off
// (RATE_LIMIT_PER_SECOND=0).
//   ops          five writes under autocannon, an app (buildApp in this process) serving them:
//                  e12                 POST /sandbox/v1/collections/requestToPay/initiate
//                  addFakeTransaction  POST …/collections/requestToPay/addFakeTransaction, each
//                                      request paying an open timed account no other request pays
//                                      (prepared beforehand in one INSERT … SELECT, enough for
//                                      PAY_RATE_CAP requests/s)
//                  e11                 POST …/collections/addFakeCustomPayment (the merchant's
//                                      payment account)
//                  singlePayout        POST …/disbursements/single/add (level 1: limits reserved,
//                                      balance debited; the payout worker does not run)
//                  topup               POST …/merchants/accounts/topup
//                Each op: a WARMUP_SECONDS warm-up sending keyed and unkeyed requests mixed, then
//                runs of round(BENCH_SECONDS / 2) s (at least 1) in the order unkeyed, keyed,
//                keyed, unkeyed: both modes' runs sit at the same mean position, so a drift over
//                the op's runs (the machine's, or the tables growing) falls on both alike. A mode's
//                requests/s, p50 and p99 are the means of its two runs; non-2xx, errors and
//                timeouts their sums (the first distinct non-2xx answers are kept as samples).
//                Every connection cycles through the merchants; every request has a unique
//                reference where the body has one, and in keyed runs a fresh key of its own
//                (bench-<10 hex>-<counter>). Merchants are funded (one top-up each, through the
//                service's function) and their daily limits raised (SQL) so nothing is refused
//                for money or limits. keyedVsUnkeyedPercent = keyed ÷ unkeyed requests/s.
//   e8           POST …/disbursements/batch/addJson with the 50,000-line batch (about 13 MB)
//                through the real service (src/server.ts, API alone: WORKER_CONCURRENCY=0, so no
//                validation job competes; rate limit off; every other setting npm start's
//                default) on the same database. After one unkeyed warm-up, E8_RUNS_PER_MODE
//                unkeyed and keyed requests interleaved in the same order (u, k, k, u, u, k, …),
//                one at a time, each once autovacuum is done: time from
//                the request's start to the end of the accepted answer (median, min and max per
//                mode), the service's CPU time per request, and its peak resident set (VmHWM
//                at the end; VmRSS sampled every 100 ms, maximum per mode).
//                keyedVsUnkeyedPercent = keyed ÷ unkeyed median time.
// The table of pairs is printed to stdout after the JSON report (keyedTable).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type autocannon from 'autocannon';
import { Agent } from 'undici';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import type { MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { topup } from '../../src/modules/merchants/service.ts';
import { Api, SANDBOX } from '../lib/api.ts';
import { BATCH_LINES, buildBatch } from '../lib/batch.ts';
import { log, round1, sleep } from '../lib/common.ts';
import { describeDatabase, type BenchContext } from '../lib/context.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { autovacuumDone } from '../lib/db.ts';
import { describeGenerator, HookFiles, requestTemplates, runLoad, statusCodes, WARMUP_SECONDS, type Hooks } from '../lib/load.ts';
import { accessTokens, createMerchants, credentialsOf } from '../lib/merchants.ts';
import { peaksMb, RssSampler } from '../lib/memory.ts';
import { COLLECTION_AMOUNT, COLLECTION_AMOUNT_MINOR, COLLECTION_CAPTURED_BY, COLLECTION_DESCRIPTION, e12Body, E12_PATH, PAY_CONNECTOR_ID, PAY_PATH, payBody } from '../lib/requests.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { mean, median } from '../lib/stats.ts';

const MERCHANTS = 8;
const RUNS_PER_MODE = 2;
const E8_RUNS_PER_MODE = 5;
/** Requests/s of addFakeTransaction the prepared timed accounts allow (beyond it, payments are refused E921). */
const PAY_RATE_CAP = 4000;
/** Each merchant's disbursement balance, MWK: one top-up (its maximum). */
const FUNDING_MAJOR = 5_000_000_000;
const BANK_CONNECTOR_ID = 212188;
const DAILY_LIMIT_MINOR = 1_000_000_000_000_000;
const PAYOUT_AMOUNT = '100.00';
const TOPUP_AMOUNT = '1000.00';
const E8_CAPTURED_BY = 'bench-capturer@example.mw';
/** A pause before each E8, so the garbage of the previous one is collected before it starts. */
const E8_SETTLE_MS = 300;

type Mode = 'unkeyed' | 'keyed';

interface Op {
  name: 'e12' | 'addFakeTransaction' | 'e11' | 'singlePayout' | 'topup';
  /** As the printed table names it. */
  label: string;
  path: string;
  /** The body merchant k sends; `@REF@` becomes a unique reference, `@TA<k>@` a timed account of merchant k. */
  body: (m: MerchantCredentials, k: number) => string;
  /** Each request pays a prepared timed account. */
  paysTimedAccounts?: boolean;
}

const OPS: Op[] = [
  { name: 'e12', label: 'E12 requestToPay/initiate', path: E12_PATH, body: (m) => e12Body(m.merchantAccountNumber, '@REF@') },
  { name: 'addFakeTransaction', label: 'requestToPay/addFakeTransaction', path: PAY_PATH, body: (m, k) => payBody(m.merchantAccountNumber, `@TA${k}@`), paysTimedAccounts: true },
  {
    name: 'e11',
    label: 'E11 addFakeCustomPayment',
    path: `${SANDBOX}/collections/addFakeCustomPayment`,
    body: (m) => JSON.stringify({ beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: PAY_CONNECTOR_ID, transactionAmount: COLLECTION_AMOUNT, createdBy: COLLECTION_CAPTURED_BY }),
  },
  {
    name: 'singlePayout',
    label: 'disbursements/single/add',
    path: `${SANDBOX}/disbursements/single/add`,
    body: (m) =>
      JSON.stringify({
        merchantAccountNumber: m.merchantAccountNumber,
        beneficiaryName: 'Chikondi Banda',
        connectorId: PAY_CONNECTOR_ID,
        beneficiaryAccountNumber: '265991234567',
        transactionDescription: 'Bench payout',
        transactionAmount: PAYOUT_AMOUNT,
        sourceReferenceNumber: '@REF@',
        capturedBy: COLLECTION_CAPTURED_BY,
      }),
  },
  {
    name: 'topup',
    label: 'merchants/accounts/topup',
    path: `${SANDBOX}/merchants/accounts/topup`,
    body: (m) => JSON.stringify({ merchantAccountNumber: m.merchantAccountNumber, connectorId: BANK_CONNECTOR_ID, topupAmount: TOPUP_AMOUNT, createdBy: COLLECTION_CAPTURED_BY }),
  },
];

interface RunFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

function figures(r: autocannon.Result): RunFigures {
  return { requestsPerSecond: round1(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, statusCodes: statusCodes(r) };
}

/** A mode's runs together: means of the rates and percentiles, sums of the failures. */
function modeFigures(runs: RunFigures[], non2xxSamples: string[]) {
  return {
    requestsPerSecond: round1(mean(runs.map((r) => r.requestsPerSecond))),
    p50Ms: round1(mean(runs.map((r) => r.p50Ms))),
    p99Ms: round1(mean(runs.map((r) => r.p99Ms))),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    timeouts: runs.reduce((a, r) => a + r.timeouts, 0),
    ...(non2xxSamples.length > 0 ? { non2xxSamples } : {}),
    runs,
  };
}

const percentOf = (part: number, whole: number) => (whole > 0 ? round1((part / whole) * 100) : null);

/** Funding, raised daily limits: nothing the ops send is refused for money or limits. */
async function prepareMerchants(ctx: BenchContext, merchants: MerchantCredentials[]): Promise<void> {
  const { deps } = ctx;
  await deps.db.query(`update merchant_limits set daily_limit_minor = greatest(daily_limit_minor, $2::bigint) where merchant_account_number = any($1::int[])`, [
    merchants.map((m) => m.merchantAccountNumber),
    DAILY_LIMIT_MINOR,
  ]);
  for (const m of merchants) {
    await topup(deps, { merchantAccountNumber: m.merchantAccountNumber, connectorId: BANK_CONNECTOR_ID, topupAmountMinor: FUNDING_MAJOR * 100, createdBy: 'bench-funding@example.mw' }, async () => undefined);
  }
}

/**
 * `perMerchant` open timed accounts of each merchant (the requested amount, valid 2 hours), in one
 * INSERT … SELECT; numbers already held by an open request are skipped. Returns each merchant's.
 */
async function openTimedAccounts(ctx: BenchContext, merchants: MerchantCredentials[], perMerchant: number): Promise<string[][]> {
  const total = Math.ceil(perMerchant * 1.05) * merchants.length;
  const first = Math.floor(Math.random() * (10_000_000 - total));
  const prefix = randomBytes(4).toString('hex');
  const { rows } = await ctx.deps.db.query<{ merchant_account_number: number; timed_account_number: string }>(
    // Each number claimed as E12 claims it (timed_account_claims, migration 0032), then its request.
    `with drawn as (
       select i, ($1::int[])[1 + i % cardinality($1::int[])] as merchant_account_number, '1' || lpad(($2::int + i)::text, 7, '0') as timed_account_number,
              nextval('payment_requests_request_id_seq') as request_id
         from generate_series(0, $7::int - 1) as i
     ), claimed as (
       insert into timed_account_claims as t (timed_account_number, merchant_account_number, request_id, is_open)
       select timed_account_number, merchant_account_number, request_id, true from drawn
       on conflict (timed_account_number) do update
          set merchant_account_number = excluded.merchant_account_number, request_id = excluded.request_id, is_open = true
        where not t.is_open
       returning t.request_id
     )
     insert into payment_requests (request_id, merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description, reference_number, captured_by, expires_at)
     overriding system value
     select d.request_id, d.merchant_account_number, d.timed_account_number, $3, 'MWK', $4, 'K' || $5 || d.i::text, $6, now() + interval '2 hours'
       from drawn d join claimed c on c.request_id = d.request_id
     returning merchant_account_number, timed_account_number`,
    [merchants.map((m) => m.merchantAccountNumber), first, COLLECTION_AMOUNT_MINOR, COLLECTION_DESCRIPTION, prefix, COLLECTION_CAPTURED_BY, total],
  );
  const index = new Map(merchants.map((m, k) => [m.merchantAccountNumber, k]));
  const lists: string[][] = merchants.map(() => []);
  for (const r of rows) lists[index.get(r.merchant_account_number)!].push(r.timed_account_number);
  return lists;
}

/** u, k, k, u, u, k, …: `runs` of each mode, every pair's order the reverse of the previous one's. */
function interleaved(runs: number): Mode[] {
  return Array.from({ length: runs }, (_, i): Mode[] => (i % 2 === 0 ? ['unkeyed', 'keyed'] : ['keyed', 'unkeyed'])).flat();
}

/** One op: warm-up, then unkeyed and keyed runs interleaved. */
async function measureOp(ctx: BenchContext, op: Op, baseUrl: string, merchants: MerchantCredentials[], files: HookFiles, runSeconds: number) {
  const { load } = ctx;
  // Each run's timed accounts, taken from the front of each merchant's list.
  let accounts: string[][] | undefined;
  const capacity = (seconds: number) => Math.ceil((PAY_RATE_CAP * seconds) / merchants.length);
  if (op.paysTimedAccounts) {
    const perMerchant = capacity(WARMUP_SECONDS) + 2 * RUNS_PER_MODE * capacity(runSeconds);
    log(`keyed: ${op.name}: opening ${perMerchant} timed accounts for each merchant`);
    accounts = await openTimedAccounts(ctx, merchants, perMerchant);
  }
  const hooksFor = (seconds: number): Hooks => {
    if (!accounts) return files.hooks;
    const n = capacity(seconds);
    const taken = accounts.map((list) => list.slice(0, n));
    accounts = accounts.map((list) => list.slice(n));
    return files.withTimedAccounts(taken);
  };
  const templates = async (keyed: boolean, hooks: Hooks) => requestTemplates(op.path, await accessTokens(baseUrl, merchants), (k) => op.body(merchants[k], k), hooks, keyed);

  log(`keyed: ${op.name}: warming up ${WARMUP_SECONDS} s, keyed and unkeyed requests mixed`);
  const warmHooks = hooksFor(WARMUP_SECONDS);
  await runLoad(load, { url: baseUrl, requests: [...(await templates(false, warmHooks)), ...(await templates(true, warmHooks))] }, WARMUP_SECONDS);

  const runs: Record<Mode, RunFigures[]> = { unkeyed: [], keyed: [] };
  const samples: Record<Mode, Set<string>> = { unkeyed: new Set(), keyed: new Set() };
  for (const mode of interleaved(RUNS_PER_MODE)) {
    const requests = await templates(mode === 'keyed', hooksFor(runSeconds));
    files.clearNon2xx();
    const r = await runLoad(load, { url: baseUrl, requests }, runSeconds);
    const run = figures(r);
    runs[mode].push(run);
    if (r.non2xx > 0) for (const s of files.non2xxSamples()) samples[mode].add(s);
    log(`keyed: ${op.name} ${mode} run ${runs[mode].length}: ${JSON.stringify(run)}`);
  }
  const unkeyed = modeFigures(runs.unkeyed, [...samples.unkeyed].slice(0, 5));
  const keyed = modeFigures(runs.keyed, [...samples.keyed].slice(0, 5));
  return { method: 'POST', path: op.path, unkeyed, keyed, keyedVsUnkeyedPercent: percentOf(keyed.requestsPerSecond, unkeyed.requestsPerSecond) };
}

/** E8 through the service (API alone), unkeyed and keyed interleaved: time to the accepted answer. */
async function measureE8(ctx: BenchContext, merchant: MerchantCredentials) {
  const { lines } = buildBatch();
  const body = Buffer.from(JSON.stringify({ header: { merchantAccountNumber: merchant.merchantAccountNumber, isBatchScheduled: false, capturedBy: E8_CAPTURED_BY }, transactions: lines }));
  log(`keyed: e8: starting the service (src/server.ts, WORKER_CONCURRENCY=0, rate limit off); batch of ${BATCH_LINES} lines, ${(body.length / 1e6).toFixed(2)} MB`);
  let service: Service | undefined;
  let sampler: RssSampler | undefined;
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000, bodyTimeout: 600_000, headersTimeout: 600_000 });
  try {
    service = await startService(ctx.databaseUrl, { RATE_LIMIT_PER_SECOND: '0', WORKER_CONCURRENCY: '0' });
    const pid = service.child.pid!;
    sampler = new RssSampler(pid);
    sampler.enter('idle');
    const api = new Api(service.baseUrl, agent, credentialsOf(merchant), 'keyed');
    const submit = async (mode: Mode | 'warm-up') => {
      await autovacuumDone(ctx.deps.db);
      await sleep(E8_SETTLE_MS);
      const headers: Record<string, string> = mode === 'keyed' ? { 'x-idempotency-key': `bench-e8-${randomBytes(8).toString('hex')}` } : {};
      sampler!.enter(mode);
      const cpu0 = processCpuMs(pid);
      const a = await api.expect<{ batchNumber: number; BatchStatusCode: string }>('/disbursements/batch/addJson', body, headers);
      const cpuMs = processCpuMs(pid) - cpu0;
      sampler!.enter('idle');
      if (a.body.BatchStatusCode !== 'Q') throw new Error(`E8 answered ${a.text}`);
      log(`keyed: e8 ${mode}: batch ${a.body.batchNumber} accepted in ${round1(a.ms)} ms`);
      return { ms: a.ms, cpuMs };
    };
    const warmup = await submit('warm-up');
    const samples: Record<Mode, Array<{ ms: number; cpuMs: number }>> = { unkeyed: [], keyed: [] };
    for (const mode of interleaved(E8_RUNS_PER_MODE)) samples[mode].push(await submit(mode));
    const memory = sampler.stop();
    const peaksKb = sampler.peaksKb;
    sampler = undefined;
    const summary = (mode: Mode) => {
      const ms = samples[mode].map((s) => s.ms);
      return { medianMs: round1(median(ms)), minMs: round1(Math.min(...ms)), maxMs: round1(Math.max(...ms)), samplesMs: ms.map(round1), cpuMs: samples[mode].map((s) => s.cpuMs) };
    };
    const unkeyed = summary('unkeyed');
    const keyed = summary('keyed');
    const exitCode = await stopService(service);
    service = undefined;
    return {
      service: "src/server.ts, API alone (WORKER_CONCURRENCY=0), RATE_LIMIT_PER_SECOND=0, every other setting npm start's default",
      lines: BATCH_LINES,
      bodyBytes: body.length,
      runsPerMode: E8_RUNS_PER_MODE,
      warmupMs: round1(warmup.ms),
      unkeyed,
      keyed,
      keyedVsUnkeyedPercent: percentOf(keyed.medianMs, unkeyed.medianMs),
      // VmHWM: the service's peak resident set over its life (start-up, then only these E8s).
      peakRssMb: memory.hwmKb === undefined ? null : round1(memory.hwmKb / 1024),
      rssPeakMbByPhase: peaksMb(peaksKb),
      serviceExitCode: exitCode,
    };
  } finally {
    sampler?.stop();
    if (service) {
      const code = await stopService(service);
      if (code !== 0) log(`keyed: service exited with ${code}: ${service.stderrTail()}`);
    }
    await agent.close();
  }
}

export async function benchKeyed(ctx: BenchContext) {
  const { deps, load, seconds } = ctx;
  const runSeconds = Math.max(1, Math.round(seconds / 2));
  log(`keyed: creating ${MERCHANTS} merchants, funding them and raising their daily limits`);
  const merchants = await createMerchants(deps, MERCHANTS, 'Bench Keyed');
  await prepareMerchants(ctx, merchants);
  let built: BuiltApp | undefined;
  const files = new HookFiles('keyed');
  try {
    built = await buildApp({ ...deps, config: { ...deps.config, rateLimitPerSecond: 0 } });
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    log(`keyed: app listening on ${baseUrl} (rate limit off); ${OPS.length} ops, each ${RUNS_PER_MODE} × ${runSeconds} s unkeyed and keyed, interleaved`);
    const ops: Record<string, Awaited<ReturnType<typeof measureOp>>> = {};
    for (const op of OPS) ops[op.name] = await measureOp(ctx, op, baseUrl, merchants, files, runSeconds);
    await built.app.close();
    built = undefined;
    const e8 = await measureE8(ctx, merchants[0]);
    return {
      merchants: MERCHANTS,
      connections: load.connections,
      loadGenerator: describeGenerator(load.generator),
      database: describeDatabase(ctx),
      appDbPoolSize: deps.config.dbPoolSize,
      rateLimit: 'off (RATE_LIMIT_PER_SECOND=0)',
      method: `per op: ${WARMUP_SECONDS} s warm-up (both modes mixed), then ${RUNS_PER_MODE} runs of ${runSeconds} s per mode, interleaved ${interleaved(RUNS_PER_MODE).map((m) => m[0]).join(', ')}; a mode's figures are its runs' means`,
      secondsPerRun: runSeconds,
      runsPerMode: RUNS_PER_MODE,
      ops,
      e8,
      loadAverageAtEnd: os.loadavg().map(round1),
    };
  } finally {
    await built?.app.close().catch((err: Error) => log(`keyed: closing the app failed: ${err.message}`));
    files.remove();
  }
}

type KeyedReport = Awaited<ReturnType<typeof benchKeyed>>;

/** The pairs as one plain-text table (what `npm run bench` prints to stdout after the JSON report). */
export function keyedTable(keyed: KeyedReport): string {
  const header = ['operation', 'unkeyed req/s', 'keyed req/s', 'keyed/unkeyed', 'p50 ms u / k', 'p99 ms u / k', 'non-2xx u / k'];
  const rows = OPS.map((op) => {
    const o = keyed.ops[op.name];
    return [
      op.label,
      String(o.unkeyed.requestsPerSecond),
      String(o.keyed.requestsPerSecond),
      o.keyedVsUnkeyedPercent === null ? '-' : `${o.keyedVsUnkeyedPercent} %`,
      `${o.unkeyed.p50Ms} / ${o.keyed.p50Ms}`,
      `${o.unkeyed.p99Ms} / ${o.keyed.p99Ms}`,
      `${o.unkeyed.non2xx} / ${o.keyed.non2xx}`,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const e8 = keyed.e8;
  const out = [
    `Keyed vs unkeyed writes: ${keyed.merchants} merchants, ${keyed.connections} connections, rate limit off, ${keyed.database}; ${keyed.method}.`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    `E8 batch/addJson, ${e8.lines} lines, ms to the accepted answer (${e8.runsPerMode} each, interleaved; u / k): median ${e8.unkeyed.medianMs} / ${e8.keyed.medianMs} ` +
      `(keyed ${e8.keyedVsUnkeyedPercent ?? '-'} % of unkeyed), max ${e8.unkeyed.maxMs} / ${e8.keyed.maxMs}; service peak RSS ${e8.peakRssMb ?? '-'} MB ` +
      `(per mode ${e8.rssPeakMbByPhase.unkeyed ?? '-'} / ${e8.rssPeakMbByPhase.keyed ?? '-'} MB).`,
  ];
  for (const op of OPS) {
    for (const mode of ['unkeyed', 'keyed'] as const) {
      const m = keyed.ops[op.name][mode];
      if (m.non2xx > 0 || m.errors > 0) out.push(`${op.label} ${mode}: ${m.non2xx} non-2xx, ${m.errors} errors; ${('non2xxSamples' in m ? m.non2xxSamples : undefined)?.join(' | ') ?? ''}`);
    }
  }
  return out.join('\n') + '\n';
}

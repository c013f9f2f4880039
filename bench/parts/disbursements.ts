// `BENCH_ONLY=disbursements npm run bench` (and part of the default run): a 50,000-line E8 batch
// (about 13 MB of JSON) through the real service, started as `npm start` starts it (src/server.ts:
// API and worker in one process, every setting at its default; only DATABASE_URL, PORT and HOST
// are set) on a database of its own, with one level-1 merchant whose daily payout limits are
// raised so the whole batch fits. The client (undici, the body prebuilt as one Buffer) runs in
// the bench process. Measured, in one run:
//   bareParseMs     the same body POSTed to a bare node:http server in a child process that
//                   JSON.parses it and answers 200: request start → response end, median of 11,
//                   each measured just before one of the E8s below (after one warm-up). The
//                   floor E8 is compared with (`ratio`; `pairedRatios` each E8 with its own).
//   acceptMs        E8 without an idempotency key, median of 11 fresh batches (after one warm-up
//                   batch), each sent once autovacuum of the previous one's payouts is done;
//                   acceptWithKeyMs one more with an X-Idempotency-Key (the fingerprint of the
//                   whole body, the key's claim and its completion).
//   validatedMs     E8 request start → getBatch (polled every 50 ms) showing P, median of the same
//                   11 batches. Each batch is validated before the next is sent, so acceptMs never
//                   shares the machine with a validation job.
//   allFinalMs      transferFunds request start → getBatch (polled every 100 ms) showing C, for
//                   one of those batches: the debit, then the payout worker's chunks.
//   peakRssMb       the service process's VmHWM (/proc/<pid>/status) at the end; VmRSS is also
//                   sampled every 100 ms and its maximum reported per phase.
//   e3Page1000Ms    E3 pageNumber 1000, 50 rows, on the 50,000-line batch: median of 20 sequential
//                   requests (after 2 warm-up ones); e3SearchMs the same for a BeneficiaryName
//                   search matching 5 lines.
// Targets (issue): acceptMs ≤ 1500, ratio ≤ 3, validatedMs ≤ 3000, allFinalMs ≤ 30000,
// peakRssMb ≤ 500, e3Page1000Ms ≤ 20, e3SearchMs ≤ 50; reported with a `met` flag each, for
// reading only: nothing fails on them. The samples also give the CPU time the service and the bare
// server spent on each request (/proc/<pid>/stat), less disturbed by other load than elapsed time.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Agent, request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { Api } from '../lib/api.ts';
import { BATCH_LINES, buildBatch, SEARCH_MATCHES, SEARCH_SURNAME } from '../lib/batch.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { processCpuMs } from '../lib/cpu.ts';
import { autovacuumDone, benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { credentialsOf } from '../lib/merchants.ts';
import { peaksMb, RssSampler, serviceMemory } from '../lib/memory.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { median } from '../lib/stats.ts';

const LINES = BATCH_LINES;
const RUNS = 11;
/** A pause after each bare parse, so its garbage collection is over before the E8 starts. */
const BARE_SETTLE_MS = 300;
const E3_RUNS = 20;
const E3_WARMUP = 2;
const VALIDATE_POLL_MS = 50;
const FINAL_POLL_MS = 100;
const TOPUP_MAX_MAJOR = 5_000_000_000;
const CAPTURED_BY = 'bench-capturer@example.mw';
const TRANSFERRED_BY = 'bench-treasurer@example.mw';

const TARGETS = {
  acceptMs: 1500,
  ratio: 3,
  validatedMs: 3000,
  allFinalMs: 30_000,
  peakRssMb: 500,
  e3Page1000Ms: 20,
  e3SearchMs: 50,
} as const;

// ---------------------------------------------------------------------------------------------
// The bare node:http parser.

/** A node:http server that reads the body, JSON.parses it and answers 200: the floor for E8. */
const BARE_SERVER_SOURCE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const answer = JSON.stringify({ lines: body.transactions.length });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function startBareServer(): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.on('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}/`, exited };
}

interface BatchView {
  batchStatusCode: string;
  numberOfEntries: number;
  numberOfValidEntries: number;
  numberOfInvalidEntries: number;
  numberOfSuccessfulEntries: number;
  numberOfFailedEntries: number;
  errorMessage: string | null;
}

/** Polls getBatch until the status leaves `while`; returns when (performance.now()) and the batch. */
async function pollBatch(api: Api, merchantAccountNumber: number, batchNumber: number, whileStatus: string, everyMs: number, timeoutMs: number) {
  const body = JSON.stringify({ merchantAccountNumber, batchNumber });
  const started = performance.now();
  let polls = 0;
  for (;;) {
    const a = await api.expect<BatchView>('/disbursements/batch/getBatch', body);
    polls += 1;
    if (a.body.batchStatusCode !== whileStatus) return { at: performance.now(), batch: a.body, polls };
    if (performance.now() - started > timeoutMs) throw new Error(`batch ${batchNumber} still ${whileStatus} after ${timeoutMs} ms: ${a.text}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------

export async function benchDisbursements({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`disbursements: database ${databaseName} created; starting the service (src/server.ts, npm start's defaults)`);
  let service: Service | undefined;
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  let sampler: RssSampler | undefined;
  let db: Db | undefined;
  const agent = new Agent({ connections: 4, keepAliveTimeout: 60_000, bodyTimeout: 600_000, headersTimeout: 600_000 });
  try {
    const { lines, wallets, banks, amountMinor } = buildBatch();
    const header = (merchantAccountNumber: number) => ({ merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURED_BY });

    service = await startService(databaseUrl);
    const pid = service.child.pid!;
    sampler = new RssSampler(pid);
    sampler.enter('idle');
    const defaults = loadConfig({});
    log(`disbursements: service pid ${pid} at ${service.baseUrl} (worker concurrency ${defaults.workerConcurrency}, pool ${defaults.dbPoolSize}, rate limit ${defaults.rateLimitPerSecond}/s)`);

    // The merchant: level 1 (transferFunds straight from P), daily payout limits raised past the batch.
    db = createPool(databaseUrl, 2);
    const deps = benchDeps(db, loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }));
    const merchant = await createMerchant(deps, { accountName: 'Bench Disbursements', levelNumber: 1, capturedBy: 'bench' });
    const m = merchant.merchantAccountNumber;
    await db.query(`update merchant_limits set daily_limit_minor = greatest(daily_limit_minor, $2::bigint) where merchant_account_number = $1 and transaction_code in ('MMW', 'MBA')`, [
      m,
      100_000_000_000_000,
    ]);
    const api = new Api(service.baseUrl, agent, credentialsOf(merchant));
    // One batch is transferred: its amounts plus at most MWK 150 of fees a line.
    let toFund = Math.ceil(amountMinor / 100 + LINES * 150);
    while (toFund > 0) {
      const amount = Math.min(toFund, TOPUP_MAX_MAJOR);
      await api.expect('/merchants/accounts/topup', JSON.stringify({ merchantAccountNumber: m, connectorId: 212188, topupAmount: amount, createdBy: 'bench-funding@example.mw' }));
      toFund -= amount;
    }

    const body = Buffer.from(JSON.stringify({ header: header(m), transactions: lines }));
    log(`disbursements: merchant ${m} (level 1); batch of ${LINES} lines (${wallets} wallet, ${banks} bank), ${(body.length / 1e6).toFixed(2)} MB`);

    // 1. The floor: a bare node:http server parsing the same body. It runs next to the service and
    // is measured just before each E8 (both idle then), so the two sides of the ratio are sampled
    // in pairs under the same conditions: a shared machine's speed drifts over a run by more
    // than the differences measured here.
    bare = await startBareServer();
    const bareServer = bare;
    const bareParse = async () => {
      const cpu0 = processCpuMs(bareServer.child.pid!);
      const t0 = performance.now();
      const res = await undiciRequest(bareServer.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher: agent });
      const text = await res.body.text();
      const ms = performance.now() - t0;
      if (res.statusCode !== 200 || (JSON.parse(text) as { lines: number }).lines !== LINES) throw new Error(`bare server: HTTP ${res.statusCode} ${text}`);
      // Its garbage collected before the E8 starts.
      await sleep(BARE_SETTLE_MS);
      return { ms, cpuMs: processCpuMs(bareServer.child.pid!) - cpu0 };
    };
    const bareWarmup = await bareParse();

    // 2 and 3. E8, each batch validated before the next is sent.
    const submit = async (label: string, headers: Record<string, string> = {}) => {
      const floor = await bareParse();
      sampler!.enter('accept');
      const cpu0 = processCpuMs(pid);
      const a = await api.expect<{ batchNumber: number; BatchStatusCode: string }>('/disbursements/batch/addJson', body, headers);
      const t0 = performance.now() - a.ms;
      // The service's CPU time for the request (its worker is idle: the previous batch is validated).
      const acceptCpuMs = processCpuMs(pid) - cpu0;
      if (a.body.BatchStatusCode !== 'Q') throw new Error(`E8 answered ${a.text}`);
      sampler!.enter('validate');
      const done = await pollBatch(api, m, a.body.batchNumber, 'Q', VALIDATE_POLL_MS, 120_000);
      if (done.batch.batchStatusCode !== 'P' || done.batch.numberOfInvalidEntries !== 0) {
        throw new Error(`batch ${a.body.batchNumber} validated as ${done.batch.batchStatusCode} with ${done.batch.numberOfInvalidEntries} invalid lines: ${done.batch.errorMessage ?? ''}`);
      }
      const result = { batchNumber: a.body.batchNumber, acceptMs: a.ms, acceptCpuMs, validatedMs: done.at - t0, bareParseMs: floor.ms, bareParseCpuMs: floor.cpuMs };
      log(`disbursements: ${label}: bare parse ${round1(floor.ms)} ms; batch ${result.batchNumber} accepted in ${round1(result.acceptMs)} ms, P after ${round1(result.validatedMs)} ms`);
      sampler!.enter('idle');
      await sleep(500);
      // The bare parse ran on an idle machine; so does each E8: autovacuum of the 50,000 payouts
      // just validated (its insert threshold) otherwise competes with the next one at random.
      await autovacuumDone(db!);
      return result;
    };
    const warmup = await submit('warm-up');
    const runs: Array<Awaited<ReturnType<typeof submit>>> = [];
    for (let i = 1; i <= RUNS; i++) runs.push(await submit(`run ${i}`));
    const withKey = await submit('with idempotency key', { 'x-idempotency-key': `bench-disb-${randomBytes(8).toString('hex')}` });
    const memoryAfterAccept = await serviceMemory(service.baseUrl);
    const acceptMs = median(runs.map((r) => r.acceptMs));
    const bareParseMs = median(runs.map((r) => r.bareParseMs));
    const validatedMs = median(runs.map((r) => r.validatedMs));

    // 4. transferFunds on one of them, until every line is final.
    const transferred = runs[0].batchNumber;
    log(`disbursements: transferFunds on batch ${transferred}`);
    sampler.enter('transfer');
    const tf = await api.expect<{ BatchStatusCode: string }>(
      '/disbursements/batch/transferFunds',
      JSON.stringify({ merchantAccountNumber: m, batchNumber: transferred, transferredBy: TRANSFERRED_BY }),
    );
    const tfStarted = performance.now() - tf.ms;
    if (tf.body.BatchStatusCode !== 'T') throw new Error(`transferFunds answered ${tf.text}`);
    const final = await pollBatch(api, m, transferred, 'T', FINAL_POLL_MS, 600_000);
    const allFinalMs = final.at - tfStarted;
    log(`disbursements: batch ${transferred} ${final.batch.batchStatusCode} after ${round1(allFinalMs)} ms (transferFunds answered in ${round1(tf.ms)} ms)`);
    sampler.enter('idle');
    await sleep(1000);

    // 5. E3 on the transferred batch (every line final): page 1,000 and a name search.
    sampler.enter('e3');
    const e3 = async (label: string, request: object, check: (rows: Array<{ lineNumber: number; beneficiaryName: string }>) => boolean) => {
      const text = JSON.stringify(request);
      const samples: number[] = [];
      await sleep(1100); // a fresh rate-limit window
      for (let i = 0; i < E3_WARMUP + E3_RUNS; i++) {
        const a = await api.expect<{ message: Array<{ lineNumber: number; beneficiaryName: string }> }>('/disbursements/batch/getTransactions', text);
        if (!check(a.body.message)) throw new Error(`${label}: unexpected answer ${a.text.slice(0, 600)}`);
        if (i >= E3_WARMUP) samples.push(a.ms);
      }
      log(`disbursements: ${label} median ${round1(median(samples))} ms (min ${round1(Math.min(...samples))}, max ${round1(Math.max(...samples))})`);
      return samples;
    };
    const pageSamples = await e3('e3Page1000', { merchantAccountNumber: m, batchNumber: transferred, pageNumber: 1000, numberOfReturnedRows: 50 }, (rows) => rows.length === 50 && rows[0].lineNumber === 49_951);
    const searchText = SEARCH_SURNAME.slice(0, 8).toLowerCase();
    const searchSamples = await e3(
      'e3Search',
      { merchantAccountNumber: m, batchNumber: transferred, pageNumber: 1, numberOfReturnedRows: 50, searchBy: 'BeneficiaryName', searchText },
      (rows) => rows.length === SEARCH_MATCHES && rows.every((r) => r.beneficiaryName.includes(SEARCH_SURNAME)),
    );

    const memoryAtEnd = await serviceMemory(service.baseUrl);
    const memory = sampler.stop();
    const peaksKb = sampler.peaksKb;
    sampler = undefined;
    // VmHWM: the process's peak resident set, whatever the sampling missed.
    const peakRssMb = round1((memory.hwmKb ?? Math.max(0, ...Object.values(peaksKb))) / 1024);
    const e3Page1000Ms = median(pageSamples);
    const e3SearchMs = median(searchSamples);
    const ratio = Math.round((acceptMs / bareParseMs) * 100) / 100;
    const measured = { acceptMs, ratio, validatedMs, allFinalMs, peakRssMb, e3Page1000Ms, e3SearchMs };
    const targets = Object.fromEntries(
      (Object.keys(TARGETS) as Array<keyof typeof TARGETS>).map((k) => [k, { atMost: TARGETS[k], measured: k === 'ratio' ? measured[k] : round1(measured[k]), met: measured[k] <= TARGETS[k] }]),
    );
    const exitCode = await stopService(service);
    service = undefined;
    return {
      service: `src/server.ts (API and worker in one process) with npm start's defaults: worker concurrency ${defaults.workerConcurrency}, pool ${defaults.dbPoolSize}, rate limit ${defaults.rateLimitPerSecond}/s per merchant, LOG_LEVEL ${defaults.logLevel}; DATABASE_URL, PORT and HOST set`,
      batch: { lines: LINES, walletLines: wallets, bankLines: banks, bodyBytes: body.length, totalAmount: amountMinor / 100 },
      bareParseMs: round1(bareParseMs),
      acceptMs: round1(acceptMs),
      acceptWithKeyMs: round1(withKey.acceptMs),
      ratio,
      // The same comparison in CPU time (the service's process against the bare server's), which
      // other load on a shared machine disturbs less than elapsed time.
      cpuRatio: Math.round((median(runs.map((r) => r.acceptCpuMs)) / Math.max(10, median(runs.map((r) => r.bareParseCpuMs)))) * 100) / 100,
      validatedMs: round1(validatedMs),
      allFinalMs: round1(allFinalMs),
      peakRssMb,
      e3Page1000Ms: round1(e3Page1000Ms),
      e3SearchMs: round1(e3SearchMs),
      samples: {
        bareParseMs: runs.map((r) => round1(r.bareParseMs)),
        bareParseWarmupMs: round1(bareWarmup.ms),
        bareParseCpuMs: runs.map((r) => r.bareParseCpuMs),
        acceptMs: runs.map((r) => round1(r.acceptMs)),
        // Each E8 against the bare parse measured just before it.
        pairedRatios: runs.map((r) => Math.round((r.acceptMs / r.bareParseMs) * 100) / 100),
        acceptWarmupMs: round1(warmup.acceptMs),
        acceptCpuMs: runs.map((r) => r.acceptCpuMs),
        acceptWithKeyCpuMs: withKey.acceptCpuMs,
        validatedMs: runs.map((r) => round1(r.validatedMs)),
        validatedWarmupMs: round1(warmup.validatedMs),
        validatedWithKeyMs: round1(withKey.validatedMs),
        transferFundsResponseMs: round1(tf.ms),
        e3Page1000Ms: { min: round1(Math.min(...pageSamples)), max: round1(Math.max(...pageSamples)) },
        e3SearchMs: { min: round1(Math.min(...searchSamples)), max: round1(Math.max(...searchSamples)), searchText, matches: SEARCH_MATCHES },
      },
      finalBatch: {
        batchNumber: transferred,
        status: final.batch.batchStatusCode,
        successful: final.batch.numberOfSuccessfulEntries,
        failed: final.batch.numberOfFailedEntries,
      },
      rssPeakMbByPhase: peaksMb(peaksKb),
      rssAtEndMb: memory.rssKb === undefined ? null : round1(memory.rssKb / 1024),
      // What the service itself reports (V8 heap and external memory against its RSS).
      serviceMemoryMb: { afterAccept: memoryAfterAccept, atEnd: memoryAtEnd },
      serviceExitCode: exitCode,
      // The machine may be shared: other work shows up in these and in every number above.
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
      targets,
    };
  } finally {
    sampler?.stop();
    if (bare) {
      bare.child.kill('SIGTERM');
      await bare.exited;
    }
    if (service) {
      const code = await stopService(service);
      if (code !== 0) log(`disbursements: service exited with ${code}: ${service.stderrTail()}`);
    }
    await agent.close();
    await db?.end().catch(() => undefined);
    await dropDatabase(adminUrl, databaseName, 'disbursements: ');
  }
}

// `BENCH_ONLY=collections npm run bench` (and part of the default run): E12 (request to pay) under
// load, the same transaction sent straight through node-postgres as the ceiling it is measured
// against, 1,000 concurrent E12s, and racing payments of one timed account. On the run's
// database; an app (buildApp in this process) with the rate limit off (RATE_LIMIT_PER_SECOND=0),
// 50 merchants each with its own token.
//   e12          POST /sandbox/v1/collections/requestToPay/initiate under autocannon, every
//                connection cycling through the merchants, a unique referenceNumber per request,
//                no idempotency key. Reports the CPU split (this process's main thread — the
//                server's event loop — its other threads — the load generator, GC — PostgreSQL's
//                processes, and everything else on the machine, from /proc) and the rows inserted
//                (≥ the 2xx count: requests in flight when a run ends still commit).
//                Requests that arrive together share one insert (INITIATE_BATCH_ROWS, default
//                64): e12.batchRows shows how many shared a statement on average.
//   e12OneByOne  the same for min(5, BENCH_SECONDS) s on a second app with INITIATE_BATCH_ROWS=1:
//                one insert and one commit per request, as the baseline does.
//   e12Idempotent  the same for min(5, BENCH_SECONDS) s with a unique X-Idempotency-Key each
//                (adds the key's claim, its own transaction, and its completion; never shared).
//                The keyed part measures it again beside the unkeyed E12, interleaved.
//   postgresBaseline  the same database work without HTTP: BENCH_CONNECTIONS clients in one pool
//                running E12's transaction back to back through node-postgres (the statements
//                createPaymentRequest sends, through the same repository functions) for
//                BENCH_SECONDS; e12VsBaselinePercent compares the two. Run before e12, so e12
//                meets the larger table.
//   roundTrips   200 E12 requests one at a time, with and without a key: statements per request
//                (every node-postgres query of the process is counted) and time spent waiting
//                on them (the client runs in this thread too, so the rest is not all server).
//   concurrent1000  1,000 E12 requests at once (one keep-alive connection each): all must
//                succeed with distinct timed accounts, checked in the answers and the database.
//   racingPayments  20 timed accounts, each paid by 10 concurrent addFakeTransaction requests:
//                exactly one 200 and one collection row per account.
//   meetsTargets  the targets (≥ 1,500 req/s, p99 ≤ 50 ms, ≥ 60 % of the baseline, the two
//                races) as booleans, for reading only: nothing fails on them.
//                e12OneByOneVsBaselinePercent is reported beside e12VsBaselinePercent.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type autocannon from 'autocannon';
import pg from 'pg';
import { Agent, request as undiciRequest } from 'undici';
import { buildApp } from '../../src/app.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { randomDigits } from '../../src/lib/ids.ts';
import { insertPaymentRequest } from '../../src/modules/collections/repository.ts';
import type { MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { cpuSample, cpuSplit, findPostmaster } from '../lib/cpu.ts';
import { HookFiles, requestTemplates, runLoad, statusCodes, WARMUP_SECONDS, type Hooks, type LoadOptions } from '../lib/load.ts';
import { accessTokens, createMerchants } from '../lib/merchants.ts';
import { COLLECTION_AMOUNT_MINOR, COLLECTION_CAPTURED_BY, COLLECTION_DESCRIPTION, e12Body, E12_PATH, PAY_PATH, payBody } from '../lib/requests.ts';
import { percentile } from '../lib/stats.ts';

const COLLECTION_MERCHANTS = 50;
const IDEMPOTENT_SECONDS_MAX = 5;
const ROUND_TRIP_PROBE_REQUESTS = 200;
const BURST_REQUESTS = 1000;
const RACE_ACCOUNTS = 20;
const RACE_PAYERS = 10;

/** One E12 template per merchant; every connection cycles through all of them. */
function e12Requests(merchants: MerchantCredentials[], tokens: string[], hooks: Hooks, idempotent: boolean): autocannon.Request[] {
  return requestTemplates(E12_PATH, tokens, (i) => e12Body(merchants[i].merchantAccountNumber, '@REF@'), hooks, idempotent);
}

/** The shared-insert histogram's count and sum, from the app's /metrics. */
async function batchRowsMetric(baseUrl: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
  const value = (suffix: string) => Number(new RegExp(`^db_batched_statement_rows_${suffix}\\{statement="insert_payment_requests"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

async function countRequests(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from payment_requests');
  return rows[0].n;
}

/** E12 under autocannon: warm-up, then measured with CPU split and a row count as a cross-check. */
async function measureE12(name: string, load: LoadOptions, deps: Deps, postmaster: number | undefined, baseUrl: string, requests: autocannon.Request[], seconds: number, files: HookFiles) {
  const run = (s: number) => runLoad(load, { url: baseUrl, requests }, s);
  log(`${name}: warming up ${WARMUP_SECONDS} s`);
  await run(WARMUP_SECONDS);
  log(`${name}: measuring ${seconds} s with ${load.connections} connections over ${requests.length} merchants`);
  files.clearNon2xx();
  const rowsBefore = await countRequests(deps.db);
  const before = cpuSample(postmaster);
  const r = await run(seconds);
  const after = cpuSample(postmaster);
  await sleep(200);
  const rowsInserted = (await countRequests(deps.db)) - rowsBefore;
  const measured = {
    requestsPerSecond: round1(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: statusCodes(r),
    ...(r.non2xx > 0 ? { non2xxSamples: files.non2xxSamples() } : {}),
    rowsInserted,
    seconds,
    cpu: cpuSplit(before, after),
  };
  log(`${name}: ${JSON.stringify(measured)}`);
  return measured;
}

/**
 * E12's transaction through node-postgres alone: the statements createPaymentRequest sends, each
 * through the repository function that sends it (so the SQL stays E12's), in one transaction on
 * a pooled client, without HTTP, Fastify, authentication or the service's checks.
 */
async function baselineTransaction(db: Db, merchantAccountNumber: number, referenceNumber: string, expiryMinutes: number): Promise<void> {
  // E12 without an idempotency key is this one statement (merchant check, limits, insert), sent
  // on its own: an implicit transaction.
  for (let attempt = 0; ; attempt++) {
    const outcome = await insertPaymentRequest(db, {
      merchantAccountNumber,
      timedAccountNumber: randomDigits(8, '1'),
      amountMinor: COLLECTION_AMOUNT_MINOR,
      transactionDescription: COLLECTION_DESCRIPTION,
      referenceNumber,
      capturedBy: COLLECTION_CAPTURED_BY,
      expiryMinutes,
    });
    if (outcome.request) return;
    if (attempt >= 19) throw new Error('no free timed account number in 20 attempts');
  }
}
/** What baselineTransaction sends, for the report (the round-trip probe shows what E12 sends). */
const BASELINE_STATEMENTS = ['insertPaymentRequest (one statement: merchant for share, RTP limits, insert … on conflict do nothing)'];

/** `concurrency` loops each running `one` back to back until the deadline; what finished in time counts. */
async function closedLoop(concurrency: number, seconds: number, one: () => Promise<void>) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await one();
          const t1 = performance.now();
          if (t1 <= deadline) latencies.push(t1 - t0);
        } catch (err) {
          errors += 1;
          firstError ??= (err as Error).message;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, seconds: (performance.now() - started) / 1000, latencies, errors, firstError };
}

async function measureBaseline(ctx: BenchContext, postmaster: number | undefined, merchants: MerchantCredentials[]) {
  const { deps, seconds } = ctx;
  const clients = ctx.load.connections;
  const pool = createPool(ctx.databaseUrl, clients);
  const prefix = randomBytes(5).toString('hex');
  let seq = 0;
  const one = () => {
    seq += 1;
    return baselineTransaction(pool, merchants[seq % merchants.length].merchantAccountNumber, `P${prefix}${seq.toString(36)}`, deps.config.timedAccountMinutes);
  };
  try {
    log(`postgresBaseline: warming up ${WARMUP_SECONDS} s`);
    await closedLoop(clients, WARMUP_SECONDS, one);
    log(`postgresBaseline: measuring ${seconds} s with ${clients} clients in one pool`);
    const before = cpuSample(postmaster);
    const r = await closedLoop(clients, seconds, one);
    const after = cpuSample(postmaster);
    const measured = {
      transactionsPerSecond: round1(r.count / r.seconds),
      p50Ms: round1(percentile(r.latencies, 50)),
      p99Ms: round1(percentile(r.latencies, 99)),
      errors: r.errors,
      ...(r.firstError ? { firstError: r.firstError } : {}),
      clients,
      seconds,
      statements: BASELINE_STATEMENTS,
      cpu: cpuSplit(before, after),
    };
    log(`postgresBaseline: ${JSON.stringify(measured)}`);
    return measured;
  } finally {
    await pool.end();
  }
}

/**
 * Statements per request and time spent waiting on them, one request at a time: every
 * node-postgres query of the process is counted while the probe runs (the app is otherwise idle).
 */
async function probeRoundTrips(baseUrl: string, merchants: MerchantCredentials[], tokens: string[], idempotent: boolean) {
  const statements = new Map<string, { count: number; ms: number }>();
  let queries = 0;
  let dbMs = 0;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; name?: string };
    const text = typeof config === 'string' ? config : (config.name ?? config.text ?? '?');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 48);
    const entry = statements.get(key) ?? { count: 0, ms: 0 };
    statements.set(key, entry);
    entry.count += 1;
    queries += 1;
    const started = performance.now();
    const done = () => {
      const ms = performance.now() - started;
      dbMs += ms;
      entry.ms += ms;
    };
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (...a: unknown[]) => void;
      args[last] = (...a: unknown[]) => {
        done();
        callback(...a);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  const agent = new Agent({ connections: 1 });
  const prefix = randomBytes(5).toString('hex');
  const latencies: number[] = [];
  let failed = 0;
  try {
    for (let i = 0; i < ROUND_TRIP_PROBE_REQUESTS; i++) {
      const m = i % merchants.length;
      const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${tokens[m]}` };
      if (idempotent) headers['x-idempotency-key'] = `probe-${prefix}-${i.toString().padStart(6, '0')}`;
      const t0 = performance.now();
      const res = await undiciRequest(baseUrl + E12_PATH, { method: 'POST', headers, body: e12Body(merchants[m].merchantAccountNumber, `R${prefix}${i}`), dispatcher: agent });
      await res.body.text();
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) failed += 1;
    }
  } finally {
    proto.query = original;
    await agent.close();
  }
  latencies.sort((a, b) => a - b);
  const n = ROUND_TRIP_PROBE_REQUESTS;
  const meanMs = latencies.reduce((a, b) => a + b, 0) / n;
  return {
    requests: n,
    failed,
    queriesPerRequest: round1(queries / n),
    // Per statement: how many per request, and the mean milliseconds from sending it to its answer.
    statements: Object.fromEntries([...statements].map(([k, v]) => [k, { perRequest: Math.round((v.count / n) * 100) / 100, meanMs: Math.round((v.ms / v.count) * 100) / 100 }])),
    meanLatencyMs: Math.round(meanMs * 100) / 100,
    meanDbWaitMs: Math.round((dbMs / n) * 100) / 100,
    meanOutsideDbMs: Math.round((meanMs - dbMs / n) * 100) / 100,
  };
}

interface Answer {
  status: number;
  body: string;
}

async function post(agent: Agent, url: string, token: string, body: string): Promise<Answer> {
  try {
    const res = await undiciRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body, dispatcher: agent });
    return { status: res.statusCode, body: await res.body.text() };
  } catch (err) {
    return { status: 0, body: (err as Error).message };
  }
}

/** "200", or "402 E921" for a problem answer, or "0" for a transport error. */
function outcome(a: Answer): string {
  if (a.status === 200 || a.status === 0) return String(a.status);
  try {
    return `${a.status} ${(JSON.parse(a.body) as { errorCode?: string }).errorCode ?? ''}`.trim();
  } catch {
    return String(a.status);
  }
}

function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[outcome(a)] = (counts[outcome(a)] ?? 0) + 1;
  return counts;
}

/** 1,000 E12 requests at once over real HTTP (one keep-alive connection each), across the merchants. */
async function burstE12(deps: Deps, baseUrl: string, merchants: MerchantCredentials[], tokens: string[]) {
  const agent = new Agent({ connections: BURST_REQUESTS, keepAliveTimeout: 30_000 });
  const prefix = randomBytes(5).toString('hex');
  const references = Array.from({ length: BURST_REQUESTS }, (_, i) => `C${prefix}${i}`);
  try {
    log(`concurrent1000: ${BURST_REQUESTS} E12 requests at once`);
    const started = performance.now();
    const answers = await Promise.all(references.map((ref, i) => post(agent, baseUrl + E12_PATH, tokens[i % merchants.length], e12Body(merchants[i % merchants.length].merchantAccountNumber, ref))));
    const seconds = (performance.now() - started) / 1000;
    const timed = answers.filter((a) => a.status === 200).map((a) => (JSON.parse(a.body) as { timedAccountNumber: string }).timedAccountNumber);
    const { rows } = await deps.db.query<{ n: number; accounts: number; open: number }>(
      `select count(*)::int as n, count(distinct timed_account_number)::int as accounts, count(*) filter (where status_code = 'O')::int as open
         from payment_requests where reference_number = any($1::text[])`,
      [references],
    );
    const { rows: matching } = await deps.db.query<{ n: number }>(`select count(*)::int as n from payment_requests where status_code = 'O' and timed_account_number = any($1::text[])`, [timed]);
    const result = {
      requests: BURST_REQUESTS,
      succeeded: timed.length,
      outcomes: tally(answers),
      distinctTimedAccountsInResponses: new Set(timed).size,
      rowsInDatabase: rows[0].n,
      distinctTimedAccountsInDatabase: rows[0].accounts,
      openInDatabase: rows[0].open,
      openRequestsHoldingTheAnsweredAccounts: matching[0].n,
      allSucceededAndDistinct: timed.length === BURST_REQUESTS && new Set(timed).size === BURST_REQUESTS && rows[0].accounts === BURST_REQUESTS && matching[0].n === BURST_REQUESTS,
      seconds: Math.round(seconds * 1000) / 1000,
    };
    log(`concurrent1000: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await agent.close();
  }
}

/** For each of RACE_ACCOUNTS timed accounts, RACE_PAYERS concurrent payments: exactly one may win. */
async function racePayments(deps: Deps, baseUrl: string, merchants: MerchantCredentials[], tokens: string[]) {
  const agent = new Agent({ connections: RACE_PAYERS * 2, keepAliveTimeout: 30_000 });
  const prefix = randomBytes(5).toString('hex');
  try {
    log(`racingPayments: ${RACE_ACCOUNTS} timed accounts, ${RACE_PAYERS} concurrent payments of each`);
    const accounts: { merchant: MerchantCredentials; token: string; timedAccountNumber: string }[] = [];
    for (let i = 0; i < RACE_ACCOUNTS; i++) {
      const m = i % merchants.length;
      const a = await post(agent, baseUrl + E12_PATH, tokens[m], e12Body(merchants[m].merchantAccountNumber, `D${prefix}${i}`));
      if (a.status !== 200) throw new Error(`E12 for the race failed: HTTP ${a.status} ${a.body}`);
      accounts.push({ merchant: merchants[m], token: tokens[m], timedAccountNumber: (JSON.parse(a.body) as { timedAccountNumber: string }).timedAccountNumber });
    }
    const all: Answer[] = [];
    let accountsWithOneWinner = 0;
    for (const account of accounts) {
      const body = payBody(account.merchant.merchantAccountNumber, account.timedAccountNumber);
      const answers = await Promise.all(Array.from({ length: RACE_PAYERS }, () => post(agent, baseUrl + PAY_PATH, account.token, body)));
      all.push(...answers);
      if (answers.filter((a) => a.status === 200).length === 1) accountsWithOneWinner += 1;
    }
    const { rows } = await deps.db.query<{ timed_account_number: string; status_code: string; collections: number }>(
      `select r.timed_account_number, r.status_code, count(c.collection_id)::int as collections
         from payment_requests r left join collections c on c.merchant_account_number = r.merchant_account_number and c.request_id = r.request_id
        where r.reference_number like $1 group by r.merchant_account_number, r.request_id, r.timed_account_number, r.status_code`,
      [`D${prefix}%`],
    );
    const collectionsPerAccount: Record<string, number> = {};
    for (const row of rows) collectionsPerAccount[String(row.collections)] = (collectionsPerAccount[String(row.collections)] ?? 0) + 1;
    const result = {
      timedAccounts: RACE_ACCOUNTS,
      paymentsPerAccount: RACE_PAYERS,
      outcomes: tally(all),
      accountsWithExactlyOne200: accountsWithOneWinner,
      accountsByCollectionRows: collectionsPerAccount,
      accountsPaidInDatabase: rows.filter((r) => r.status_code === 'P').length,
      exactlyOnePaymentEach: accountsWithOneWinner === RACE_ACCOUNTS && rows.length === RACE_ACCOUNTS && rows.every((r) => r.collections === 1 && r.status_code === 'P'),
    };
    log(`racingPayments: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await agent.close();
  }
}

export async function benchCollections(ctx: BenchContext) {
  const { deps, load, seconds } = ctx;
  const idempotentSeconds = Math.min(IDEMPOTENT_SECONDS_MAX, seconds);
  log(`collections: creating ${COLLECTION_MERCHANTS} merchants`);
  const merchants = await createMerchants(deps, COLLECTION_MERCHANTS, 'Bench Collections');
  const built = await buildApp({ ...deps, config: { ...deps.config, rateLimitPerSecond: 0 } });
  const files = new HookFiles('collections');
  const hooks = files.hooks;
  try {
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const postmaster = await findPostmaster(deps.db);
    log(`collections: app listening on ${baseUrl} (rate limit off); PostgreSQL postmaster ${postmaster ?? 'not on this machine or not readable'}`);
    // Tokens last 5 minutes: fetched again before each part.
    let tokens = await accessTokens(baseUrl, merchants);

    const postgresBaseline = await measureBaseline(ctx, postmaster, merchants);
    tokens = await accessTokens(baseUrl, merchants);
    const batchesBefore = await batchRowsMetric(baseUrl);
    const e12Run = await measureE12('e12', load, deps, postmaster, baseUrl, e12Requests(merchants, tokens, hooks, false), seconds, files);
    const batchesAfter = await batchRowsMetric(baseUrl);
    const e12 = { ...e12Run, batchRows: { statements: batchesAfter.count - batchesBefore.count, meanRowsPerStatement: round1((batchesAfter.sum - batchesBefore.sum) / Math.max(1, batchesAfter.count - batchesBefore.count)) } };
    const oneByOne = await buildApp({ ...deps, config: { ...deps.config, rateLimitPerSecond: 0, initiateBatchRows: 1 } });
    let e12OneByOne: Awaited<ReturnType<typeof measureE12>>;
    try {
      const oneByOneUrl = (await oneByOne.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
      e12OneByOne = await measureE12('e12OneByOne', load, deps, postmaster, oneByOneUrl, e12Requests(merchants, tokens, hooks, false), idempotentSeconds, files);
    } finally {
      await oneByOne.app.close();
    }
    tokens = await accessTokens(baseUrl, merchants);
    const e12Idempotent = await measureE12('e12Idempotent', load, deps, postmaster, baseUrl, e12Requests(merchants, tokens, hooks, true), idempotentSeconds, files);

    tokens = await accessTokens(baseUrl, merchants);
    log(`roundTrips: ${ROUND_TRIP_PROBE_REQUESTS} E12 requests one at a time, without and with an idempotency key`);
    const roundTrips = {
      e12: await probeRoundTrips(baseUrl, merchants, tokens, false),
      e12Idempotent: await probeRoundTrips(baseUrl, merchants, tokens, true),
    };
    log(`roundTrips: ${JSON.stringify(roundTrips)}`);

    tokens = await accessTokens(baseUrl, merchants);
    const concurrent1000 = await burstE12(deps, baseUrl, merchants, tokens);
    tokens = await accessTokens(baseUrl, merchants);
    const racingPayments = await racePayments(deps, baseUrl, merchants, tokens);

    const percentOfBaseline = (rps: number) => (postgresBaseline.transactionsPerSecond > 0 ? round1((rps / postgresBaseline.transactionsPerSecond) * 100) : null);
    const e12VsBaselinePercent = percentOfBaseline(e12.requestsPerSecond);
    return {
      merchants: COLLECTION_MERCHANTS,
      connections: load.connections,
      appDbPoolSize: deps.config.dbPoolSize,
      rateLimit: 'off (RATE_LIMIT_PER_SECOND=0)',
      loadAverageAtEnd: os.loadavg().map(round1),
      e12,
      e12OneByOne,
      e12Idempotent,
      postgresBaseline,
      e12VsBaselinePercent,
      e12OneByOneVsBaselinePercent: percentOfBaseline(e12OneByOne.requestsPerSecond),
      roundTrips,
      concurrent1000,
      racingPayments,
      meetsTargets: {
        e12AtLeast1500PerSecond: e12.requestsPerSecond >= 1500,
        e12P99AtMost50Ms: e12.p99Ms <= 50,
        e12AtLeast60PercentOfBaseline: e12VsBaselinePercent !== null && e12VsBaselinePercent >= 60,
        concurrent1000AllSucceededDistinct: concurrent1000.allSucceededAndDistinct,
        exactlyOnePaymentPerTimedAccount: racingPayments.exactlyOnePaymentEach,
      },
    };
  } finally {
    await built.app.close();
    files.remove();
  }
}

// `BENCH_ONLY=http npm run bench` (and the first part of the default run): HTTP throughput and
// latency of the real app (buildApp in this process) on a real port and the run's database,
// measured with autocannon, and the service's start-up time. Its figures are the report's
// top-level fields (connections, durationSeconds, loadGenerator, database, results, startup,
// e10VsFloorPercent).
//
// Targets, each warmed up for WARMUP_SECONDS (not measured) then measured for BENCH_SECONDS:
//   healthLive   GET /health/live — the floor: routing, hooks and serialisation, no auth, no SQL.
//   accessToken  POST /sandbox/v1/account/getAccessToken — key lookup, secret hash check, JWT signing.
//   e10Limits    GET /sandbox/v1/merchants/limits/getAll — JWT check, key-status cache, rate
//                limiter (limit set far above reach so it runs but never refuses), limits from
//                the per-process read cache (READ_CACHE_MS).
//   e10LimitsUncached  the same with READ_CACHE_MS=0: one query per request.
// Then `startup`: `src/server.ts` on a new embedded data directory, first start and restart,
// each timed from spawn to /health/ready answering 200.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { SANDBOX } from '../lib/api.ts';
import { log, round1, sleep } from '../lib/common.ts';
import { describeDatabase, type BenchContext } from '../lib/context.ts';
import { describeGenerator, measureTarget, type Target } from '../lib/load.ts';
import { accessToken, credentialsOf } from '../lib/merchants.ts';
import { ROOT } from '../lib/service.ts';

/** Milliseconds from spawning `src/server.ts` until /health/ready answers 200, then SIGTERM. */
async function timeStart(dataDir: string, port: number): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} during start-up`);
      if (performance.now() - started > 60_000) throw new Error('server not ready within 60 s');
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ready) return Math.round(performance.now() - started);
      await sleep(25);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** `npm start` on the embedded database: first start (initdb, migrations, demo) and a restart. */
async function measureStartup(): Promise<{ firstStartMs: number; restartMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-bench-start-'));
  try {
    const port = 18_000 + Math.floor(Math.random() * 2000);
    log('start-up: first start on an empty data directory');
    const firstStartMs = await timeStart(dataDir, port);
    log('start-up: restart on the initialised data directory');
    const restartMs = await timeStart(dataDir, port);
    return { firstStartMs, restartMs };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchHttp(ctx: BenchContext) {
  const { deps, load, seconds } = ctx;
  let built: BuiltApp | undefined;
  let uncached: BuiltApp | undefined;
  try {
    built = await buildApp(deps);
    const address = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = address.replace(/\/$/, '');
    log(`app listening on ${baseUrl}; load generator: ${load.generator}`);

    const merchant = await createMerchant(deps, { accountName: 'Bench Shop', capturedBy: 'bench' });
    const credentials = credentialsOf(merchant);
    // Valid 5 minutes: enough for the E10 run, which starts well within that.
    const token = await accessToken(baseUrl, merchant);

    // The same E10 read with the limits cache off (READ_CACHE_MS=0): one query per request.
    uncached = await buildApp({ ...deps, config: { ...deps.config, readCacheMs: 0 } });
    const uncachedUrl = (await uncached.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const e10: Target = {
      method: 'GET',
      path: `${SANDBOX}/merchants/limits/getAll?merchantAccountNumber=${merchant.merchantAccountNumber}`,
      headers: { authorization: `Bearer ${token}` },
    };

    const results = {
      healthLive: await measureTarget('healthLive', load, baseUrl, { method: 'GET', path: '/health/live' }, seconds),
      accessToken: await measureTarget('accessToken', load, baseUrl, { method: 'POST', path: `${SANDBOX}/account/getAccessToken`, headers: { 'content-type': 'application/json' }, body: credentials }, seconds),
      e10Limits: await measureTarget('e10Limits', load, baseUrl, e10, seconds),
      e10LimitsUncached: await measureTarget('e10LimitsUncached', load, uncachedUrl, e10, seconds),
    };
    await uncached.app.close();
    uncached = undefined;
    const startup = await measureStartup();
    return {
      connections: load.connections,
      durationSeconds: seconds,
      loadGenerator: describeGenerator(load.generator),
      database: describeDatabase(ctx),
      results,
      startup,
      e10VsFloorPercent: results.healthLive.requestsPerSecond > 0 ? round1((results.e10Limits.requestsPerSecond / results.healthLive.requestsPerSecond) * 100) : null,
    };
  } finally {
    await uncached?.app.close().catch((err: Error) => log(`closing the app failed: ${err.message}`));
    await built?.app.close().catch((err: Error) => log(`closing the app failed: ${err.message}`));
  }
}

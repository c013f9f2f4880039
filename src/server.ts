// `npm start`: API and worker in one process; with WORKER_CONCURRENCY=0 the API alone, so that API
// processes and workers (`npm run worker`) scale separately. Listens, and on SIGTERM/SIGINT stops
// taking new requests, lets in-flight requests and jobs finish (up to SHUTDOWN_GRACE_MS), exits 0.
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { workerPlan } from './composition.ts';
import { startWorker } from './jobs/queue.ts';
import { createLogger, startRuntime } from './runtime.ts';
import { holdPort } from './http/hold-port.ts';
import { listenError, StartupError } from './lib/startup-checks.ts';
import { printBanner } from './banner.ts';
import { buildFspiopListener } from './rails/mojaloop/listener.ts';
import { closeMojaloop } from './rails/mojaloop/rail.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config);
  // The port first: a busy PORT stops the start before any database is started or created.
  const port = await holdPort(config.port, config.host);
  const runtime = await startRuntime(config, { log });
  const built = await buildApp(runtime.deps);
  const worker = config.workerConcurrency > 0 ? await startWorker(runtime.deps, config.workerConcurrency, workerPlan(runtime.deps)) : undefined;
  await port.release();
  await built.app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
    throw listenError(err, config.port, config.host);
  });
  // The switch's listener, with mutual TLS (src/rails/mojaloop/listener.ts), when configured.
  const fspiop = await buildFspiopListener(runtime.deps);
  const fspiopTls = config.mojaloop?.tls;
  if (fspiop && fspiopTls) {
    await fspiop.listen({ port: fspiopTls.port, host: fspiopTls.host }).catch((err: unknown) => {
      throw listenError(err, fspiopTls.port, fspiopTls.host);
    });
  }
  // Every start, at the address actually bound; the demo merchant's secret only when just created.
  await printBanner(runtime.deps, runtime.demo, built.app.server.address());

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining requests and jobs');
    const force = setTimeout(() => {
      log.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5_000);
    force.unref();
    built.beginShutdown();
    // Both at once, within the same grace: new requests now get 503 E952 while the ones running
    // finish, and the worker stops taking jobs while its running ones finish (unstarted jobs stay
    // queued for the next worker). Stopping the worker only after the requests had drained left
    // it claiming jobs the forced exit could then cut short.
    const stopWorker = worker ? worker.stop().then(() => log.info('worker stopped')) : Promise.resolve();
    if (!(await built.drain(config.shutdownGraceMs))) log.warn('requests still running after the grace period; closing anyway');
    await built.app.close();
    await fspiop?.close();
    log.info('http server closed');
    await stopWorker;
    if (config.mojaloop) await closeMojaloop(runtime.deps);
    await runtime.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  // What the operator fixes (a port, DATABASE_URL, DATA_DIR): one line, exit 2; else the stack.
  if (err instanceof StartupError) {
    process.stderr.write(`failed to start: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});

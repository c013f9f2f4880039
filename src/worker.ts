// `npm run worker`: a worker alone (any number may run; jobs are claimed with SKIP LOCKED).
import { loadConfig, ConfigError } from './config.ts';
import { workerPlan } from './composition.ts';
import { startWorker } from './jobs/queue.ts';
import { startRuntime } from './runtime.ts';
import { StartupError } from './lib/startup-checks.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.workerConcurrency === 0) throw new ConfigError('WORKER_CONCURRENCY must be at least 1 for a worker process (0 means "no worker" only for npm start)');
  const runtime = await startRuntime(config, { createDemo: false });
  const worker = await startWorker(runtime.deps, config.workerConcurrency, workerPlan(runtime.deps));
  runtime.deps.log.info({ concurrency: config.workerConcurrency }, 'worker started');
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await worker.stop();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
  await worker.promise;
}

main().catch((err) => {
  if (err instanceof StartupError) {
    process.stderr.write(`worker failed to start: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(err instanceof ConfigError ? `configuration error: ${err.message}\n` : `worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});

// The job queue: graphile-worker on the same PostgreSQL. Jobs are added with plain SQL inside the
// caller's transaction, so a job exists exactly when the data it works on was committed.
// The queue knows no module: a module names its tasks and enqueues them with `enqueue`; the
// composition root (src/composition.ts) gathers every module's tasks into the WorkerPlan a
// worker runs.
import type pg from 'pg';
import { Logger, run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type { Db } from '../db/pool.ts';
import type { Deps } from '../http/types.ts';

export interface EnqueueOptions {
  /** Not before this time (scheduled batches, timed-account expiry). */
  runAt?: Date;
  /** Retries before the job is given up; graphile-worker backs off exponentially between them. */
  maxAttempts?: number;
  /** A second job with the same key replaces the first instead of adding a duplicate. */
  jobKey?: string;
  /** Jobs in one named queue run one at a time, in order. */
  queueName?: string;
  priority?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 10;

export async function enqueue(tx: pg.PoolClient | Db, task: string, payload: object, options: EnqueueOptions = {}): Promise<void> {
  await tx.query(
    `select graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6, priority => $7)`,
    [task, JSON.stringify(payload), options.queueName ?? null, options.runAt ?? null, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, options.jobKey ?? null, options.priority ?? null],
  );
}

/** Installs or upgrades the queue's own schema (graphile_worker), under its own lock. */
export async function migrateQueue(db: Db): Promise<void> {
  await runMigrations({ pgPool: db, logger: quietLogger() });
}

/** Runs beside the job runner in every worker, started after it and stopped with it (the webhook dispatcher). */
export interface BackgroundService {
  start(): Promise<void>;
  /** Waits for what is running to finish. */
  stop(): Promise<void>;
}

/** What a worker runs: assembled from the modules by the composition root (src/composition.ts workerPlan). */
export interface WorkerPlan {
  /** Every task the worker knows, by name. */
  tasks: TaskList;
  /** Recurring jobs, one graphile-worker crontab line each. */
  crontab: readonly string[];
  services: readonly BackgroundService[];
  /** Run in order once the runner and the services are up. */
  onStart: ReadonlyArray<() => Promise<void>>;
}

export interface Worker {
  /** Stops taking work and waits for what is running (jobs and webhook attempts) to finish. */
  stop(): Promise<void>;
  /** Settles when the worker stops. */
  promise: Promise<void>;
}

/** The job runner and the plan's services: everything `npm run worker` does. */
export async function startWorker(deps: Deps, concurrency: number, plan: WorkerPlan): Promise<Worker> {
  const runner: Runner = await run({
    // Its runner LISTENs for new jobs: a session, so not through a transaction pooler.
    pgPool: deps.sessionDb ?? deps.db,
    concurrency,
    taskList: plan.tasks,
    crontab: plan.crontab.join('\n'),
    noHandleSignals: true,
    pollInterval: 2000,
    logger: quietLogger(deps),
  });
  for (const service of plan.services) await service.start();
  for (const step of plan.onStart) await step();
  return {
    stop: async () => {
      await Promise.all([runner.stop(), ...plan.services.map((service) => service.stop())]);
    },
    promise: runner.promise,
  };
}

function quietLogger(deps?: Pick<Deps, 'log'>): Logger {
  return new Logger(() => (level, message, meta) => {
    if (!deps) return;
    const log = deps.log;
    if (level === 'error') log.error({ meta }, message);
    else if (level === 'warning') log.warn({ meta }, message);
    else log.debug({ meta }, message);
  });
}

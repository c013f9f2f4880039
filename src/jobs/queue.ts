// The job queue: graphile-worker on the same PostgreSQL. Jobs are added with plain SQL inside the
// caller's transaction, so a job exists exactly when the data it works on was committed.
import type pg from 'pg';
import { Logger, run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type { Db } from '../db/pool.ts';
import type { Deps } from '../http/types.ts';
import { deleteExpiredKeys } from '../http/idempotency.ts';
import { deleteOldRateWindows } from '../http/rate-limit.ts';
import { WebhookDispatcher } from '../modules/webhooks/dispatcher.ts';
import { sweepListeners } from '../modules/webhooks/repository.ts';
import { expireRequests } from '../modules/collections/repository.ts';
import { withTransaction } from '../db/pool.ts';
import { PROCESS_TASK, sweepValidations, VALIDATE_TASK, validateBatch } from '../modules/disbursements/service.ts';
import { processMerchantPayouts, sweepPayouts } from '../modules/disbursements/processing.ts';
import { SEND_EMAIL_TASK, sendEmailTask } from '../modules/email/service.ts';

/** Payouts due this long without progress are presumed orphaned (their worker died) and re-queued. */
const PAYOUT_OVERDUE_SECONDS = 30;
/**
 * Batches queued this long are presumed orphaned and their validation re-queued. Validating the
 * largest batch takes seconds; only a long queue of submissions keeps one waiting minutes, and a
 * second job for a batch is harmless anyway (see sweepValidations).
 */
const VALIDATION_OVERDUE_SECONDS = 300;
/** Lapsed webhook listeners deleted per sweep, at most. */
const LISTENER_SWEEP_BATCH = 1000;

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

/** Every task the worker knows. Later features add theirs here. */
export function taskList(deps: Deps): TaskList {
  return {
    idempotency_cleanup: async () => {
      const deleted = await deleteExpiredKeys(deps.db);
      if (deleted > 0) deps.log.info({ deleted }, 'expired idempotency records deleted');
    },
    expire_timed_accounts: async () => {
      const expired = await expireRequests(deps.db);
      if (expired > 0) deps.log.info({ expired }, 'timed accounts expired');
    },
    webhook_listeners_sweep: async () => {
      // Bounded per run; a lapsed listener gets nothing meanwhile (the fan-out checks its lease).
      const swept = await sweepListeners(deps.db, LISTENER_SWEEP_BATCH);
      if (swept > 0) deps.log.info({ listeners: swept }, 'lapsed webhook listeners deleted');
    },
    rate_limit_cleanup: async () => {
      await deleteOldRateWindows(deps.db, deps.clock.now().getTime());
    },
    [VALIDATE_TASK]: async (payload) => {
      const { batchNumber } = payload as { batchNumber: number };
      const batch = await withTransaction(deps.db, (tx) => validateBatch(deps, tx, batchNumber));
      if (batch) deps.log.info({ batchNumber, status: batch.status_code, invalid: batch.number_of_invalid_entries }, 'batch validated');
    },
    [PROCESS_TASK]: async (payload) => {
      const { merchantAccountNumber } = payload as { merchantAccountNumber: number };
      const done = await processMerchantPayouts(deps, merchantAccountNumber);
      if (done.processed + done.reversed > 0) deps.log.info({ merchantAccountNumber, ...done }, 'payouts processed');
    },
    payouts_sweep: async () => {
      const woken = await sweepPayouts(deps, PAYOUT_OVERDUE_SECONDS);
      if (woken > 0) deps.log.warn({ merchants: woken }, 'overdue payouts re-queued');
    },
    validations_sweep: async () => {
      const requeued = await sweepValidations(deps.db, VALIDATION_OVERDUE_SECONDS);
      if (requeued > 0) deps.log.warn({ batches: requeued }, 'overdue batch validations re-queued');
    },
    // One message of the e-mail outbox; retried up to EMAIL_MAX_ATTEMPTS times (see modules/email).
    [SEND_EMAIL_TASK]: sendEmailTask(deps),
  };
}

// Recurring jobs (graphile-worker crontab syntax). Idempotency records hourly: they live 24 h,
// so an hour's delay in deleting them is harmless, and the delete runs in bounded batches.
// Rate-limit windows every minute: they matter for one second and are a few rows per merchant.
// Timed accounts every minute: payment is refused at expiryDate exactly (checked at payment time);
// the job only moves their status, which frees their numbers and references.
// Payouts and batch validations every minute: re-queues work whose job died with its worker
// (see sweepPayouts, sweepValidations). Lapsed webhook listeners (`listen`) every minute: they
// already get nothing; the sweep deletes them and ends their undelivered copies.
export const CRONTAB = [
  '7 * * * * idempotency_cleanup ?max=1',
  '* * * * * rate_limit_cleanup ?max=1',
  '* * * * * expire_timed_accounts ?max=1',
  '* * * * * payouts_sweep ?max=1',
  '* * * * * validations_sweep ?max=1',
  '* * * * * webhook_listeners_sweep ?max=1',
].join('\n');

export interface Worker {
  /** Stops taking work and waits for what is running (jobs and webhook attempts) to finish. */
  stop(): Promise<void>;
  /** Settles when the worker stops. */
  promise: Promise<void>;
}

/** The job runner and the webhook dispatcher: everything `npm run worker` does. */
export async function startWorker(deps: Deps, concurrency: number): Promise<Worker> {
  const runner: Runner = await run({
    pgPool: deps.db,
    concurrency,
    taskList: taskList(deps),
    crontab: CRONTAB,
    noHandleSignals: true,
    pollInterval: 2000,
    logger: quietLogger(deps),
  });
  const dispatcher = new WebhookDispatcher(deps);
  await dispatcher.start();
  // A worker starting after a crash picks up the payouts and validations the dead one held, without waiting.
  await sweepPayouts(deps, 0);
  await sweepValidations(deps.db, 0);
  return {
    stop: async () => {
      await Promise.all([runner.stop(), dispatcher.stop()]);
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

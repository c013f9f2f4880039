// A reconciliation run: one rail, one UTC day. Asked for by the daily job (yesterday, for every
// rail that can be reconciled) or by an operator (POST /admin/v1/rails/reconciliations, `npm run
// cli -- rails reconcile --day D`): a row in rail_reconciliations and its job, written in one
// transaction; the job does the work at the worker's pace, never inside the request. A run goes
// through the day's transfers a chunk at a time: ask the rail (ask.ts), wait for its answers, then
// compare and record the differences (compare.ts). A run done twice records nothing twice.
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Deps } from '../../http/types.ts';
import { enqueue } from '../../jobs/queue.ts';
import { askMojaloop, awaitReports, type Asked } from './ask.ts';
import { compareChunk, type ChunkResult } from './compare.ts';
import { dayTransfers, type DayTransfer } from './transfers.ts';

export const RECONCILE_TASK = 'rail_reconcile';
export const RECONCILE_DAILY_TASK = 'rail_reconcile_daily';

/**
 * Transfers asked about at once: the switch client sends them 32 at a time, then the run waits
 * for their answers (at most MOJALOOP_CALLBACK_SECONDS) before the next chunk, so the switch
 * never has more than this many of our questions open.
 */
const CHUNK_TRANSFERS = 500;
/** A failed run's job is tried again this often (graphile-worker backs off between tries). */
const RUN_ATTEMPTS = 3;

/** How a rail is asked for its record: only rails with a record of their own can be reconciled. */
interface RailRecords {
  ask(deps: Deps, transfers: DayTransfer[]): Promise<Asked>;
  answerWaitMs(deps: Deps): number;
  inFlightBoundSeconds(deps: Deps): number;
}

const RECORDS: Record<string, RailRecords> = {
  mojaloop: {
    ask: askMojaloop,
    answerWaitMs: (deps) => deps.config.mojaloop!.callbackSeconds * 1000,
    inFlightBoundSeconds: (deps) => deps.config.mojaloop!.inFlightBoundSeconds,
  },
};

/** The rails this deployment has configured that keep a record to reconcile with. */
export function reconcilableRails(deps: Deps): string[] {
  return deps.config.mojaloop ? ['mojaloop'] : [];
}

export interface ReconciliationRun {
  runId: number;
  rail: string;
  day: string;
  requestedBy: string;
  status: 'queued' | 'running' | 'finished' | 'failed';
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  transfersChecked: number;
  unanswered: number;
  differences: number;
  newExceptions: number;
  cleared: number;
  error: string | null;
}

const COLUMNS = `run_id as "runId", rail, day::text as day, requested_by as "requestedBy", status, to_json(created_at)#>>'{}' as "createdAt",
       to_json(started_at)#>>'{}' as "startedAt", to_json(finished_at)#>>'{}' as "finishedAt", transfers_checked as "transfersChecked",
       unanswered, differences, new_exceptions as "newExceptions", cleared, error`;

/** The UTC day before `at`. */
export function dayBefore(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - 1)).toISOString().slice(0, 10);
}

function checkRequest(deps: Deps, rail: string, day: string): void {
  if (!reconcilableRails(deps).includes(rail)) throw new AppError('notFound', 'detail.railNotReconcilable', { rail });
  const today = deps.clock.now().toISOString().slice(0, 10);
  if (day > today) throw new AppError('validation', 'detail.reconcileDayFuture', { day, today });
}

async function insertRun(q: Queryable, rail: string, day: string, requestedBy: string): Promise<ReconciliationRun> {
  const { rows } = await q.query<ReconciliationRun>(`insert into rail_reconciliations (rail, day, requested_by) values ($1, $2, $3) returning ${COLUMNS}`, [rail, day, requestedBy]);
  return rows[0];
}

/** An operator's request: the run and its job, in one transaction. */
export async function requestReconciliation(deps: Deps, input: { rail: string; day: string; requestedBy: string }): Promise<ReconciliationRun> {
  checkRequest(deps, input.rail, input.day);
  return withTransaction(deps.db, async (tx) => {
    const run = await insertRun(tx, input.rail, input.day, input.requestedBy);
    await enqueue(tx, RECONCILE_TASK, { runId: run.runId }, { maxAttempts: RUN_ATTEMPTS });
    return run;
  });
}

/**
 * The daily job: yesterday (UTC) of the time it was scheduled for, for each rail. A day already
 * scheduled (a retried or back-filled job) is not scheduled again.
 */
export async function scheduleDaily(deps: Deps, scheduledFor: Date): Promise<number[]> {
  const day = dayBefore(scheduledFor);
  const runIds: number[] = [];
  for (const rail of reconcilableRails(deps)) {
    await withTransaction(deps.db, async (tx) => {
      const { rows } = await tx.query<{ run_id: number }>(
        `insert into rail_reconciliations (rail, day, requested_by) values ($1, $2, 'schedule')
         on conflict (rail, day) where requested_by = 'schedule' do nothing returning run_id`,
        [rail, day],
      );
      if (!rows[0]) return;
      await enqueue(tx, RECONCILE_TASK, { runId: rows[0].run_id }, { maxAttempts: RUN_ATTEMPTS });
      runIds.push(rows[0].run_id);
    });
  }
  return runIds;
}

export async function getRun(deps: Deps, runId: number): Promise<ReconciliationRun | null> {
  const { rows } = await deps.db.query<ReconciliationRun>(`select ${COLUMNS} from rail_reconciliations where run_id = $1`, [runId]);
  return rows[0] ?? null;
}

/** Reconciles a day now, in this process (the job's work without the queue): the run as finished. */
export async function reconcile(deps: Deps, input: { day: string; rail: string; requestedBy?: string }): Promise<ReconciliationRun> {
  checkRequest(deps, input.rail, input.day);
  const run = await insertRun(deps.db, input.rail, input.day, input.requestedBy ?? 'operator');
  return runReconciliation(deps, run.runId);
}

/** The job: runs (or, tried again, runs again from the start) a requested run. */
export async function runReconciliation(deps: Deps, runId: number): Promise<ReconciliationRun> {
  const { rows } = await deps.db.query<{ rail: string; day: string }>(
    `update rail_reconciliations set status = 'running', started_at = now(), finished_at = null, error = null,
            transfers_checked = 0, unanswered = 0, differences = 0, new_exceptions = 0, cleared = 0
      where run_id = $1 and status <> 'finished' returning rail, day::text as day`,
    [runId],
  );
  const run = rows[0];
  if (!run) return (await getRun(deps, runId))!;
  try {
    const totals = await reconcileDay(deps, runId, run.rail, run.day);
    await deps.db.query(
      `update rail_reconciliations set status = 'finished', finished_at = now(), transfers_checked = $2, unanswered = $3,
              differences = $4, new_exceptions = $5, cleared = $6 where run_id = $1`,
      [runId, totals.checked, totals.unanswered, totals.differences, totals.newExceptions, totals.cleared],
    );
    deps.log.info({ runId, rail: run.rail, day: run.day, ...totals }, 'rail reconciliation finished');
  } catch (err) {
    deps.log.error({ err, runId, rail: run.rail, day: run.day }, 'rail reconciliation failed');
    await deps.db.query(`update rail_reconciliations set status = 'failed', finished_at = now(), error = $2 where run_id = $1`, [runId, String((err as Error).message).slice(0, 300)]);
    throw err;
  }
  return (await getRun(deps, runId))!;
}

async function reconcileDay(deps: Deps, runId: number, rail: string, day: string): Promise<ChunkResult> {
  const records = RECORDS[rail];
  if (!records) throw new Error(`rail ${rail} keeps no record to reconcile with`);
  const totals: ChunkResult = { checked: 0, unanswered: 0, differences: 0, newExceptions: 0, cleared: 0 };
  for await (const chunk of dayTransfers(deps.db, rail, day, CHUNK_TRANSFERS)) {
    const asked = await records.ask(deps, chunk);
    await awaitReports(deps, rail, chunk.map((t) => t.transferId), asked, records.answerWaitMs(deps));
    const result = await compareChunk(deps.db, { runId, rail, day, transfers: chunk, askedAt: asked.askedAt, inFlightBoundSeconds: records.inFlightBoundSeconds(deps) });
    for (const key of Object.keys(totals) as (keyof ChunkResult)[]) totals[key] += result[key];
  }
  return totals;
}

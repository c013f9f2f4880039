// The rails' part of the worker: the reconciliation's jobs (src/rails/reconciliation/) and the
// Mojaloop payee side's sweep (src/rails/mojaloop/payee-sweep.ts). Not one of
// src/modules/ (the rails are no feature of the merchant API; their operator routes are the admin
// module's): the composition root adds it to the worker's parts beside the modules.
import type { ModuleDefinition } from '../module.ts';
import { payeeSweeper } from './mojaloop/payee-sweep.ts';
import { RECONCILE_DAILY_TASK, RECONCILE_TASK, runReconciliation, scheduleDaily } from './reconciliation/runs.ts';

export const railsWorkerPart: ModuleDefinition = {
  name: 'rails',
  tasks: (deps) => ({
    [RECONCILE_TASK]: async (payload) => {
      const { runId } = payload as { runId: number };
      await runReconciliation(deps, runId);
    },
    [RECONCILE_DAILY_TASK]: async (payload) => {
      // The time the job was scheduled for, not the time it runs: a job back-filled after a
      // worker outage still reconciles the day before its own date.
      const scheduled = (payload as { _cron?: { ts?: string } })._cron?.ts;
      const runIds = await scheduleDaily(deps, scheduled ? new Date(scheduled) : deps.clock.now());
      if (runIds.length > 0) deps.log.info({ runIds }, 'daily rail reconciliation queued');
    },
  }),
  // 01:15 UTC: yesterday's transfers have all reached their expiry (60 s by default) and the
  // switch's own settlement day has closed. fill=3d: a worker down at that hour queues the days it
  // missed when it comes back (at most three).
  cron: [`15 1 * * * ${RECONCILE_DAILY_TASK} ?fill=3d&max=3`],
  // The payee side's follow-up (fulfilments to send again, outcomes to ask for): every second.
  services: (deps) => (deps.config.mojaloop ? [payeeSweeper(deps)] : []),
};

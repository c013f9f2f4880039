// The payout worker: hands each merchant's transferring payouts (batch lines and single payouts
// alike) to the rail their connector is routed to (src/rails/routing.ts): Mojaloop for its
// configured connectors, the simulated connector for the rest in sandbox mode, and in production
// the unavailable rail, which fails them with F105 and refunds them. Each rail moves its payouts
// one step at a time under the rules of src/rails/contract.ts; outcomes are booked by outcomes.ts.
import type { Deps } from '../../http/types.ts';
import { payoutRoutes } from '../../rails/routing.ts';
import { schedulePayouts } from './service.ts';

/** One job run stops taking steps after this and re-queues itself, so other jobs get a turn. */
const RUN_BUDGET_MS = 20_000;
/** The soonest a run schedules the next one. */
const RECHECK_MS = 1000;

/** Processes everything due for one merchant on every rail, then schedules the next wake-up (callbacks overdue, time-outs, reversals). */
export async function processMerchantPayouts(deps: Deps, merchantAccountNumber: number): Promise<{ processed: number }> {
  const started = Date.now();
  let processed = 0;
  for (const { rail, connectors } of payoutRoutes(deps)) {
    for (;;) {
      const n = await rail.processDue(deps, merchantAccountNumber, connectors);
      processed += n;
      if (n === 0) break;
      if (Date.now() - started > RUN_BUDGET_MS) {
        await schedulePayouts(deps.db, merchantAccountNumber, new Date());
        return { processed };
      }
    }
  }
  // Work still due now is held by another worker's open chunk: look again shortly, not in a spin.
  const next = await nextWakeUp(deps.db, merchantAccountNumber);
  if (next) await schedulePayouts(deps.db, merchantAccountNumber, new Date(Math.max(next.getTime(), Date.now() + RECHECK_MS)));
  return { processed };
}

async function nextWakeUp(q: Deps['db'], merchantAccountNumber: number): Promise<Date | null> {
  const { rows } = await q.query<{ next: Date | null }>(
    `select least((select min(due_at) from payouts where merchant_account_number = $1 and status_code = 'T'),
                  (select min(reverse_at) from payouts where merchant_account_number = $1 and status_code = 'S' and reverse_at is not null)) as next`,
    [merchantAccountNumber],
  );
  return rows[0].next;
}

/**
 * Finds merchants whose payouts are overdue (their job was lost with a killed worker, whose lock
 * graphile-worker keeps for hours) and wakes their job. Runs every minute and at worker start.
 */
export async function sweepPayouts(deps: Deps, overdueSeconds: number): Promise<number> {
  const { rows } = await deps.db.query<{ merchant_account_number: number }>(
    `select distinct merchant_account_number from payouts
      where (status_code = 'T' and due_at <= now() - make_interval(secs => $1))
         or (status_code = 'S' and reverse_at <= now() - make_interval(secs => $1))`,
    [overdueSeconds],
  );
  for (const r of rows) await schedulePayouts(deps.db, r.merchant_account_number, new Date());
  return rows.length;
}

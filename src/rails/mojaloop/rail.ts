// The Mojaloop rail (FSPIOP 1.0/1.1, our service a DFSP on the switch): one per process, built on
// first use from the configuration, shared by the worker (payouts.ts) and the /fspiop routes
// (routes.ts, callbacks.ts).
import type { Deps } from '../../http/types.ts';
import type { PayoutRail, RailHealth } from '../contract.ts';
import { connectorParams } from '../contract.ts';
import { createSwitchClient } from './client.ts';
import { processDuePayouts } from './payouts.ts';
import type { MojaloopContext } from './types.ts';


const contexts = new WeakMap<Deps['config'], MojaloopContext>();

/** The rail's per-process state (its HTTP client), for a deployment that configures Mojaloop. */
export function mojaloopContext(deps: Deps): MojaloopContext {
  const config = deps.config.mojaloop;
  if (!config) throw new Error('the Mojaloop rail is not configured (MOJALOOP_SWITCH_URL, MOJALOOP_FSP_ID, MOJALOOP_CONNECTOR_IDS)');
  let ctx = contexts.get(deps.config);
  if (!ctx) {
    ctx = { config, client: createSwitchClient(config, deps.db, deps.log), switchFspId: config.switchFspId };
    contexts.set(deps.config, ctx);
  }
  return ctx;
}

/** Closes the rail's connections (process shutdown). */
export async function closeMojaloop(deps: Deps): Promise<void> {
  const ctx = contexts.get(deps.config);
  contexts.delete(deps.config);
  await ctx?.client.close();
}

export function mojaloopRail(): PayoutRail {
  return {
    name: 'mojaloop',
    processDue: (d, merchantAccountNumber, connectors) => processDuePayouts(d, mojaloopContext(d), merchantAccountNumber, connectors),
    health: (d, connectors) => health(d, mojaloopContext(d), connectors),
  };
}

async function health(deps: Deps, ctx: MojaloopContext, connectors: Parameters<PayoutRail['health']>[1]): Promise<RailHealth> {
  const [only] = connectorParams(connectors);
  const { rows } = await deps.db.query<{ last_success: Date | null; last_failure: Date | null; failures: string; successes: string; in_flight: string; overdue: string }>(
    `select max(completed_at) filter (where phase = 'committed') as last_success,
            max(completed_at) filter (where phase in ('aborted', 'failed')) as last_failure,
            count(*) filter (where phase in ('aborted', 'failed') and completed_at > now() - interval '1 hour') as failures,
            count(*) filter (where phase = 'committed' and completed_at > now() - interval '1 hour') as successes,
            count(*) filter (where phase = 'transfer') as in_flight,
            count(*) filter (where phase = 'transfer' and expires_at + make_interval(secs => $1) < now()) as overdue
       from rail_payouts where rail = 'mojaloop'`,
    [ctx.config.inFlightBoundSeconds],
  );
  const r = rows[0];
  return {
    rail: 'mojaloop',
    connectorIds: only ?? 'others',
    lastSuccessAt: r.last_success?.toISOString() ?? null,
    lastFailureAt: r.last_failure?.toISOString() ?? null,
    failuresLastHour: Number(r.failures),
    successesLastHour: Number(r.successes),
    inFlight: Number(r.in_flight),
    overdue: Number(r.overdue),
  };
}

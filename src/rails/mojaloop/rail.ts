// The Mojaloop rail (FSPIOP 1.0/1.1, our service a DFSP on the switch): one per process, built on
// first use from the configuration, shared by the worker (payouts.ts) and the /fspiop routes
// (routes.ts, callbacks.ts).
import type { Deps } from '../../http/types.ts';
import type { PayoutRail, RailFlowHealth, RailHealth } from '../contract.ts';
import { connectorParams, errorRate } from '../contract.ts';
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

/** A flow's figures as the health query returns them, one row per flow. */
interface FlowRow {
  last_success: Date | null;
  last_failure: Date | null;
  failures: number;
  successes: number;
  in_flight: number;
  overdue: number;
  oldest_seconds: number | null;
}

function flowHealth(r: FlowRow): RailFlowHealth {
  return {
    lastSuccessAt: r.last_success?.toISOString() ?? null,
    lastFailureAt: r.last_failure?.toISOString() ?? null,
    failuresLastHour: r.failures,
    successesLastHour: r.successes,
    errorRateLastHour: errorRate(r.successes, r.failures),
    inFlight: r.in_flight,
    overdue: r.overdue,
    oldestInFlightSeconds: r.oldest_seconds,
  };
}

/**
 * Payouts (rail_payouts: in flight in phase transfer, failed when aborted or failed before
 * sending) and collections (rail_collections: in flight while reserved, failed when aborted), each
 * in one pass over its table; in flight counted from when the rail record was made.
 */
async function health(deps: Deps, ctx: MojaloopContext, connectors: Parameters<PayoutRail['health']>[1]): Promise<RailHealth> {
  const [only] = connectorParams(connectors);
  const flow = (table: string, inFlight: string, failed: string, expires: string) => `
    select max(completed_at) filter (where phase = 'committed') as last_success,
           max(completed_at) filter (where phase in (${failed})) as last_failure,
           (count(*) filter (where phase in (${failed}) and completed_at > now() - interval '1 hour'))::integer as failures,
           (count(*) filter (where phase = 'committed' and completed_at > now() - interval '1 hour'))::integer as successes,
           (count(*) filter (where phase = '${inFlight}'))::integer as in_flight,
           (count(*) filter (where phase = '${inFlight}' and ${expires} + make_interval(secs => $1) < now()))::integer as overdue,
           floor(extract(epoch from now() - min(created_at) filter (where phase = '${inFlight}')))::integer as oldest_seconds
      from ${table} where rail = 'mojaloop'`;
  const { rows } = await deps.db.query<FlowRow>(
    `${flow('rail_payouts', 'transfer', `'aborted', 'failed'`, 'expires_at')}
     union all
     ${flow('rail_collections', 'reserved', `'aborted'`, 'transfer_expires_at')}`,
    [ctx.config.inFlightBoundSeconds],
  );
  return { rail: 'mojaloop', connectorIds: only ?? 'others', ...flowHealth(rows[0]), collections: flowHealth(rows[1]) };
}

// Which connector ids go over which rail (product.md §16). Configured rails take their connectors
// (MOJALOOP_CONNECTOR_IDS…); every other connector goes to the default rail: the simulated
// connector in sandbox mode, and in production the unavailable rail, which fails its payouts with
// F105 and refunds them (production never simulates a payout). Adding a rail: a folder beside
// mojaloop/ implementing PayoutRail, its settings in config.ts, and one entry in `configuredRails`.
import type { Deps } from '../http/types.ts';
import type { ConnectorSet, PayoutRail } from './contract.ts';
import { mojaloopRail } from './mojaloop/rail.ts';
import { simulatedRail, unavailableRail } from './simulated/payouts.ts';

export interface RailRoute {
  rail: PayoutRail;
  connectors: ConnectorSet;
}

const MOJALOOP = mojaloopRail();

/** The real rails this deployment has, each with the connector ids configured for it. */
function configuredRails(deps: Deps): RailRoute[] {
  const routes: RailRoute[] = [];
  const mojaloop = deps.config.mojaloop;
  if (mojaloop) routes.push({ rail: MOJALOOP, connectors: { only: mojaloop.connectorIds } });
  return routes;
}

/** Every rail a payout may take, the default one (every connector no other rail has) last. */
export function payoutRoutes(deps: Deps): RailRoute[] {
  const routes = configuredRails(deps);
  const taken = routes.flatMap((r) => ('only' in r.connectors ? r.connectors.only : []));
  const fallback = deps.config.mode === 'production' ? unavailableRail : simulatedRail;
  return [...routes, { rail: fallback, connectors: { except: taken } }];
}

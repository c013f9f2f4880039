// The limits module: the merchant's transaction limits (E10), enforced where money moves (enforce.ts).
import type { ModuleDefinition } from '../../module.ts';
import type { Deps } from '../../http/types.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import { listLimits, type LimitRow } from './repository.ts';
import limitsAll from './routes/get-all.ts';

declare module '../../http/types.ts' {
  interface RouteContext {
    /** Per-merchant limits as E10 shows them; see modules/limits/repository.ts for why cached. */
    limits: TtlCache<number, LimitRow[]>;
  }
}

/** Per process: E10's read cache (READ_CACHE_MS). */
export function createLimitsCache(deps: Deps): TtlCache<number, LimitRow[]> {
  return new TtlCache(deps.clock, deps.config.readCacheMs, (merchant: number) => listLimits(deps.db, merchant));
}

export const limitsModule: ModuleDefinition = {
  name: 'limits',
  routes: [limitsAll],
};

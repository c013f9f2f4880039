// Which connectors a payout may actually be sent through. In sandbox mode every connector is the
// simulated sandbox connector (sandbox.ts). Production never simulates a payout (product.md §15):
// there a payout goes out only through a connector with a real adapter, and real connector adapters
// are later work, so the set is empty and every production payout fails at once with F105
// (CONNECTOR_UNAVAILABLE) and is refunded in full by the payout worker (processing.ts).
import type { Mode } from '../../config.ts';

/**
 * Connector ids with a real payout adapter: none yet. An id belongs here only together with the
 * adapter that sends its payouts; the worker has no such dispatch today.
 */
export const REAL_PAYOUT_ADAPTERS: ReadonlySet<number> = new Set<number>();

/** The connectors payouts may go through: null for every one (simulated, sandbox), else these ids. */
export function payableConnectors(mode: Mode): number[] | null {
  return mode === 'production' ? [...REAL_PAYOUT_ADAPTERS] : null;
}

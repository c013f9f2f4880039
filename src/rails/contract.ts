// The connector contract: what a rail must do to carry a payout, and later a collection. A rail is
// one folder under src/rails/ behind this interface; src/rails/routing.ts says which connector ids
// go over which rail. The payout worker (modules/disbursements/processing.ts) knows only this file.
//
// The rules every rail keeps (docs/architecture.md, "Rails"):
// - It decides outcomes; modules/disbursements/outcomes.ts books them: each step's state change,
//   ledger transfer and outbox rows are written in one transaction, and a request to the outside
//   is sent only after that transaction commits, so a crash leaves a step to repeat, never money
//   moved without its record.
// - Every id it sends is derived from our own record, so a step repeated after a crash is the same
//   request to the rail, never a second payment.
// - An unknown outcome is resolved by asking the rail, never by sending again.
// - Money sent and not yet answered for sits in the rail_in_flight ledger account.
// - Everything it sends and receives is kept (rail_messages) with the payout it belongs to.
import type { Deps } from '../http/types.ts';

/** Which of a merchant's payouts a rail takes: these connector ids, or every one but these. */
export type ConnectorSet = { only: readonly number[] } | { except: readonly number[] };

export interface PayoutRail {
  /** Its name in configuration, logs, ledger metadata and rail_payouts.rail. */
  readonly name: string;
  /**
   * Moves this merchant's due payouts (status T, due_at passed) whose connector is in `connectors`
   * one step on: send them, ask about the ones whose answer is overdue, fail the ones that cannot
   * go. Returns how many payouts it touched: 0 when nothing of its own was due. Answers that
   * arrive later (callbacks) are the rail's own routes' business, under the same rules.
   */
  processDue(deps: Deps, merchantAccountNumber: number, connectors: ConnectorSet): Promise<number>;
  /** The operator's view of it (admin API and CLI). */
  health(deps: Deps, connectors: ConnectorSet): Promise<RailHealth>;
}

/** One direction of a rail's traffic as the operator sees it. */
export interface RailFlowHealth {
  /** The last transfer it carried to success, and the last that failed (any reason). */
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  failuresLastHour: number;
  successesLastHour: number;
  /** failures / (successes + failures) of the last hour, 0 to 1; null when none was decided. */
  errorRateLastHour: number | null;
  /** Transfers sent (or accepted) and not yet final. */
  inFlight: number;
  /** Of those, the ones past their expiry and the bound after it: an operator should look. */
  overdue: number;
  /** Age in seconds of the oldest in flight, from when its rail record was made; null when none is. */
  oldestInFlightSeconds: number | null;
}

/** A rail's health: its payouts' at the top (as since issue 24), its collections' beside them. */
export interface RailHealth extends RailFlowHealth {
  rail: string;
  connectorIds: number[] | 'others';
  /** Inbound transfers (payments into merchants' accounts); null for a rail that carries none. */
  collections: RailFlowHealth | null;
}

/** The error rate of an hour's counts (null: nothing decided). */
export function errorRate(successes: number, failures: number): number | null {
  return successes + failures === 0 ? null : Math.round((failures / (successes + failures)) * 10_000) / 10_000;
}

/**
 * The set as two SQL parameters for `connectorMatches(column, only, except)`: the ids it takes
 * (null: any) and the ids it leaves (empty: none).
 */
export function connectorParams(connectors: ConnectorSet): [number[] | null, number[]] {
  return 'only' in connectors ? [[...connectors.only], []] : [null, [...connectors.except]];
}

/** The SQL condition for connectorParams' two parameters ($only, $except) on `column`. */
export function connectorMatches(column: string, only: string, except: string): string {
  return `(${only}::integer[] is null or ${column} = any(${only}::integer[])) and ${column} <> all(${except}::integer[])`;
}

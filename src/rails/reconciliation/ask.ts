// Asking a rail for its record of transfers. Mojaloop answers GET /transfers/{id} asynchronously:
// the switch takes the request (202) and later sends PUT /transfers/{id} (its state) or
// PUT /transfers/{id}/error (3208: no such transfer) to our /fspiop routes, which keep the word in
// rail_transfer_reports. So a chunk is asked, then the reports newer than the asking are awaited,
// at most MOJALOOP_CALLBACK_SECONDS; a transfer still unanswered then is the rail's silence.
import type { Deps } from '../../http/types.ts';
import type { SwitchRequest } from '../mojaloop/client.ts';
import { mojaloopContext } from '../mojaloop/rail.ts';
import type { DayTransfer } from './transfers.ts';

/** How often the reports are read while answers come in. */
const POLL_MS = 100;

export interface Asked {
  /** The database's time just before the requests left (text: its microseconds kept). */
  askedAt: string;
  /** Requests the switch took (202); the others will never be answered. */
  accepted: number;
}

function statusRequest(t: DayTransfer): SwitchRequest {
  // Kept with its payout or collection, as every message of theirs (rail_messages).
  const link = t.subject === 'payout'
    ? { payout: { merchantAccountNumber: t.merchantAccountNumber, payoutId: t.ownerId } }
    : { collection: { merchantAccountNumber: t.merchantAccountNumber, inboundId: t.ownerId } };
  return { method: 'GET', path: `/transfers/${t.transferId}`, resource: 'transfers', ...link };
}

/** Sends GET /transfers/{id} for each transfer (the client sends 32 at a time). */
export async function askMojaloop(deps: Deps, transfers: DayTransfer[]): Promise<Asked> {
  const ctx = mojaloopContext(deps);
  const { rows } = await deps.db.query<{ at: string }>('select clock_timestamp()::text as at');
  const answers = await ctx.client.send(transfers.map(statusRequest));
  return { askedAt: rows[0].at, accepted: answers.filter((a) => a.accepted).length };
}

/**
 * Waits until `expected` of these transfers have a report newer than `askedAt`, or `timeoutMs`
 * has passed; returns how many have one.
 */
export async function awaitReports(deps: Deps, rail: string, transferIds: string[], asked: Asked, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await deps.db.query<{ answered: number }>(
      `select count(*)::integer as answered from rail_transfer_reports
        where rail = $1 and transfer_id = any($2::uuid[]) and reported_at >= $3::timestamptz`,
      [rail, transferIds, asked.askedAt],
    );
    const answered = rows[0].answered;
    if (answered >= asked.accepted || Date.now() >= deadline) return answered;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

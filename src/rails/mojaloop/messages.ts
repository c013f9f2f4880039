// Everything the Mojaloop rail sends and receives is kept in rail_messages, with the payout or the
// collection it belongs to when it names one (a party lookup names none and is not kept), for support and reconciliation (design.md, "Rails"). Only the
// FSPIOP routing headers are kept: never a signature, a certificate or a key.
import type pg from 'pg';
import type { Db } from '../../db/pool.ts';

export interface RailMessage {
  payout?: { merchantAccountNumber: number; payoutId: number } | undefined;
  /** A collection's message (rail_collections), instead of a payout's. */
  collection?: { merchantAccountNumber: number; inboundId: number } | undefined;
  direction: 'out' | 'in';
  method: string;
  path: string;
  /** out: the switch's status (null: no answer); in: what we answered. */
  httpStatus: number | null;
  headers: Record<string, string | undefined>;
  body: unknown;
  /** 'accepted', or why it was refused or failed. */
  outcome: string;
}

const KEPT_HEADERS = ['fspiop-source', 'fspiop-destination', 'date', 'content-type'];

/** The headers worth keeping, lower-cased, from a request's or our own. */
export function keptHeaders(headers: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (KEPT_HEADERS.includes(lower) && typeof value === 'string') kept[lower] = value.slice(0, 200);
  }
  return kept;
}

/** jsonb refuses NUL: a hostile body must not stop its own record. */
function storable(body: unknown): string | null {
  return body === undefined ? null : JSON.stringify(body).replaceAll('\\u0000', '');
}

/**
 * Stores messages (one statement for many: a claim sends hundreds at once): those of a payout
 * with it, the others (refused: they named nothing of ours) in rail_refused_messages.
 */
export async function recordMessages(q: Db | pg.PoolClient, messages: RailMessage[]): Promise<void> {
  const ours = messages.filter((m) => m.payout !== undefined || m.collection !== undefined);
  // What we send that names nothing of ours (a lookup's answer, the error callback to a request we
  // refused, whose own record says why) is not kept: the refused list is what others sent us.
  const stray = messages.filter((m) => m.payout === undefined && m.collection === undefined && m.direction === 'in');
  if (stray.length > 0) {
    await q.query(
      `insert into rail_refused_messages (rail, method, path, http_status, headers, body, outcome)
       select 'mojaloop', me, pa, s, h, b, o from unnest($1::text[], $2::text[], $3::smallint[], $4::jsonb[], $5::jsonb[], $6::text[]) as u(me, pa, s, h, b, o)`,
      [
        stray.map((m) => m.method),
        stray.map((m) => m.path.slice(0, 300)),
        stray.map((m) => m.httpStatus),
        stray.map((m) => JSON.stringify(keptHeaders(m.headers))),
        stray.map((m) => storable(m.body)),
        stray.map((m) => m.outcome.slice(0, 300)),
      ],
    );
  }
  if (ours.length === 0) return;
  await q.query(
    `insert into rail_messages (merchant_account_number, payout_id, inbound_id, rail, direction, method, path, http_status, headers, body, outcome)
     select m, p, i, 'mojaloop', d, me, pa, s, h, b, o
       from unnest($1::integer[], $2::bigint[], $10::bigint[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::jsonb[], $8::jsonb[], $9::text[])
            as u(m, p, i, d, me, pa, s, h, b, o)`,
    [
      ours.map((m) => m.payout?.merchantAccountNumber ?? m.collection?.merchantAccountNumber ?? null),
      ours.map((m) => m.payout?.payoutId ?? null),
      ours.map((m) => m.direction),
      ours.map((m) => m.method),
      ours.map((m) => m.path.slice(0, 300)),
      ours.map((m) => m.httpStatus),
      ours.map((m) => JSON.stringify(keptHeaders(m.headers))),
      ours.map((m) => storable(m.body)),
      ours.map((m) => m.outcome.slice(0, 300)),
      ours.map((m) => m.collection?.inboundId ?? null),
    ],
  );
}

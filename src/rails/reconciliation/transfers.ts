// Which transfers a reconciliation of a day looks at: every transfer our ledger says went over the
// rail that day. A payout whose transfer was sent (rail_payouts phase transfer, committed or
// aborted; one failed before sending never reached the rail) and an inbound transfer we accepted
// (rail_collections phase reserved, committed or aborted, with its transfer id), created that day
// or final that day. A transfer created one day and final the next is looked at on both days.
//
// Read a page at a time, each stream by its own time index (migration 0025) with a keyset on
// (time, merchant, id): a day of any size costs one range scan, never a re-sort of the whole day
// per page. The time travels as text so that its microseconds survive the round trip.
import type { Db } from '../../db/pool.ts';

export interface DayTransfer {
  subject: 'payout' | 'collection';
  merchantAccountNumber: number;
  /** rail_payouts.payout_id or rail_collections.inbound_id. */
  ownerId: number;
  transferId: string;
}

interface Stream {
  subject: DayTransfer['subject'];
  table: 'rail_payouts' | 'rail_collections';
  id: 'payout_id' | 'inbound_id';
  phases: string[];
  time: 'created_at' | 'completed_at';
}

// Created that day, then final that day but created before (already read with their own day).
const STREAMS: Stream[] = [
  { subject: 'payout', table: 'rail_payouts', id: 'payout_id', phases: ['transfer', 'committed', 'aborted'], time: 'created_at' },
  { subject: 'payout', table: 'rail_payouts', id: 'payout_id', phases: ['committed', 'aborted'], time: 'completed_at' },
  { subject: 'collection', table: 'rail_collections', id: 'inbound_id', phases: ['reserved', 'committed', 'aborted'], time: 'created_at' },
  { subject: 'collection', table: 'rail_collections', id: 'inbound_id', phases: ['committed', 'aborted'], time: 'completed_at' },
];

interface Cursor {
  at: string;
  merchantAccountNumber: number;
  ownerId: number;
}

async function page(db: Db, stream: Stream, rail: string, day: string, after: Cursor | null, limit: number): Promise<{ rows: DayTransfer[]; last: Cursor | null }> {
  const { rows } = await db.query<{ merchant_account_number: number; owner_id: number; transfer_id: string; at: string }>(
    `select merchant_account_number, ${stream.id} as owner_id, transfer_id, ${stream.time}::text as at
       from ${stream.table}
      where rail = $1 and phase = any($2::text[]) and transfer_id is not null
        and ${stream.time} >= $3::date::timestamp at time zone 'UTC' and ${stream.time} < ($3::date + 1)::timestamp at time zone 'UTC'
        ${stream.time === 'completed_at' ? `and created_at < $3::date::timestamp at time zone 'UTC'` : ''}
        and ($4::timestamptz is null or (${stream.time}, merchant_account_number, ${stream.id}) > ($4::timestamptz, $5::integer, $6::bigint))
      order by ${stream.time}, merchant_account_number, ${stream.id}
      limit $7`,
    [rail, stream.phases, day, after?.at ?? null, after?.merchantAccountNumber ?? null, after?.ownerId ?? null, limit],
  );
  const tail = rows.at(-1);
  return {
    rows: rows.map((r) => ({ subject: stream.subject, merchantAccountNumber: r.merchant_account_number, ownerId: r.owner_id, transferId: r.transfer_id })),
    last: tail ? { at: tail.at, merchantAccountNumber: tail.merchant_account_number, ownerId: tail.owner_id } : null,
  };
}

/** The day's transfers of `rail`, `pageSize` at a time (a page may be shorter where one stream ends). */
export async function* dayTransfers(db: Db, rail: string, day: string, pageSize: number): AsyncGenerator<DayTransfer[]> {
  for (const stream of STREAMS) {
    let after: Cursor | null = null;
    for (;;) {
      const { rows, last } = await page(db, stream, rail, day, after, pageSize);
      if (rows.length > 0) yield rows;
      if (rows.length < pageSize || !last) break;
      after = last;
    }
  }
}

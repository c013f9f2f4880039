// The comparison: a chunk of a day's transfers, our record of each (the rail row, and what our
// ledger booked for it) beside the rail's (its report, if newer than our question, and the amount
// the transfer carried), in one statement that also records the differences as exceptions.
//
// Our side, per transfer: committed (a payout S, a collection credited), not committed (aborted),
// or in flight (sent, no final word yet). Our ledger's amount: for a payout, what its rail_send
// put into rail_in_flight less its fee; for a collection credited, what its payment or payrequest
// transfer took from customer_payments. The rail's amount: the amount of the POST /transfers as
// sent (a payout: our request) or received (a collection: the payer's request).
//
// A transfer has at most one exception of each kind (rail_exceptions_transfer_key): found again,
// an open one is brought up to date, a resolved one stays as it is. An open one this chunk no
// longer finds is closed as 'cleared' when the run knows better: the rail answered this time, or
// (in flight past expiry) the transfer is no longer in flight. The rail's states: COMMITTED,
// ABORTED, RESERVED, RECEIVED, NOT_FOUND (3208), or ERROR (another error: about our question, so
// no answer about the transfer).
import type { Db } from '../../db/pool.ts';
import { CURRENCIES, currencyExponent } from '../mojaloop/amount.ts';
import type { DayTransfer } from './transfers.ts';

export interface ChunkResult {
  checked: number;
  unanswered: number;
  differences: number;
  newExceptions: number;
  cleared: number;
}

/** Each FSPIOP currency's exponent, for reading amounts in SQL. */
const EXPONENTS = JSON.stringify(Object.fromEntries(CURRENCIES.flatMap((c) => (currencyExponent(c) === undefined ? [] : [[c, currencyExponent(c)]]))));

/** Minor units of an FSPIOP Money object in jsonb (`money`), null when it is not a canonical amount of a known currency. */
function carriedMinor(money: string): string {
  return `case when (${money}->>'amount') ~ '^[0-9]{1,18}([.][0-9]{1,4})?$' and $8::jsonb ? (${money}->>'currency')
               then round((${money}->>'amount')::numeric * 10 ^ ($8::jsonb->>(${money}->>'currency'))::integer)::bigint end`;
}

/** The booked amount of one ledger transfer type on one system account kind, for a reference of a merchant. */
function booked(merchant: string, reference: string, types: string, kind: string): string {
  return `(select sum(e.amount_minor) from ledger_transfers t
             join ledger_entries e on e.transfer_id = t.transfer_id
             join ledger_accounts a on a.account_id = e.account_id and a.kind = '${kind}' and a.merchant_account_number = ${merchant}
            where t.merchant_account_number = ${merchant} and t.reference = ${reference} and t.transfer_type in (${types}))`;
}

const OURS = `
  select r.merchant_account_number, r.payout_id, null::bigint as inbound_id, r.transfer_id, p.transaction_reference_number::text as reference,
         p.currency_code, r.phase as ours_phase,
         case r.phase when 'committed' then 'committed' when 'transfer' then 'in_flight' else 'not_committed' end as ours,
         r.expires_at, p.fee_minor,
         ${booked('r.merchant_account_number', 'p.transaction_reference_number::text', `'rail_send'`, 'rail_in_flight')} - p.fee_minor as ours_amount_minor,
         (select ${carriedMinor(`m.body->'amount'`)} from rail_messages m
           where m.merchant_account_number = r.merchant_account_number and m.payout_id = r.payout_id
             and m.direction = 'out' and m.method = 'POST' and m.path = '/transfers'
           order by m.message_id desc limit 1) as theirs_amount_minor
    from chunk c
    join rail_payouts r on r.merchant_account_number = c.merchant_account_number and r.payout_id = c.owner_id
    join payouts p on p.merchant_account_number = r.merchant_account_number and p.payout_id = r.payout_id
   where c.subject = 'payout' and r.rail = $4
  union all
  select rc.merchant_account_number, null, rc.inbound_id, rc.transfer_id, col.transaction_reference_number::text,
         rc.currency_code, rc.phase,
         case rc.phase when 'committed' then 'committed' when 'reserved' then 'in_flight' else 'not_committed' end,
         rc.transfer_expires_at, coalesce(col.fee_minor, 0),
         case when rc.phase = 'committed'
              then -${booked('rc.merchant_account_number', 'col.transaction_reference_number::text', `'payment', 'payrequest'`, 'customer_payments')}
              else rc.amount_minor end,
         coalesce((select ${carriedMinor(`m.body->'amount'`)} from rail_messages m
                    where m.merchant_account_number = rc.merchant_account_number and m.inbound_id = rc.inbound_id
                      and m.direction = 'in' and m.method = 'POST' and m.path = '/transfers' and m.outcome = 'accepted'
                    order by m.message_id desc limit 1), rc.amount_minor)
    from chunk c
    join rail_collections rc on rc.merchant_account_number = c.merchant_account_number and rc.inbound_id = c.owner_id
    left join collections col on col.merchant_account_number = rc.merchant_account_number and col.collection_id = rc.collection_id
   where c.subject = 'collection' and rc.rail = $4`;

// $1-$3 the chunk (subject, merchant, owner id), $4 rail, $5 the asking time, $6 the in-flight
// bound in seconds, $7 the run, $8 the currencies' exponents, $9 the run's day. The upsert sets
// last_seen_at from the row it would have inserted (its default, now()), not by calling now():
// Citus wants IMMUTABLE expressions in DO UPDATE SET on a distributed table.
const COMPARE = `
with chunk as (
  select * from unnest($1::text[], $2::integer[], $3::bigint[]) as u(subject, merchant_account_number, owner_id)
), ours as (${OURS}
), compared as (
  -- answered: the switch gave the transfer's state; an error other than "not found" (ERROR) is
  -- about our question, not the transfer, and counts as no answer.
  select o.*, rep.transfer_state as theirs_state, rep.error_code as theirs_error_code,
         coalesce(rep.transfer_state <> 'ERROR', false) as answered
    from ours o
    left join rail_transfer_reports rep on rep.merchant_account_number = o.merchant_account_number and rep.rail = $4 and rep.transfer_id = o.transfer_id
                                       and rep.reported_at >= $5::timestamptz
), found as (
  select c.*, k.kind
    from compared c
    cross join lateral (values
      ('in_flight_past_expiry', c.ours = 'in_flight' and c.expires_at + make_interval(secs => $6) < now()),
      ('theirs_unknown', c.ours <> 'in_flight' and not c.answered),
      ('ours_committed_theirs_not', c.ours = 'committed' and c.answered and c.theirs_state <> 'COMMITTED'),
      ('theirs_committed_ours_not', c.ours = 'not_committed' and c.theirs_state = 'COMMITTED'),
      ('amount_differs', c.ours = 'committed' and c.theirs_state = 'COMMITTED' and c.theirs_amount_minor <> c.ours_amount_minor)
    ) as k(kind, present)
   where k.present
), upserted as (
  insert into rail_exceptions (merchant_account_number, rail, transfer_id, kind, payout_id, inbound_id, reference, currency_code, ours_phase,
                               theirs_state, theirs_error_code, ours_amount_minor, theirs_amount_minor, fee_minor, expires_at, day, first_run_id, last_run_id)
  select merchant_account_number, $4, transfer_id, kind, payout_id, inbound_id, reference, currency_code, ours_phase,
         theirs_state, theirs_error_code, ours_amount_minor, theirs_amount_minor, fee_minor, expires_at, $9::date, $7, $7
    from found
  on conflict (merchant_account_number, rail, transfer_id, kind) do update
     set reference = excluded.reference, ours_phase = excluded.ours_phase, theirs_state = excluded.theirs_state,
         theirs_error_code = excluded.theirs_error_code, ours_amount_minor = excluded.ours_amount_minor,
         theirs_amount_minor = excluded.theirs_amount_minor, fee_minor = excluded.fee_minor, expires_at = excluded.expires_at,
         last_run_id = excluded.last_run_id, last_seen_at = excluded.last_seen_at
   where rail_exceptions.resolved_at is null
  returning xmax = 0 as inserted
), cleared as (
  update rail_exceptions x
     set resolution = 'cleared', resolved_at = now(), resolved_by = 'reconciliation',
         reason = format('reconciliation run %s found no difference: ours %s, theirs %s', $7, c.ours_phase, coalesce(c.theirs_state, 'no answer'))
    from compared c
   where x.merchant_account_number = c.merchant_account_number and x.rail = $4 and x.transfer_id = c.transfer_id and x.resolved_at is null
     and (x.kind = 'in_flight_past_expiry' or c.answered)
     and not exists (select 1 from found f where f.merchant_account_number = x.merchant_account_number and f.transfer_id = x.transfer_id and f.kind = x.kind)
  returning 1
)
select (select count(*) from compared)::integer as checked,
       (select count(*) from compared where not answered)::integer as unanswered,
       (select count(*) from found)::integer as differences,
       (select count(*) from upserted where inserted)::integer as "newExceptions",
       (select count(*) from cleared)::integer as cleared`;

/** Compares a chunk asked at `askedAt` and records its differences; one statement. */
export async function compareChunk(
  db: Db,
  input: { runId: number; rail: string; day: string; transfers: DayTransfer[]; askedAt: string; inFlightBoundSeconds: number },
): Promise<ChunkResult> {
  const { rows } = await db.query<ChunkResult>(COMPARE, [
    input.transfers.map((t) => t.subject),
    input.transfers.map((t) => t.merchantAccountNumber),
    input.transfers.map((t) => t.ownerId),
    input.rail,
    input.askedAt,
    input.inFlightBoundSeconds,
    input.runId,
    EXPONENTS,
    input.day,
  ]);
  return rows[0];
}

// The sandbox's simulated connector as a rail (product.md §7), and its production counterpart for
// connectors no real rail carries. Both decide a whole chunk of payouts in one set-based
// statement: the simulated rail pays every well-formed account except the magic suffixes
// (modules/disbursements/sandbox.ts), the unavailable rail fails every payout with F105 and
// refunds it. Each chunk is one transaction: the lines' outcomes and their booking
// (modules/disbursements/outcomes.ts). A worker killed mid-chunk rolls the chunk back; the lines
// are still T and the next worker takes them: no line is ever paid twice. Chunks are claimed with
// FOR UPDATE SKIP LOCKED, so two workers on the same merchant never take the same line.
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import type { Deps } from '../../http/types.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../../modules/ledger/ledger.ts';
import { bookOutcomes, emitPayoutEvents, PROCESSED_COLUMNS, payoutStats, updateBatchCounters, updateReturningProcessed } from '../../modules/disbursements/outcomes.ts';
import { applyStats } from '../../modules/analytics/stats.ts';
import { PAYOUT } from '../../modules/disbursements/lifecycle.ts';
import { AWAITING, CONNECTOR_UNAVAILABLE, MAGIC_SUFFIXES, MERCHANT_UNAVAILABLE, SUCCESS } from '../../modules/disbursements/sandbox.ts';
import { connectorMatches, connectorParams, errorRate, type ConnectorSet, type PayoutRail, type RailHealth } from '../contract.ts';

/** Lines per transaction: big enough to amortise the statements, small enough to keep locks short. */
export const CHUNK_LINES = 1000;

interface ChunkOptions {
  /** true: the sandbox connector decides (magic suffixes); false: every payout fails with F105. */
  simulate: boolean;
}

async function decideChunk(deps: Deps, tx: pg.PoolClient, merchantAccountNumber: number, connectors: ConnectorSet, options: ChunkOptions): Promise<number> {
  const suffixes = options.simulate ? MAGIC_SUFFIXES : [];
  const [only, except] = connectorParams(connectors);
  // The transaction's now() and the times derived from it, read first and passed in: Citus refuses
  // a non-IMMUTABLE call (now(), timestamptz + interval) inside CASE in an UPDATE's SET on a
  // distributed table ("non-IMMUTABLE functions are not allowed in CASE or COALESCE statements").
  // The values are those PostgreSQL would have computed in the statement (as text: to the microsecond).
  const times = await tx.query<{ at: string; timeout_at: string; reverse_at: string }>(
    'select now()::text as at, (now() + make_interval(secs => $1))::text as timeout_at, (now() + make_interval(secs => $2))::text as reverse_at',
    [deps.config.payoutTimeoutSeconds, deps.config.payoutReversalSeconds],
  );
  const { at, timeout_at: timeoutAt, reverse_at: reverseAt } = times.rows[0];
  const rows = await updateReturningProcessed(tx,
    `with picked as (
       select payout_id from payouts
        where merchant_account_number = $1 and status_code = 'T' and due_at <= now() and ${connectorMatches('connector_id', '$17', '$18')}
        order by due_at, payout_id limit $2 for update skip locked
     ), decided as (
       select p.payout_id,
              case when m.status_code <> 'A' then 'merchant'
                   when c.connector_id is null or not c.is_active or not c.is_disbursement_allowed or not $19::boolean then 'connector'
                   when s.outcome = 'timeout' and p.attempts = 0 then 'awaiting'
                   else coalesce(s.outcome, 'success') end as outcome,
              s.code, s.message
         from payouts p join picked using (payout_id)
         join merchants m on m.merchant_account_number = p.merchant_account_number
         left join connectors c on c.connector_id = p.connector_id
         left join unnest($3::text[], $4::text[], $5::text[], $6::text[]) as s(suffix, outcome, code, message) on right(p.beneficiary_account_number, 4) = s.suffix
        where p.merchant_account_number = $1
     )
     update payouts p set
            -- Searched CASE (case when d.outcome = …), not simple (case d.outcome when …): Citus 13.2
            -- deparses the simple form in an UPDATE's SET for its workers as WHEN NULL::boolean
            -- ("operator does not exist: text = boolean").
            status_code = case when d.outcome = 'awaiting' then 'T' when d.outcome in ('success', 'reverse') then 'S' else 'F' end,
            due_at = case when d.outcome = 'awaiting' then $7::timestamptz end,
            attempts = p.attempts + 1,
            response_code = case when d.outcome = 'merchant' then $9::text when d.outcome = 'connector' then $10::text when d.outcome = 'awaiting' then $11::text
                                 when d.outcome in ('success', 'reverse') then $12::text else d.code end,
            response_message = case when d.outcome = 'merchant' then $13::text when d.outcome = 'connector' then $14::text when d.outcome = 'awaiting' then $15::text
                                    when d.outcome in ('success', 'reverse') then $16::text else d.message end,
            completed_at = case when d.outcome <> 'awaiting' then $20::timestamptz end,
            reverse_at = case when d.outcome = 'reverse' then $8::timestamptz end
       from decided d
      where p.merchant_account_number = $1 and p.payout_id = d.payout_id
      returning ${PROCESSED_COLUMNS}`,
    [
      merchantAccountNumber,
      CHUNK_LINES,
      suffixes.map((m) => m.suffix),
      suffixes.map((m) => m.outcome),
      suffixes.map((m) => (m.outcome === 'reverse' ? SUCCESS.responseCode : m.responseCode)),
      suffixes.map((m) => (m.outcome === 'reverse' ? SUCCESS.responseMessage : m.responseMessage)),
      timeoutAt,
      reverseAt,
      MERCHANT_UNAVAILABLE.responseCode,
      CONNECTOR_UNAVAILABLE.responseCode,
      AWAITING.responseCode,
      SUCCESS.responseCode,
      MERCHANT_UNAVAILABLE.responseMessage,
      CONNECTOR_UNAVAILABLE.responseMessage,
      AWAITING.responseMessage,
      SUCCESS.responseMessage,
      only,
      except,
      options.simulate,
      at,
    ],
  );
  if (rows.length === 0) return 0;
  const final = rows.filter((r) => r.status_code !== PAYOUT.transferring);
  await bookOutcomes(deps, tx, merchantAccountNumber, final, {
    from: 'payouts_in_flight',
    transferType: 'payout_settle',
    reference: `P${rows[0].payout_id}-${final.length}`,
  });
  return rows.length;
}

/** Successful payouts whose (simulated) reversal is due: R, the amount back to the merchant. */
async function reverseChunk(tx: pg.PoolClient, merchantAccountNumber: number, connectors: ConnectorSet): Promise<number> {
  const reversal = MAGIC_SUFFIXES.find((m) => m.outcome === 'reverse')!;
  const [only, except] = connectorParams(connectors);
  const rows = await updateReturningProcessed(tx,
    `update payouts p set status_code = 'R', reversed_at = now(), response_code = $3, response_message = $4
       from (select payout_id from payouts
              where merchant_account_number = $1 and status_code = 'S' and reverse_at <= now() and ${connectorMatches('connector_id', '$5', '$6')}
              order by reverse_at, payout_id limit $2 for update skip locked) d
      where p.merchant_account_number = $1 and p.payout_id = d.payout_id
      returning ${PROCESSED_COLUMNS}`,
    [merchantAccountNumber, CHUNK_LINES, reversal.responseCode, reversal.responseMessage, only, except],
  );
  if (rows.length === 0) return 0;
  const currency = rows[0].currency_code;
  const amount = rows.reduce((s, r) => s + r.amount_minor, 0);
  // The beneficiary's institution returned the amount; the fee stays charged (the payout was made).
  await postTransfer(tx, {
    merchantAccountNumber,
    type: 'payout_reversal',
    reference: `R${rows[0].payout_id}-${rows.length}`,
    entries: [
      { accountId: await systemAccountId(tx, merchantAccountNumber, 'payouts_settled', currency), amountMinor: -amount },
      { accountId: await merchantAccountId(tx, merchantAccountNumber, 'disbursement', currency), amountMinor: amount },
    ],
  });
  // In bookOutcomes' order (stats, events, then the batch row), so the two never wait on each other crosswise.
  await applyStats(tx, payoutStats(merchantAccountNumber, rows));
  await emitPayoutEvents(tx, merchantAccountNumber, rows);
  await updateBatchCounters(tx, rows);
  return rows.length;
}

/** Health from the payouts themselves: a chunked rail has nothing in flight between transactions. */
async function chunkHealth(deps: Deps, name: string, connectors: ConnectorSet): Promise<RailHealth> {
  const [only, except] = connectorParams(connectors);
  const { rows } = await deps.db.query<{ last_success: Date | null; last_failure: Date | null; failures: string; successes: string }>(
    `select max(completed_at) filter (where status_code in ('S', 'R')) as last_success,
            max(completed_at) filter (where status_code = 'F') as last_failure,
            count(*) filter (where status_code = 'F' and completed_at > now() - interval '1 hour') as failures,
            count(*) filter (where status_code in ('S', 'R') and completed_at > now() - interval '1 hour') as successes
       from payouts where completed_at is not null and ${connectorMatches('connector_id', '$1', '$2')}
        and not exists (select 1 from rail_payouts r where r.merchant_account_number = payouts.merchant_account_number and r.payout_id = payouts.payout_id)`,
    [only, except],
  );
  const r = rows[0];
  return {
    rail: name,
    connectorIds: 'only' in connectors ? [...connectors.only] : 'others',
    lastSuccessAt: r.last_success?.toISOString() ?? null,
    lastFailureAt: r.last_failure?.toISOString() ?? null,
    failuresLastHour: Number(r.failures),
    successesLastHour: Number(r.successes),
    errorRateLastHour: errorRate(Number(r.successes), Number(r.failures)),
    inFlight: 0,
    overdue: 0,
    oldestInFlightSeconds: null,
    // The simulated connector's collections are simulated payments (no rail carries them).
    collections: null,
  };
}

function chunkRail(name: string, options: ChunkOptions): PayoutRail {
  return {
    name,
    async processDue(deps, merchantAccountNumber, connectors) {
      const decided = await withTransaction(deps.db, (tx) => decideChunk(deps, tx, merchantAccountNumber, connectors, options));
      if (decided > 0 || !options.simulate) return decided;
      return withTransaction(deps.db, (tx) => reverseChunk(tx, merchantAccountNumber, connectors));
    },
    health: (deps, connectors) => chunkHealth(deps, name, connectors),
  };
}

/** The sandbox connector: every connector no other rail carries, in sandbox mode. */
export const simulatedRail = chunkRail('simulated', { simulate: true });

/**
 * Production's rail for connectors no real rail carries (product.md §15): it never simulates, so
 * each payout fails at once with F105 and is refunded in full, fee included.
 */
export const unavailableRail = chunkRail('unavailable', { simulate: false });

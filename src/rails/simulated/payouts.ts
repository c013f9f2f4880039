// The sandbox's simulated connector as a rail (product.md §7), and its production counterpart for
// connectors no real rail carries. Both claim a chunk of payouts and decide it in one set-based
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
import { bookOutcomes, emitPayoutEvents, PROCESSED_COLUMNS, payoutStats, updateBatchCounters, updateReturningProcessed, type ProcessedRow } from '../../modules/disbursements/outcomes.ts';
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

/** What a chunk claims: lines whose next step is due (T past due_at), or successes whose simulated reversal is (S past reverse_at). */
const DUE = {
  decide: { where: `status_code = 'T' and due_at <= now()`, order: 'due_at, payout_id' },
  reverse: { where: `status_code = 'S' and reverse_at <= now()`, order: 'reverse_at, payout_id' },
} as const;

/** A claimed line, with what deciding it reads. */
interface DueLine {
  payout_id: number;
  connector_id: number;
  beneficiary_account_number: string;
  attempts: number;
}

/**
 * Locks up to CHUNK_LINES of the merchant's `due` lines on these connectors, oldest first, skipping
 * lines another worker holds (two workers never take the same line). A statement of its own, and
 * every statement after it names the chunk's lines by id (`payout_id = any(…)`) in payouts alone:
 * no statement of a chunk joins payouts to payouts, so no plan can multiply the merchant's lines
 * by themselves, whatever the table's statistics say. One did: the lines of a merchant that came
 * after the table's last ANALYZE (a new merchant's first batch) were estimated at one row, and the
 * chunk's UPDATE, then joined to this claim, ran as a nested loop of all of them against all of
 * them: 286 s for a chunk of a 20,000-line batch, past the statement timeout at every attempt.
 */
async function claimDue(tx: pg.PoolClient, merchantAccountNumber: number, due: keyof typeof DUE, connectors: ConnectorSet): Promise<DueLine[]> {
  const [only, except] = connectorParams(connectors);
  const { rows } = await tx.query<DueLine>(
    `select payout_id, connector_id, beneficiary_account_number, attempts from payouts
      where merchant_account_number = $1 and ${DUE[due].where} and ${connectorMatches('connector_id', '$3', '$4')}
      order by ${DUE[due].order} limit $2 for update skip locked`,
    [merchantAccountNumber, CHUNK_LINES, only, except],
  );
  return rows;
}

/** What a decided line becomes: its status, its answer, and which of the chunk's times it takes. */
interface Decision {
  status: 'T' | 'S' | 'F';
  answer: { responseCode: string; responseMessage: string };
  /** T: asked again once the connector's time-out has passed. */
  awaiting?: true;
  /** S: reversed by the simulated beneficiary institution after PAYOUT_REVERSAL_SECONDS. */
  reversing?: true;
}

/**
 * The rules of a chunk's outcome (product.md §7): an inactive merchant's lines fail (F106), so do
 * those of a connector that is gone, inactive or closed to disbursements, and every line on the
 * unavailable rail (F105); otherwise the sandbox's magic suffix decides (a time-out waits once,
 * then fails), and any other account is paid.
 */
function decide(line: DueLine, merchantActive: boolean, connectorOpen: boolean, options: ChunkOptions): Decision {
  if (!merchantActive) return { status: 'F', answer: MERCHANT_UNAVAILABLE };
  if (!connectorOpen || !options.simulate) return { status: 'F', answer: CONNECTOR_UNAVAILABLE };
  const magic = MAGIC_SUFFIXES.find((m) => line.beneficiary_account_number.endsWith(m.suffix));
  if (!magic) return { status: 'S', answer: SUCCESS };
  if (magic.outcome === 'timeout' && line.attempts === 0) return { status: 'T', answer: AWAITING, awaiting: true };
  if (magic.outcome === 'reverse') return { status: 'S', answer: SUCCESS, reversing: true };
  return { status: 'F', answer: magic };
}

async function decideChunk(deps: Deps, tx: pg.PoolClient, merchantAccountNumber: number, connectors: ConnectorSet, options: ChunkOptions): Promise<number> {
  const lines = await claimDue(tx, merchantAccountNumber, 'decide', connectors);
  if (lines.length === 0) return 0;
  const facts = await tx.query<{ merchant_active: boolean; open_connectors: number[]; at: string; timeout_at: string; reverse_at: string }>(
    `select (select status_code = 'A' from merchants where merchant_account_number = $1) as merchant_active,
            array(select connector_id from connectors where connector_id = any($2::integer[]) and is_active and is_disbursement_allowed) as open_connectors,
            now()::text as at, (now() + make_interval(secs => $3))::text as timeout_at, (now() + make_interval(secs => $4))::text as reverse_at`,
    [merchantAccountNumber, [...new Set(lines.map((l) => l.connector_id))], deps.config.payoutTimeoutSeconds, deps.config.payoutReversalSeconds],
  );
  const f = facts.rows[0];
  const open = new Set(f.open_connectors);
  // One UPDATE per distinct decision (a handful at most), each naming its lines by id. The times
  // are the transaction's now() and those derived from it, passed in as text (to the microsecond).
  const groups = new Map<string, { decision: Decision; ids: number[] }>();
  for (const line of lines) {
    const decision = decide(line, f.merchant_active === true, open.has(line.connector_id), options);
    const key = `${decision.status}:${decision.answer.responseCode}:${decision.reversing ?? ''}`;
    const group = groups.get(key) ?? groups.set(key, { decision, ids: [] }).get(key)!;
    group.ids.push(line.payout_id);
  }
  const rows: ProcessedRow[] = [];
  for (const { decision, ids } of groups.values()) {
    rows.push(
      ...(await updateReturningProcessed(tx,
        `update payouts p set status_code = $3, due_at = $4::timestamptz, attempts = p.attempts + 1, response_code = $5, response_message = $6,
                completed_at = $7::timestamptz, reverse_at = $8::timestamptz
          where p.merchant_account_number = $1 and p.payout_id = any($2::bigint[])
          returning ${PROCESSED_COLUMNS}`,
        [
          merchantAccountNumber,
          ids,
          decision.status,
          decision.awaiting ? f.timeout_at : null,
          decision.answer.responseCode,
          decision.answer.responseMessage,
          decision.awaiting ? null : f.at,
          decision.reversing ? f.reverse_at : null,
        ],
      )),
    );
  }
  rows.sort((x, y) => x.payout_id - y.payout_id);
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
  const ids = (await claimDue(tx, merchantAccountNumber, 'reverse', connectors)).map((l) => l.payout_id);
  if (ids.length === 0) return 0;
  const rows = await updateReturningProcessed(tx,
    `update payouts p set status_code = 'R', reversed_at = now(), response_code = $3, response_message = $4
      where p.merchant_account_number = $1 and p.payout_id = any($2::bigint[])
      returning ${PROCESSED_COLUMNS}`,
    [merchantAccountNumber, ids, reversal.responseCode, reversal.responseMessage],
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

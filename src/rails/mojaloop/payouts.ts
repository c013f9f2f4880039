// Payouts over Mojaloop, the worker's side: a payout routed here goes GET /parties (who is the
// beneficiary, at which DFSP) → POST /quotes (the terms, the ILP condition) → POST /transfers,
// each answered by a callback (callbacks.ts). This file takes the due payouts: new ones start
// their lookup; a lookup or quote unanswered for MOJALOOP_CALLBACK_SECONDS is asked again, up to
// MOJALOOP_LOOKUP_ATTEMPTS times, then fails with F108 (no money has left: the transfer was never
// sent); a transfer unanswered past its expiration is asked about with GET /transfers/{id},
// never sent again. Each claim is one transaction (states, due times, failures booked); the
// requests go out after it commits.
import type pg from 'pg';
import { transactionNow, withTransaction } from '../../db/pool.ts';
import type { Deps } from '../../http/types.ts';
import { bookOutcomes, PROCESSED_COLUMNS, updateReturningProcessed, type ProcessedRow } from '../../modules/disbursements/outcomes.ts';
import { CONNECTOR_UNAVAILABLE, MERCHANT_UNAVAILABLE } from '../../modules/disbursements/sandbox.ts';
import { connectorParams, type ConnectorSet } from '../contract.ts';
import { toFspiopAmount } from './amount.ts';
import type { SwitchRequest } from './client.ts';
import { derivedId } from './ids.ts';
import type { MojaloopContext } from './types.ts';

/** Payouts per claim: each becomes one request, sent CONCURRENCY at a time after the claim commits. */
const CLAIM_LIMIT = 200;
/**
 * Payouts of one merchant between their lookup and their outcome at once. A 10,000-line batch
 * started all at once queued 10,000 lookups at the switch and every payout waited minutes behind
 * them (bench: p50 260 s); with a window, new payouts start as earlier ones finish (the worker
 * looks again every second while any waits: processing.ts), and each one's time is its own.
 * 64 halved the rate over the Testing Toolkit (12 payouts/s against 23: a payout took about 5 s
 * end to end on the loaded 2-core machine, so 64 could not keep the pipeline full); 256 keeps it
 * full. Retries and questions about transfers in flight are never held back by it.
 */
export const OPEN_PER_MERCHANT = 256;

/** The switch did not answer a lookup or quote, however often asked: nothing was sent, the payout fails and is refunded. */
export const NO_ANSWER = { responseCode: 'F108', responseMessage: 'Connector did not respond; transfer failed' };

/** A payout's row as the rail needs it, with its rail_payouts row when it has one. */
export interface RailPayoutRow {
  payout_id: number;
  merchant_account_number: number;
  transaction_reference_number: string;
  beneficiary_name: string;
  beneficiary_account_number: string;
  transaction_code: 'MMW' | 'MBA' | null;
  transaction_description: string;
  amount_minor: number;
  fee_minor: number;
  currency_code: string;
  merchant_name: string;
  payment_account_number: string;
  merchant_active: boolean;
  connector_usable: boolean;
  phase: 'lookup' | 'quote' | 'transfer' | null;
  attempts: number;
  transfer_id: string | null;
  quote_id: string | null;
  transaction_id: string | null;
  party_id_type: string | null;
  party_identifier: string | null;
  payee_fsp: string | null;
  ilp_packet: string | null;
  condition: string | null;
  expires_at: Date | null;
  party_name: string | null;
  name_matches: boolean | null;
  asked_at: Date | null;
}

/** The columns of RailPayoutRow, over payouts p, merchants m, connectors c and rail_payouts r. */
export const RAIL_PAYOUT_COLUMNS = `p.payout_id, p.merchant_account_number, p.transaction_reference_number, p.beneficiary_name, p.beneficiary_account_number,
       p.transaction_code, p.transaction_description, p.amount_minor, p.fee_minor, p.currency_code,
       m.account_name as merchant_name, m.payment_account_number, m.status_code = 'A' as merchant_active,
       coalesce(c.is_active and c.is_disbursement_allowed, false) as connector_usable,
       r.phase, coalesce(r.attempts, 0) as attempts, r.transfer_id, r.quote_id, r.transaction_id, r.party_id_type, r.party_identifier,
       r.payee_fsp, r.ilp_packet, r.condition, r.expires_at, r.party_name, r.name_matches, r.asked_at`;

/** Wallets are found by their phone number, bank accounts by their number. */
export function partyIdType(row: Pick<RailPayoutRow, 'transaction_code'>): 'MSISDN' | 'ACCOUNT_ID' {
  return row.transaction_code === 'MMW' ? 'MSISDN' : 'ACCOUNT_ID';
}

type Decision =
  | { kind: 'start' | 'lookup' | 'quote' | 'ask'; row: RailPayoutRow }
  | { kind: 'fail'; row: RailPayoutRow; responseCode: string; responseMessage: string };

function decide(ctx: MojaloopContext, row: RailPayoutRow): Decision {
  // Once a transfer may have been sent, only the switch's word ends it: ask, whatever else changed.
  if (row.phase === 'transfer') return { kind: 'ask', row };
  if (!row.merchant_active) return { kind: 'fail', row, ...MERCHANT_UNAVAILABLE };
  if (!row.connector_usable) return { kind: 'fail', row, ...CONNECTOR_UNAVAILABLE };
  if (row.phase === null) return { kind: 'start', row };
  if (row.attempts >= ctx.config.lookupAttempts) return { kind: 'fail', row, ...NO_ANSWER };
  return { kind: row.phase, row };
}

/** Takes up to CLAIM_LIMIT due payouts of this merchant on Mojaloop's connectors and moves each one step. */
export async function processDuePayouts(deps: Deps, ctx: MojaloopContext, merchantAccountNumber: number, connectors: ConnectorSet): Promise<number> {
  const sends: SwitchRequest[] = [];
  const claimed = await withTransaction(deps.db, async (tx) => {
    const [only, except] = connectorParams(connectors);
    const { rows } = await tx.query<RailPayoutRow>(
      `with room as (
         select greatest($5 - count(*), 0) as n from rail_payouts
          where merchant_account_number = $1 and rail = 'mojaloop' and phase in ('lookup', 'quote', 'transfer')
       ), due as (
         select p.payout_id, r.payout_id is null as fresh, row_number() over (partition by r.payout_id is null order by p.due_at, p.payout_id) as rank
           from payouts p
           left join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
          where p.merchant_account_number = $1 and p.status_code = 'T' and p.due_at <= now()
            and ($2::integer[] is null or p.connector_id = any($2::integer[])) and p.connector_id <> all($3::integer[])
       )
       select ${RAIL_PAYOUT_COLUMNS}
         from payouts p
         join merchants m on m.merchant_account_number = p.merchant_account_number
         left join connectors c on c.connector_id = p.connector_id
         left join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
        where p.merchant_account_number = $1
          and p.payout_id in (select payout_id from due where not fresh or rank <= (select n from room))
          and p.status_code = 'T' and p.due_at <= now()
        order by p.due_at, p.payout_id limit $4 for update of p skip locked`,
      [merchantAccountNumber, only, except, CLAIM_LIMIT, OPEN_PER_MERCHANT],
    );
    if (rows.length === 0) return 0;
    const decisions = rows.map((row) => decide(ctx, row));
    await startLookups(ctx, tx, decisions.filter((d) => d.kind === 'start').map((d) => d.row));
    await markRetried(ctx, tx, decisions.filter((d) => d.kind === 'lookup' || d.kind === 'quote' || d.kind === 'ask').map((d) => d.row));
    const failures = decisions.filter((d): d is Extract<Decision, { kind: 'fail' }> => d.kind === 'fail');
    await failBeforeSending(deps, tx, merchantAccountNumber, failures.map((f) => ({ row: f.row, responseCode: f.responseCode, responseMessage: f.responseMessage })));
    for (const d of decisions) {
      if (d.kind === 'start' || d.kind === 'lookup') sends.push(lookupRequest(ctx, d.row));
      if (d.kind === 'quote') sends.push(quoteRequest(ctx, d.row));
      if (d.kind === 'ask') sends.push(askRequest(d.row));
    }
    return rows.length;
  });
  if (sends.length > 0) await ctx.client.send(sends);
  return claimed;
}

/** New payouts: their rail row with the ids derived from them, in phase lookup. */
async function startLookups(ctx: MojaloopContext, tx: pg.PoolClient, rows: RailPayoutRow[]): Promise<void> {
  if (rows.length === 0) return;
  for (const row of rows) {
    row.phase = 'lookup';
    row.attempts = 1;
    row.transfer_id = derivedId('transfer', ctx.config.fspId, row.transaction_reference_number);
    row.quote_id = derivedId('quote', ctx.config.fspId, row.transaction_reference_number);
    row.transaction_id = derivedId('transaction', ctx.config.fspId, row.transaction_reference_number);
    row.party_id_type = partyIdType(row);
    row.party_identifier = row.beneficiary_account_number;
  }
  await tx.query(
    `insert into rail_payouts (merchant_account_number, payout_id, rail, phase, attempts, transfer_id, quote_id, transaction_id, party_id_type, party_identifier)
     select merchant_account_number, payout_id, 'mojaloop', 'lookup', 1, transfer_id, quote_id, transaction_id, party_id_type, party_identifier
       from unnest($1::integer[], $2::bigint[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[], $7::text[])
            as u(merchant_account_number, payout_id, transfer_id, quote_id, transaction_id, party_id_type, party_identifier)`,
    [
      rows.map((r) => r.merchant_account_number),
      rows.map((r) => r.payout_id),
      rows.map((r) => r.transfer_id),
      rows.map((r) => r.quote_id),
      rows.map((r) => r.transaction_id),
      rows.map((r) => r.party_id_type),
      rows.map((r) => r.party_identifier),
    ],
  );
  await setDue(tx, rows, ctx.config.callbackSeconds);
}

/** Asked again (a lookup, a quote, or a transfer's outcome): one more attempt, the next wait. */
async function markRetried(ctx: MojaloopContext, tx: pg.PoolClient, rows: RailPayoutRow[]): Promise<void> {
  if (rows.length === 0) return;
  // now() passed in (transactionNow): Citus refuses it inside the CASE.
  await tx.query(
    `update rail_payouts r set attempts = least(r.attempts + 1, 32767), updated_at = $3::timestamptz,
            asked_at = case when r.phase = 'transfer' then $3::timestamptz else r.asked_at end
       from unnest($1::integer[], $2::bigint[]) as u(m, p)
      where r.merchant_account_number = u.m and r.payout_id = u.p`,
    [rows.map((r) => r.merchant_account_number), rows.map((r) => r.payout_id), await transactionNow(tx)],
  );
  await setDue(tx, rows, ctx.config.callbackSeconds);
}

/** When the worker looks at these payouts next, unless a callback moves them first. */
export async function setDue(tx: pg.PoolClient, rows: Pick<RailPayoutRow, 'merchant_account_number' | 'payout_id'>[], afterSeconds: number, from?: Date): Promise<void> {
  await tx.query(
    `update payouts p set due_at = $4::timestamptz + make_interval(secs => $3)
       from unnest($1::integer[], $2::bigint[]) as u(m, id)
      where p.merchant_account_number = u.m and p.payout_id = u.id and p.status_code = 'T'`,
    [rows.map((r) => r.merchant_account_number), rows.map((r) => r.payout_id), afterSeconds, from ?? (await transactionNow(tx))],
  );
}

export interface Failure {
  row: Pick<RailPayoutRow, 'merchant_account_number' | 'payout_id'>;
  responseCode: string;
  responseMessage: string;
}

/**
 * Fails payouts whose transfer was never sent (a lookup or quote refused or unanswered, the
 * merchant or connector gone): their money is still in payouts_in_flight and goes back in full.
 */
export async function failBeforeSending(deps: Deps, tx: pg.PoolClient, merchantAccountNumber: number, failures: Failure[]): Promise<ProcessedRow[]> {
  const rows = await decidePayouts(tx, failures.map((f) => ({ ...f, statusCode: 'F' as const })), 'failed');
  await bookOutcomes(deps, tx, merchantAccountNumber, rows, { from: 'payouts_in_flight', transferType: 'payout_settle', reference: `L${rows[0]?.payout_id}-${rows.length}`, metadata: { rail: 'mojaloop' } });
  return rows;
}

export interface Outcome extends Failure {
  statusCode: 'S' | 'F';
}

/** Sets payouts' final status and their rail rows' phase; returns the rows bookOutcomes needs. */
export async function decidePayouts(tx: pg.PoolClient, outcomes: Outcome[], phase: 'committed' | 'aborted' | 'failed'): Promise<ProcessedRow[]> {
  if (outcomes.length === 0) return [];
  return updateReturningProcessed(
    tx,
    `with decided as (
       select * from unnest($1::integer[], $2::bigint[], $3::text[], $4::text[], $5::text[]) as u(m, id, status, code, message)
     ), rail as (
       update rail_payouts r set phase = $6, updated_at = now(), completed_at = now()
         from decided d where r.merchant_account_number = d.m and r.payout_id = d.id
     )
     update payouts p set status_code = d.status, response_code = d.code, response_message = d.message,
            due_at = null, completed_at = now(), attempts = p.attempts + 1
       from decided d
      where p.merchant_account_number = d.m and p.payout_id = d.id and p.status_code = 'T'
      returning ${PROCESSED_COLUMNS}`,
    [
      outcomes.map((o) => o.row.merchant_account_number),
      outcomes.map((o) => o.row.payout_id),
      outcomes.map((o) => o.statusCode),
      outcomes.map((o) => o.responseCode),
      outcomes.map((o) => o.responseMessage.slice(0, 200)),
      phase,
    ],
  );
}

function payoutLink(row: RailPayoutRow) {
  return { merchantAccountNumber: row.merchant_account_number, payoutId: row.payout_id };
}

export function lookupRequest(_ctx: MojaloopContext, row: RailPayoutRow): SwitchRequest {
  return { method: 'GET', path: `/parties/${row.party_id_type}/${encodeURIComponent(row.party_identifier!)}`, resource: 'parties', payout: payoutLink(row) };
}

/** POST /quotes: we pay the amount the beneficiary must receive (RECEIVE), as a business. */
export function quoteRequest(ctx: MojaloopContext, row: RailPayoutRow): SwitchRequest {
  const body = {
    quoteId: row.quote_id,
    transactionId: row.transaction_id,
    payee: { partyIdInfo: { partyIdType: row.party_id_type, partyIdentifier: row.party_identifier, fspId: row.payee_fsp } },
    payer: {
      partyIdInfo: { partyIdType: 'BUSINESS', partyIdentifier: String(row.merchant_account_number), fspId: ctx.config.fspId },
      name: row.merchant_name.slice(0, 128),
    },
    amountType: 'RECEIVE',
    amount: { currency: row.currency_code, amount: toFspiopAmount(row.amount_minor, row.currency_code) },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'BUSINESS' },
    ...(row.transaction_description ? { note: row.transaction_description.slice(0, 128) } : {}),
  };
  return { method: 'POST', path: '/quotes', resource: 'quotes', destination: row.payee_fsp!, body, payout: payoutLink(row) };
}

/** POST /transfers: the quote's terms, the condition the beneficiary's DFSP must fulfil. */
export function transferRequest(ctx: MojaloopContext, row: RailPayoutRow): SwitchRequest {
  const body = {
    transferId: row.transfer_id,
    payerFsp: ctx.config.fspId,
    payeeFsp: row.payee_fsp,
    amount: { currency: row.currency_code, amount: toFspiopAmount(row.amount_minor, row.currency_code) },
    ilpPacket: row.ilp_packet,
    condition: row.condition,
    expiration: row.expires_at!.toISOString(),
  };
  return { method: 'POST', path: '/transfers', resource: 'transfers', destination: row.payee_fsp!, body, payout: payoutLink(row) };
}

/** GET /transfers/{id}: the switch's record of a transfer whose answer did not come. */
export function askRequest(row: RailPayoutRow): SwitchRequest {
  return { method: 'GET', path: `/transfers/${row.transfer_id}`, resource: 'transfers', destination: row.payee_fsp ?? undefined, payout: payoutLink(row) };
}

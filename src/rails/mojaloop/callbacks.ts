// Payouts over Mojaloop, the callbacks' side: the switch's answers to our lookups, quotes and
// transfers. Each answer is checked against the payout it names (its phase, who sends it, the
// amounts, the ILP condition) and then moves it on in one transaction: the next request goes out
// after the commit. An answer that does not match (unknown id, a sender that is not the
// beneficiary's DFSP, a fulfilment that does not hash to the condition, a second different
// outcome) is refused, logged and changes nothing; a repeat of an outcome already booked changes
// nothing either. A payout is paid only on COMMITTED with a fulfilment that hashes to the
// condition, or on COMMITTED in answer to our own GET /transfers/{id}: the switch checked the
// fulfilment then, and does not repeat it.
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import type { Deps } from '../../http/types.ts';
import { bookOutcomes } from '../../modules/disbursements/outcomes.ts';
import { SUCCESS } from '../../modules/disbursements/sandbox.ts';
import { postTransfer, systemAccountId } from '../../modules/ledger/ledger.ts';
import { fromFspiopAmount } from './amount.ts';
import type { SwitchRequest } from './client.ts';
import { payoutResponseFor } from './errors.ts';
import { decodeIlpPacket, fulfilmentMatches } from './ilp.ts';
import { namesMatch, partyName } from './names.ts';
import { decidePayouts, failBeforeSending, quoteRequest, RAIL_PAYOUT_COLUMNS, setDue, transferRequest, type RailPayoutRow } from './payouts.ts';
import type { ErrorBody, MojaloopContext, PartyBody, QuoteBody, TransferAnswer } from './types.ts';

/** What a callback did: `refused` names why it changed nothing (answered 400 and logged). */
export interface CallbackResult {
  refused?: { errorCode: string; reason: string };
  /** The payouts it concerned, for the message's record. */
  payouts: { merchantAccountNumber: number; payoutId: number }[];
  /** Requests to send once the transaction has committed. */
  sends: SwitchRequest[];
}

/** A quote's terms we refuse: nothing was sent, the payout fails and is refunded. */
export const QUOTE_REFUSED = { responseCode: 'F110', responseMessage: 'Quote refused' };

function link(row: RailPayoutRow) {
  return { merchantAccountNumber: row.merchant_account_number, payoutId: row.payout_id };
}

function refused(errorCode: string, reason: string, rows: RailPayoutRow[] = []): CallbackResult {
  return { refused: { errorCode, reason }, payouts: rows.map(link), sends: [] };
}

const ROWS_OF = `from rail_payouts r
       join payouts p on p.merchant_account_number = r.merchant_account_number and p.payout_id = r.payout_id
       join merchants m on m.merchant_account_number = p.merchant_account_number
       left join connectors c on c.connector_id = p.connector_id`;

/**
 * The payouts a callback names, locked (payout first, as the worker's claim does). A callback
 * names an id, not a merchant: the merchants are found first without a lock, then each one's rows
 * are locked with the merchant in the condition, so that no lock spans merchants (shards on Citus).
 */
async function lockRows(tx: pg.PoolClient, where: string, params: unknown[]): Promise<RailPayoutRow[]> {
  // rail_payouts alone (its own indexes): joined with payouts, a planner misled by stale statistics
  // looped over every transferring payout (bench: about 1 s per PUT /parties at 1,000 lines).
  const { rows: merchants } = await tx.query<{ merchant_account_number: number }>(
    `select distinct r.merchant_account_number from rail_payouts r where r.rail = 'mojaloop' and ${where} order by 1`,
    params,
  );
  const locked: RailPayoutRow[] = [];
  for (const { merchant_account_number: merchant } of merchants) {
    const { rows } = await tx.query<RailPayoutRow>(
      `select ${RAIL_PAYOUT_COLUMNS} ${ROWS_OF}
        where r.rail = 'mojaloop' and r.merchant_account_number = $${params.length + 1} and ${where}
        order by p.payout_id for update of p, r`,
      [...params, merchant],
    );
    locked.push(...rows);
  }
  return locked;
}

/** PUT /parties/{Type}/{ID}: the beneficiary found. Every payout waiting for this party goes on to its quote. */
export async function onParty(deps: Deps, ctx: MojaloopContext, type: string, id: string, source: string, body: PartyBody): Promise<CallbackResult> {
  return withTransaction(deps.db, async (tx) => {
    const rows = await lockRows(tx, `r.phase = 'lookup' and r.party_id_type = $1 and r.party_identifier = $2`, [type, id]);
    if (rows.length === 0) return refused('3204', `no lookup is waiting for ${type}/${id}`);
    const info = body.party.partyIdInfo;
    if (info.partyIdType !== type || info.partyIdentifier !== id) return refused('3100', 'the party in the body is not the one in the path', rows);
    if (!info.fspId) return refused('3102', 'the party has no fspId', rows);
    if (info.fspId !== source) return refused('3100', `fspiop-source ${source} is not the party's DFSP ${info.fspId}`, rows);
    const name = partyName(body.party);
    const matches = rows.map((r) => (name === null ? null : namesMatch(r.beneficiary_name, name)));
    await tx.query(
      `update rail_payouts r set phase = 'quote', attempts = 1, payee_fsp = $3, party_name = $4,
              name_matches = u.matches, updated_at = now()
         from unnest($1::integer[], $2::bigint[], $5::boolean[]) as u(m, p, matches)
        where r.merchant_account_number = u.m and r.payout_id = u.p`,
      [rows.map((r) => r.merchant_account_number), rows.map((r) => r.payout_id), info.fspId, name, matches],
    );
    rows.forEach((row, i) => {
      if (matches[i] === false) deps.log.warn({ payoutId: row.payout_id, merchantAccountNumber: row.merchant_account_number }, "mojaloop: the name the beneficiary's DFSP holds differs from the payout's");
    });
    await setDue(tx, rows, ctx.config.callbackSeconds);
    for (const row of rows) row.payee_fsp = info.fspId;
    return { payouts: rows.map(link), sends: rows.map((row) => quoteRequest(ctx, row)) };
  });
}

/** PUT /parties/{Type}/{ID}/error: nobody to pay. Every payout waiting for this party fails, refunded. */
export async function onPartyError(deps: Deps, _ctx: MojaloopContext, type: string, id: string, error: ErrorBody): Promise<CallbackResult> {
  return withTransaction(deps.db, async (tx) => {
    const rows = await lockRows(tx, `r.phase = 'lookup' and r.party_id_type = $1 and r.party_identifier = $2`, [type, id]);
    if (rows.length === 0) return refused('3204', `no lookup is waiting for ${type}/${id}`);
    await failEach(deps, tx, rows, payoutResponseFor(error.errorInformation.errorCode, 'parties'));
    return { payouts: rows.map(link), sends: [] };
  });
}

/** PUT /quotes/{ID}: the terms. Accepted, the transfer is sent and its money moves to rail_in_flight. */
export async function onQuote(deps: Deps, ctx: MojaloopContext, quoteId: string, source: string, body: QuoteBody): Promise<CallbackResult> {
  return withTransaction(deps.db, async (tx) => {
    const rows = await lockRows(tx, 'r.quote_id = $1', [quoteId]);
    const row = rows[0];
    if (!row) return refused('3205', `quote ${quoteId} is not ours`);
    if (row.phase !== 'quote') return refused('3100', `quote ${quoteId} is not awaited (phase ${row.phase ?? 'final'})`, rows);
    if (source !== row.payee_fsp) return refused('3100', `fspiop-source ${source} is not the payee's DFSP ${row.payee_fsp}`, rows);
    const problem = quoteProblem(row, body);
    if (problem) {
      deps.log.warn({ payoutId: row.payout_id, problem }, 'mojaloop: quote refused');
      await failEach(deps, tx, rows, { ...QUOTE_REFUSED, responseMessage: `${QUOTE_REFUSED.responseMessage}: ${problem}` });
      return { payouts: [link(row)], sends: [] };
    }
    const expiresAt = new Date(Date.now() + ctx.config.transferExpirySeconds * 1000);
    await tx.query(
      `update rail_payouts set phase = 'transfer', attempts = 1, ilp_packet = $3, condition = $4, expires_at = $5, updated_at = now()
        where merchant_account_number = $1 and payout_id = $2`,
      [row.merchant_account_number, row.payout_id, body.ilpPacket, body.condition, expiresAt],
    );
    // From here the switch may hold the money: it waits in rail_in_flight until the switch's word.
    await postTransfer(tx, {
      merchantAccountNumber: row.merchant_account_number,
      type: 'rail_send',
      reference: row.transaction_reference_number,
      metadata: { rail: 'mojaloop', transferId: row.transfer_id },
      entries: [
        { accountId: await systemAccountId(tx, row.merchant_account_number, 'payouts_in_flight', row.currency_code), amountMinor: -(row.amount_minor + row.fee_minor) },
        { accountId: await systemAccountId(tx, row.merchant_account_number, 'rail_in_flight', row.currency_code), amountMinor: row.amount_minor + row.fee_minor },
      ],
    });
    await setDue(tx, rows, ctx.config.callbackSeconds, expiresAt);
    Object.assign(row, { phase: 'transfer', ilp_packet: body.ilpPacket, condition: body.condition, expires_at: expiresAt });
    return { payouts: [link(row)], sends: [transferRequest(ctx, row)] };
  });
}

/** Why we will not transfer on these terms, or null: the amount must be ours, unchanged, and the packet must say so too. */
function quoteProblem(row: RailPayoutRow, body: QuoteBody): string | null {
  if (body.transferAmount.currency !== row.currency_code) return `the transfer currency ${body.transferAmount.currency} is not ${row.currency_code}`;
  const transferMinor = fromFspiopAmount(body.transferAmount.amount, row.currency_code);
  if (transferMinor !== row.amount_minor) return `the transfer amount ${body.transferAmount.amount} is not the payout's`;
  if (Date.parse(body.expiration) <= Date.now()) return 'the quote has expired';
  let packet: ReturnType<typeof decodeIlpPacket>;
  try {
    packet = decodeIlpPacket(body.ilpPacket);
  } catch {
    return 'the ILP packet cannot be read';
  }
  if (packet.transaction.transactionId !== row.transaction_id || packet.transaction.quoteId !== row.quote_id) return 'the ILP packet is for another transaction';
  if (fromFspiopAmount(packet.transaction.amount.amount, row.currency_code) !== row.amount_minor) return 'the ILP packet is for another amount';
  return null;
}

/** PUT /quotes/{ID}/error: the payee's DFSP will not quote. The payout fails, refunded. */
export async function onQuoteError(deps: Deps, ctx: MojaloopContext, quoteId: string, source: string, error: ErrorBody): Promise<CallbackResult> {
  return withTransaction(deps.db, async (tx) => {
    const rows = await lockRows(tx, 'r.quote_id = $1', [quoteId]);
    const row = rows[0];
    if (!row) return refused('3205', `quote ${quoteId} is not ours`);
    if (row.phase !== 'quote') return refused('3100', `quote ${quoteId} is not awaited (phase ${row.phase ?? 'final'})`, rows);
    if (source !== row.payee_fsp && source !== ctx.switchFspId) return refused('3100', `fspiop-source ${source} may not answer this quote`, rows);
    await failEach(deps, tx, rows, payoutResponseFor(error.errorInformation.errorCode, 'quotes'));
    return { payouts: [link(row)], sends: [] };
  });
}

/** Fails payouts whose transfer was never sent (their money is still in payouts_in_flight). */
async function failEach(deps: Deps, tx: pg.PoolClient, rows: RailPayoutRow[], response: { responseCode: string; responseMessage: string }): Promise<void> {
  const byMerchant = new Map<number, RailPayoutRow[]>();
  for (const row of rows) byMerchant.set(row.merchant_account_number, [...(byMerchant.get(row.merchant_account_number) ?? []), row]);
  for (const [merchant, list] of byMerchant) await failBeforeSending(deps, tx, merchant, list.map((row) => ({ row, ...response })));
}

/** PUT /transfers/{ID} and its /error: the transfer's outcome. */
export async function onTransfer(deps: Deps, ctx: MojaloopContext, transferId: string, source: string, answer: TransferAnswer): Promise<CallbackResult> {
  return withTransaction(deps.db, async (tx) => {
    const { rows: all } = await tx.query<{ phase: string; merchant_account_number: number; payout_id: number; status_code: string; error_code: string | null }>(
      `select r.phase, r.merchant_account_number, r.payout_id, p.status_code, r.error_code from rail_payouts r
         join payouts p on p.merchant_account_number = r.merchant_account_number and p.payout_id = r.payout_id
        where r.transfer_id = $1 and r.rail = 'mojaloop'`,
      [transferId],
    );
    const known = all[0];
    if (!known) return refused('3208', `transfer ${transferId} is not ours`);
    const payouts = [{ merchantAccountNumber: known.merchant_account_number, payoutId: known.payout_id }];
    if (known.phase !== 'transfer') return repeatedOutcome(known, answer, payouts);
    const rows = await lockRows(tx, `r.transfer_id = $1 and r.phase = 'transfer'`, [transferId]);
    const row = rows[0];
    if (!row) return { payouts, sends: [] };
    if (source !== row.payee_fsp && source !== ctx.switchFspId) return refused('3100', `fspiop-source ${source} may not answer this transfer`, rows);
    const verdict = transferVerdict(row, answer);
    if (verdict.kind === 'refuse') return refused(verdict.errorCode, verdict.reason, rows);
    if (verdict.kind === 'wait') return { payouts, sends: [] };
    await settle(deps, tx, row, verdict);
    return { payouts, sends: [] };
  });
}

type Verdict =
  | { kind: 'refuse'; errorCode: string; reason: string }
  | { kind: 'wait' }
  | { kind: 'commit' }
  | { kind: 'fail'; responseCode: string; responseMessage: string; errorCode: string | null };

/** What an answer about a transfer in flight means. */
function transferVerdict(row: RailPayoutRow, answer: TransferAnswer): Verdict {
  if (answer.kind === 'error') {
    const code = answer.body.errorInformation.errorCode;
    // Asked about, an error is about our question, not the transfer; except "no such transfer"
    // once it has expired: then the transfer never reached the switch and never can.
    if (row.asked_at !== null) {
      if (code === '3208' && row.expires_at !== null && row.expires_at.getTime() < Date.now()) return { kind: 'fail', ...payoutResponseFor(code, 'transfers'), errorCode: code };
      return { kind: 'wait' };
    }
    return { kind: 'fail', ...payoutResponseFor(code, 'transfers'), errorCode: code };
  }
  const state = answer.body.transferState;
  if (state === 'COMMITTED') {
    const fulfilment = answer.body.fulfilment;
    if (fulfilment === undefined) return row.asked_at !== null ? { kind: 'commit' } : { kind: 'refuse', errorCode: '3102', reason: 'COMMITTED without a fulfilment' };
    if (!fulfilmentMatches(fulfilment, row.condition!)) return { kind: 'refuse', errorCode: '3100', reason: 'the fulfilment does not match the condition' };
    return { kind: 'commit' };
  }
  if (state === 'ABORTED') return { kind: 'fail', responseCode: 'F109', responseMessage: 'Rejected by the payment switch (transfer aborted)', errorCode: null };
  // RECEIVED, RESERVED: not an outcome yet.
  return { kind: 'wait' };
}

/** Books the switch's final word: paid, or the money back to the merchant from rail_in_flight. */
async function settle(deps: Deps, tx: pg.PoolClient, row: RailPayoutRow, verdict: Extract<Verdict, { kind: 'commit' | 'fail' }>): Promise<void> {
  const outcome =
    verdict.kind === 'commit'
      ? { row, statusCode: 'S' as const, ...successResponse(row) }
      : { row, statusCode: 'F' as const, responseCode: verdict.responseCode, responseMessage: verdict.responseMessage };
  const decided = await decidePayouts(tx, [outcome], verdict.kind === 'commit' ? 'committed' : 'aborted');
  if (verdict.kind === 'fail' && verdict.errorCode) {
    await tx.query('update rail_payouts set error_code = $3 where merchant_account_number = $1 and payout_id = $2', [row.merchant_account_number, row.payout_id, verdict.errorCode]);
  }
  await bookOutcomes(deps, tx, row.merchant_account_number, decided, {
    from: 'rail_in_flight',
    transferType: 'rail_settle',
    reference: row.transaction_reference_number,
    metadata: { rail: 'mojaloop', transferId: row.transfer_id },
  });
}

/**
 * S100; when the beneficiary's DFSP holds another name for the account than the payout gave, the
 * message says so and names it, so that the merchant sees it wherever the payout is shown (API,
 * webhooks, console) instead of its being silently ignored.
 */
export function successResponse(row: Pick<RailPayoutRow, 'name_matches' | 'party_name'>): { responseCode: string; responseMessage: string } {
  if (row.name_matches !== false || !row.party_name) return { ...SUCCESS };
  const message = `${SUCCESS.responseMessage}; warning: the beneficiary's institution holds the name "${row.party_name}"`;
  return { responseCode: SUCCESS.responseCode, responseMessage: message.length <= 200 ? message : `${message.slice(0, 198)}"` };
}

/** An outcome for a payout already final: the same one again changes nothing; a different one is refused. */
function repeatedOutcome(known: { phase: string; error_code: string | null }, answer: TransferAnswer, payouts: CallbackResult['payouts']): CallbackResult {
  const same =
    (known.phase === 'committed' && answer.kind === 'put' && answer.body.transferState === 'COMMITTED') ||
    (known.phase === 'aborted' && (answer.kind === 'error' || answer.body.transferState === 'ABORTED'));
  if (same) return { payouts, sends: [] };
  if (answer.kind === 'put' && (answer.body.transferState === 'RECEIVED' || answer.body.transferState === 'RESERVED')) return { payouts, sends: [] };
  return { refused: { errorCode: '3100', reason: `a different outcome for a transfer already ${known.phase}` }, payouts, sends: [] };
}

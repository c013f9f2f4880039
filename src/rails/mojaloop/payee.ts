// Collections over Mojaloop: our DFSP as the payee. A timed account number (or a merchant's
// payment account number) is a party at our DFSP (ACCOUNT_ID). The payer's DFSP looks it up
// (GET /parties), asks for terms (POST /quotes: the amount the request to pay expects, our fee
// nil, an ILP packet and its condition), then sends the transfer through the switch (POST
// /transfers): it is checked against its quote, the timed account is held for it, and our
// fulfilment goes back. The collection is credited when the switch says COMMITTED (its PATCH
// notification in FSPIOP 1.1; otherwise its answer to our GET /transfers/{id}, asked by
// payee-sweep.ts), exactly once: the row is locked and moves reserved → committed in the same
// transaction as the ledger, the webhook and the checkout's callback (collections/service.ts).
//
// Requests are answered 202 when they pass the gate (inbound.ts); what we think of them comes as
// the callback, sent after the answer (the payer's DFSP, TTK too, reads the answer first).
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import type { Deps } from '../../http/types.ts';
import { AppError } from '../../http/errors.ts';
import { checkRailAmount, creditRailPayment, findPayableAccount, holdForRailPayment, releaseRailHold } from '../../modules/collections/rail-payments.ts';
import { fromFspiopAmount, toFspiopAmount } from './amount.ts';
import type { SwitchAnswer, SwitchRequest } from './client.ts';
import { errorInformation } from './errors.ts';
import type { FspiopVersion } from './headers.ts';
import { isCorrelationId } from './ids.ts';
import { buildIlpPacket, decodeIlpPacket, fulfilmentFor, ilpAddress, IlpPacketError, type PartyIdInfo } from './ilp.ts';
import { partyName } from './names.ts';
import type { MojaloopContext, PartyBody } from './types.ts';

/** What a request or a notification did; answered by the route (202 or 200, or 400 when refused). */
export interface PayeeResult {
  /** Refused outright (answered 400 and logged): a notification that names nothing we fulfilled. */
  refused?: { errorCode: string; reason: string };
  collections: { merchantAccountNumber: number; inboundId: number }[];
  /** Callbacks to send once the answer is out. */
  sends: SwitchRequest[];
  /** Run with the switch's answers to `sends` (a fulfilment taken is recorded). */
  afterSend?: (answers: SwitchAnswer[]) => Promise<void>;
}

export interface CollectionRow {
  merchant_account_number: number;
  inbound_id: number;
  phase: 'quoted' | 'reserved' | 'committed' | 'aborted';
  quote_id: string;
  transaction_id: string;
  transfer_id: string | null;
  payer_fsp: string;
  party_id_type: string;
  party_identifier: string;
  request_id: number | null;
  amount_minor: number;
  currency_code: string;
  payer_identifier: string | null;
  payer_name: string | null;
  ilp_packet: string;
  condition: string;
  quote_expires_at: Date;
  transfer_expires_at: Date | null;
  transfer_version: FspiopVersion | null;
  fulfilment_sent_at: Date | null;
  asked_at: Date | null;
  collection_id: number | null;
  error_code: string | null;
}

export interface QuoteRequest {
  quoteId: string;
  transactionId: string;
  payee: { partyIdInfo: PartyIdInfo };
  payer: PartyBody['party'];
  amountType: 'SEND' | 'RECEIVE';
  amount: { amount: string; currency: string };
  transactionType: { scenario: string; initiator: string; initiatorType: string; [key: string]: unknown };
  note?: string;
}

export interface TransferRequest {
  transferId: string;
  payeeFsp: string;
  payerFsp: string;
  amount: { amount: string; currency: string };
  ilpPacket: string;
  condition: string;
  expiration: string;
}

export interface TransferState {
  transferState: string;
  fulfilment?: string;
  completedTimestamp?: string;
}

/** The only party type that can be one of ours: a timed account or a merchant's payment account. */
const ACCOUNT_ID = 'ACCOUNT_ID';

const link = (row: Pick<CollectionRow, 'merchant_account_number' | 'inbound_id'>) => ({ merchantAccountNumber: row.merchant_account_number, inboundId: row.inbound_id });

function callback(path: string, destination: string, version: FspiopVersion, body: object, row?: CollectionRow): SwitchRequest {
  const resource = path.split('/')[1] as SwitchRequest['resource'];
  return { method: 'PUT', path, resource, destination, version, body, ...(row ? { collection: link(row) } : {}) };
}

function errorCallback(path: string, destination: string, version: FspiopVersion, code: string, description: string, row?: CollectionRow): PayeeResult {
  return { collections: row ? [link(row)] : [], sends: [callback(`${path}/error`, destination, version, errorInformation(code, description.slice(0, 128)), row)] };
}

/** The merchant's name as FSPIOP 1.1's Name pattern allows it (letters, digits, " .,'-"). */
export function payeeName(accountName: string): string {
  const cleaned = accountName.replace(/[^\p{L}\p{gc=Mark}\p{digit}_ .,'-]+/gu, ' ').replace(/\s+/g, ' ').trim().slice(0, 128).trim();
  return cleaned || 'Merchant';
}

// ---- GET /parties/{Type}/{ID}[/{SubId}] ----

/** A payable account answers with the merchant's name; anything else (expired, paid, unknown, another type) is 3204. */
export async function onPartyLookup(deps: Deps, ctx: MojaloopContext, p: { type: string; id: string; subId?: string }, source: string, version: FspiopVersion): Promise<PayeeResult> {
  const path = `/parties/${[p.type, p.id, ...(p.subId ? [p.subId] : [])].map(encodeURIComponent).join('/')}`;
  const account = p.type === ACCOUNT_ID && !p.subId ? await findPayableAccount(deps.db, p.id) : undefined;
  if (!account) return errorCallback(path, source, version, '3204', 'Party not found');
  const party = { partyIdInfo: { partyIdType: p.type, partyIdentifier: p.id, fspId: ctx.config.fspId }, name: payeeName(account.merchant.account_name) };
  return { collections: [], sends: [callback(path, source, version, { party })] };
}

// ---- POST /quotes ----

/** Our terms: the amount the account expects (a timed account takes exactly its own), no fee, an ILP packet and its condition. */
export async function onQuoteRequest(deps: Deps, ctx: MojaloopContext, source: string, body: QuoteRequest, version: FspiopVersion): Promise<PayeeResult> {
  const path = `/quotes/${body.quoteId}`;
  const payee = body.payee.partyIdInfo;
  if (payee.partyIdType !== ACCOUNT_ID || (payee.fspId !== undefined && payee.fspId !== ctx.config.fspId)) return errorCallback(path, source, version, '3204', 'Party not found');
  const existing = await findRows(deps.db, 'quote_id', body.quoteId);
  const same = existing.find((r) => r.payer_fsp === source && r.party_identifier === payee.partyIdentifier);
  if (same) {
    // The same quote asked again (the payer lost our callback): the same terms again; other terms under its id are 3106.
    if (fromFspiopAmount(body.amount.amount, same.currency_code) !== same.amount_minor || body.amount.currency !== same.currency_code) return errorCallback(path, source, version, '3106', 'Modified request: this quoteId was quoted for other terms', same);
    return { collections: [link(same)], sends: [callback(path, source, version, quoteTerms(same), same)] };
  }
  const account = await findPayableAccount(deps.db, payee.partyIdentifier);
  if (!account) return errorCallback(path, source, version, '3204', 'Party not found');
  const currency = account.merchant.currency_code;
  if (body.amount.currency !== currency) return errorCallback(path, source, version, '5106', `Payee unsupported currency: this account is paid in ${currency}`);
  const amountMinor = fromFspiopAmount(body.amount.amount, currency);
  if (amountMinor === undefined || amountMinor <= 0) return errorCallback(path, source, version, '3100', `Generic validation error - amount ${body.amount.amount.slice(0, 24)} is not a positive ${currency} amount`);
  if (account.kind === 'timed' && amountMinor !== account.request.amount_minor) {
    return errorCallback(path, source, version, '5101', `Payee rejected quote: the request to pay expects ${toFspiopAmount(account.request.amount_minor, currency)} ${currency}`);
  }
  try {
    await checkRailAmount(deps.db, account, amountMinor);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return errorCallback(path, source, version, ...rejection(err));
  }
  const validSeconds = ctx.config.transferExpirySeconds;
  let expiresAt = new Date(Date.now() + validSeconds * 1000);
  if (account.kind === 'timed' && account.request.expires_at < expiresAt) expiresAt = account.request.expires_at;
  const transaction = {
    transactionId: body.transactionId,
    quoteId: body.quoteId,
    payee: { partyIdInfo: { ...payee, fspId: ctx.config.fspId } },
    payer: body.payer,
    amount: { amount: toFspiopAmount(amountMinor, currency), currency },
    transactionType: body.transactionType,
    ...(body.note ? { note: body.note } : {}),
  };
  const terms = buildIlpPacket({ transaction, destination: ilpAddress(transaction.payee.partyIdInfo), secret: ctx.config.ilpSecret });
  const row = await insertQuote(deps.db, {
    merchantAccountNumber: account.merchant.merchant_account_number,
    body,
    source,
    requestId: account.kind === 'timed' ? account.request.request_id : null,
    amountMinor,
    currency,
    ilpPacket: terms.ilpPacket,
    condition: terms.condition,
    expiresAt,
  });
  // A concurrent twin of this quote won the insert: answer as for a repeat.
  if (!row) return onQuoteRequest(deps, ctx, source, body, version);
  return { collections: [link(row)], sends: [callback(path, source, version, quoteTerms(row), row)] };
}

function quoteTerms(row: CollectionRow) {
  const amount = { amount: toFspiopAmount(row.amount_minor, row.currency_code), currency: row.currency_code };
  return {
    transferAmount: amount,
    payeeReceiveAmount: amount,
    payeeFspFee: { amount: '0', currency: row.currency_code },
    expiration: row.quote_expires_at.toISOString(),
    ilpPacket: row.ilp_packet,
    condition: row.condition,
  };
}

const COLUMNS = `merchant_account_number, inbound_id, phase, quote_id, transaction_id, transfer_id, payer_fsp, party_id_type, party_identifier,
  request_id, amount_minor::int as amount_minor, currency_code, payer_identifier, payer_name, ilp_packet, condition, quote_expires_at,
  transfer_expires_at, transfer_version, fulfilment_sent_at, asked_at, collection_id, error_code`;

async function insertQuote(
  q: Deps['db'],
  i: { merchantAccountNumber: number; body: QuoteRequest; source: string; requestId: number | null; amountMinor: number; currency: string; ilpPacket: string; condition: string; expiresAt: Date },
): Promise<CollectionRow | undefined> {
  const payer = i.body.payer;
  const { rows } = await q.query<CollectionRow>(
    `insert into rail_collections (merchant_account_number, rail, phase, quote_id, transaction_id, payer_fsp, party_id_type, party_identifier,
            request_id, amount_minor, currency_code, payer_id_type, payer_identifier, payer_name, ilp_packet, condition, quote_expires_at)
     values ($1, 'mojaloop', 'quoted', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     on conflict (merchant_account_number, quote_id) do nothing
     returning ${COLUMNS}`,
    [
      i.merchantAccountNumber,
      i.body.quoteId,
      i.body.transactionId,
      i.source,
      i.body.payee.partyIdInfo.partyIdType,
      i.body.payee.partyIdInfo.partyIdentifier,
      i.requestId,
      i.amountMinor,
      i.currency,
      payer.partyIdInfo.partyIdType,
      payer.partyIdInfo.partyIdentifier,
      partyName(payer),
      i.ilpPacket,
      i.condition,
      i.expiresAt,
    ],
  );
  return rows[0];
}

/** The rows with this id (the payer's: unique per merchant only), without a lock. */
async function findRows(q: Deps['db'] | pg.PoolClient, column: 'quote_id' | 'transfer_id', id: string): Promise<CollectionRow[]> {
  const { rows } = await q.query<CollectionRow>(`select ${COLUMNS} from rail_collections where rail = 'mojaloop' and ${column} = $1`, [id]);
  return rows;
}

/** One row, locked, found by its merchant (no lock spans merchants: shards on Citus). */
async function lockRow(tx: pg.PoolClient, merchantAccountNumber: number, inboundId: number): Promise<CollectionRow> {
  const { rows } = await tx.query<CollectionRow>(`select ${COLUMNS} from rail_collections where merchant_account_number = $1 and inbound_id = $2 for update`, [merchantAccountNumber, inboundId]);
  return rows[0];
}

// ---- POST /transfers ----

/**
 * The payer's transfer: it must carry our quote's packet, condition and amount, before both expire;
 * the account is then held for it and our fulfilment goes back (COMMITTED in 1.0, RESERVED in
 * 1.1). The same transfer again gets the same answer; a second transfer for one quote, 3106.
 */
export async function onTransferRequest(deps: Deps, ctx: MojaloopContext, source: string, body: TransferRequest, version: FspiopVersion): Promise<PayeeResult> {
  const path = `/transfers/${body.transferId}`;
  const refuse = (code: string, description: string, row?: CollectionRow) => errorCallback(path, source, version, code, description, row);
  if (body.payeeFsp !== ctx.config.fspId) return refuse('3100', `Generic validation error - payeeFsp ${body.payeeFsp.slice(0, 32)} is not this DFSP`);
  if (body.payerFsp !== source) return refuse('3100', 'Generic validation error - payerFsp is not the fspiop-source');
  let quoteId: string;
  try {
    quoteId = decodeIlpPacket(body.ilpPacket).transaction.quoteId;
    if (!isCorrelationId(quoteId)) throw new IlpPacketError('its Transaction\'s quoteId is not a UUID');
  } catch (err) {
    if (!(err instanceof IlpPacketError)) throw err;
    return refuse('3100', `Generic validation error - ilpPacket: ${err.message}`);
  }
  const candidate = (await findRows(deps.db, 'quote_id', quoteId)).find((r) => r.ilp_packet === body.ilpPacket);
  if (!candidate) return refuse('3205', 'Quote ID not found: the ilpPacket is not one we quoted');
  return withTransaction(deps.db, async (tx) => {
    const row = await lockRow(tx, candidate.merchant_account_number, candidate.inbound_id);
    if (row.transfer_id !== null) {
      if (row.transfer_id !== body.transferId) return refuse('3106', 'Modified request: this quote was used by another transfer', row);
      return repeatTransfer(deps, ctx, row, path, source, version);
    }
    const problem = transferProblem(row, body);
    if (problem) return refuse(problem.code, problem.description, row);
    try {
      await holdForRailPayment(tx, { accountNumber: row.party_identifier, connectorId: ctx.config.connectorIds[0], amountMinor: row.amount_minor, currencyCode: row.currency_code, transferId: body.transferId });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return refuse(...rejection(err), row);
    }
    await tx.query(
      `update rail_collections set phase = 'reserved', transfer_id = $3, transfer_expires_at = $4, transfer_version = $5, updated_at = now()
        where merchant_account_number = $1 and inbound_id = $2`,
      [row.merchant_account_number, row.inbound_id, body.transferId, new Date(body.expiration), version],
    );
    return fulfil(deps, ctx, { ...row, transfer_id: body.transferId, transfer_version: version }, source);
  });
}

/** What a transfer's terms get wrong against our quote, if anything. */
function transferProblem(row: CollectionRow, body: TransferRequest): { code: string; description: string } | undefined {
  if (row.payer_fsp !== body.payerFsp) return { code: '3100', description: 'Generic validation error - the quote was given to another payer DFSP' };
  if (body.condition !== row.condition) return { code: '3100', description: 'Generic validation error - the condition is not the quote\'s' };
  if (body.amount.currency !== row.currency_code || fromFspiopAmount(body.amount.amount, row.currency_code) !== row.amount_minor) {
    return { code: '3100', description: `Generic validation error - the amount is not the quote's ${toFspiopAmount(row.amount_minor, row.currency_code)} ${row.currency_code}` };
  }
  const expiresAt = Date.parse(body.expiration);
  if (!(expiresAt > Date.now())) return { code: '3303', description: 'Transfer expired' };
  if (row.quote_expires_at.getTime() <= Date.now()) return { code: '3302', description: 'Quote expired' };
  return undefined;
}

/** A payment rule's refusal as the payer's DFSP reads it. */
function rejection(err: AppError): [string, string] {
  switch (err.kind) {
    case 'amountOutOfRange':
    case 'limitExceeded':
      return ['5200', 'Payee limit error: the amount is outside the merchant\'s limits'];
    case 'currencyMismatch':
      return ['5106', 'Payee unsupported currency'];
    default:
      // Paid, held by another transfer, expired, unknown, or the merchant inactive since the quote.
      return ['5104', `Payee rejected transaction: the account can no longer be paid (${err.kind})`];
  }
}

/** Our fulfilment for a reserved transfer; recorded as sent once the switch takes it. */
export function fulfil(deps: Deps, ctx: MojaloopContext, row: CollectionRow, destination: string): PayeeResult {
  const state = row.transfer_version === '1.1' ? 'RESERVED' : 'COMMITTED';
  const body = { fulfilment: fulfilmentFor(row.ilp_packet, ctx.config.ilpSecret), completedTimestamp: new Date().toISOString(), transferState: state };
  return {
    collections: [link(row)],
    sends: [callback(`/transfers/${row.transfer_id}`, destination, row.transfer_version ?? '1.0', body, row)],
    afterSend: async ([answer]) => {
      if (!answer?.accepted) return;
      // The first time it is sent: a repeated transfer's fulfilment leaves it as it was.
      await deps.db.query('update rail_collections set fulfilment_sent_at = now() where merchant_account_number = $1 and inbound_id = $2 and fulfilment_sent_at is null', [row.merchant_account_number, row.inbound_id]);
    },
  };
}

function repeatTransfer(deps: Deps, ctx: MojaloopContext, row: CollectionRow, path: string, source: string, version: FspiopVersion): PayeeResult {
  if (row.phase === 'aborted') return errorCallback(path, source, version, row.error_code ?? '5104', 'Payee rejected transaction: the transfer was aborted', row);
  // Reserved or committed: the same fulfilment again, in the state first answered.
  return fulfil(deps, ctx, row, source);
}

// ---- the switch's word: PATCH /transfers/{ID} (1.1), PUT /transfers/{ID}[/error] (our GET's answer) ----

export type SwitchWord = { kind: 'state'; body: TransferState } | { kind: 'error'; errorCode: string };

/** Whether a transfer id is one of our collections' (the PUT routes serve payouts too). */
export async function isCollectionTransfer(deps: Deps, transferId: string): Promise<boolean> {
  return (await findRows(deps.db, 'transfer_id', transferId)).length > 0;
}

/**
 * The switch's word on a collection's transfer. Only the switch may give it, and only about a
 * transfer we accepted (reserved or final): anything else credits nothing and is refused.
 * COMMITTED credits once; ABORTED (or "no such transfer" once it has expired) releases the
 * account; RECEIVED or RESERVED, and errors about our question, wait.
 */
export async function onSwitchWord(deps: Deps, ctx: MojaloopContext, transferId: string, source: string, word: SwitchWord): Promise<PayeeResult> {
  const found = (await findRows(deps.db, 'transfer_id', transferId)).filter((r) => r.phase !== 'quoted');
  if (found.length === 0) return { refused: { errorCode: '3208', reason: `transfer ${transferId} is not one we fulfilled` }, collections: [], sends: [] };
  if (source !== ctx.switchFspId) {
    return { refused: { errorCode: '3100', reason: `only the switch (${ctx.switchFspId}) may say what became of a transfer, not ${source.slice(0, 32)}` }, collections: found.map(link), sends: [] };
  }
  return withTransaction(deps.db, async (tx) => {
    const out: PayeeResult = { collections: [], sends: [] };
    for (const f of found) {
      const row = await lockRow(tx, f.merchant_account_number, f.inbound_id);
      out.collections.push(link(row));
      const refusal = await applyWord(deps, ctx, tx, row, word);
      if (refusal) out.refused = refusal;
    }
    return out;
  });
}

async function applyWord(deps: Deps, ctx: MojaloopContext, tx: pg.PoolClient, row: CollectionRow, word: SwitchWord): Promise<PayeeResult['refused']> {
  const state = word.kind === 'state' ? word.body.transferState : undefined;
  const expired = row.transfer_expires_at !== null && row.transfer_expires_at.getTime() < Date.now();
  // An error we did not ask for is the switch aborting the transfer (our fulfilment too late, say);
  // in answer to our GET it is about the question, except "no such transfer" once it has expired.
  const aborts = state === 'ABORTED' || (word.kind === 'error' && (row.asked_at === null || (word.errorCode === '3208' && expired)));
  if (row.phase !== 'reserved') {
    const same = (row.phase === 'committed' && state === 'COMMITTED') || (row.phase === 'aborted' && (state === 'ABORTED' || word.kind === 'error'));
    if (same || state === 'RECEIVED' || state === 'RESERVED') return undefined;
    deps.log.error({ transferId: row.transfer_id, ours: row.phase, theirs: state ?? (word.kind === 'error' ? word.errorCode : undefined) }, 'mojaloop: the switch contradicts a collection already final; reconciliation will list it');
    return { errorCode: '3100', reason: `a different outcome for a transfer already ${row.phase}` };
  }
  if (state === 'COMMITTED') {
    await credit(ctx, tx, row);
    return undefined;
  }
  if (aborts) {
    await abort(tx, row, word.kind === 'error' ? word.errorCode : null);
    return undefined;
  }
  return undefined;
}

async function credit(ctx: MojaloopContext, tx: pg.PoolClient, row: CollectionRow): Promise<void> {
  const collection = await creditRailPayment(tx, {
    merchantAccountNumber: row.merchant_account_number,
    requestId: row.request_id ?? undefined,
    transferId: row.transfer_id!,
    connectorId: ctx.config.connectorIds[0],
    amountMinor: row.amount_minor,
    payer: {
      accountNumber: (row.payer_identifier ?? row.payer_fsp).slice(0, 20),
      name: (row.payer_name ?? row.payer_identifier ?? row.payer_fsp).slice(0, 120),
      // The rail's reference (bridgeReferenceNumber, 20 characters): the transfer id's first 18 hex digits.
      reference: `ML${row.transfer_id!.replaceAll('-', '').slice(0, 18).toUpperCase()}`,
    },
    createdBy: `mojaloop:${row.payer_fsp}`,
  });
  await tx.query(
    `update rail_collections set phase = 'committed', collection_id = $3, completed_at = now(), updated_at = now()
      where merchant_account_number = $1 and inbound_id = $2`,
    [row.merchant_account_number, row.inbound_id, collection.collection_id],
  );
}

async function abort(tx: pg.PoolClient, row: CollectionRow, errorCode: string | null): Promise<void> {
  if (row.request_id !== null) await releaseRailHold(tx, row.request_id, row.transfer_id!);
  await tx.query(
    `update rail_collections set phase = 'aborted', error_code = $3, completed_at = now(), updated_at = now()
      where merchant_account_number = $1 and inbound_id = $2`,
    [row.merchant_account_number, row.inbound_id, errorCode],
  );
}

export { COLUMNS as COLLECTION_COLUMNS };

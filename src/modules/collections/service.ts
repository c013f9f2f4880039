// Collections (product.md §10): request-to-pay with timed accounts (E12), paying a timed account
// (addFakeTransaction), direct customer payments (E11), the transaction views and reversals.
// Every payment is one transaction: the collection row, its balanced ledger transfer (customer →
// merchant collection balance less the fee → fees), the request's state and the event.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps, IdempotencyContext } from '../../http/types.ts';
import { KeyHeldError } from '../../http/idempotency.ts';
import { emitEvent } from '../../jobs/outbox.ts';
import { Coalescer } from '../../lib/coalescer.ts';
import { randomDigits, randomUpperAlnum } from '../../lib/ids.ts';
import { formatMajor, toMajor } from '../../lib/money.ts';
import { activeConnector, type ConnectorRow } from '../connectors/repository.ts';
import { feeFor } from '../fees/schedule.ts';
import { checkAmount, checkDaily, limitFor } from '../limits/enforce.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../ledger/ledger.ts';
import { lockMerchant, MERCHANT, paymentAccountOwner, type MerchantRow } from '../merchants/repository.ts';
import { aliasesOf } from '../webhooks/catalogue.ts';
import { paymentPayload, type PayRequestMeta } from '../webhooks/payloads.ts';
import { applyStats, utcDay, type StatChange } from '../analytics/stats.ts';
import * as repo from './repository.ts';
import { isViolation } from '../../db/errors.ts';
import { readDb } from '../../db/replicas.ts';

/** Attempts at a free timed account number before giving up (each is one insert, no scan). */
const TIMED_ACCOUNT_ATTEMPTS = 20;

export async function activeMerchant(tx: pg.PoolClient, merchantAccountNumber: number): Promise<MerchantRow> {
  const merchant = await lockMerchant(tx, merchantAccountNumber);
  if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
  if (merchant.status_code !== MERCHANT.active) throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber });
  return merchant;
}

export async function collectionConnector(q: pg.PoolClient, connectorId: number): Promise<ConnectorRow> {
  const connector = await activeConnector(q, connectorId);
  if (!connector.is_collection_allowed) throw new AppError('connectorNotAllowed', 'detail.connectorNotForCollections', { connectorId });
  return connector;
}

// ---------------------------------------------------------------------------------------------
// E12: request to pay

export interface InitiateInput {
  merchantAccountNumber: number;
  amountMinor: number;
  transactionDescription: string;
  referenceNumber: string;
  capturedBy: string;
  checkout?: repo.NewPaymentRequest['checkout'];
}

export interface TimedAccount {
  merchantAccountNumber: number;
  timedAccountNumber: string;
  expiryDate: string;
  expiryInMinutes: number;
}

/** The request's row as the insert returned it, through JSON: dates come back as text. */
function fromJson(row: NonNullable<repo.InsertOutcome['request']>): repo.PaymentRequestRow {
  const date = (v: unknown) => (v === null ? null : new Date(v as string));
  return { ...row, created_at: date(row.created_at)!, expires_at: date(row.expires_at)!, paid_at: date(row.paid_at), is_expired: false };
}

/**
 * The request an insert made, or null when its timed account number (or its reference) was
 * taken by another open request; throws when the merchant or the amount was refused.
 */
function requestFrom(outcome: repo.InsertOutcome, input: InitiateInput): repo.PaymentRequestRow | null {
  if (outcome.merchant_status === null) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
  if (outcome.merchant_status !== MERCHANT.active) throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber: input.merchantAccountNumber });
  if (outcome.request) return fromJson(outcome.request);
  if (outcome.min_minor !== null && (input.amountMinor < outcome.min_minor || input.amountMinor > outcome.max_minor!)) {
    checkAmount({ minimum_amount_minor: outcome.min_minor, maximum_amount_minor: outcome.max_minor!, daily_limit_minor: 0 }, input.amountMinor);
  }
  return null;
}

/**
 * E12s inserted together: every request that arrives while earlier inserts are in flight joins the
 * next one (lib/coalescer.ts). Under load, N requests then cost one round trip and one commit
 * instead of N; alone, a request waits for nothing. A keyed request's idempotency record is
 * written by the same statement (repository.ts insertPaymentRequests).
 */
export type BatchedRequest = Omit<InitiateInput, 'checkout'> & { idempotency?: repo.BatchedKey };
export type RequestBatcher = Coalescer<BatchedRequest, repo.BatchedOutcome | undefined>;

/** The key of a keyed request, as the batch's dedup sees it. */
const keyOf = (item: BatchedRequest) => (item.idempotency ? `${item.merchantAccountNumber}:${item.idempotency.key}` : undefined);

export function createRequestBatcher(deps: Pick<Deps, 'db' | 'config' | 'log'>, onBatch?: (rows: number) => void): RequestBatcher | undefined {
  const { initiateBatchRows, dbPoolSize, timedAccountMinutes, idempotencyRetentionHours } = deps.config;
  if (initiateBatchRows <= 1) return undefined;
  // A quarter of the pool: batches grow with load instead of taking every connection.
  const inFlight = Math.max(1, Math.floor(dbPoolSize / 4));
  return new Coalescer(
    async (items) => {
      // A key twice in one batch (a client retrying at once): only its first request goes in the
      // statement; the others are made alone, where they wait for its record and answer from it.
      const keys = new Set<string>();
      const batched = items.map((item) => {
        const key = keyOf(item);
        if (key === undefined) return true;
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      });
      // Numbers drawn distinct within the batch: each row's outcome is found by its number.
      const drawn = new Set<string>();
      const rows = items.filter((_item, i) => batched[i]).map((item) => {
        let timedAccountNumber = randomDigits(8, '1');
        while (drawn.has(timedAccountNumber)) timedAccountNumber = randomDigits(8, '1');
        drawn.add(timedAccountNumber);
        return { ...item, timedAccountNumber, expiryMinutes: timedAccountMinutes };
      });
      let outcomes: repo.BatchedOutcome[];
      try {
        outcomes = await repo.insertPaymentRequests(deps.db, rows, timedAccountMinutes, idempotencyRetentionHours);
      } catch (err) {
        // Nothing was inserted (one statement): every request of the batch is decided on its own.
        // A concurrent duplicate key ends here too (its record could not be written).
        deps.log.warn({ err, rows: rows.length }, 'batched E12 insert failed; its requests are inserted one by one');
        return items.map(() => undefined);
      }
      let next = 0;
      return items.map((_item, i) => (batched[i] ? outcomes[next++] : undefined));
    },
    initiateBatchRows,
    inFlight,
    onBatch,
  );
}

/**
 * Creates an open request with a fresh timed account number: one statement per attempt (merchant
 * check, limits and insert together), so it needs no transaction of its own. With a batcher (and
 * outside a transaction), the first attempt shares a statement with concurrent requests; a request
 * the batch could not place (number or reference taken, or the batch failed) continues alone.
 */
export async function createPaymentRequest(deps: Deps, q: Queryable, input: InitiateInput, batcher?: RequestBatcher): Promise<repo.PaymentRequestRow> {
  if (batcher && !input.checkout) {
    const outcome = await batcher.submit(input);
    const request = outcome && requestFrom(outcome, input);
    if (request) return request;
  }
  for (let attempt = 0; attempt < TIMED_ACCOUNT_ATTEMPTS; attempt++) {
    let outcome: repo.InsertOutcome;
    try {
      outcome = await repo.insertPaymentRequest(q, { ...input, timedAccountNumber: randomDigits(8, '1'), expiryMinutes: deps.config.timedAccountMinutes });
    } catch (err) {
      if (isViolation(err, '23505', 'payment_requests_open_reference')) {
        throw new AppError('conflict', 'detail.referenceOpen', { referenceNumber: input.referenceNumber });
      }
      throw err;
    }
    const request = requestFrom(outcome, input);
    if (request) return request;
    // Otherwise the number was taken by another open request: draw again.
  }
  // 10 million numbers: reaching this means millions of open requests at once.
  throw new AppError('unavailable', 'detail.unavailable');
}

/**
 * A keyed request in a shared statement: its answer, made and stored under the key by the
 * statement itself. Undefined: the batch could not place it (it is then made alone).
 */
async function initiateKeyedInBatch(input: InitiateInput, idempotency: IdempotencyContext, batcher: RequestBatcher): Promise<string | undefined> {
  const outcome = await batcher.submit({ ...input, idempotency: { key: idempotency.key, fingerprint: idempotency.fingerprint } });
  if (!outcome) return undefined;
  if (outcome.key_state === 'live') throw new KeyHeldError();
  if (outcome.key_state === 'stale') return undefined;
  if (!requestFrom(outcome, input)) return undefined;
  if (outcome.answer === null) throw new Error('a keyed E12 was inserted without its answer');
  idempotency.completed = true;
  return outcome.answer;
}

function timedAccount(deps: Deps, request: repo.PaymentRequestRow): TimedAccount {
  return {
    merchantAccountNumber: request.merchant_account_number,
    timedAccountNumber: request.timed_account_number,
    expiryDate: request.expires_at.toISOString(),
    expiryInMinutes: deps.config.timedAccountMinutes,
  };
}

/**
 * E12. Under load (and with a batcher), the request shares a statement with concurrent ones, its
 * idempotency record included. Alone, without a key, it is one statement and needs no explicit
 * transaction; with a key, the record joins the insert's transaction (written with its COMMIT). A
 * reference still held by a request that expired a moment ago (the expiry job has not run yet) is
 * released and the request retried once.
 */
export async function initiate(
  deps: Deps,
  input: InitiateInput,
  respond: (tx: pg.PoolClient | undefined, result: TimedAccount) => Promise<string>,
  idempotency: IdempotencyContext | undefined,
  batcher?: RequestBatcher,
): Promise<string> {
  if (idempotency && batcher && !input.checkout) {
    const answer = await initiateKeyedInBatch(input, idempotency, batcher);
    if (answer !== undefined) return answer;
  }
  const once = () =>
    idempotency
      ? withTransaction(deps.db, async (tx) => respond(tx, timedAccount(deps, await createPaymentRequest(deps, tx, input))))
      : createPaymentRequest(deps, deps.db, input, batcher).then((request) => respond(undefined, timedAccount(deps, request)));
  try {
    return await once();
  } catch (err) {
    if (err instanceof AppError && err.detailKey === 'detail.referenceOpen' && (await repo.expireReference(deps.db, input.merchantAccountNumber, input.referenceNumber)) > 0) return once();
    throw err;
  }
}

/**
 * E12 in the caller's transaction (the console's actions, whose form key and audit entry commit
 * with it): createPaymentRequest, and, as `initiate` does, a reference still held by a request that
 * expired a moment ago is released and the request made again. The first attempt runs in a
 * savepoint: its refused insert would otherwise end the whole transaction.
 */
export async function createPaymentRequestInTransaction(deps: Deps, tx: pg.PoolClient, input: InitiateInput): Promise<repo.PaymentRequestRow> {
  await tx.query('savepoint payment_request');
  try {
    const request = await createPaymentRequest(deps, tx, input);
    await tx.query('release savepoint payment_request');
    return request;
  } catch (err) {
    if (!(err instanceof AppError && err.detailKey === 'detail.referenceOpen')) throw err;
    await tx.query('rollback to savepoint payment_request');
    if ((await repo.expireReference(tx, input.merchantAccountNumber, input.referenceNumber)) === 0) throw err;
    return createPaymentRequest(deps, tx, input);
  }
}

/** Who paid over a rail (rail-payments.ts): the payer's account and name, and the rail's reference. */
export interface RailPayer {
  /** The payer's account (a wallet number, an account number) as the rail names it. */
  accountNumber: string;
  name: string;
  /** The rail's reference for the payment (the collection's bridgeReferenceNumber). */
  reference: string;
}

// ---------------------------------------------------------------------------------------------
// Payments (both kinds)

/** The simulated customer: a wallet number for wallets, an account number for banks. */
function simulatedCustomer(connector: ConnectorRow): { accountNumber: string; name: string } {
  const names = ['Chisomo Banda', 'Tiyamike Phiri', 'Kondwani Mwale', 'Thokozani Chirwa', 'Madalitso Nyirenda', 'Chikondi Kumwenda', 'Yamikani Gondwe', 'Limbani Zulu'];
  const name = names[Number(randomDigits(2, '123456789')) % names.length];
  return { accountNumber: connector.channel_code === 'M' ? `265${randomDigits(9, '89')}` : randomDigits(12), name };
}

interface PaymentInput {
  merchant: MerchantRow;
  connector: ConnectorRow;
  transactionCode: 'BAM' | 'RTP';
  amountMinor: number;
  description: string;
  createdBy: string;
  request?: repo.PaymentRequestRow;
  /** Who paid and the rail's reference, for a payment from outside; none: a simulated customer. */
  payer?: RailPayer;
  /**
   * 'judged-when-held': a rail's committed payment, whose limits were judged when the rail's
   * transfer was accepted (holdForRailPayment): the money has moved, nothing here may refuse it.
   */
  limits: 'check' | 'judged-when-held';
}

export async function recordPayment(tx: pg.PoolClient, p: PaymentInput): Promise<repo.CollectionRow> {
  const merchantNo = p.merchant.merchant_account_number;
  const currency = p.merchant.currency_code;
  // Locked: concurrent payments of this merchant and type take turns between reading the day's
  // total and adding to it, so together they cannot cross the daily limit. The total is a running
  // one (migration 0013), added to here and rolled back with a refused payment.
  // A rail's committed payment judges nothing, so it takes no lock on the limits: it only adds to
  // the day's total (an atomic upsert), and one merchant's credits need not queue behind each other.
  const limit = p.limits === 'check' ? await limitFor(tx, merchantNo, p.transactionCode, currency, { lock: 'for update' }) : undefined;
  const before = await repo.addToCollectedToday(tx, merchantNo, p.transactionCode, currency, p.amountMinor);
  if (p.limits === 'check') {
    checkAmount(limit, p.amountMinor);
    checkDaily(limit, p.transactionCode, before, p.amountMinor);
  }
  const fee = await feeFor(tx, p.transactionCode, currency, p.amountMinor);
  const customer = p.payer ?? { ...simulatedCustomer(p.connector), reference: undefined };
  const collection = await repo.insertCollection(tx, {
    merchant_account_number: merchantNo,
    transaction_reference_number: randomUpperAlnum(12),
    transaction_code: p.transactionCode,
    request_id: p.request?.request_id ?? null,
    request_reference_number: p.request?.reference_number ?? null,
    connector_id: p.connector.connector_id,
    source_account_number: customer.accountNumber,
    source_account_name: customer.name,
    source_reference_number: p.request?.source_reference_number ?? `SRC${randomDigits(9)}`,
    beneficiary_account_number: p.request?.timed_account_number ?? p.merchant.payment_account_number,
    amount_minor: p.amountMinor,
    fee_minor: fee,
    currency_code: currency,
    transaction_description: p.description,
    bridge_reference_number: customer.reference ?? `BR${randomDigits(12)}`,
    created_by: p.createdBy,
  });
  const customers = await systemAccountId(tx, merchantNo, 'customer_payments', currency);
  const collectionAccount = await merchantAccountId(tx, merchantNo, 'collection', currency);
  const fees = await systemAccountId(tx, merchantNo, 'fees', currency);
  await postTransfer(tx, {
    merchantAccountNumber: merchantNo,
    type: p.transactionCode === 'RTP' ? 'payrequest' : 'payment',
    reference: collection.transaction_reference_number,
    entries: [
      { accountId: customers, amountMinor: -p.amountMinor },
      { accountId: collectionAccount, amountMinor: p.amountMinor - fee },
      ...(fee > 0 ? [{ accountId: fees, amountMinor: fee }] : []),
    ],
  });
  if (p.request) await repo.markRequestPaid(tx, p.request.request_id);
  await applyStats(tx, [collectionStat(collection, 'S')]);
  // A hosted checkout's callbackApiUrl is told too, however the timed account was paid.
  const callback = p.request?.callback_api_url && p.request.callback_signing_secret && p.request.callback_webhook_signature
    ? [{ callbackUrl: p.request.callback_api_url, signingSecret: p.request.callback_signing_secret, webhookSignature: p.request.callback_webhook_signature }]
    : [];
  await emitEvent(tx, merchantNo, p.request ? 'payrequest.success' : 'payment.success', eventPayload(collection), { targets: callback });
  return collection;
}

function collectionStat(c: Pick<repo.CollectionRow, 'merchant_account_number' | 'connector_id' | 'currency_code' | 'transaction_date' | 'amount_minor'>, outcome: 'S' | 'R'): StatChange {
  return {
    merchantAccountNumber: c.merchant_account_number,
    summaryType: 'C',
    connectorId: c.connector_id,
    currencyCode: c.currency_code,
    day: utcDay(c.transaction_date),
    outcome,
    amountMinor: c.amount_minor,
  };
}

export function eventPayload(c: repo.CollectionRow) {
  const reversed = c.status_code === repo.COLLECTION.reversed;
  const code = c.transaction_code === 'RTP' ? (reversed ? 'payrequest.reversed' : 'payrequest.success') : reversed ? 'payment.reversed' : 'payment.success';
  return paymentPayload(
    code,
    {
      merchantAccountNumber: c.merchant_account_number,
      connectorId: c.connector_id,
      connectorName: c.connector_name,
      // The institution the customer paid from: the connector's (an alias id carries its institution's name).
      sourceInstitution: c.connector_name,
      sourceAccountNumber: c.source_account_number,
      sourceAccountName: c.source_account_name,
      sourceReferenceNumber: c.source_reference_number,
      beneficiaryAccountNumber: c.beneficiary_account_number,
      transactionReferenceNumber: c.transaction_reference_number,
      transactionDescription: c.transaction_description,
      transactionAmount: toMajor(c.amount_minor),
      transactionFee: toMajor(c.fee_minor),
      currencyCode: c.currency_code,
      transactionDate: c.transaction_date.toISOString(),
      transactionCode: c.transaction_code,
    },
    payRequestMeta(c),
  );
}

/**
 * A payment of a timed account names the request it paid. For a hosted checkout that is the shop's
 * sourceReferenceNumber exactly as sent ("OT-PY-123", separators and all, for a second checkout
 * of the same order too): the E12 reference behind it had to be made alphanumeric and unique.
 */
export function payRequestMeta(c: Pick<repo.CollectionRow, 'timed_account_number' | 'reference_number' | 'payment_transaction_id' | 'source_reference_number'>): PayRequestMeta | undefined {
  if (!c.timed_account_number || !c.reference_number) return undefined;
  if (!c.payment_transaction_id) return { timedAccountNumber: c.timed_account_number, referenceNumber: c.reference_number };
  return { timedAccountNumber: c.timed_account_number, referenceNumber: c.source_reference_number, ReferenceNumber: c.source_reference_number, paymentTransactionId: c.payment_transaction_id };
}

/** The nested shape of E11, also used by getTransaction(s). */
export function collectionView(lang: Lang, c: repo.CollectionRow) {
  const reversed = c.status_code === repo.COLLECTION.reversed;
  return {
    beneficiary: {
      accountNumber: c.beneficiary_account_number,
      accountName: c.beneficiary_account_name,
      amountReceived: toMajor(c.amount_minor - c.fee_minor),
      currencyCode: c.currency_code,
    },
    source: {
      accountNumber: c.source_account_number,
      customerName: c.source_account_name,
      amountSent: toMajor(c.amount_minor),
      currencyCode: c.currency_code,
      sourceReferenceNumber: c.source_reference_number,
      connectorId: c.connector_id,
      connectorName: c.connector_name,
    },
    transaction: {
      transactionReferenceNumber: c.transaction_reference_number,
      transactionFee: toMajor(c.fee_minor),
      transactionDescription: c.transaction_description,
      transactionDate: c.transaction_date.toISOString(),
      valueDate: c.value_date.toISOString(),
      transactionCode: c.transaction_code,
      transactionTypeName: c.transaction_type_name,
      transactionStatusCode: c.status_code,
      transactionStatusName: t(lang, `status.${c.status_code}` as MessageKey),
      bridgeReferenceNumber: c.bridge_reference_number,
      responseCode: reversed ? 'R100' : 'S100',
      responseMessage: t(lang, reversed ? 'ok.transactionReversed' : 'ok.transactionSuccessful'),
    },
    ...(c.timed_account_number ? { metaData: payRequestMeta(c) } : {}),
  };
}

export interface PayTimedAccountInput {
  merchantAccountNumber: number;
  amountMinor: number;
  connectorId: number;
  timedAccountNumber: string;
  currencyCode: string;
  capturedBy: string;
}

/**
 * Pays a timed account. The request row is locked first, so concurrent payments of one timed
 * account queue on it and exactly one finds it open.
 */
export async function payTimedAccount(tx: pg.PoolClient, input: PayTimedAccountInput): Promise<repo.CollectionRow> {
  const request = await repo.lockRequestByTimedAccount(tx, input.timedAccountNumber);
  // Another merchant's timed account is indistinguishable from a missing one.
  if (!request || request.merchant_account_number !== input.merchantAccountNumber) {
    throw new AppError('notFound', 'detail.timedAccountNotFound', { timedAccountNumber: input.timedAccountNumber });
  }
  judgeTimedAccount(request, input);
  const merchant = await activeMerchant(tx, request.merchant_account_number);
  const connector = await collectionConnector(tx, input.connectorId);
  return recordPayment(tx, { merchant, connector, transactionCode: 'RTP', amountMinor: input.amountMinor, description: request.transaction_description, createdBy: input.capturedBy, request, limits: 'check' });
}

/** Whether a payment of this amount and currency may pay this (locked) request now: throws why not. */
export function judgeTimedAccount(request: repo.PaymentRequestRow, input: { timedAccountNumber: string; amountMinor: number; currencyCode: string }): void {
  if (request.status_code === repo.PAYMENT_REQUEST.paid) throw new AppError('timedAccountPaid', 'detail.timedAccountPaid', { timedAccountNumber: input.timedAccountNumber });
  // A rail's transfer may be committed by now: until the rail says, no other payment may take it.
  if (request.held_by_transfer) throw new AppError('timedAccountPaid', 'detail.timedAccountBeingPaid', { timedAccountNumber: input.timedAccountNumber });
  if (request.status_code === repo.PAYMENT_REQUEST.expired || request.is_expired) {
    throw new AppError('timedAccountExpired', 'detail.timedAccountExpired', { timedAccountNumber: input.timedAccountNumber, expiryDate: request.expires_at.toISOString() });
  }
  if (input.currencyCode !== request.currency_code) throw new AppError('currencyMismatch', 'detail.currencyMismatch', { currencyCode: input.currencyCode, requested: request.currency_code });
  if (input.amountMinor !== request.amount_minor) {
    throw new AppError('amountMismatch', 'detail.amountMismatch', { amount: formatMajor(input.amountMinor), requested: formatMajor(request.amount_minor) });
  }
}

export interface CustomPaymentInput {
  /** The merchant the caller's token names: the payment account must be theirs. */
  merchantAccountNumber: number;
  beneficiaryAccountNumber: string;
  connectorId: number;
  amountMinor: number;
  createdBy: string;
}

/** E11: a customer pays the merchant's payment account directly. */
export async function payPaymentAccount(tx: pg.PoolClient, input: CustomPaymentInput): Promise<repo.CollectionRow> {
  // The number's claim names its merchant (payment_account_claims, migration 0031).
  const owner = await paymentAccountOwner(tx, input.beneficiaryAccountNumber);
  if (owner === undefined || owner !== input.merchantAccountNumber) {
    throw new AppError('notFound', 'detail.paymentAccountNotFound', { accountNumber: input.beneficiaryAccountNumber });
  }
  const merchant = await activeMerchant(tx, owner);
  const connector = await collectionConnector(tx, input.connectorId);
  return recordPayment(tx, { merchant, connector, transactionCode: 'BAM', amountMinor: input.amountMinor, description: 'Customer payment', createdBy: input.createdBy, limits: 'check' });
}

// ---------------------------------------------------------------------------------------------
// Reversal (sandbox helper)

export async function reverse(tx: pg.PoolClient, input: { merchantAccountNumber: number; transactionReferenceNumber: string; reason: string }): Promise<repo.CollectionRow> {
  const found = await repo.findCollection(tx, input.merchantAccountNumber, input.transactionReferenceNumber, { lock: 'for update' });
  if (!found) throw new AppError('notFound', 'detail.collectionNotFound', { transactionReferenceNumber: input.transactionReferenceNumber });
  if (found.status_code === repo.COLLECTION.reversed) throw new AppError('alreadyReversed', 'detail.alreadyReversed', { transactionReferenceNumber: found.transaction_reference_number });
  const currency = found.currency_code;
  const merchantNo = found.merchant_account_number;
  // Before the ledger, as a payment takes them: the day's total, then the accounts (no deadlock).
  await repo.removeFromCollected(tx, found);
  // The mirror image of the payment: the merchant gives back what it received, the fee is returned.
  await postTransfer(tx, {
    merchantAccountNumber: merchantNo,
    type: 'reversal',
    reference: found.transaction_reference_number,
    metadata: { reason: input.reason },
    entries: [
      { accountId: await merchantAccountId(tx, merchantNo, 'collection', currency), amountMinor: -(found.amount_minor - found.fee_minor) },
      ...(found.fee_minor > 0 ? [{ accountId: await systemAccountId(tx, merchantNo, 'fees', currency), amountMinor: -found.fee_minor }] : []),
      { accountId: await systemAccountId(tx, merchantNo, 'customer_payments', currency), amountMinor: found.amount_minor },
    ],
  });
  await repo.markReversed(tx, found.collection_id, input.reason);
  await applyStats(tx, [collectionStat(found, 'R')]);
  const reversed = (await repo.findCollection(tx, merchantNo, found.transaction_reference_number))!;
  const reversal = reversed.transaction_code === 'RTP' ? 'payrequest.reversed' : 'payment.reversed';
  // Subscriptions to the older spellings the gateway documents (payment.reverse) get it too.
  await emitEvent(tx, merchantNo, reversal, eventPayload(reversed), { aliases: aliasesOf(reversal) });
  return reversed;
}

export async function getTransaction(deps: Deps, lang: Lang, merchantAccountNumber: number, reference: string) {
  const found = await repo.findCollection(deps.db, merchantAccountNumber, reference);
  if (!found) throw new AppError('notFound', 'detail.collectionNotFound', { transactionReferenceNumber: reference });
  return collectionView(lang, found);
}

export async function getTransactions(deps: Deps, lang: Lang, merchantAccountNumber: number, search: repo.CollectionSearch) {
  // A list: from a read replica when there is one (db/replicas.ts).
  return (await repo.searchCollections(readDb(deps, merchantAccountNumber), merchantAccountNumber, search)).map((c) => collectionView(lang, c));
}

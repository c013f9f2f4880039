// SQL for payment requests (timed accounts) and collections.
import type pg from 'pg';
import { escapeLike } from '../../db/like.ts';
import type { FindOptions, Queryable } from '../../db/pool.ts';
import type { MerchantStatus } from '../merchants/repository.ts';

/** A payment request's (timed account's) status (migrations/0003): open, paid, expired. */
export type PaymentRequestStatus = 'O' | 'P' | 'E';

/** The payment request statuses by name: code compares a request's status_code with these, never with the letter. */
export const PAYMENT_REQUEST = { open: 'O', paid: 'P', expired: 'E' } as const satisfies Record<string, PaymentRequestStatus>;

/** A collection's status (migrations/0003): successful, reversed. */
export type CollectionStatus = 'S' | 'R';

/** The collection statuses by name: code compares a collection's status_code with these, never with the letter. */
export const COLLECTION = { successful: 'S', reversed: 'R' } as const satisfies Record<string, CollectionStatus>;

export interface PaymentRequestRow {
  request_id: number;
  merchant_account_number: number;
  timed_account_number: string;
  amount_minor: number;
  currency_code: string;
  transaction_description: string;
  reference_number: string;
  captured_by: string;
  status_code: PaymentRequestStatus;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  source_reference_number: string | null;
  success_redirect_url: string | null;
  failure_redirect_url: string | null;
  callback_api_url: string | null;
  payment_transaction_id: string | null;
  callback_signing_secret: string | null;
  callback_webhook_signature: string | null;
  /** The rail transfer paying it, while the rail has not said whether it committed. */
  held_by_transfer: string | null;
  /** now() >= expires_at, by the database clock. */
  is_expired: boolean;
}

export interface NewPaymentRequest {
  merchantAccountNumber: number;
  timedAccountNumber: string;
  amountMinor: number;
  transactionDescription: string;
  referenceNumber: string;
  capturedBy: string;
  expiryMinutes: number;
  checkout?: CheckoutFields;
}

/** A hosted checkout's parts of a payment request (product.md §10). */
export interface CheckoutFields {
  paymentTransactionId: string;
  sourceReferenceNumber: string;
  successRedirectUrl: string;
  failureRedirectUrl: string;
  /** With the secrets that sign the payment event sent to it. */
  callback: { url: string; signingSecret: string; webhookSignature: string } | null;
}

export interface InsertOutcome {
  /** null: no such merchant. */
  merchant_status: MerchantStatus | null;
  min_minor: number | null;
  max_minor: number | null;
  /** The new request; null when the merchant or the amount was refused, or the number was taken. */
  request: Omit<PaymentRequestRow, 'is_expired'> | null;
}

/**
 * One statement, so it is atomic even outside a transaction, and one round trip: checks the
 * merchant and its RTP limits, claims the timed account number and inserts an open request with
 * it, unless another open request holds it. The claim arbitrates (timed_account_claims' primary
 * key, migration 0032: the number's row is taken over only when its holder is no longer open; a
 * concurrent claim of the same number waits for the first and then finds it open: no scan, no
 * race). The request's id is drawn first, so that the claim can name it; a checkout's ptid is
 * claimed by the same statement. The caller reads why nothing was inserted from the merchant's
 * fields. No explicit row lock: the foreign key already key-share-locks the merchant row, and an
 * extra FOR SHARE made concurrent requests of one merchant write MultiXacts (measured: 1.45k →
 * 1.99k req/s without it).
 *
 * On Citus the claims are in co-location groups of their own (docs/scaling.md, group C): this
 * statement then writes three shard groups, which Citus runs only as separate statements in one
 * transaction (claim, then request): two round trips there.
 */
export async function insertPaymentRequest(q: Queryable, r: NewPaymentRequest): Promise<InsertOutcome> {
  const { rows } = await q.query<InsertOutcome>({
    name: 'insert_payment_request',
    text: `with m as (
             select m.status_code, m.currency_code, l.minimum_amount_minor as min_minor, l.maximum_amount_minor as max_minor
               from merchants m
               left join merchant_limits l on l.merchant_account_number = m.merchant_account_number
                                          and l.transaction_code = 'RTP' and l.currency_code = m.currency_code
              where m.merchant_account_number = $1
           ), drawn as (
             select nextval('payment_requests_request_id_seq') as request_id, m.currency_code
               from m
              where m.status_code = 'A' and (m.min_minor is null or $3 between m.min_minor and m.max_minor)
           ), claimed as (
             insert into timed_account_claims as c (timed_account_number, merchant_account_number, request_id, is_open)
             select $2, $1, d.request_id, true from drawn d
             on conflict (timed_account_number) do update
                set merchant_account_number = excluded.merchant_account_number, request_id = excluded.request_id, is_open = true
              where not c.is_open
             returning c.request_id
           ), inserted as (
             insert into payment_requests (request_id, merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description,
                                           reference_number, captured_by, expires_at, source_reference_number, success_redirect_url,
                                           failure_redirect_url, callback_api_url, payment_transaction_id, callback_signing_secret,
                                           callback_webhook_signature)
             overriding system value
             select d.request_id, $1, $2, $3, d.currency_code, $4, $5, $6, now() + make_interval(mins => $7), $8, $9, $10, $11, $12, $13, $14
               from drawn d join claimed c on c.request_id = d.request_id
             returning *
           ), ptid_claimed as (
             insert into ptid_claims (payment_transaction_id, merchant_account_number, request_id)
             select payment_transaction_id, merchant_account_number, request_id from inserted where payment_transaction_id is not null
           )
           select m.status_code as merchant_status, m.min_minor, m.max_minor, (select row_to_json(i) from inserted i) as request
             from (select 1) one left join m on true`,
    values: [
      r.merchantAccountNumber,
      r.timedAccountNumber,
      r.amountMinor,
      r.transactionDescription,
      r.referenceNumber,
      r.capturedBy,
      r.expiryMinutes,
      r.checkout?.sourceReferenceNumber ?? null,
      r.checkout?.successRedirectUrl ?? null,
      r.checkout?.failureRedirectUrl ?? null,
      r.checkout?.callback?.url ?? null,
      r.checkout?.paymentTransactionId ?? null,
      r.checkout?.callback?.signingSecret ?? null,
      r.checkout?.callback?.webhookSignature ?? null,
    ],
  });
  return rows[0];
}

/**
 * insertPaymentRequest for many plain requests (no checkout) in one statement: the same merchant
 * and limit checks per row, one outcome per row in input order. Rows that another open request
 * blocks (its timed account number, or its reference as the statement sees it) are skipped, not
 * failed, and come back with `request: null` and the merchant's fields, so the caller retries just
 * those one by one. The rows' timed account numbers must differ from one another: a row's outcome
 * is found by its number.
 */
/** A batched request's idempotency key, if it has one: its record is written by the same statement. */
export interface BatchedKey {
  key: string;
  fingerprint: string;
}

export interface BatchedOutcome extends InsertOutcome {
  /**
   * The answer as sent and stored for a keyed request, made by the statement itself (so its record
   * could be written in the same statement); null for a request without a key.
   */
  answer: string | null;
  /** A record already holds the request's key: 'live' (answer from it) or 'stale' (expired, or a lapsed claim). */
  key_state: 'live' | 'stale' | null;
}

/**
 * E12's answer, as the route's response schema serialises it (collections/schemas.ts
 * TimedAccount; test/http/idempotency-at-commit.test.ts holds them equal): expiryDate in milliseconds
 * and UTC, as Date#toISOString writes it.
 */
const TIMED_ACCOUNT_ANSWER = `format('{"merchantAccountNumber":%s,"timedAccountNumber":"%s","expiryDate":"%s","expiryInMinutes":%s}',
  x.merchant_account_number, x.timed_account_number, to_char(x.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), $7::integer)`;

/**
 * Many E12s in one statement (collections/service.ts createRequestBatcher). A keyed request's
 * record is written, completed with its answer, by the same statement. A key whose record the
 * statement can see is not inserted at all: its request is answered from the record (or, for a
 * stale record, made alone, where store_idempotent_answer takes the record over). A key another
 * request holds unseen (a concurrent duplicate) fails the whole statement on the primary key, and
 * the batch's requests are then made one by one.
 */
export async function insertPaymentRequests(q: Queryable, rows: Array<Omit<NewPaymentRequest, 'checkout'> & { idempotency?: BatchedKey }>, expiryMinutes: number, retentionHours: number): Promise<BatchedOutcome[]> {
  const { rows: outcomes } = await q.query<BatchedOutcome>({
    name: 'insert_payment_requests',
    text: `with input as (
             select t.*, row_number() over (partition by t.merchant_account_number, t.reference_number order by t.ord) as reference_rank
               from unnest($1::integer[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $8::text[], $9::text[]) with ordinality
                    as t(merchant_account_number, timed_account_number, amount_minor, transaction_description, reference_number, captured_by,
                         idempotency_key, request_fingerprint, ord)
           ), checked as (
             -- Joins only, each on merchant_account_number (no correlated subquery: Citus refuses one
             -- beside a CTE in FROM, "correlated subqueries are not supported when the FROM clause
             -- contains a CTE or subquery"). The open request of a reference is at most one row
             -- (payment_requests_open_reference, migration 0003), so the join adds no rows.
             select i.*, m.status_code as merchant_status, m.currency_code, l.minimum_amount_minor as min_minor, l.maximum_amount_minor as max_minor,
                    case when k.idempotency_key is null then null
                         when k.expires_at > now() and (k.state = 'completed' or k.locked_until > now() or k.request_fingerprint <> i.request_fingerprint) then 'live'
                         else 'stale' end as key_state,
                    -- An open request of the merchant holds the reference, or an earlier row of this batch does.
                    r.request_id is not null or i.reference_rank > 1 as reference_taken
               from input i
               left join merchants m on m.merchant_account_number = i.merchant_account_number
               left join merchant_limits l on l.merchant_account_number = m.merchant_account_number
                                          and l.transaction_code = 'RTP' and l.currency_code = m.currency_code
               left join idempotency_keys k on k.merchant_account_number = i.merchant_account_number and k.idempotency_key = i.idempotency_key
               left join payment_requests r on r.merchant_account_number = i.merchant_account_number and r.reference_number = i.reference_number
                                           and r.status_code = 'O'
           ), drawn as (
             select timed_account_number, merchant_account_number, nextval('payment_requests_request_id_seq') as request_id
               from checked
              where merchant_status = 'A' and (min_minor is null or amount_minor between min_minor and max_minor) and key_state is null
                and not reference_taken
           ), claimed as (
             -- The numbers, as insertPaymentRequest claims one; a number an open request holds is
             -- skipped (its row retried alone). In number order: equal numbers in two batches are
             -- random and rare, and a deadlock there fails both statements (then one by one).
             insert into timed_account_claims as t (timed_account_number, merchant_account_number, request_id, is_open)
             select timed_account_number, merchant_account_number, request_id, true from drawn order by timed_account_number
             on conflict (timed_account_number) do update
                set merchant_account_number = excluded.merchant_account_number, request_id = excluded.request_id, is_open = true
              where not t.is_open
             returning t.timed_account_number, t.request_id
           ), inserted as (
             -- A plain insert: every claimed number gets its request, or the statement fails. A
             -- reference the statement saw taken was not claimed; one taken unseen (a concurrent
             -- request with it) fails the statement, and the batch's requests are made one by one.
             insert into payment_requests (request_id, merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description,
                                           reference_number, captured_by, expires_at)
             overriding system value
             select cl.request_id, c.merchant_account_number, c.timed_account_number, c.amount_minor, c.currency_code, c.transaction_description,
                    c.reference_number, c.captured_by, now() + make_interval(mins => $7)
               from claimed cl join checked c on c.timed_account_number = cl.timed_account_number
              -- One order for every batch, so two batches holding the same references (a client
              -- retrying without an idempotency key) never wait on each other in a cycle.
              order by c.merchant_account_number, c.reference_number
             returning *
           ), answered as (
             select x.timed_account_number, ${TIMED_ACCOUNT_ANSWER} as answer
               from inserted x join checked c on c.timed_account_number = x.timed_account_number
              where c.idempotency_key is not null
           ), stored as (
             -- A plain insert: the statement only gets here for keys it saw free, so a conflict is a
             -- concurrent duplicate, and failing the whole statement is the right answer to it.
             insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until,
                                           expires_at, response_status, response_body, response_content_type)
             select c.merchant_account_number, c.idempotency_key, c.request_fingerprint, 'completed', gen_random_uuid(), now(),
                    now() + make_interval(hours => $10), 200, a.answer, 'application/json; charset=utf-8'
               from answered a join checked c on c.timed_account_number = a.timed_account_number
             returning 1
           )
           select c.merchant_status, c.min_minor, c.max_minor, c.key_state, row_to_json(x) as request, a.answer
             from checked c left join inserted x on x.timed_account_number = c.timed_account_number
                            left join answered a on a.timed_account_number = c.timed_account_number
            order by c.ord`,
    values: [
      rows.map((r) => r.merchantAccountNumber),
      rows.map((r) => r.timedAccountNumber),
      rows.map((r) => r.amountMinor),
      rows.map((r) => r.transactionDescription),
      rows.map((r) => r.referenceNumber),
      rows.map((r) => r.capturedBy),
      expiryMinutes,
      rows.map((r) => r.idempotency?.key ?? null),
      rows.map((r) => r.idempotency?.fingerprint ?? null),
      retentionHours,
    ],
  });
  return outcomes;
}

/** A timed account number's claim (migration 0032): the merchant and request that took it last, and whether that request is open. */
export interface TimedAccountClaim {
  merchant_account_number: number;
  request_id: number;
  is_open: boolean;
}

/** The claim of this number, if any request ever took it: one row of timed_account_claims (one shard on Citus). */
export async function findTimedAccountClaim(q: Queryable, timedAccountNumber: string): Promise<TimedAccountClaim | undefined> {
  const { rows } = await q.query<TimedAccountClaim>({
    name: 'find_timed_account_claim',
    text: 'select merchant_account_number, request_id, is_open from timed_account_claims where timed_account_number = $1',
    values: [timedAccountNumber],
  });
  return rows[0];
}

/**
 * The latest request holding this timed account number, locked for the payment: found through its
 * claim, then locked by its key (the merchant in the condition: one shard on Citus). The claim is
 * read without a lock; it moves to another request only once its request is closed, so a request
 * found closed after the lock is checked against the claim again (a new request may have taken the
 * number meanwhile).
 */
export async function lockRequestByTimedAccount(tx: pg.PoolClient, timedAccountNumber: string): Promise<PaymentRequestRow | undefined> {
  for (let attempt = 0; ; attempt++) {
    const claim = await findTimedAccountClaim(tx, timedAccountNumber);
    if (!claim) return undefined;
    const request = await lockRequestById(tx, claim.merchant_account_number, claim.request_id);
    if (!request || request.status_code === PAYMENT_REQUEST.open || attempt >= 2) return request;
    const now = await findTimedAccountClaim(tx, timedAccountNumber);
    if (!now || (now.merchant_account_number === claim.merchant_account_number && now.request_id === claim.request_id)) return request;
  }
}

/** The merchant's request, locked (the merchant in the condition: one shard on Citus). */
export async function lockRequestById(tx: pg.PoolClient, merchantAccountNumber: number, requestId: number): Promise<PaymentRequestRow | undefined> {
  const { rows } = await tx.query<PaymentRequestRow>(
    'select *, now() >= expires_at as is_expired from payment_requests where merchant_account_number = $1 and request_id = $2 for update',
    [merchantAccountNumber, requestId],
  );
  return rows[0];
}

/** The collection that paid this request, if any (a request is paid at most once). */
export async function findCollectionByRequest(q: Queryable, merchantAccountNumber: number, requestId: number): Promise<CollectionRow | undefined> {
  const { rows } = await q.query<CollectionRow>(`${SELECT_COLLECTION} where c.merchant_account_number = $1 and c.request_id = $2`, [merchantAccountNumber, requestId]);
  return rows[0];
}

export async function findRequest(q: Queryable, requestId: number): Promise<PaymentRequestRow | undefined> {
  const { rows } = await q.query<PaymentRequestRow>('select *, now() >= expires_at as is_expired from payment_requests where request_id = $1', [requestId]);
  return rows[0];
}

/**
 * Releases the timed account claims of the requests a statement closed (its CTE "closed", returning
 * merchant_account_number, request_id, timed_account_number): the number may be taken again, exactly
 * when the partial unique index of migration 0003 (where status_code = 'O') stopped holding it. The
 * claim keeps naming the request, so the number still finds it (paid, expired).
 */
export const RELEASE_CLAIMS = `update timed_account_claims t set is_open = false
    from closed x
   where t.timed_account_number = x.timed_account_number and t.merchant_account_number = x.merchant_account_number and t.request_id = x.request_id`;

export async function markRequestPaid(tx: pg.PoolClient, requestId: number): Promise<void> {
  await tx.query(
    `with closed as (
       update payment_requests set status_code = 'P', paid_at = now(), held_by_transfer = null where request_id = $1
       returning merchant_account_number, request_id, timed_account_number
     ) ${RELEASE_CLAIMS}`,
    [requestId],
  );
}

/** A rail's transfer holds the request (holdForRailPayment); null releases it. */
export async function setRequestHold(tx: pg.PoolClient, requestId: number, transferId: string | null): Promise<void> {
  await tx.query('update payment_requests set held_by_transfer = $2 where request_id = $1', [requestId, transferId]);
}

/** The day's total so far of this merchant's payments of this type (judging a payment before it is booked). */
export async function collectedToday(q: Queryable, merchantAccountNumber: number, transactionCode: string, currencyCode: string): Promise<number> {
  const { rows } = await q.query<{ amount_minor: string }>(
    `select amount_minor from collection_daily_totals
      where merchant_account_number = $1 and transaction_code = $2 and currency_code = $3 and day = (now() at time zone 'UTC')::date`,
    [merchantAccountNumber, transactionCode, currencyCode],
  );
  return Number(rows[0]?.amount_minor ?? 0);
}

/**
 * The merchant's open request with this reference, if past its expiry, becomes expired now: a
 * reference is unique only while its request is open, and that ends at expiryDate, not when the
 * job next runs.
 */
export async function expireReference(q: Queryable, merchantAccountNumber: number, referenceNumber: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with closed as (
       update payment_requests set status_code = 'E'
        where merchant_account_number = $1 and reference_number = $2 and status_code = 'O' and expires_at <= now() and held_by_transfer is null
       returning merchant_account_number, request_id, timed_account_number
     ), released as (${RELEASE_CLAIMS})
     select count(*)::int as n from closed`,
    [merchantAccountNumber, referenceNumber],
  );
  return rows[0].n;
}

/**
 * Set-based: every open request past its expiry becomes expired, and its number's claim is
 * released. Run by a job every minute. One a rail's transfer holds waits for the switch's word
 * (paid, or open again and then expired).
 */
export async function expireRequests(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with closed as (
       update payment_requests set status_code = 'E' where status_code = 'O' and expires_at <= now() and held_by_transfer is null
       returning merchant_account_number, request_id, timed_account_number
     ), released as (${RELEASE_CLAIMS})
     select count(*)::int as n from closed`,
  );
  return rows[0].n;
}

export interface CollectionRow {
  collection_id: number;
  merchant_account_number: number;
  transaction_reference_number: string;
  transaction_code: 'BAM' | 'RTP';
  request_id: number | null;
  connector_id: number;
  connector_name: string;
  source_account_number: string;
  source_account_name: string;
  source_reference_number: string;
  beneficiary_account_number: string;
  beneficiary_account_name: string;
  amount_minor: number;
  fee_minor: number;
  currency_code: string;
  transaction_description: string;
  transaction_type_name: string;
  bridge_reference_number: string;
  status_code: CollectionStatus;
  created_by: string;
  transaction_date: Date;
  value_date: Date;
  reversed_at: Date | null;
  reversal_reason: string | null;
  timed_account_number: string | null;
  reference_number: string | null;
  /** Set when the request to pay is a hosted checkout. */
  payment_transaction_id: string | null;
}

export type NewCollection = Omit<
  CollectionRow,
  'collection_id' | 'connector_name' | 'beneficiary_account_name' | 'transaction_type_name' | 'status_code' | 'transaction_date' | 'value_date' | 'reversed_at' | 'reversal_reason' | 'timed_account_number' | 'reference_number' | 'payment_transaction_id'
> & {
  /**
   * The paid request's reference (null without a request), kept on the collection for the
   * console's search (migration 0021): the caller's request row, locked in this transaction, and
   * a request's reference never changes. Passed in rather than read by a subquery in VALUES,
   * which Citus refuses ("subqueries are not supported within INSERT queries").
   */
  request_reference_number: string | null;
};

const SELECT_COLLECTION = `
  select c.*, k.connector_name, m.account_name as beneficiary_account_name, tt.transaction_description as transaction_type_name,
         r.timed_account_number, r.reference_number, r.payment_transaction_id
    from collections c
    join connectors k on k.connector_id = c.connector_id
    join merchants m on m.merchant_account_number = c.merchant_account_number
    join transaction_types tt on tt.transaction_code = c.transaction_code
    left join payment_requests r on r.merchant_account_number = c.merchant_account_number and r.request_id = c.request_id`;

export async function insertCollection(tx: pg.PoolClient, c: NewCollection): Promise<CollectionRow> {
  const { rows } = await tx.query<{ collection_id: number }>(
    `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, request_id, connector_id,
                              source_account_number, source_account_name, source_reference_number, beneficiary_account_number,
                              amount_minor, fee_minor, currency_code, transaction_description, bridge_reference_number, created_by,
                              request_reference_number)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     returning collection_id`,
    [
      c.merchant_account_number,
      c.transaction_reference_number,
      c.transaction_code,
      c.request_id,
      c.connector_id,
      c.source_account_number,
      c.source_account_name,
      c.source_reference_number,
      c.beneficiary_account_number,
      c.amount_minor,
      c.fee_minor,
      c.currency_code,
      c.transaction_description,
      c.bridge_reference_number,
      c.created_by,
      c.request_reference_number,
    ],
  );
  const { rows: full } = await tx.query<CollectionRow>(`${SELECT_COLLECTION} where c.merchant_account_number = $1 and c.collection_id = $2`, [
    c.merchant_account_number,
    rows[0].collection_id,
  ]);
  return full[0];
}

export async function findCollection(q: Queryable, merchantAccountNumber: number, reference: string, options: FindOptions = {}): Promise<CollectionRow | undefined> {
  const { rows } = await q.query<CollectionRow>(
    `${SELECT_COLLECTION} where c.merchant_account_number = $1 and c.transaction_reference_number = $2 ${options.lock ? 'for update of c' : ''}`,
    [merchantAccountNumber, reference],
  );
  return rows[0];
}

/** Today's (UTC) successful total for a transaction code: what the daily limit counts. */
/**
 * Adds a payment to its merchant's collected total for today (UTC) and answers the total before
 * it, for the daily limit. Call under the limit row's lock; a refused payment rolls it back.
 */
export async function addToCollectedToday(tx: pg.PoolClient, merchantAccountNumber: number, transactionCode: string, currencyCode: string, amountMinor: number): Promise<number> {
  const { rows } = await tx.query<{ before: number }>(
    `insert into collection_daily_totals as t (merchant_account_number, transaction_code, currency_code, day, amount_minor)
     values ($1, $2, $3, (now() at time zone 'UTC')::date, $4)
     on conflict (merchant_account_number, transaction_code, currency_code, day) do update set amount_minor = t.amount_minor + excluded.amount_minor
     returning t.amount_minor - $4 as before`,
    [merchantAccountNumber, transactionCode, currencyCode, amountMinor],
  );
  return rows[0].before;
}

/** Takes a reversed collection's amount off the total of the day it was collected. */
export async function removeFromCollected(tx: pg.PoolClient, c: Pick<CollectionRow, 'merchant_account_number' | 'transaction_code' | 'currency_code' | 'transaction_date' | 'amount_minor'>): Promise<void> {
  await tx.query(
    `update collection_daily_totals set amount_minor = amount_minor - $5
      where merchant_account_number = $1 and transaction_code = $2 and currency_code = $3 and day = ($4::timestamptz at time zone 'UTC')::date`,
    [c.merchant_account_number, c.transaction_code, c.currency_code, c.transaction_date, c.amount_minor],
  );
}

export async function markReversed(tx: pg.PoolClient, collectionId: number, reason: string): Promise<void> {
  await tx.query(`update collections set status_code = 'R', reversed_at = now(), reversal_reason = $2 where collection_id = $1`, [collectionId, reason]);
}

export interface CollectionSearch {
  transactionDate?: string;
  searchBy?: 'TransactionReferenceNumber' | 'SourceReferenceNumber' | 'SourceAccountNumber' | 'CustomerName' | 'ReferenceNumber';
  searchText?: string;
  offset: number;
  limit: number;
}

const SEARCH_COLUMNS: Record<NonNullable<CollectionSearch['searchBy']>, string> = {
  TransactionReferenceNumber: 'c.transaction_reference_number',
  SourceReferenceNumber: 'c.source_reference_number',
  SourceAccountNumber: 'c.source_account_number',
  CustomerName: 'c.source_account_name',
  ReferenceNumber: 'r.reference_number',
};

/** Newest first; searchText matches case-insensitively as a substring of the chosen column. */
export async function searchCollections(q: Queryable, merchantAccountNumber: number, s: CollectionSearch): Promise<CollectionRow[]> {
  const column = s.searchBy ? SEARCH_COLUMNS[s.searchBy] : null;
  const { rows } = await q.query<CollectionRow>(
    `${SELECT_COLLECTION}
      where c.merchant_account_number = $1
        and ($2::date is null or (c.transaction_date at time zone 'UTC')::date = $2::date)
        ${column && s.searchText ? `and ${column} ilike '%' || $5 || '%'` : 'and $5::text is null'}
      order by c.collection_id desc offset $3 limit $4`,
    [merchantAccountNumber, s.transactionDate ?? null, s.offset, s.limit, column && s.searchText ? escapeLike(s.searchText) : null],
  );
  return rows;
}

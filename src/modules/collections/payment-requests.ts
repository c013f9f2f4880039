// The merchant's requests to pay, as screens list them (the console's Get paid and sandbox tools) (E12) and hosted checkouts, which are requests to
// pay with the checkout's columns (checkout/service.ts). "Open" means what a payment would accept:
// status O and before expiry by the database's clock, the clock payTimedAccount judges by (the
// expiry job only catches the status up later). Every statement is scoped by the merchant; another
// merchant's request is not found.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { decodeCursor, keysetTime, listScope, pageOf, pageRows, type Page } from '../../http/keyset-pages.ts';
import { PAYMENT_REQUEST, type PaymentRequestStatus } from './repository.ts';

// ---------------------------------------------------------------------------------------------
// Requests

export type RequestStatus = 'open' | 'paid' | 'expired';

export interface PaymentRequestItem {
  requestId: number;
  /** A hosted checkout (a link to share) or a plain request to pay (a timed account to give). */
  kind: 'request' | 'checkout';
  timedAccountNumber: string;
  /** E12's referenceNumber (for a checkout, the one made from its source reference). */
  referenceNumber: string;
  /** A checkout's own reference, as the merchant typed it. */
  sourceReferenceNumber: string | null;
  description: string;
  amountMinor: number;
  currencyCode: string;
  /** As a payment would find it now: open only while unpaid and before its expiry. */
  status: RequestStatus;
  createdAt: Date;
  expiresAt: Date;
  /** Whole seconds until expiry by the database clock, 0 once past. */
  secondsLeft: number;
  capturedBy: string;
  /** The checkout's unguessable id (its link's ptid). */
  paymentTransactionId: string | null;
  paidAt: Date | null;
  /** The collection that paid it. */
  collectionReference: string | null;
}

interface RequestRow {
  request_id: number;
  timed_account_number: string;
  reference_number: string;
  source_reference_number: string | null;
  transaction_description: string;
  amount_minor: number;
  currency_code: string;
  status_code: PaymentRequestStatus;
  is_expired: boolean;
  created_at: Date;
  created_key: string;
  expires_at: Date;
  seconds_left: number;
  captured_by: string;
  payment_transaction_id: string | null;
  paid_at: Date | null;
  collection_reference: string | null;
}

function item(r: RequestRow): PaymentRequestItem {
  return {
    requestId: Number(r.request_id),
    kind: r.payment_transaction_id ? 'checkout' : 'request',
    timedAccountNumber: r.timed_account_number,
    referenceNumber: r.reference_number,
    sourceReferenceNumber: r.source_reference_number,
    description: r.transaction_description,
    amountMinor: Number(r.amount_minor),
    currencyCode: r.currency_code,
    status: r.status_code === PAYMENT_REQUEST.paid ? 'paid' : r.status_code === PAYMENT_REQUEST.expired || r.is_expired ? 'expired' : 'open',
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    secondsLeft: r.seconds_left,
    capturedBy: r.captured_by,
    paymentTransactionId: r.payment_transaction_id,
    paidAt: r.paid_at,
    collectionReference: r.collection_reference,
  };
}

const SELECT_REQUEST = `
  select r.request_id, r.timed_account_number, r.reference_number, r.source_reference_number, r.transaction_description,
         r.amount_minor, r.currency_code, r.status_code, now() >= r.expires_at as is_expired, r.created_at,
         ${keysetTime('r.created_at')} as created_key, r.expires_at,
         greatest(0, ceil(extract(epoch from (r.expires_at - now()))))::int as seconds_left,
         r.captured_by, r.payment_transaction_id, r.paid_at,
         (select c.transaction_reference_number from collections c
           where c.merchant_account_number = r.merchant_account_number and c.request_id = r.request_id) as collection_reference
    from payment_requests r`;

/** The largest request id a path may name (the column is a bigint identity; ids stay far below). */
const MAX_REQUEST_ID = Number.MAX_SAFE_INTEGER;

/** One request of the merchant; undefined when unknown or another merchant's. */
export async function findPaymentRequest(db: Queryable, merchantAccountNumber: number, requestId: number): Promise<PaymentRequestItem | undefined> {
  if (!Number.isSafeInteger(requestId) || requestId < 1 || requestId > MAX_REQUEST_ID) return undefined;
  const { rows } = await db.query<RequestRow>(`${SELECT_REQUEST} where r.merchant_account_number = $1 and r.request_id = $2`, [merchantAccountNumber, requestId]);
  return rows[0] ? item(rows[0]) : undefined;
}

/**
 * The longest a timed account lives: TIMED_ACCOUNT_MINUTES's largest value (config.ts). An open
 * request is younger than this, so the open list reads only the merchant's last day of requests,
 * however many paid and expired ones came before.
 */
const MAX_LIFETIME_MINUTES = 1440;

/**
 * The merchant's open requests and checkouts, newest first, keyset paged on (created_at,
 * request_id) along payment_requests_merchant_idx. `limit` defaults to DEFAULT_PAGE_ROWS.
 */
export async function listOpenRequests(db: Queryable, merchantAccountNumber: number, params: { after?: string; limit?: number } = {}): Promise<Page<PaymentRequestItem>> {
  const limit = pageRows(params.limit);
  const scope = listScope('getPaid.open', merchantAccountNumber, {});
  const key = decodeCursor(params.after, scope, ['time', 'int']);
  const { rows } = await db.query<RequestRow>(
    `${SELECT_REQUEST}
      where r.merchant_account_number = $1 and r.status_code = 'O' and r.expires_at > now()
        and r.created_at > now() - make_interval(mins => ${MAX_LIFETIME_MINUTES})
        and ($2::timestamptz is null or (r.created_at, r.request_id) < ($2::timestamptz, $3::bigint))
      order by r.created_at desc, r.request_id desc
      limit $4`,
    [merchantAccountNumber, key?.[0] ?? null, key?.[1] ?? null, limit + 1],
  );
  return pageOf(rows, limit, scope, (r) => [r.created_key, Number(r.request_id)], item);
}

/** The newest open request holding this timed account number, for the sandbox's payment of it. */
export async function requestByTimedAccount(db: Queryable, merchantAccountNumber: number, timedAccountNumber: string): Promise<PaymentRequestItem> {
  const { rows } = await db.query<RequestRow>(
    `${SELECT_REQUEST} where r.merchant_account_number = $1 and r.timed_account_number = $2 order by r.request_id desc limit 1`,
    [merchantAccountNumber, timedAccountNumber],
  );
  // As payTimedAccount answers it: unknown and another merchant's look the same.
  if (!rows[0]) throw new AppError('notFound', 'detail.timedAccountNotFound', { timedAccountNumber });
  return item(rows[0]);
}

/** What the merchant knows the request by: a checkout's own reference, else E12's. */
export function requestReference(r: PaymentRequestItem): string {
  return r.sourceReferenceNumber ?? r.referenceNumber;
}

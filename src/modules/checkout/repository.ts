// SQL for the hosted checkout: a payment request found by its unguessable id (ptid), through its
// claim (ptid_claims, migration 0032: ptid → merchant and request, never released), then by its key.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { RELEASE_CLAIMS, type PaymentRequestRow } from '../collections/repository.ts';

export interface CheckoutRow extends PaymentRequestRow {
  payment_transaction_id: string;
  source_reference_number: string;
  success_redirect_url: string;
  failure_redirect_url: string;
  merchant_name: string;
  /** Whole seconds until expiry by the database clock, 0 once expired. */
  seconds_left: number;
}

const SELECT_CHECKOUT = `
  select r.*, now() >= r.expires_at as is_expired, m.account_name as merchant_name,
         greatest(0, ceil(extract(epoch from (r.expires_at - now()))))::int as seconds_left
    from payment_requests r
    join merchants m on m.merchant_account_number = r.merchant_account_number
   where r.merchant_account_number = $1 and r.request_id = $2`;

/** The merchant and request a ptid names: one row of ptid_claims (one shard on Citus). */
async function ptidClaim(q: Queryable, paymentTransactionId: string): Promise<{ merchant_account_number: number; request_id: number } | undefined> {
  const { rows } = await q.query<{ merchant_account_number: number; request_id: number }>({
    name: 'find_ptid_claim',
    text: 'select merchant_account_number, request_id from ptid_claims where payment_transaction_id = $1',
    values: [paymentTransactionId],
  });
  return rows[0];
}

export async function findCheckout(q: Queryable, paymentTransactionId: string): Promise<CheckoutRow | undefined> {
  const claim = await ptidClaim(q, paymentTransactionId);
  if (!claim) return undefined;
  const { rows } = await q.query<CheckoutRow>({ name: 'find_checkout', text: SELECT_CHECKOUT, values: [claim.merchant_account_number, claim.request_id] });
  return rows[0];
}

/**
 * The same, with the request row locked for the payment: two payments of one checkout queue here,
 * and the second finds it paid. The merchant row is not locked (the payment locks it for share).
 */
export async function lockCheckout(tx: pg.PoolClient, paymentTransactionId: string): Promise<CheckoutRow | undefined> {
  const claim = await ptidClaim(tx, paymentTransactionId);
  if (!claim) return undefined;
  const { rows } = await tx.query<CheckoutRow>({ name: 'lock_checkout', text: `${SELECT_CHECKOUT} for update of r`, values: [claim.merchant_account_number, claim.request_id] });
  return rows[0];
}

/**
 * A cancelled checkout ends like an expired one: its timed account takes no payment after. One a
 * rail's transfer holds is not closed: the switch may already have committed the payer's money.
 */
export async function closeRequest(tx: pg.PoolClient, requestId: number): Promise<void> {
  await tx.query(
    `with closed as (
       update payment_requests set status_code = 'E' where request_id = $1 and status_code = 'O' and held_by_transfer is null
       returning merchant_account_number, request_id, timed_account_number
     ) ${RELEASE_CLAIMS}`,
    [requestId],
  );
}

/** Whether an open request of this merchant already holds this E12 reference. */
export async function openReferenceTaken(tx: pg.PoolClient, merchantAccountNumber: number, referenceNumber: string): Promise<boolean> {
  const { rowCount } = await tx.query(`select 1 from payment_requests where merchant_account_number = $1 and reference_number = $2 and status_code = 'O'`, [merchantAccountNumber, referenceNumber]);
  return rowCount === 1;
}

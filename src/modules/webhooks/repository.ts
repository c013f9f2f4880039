// SQL for webhook subscriptions, deliveries and attempts.
import type pg from 'pg';
import { transactionNow, type Queryable } from '../../db/pool.ts';

export interface SubscriptionRow {
  webhook_id: number;
  merchant_account_number: number;
  event_code: string;
  callback_url: string;
  webhook_signature: string;
  signing_secret: string;
  created_by: string;
  date_created: Date;
  modified_by: string | null;
  date_modified: Date | null;
}

export async function insertSubscription(
  q: Queryable,
  s: { merchantAccountNumber: number; eventCode: string; callbackUrl: string; webhookSignature: string; signingSecret: string; createdBy: string },
): Promise<SubscriptionRow> {
  const { rows } = await q.query<SubscriptionRow>(
    `insert into webhook_subscriptions (merchant_account_number, event_code, callback_url, webhook_signature, signing_secret, created_by)
     values ($1, $2, $3, $4, $5, $6) returning *`,
    [s.merchantAccountNumber, s.eventCode, s.callbackUrl, s.webhookSignature, s.signingSecret, s.createdBy],
  );
  return rows[0];
}

export async function listSubscriptions(q: Queryable, merchantAccountNumber: number): Promise<SubscriptionRow[]> {
  const { rows } = await q.query<SubscriptionRow>('select * from webhook_subscriptions where merchant_account_number = $1 order by webhook_id', [merchantAccountNumber]);
  return rows;
}

export async function findSubscription(q: Queryable, merchantAccountNumber: number, by: { webhookId?: number; eventCode?: string }): Promise<SubscriptionRow | undefined> {
  const { rows } = await q.query<SubscriptionRow>(
    `select * from webhook_subscriptions
      where merchant_account_number = $1 and ($2::bigint is null or webhook_id = $2) and ($3::text is null or event_code = $3)`,
    [merchantAccountNumber, by.webhookId ?? null, by.eventCode ?? null],
  );
  return rows[0];
}

export async function updateSubscription(
  q: Queryable,
  s: { webhookId: number; merchantAccountNumber: number; eventCode: string; callbackUrl: string; modifiedBy: string },
): Promise<SubscriptionRow | undefined> {
  // Undelivered deliveries follow the new URL, so the delivery log shows where they will go.
  const { rows } = await q.query<SubscriptionRow>(
    `with updated as (
       update webhook_subscriptions set event_code = $3, callback_url = $4, modified_by = $5, date_modified = now()
        where webhook_id = $1 and merchant_account_number = $2 returning *
     ), moved as (
       update webhook_deliveries d set callback_url = u.callback_url
         from updated u where d.webhook_id = u.webhook_id and d.status = 'pending'
     )
     select * from updated`,
    [s.webhookId, s.merchantAccountNumber, s.eventCode, s.callbackUrl, s.modifiedBy],
  );
  return rows[0];
}

/** Deletes the subscription; its undelivered deliveries end as failed in the same transaction. */
export async function deleteSubscription(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string): Promise<SubscriptionRow | undefined> {
  const { rows } = await tx.query<SubscriptionRow>('select * from webhook_subscriptions where merchant_account_number = $1 and event_code = $2 for update', [merchantAccountNumber, eventCode]);
  if (!rows[0]) return undefined;
  // Its deliveries stay in the log, detached (webhook_id null: the key has no ON DELETE SET NULL,
  // which Citus refuses, migration 0034); the pending ones fail, as nothing will send them now.
  // The transaction's now() is read first (transactionNow: Citus refuses it inside CASE there).
  const now = await transactionNow(tx);
  await tx.query(
    `update webhook_deliveries
        set webhook_id = null,
            status = case when status = 'pending' then 'failed' else status end,
            completed_at = case when status = 'pending' then $3::timestamptz else completed_at end,
            locked_until = case when status = 'pending' then null else locked_until end
      where merchant_account_number = $1 and webhook_id = $2`,
    [merchantAccountNumber, rows[0].webhook_id, now],
  );
  await tx.query('delete from webhook_subscriptions where merchant_account_number = $1 and webhook_id = $2', [merchantAccountNumber, rows[0].webhook_id]);
  return rows[0];
}

/** One attempt of a delivery, as attemptsJson aggregates it. */
export interface AttemptJson {
  attempt_number: number;
  attempted_at: string;
  http_status: number | null;
  latency_ms: number;
  response_snippet: string | null;
  error: string | null;
}

/**
 * A delivery's newest attempts (at most `limit`: a number or a parameter such as '$3') as a JSON
 * array in `order`, for the delivery aliased `d` in the enclosing statement.
 */
export function attemptsJson(d: string, options: { limit: string; order: 'asc' | 'desc' }): string {
  return `coalesce((select json_agg(a order by a.attempt_number ${options.order})
                      from (select attempt_number, attempted_at, http_status, latency_ms, response_snippet, error
                              from webhook_attempts
                             where delivery_id = ${d}.delivery_id and merchant_account_number = ${d}.merchant_account_number
                             order by attempt_number desc limit ${options.limit}) a), '[]'::json)`;
}

/**
 * Whether a redelivery can send the delivery aliased `d` again: its subscription still exists, it
 * carries its own secrets (a checkout's callback), or it is a listener's copy while the lease lasts.
 * The delivery log shows it, requeueDeliveries acts on it: one condition for both.
 */
export function redeliverable(d: string): string {
  return `(${d}.webhook_id is not null or ${d}.signing_secret is not null
    or ${d}.listener_id in (select listener_id from webhook_listeners where merchant_account_number = ${d}.merchant_account_number and expires_at > now()))`;
}

export interface DeliveryRow {
  delivery_id: number;
  webhook_id: number | null;
  event_id: number;
  event_code: string;
  callback_url: string;
  message_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  total_attempts: number;
  next_attempt_at: Date;
  is_test: boolean;
  listener_id: number | null;
  created_at: Date;
  completed_at: Date | null;
  attempts: AttemptJson[];
}

export interface DeliveryFilter {
  eventCode?: string;
  status?: string;
  fromDate?: string;
  toDate?: string;
  offset: number;
  limit: number;
}

/** Newest first, with each delivery's last attempts (at most 20) inlined. */
export async function listDeliveries(q: Queryable, merchantAccountNumber: number, f: DeliveryFilter): Promise<DeliveryRow[]> {
  const { rows } = await q.query<DeliveryRow>(
    `select d.delivery_id, d.webhook_id, d.event_id, d.event_code, d.callback_url, d.message_id, d.status, d.total_attempts,
            d.next_attempt_at, d.is_test, d.listener_id, d.created_at, d.completed_at,
            ${attemptsJson('d', { limit: '20', order: 'asc' })} as attempts
       from webhook_deliveries d
      where d.merchant_account_number = $1
        and ($2::text is null or d.event_code = $2)
        and ($3::text is null or d.status = $3)
        -- Calendar dates are UTC days (product.md §1), whatever the session's time zone.
        and ($4::date is null or d.created_at >= ($4::date)::timestamp at time zone 'UTC')
        and ($5::date is null or d.created_at < ($5::date + 1)::timestamp at time zone 'UTC')
      order by d.delivery_id desc
      offset $6 limit $7`,
    [merchantAccountNumber, f.eventCode ?? null, f.status ?? null, f.fromDate ?? null, f.toDate ?? null, f.offset, f.limit],
  );
  return rows;
}

/**
 * Puts deliveries back in the queue for a new round of attempts, with the same webhook-id.
 * Only deliveries whose subscription still exists, or that carry their own secrets (a checkout's
 * callback), can be redelivered; and a listener's copy while its listener's lease lasts.
 */
export async function requeueDeliveries(q: Queryable, merchantAccountNumber: number, target: { deliveryId: number } | { fromDate: string; toDate: string }): Promise<number> {
  const byId = 'deliveryId' in target;
  const { rowCount } = await q.query(
    `update webhook_deliveries d
        set status = 'pending', round_attempts = 0, next_attempt_at = now(), locked_until = null, completed_at = null
      where d.merchant_account_number = $1
        and ${redeliverable('d')}
        and ${byId ? 'd.delivery_id = $2' : `d.status = 'failed' and d.created_at >= ($2::date)::timestamp at time zone 'UTC' and d.created_at < ($3::date + 1)::timestamp at time zone 'UTC'`}`,
    byId ? [merchantAccountNumber, target.deliveryId] : [merchantAccountNumber, target.fromDate, target.toDate],
  );
  return rowCount ?? 0;
}

export async function deliveryExists(q: Queryable, merchantAccountNumber: number, deliveryId: number): Promise<boolean> {
  const { rowCount } = await q.query('select 1 from webhook_deliveries where merchant_account_number = $1 and delivery_id = $2', [merchantAccountNumber, deliveryId]);
  return rowCount === 1;
}

// ---------------------------------------------------------------------------------------------
// Temporary listeners (`npm run cli -- listen`): a copy of the merchant's events for as long as a
// lease is renewed. Their deliveries carry listener_id and no webhook_id.

export interface ListenerRow {
  listener_id: number;
  merchant_account_number: number;
  callback_url: string;
  event_codes: string[];
  webhook_signature: string;
  signing_secret: string;
  lease_seconds: number;
  expires_at: Date;
  created_by: string;
  date_created: Date;
  date_renewed: Date | null;
}

/**
 * Inserts a listener whose lease ends `leaseSeconds` from now (the database's clock, as the fan-out
 * compares it), unless the merchant already has `maxActive` unexpired ones: then undefined. The
 * count and the insert are serialised per merchant by a transaction-scoped advisory lock.
 */
export async function insertListener(
  tx: pg.PoolClient,
  l: { merchantAccountNumber: number; callbackUrl: string; eventCodes: string[]; webhookSignature: string; signingSecret: string; leaseSeconds: number; createdBy: string },
  maxActive: number,
): Promise<ListenerRow | undefined> {
  await tx.query(`select pg_advisory_xact_lock(hashtext('webhook_listeners'), $1)`, [l.merchantAccountNumber]);
  const { rows: counted } = await tx.query<{ n: number }>('select count(*)::int as n from webhook_listeners where merchant_account_number = $1 and expires_at > now()', [l.merchantAccountNumber]);
  if (counted[0].n >= maxActive) return undefined;
  const { rows } = await tx.query<ListenerRow>(
    `insert into webhook_listeners (merchant_account_number, callback_url, event_codes, webhook_signature, signing_secret, lease_seconds, expires_at, created_by)
     values ($1, $2, $3::varchar[], $4, $5, $6::int, now() + make_interval(secs => $6::int), $7) returning *`,
    [l.merchantAccountNumber, l.callbackUrl, l.eventCodes, l.webhookSignature, l.signingSecret, l.leaseSeconds, l.createdBy],
  );
  return rows[0];
}

/** Extends an unexpired lease by its own length from now; undefined when unknown, another merchant's or lapsed. */
export async function renewListener(q: Queryable, merchantAccountNumber: number, listenerId: number): Promise<ListenerRow | undefined> {
  const { rows } = await q.query<ListenerRow>(
    `update webhook_listeners set expires_at = now() + make_interval(secs => lease_seconds), date_renewed = now()
      where merchant_account_number = $1 and listener_id = $2 and expires_at > now() returning *`,
    [merchantAccountNumber, listenerId],
  );
  return rows[0];
}

/** Deletes the listener (lapsed or not); its undelivered copies end as failed in the same transaction. */
export async function deleteListener(tx: pg.PoolClient, merchantAccountNumber: number, listenerId: number): Promise<ListenerRow | undefined> {
  const { rows } = await tx.query<ListenerRow>('delete from webhook_listeners where merchant_account_number = $1 and listener_id = $2 returning *', [merchantAccountNumber, listenerId]);
  if (!rows[0]) return undefined;
  await tx.query(`update webhook_deliveries set status = 'failed', completed_at = now(), locked_until = null where listener_id = $1 and status = 'pending'`, [listenerId]);
  return rows[0];
}

/**
 * Deletes up to `limit` lapsed listeners and ends their undelivered copies as failed; returns how
 * many. Merchant by merchant, so that no row lock spans merchants (shards on Citus): the merchants
 * of the oldest lapsed listeners are found without a lock, then each one's are claimed with SKIP
 * LOCKED (two sweeps never wait for each other, nor delete a listener twice) and deleted.
 */
export async function sweepListeners(q: Queryable, limit: number): Promise<number> {
  const { rows: lapsed } = await q.query<{ merchant_account_number: number; n: number }>(
    `select merchant_account_number, count(*)::int as n
       from (select merchant_account_number, expires_at from webhook_listeners where expires_at <= now() order by expires_at limit $1) l
      group by merchant_account_number order by min(expires_at), merchant_account_number`,
    [limit],
  );
  let swept = 0;
  for (const { merchant_account_number: merchant, n } of lapsed) {
    const { rows } = await q.query<{ n: number }>(
      `with gone as (
         delete from webhook_listeners where merchant_account_number = $1 and listener_id in (
           select listener_id from webhook_listeners where merchant_account_number = $1 and expires_at <= now()
            order by expires_at limit $2 for update skip locked)
         returning listener_id
       ), ended as (
         update webhook_deliveries set status = 'failed', completed_at = now(), locked_until = null
          where merchant_account_number = $1 and status = 'pending' and listener_id in (select listener_id from gone)
       )
       select count(*)::int as n from gone`,
      [merchant, n],
    );
    swept += rows[0].n;
  }
  return swept;
}

/** Whether an unexpired listener of the merchant takes `eventCode`. */
export async function hasActiveListener(q: Queryable, merchantAccountNumber: number, eventCode: string): Promise<boolean> {
  const { rowCount } = await q.query('select 1 from webhook_listeners where merchant_account_number = $1 and $2::text = any(event_codes) and expires_at > now() limit 1', [merchantAccountNumber, eventCode]);
  return rowCount === 1;
}

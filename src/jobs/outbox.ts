// The event outbox. A feature that changes state calls emitEvent with its own transaction: the
// event row and one delivery per matching webhook subscription are written with the change, so
// an event exists exactly when the change committed. The webhook dispatcher is woken through
// NOTIFY, which PostgreSQL delivers only on commit: a rolled-back event never wakes anyone.
import type pg from 'pg';

export const OUTBOX_CHANNEL = 'outbox_events';
export const DELIVERY_CHANNEL = 'webhook_deliveries';

export interface EmittedEvent {
  eventId: number;
  deliveries: number;
}

export interface EmitOptions {
  /** A sample event (POST /merchants/webhooks/test): delivered like any other, marked as a test. */
  isTest?: boolean;
  /** Deliver to this subscription only. */
  webhookId?: number;
}

export async function emitEvent(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string, payload: object, options: EmitOptions = {}): Promise<EmittedEvent> {
  const isTest = options.isTest ?? false;
  const { rows } = await tx.query<{ event_id: number }>(
    `insert into outbox_events (merchant_account_number, event_code, payload, is_test)
     values ($1, $2, $3::json, $4) returning event_id`,
    [merchantAccountNumber, eventCode, JSON.stringify(payload), isTest],
  );
  const eventId = rows[0].event_id;
  // Fan-out, set-based: one delivery per subscription to this event code (at most one exists).
  const fanOut = await tx.query(
    `insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id, is_test)
     select s.merchant_account_number, $2, s.webhook_id, s.event_code, s.callback_url,
            'msg_' || replace(gen_random_uuid()::text, '-', ''), $4
       from webhook_subscriptions s
      where s.merchant_account_number = $1 and s.event_code = $3 and ($5::bigint is null or s.webhook_id = $5)`,
    [merchantAccountNumber, eventId, eventCode, isTest, options.webhookId ?? null],
  );
  await tx.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, String(eventId)]);
  if (fanOut.rowCount) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, String(eventId)]);
  return { eventId, deliveries: fanOut.rowCount ?? 0 };
}

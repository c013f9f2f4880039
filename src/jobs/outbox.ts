// The event outbox. A feature that changes state calls emitEvent with its own transaction: the
// event row and one delivery per matching webhook subscription (per unexpired listener of `listen`,
// and per ad-hoc target, such as a hosted checkout's callbackApiUrl) are written with the change, so
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
  /**
   * Ad-hoc targets besides the subscriptions (a hosted checkout's callbackApiUrl): each becomes a
   * delivery with no subscription (webhook_id null) that carries its own secrets. A target that a
   * subscription of this event already covers (same URL, same secret) is skipped: no duplicate.
   */
  targets?: CallbackTarget[];
  /**
   * Other subscription codes that get this event too: its older spellings (webhooks/catalogue.ts
   * EVENT_ALIASES). Such a delivery names the code the subscription was made with.
   */
  aliases?: readonly string[];
}

export interface CallbackTarget {
  callbackUrl: string;
  /** Standard Webhooks secret ("whsec_…") that signs webhook-signature. */
  signingSecret: string;
  /** The static X-OneKhusa-Webhook-Signature (52 alphanumerics). */
  webhookSignature: string;
}

/** Ad-hoc targets per event, at most: a checkout has one. */
const MAX_TARGETS = 10;

export async function emitEvent(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string, payload: object, options: EmitOptions = {}): Promise<EmittedEvent> {
  const isTest = options.isTest ?? false;
  const { rows } = await tx.query<{ event_id: number }>(
    `insert into outbox_events (merchant_account_number, event_code, payload, is_test)
     values ($1, $2, $3::json, $4) returning event_id`,
    [merchantAccountNumber, eventCode, JSON.stringify(payload), isTest],
  );
  const eventId = rows[0].event_id;
  // The subscription codes that take this event: its own, and its older spellings.
  const codes = [eventCode, ...(options.aliases ?? [])];
  // Fan-out, set-based: one delivery per subscription to this event code (at most one exists, and one per older spelling),
  // and a copy for every unexpired listener of the merchant that takes this code (`listen`; its
  // lease is checked here, so a lapsed listener gets nothing). One statement for both.
  const fanOut = await tx.query(
    `insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id, is_test, listener_id)
     select s.merchant_account_number, $2::bigint, s.webhook_id, s.event_code, s.callback_url,
            'msg_' || replace(gen_random_uuid()::text, '-', ''), $4::boolean, null::bigint
       from webhook_subscriptions s
      where s.merchant_account_number = $1 and s.event_code = any($6::text[]) and ($5::bigint is null or s.webhook_id = $5)
     union all
     select l.merchant_account_number, $2::bigint, null, $3::text, l.callback_url,
            'msg_' || replace(gen_random_uuid()::text, '-', ''), $4::boolean, l.listener_id
       from webhook_listeners l
      where l.merchant_account_number = $1 and $3::text = any(l.event_codes) and l.expires_at > now()`,
    [merchantAccountNumber, eventId, eventCode, isTest, options.webhookId ?? null, codes],
  );
  let deliveries = fanOut.rowCount ?? 0;
  const targets = options.targets ?? [];
  if (targets.length > MAX_TARGETS) throw new Error(`at most ${MAX_TARGETS} ad-hoc targets per event, got ${targets.length}`);
  const adHocTargets = await targetsNotFannedOut(tx, merchantAccountNumber, codes, options.webhookId ?? null, targets);
  if (adHocTargets.length > 0) {
    const adHoc = await tx.query(
      `insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id, is_test, signing_secret, webhook_signature)
       select $1::integer, $2::bigint, null, $3::text, t.callback_url, 'msg_' || replace(gen_random_uuid()::text, '-', ''), $4::boolean, t.signing_secret, t.webhook_signature
         from unnest($5::text[], $6::text[], $7::text[]) as t(callback_url, signing_secret, webhook_signature)`,
      [
        merchantAccountNumber,
        eventId,
        eventCode,
        isTest,
        adHocTargets.map((x) => x.callbackUrl),
        adHocTargets.map((x) => x.signingSecret),
        adHocTargets.map((x) => x.webhookSignature),
      ],
    );
    deliveries += adHoc.rowCount ?? 0;
  }
  await tx.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, String(eventId)]);
  if (deliveries > 0) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, String(eventId)]);
  return { eventId, deliveries };
}

/**
 * The ad-hoc targets still to send to: one per callback URL (the first given), less those the
 * fan-out already sends the same thing (a subscription of this merchant to the event, or an older
 * spelling of it, with the same URL and secret). Read apart and compared here, not in the INSERT:
 * Citus refuses a correlated subquery beside unnest() ("correlated subqueries are not supported
 * when the FROM clause contains a set returning function"; every payment with a callback URL
 * answered 500 on a cluster).
 */
async function targetsNotFannedOut(tx: pg.PoolClient, merchantAccountNumber: number, codes: string[], webhookId: number | null, targets: readonly CallbackTarget[]): Promise<CallbackTarget[]> {
  if (targets.length === 0) return [];
  const { rows } = await tx.query<{ callback_url: string; signing_secret: string }>(
    `select callback_url, signing_secret from webhook_subscriptions
      where merchant_account_number = $1 and event_code = any($2::text[]) and ($3::bigint is null or webhook_id = $3)`,
    [merchantAccountNumber, codes, webhookId],
  );
  const fannedOut = new Set(rows.map((r) => `${r.callback_url}\n${r.signing_secret}`));
  const byUrl = new Map<string, CallbackTarget>();
  for (const t of targets) if (!byUrl.has(t.callbackUrl)) byUrl.set(t.callbackUrl, t);
  return [...byUrl.values()].filter((t) => !fannedOut.has(`${t.callbackUrl}\n${t.signingSecret}`));
}

/**
 * Many events of one code at once, set-based (payout chunks: 50,000 lines make 5,000 events):
 * one statement writes the events and their deliveries, whatever their number.
 */
export async function emitEvents(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string, payloads: object[]): Promise<EmittedEvent[]> {
  if (payloads.length === 0) return [];
  const { rows } = await tx.query<{ event_id: number; deliveries: number }>(
    `with events as (
       insert into outbox_events (merchant_account_number, event_code, payload)
       select $1, $2, p from unnest($3::json[]) with ordinality as u(p, ord) order by ord
       returning event_id
     ), deliveries as (
       insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id, is_test, listener_id)
       select s.merchant_account_number, e.event_id, s.webhook_id, s.event_code, s.callback_url,
              'msg_' || replace(gen_random_uuid()::text, '-', ''), false, null::bigint
         from events e cross join webhook_subscriptions s
        where s.merchant_account_number = $1 and s.event_code = $2
       union all
       -- Listeners' copies, as in emitEvent.
       select l.merchant_account_number, e.event_id, null, $2::text, l.callback_url,
              'msg_' || replace(gen_random_uuid()::text, '-', ''), false, l.listener_id
         from events e cross join webhook_listeners l
        where l.merchant_account_number = $1 and $2::text = any(l.event_codes) and l.expires_at > now()
       returning event_id
     )
     select e.event_id, (select count(*) from deliveries d where d.event_id = e.event_id)::integer as deliveries from events e order by e.event_id`,
    [merchantAccountNumber, eventCode, payloads.map((p) => JSON.stringify(p))],
  );
  await tx.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, String(rows[rows.length - 1].event_id)]);
  if (rows.some((r) => r.deliveries > 0)) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, String(rows[rows.length - 1].event_id)]);
  return rows.map((r) => ({ eventId: r.event_id, deliveries: r.deliveries }));
}

// Webhook subscriptions (E13, E14 and the gateway's add/getAll/get/verify), the delivery log,
// redelivery and sample events.
import { timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import type { Clock, Deps } from '../../http/types.ts';
import { emitEvent, DELIVERY_CHANNEL } from '../../jobs/outbox.ts';
import { findMerchant } from '../merchants/repository.ts';
import { aliasesOf, canonicalEvent, eventName } from './catalogue.ts';
import { samplePayload } from './payloads.ts';
import * as repo from './repository.ts';
import { newSigningSecret, newWebhookSignature } from './signing.ts';
import { assertPublicTarget, parseCallbackUrl } from './url-guard.ts';

export function subscriptionView(lang: Lang, s: repo.SubscriptionRow) {
  return {
    merchantAccountNumber: s.merchant_account_number,
    webhookId: s.webhook_id,
    eventCode: s.event_code,
    eventName: eventName(lang, s.event_code),
    callbackUrl: s.callback_url,
    webhookSignature: s.webhook_signature,
    signingSecret: s.signing_secret,
    dateCreated: s.date_created.toISOString(),
    createdBy: s.created_by,
    dateModified: s.date_modified?.toISOString() ?? null,
    modifiedBy: s.modified_by,
  };
}

async function checkedCallbackUrl(deps: Deps, raw: string): Promise<string> {
  const url = parseCallbackUrl(raw);
  if (deps.config.mode === 'production') await assertPublicTarget(url);
  // Stored as parsed (WHATWG form), so what is shown is exactly what will be called.
  return url.href;
}

function duplicate(err: unknown, eventCode: string): never {
  if ((err as { code?: string }).code === '23505') throw new AppError('conflict', 'detail.webhookExists', { eventCode });
  throw err;
}

/** `q`: the transaction to write in (the console's action runs in one); the pool by default. Answers the new subscription's id. */
export async function addWebhook(deps: Deps, input: { merchantAccountNumber: number; eventCode: string; callbackUrl: string; capturedBy: string }, q: Queryable = deps.db): Promise<number> {
  const callbackUrl = await checkedCallbackUrl(deps, input.callbackUrl);
  const created = await repo
    .insertSubscription(q, {
      merchantAccountNumber: input.merchantAccountNumber,
      eventCode: input.eventCode,
      callbackUrl,
      webhookSignature: newWebhookSignature(),
      signingSecret: newSigningSecret(),
      createdBy: input.capturedBy,
    })
    .catch((err) => duplicate(err, input.eventCode));
  return created.webhook_id;
}

export async function listWebhooks(deps: Deps, lang: Lang, merchantAccountNumber: number) {
  return (await repo.listSubscriptions(deps.db, merchantAccountNumber)).map((s) => subscriptionView(lang, s));
}

export async function getWebhook(deps: Deps, lang: Lang, merchantAccountNumber: number, by: { webhookId?: number; eventCode?: string }) {
  const found = await repo.findSubscription(deps.db, merchantAccountNumber, by);
  if (!found) throw new AppError('notFound', 'detail.webhookNotFound', { webhook: String(by.webhookId ?? by.eventCode) });
  return subscriptionView(lang, found);
}

/** `q`: as for addWebhook. */
export async function updateWebhook(deps: Deps, input: { webhookId: number; merchantAccountNumber: number; eventCode: string; callbackUrl: string; capturedBy: string }, q: Queryable = deps.db): Promise<void> {
  const callbackUrl = await checkedCallbackUrl(deps, input.callbackUrl);
  const updated = await repo
    .updateSubscription(q, { webhookId: input.webhookId, merchantAccountNumber: input.merchantAccountNumber, eventCode: input.eventCode, callbackUrl, modifiedBy: input.capturedBy })
    .catch((err) => duplicate(err, input.eventCode));
  if (!updated) throw new AppError('notFound', 'detail.webhookNotFound', { webhook: String(input.webhookId) });
}

export async function deleteWebhook(deps: Deps, merchantAccountNumber: number, eventCode: string): Promise<void> {
  await withTransaction(deps.db, (tx) => deleteWebhookIn(tx, merchantAccountNumber, eventCode));
}

/** deleteWebhook in the caller's transaction (the console's action). */
export async function deleteWebhookIn(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string): Promise<void> {
  const deleted = await repo.deleteSubscription(tx, merchantAccountNumber, eventCode);
  if (!deleted) throw new AppError('notFound', 'detail.webhookNotFound', { webhook: eventCode });
}

/** `q`: as for addWebhook. */
export async function verifySignature(deps: Deps, merchantAccountNumber: number, eventCode: string, signature: string, q: Queryable = deps.db) {
  const found = await repo.findSubscription(q, merchantAccountNumber, { eventCode });
  const expected = Buffer.from(found?.webhook_signature ?? '');
  const given = Buffer.from(signature);
  const isSignatureValid = found !== undefined && expected.length === given.length && timingSafeEqual(expected, given);
  return { merchantAccountNumber, isSignatureValid };
}

/**
 * Sends a realistic sample of `eventCode`, marked as a test, to the merchant's subscription for it
 * and to its unexpired listeners (`listen`) of that code; 404 when there is neither. The answer
 * names the subscription's delivery, else (no subscription: webhookId null) a listener's copy.
 */
export async function sendTestEvent(deps: Deps, merchantAccountNumber: number, eventCode: string) {
  return withTransaction(deps.db, (tx) => sendTestEventIn(tx, deps.clock, merchantAccountNumber, eventCode));
}

/** sendTestEvent in the caller's transaction (the console's action). */
export async function sendTestEventIn(tx: pg.PoolClient, clock: Clock, merchantAccountNumber: number, eventCode: string) {
  // An older spelling (payment.reverse) is tested with the event it stands for.
  const event = canonicalEvent(eventCode);
  if (!event) throw new AppError('validation', 'detail.unknownEventForTest', { eventCode }, { fieldErrors: [{ key: 'detail.unknownEventForTest', params: { eventCode } }] });
  const subscription = await repo.findSubscription(tx, merchantAccountNumber, { eventCode });
  if (!subscription && !(await repo.hasActiveListener(tx, merchantAccountNumber, eventCode))) throw new AppError('notFound', 'detail.webhookNotFound', { webhook: eventCode });
  const merchant = await findMerchant(tx, merchantAccountNumber);
  const payload = { ...samplePayload(event, merchantAccountNumber, merchant!.payment_account_number, clock.now()), isTest: true };
  const emitted = await emitEvent(tx, merchantAccountNumber, event, payload, { isTest: true, webhookId: subscription?.webhook_id, aliases: aliasesOf(event) });
  const { rows } = await tx.query<{ delivery_id: number }>('select delivery_id from webhook_deliveries where event_id = $1 order by webhook_id is null, delivery_id limit 1', [emitted.eventId]);
  if (!rows[0]) throw new AppError('notFound', 'detail.webhookNotFound', { webhook: eventCode });
  return { merchantAccountNumber, eventCode, webhookId: subscription?.webhook_id ?? null, eventId: emitted.eventId, deliveryId: rows[0].delivery_id };
}

export async function listDeliveries(deps: Deps, merchantAccountNumber: number, filter: repo.DeliveryFilter) {
  const rows = await repo.listDeliveries(deps.db, merchantAccountNumber, filter);
  return rows.map((d) => ({
    deliveryId: d.delivery_id,
    webhookId: d.webhook_id,
    eventId: d.event_id,
    eventCode: d.event_code,
    callbackUrl: d.callback_url,
    webhookMessageId: d.message_id,
    status: d.status,
    numberOfAttempts: d.total_attempts,
    isTest: d.is_test,
    listenerId: d.listener_id,
    dateCreated: d.created_at.toISOString(),
    nextAttemptDate: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    dateCompleted: d.completed_at?.toISOString() ?? null,
    attempts: d.attempts.map((a) => ({
      attemptNumber: a.attempt_number,
      attemptedAt: new Date(a.attempted_at).toISOString(),
      httpStatus: a.http_status,
      latencyMs: a.latency_ms,
      responseSnippet: a.response_snippet,
      error: a.error,
    })),
  }));
}

export async function redeliver(deps: Deps, merchantAccountNumber: number, target: { deliveryId?: number; fromDate?: string; toDate?: string }) {
  return withTransaction(deps.db, (tx) => redeliverIn(tx, merchantAccountNumber, target));
}

/** redeliver in the caller's transaction (the console's action); the dispatcher is woken at its commit. */
export async function redeliverIn(tx: pg.PoolClient, merchantAccountNumber: number, target: { deliveryId?: number; fromDate?: string; toDate?: string }) {
  const byId = target.deliveryId !== undefined;
  const byRange = target.fromDate !== undefined && target.toDate !== undefined;
  // Exactly one target: a deliveryId with any part of a range is as ambiguous as both.
  const anyDate = target.fromDate !== undefined || target.toDate !== undefined;
  if (byId ? anyDate : !byRange) throw new AppError('validation', 'detail.redeliverTarget', {}, { fieldErrors: [{ key: 'detail.redeliverTarget', params: {} }] });
  if (byId && !(await repo.deliveryExists(tx, merchantAccountNumber, target.deliveryId!))) {
    throw new AppError('notFound', 'detail.deliveryNotFound', { deliveryId: target.deliveryId! });
  }
  const numberOfDeliveries = await repo.requeueDeliveries(tx, merchantAccountNumber, byId ? { deliveryId: target.deliveryId! } : { fromDate: target.fromDate!, toDate: target.toDate! });
  if (numberOfDeliveries > 0) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, 'redeliver']);
  return { merchantAccountNumber, numberOfDeliveries };
}

// ---------------------------------------------------------------------------------------------
// Temporary listeners (`npm run cli -- listen`)

/** A lease is 5 s to 5 min; listen renews it every third of it. */
export const LISTENER_LEASE_MIN_SECONDS = 5;
export const LISTENER_LEASE_MAX_SECONDS = 300;
export const LISTENER_LEASE_DEFAULT_SECONDS = 60;
/** Unexpired listeners per merchant, at most: each costs a delivery per event. */
export const LISTENERS_PER_MERCHANT_MAX = 10;

export interface CreateListenerInput {
  merchantAccountNumber: number;
  callbackUrl: string;
  eventCodes: string[];
  leaseSeconds?: number;
  capturedBy: string;
}

function listenerView(l: repo.ListenerRow) {
  return {
    merchantAccountNumber: l.merchant_account_number,
    listenerId: l.listener_id,
    callbackUrl: l.callback_url,
    eventCodes: l.event_codes,
    leaseSeconds: l.lease_seconds,
    expiresAt: l.expires_at.toISOString(),
  };
}

/** A new listener with its own secrets (shown here only), leased for `leaseSeconds`. */
export async function createListener(deps: Deps, input: CreateListenerInput) {
  const callbackUrl = await checkedCallbackUrl(deps, input.callbackUrl);
  const created = await withTransaction(deps.db, (tx) =>
    repo.insertListener(
      tx,
      {
        merchantAccountNumber: input.merchantAccountNumber,
        callbackUrl,
        eventCodes: [...new Set(input.eventCodes)],
        webhookSignature: newWebhookSignature(),
        signingSecret: newSigningSecret(),
        leaseSeconds: input.leaseSeconds ?? LISTENER_LEASE_DEFAULT_SECONDS,
        createdBy: input.capturedBy,
      },
      LISTENERS_PER_MERCHANT_MAX,
    ),
  );
  if (!created) throw new AppError('conflict', 'detail.listenersMax', { max: LISTENERS_PER_MERCHANT_MAX });
  return { ...listenerView(created), webhookSignature: created.webhook_signature, signingSecret: created.signing_secret };
}

/** Extends the lease by its length from now; a lapsed or unknown listener is 404 (create a new one). */
export async function renewListener(deps: Deps, merchantAccountNumber: number, listenerId: number) {
  const renewed = await repo.renewListener(deps.db, merchantAccountNumber, listenerId);
  if (!renewed) throw new AppError('notFound', 'detail.listenerNotFound', { listenerId });
  return listenerView(renewed);
}

/** Ends the listener now; its undelivered copies end as failed. */
export async function deleteListener(deps: Deps, merchantAccountNumber: number, listenerId: number): Promise<void> {
  const deleted = await withTransaction(deps.db, (tx) => repo.deleteListener(tx, merchantAccountNumber, listenerId));
  if (!deleted) throw new AppError('notFound', 'detail.listenerNotFound', { listenerId });
}

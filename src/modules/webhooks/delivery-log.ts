// The merchant's webhook delivery log as people read it (the console's Developers › Deliveries):
// a keyset-paged list with each delivery's last attempt, one delivery with its request body and
// attempts, and the event codes to filter by. Every statement is scoped by merchant_account_number:
// another merchant's delivery is not found. What a redelivery can send, and the attempts' shape,
// are the repository's (redeliverable, attemptsJson), so the log and E15 agree.
import type { Queryable } from '../../db/pool.ts';
import { checkOneOf, decodeCursor, keysetTime, listScope, pageOf, type Page } from '../../http/keyset-pages.ts';
import { attemptsJson, redeliverable, type AttemptJson } from './repository.ts';


export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Deliveries per page of the log. */
export const DELIVERY_PAGE_ROWS = 20;
/** Attempts shown on a delivery's page, at most (the newest; a delivery has a dozen in a bad week). */
export const DELIVERY_ATTEMPTS_SHOWN = 100;
/** The request body shown on a delivery's page, at most (payloads are a few hundred bytes). */
export const REQUEST_BODY_SHOWN_CHARS = 4096;

export interface DeliveryLogFilter {
  status?: string;
  event?: string;
  after?: string;
}

export interface LastAttempt {
  attemptNumber: number;
  attemptedAt: Date;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliveryItem {
  deliveryId: number;
  webhookId: number | null;
  listenerId: number | null;
  eventCode: string;
  callbackUrl: string;
  messageId: string;
  status: DeliveryStatus;
  totalAttempts: number;
  nextAttemptAt: Date;
  isTest: boolean;
  createdAt: Date;
  completedAt: Date | null;
  /** Whether a redelivery can send it (its subscription, its own secrets or its listener's lease are still there). */
  redeliverable: boolean;
  last: LastAttempt | null;
}

interface DeliveryLogRow {
  delivery_id: number;
  webhook_id: number | null;
  listener_id: number | null;
  event_code: string;
  callback_url: string;
  message_id: string;
  status: DeliveryStatus;
  total_attempts: number;
  next_attempt_at: Date;
  is_test: boolean;
  created_at: Date;
  completed_at: Date | null;
  redeliverable: boolean;
  key_time: string;
  last_number: number | null;
  last_at: Date | null;
  last_status: number | null;
  last_latency: number | null;
  last_error: string | null;
}

function deliveryItem(r: DeliveryLogRow): DeliveryItem {
  return {
    deliveryId: Number(r.delivery_id),
    webhookId: r.webhook_id === null ? null : Number(r.webhook_id),
    listenerId: r.listener_id === null ? null : Number(r.listener_id),
    eventCode: r.event_code,
    callbackUrl: r.callback_url,
    messageId: r.message_id,
    status: r.status,
    totalAttempts: r.total_attempts,
    nextAttemptAt: r.next_attempt_at,
    isTest: r.is_test,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    redeliverable: r.redeliverable,
    last:
      r.last_number === null
        ? null
        : { attemptNumber: r.last_number, attemptedAt: r.last_at!, httpStatus: r.last_status, latencyMs: r.last_latency ?? 0, error: r.last_error },
  };
}

const DELIVERY_COLUMNS = `d.delivery_id, d.webhook_id, d.listener_id, d.event_code, d.callback_url, d.message_id, d.status, d.total_attempts,
  d.next_attempt_at, d.is_test, d.created_at, d.completed_at, ${redeliverable('d')} as redeliverable, ${keysetTime('d.created_at')} as key_time,
  last.attempt_number as last_number, last.attempted_at as last_at, last.http_status as last_status, last.latency_ms as last_latency, last.error as last_error`;

const LAST_ATTEMPT = `left join lateral (
  select attempt_number, attempted_at, http_status, latency_ms, error from webhook_attempts a
   where a.delivery_id = d.delivery_id and a.merchant_account_number = d.merchant_account_number
   order by attempt_number desc limit 1) last on true`;

/**
 * A page of the merchant's deliveries, newest first (keyset on created_at, delivery_id: the
 * merchant's index), filtered by status and event code. A status or cursor that is not one of
 * ours is refused with a 400 (AppError 'validation').
 */
export async function listDeliveryLog(db: Queryable, merchantAccountNumber: number, filter: DeliveryLogFilter): Promise<Page<DeliveryItem>> {
  const status = checkOneOf('status', filter.status, DELIVERY_STATUSES);
  const event = filter.event?.trim() ? filter.event.trim().slice(0, 100) : undefined;
  const scope = listScope('webhook-deliveries', merchantAccountNumber, { status, event });
  const key = decodeCursor(filter.after, scope, ['time', 'int']);
  const { rows } = await db.query<DeliveryLogRow>(
    `select ${DELIVERY_COLUMNS}
       from webhook_deliveries d
       ${LAST_ATTEMPT}
      where d.merchant_account_number = $1
        and ($2::text is null or d.status = $2)
        and ($3::text is null or d.event_code = $3)
        and ($4::timestamptz is null or (d.created_at, d.delivery_id) < ($4::timestamptz, $5::bigint))
      order by d.created_at desc, d.delivery_id desc
      limit $6`,
    [merchantAccountNumber, status ?? null, event ?? null, key?.[0] ?? null, key?.[1] ?? null, DELIVERY_PAGE_ROWS + 1],
  );
  return pageOf(rows, DELIVERY_PAGE_ROWS, scope, (r) => [r.key_time, Number(r.delivery_id)], deliveryItem);
}

export interface AttemptView {
  attemptNumber: number;
  attemptedAt: Date;
  httpStatus: number | null;
  latencyMs: number;
  /** The first 1 KB of the response body, as the dispatcher kept it. */
  responseSnippet: string | null;
  error: string | null;
}

export interface DeliveryDetail extends DeliveryItem {
  /** The request body every attempt sent (the event's payload), cut to REQUEST_BODY_SHOWN_CHARS. */
  body: string;
  bodyCut: boolean;
  /** The newest attempts first, at most DELIVERY_ATTEMPTS_SHOWN. */
  attempts: AttemptView[];
}

/** One delivery of the merchant with its request body and attempts; undefined for another merchant's or an unknown one. */
export async function deliveryDetail(db: Queryable, merchantAccountNumber: number, deliveryId: number): Promise<DeliveryDetail | undefined> {
  const { rows } = await db.query<DeliveryLogRow & { body: string; attempts: AttemptJson[] }>(
    `select ${DELIVERY_COLUMNS}, e.payload::text as body,
            ${attemptsJson('d', { limit: '$3', order: 'desc' })} as attempts
       from webhook_deliveries d
       join outbox_events e on e.event_id = d.event_id and e.merchant_account_number = d.merchant_account_number
       ${LAST_ATTEMPT}
      where d.merchant_account_number = $1 and d.delivery_id = $2`,
    [merchantAccountNumber, deliveryId, DELIVERY_ATTEMPTS_SHOWN],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    ...deliveryItem(row),
    body: row.body.slice(0, REQUEST_BODY_SHOWN_CHARS),
    bodyCut: row.body.length > REQUEST_BODY_SHOWN_CHARS,
    attempts: row.attempts.map((a) => ({
      attemptNumber: a.attempt_number,
      attemptedAt: new Date(a.attempted_at),
      httpStatus: a.http_status,
      latencyMs: a.latency_ms,
      responseSnippet: a.response_snippet,
      error: a.error,
    })),
  };
}

/** The event codes the merchant's deliveries carry (for the log's filter), at most 100. */
export async function deliveryEventCodes(db: Queryable, merchantAccountNumber: number): Promise<string[]> {
  const { rows } = await db.query<{ event_code: string }>(
    'select distinct event_code from webhook_subscriptions where merchant_account_number = $1 order by event_code limit 100',
    [merchantAccountNumber],
  );
  return rows.map((r) => r.event_code);
}

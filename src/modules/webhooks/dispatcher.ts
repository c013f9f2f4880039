// The webhook dispatcher: claims due deliveries with SKIP LOCKED (one merchant per statement),
// POSTs them, records every attempt, and schedules retries. It runs in every worker process; any number may run at once.
//
// - Wake-up: LISTEN on the delivery channel (emitEvent NOTIFYs on commit), so a new event is
//   attempted at once, not at the next poll; a timer covers scheduled retries and lost wake-ups.
// - Lease: a claim moves next_attempt_at to now + lease and counts the attempt. If this process
//   dies mid-attempt, the row simply becomes due again when the lease ends and another worker
//   re-claims it (at-least-once; receivers deduplicate on webhook-id). A late result from a lost
//   lease is dropped: recording checks that the lease is still ours.
// - Isolation: at most `webhookConcurrency` attempts in flight, at most `webhookPerHostConcurrency`
//   to one host, each bounded by `webhookTimeoutMs`, so a receiver that hangs delays only itself.
import net from 'node:net';
import type pg from 'pg';
import { Agent, request, type Dispatcher } from 'undici';
import type { Deps } from '../../http/types.ts';
import { DELIVERY_CHANNEL } from '../../jobs/outbox.ts';
import { standardSignature } from './signing.ts';
import { isInternalAddress, publicOnlyLookup } from './url-guard.ts';

/** Deliveries claimed per round trip. */
const CLAIM_BATCH = 100;
/** Longest sleep between polls when nothing is due and no NOTIFY arrives. */
const IDLE_POLL_MS = 1000;
const SNIPPET_BYTES = 1024;
const ERROR_MAX_LENGTH = 300;
const USER_AGENT = 'OneKhusa-Sandbox-Webhooks/1.0';
/** Final outcomes that send nothing: the target's subscription, or its listener's lease, is gone. */
const SUBSCRIPTION_DELETED = 'subscription deleted';
const LISTENER_LAPSED = 'listener lapsed';

interface Claimed {
  delivery_id: number;
  merchant_account_number: number;
  event_code: string;
  message_id: string;
  is_test: boolean;
  round_attempts: number;
  total_attempts: number;
  lease: Date;
  target_url: string;
  signing_secret: string | null;
  webhook_signature: string | null;
  /** Set on a listener's copy (`listen`); its secrets are null once the listener has lapsed. */
  listener_id: number | null;
  body: string;
}

interface Outcome {
  httpStatus: number | null;
  snippet: string | null;
  error: string | null;
  latencyMs: number;
  retryAfterMs: number | null;
}

// Claiming takes two steps, so that no row lock spans merchants (on Citus, shards: "could not run
// distributed query with FOR UPDATE/SHARE commands", issue 28):
// 1. DUE_SQL, without locks: the oldest due deliveries (at most the batch), each host cut to its
//    free slots, grouped by merchant. The same rows, in the same order, as one claim took before.
// 2. CLAIM_SQL per merchant: locks that merchant's rows among them with SKIP LOCKED and leases
//    them. The lock re-checks that each row is still pending and due, so a row another worker
//    claimed in between (leased: due later) or holds (skipped) is not taken twice.
// A worker that dies between the two steps has locked nothing; one that dies after has leased
// rows that are due again when the lease ends, as before.
const DUE_SQL = `
  with due as (
    select delivery_id, merchant_account_number, split_part(callback_url, '/', 3) as host, next_attempt_at from webhook_deliveries
     where status = 'pending' and next_attempt_at <= now()
       and not (split_part(callback_url, '/', 3) = any($2::text[]))
     order by next_attempt_at
     limit $1
  ), allowed as (
    -- No more of one host's deliveries than it has free slots ($3 minus those in flight): the
    -- rest of the batch stays due, so a backlog to one host cannot take every slot of the worker.
    select delivery_id, merchant_account_number, next_attempt_at from (
      select due.delivery_id, due.merchant_account_number, due.next_attempt_at,
             row_number() over (partition by due.host order by due.next_attempt_at, due.delivery_id) as rank,
             $3::int - coalesce(busy.in_flight, 0) as room
        from due left join unnest($4::text[], $5::int[]) as busy(host, in_flight) on busy.host = due.host
    ) ranked
     where rank <= room
  )
  select merchant_account_number, array_agg(delivery_id order by next_attempt_at, delivery_id) as ids
    from allowed
   group by merchant_account_number
   order by min(next_attempt_at), merchant_account_number`;

const CLAIM_SQL = `
  with due as (
    select delivery_id from webhook_deliveries
     where merchant_account_number = $1 and delivery_id = any($2::bigint[])
       and status = 'pending' and next_attempt_at <= now()
     for update skip locked
  ), claimed as (
    update webhook_deliveries d
       -- Millisecond precision: the lease travels through a JS Date and must compare equal.
       set next_attempt_at = date_trunc('milliseconds', now() + make_interval(secs => $3::float8 / 1000)),
           locked_until = date_trunc('milliseconds', now() + make_interval(secs => $3::float8 / 1000)),
           round_attempts = d.round_attempts + 1,
           total_attempts = d.total_attempts + 1
      from due where d.merchant_account_number = $1 and d.delivery_id = due.delivery_id
    returning d.*
  )
  -- Secrets: the subscription's, else the delivery's own (an ad-hoc target such as a checkout's
  -- callbackApiUrl). Neither: the subscription was deleted, and the attempt ends there. A
  -- listener's copy takes only its listener's, while its lease lasts: once lapsed (or deleted),
  -- nothing more is sent to it. Every join names the merchant, and every table is pinned to it
  -- ($1): one shard on Citus, which plans the modifying CTE apart and refuses tables joined only
  -- through it ("complex joins are only supported when all distributed tables are co-located and
  -- joined on their distribution columns").
  select c.delivery_id, c.merchant_account_number, c.event_code, c.message_id, c.is_test, c.round_attempts, c.total_attempts,
         c.locked_until as lease, c.listener_id,
         case when c.listener_id is null then coalesce(s.callback_url, c.callback_url) else c.callback_url end as target_url,
         case when c.listener_id is null then coalesce(s.signing_secret, c.signing_secret) else l.signing_secret end as signing_secret,
         case when c.listener_id is null then coalesce(s.webhook_signature, c.webhook_signature) else l.webhook_signature end as webhook_signature,
         e.payload::text as body
    from claimed c
    join outbox_events e on e.merchant_account_number = $1 and e.merchant_account_number = c.merchant_account_number and e.event_id = c.event_id
    left join webhook_subscriptions s on s.merchant_account_number = $1 and s.merchant_account_number = c.merchant_account_number and s.webhook_id = c.webhook_id
    left join webhook_listeners l on l.merchant_account_number = $1 and l.merchant_account_number = c.merchant_account_number and l.listener_id = c.listener_id and l.expires_at > now()
   order by c.delivery_id`;

/** Merchants' claims (CLAIM_SQL) run at once, at most: each is one short statement on its own connection. */
const CLAIMS_IN_PARALLEL = 4;

// Outcomes are recorded in batches, one statement each: every delivery's new state and its
// attempt row, only where the lease is still ours. One commit per attempt was the dispatcher's
// ceiling (measured: ~450 deliveries/s against ~900/s batched, on the 2-core machine).
const RECORD_SQL = `
  with input as (
    -- The times are computed here, not in the UPDATE's SET: Citus refuses a STABLE function
    -- (now(), timestamptz + interval) there with a column in it ("STABLE functions used in UPDATE
    -- queries cannot be called with column references"). The same now(): the transaction's.
    select i.*, now() + make_interval(secs => i.delay_ms / 1000) as next_at, case when i.status = 'pending' then null else now() end as done_at
      from unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[], $5::int[], $6::timestamptz[],
                  $7::smallint[], $8::int[], $9::text[], $10::text[])
      as i(delivery_id, lease, status, delay_ms, attempt_number, attempted_at, http_status, latency_ms, snippet, error)
  ), updated as (
    update webhook_deliveries d
       set status = i.status,
           next_attempt_at = i.next_at,
           locked_until = null,
           completed_at = i.done_at
      from input i
     where d.delivery_id = i.delivery_id and d.locked_until = i.lease
    returning d.delivery_id, d.merchant_account_number
  )
  insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, http_status, latency_ms, response_snippet, error)
  select u.delivery_id, u.merchant_account_number, i.attempt_number, i.attempted_at, i.http_status, i.latency_ms, i.snippet, i.error
    from updated u join input i on i.delivery_id = u.delivery_id
  on conflict (merchant_account_number, delivery_id, attempt_number) do nothing`;

/** Outcomes written per statement, at most. */
const RECORD_BATCH = 500;
/** Outcomes waiting to be written, at most: past this the loop stops claiming until they are. */
const MAX_UNRECORDED = 2000;

interface Recorded {
  deliveryId: number;
  lease: Date;
  status: 'pending' | 'succeeded' | 'failed';
  delayMs: number;
  attemptNumber: number;
  attemptedAt: Date;
  outcome: Outcome;
}

// Hosts at their limit are left out: their due deliveries wait for a slot (an attempt ending wakes
// the loop), not for a poll that would find them due at once and spin.
const NEXT_DUE_SQL = `select extract(epoch from (min(next_attempt_at) - now())) * 1000 as ms from webhook_deliveries
  where status = 'pending' and not (split_part(callback_url, '/', 3) = any($1::text[]))`;

/** What a delivery's request carries besides its body (the console's delivery log shows it, signatures masked). */
export interface DeliveryHeaderValues {
  eventCode: string;
  messageId: string;
  deliveryId: number;
  isTest: boolean;
  listenerId: number | null;
  timestampSeconds: number;
  /** The static X-OneKhusa-Webhook-Signature. */
  webhookSignature: string;
  /** The Standard Webhooks webhook-signature ("v1,…"). */
  standardSignature: string;
}

/** The headers of a delivery's POST, as every attempt sends them. */
export function deliveryHeaders(v: DeliveryHeaderValues): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-onekhusa-webhook-event': v.eventCode,
    'x-onekhusa-webhook-signature': v.webhookSignature,
    'webhook-id': v.messageId,
    'webhook-timestamp': String(v.timestampSeconds),
    'webhook-signature': v.standardSignature,
    // The deliveryId of the delivery log (redeliver takes it); webhook-id stays the receivers' dedup key.
    'x-onekhusa-delivery-id': String(v.deliveryId),
    ...(v.isTest ? { 'x-onekhusa-webhook-test': 'true' } : {}),
    // A copy for a temporary listener (`listen`), not a delivery to a subscription.
    ...(v.listenerId !== null ? { 'x-onekhusa-listener-id': String(v.listenerId) } : {}),
  };
}

/** The headers whose values are secrets or derived from one: the console's delivery log masks them. */
export const SIGNATURE_HEADERS: readonly string[] = ['x-onekhusa-webhook-signature', 'webhook-signature'];

function hostOf(url: string): string {
  return url.split('/')[2] ?? '';
}

function clip(text: string, max: number): string {
  // PostgreSQL text cannot hold NUL; everything else is kept.
  const clean = text.replace(/\u0000/g, '');
  return clean.length > max ? clean.slice(0, max) : clean;
}

function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\d{1,9}$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= SNIPPET_BYTES) break;
  }
  // Whatever is left is discarded (bounded), so the connection can be reused when small.
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks).subarray(0, SNIPPET_BYTES));
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return `no response within ${timeoutMs} ms`;
  const code = e.code ?? e.cause?.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return clip(code ? `${code}: ${message}` : message, ERROR_MAX_LENGTH);
}

export class WebhookDispatcher {
  private running = false;
  private inFlight = 0;
  private readonly perHost = new Map<string, number>();
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was not asleep (e.g. an attempt ended during a claim). */
  private wakePending = false;
  private loopDone: Promise<void> | undefined;
  private listener: pg.PoolClient | undefined;
  private releaseListener: () => void = () => undefined;
  private readonly agent: Agent;
  private unrecorded: Recorded[] = [];
  private flushing: Promise<void> | undefined;

  constructor(private readonly deps: Deps) {
    const { config } = deps;
    this.agent = new Agent({
      connections: config.webhookPerHostConcurrency,
      keepAliveTimeout: 10_000,
      headersTimeout: config.webhookTimeoutMs,
      bodyTimeout: config.webhookTimeoutMs,
      connect: { timeout: config.webhookTimeoutMs, ...(config.mode === 'production' ? { lookup: publicOnlyLookup } : {}) },
    });
  }

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loopDone = this.loop();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the timeout), cleans up. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    while (this.inFlight > 0 || this.unrecorded.length > 0 || this.flushing) {
      await (this.flushing ?? new Promise((r) => setTimeout(r, 10)));
    }
    const listener = this.listener;
    if (listener) {
      await listener.query(`unlisten ${DELIVERY_CHANNEL}`).catch(() => undefined);
      listener.removeAllListeners('notification');
      // Through the same guard as the error handler: a later connection error cannot release twice.
      this.releaseListener();
    }
    await this.agent.close();
  }

  private wake(): void {
    const resolve = this.wakeUp;
    this.wakeUp = undefined;
    if (resolve) resolve();
    else this.wakePending = true;
  }

  private async listen(): Promise<void> {
    try {
      // LISTEN holds a session: on DATABASE_DIRECT_URL when the pool goes through a transaction pooler.
      const client = await (this.deps.sessionDb ?? this.deps.db).connect();
      let released = false;
      // Exactly once, whichever of the error handler, a failed LISTEN or stop() gets there first.
      const release = () => {
        if (released) return;
        released = true;
        if (this.listener === client) this.listener = undefined;
        client.release(true);
      };
      client.on('notification', () => this.wake());
      // A broken listening connection only costs latency (polling goes on); re-listen later.
      client.on('error', () => release());
      this.releaseListener = release;
      await client.query(`listen ${DELIVERY_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.releaseListener();
      this.deps.log.warn({ err }, 'webhook dispatcher could not LISTEN; polling only');
    }
  }

  private async loop(): Promise<void> {
    const { config, log } = this.deps;
    while (this.running) {
      const free = this.unrecorded.length >= MAX_UNRECORDED ? 0 : config.webhookConcurrency - this.inFlight;
      let claimed: Claimed[] = [];
      if (free > 0) {
        try {
          if (!this.listener) await this.listen();
          claimed = await this.claim(Math.min(free, CLAIM_BATCH));
        } catch (err) {
          log.error({ err }, 'webhook claim failed');
          await this.sleep(IDLE_POLL_MS);
          continue;
        }
        for (const row of claimed) void this.attempt(row);
      }
      // Progress and free slots left: more may be due (a batch can be cut short by one host's
      // limit), so go round again at once. Saturated hosts are left out of the next claim, so
      // this ends with an empty claim at the latest.
      if (claimed.length > 0 && this.inFlight < config.webhookConcurrency) continue;
      // Nothing claimed: sleep until the next retry is due. Otherwise the attempts' ends wake us.
      await this.sleep(free > 0 && claimed.length === 0 ? await this.msUntilNextDue() : IDLE_POLL_MS);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running || this.wakePending) {
      this.wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), Math.max(0, ms));
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async msUntilNextDue(): Promise<number> {
    const { rows } = await this.deps.db.query<{ ms: number | null }>(NEXT_DUE_SQL, [this.saturatedHosts()]).catch(() => ({ rows: [{ ms: null }] }));
    const ms = rows[0].ms;
    return ms === null ? IDLE_POLL_MS : Math.min(IDLE_POLL_MS, Math.max(0, Math.ceil(ms)));
  }

  private saturatedHosts(): string[] {
    return [...this.perHost].filter(([, n]) => n >= this.deps.config.webhookPerHostConcurrency).map(([host]) => host);
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const { db, config, log } = this.deps;
    const busy = [...this.perHost];
    const { rows: due } = await db.query<{ merchant_account_number: number; ids: string[] }>(DUE_SQL, [
      limit,
      this.saturatedHosts(),
      config.webhookPerHostConcurrency,
      busy.map(([host]) => host),
      busy.map(([, n]) => n),
    ]);
    const claimed: Claimed[] = [];
    for (let i = 0; i < due.length; i += CLAIMS_IN_PARALLEL) {
      const results = await Promise.allSettled(due.slice(i, i + CLAIMS_IN_PARALLEL).map((d) => db.query<Claimed>(CLAIM_SQL, [d.merchant_account_number, d.ids, config.webhookLeaseMs])));
      // One merchant's failed claim must not drop the others' rows: they are leased already and
      // would wait for their lease to end. Its own rows stay due for the next round.
      for (const r of results) {
        if (r.status === 'fulfilled') claimed.push(...r.value.rows);
        else log.error({ err: r.reason }, 'webhook claim of one merchant failed');
      }
    }
    return claimed;
  }

  private async attempt(row: Claimed): Promise<void> {
    const host = hostOf(row.target_url);
    this.inFlight += 1;
    this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    const attemptedAt = this.deps.clock.now();
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = row.signing_secret ? await this.post(row, attemptedAt) : { httpStatus: null, snippet: null, error: row.listener_id === null ? SUBSCRIPTION_DELETED : LISTENER_LAPSED, latencyMs: 0, retryAfterMs: null };
    } catch (err) {
      outcome = { httpStatus: null, snippet: null, error: describeError(err, this.deps.config.webhookTimeoutMs), latencyMs: Math.round(performance.now() - started), retryAfterMs: null };
    }
    // The slot is free once the receiver has answered; the row stays leased until recorded, so
    // nobody can claim it in between.
    this.inFlight -= 1;
    const left = (this.perHost.get(host) ?? 1) - 1;
    if (left > 0) this.perHost.set(host, left);
    else this.perHost.delete(host);
    this.record(row, attemptedAt, outcome);
    this.wake();
  }

  private async post(row: Claimed, attemptedAt: Date): Promise<Outcome> {
    const { config } = this.deps;
    const url = new URL(row.target_url);
    // An address in the URL is checked here (connecting to it looks nothing up); a name is checked
    // by publicOnlyLookup against whatever it resolves to at connection time. (isInternalAddress
    // refuses every name, so it must not see one: that refused all deliveries to host names.)
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (config.mode === 'production' && net.isIP(host) !== 0 && isInternalAddress(host)) {
      return { httpStatus: null, snippet: null, error: 'refused: callback host is an internal address', latencyMs: 0, retryAfterMs: null };
    }
    // The attempt's recorded time, so the delivery log shows the webhook-timestamp that was sent.
    const timestampSeconds = Math.floor(attemptedAt.getTime() / 1000);
    const headers = deliveryHeaders({
      eventCode: row.event_code,
      messageId: row.message_id,
      deliveryId: row.delivery_id,
      isTest: row.is_test,
      listenerId: row.listener_id,
      timestampSeconds,
      webhookSignature: row.webhook_signature ?? '',
      standardSignature: standardSignature(row.signing_secret!, row.message_id, timestampSeconds, row.body),
    });
    const started = performance.now();
    const res = await request(url, {
      method: 'POST',
      headers,
      body: row.body,
      dispatcher: this.agent,
      signal: AbortSignal.timeout(config.webhookTimeoutMs),
    });
    const snippet = await readSnippet(res.body);
    return {
      httpStatus: res.statusCode,
      snippet: clip(snippet, SNIPPET_BYTES),
      error: null,
      latencyMs: Math.round(performance.now() - started),
      retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.deps.clock.now().getTime()),
    };
  }

  private record(row: Claimed, attemptedAt: Date, outcome: Outcome): void {
    const schedule = this.deps.config.webhookRetryScheduleMs;
    const succeeded = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;
    const final = succeeded || row.round_attempts >= schedule.length || outcome.error === SUBSCRIPTION_DELETED || outcome.error === LISTENER_LAPSED;
    // Retry-After is honoured when it asks for more time than the schedule, up to its longest step.
    const longest = Math.max(...schedule);
    this.unrecorded.push({
      deliveryId: row.delivery_id,
      lease: row.lease,
      status: succeeded ? 'succeeded' : final ? 'failed' : 'pending',
      delayMs: final ? 0 : Math.max(schedule[row.round_attempts], Math.min(outcome.retryAfterMs ?? 0, longest)),
      attemptNumber: row.total_attempts,
      attemptedAt,
      outcome,
    });
    // One flusher at a time; outcomes that arrive meanwhile form the next batch by themselves.
    this.flushing ??= this.flush().finally(() => {
      this.flushing = undefined;
      this.wake();
    });
  }

  private async flush(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0, RECORD_BATCH);
      try {
        await this.deps.db.query(RECORD_SQL, [
          batch.map((r) => r.deliveryId),
          batch.map((r) => r.lease),
          batch.map((r) => r.status),
          batch.map((r) => r.delayMs),
          batch.map((r) => r.attemptNumber),
          batch.map((r) => r.attemptedAt),
          batch.map((r) => r.outcome.httpStatus),
          batch.map((r) => r.outcome.latencyMs),
          batch.map((r) => r.outcome.snippet),
          batch.map((r) => r.outcome.error),
        ]);
      } catch (err) {
        // Not recorded: the leases run out and the deliveries are attempted again (at-least-once).
        this.deps.log.error({ err, deliveries: batch.length }, 'could not record webhook attempts');
      }
    }
  }
}

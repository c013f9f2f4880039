// GET /console/payouts/batches/:batchNumber/events: a batch's status and figures as server-sent
// events (text/event-stream), for the batch page's live strip (payouts/pages/live-batch.tsx, read by
// kit/assets/payouts.js). Each stream gets the batch as it is on opening, then an event whenever its
// status or counts change, a comment every HEARTBEAT_MS, and ends:
//   - at a final state (C, F, E, N, X): the last event, then `event: end` (reason "final");
//   - after MAX_STREAM_MS: `event: end` (reason "paused"): the page says to refresh. A stream is
//     not endless, and an open page does not keep its session alive for ever (lookUpSession
//     touches the session once, on opening);
//   - when the session ends (sign-out, expiry, the user closed), checked every SESSION_CHECK_MS:
//     `event: end` (reason "signedOut");
//   - when the client goes away: at once (the socket's close);
//   - when the process shuts down (app.shutdownSignal, or app.close()): the connection is closed
//     without an end event, so the browser's EventSource reconnects (after RETRY_MS) to a process
//     that is still up; the drain does not wait for streams.
// Figures come from polling, not LISTEN: the outbox's NOTIFY carries an event id, not a merchant
// or batch, so it would wake every stream of the process for any merchant's event. The poll is
// one statement per POLL_MS for the whole process, whatever the number of streams (every watched
// batch by primary key, payouts/upload-queries.ts watchedBatches), and only while a stream is open.
// Limits: STREAMS_PER_SESSION per session (429 beyond: a user's tabs) and STREAMS_PER_PROCESS
// (503 beyond). A client that does not read its events (more than MAX_BUFFERED_BYTES waiting)
// is dropped.
import type { ServerResponse } from 'node:http';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../../http/errors.ts';
import type { Lang } from '../../../http/i18n.ts';
import type { Deps, RouteModule } from '../../../http/types.ts';
import { USER } from '../../users/repository.ts';
import type { SessionId } from '../kit/cookies.ts';
import { liveKey, watchedBatches, type LiveFigures } from './upload-queries.ts';
import { consoleContext, sessionOf } from '../kit/http.ts';
import { isFinalBatch, liveAnnouncement, liveTexts, liveVersion } from './pages/live-batch.tsx';
import { batchStatusName } from './pages/payouts.tsx';
import { SECTION_PATHS } from '../kit/paths.ts';
import { findSession } from '../kit/session-store.ts';
import { at } from '../kit/at.ts';
import { PathId, pathNumber } from '../kit/schemas.ts';

export interface LiveLimits {
  pollMs: number;
  heartbeatMs: number;
  maxStreamMs: number;
  sessionCheckMs: number;
  retryMs: number;
  streamsPerSession: number;
  streamsPerProcess: number;
}

/** The defaults, each bounded: a second between polls, a comment every 15 s, ten minutes a stream. */
export const LIVE_LIMITS: LiveLimits = {
  pollMs: 1_000,
  heartbeatMs: 15_000,
  maxStreamMs: 10 * 60_000,
  sessionCheckMs: 30_000,
  retryMs: 5_000,
  streamsPerSession: 4,
  streamsPerProcess: 200,
};

/** Events not yet taken by a slow client: past this it is dropped (a page's events are ~400 bytes). */
const MAX_BUFFERED_BYTES = 64 * 1024;

export type EndReason = 'final' | 'paused' | 'signedOut';

interface Stream {
  key: string;
  merchantAccountNumber: number;
  batchNumber: number;
  session: SessionId;
  sessionKey: string;
  lang: Lang;
  raw: ServerResponse;
  openedAt: number;
  lastWriteAt: number;
  lastSessionCheckAt: number;
  checkingSession: boolean;
  version: string;
  closed: boolean;
}

/** The event a stream sends for `f`: the strip's texts, and whether it changed (version). */
export function batchEvent(lang: Lang, f: LiveFigures) {
  const statusText = batchStatusName(lang, f.statusCode, f.levelNumber);
  const texts = liveTexts(lang, f, statusText);
  return {
    batchNumber: f.batchNumber,
    status: f.statusCode,
    final: isFinalBatch(f.statusCode),
    version: liveVersion(f),
    texts,
    announce: liveAnnouncement(lang, f, statusText, texts),
    counts: { entries: f.entries, valid: f.valid, invalid: f.invalid, successful: f.successful, failed: f.failed, reversed: f.reversed, final: f.final },
    totals: { amountMinor: f.totalAmountMinor, successfulMinor: f.successfulAmountMinor, currencyCode: f.currencyCode },
  };
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The open streams of one app instance, and the one poll that feeds them. */
export class LiveBatches {
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    readonly limits: LiveLimits = LIVE_LIMITS,
  ) {}

  get open(): number {
    return this.streams.size;
  }

  /** Whether one more stream may open for this session: undefined, or the status to refuse it with (and when to come back). */
  refusal(sessionKey: string): { status: 429 | 503; retryAfterSeconds: number } | undefined {
    if (this.stopped) return { status: 503, retryAfterSeconds: 5 };
    let ofSession = 0;
    for (const s of this.streams) if (s.sessionKey === sessionKey) ofSession++;
    if (ofSession >= this.limits.streamsPerSession) return { status: 429, retryAfterSeconds: 30 };
    if (this.streams.size >= this.limits.streamsPerProcess) return { status: 503, retryAfterSeconds: 30 };
    return undefined;
  }

  /** Takes over the reply (already checked: the batch is the merchant's) and sends the first event. */
  start(reply: FastifyReply, s: { merchantAccountNumber: number; batchNumber: number; session: SessionId; lang: Lang; figures: LiveFigures }): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies that buffer (nginx) pass the events on at once.
      'x-accel-buffering': 'no',
    });
    const now = Date.now();
    const stream: Stream = {
      key: liveKey(s.merchantAccountNumber, s.batchNumber),
      merchantAccountNumber: s.merchantAccountNumber,
      batchNumber: s.batchNumber,
      session: s.session,
      sessionKey: sessionKeyOf(s.session),
      lang: s.lang,
      raw,
      openedAt: now,
      lastWriteAt: now,
      lastSessionCheckAt: now,
      checkingSession: false,
      version: '',
      closed: false,
    };
    this.streams.add(stream);
    // The client went away (or the socket failed): forget the stream at once. A write that fails
    // then is not the process's error to die of.
    raw.once('close', () => this.forget(stream));
    raw.on('error', () => this.forget(stream));
    this.write(stream, `retry: ${this.limits.retryMs}\n\n`);
    this.send(stream, s.figures);
    if (!stream.closed) this.schedule();
  }

  /** Ends every stream without an end event (their browsers reconnect elsewhere) and stops polling. */
  stop(): void {
    this.stopped = true;
    for (const s of [...this.streams]) this.close(s);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.poll(), this.limits.pollMs);
    this.timer.unref();
  }

  private forget(s: Stream): void {
    if (!this.streams.delete(s)) return;
    s.closed = true;
    if (this.streams.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private close(s: Stream, end?: EndReason): void {
    if (s.closed) return;
    if (end) this.write(s, frame('end', { reason: end }));
    this.forget(s);
    s.raw.end();
  }

  private write(s: Stream, text: string): void {
    if (s.closed) return;
    if (s.raw.writableLength > MAX_BUFFERED_BYTES) {
      // Not reading: let it go (its EventSource reconnects when it can).
      this.forget(s);
      s.raw.destroy();
      return;
    }
    s.raw.write(text);
    s.lastWriteAt = Date.now();
  }

  /** An event when the figures changed since the last one sent; the end after a final state. */
  private send(s: Stream, f: LiveFigures): void {
    const event = batchEvent(s.lang, f);
    if (event.version !== s.version) {
      s.version = event.version;
      this.write(s, frame('batch', event));
    }
    if (event.final) this.close(s, 'final');
  }

  /** One poll: every watched batch in one statement, then each stream's event, end or heartbeat. */
  async poll(): Promise<void> {
    if (this.polling || this.streams.size === 0) return;
    this.polling = true;
    try {
      const keys = new Map<string, { merchantAccountNumber: number; batchNumber: number }>();
      for (const s of this.streams) keys.set(s.key, { merchantAccountNumber: s.merchantAccountNumber, batchNumber: s.batchNumber });
      let figures: Map<string, LiveFigures> | undefined;
      try {
        figures = await watchedBatches(this.deps.db, [...keys.values()]);
      } catch (err) {
        // The database is away: heartbeats go on, the next poll tries again.
        this.deps.log.warn({ err }, 'live batch poll failed');
      }
      const now = Date.now();
      for (const s of [...this.streams]) {
        if (now - s.openedAt >= this.limits.maxStreamMs) {
          this.close(s, 'paused');
          continue;
        }
        const f = figures?.get(s.key);
        if (f) this.send(s, f);
        if (s.closed) continue;
        if (now - s.lastWriteAt >= this.limits.heartbeatMs) this.write(s, ': heartbeat\n\n');
        if (now - s.lastSessionCheckAt >= this.limits.sessionCheckMs) void this.checkSession(s, now);
      }
    } finally {
      this.polling = false;
    }
  }

  /** Ends the stream when its session has ended (as lookUpSession judges it, without touching it). */
  private async checkSession(s: Stream, now: number): Promise<void> {
    if (s.checkingSession) return;
    s.checkingSession = true;
    s.lastSessionCheckAt = now;
    try {
      const row = await findSession(this.deps.db, s.session.merchantAccountNumber, s.session.hash);
      const at = this.deps.clock.now();
      const idleMs = this.deps.config.consoleIdleMinutes * 60_000;
      const ended = !row || row.expires_at <= at || at.getTime() - row.last_seen_at.getTime() >= idleMs || row.user_status_code !== USER.active;
      if (ended) this.close(s, 'signedOut');
    } catch (err) {
      this.deps.log.warn({ err }, 'live batch session check failed');
    } finally {
      s.checkingSession = false;
    }
  }
}

function sessionKeyOf(session: SessionId): string {
  return `${session.merchantAccountNumber}:${session.hash.toString('hex')}`;
}

/** A batch's path: batch numbers are positive bigints (batches.batch_number), anything else names nothing (404). */
export const BatchParams = Type.Object({ batchNumber: PathId });

/** The batch number of a path its schema (BatchParams) let through; one beyond the safe integers is not found either. */
export function batchNumberOf(params: Static<typeof BatchParams>): number {
  const batchNumber = pathNumber(params.batchNumber);
  if (batchNumber === undefined) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber: params.batchNumber.slice(0, 12) });
  return batchNumber;
}

/** Registers the events route; answers the hub (tests look at it). */
export function liveBatchRoutes(scope: Parameters<RouteModule>[0], deps: Deps, limits: LiveLimits = LIVE_LIMITS): LiveBatches {
  const hub = new LiveBatches(deps, limits);
  // Shutdown begins (server.ts): the drain must not wait for streams. app.close() without it (tests): the same.
  scope.shutdownSignal.addEventListener('abort', () => hub.stop(), { once: true });
  scope.addHook('preClose', async () => hub.stop());

  scope.get(`${at(SECTION_PATHS.payouts)}/batches/:batchNumber/events`, { schema: { params: BatchParams }, config: { consoleAccess: 'user', consoleSection: 'payouts' } }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = context.user.merchantAccountNumber;
    const batchNumber = batchNumberOf(request.params);
    const session = sessionOf(request);
    if (!session) throw new Error('a signed-in request without its session');
    const figures = (await watchedBatches(deps.db, [{ merchantAccountNumber: merchant, batchNumber }])).get(liveKey(merchant, batchNumber));
    if (!figures) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
    const refused = hub.refusal(sessionKeyOf(session));
    if (refused) {
      // An EventSource gives up on a refusal (it reconnects only after a stream): the page then says to refresh.
      reply.header('retry-after', String(refused.retryAfterSeconds));
      throw Object.assign(new Error(refused.status === 429 ? 'too many live pages open in this session' : 'too many live pages open in this process'), { statusCode: refused.status });
    }
    hub.start(reply, { merchantAccountNumber: merchant, batchNumber, session, lang: context.lang, figures });
    return reply;
  });
  return hub;
}

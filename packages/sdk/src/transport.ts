// One request with its retries: on a network error, a timeout, 429 and 5xx, with exponential
// back-off and full jitter, or the wait the server's Retry-After asks for. Every attempt sends the
// same headers, so a write keeps its X-Idempotency-Key and the server replays, never repeats it.
import { OneKhusaConnectionError } from './errors.js';

/** The first back-off's ceiling; each retry doubles it (full jitter: a random wait below it). */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 20_000;
/** A Retry-After longer than this is not waited for: the call fails with the answer instead. */
const RETRY_AFTER_LIMIT_MS = 60_000;
/** Error codes of a request that never left: the name did not resolve, or nothing accepted the connection. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export interface Attempt {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface SendOptions {
  fetch: typeof fetch;
  maxRetries: number;
  timeoutMs: number;
  /**
   * The request may be sent again after it may have reached the server: the operation is a read,
   * or a write carrying an idempotency key. Otherwise a retry could do it twice.
   */
  replayable: boolean;
  signal: AbortSignal | undefined;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const dateMs = Date.parse(value);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

function backoffMs(retry: number): number {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
}

/** True when fetch failed before anything was sent (Node's fetch says why in `cause`; a browser's never does). */
function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } })?.cause;
  if (!cause) return false;
  if (cause.code && NEVER_SENT_CODES.has(cause.code)) return true;
  // Several addresses tried (happy eyeballs): refused on every one.
  return Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => e.code !== undefined && NEVER_SENT_CODES.has(e.code));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The answer to `attempt`, after at most `maxRetries` retries: the last answer when retries run out
 * (the caller turns a non-2xx into an error). Throws OneKhusaConnectionError when no answer came.
 */
export async function send(attempt: Attempt, options: SendOptions): Promise<Response> {
  for (let retry = 0; ; retry++) {
    const last = retry >= options.maxRetries;
    let response: Response;
    try {
      const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
      response = await options.fetch(attempt.url, { method: attempt.method, headers: attempt.headers, body: attempt.body, signal: AbortSignal.any(signals) });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // A write without a key is sent again only if it surely never left: after a broken
      // connection or a timeout the server may have done it, and a second request would do it twice.
      if (last || !(options.replayable || neverSent(error))) {
        throw new OneKhusaConnectionError({ message: `${attempt.method} ${attempt.url}: no answer after ${retry + 1} attempt(s): ${describe(error)}`, attempts: retry + 1, cause: error });
      }
      await sleep(backoffMs(retry), options.signal);
      continue;
    }
    // 429: the rate limit refuses a request before it runs, so even a write without a key may go
    // again. A 5xx may come after the write was done: only replayable requests are repeated.
    const mayRetry = response.status === 429 || (options.replayable && response.status >= 500);
    if (last || !mayRetry) return response;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
    if (retryAfterMs !== undefined && retryAfterMs > RETRY_AFTER_LIMIT_MS) return response;
    // The answer is dropped unread: release its connection.
    await response.body?.cancel().catch(() => undefined);
    await sleep(retryAfterMs ?? backoffMs(retry), options.signal);
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}

// The client: credentials once, then one typed call per operationId of the service's OpenAPI
// document, with the access token, idempotency keys, retries, paging and problem+json errors
// handled here. No dependency: global fetch and WebCrypto.
import { errorFromAnswer, OneKhusaConnectionError, OneKhusaError, type Result } from './errors.js';
import { operationMeta } from './generated/operations.js';
import type { OperationMeta } from './meta.js';
import { AccessTokens } from './tokens.js';
import { parseRetryAfter, send, type Attempt, type SendOptions } from './transport.js';
import type { BaseCallOptions, CallArgs, CallOptions, OperationId, Output, PagedOperationId, PageInput, PageItem } from './types.js';
import { headerValue, type WebhookHeaders } from './webhooks.js';

const PREFIXES = { sandbox: '/sandbox/v1', live: '/live/v1' } as const;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface OneKhusaOptions {
  /** The server's origin, e.g. https://api.onekhusa.com or http://localhost:3000 (no /sandbox/v1). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  organisationId: string;
  merchantAccountNumber: number | string;
  /** Which API: /sandbox/v1 (default) or /live/v1. */
  environment?: 'sandbox' | 'live';
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Retries after the first attempt on network errors, 429 and 5xx (default 3). */
  maxRetries?: number;
  /** Each attempt's limit (default 30,000 ms). */
  timeoutMs?: number;
  /** The current time in milliseconds, which decides when the token is renewed; for tests. */
  nowMs?: () => number;
}

/** A new X-Idempotency-Key (15–80 characters of [A-Za-z0-9-]). Keep it to retry the same operation later. */
export function newIdempotencyKey(): string {
  return `sdk-${crypto.randomUUID()}`;
}

type LooseOptions = BaseCallOptions & { idempotencyKey?: string };

function requireText(options: OneKhusaOptions, name: 'baseUrl' | 'apiKey' | 'apiSecret' | 'organisationId'): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new TypeError(`OneKhusa: option ${name} is required (a non-empty string)`);
  return value;
}

/** Header parameters the client can fill itself: the gateway wants them equal to the body's. */
function knownHeader(name: string, fields: { merchantAccountNumber: number; organisationId: string }): string | undefined {
  const bare = name.toLowerCase().replace(/^x-/, '').replace(/-/g, '');
  if (bare === 'merchantaccountnumber') return String(fields.merchantAccountNumber);
  if (bare === 'organisationid') return fields.organisationId;
  return undefined;
}

export class OneKhusa {
  readonly merchantAccountNumber: number;
  readonly organisationId: string;
  /** The same calls, answering a Result instead of throwing OneKhusaError or OneKhusaConnectionError. */
  readonly safe: {
    call<K extends OperationId>(operationId: K, ...args: CallArgs<K>): Promise<Result<Output<K>>>;
  };
  private readonly prefixUrl: string;
  private readonly fetch: typeof fetch;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly tokens: AccessTokens;

  constructor(options: OneKhusaOptions) {
    const baseUrl = requireText(options, 'baseUrl');
    const apiKey = requireText(options, 'apiKey');
    const apiSecret = requireText(options, 'apiSecret');
    this.organisationId = requireText(options, 'organisationId');
    this.merchantAccountNumber = Number(options.merchantAccountNumber);
    if (!Number.isInteger(this.merchantAccountNumber)) throw new TypeError('OneKhusa: option merchantAccountNumber must be an integer (8 digits)');
    const environment = options.environment ?? 'sandbox';
    if (!(environment in PREFIXES)) throw new TypeError("OneKhusa: option environment must be 'sandbox' or 'live'");
    this.prefixUrl = `${baseUrl.replace(/\/+$/, '')}${PREFIXES[environment]}`;
    // Bound late: a browser's fetch called as a method of something else throws "Illegal invocation".
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const credentials = { apiKey, apiSecret, organisationId: this.organisationId, merchantAccountNumber: this.merchantAccountNumber };
    this.tokens = new AccessTokens(() => this.call('accountGetAccessToken', credentials), options.nowMs ?? Date.now);
    this.safe = {
      call: async (operationId, ...args) => {
        try {
          return { ok: true, value: await this.call(operationId, ...args) };
        } catch (error) {
          if (error instanceof OneKhusaError || error instanceof OneKhusaConnectionError) return { ok: false, error };
          throw error;
        }
      },
    };
  }

  /**
   * Sends the operation and answers its success JSON; throws OneKhusaError for a non-2xx answer
   * and OneKhusaConnectionError when none came. `input` is the body's properties and the query's.
   */
  async call<K extends OperationId>(operationId: K, ...args: CallArgs<K>): Promise<Output<K>> {
    const meta: OperationMeta | undefined = operationMeta[operationId];
    if (!meta) throw new TypeError(`OneKhusa: unknown operation ${String(operationId)}`);
    const [input = {}, options = {}] = args as [Record<string, unknown>?, LooseOptions?];
    const idempotencyKey = meta.idempotent ? (options.idempotencyKey ?? newIdempotencyKey()) : undefined;
    const attempt = this.attemptFor(meta, input, options, idempotencyKey);
    const sendOptions: SendOptions = {
      fetch: this.fetch,
      maxRetries: this.maxRetries,
      timeoutMs: this.timeoutMs,
      replayable: meta.readOnly || idempotencyKey !== undefined,
      signal: options.signal,
    };
    if (!meta.auth) return answerOf<Output<K>>(await send(attempt, sendOptions));
    const token = await this.tokens.get();
    const response = await send(withToken(attempt, token), sendOptions);
    if (response.status !== 401) return answerOf<Output<K>>(response);
    // Refused before it ran (expired or revoked token): sending it again, even a write without a
    // key, cannot do it twice. One new token, one more try.
    await response.body?.cancel().catch(() => undefined);
    return answerOf<Output<K>>(await send(withToken(attempt, await this.tokens.replace(token)), sendOptions));
  }

  /**
   * Every item of a paged list, page after page (pageNumber from 1, isIncremental false), until a
   * page comes back shorter than asked.
   */
  async *paginate<K extends PagedOperationId>(operationId: K, input: PageInput<K>, options?: CallOptions<K>): AsyncGenerator<PageItem<K>, void, undefined> {
    const paged = (operationMeta[operationId] as OperationMeta).paged;
    if (!paged) throw new TypeError(`OneKhusa: ${operationId} is not a paged list`);
    const pageSize = input.numberOfReturnedRows ?? paged.pageSizeDefault;
    const call = this.call.bind(this) as (id: OperationId, input: object, options?: object) => Promise<unknown>;
    for (let pageNumber = input.pageNumber ?? 1; ; pageNumber++) {
      const pageInput = { ...input, pageNumber, numberOfReturnedRows: pageSize, ...(paged.incremental ? { isIncremental: false } : {}) };
      const page = (await call(operationId, pageInput, options)) as Record<string, unknown> | unknown[];
      const items = (paged.itemsKey === null ? page : (page as Record<string, unknown>)[paged.itemsKey]) as PageItem<K>[];
      yield* items;
      if (items.length < pageSize) return;
    }
  }

  /**
   * The gateway's check of a delivery's static X-OneKhusa-Webhook-Signature
   * (POST /merchants/webhooks/verify): pass the delivery's headers, or the event code and signature.
   */
  async verifyWebhookSignature(delivery: { headers: WebhookHeaders } | { eventCode: string; webhookSignature: string }, options?: BaseCallOptions): Promise<boolean> {
    const fields =
      'headers' in delivery
        ? { eventCode: headerValue(delivery.headers, 'x-onekhusa-webhook-event'), webhookSignature: headerValue(delivery.headers, 'x-onekhusa-webhook-signature') }
        : delivery;
    if (!fields.eventCode || !fields.webhookSignature) return false;
    const answer = await this.call('merchantsWebhooksVerify', { merchantAccountNumber: this.merchantAccountNumber, eventCode: fields.eventCode, webhookSignature: fields.webhookSignature }, options);
    return answer.isSignatureValid;
  }

  private attemptFor(meta: OperationMeta, input: Record<string, unknown>, options: LooseOptions, idempotencyKey: string | undefined): Attempt {
    const inUrl = new Set([...meta.query, ...meta.pathParams]);
    const path = meta.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(input[name])));
    const query = new URLSearchParams();
    for (const name of meta.query) {
      const value = input[name];
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) query.append(name, String(item));
    }
    const body = Object.fromEntries(Object.entries(input).filter(([name]) => !inUrl.has(name)));
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (meta.body) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['x-idempotency-key'] = idempotencyKey;
    for (const name of meta.headers) {
      const value = knownHeader(name, this);
      if (value !== undefined) headers[name] = value;
    }
    const search = query.size > 0 ? `?${query}` : '';
    return {
      url: `${this.prefixUrl}${path}${search}`,
      method: meta.method,
      headers: { ...headers, ...options.headers },
      body: meta.body ? JSON.stringify(body) : undefined,
    };
  }
}

function withToken(attempt: Attempt, token: string): Attempt {
  return { ...attempt, headers: { authorization: `Bearer ${token}`, ...attempt.headers } };
}

/** The success JSON (undefined for an empty body), or the answer's OneKhusaError. */
async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw errorFromAnswer({ response, text, retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), Date.now()) });
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

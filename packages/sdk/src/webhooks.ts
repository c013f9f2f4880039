// Checks a delivery the Standard Webhooks way, as the service signs it: webhook-signature is
// "v1,<base64 HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${raw body}`>", keyed with the
// base64 after "whsec_" of the subscription's signingSecret. WebCrypto only, so it runs in
// browsers, workers and Node ≥ 20 alike.

/** Deliveries older or further ahead than this are refused (replays of a captured request). */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';

/** Request headers as Fetch (Headers) or Node (IncomingHttpHeaders, lower-case names) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** The body exactly as received: re-serialised JSON would not match the signature. */
  payload: string;
  headers: WebhookHeaders;
  /** The subscription's signingSecret (whsec_…), from merchantsWebhooksGetAll. */
  secret: string;
  toleranceSeconds?: number;
  /** The current time; for tests. */
  nowMs?: number;
}

export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = headerValue(headers, name);
  if (!value) throw new WebhookVerificationError(`missing ${name} header`);
  return value;
}

/**
 * The delivery's parsed JSON body, once its signature and timestamp are checked; otherwise throws
 * WebhookVerificationError. Each "v1,…" of webhook-signature (there may be several, separated by
 * spaces) is checked with WebCrypto's HMAC verify, which compares in constant time.
 */
export async function verifyWebhook<T = Record<string, unknown>>(options: VerifyWebhookOptions): Promise<T> {
  const id = required(options.headers, 'webhook-id');
  const timestamp = required(options.headers, 'webhook-timestamp');
  const signatures = required(options.headers, 'webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const timestampSeconds = Number(timestamp);
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - timestampSeconds) > toleranceSeconds) throw new WebhookVerificationError(`webhook-timestamp is more than ${toleranceSeconds} s away from now`);
  const secret = options.secret.startsWith(SECRET_PREFIX) ? options.secret.slice(SECRET_PREFIX.length) : options.secret;
  const key = await crypto.subtle.importKey('raw', base64Bytes(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${options.payload}`);
  for (const candidate of signatures.split(' ')) {
    const [version, signature] = candidate.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    let mac: Uint8Array<ArrayBuffer>;
    try {
      mac = base64Bytes(signature);
    } catch {
      continue;
    }
    if (await crypto.subtle.verify('HMAC', key, mac, signed)) return JSON.parse(options.payload) as T;
  }
  throw new WebhookVerificationError('no webhook-signature matches');
}

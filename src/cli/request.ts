// The CLI's side of HTTP, shared by every command that talks to a server: which server (--url,
// ONEKHUSA_URL, PORT), one request with a bounded wait, and how a refusal or an unreachable server
// is worded for stderr. Secrets given as options are never echoed back in these messages.
import { FailureError, usage, type Values } from './shared.ts';

const REQUEST_TIMEOUT_MS = 15_000;

export function baseUrl(values: Values): URL {
  const raw = values.url ?? process.env.ONEKHUSA_URL ?? `http://localhost:${process.env.PORT || '8080'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    usage(`--url is not a URL: "${raw.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') usage(`--url must be http:// or https://, got "${url.protocol}"`);
  return url;
}

/** The base URL as shown in messages: without any user:password part. */
export function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

function adminToken(values: Values): string {
  const token = values['admin-token'] ?? process.env.ADMIN_TOKEN;
  if (!token || token.trim() === '') usage('the merchants, keys and emails commands need the operator token: pass --admin-token or set ADMIN_TOKEN (the one the server was started with)');
  return token.trim();
}

export interface Answer {
  status: number;
  statusText: string;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  text: string;
  method: string;
  path: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, number | string | undefined>;
  headers?: Record<string, string>;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** One request; any HTTP answer is returned, only an unreachable or silent server throws. */
export async function send(base: URL, method: HttpMethod, path: string, options: CallOptions = {}): Promise<Answer> {
  const url = new URL(base.pathname.replace(/\/$/, '') + path, base);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new FailureError(`no answer from ${shown(base)} within ${REQUEST_TIMEOUT_MS / 1000} s — is the server overloaded or stuck?`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    // fetch() refuses some well-known ports (1, 25, 6000…) before connecting at all.
    if (cause?.message === 'bad port') throw new FailureError(`cannot reach ${shown(base)} — fetch() refuses to connect to port ${base.port}; use another port`);
    throw new FailureError(`cannot reach ${shown(base)} — is the server running?${cause?.code ? ` (${cause.code})` : ''}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, statusText: res.statusText, body, text, method, path: url.pathname };
}

/** A refusal as worded for stderr: the problem+json body as the server sent it (pretty-printed), anything else with its status. */
export function refusal(answer: Answer): FailureError {
  return new FailureError(
    answer.body !== undefined
      ? JSON.stringify(answer.body, null, 2)
      : `HTTP ${answer.status} ${answer.statusText} from ${answer.method} ${answer.path}${answer.text ? `\n${answer.text.slice(0, 2000)}` : ''}`,
  );
}

/**
 * An operator request (ADMIN_TOKEN), as call(). A server started without ADMIN_TOKEN answers 404 to
 * every operator route, as if it did not exist: its /health/live says so (operatorApi false), and
 * then the message says that, not "not found".
 */
export async function adminCall(base: URL, method: HttpMethod, path: string, values: Values, options: Omit<CallOptions, 'token'> = {}): Promise<unknown> {
  const answer = await send(base, method, path, { ...options, token: adminToken(values) });
  if (answer.status === 404 && (await operatorApiOff(base))) {
    throw new FailureError(
      `the server was started without ADMIN_TOKEN: ${shown(base)} has no operator API (/admin/v1). ` +
        'Restart it with ADMIN_TOKEN set (16 characters or more) and pass the same token here (--admin-token or ADMIN_TOKEN).',
    );
  }
  if (answer.status < 200 || answer.status > 299) throw refusal(answer);
  if (answer.body === undefined) throw new FailureError(`HTTP ${answer.status} from ${method} ${answer.path} was not JSON${answer.text ? `:\n${answer.text.slice(0, 2000)}` : ''}`);
  return answer.body;
}

/** Whether the server says its operator API is off (GET /health/live: operatorApi false). */
async function operatorApiOff(base: URL): Promise<boolean> {
  const live = await send(base, 'GET', '/health/live').catch(() => undefined);
  return live?.status === 200 && typeof live.body === 'object' && live.body !== null && (live.body as { operatorApi?: unknown }).operatorApi === false;
}

/** One request whose answer must be 2xx JSON: its body, else a FailureError. */
export async function call(base: URL, method: HttpMethod, path: string, options: CallOptions = {}): Promise<unknown> {
  const answer = await send(base, method, path, options);
  if (answer.status < 200 || answer.status > 299) throw refusal(answer);
  if (answer.body === undefined) throw new FailureError(`HTTP ${answer.status} from ${method} ${answer.path} was not JSON${answer.text ? `:\n${answer.text.slice(0, 2000)}` : ''}`);
  return answer.body;
}

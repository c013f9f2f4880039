// CORS for the merchant API (/sandbox/v1, /live/v1), so that a browser app on another origin can
// call it with a bearer token. Only there: the console is same-origin, with cookies and CSRF
// tokens, and must never be readable from another origin; the operator API, checkout pages and
// the switch's FSPIOP side are not called from browsers of other origins either.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CorsOrigins } from '../config.ts';
import type { App } from './types.ts';

export interface CorsOptions {
  allowedOrigins: CorsOrigins;
  /** The merchant API's prefixes (app.ts apiPrefixes): only paths under them get CORS headers. */
  prefixes: readonly string[];
}

/** What a browser may keep from one preflight before asking again (Chrome caps it at 7200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The methods of the merchant API's routes (no PATCH route exists; HEAD is a simple method). */
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';

/**
 * Request headers the API reads (http/pipeline.ts, modules' header schemas): echoed back in a
 * preflight when asked for; any other one is left out, and the browser refuses that request.
 */
const ALLOWED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'content-type',
  'accept',
  'accept-language',
  'x-idempotency-key',
  'idempotency-key',
  'x-request-id',
  'x-merchant-account-number',
  'x-organisation-id',
  'merchantaccountnumber',
]);

/**
 * Response headers a script may read beyond the safelisted ones (content-type, content-language…):
 * those the API sends (`reply.header(` in src/, AppError headers), by the name it sends them.
 */
const EXPOSED_HEADERS = ['retry-after', 'idempotent-replayed', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-user-id', 'x-account-id'].join(', ');

/** At most this many names of Access-Control-Request-Headers are looked at. */
const MAX_REQUESTED_HEADERS = 64;

/**
 * Registers the CORS hook: to be added before the pipeline's (http/pipeline.ts admit), so that a
 * preflight is answered before authentication and rate limiting, and every answer admit or the
 * error handler gives afterwards (401, 429, 404, 503) already carries the headers.
 */
export function registerCors(app: App, options: CorsOptions): void {
  const { allowedOrigins, prefixes } = options;
  if (allowedOrigins.kind === 'off' || prefixes.length === 0) return;
  const isAllowed = originMatcher(allowedOrigins);
  // Routes match case-insensitively (app.ts routerOptions): /SANDBOX/v1/… is the same API.
  const inScope = new RegExp(`^(?:${prefixes.map(escapeRegExp).join('|')})/`, 'i');
  app.addHook('onRequest', async (request, reply) => {
    if (!inScope.test(request.url)) return undefined;
    // The answer depends on the Origin: a cache must not give one origin's answer to another.
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    const allowed = typeof origin === 'string' && isAllowed(origin);
    if (isPreflight(request)) return allowed ? answerPreflight(request, reply, origin) : reply.code(204).send();
    if (allowed) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }
    return undefined;
  });
}

/**
 * An OPTIONS with Origin and Access-Control-Request-Method. No route answers OPTIONS: without this
 * hook it was a 404. A disallowed origin gets a 204 without CORS headers (rather than a 403):
 * the browser then reports the missing Access-Control-Allow-Origin, which names the cause, where
 * a 403 is reported as a failed status of the preflight.
 */
function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

/** 204 with what the browser needs; no Access-Control-Allow-Credentials: the API takes bearer tokens, never cookies. */
function answerPreflight(request: FastifyRequest, reply: FastifyReply, origin: string): FastifyReply {
  reply.header('vary', 'Origin, Access-Control-Request-Headers');
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-methods', ALLOWED_METHODS);
  const headers = allowedRequestHeaders(request.headers['access-control-request-headers']);
  if (headers !== undefined) reply.header('access-control-allow-headers', headers);
  reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
  return reply.code(204).send();
}

/** The requested header names the API accepts, lower-cased, or undefined when none is. */
function allowedRequestHeaders(requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  const names = requested
    .split(',', MAX_REQUESTED_HEADERS)
    .map((name) => name.trim().toLowerCase())
    .filter((name) => ALLOWED_REQUEST_HEADERS.has(name));
  return names.length === 0 ? undefined : [...new Set(names)].join(', ');
}

/** http(s)://localhost, 127.0.0.1 or [::1], any port: a browser app in development. */
const LOCALHOST_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

function originMatcher(allowed: Exclude<CorsOrigins, { kind: 'off' }>): (origin: string) => boolean {
  switch (allowed.kind) {
    case 'any':
      // Not "null" (sandboxed frames, file: pages): an opaque origin is no one in particular.
      return (origin) => origin !== 'null';
    case 'localhost':
      return (origin) => LOCALHOST_ORIGIN.test(origin);
    case 'exact': {
      // Browsers send the origin serialised (lower-case scheme and host): config.ts stored it so.
      const origins = new Set(allowed.origins);
      return (origin) => origins.has(origin);
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Cross-cutting HTTP behaviour, registered once for every route: request ids, language,
// authentication, merchant scoping, rate limiting, case-insensitive names, idempotency,
// problem+json errors and metrics. Route files only declare `config` and schemas.
import { timingSafeEqual, createHash } from 'node:crypto';
import { pipeline } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest, RequestPayload, RouteOptions } from 'fastify';
import type { ErrorObject } from 'ajv';
import { compileNormalizer } from './case-insensitive.ts';
import { AppError, problem, problemFromAppError, type ErrorName } from './errors.ts';
import { negotiateLanguage, t } from './i18n.ts';
import { checkInput } from './input-guard.ts';
import { BodyHasher, fingerprint, fingerprintOfBytes, heldKey, IDEMPOTENCY_KEY_PATTERN, isKeyHeld, storeRefusal } from './idempotency.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimiter } from './rate-limit.ts';
import { logAnswered } from './request-log.ts';
import { errorResponses, IDEMPOTENCY_KEY_HEADER, successResponseHeaders } from './docs.ts';
import type { App, Deps, IdempotencyContext, Principal } from './types.ts';
import { fieldMessages } from './validation.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/errors.ts';

/** Who a bearer access token names; undefined when it is not one of ours or has expired. */
export interface TokenVerifier {
  verify(token: string, now: Date): Promise<Principal | undefined>;
}

/** Whether the key behind a token may still be used (active, not deleted or expired, merchant active). */
export interface KeyStatusCheck {
  isUsable(clientId: number): Promise<boolean>;
}

export interface PipelineOptions {
  deps: Deps;
  /** Passed in by the composition root (modules/auth provides both): http/ knows no module. */
  tokens: TokenVerifier;
  keyStatus: KeyStatusCheck;
  rateLimiter: RateLimiter;
  metrics: Metrics;
  isShuttingDown: () => boolean;
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function sendProblem(request: FastifyRequest, reply: FastifyReply, kind: ErrorName, detail: string, errors: string[] = [detail]): FastifyReply {
  const body = problem(kind, request.lang ?? 'en', detail, errors, request.url.split('?')[0], String(request.id));
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}

function sameSecret(a: string, b: string): boolean {
  // Hash first so the comparison takes the same time whatever the lengths.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,4096})\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Values of `source` under `name`, whatever the casing (product.md §1): a route whose schema
 * lacks the field never had its keys normalised, and `?MerchantAccountNumber=` names a merchant
 * as much as `?merchantAccountNumber=` does.
 */
function valuesNamed(source: unknown, name: string): unknown[] {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(source)) if (key.toLowerCase() === name) values.push(value);
  return values;
}

/** Every merchant account number or organisation the request names, wherever it names it. */
function namedScopes(request: FastifyRequest): { merchants: unknown[]; organisations: unknown[] } {
  const body = request.body;
  const query = request.query;
  const headers = valuesNamed(body, 'header');
  const merchants = [
    ...valuesNamed(body, 'merchantaccountnumber'),
    ...headers.flatMap((h) => valuesNamed(h, 'merchantaccountnumber')),
    ...valuesNamed(query, 'merchantaccountnumber'),
    request.headers['x-merchant-account-number'],
    request.headers['merchantaccountnumber'],
  ];
  const organisations = [...valuesNamed(body, 'organisationid'), ...valuesNamed(query, 'organisationid'), request.headers['x-organisation-id']];
  return { merchants: merchants.filter((v) => v !== undefined && v !== null && v !== ''), organisations: organisations.filter((v) => v !== undefined && v !== null && v !== '') };
}

// /requestToPay/: the checkout page at the gateway's documented address. /console/: the merchant
// console, whose sign-in hashes with argon2.
const UNAUTHENTICATED_LIMITED = ['/sandbox/', '/live/', '/checkout/', '/requesttopay/', '/users/', '/console'];

export function registerPipeline(app: App, options: PipelineOptions): void {
  const { deps, metrics } = options;
  app.decorateRequest('lang', 'en');
  app.decorateRequest('principal', undefined);
  app.decorateRequest('idempotency', undefined);
  app.decorateRequest('bodyTextStorable', false);
  app.decorateRequest('rawBodySha256', undefined);

  app.addHook('onRoute', describeRoute);
  app.addHook('onRequest', admit(options));
  app.addHook('preParsing', hashLargeKeyedBody);
  app.addHook('preValidation', async (request) => {
    const compiled = request.routeOptions.config?.normalize;
    if (!compiled) return;
    compiled.body?.(request.body);
    compiled.query?.(request.query);
  });
  app.addHook('preHandler', async (request) => {
    checkInput(request.body, 'body', request.bodyTextStorable);
    checkInput(request.query, 'query');
    const principal = request.principal;
    if (!principal) return;
    checkMerchantScope(request, principal);
    if (request.routeOptions.config?.idempotent) request.idempotency = idempotencyContextOf(request, principal, deps);
  });
  // After a merchant's write, its reads stay on the primary for the replicas' lag bound, so that a
  // list asked right after an action shows it. Noted before the answer leaves (onSend).
  app.addHook('onSend', async (request, reply, payload) => {
    const principal = request.principal;
    if (deps.reads && principal && request.method !== 'GET' && request.method !== 'HEAD' && !request.routeOptions.config?.readOnly && reply.statusCode < 500) deps.reads.wrote(principal.merchantAccountNumber);
    return payload;
  });
  // A refusal (4xx) sent outside an effect's transaction is final and replayed like a success; a
  // server error, a rate limit or a conflict stores nothing, so the key stays free for a retry.
  app.addHook('onSend', async (request, reply, payload) => {
    const context = request.idempotency;
    if (!context || context.completed) return payload;
    context.completed = true;
    const status = reply.statusCode;
    if (status < 400 || status >= 500 || status === 409 || status === 429 || typeof payload !== 'string') return payload;
    try {
      await storeRefusal(deps.db, context, status, payload, String(reply.getHeader('content-type') ?? 'application/json'));
    } catch (err) {
      request.log.warn({ err }, 'could not store the refusal under its idempotency key');
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    logAnswered(request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    request.lang = negotiateLanguage(request.headers['accept-language']);
    return sendProblem(request, reply, 'notFound', t(request.lang, 'detail.routeNotFound', { method: request.method, path: request.url.split('?')[0].slice(0, 200) }));
  });
  app.setErrorHandler(answerError(deps));
}

/** Compiles a route's key normalisers and gives it, in the docs, its error responses and the headers of its successes. */
function describeRoute(route: RouteOptions): void {
  // Merchant API routes need a merchant's token unless they say otherwise; the rest (docs,
  // health, metrics) are open unless they ask for the operator token.
  if (route.config?.auth === undefined) {
    const merchantApi = route.url.startsWith('/sandbox/') || route.url.startsWith('/live/');
    route.config = { ...route.config, auth: merchantApi ? 'merchant' : 'none' };
  }
  const schema = (route.schema ??= {});
  if (schema.hide) return;
  const compiled = {
    body: compileNormalizer(schema.body as never),
    query: compileNormalizer(schema.querystring as never),
  };
  if (compiled.body || compiled.query) route.config = { ...route.config, normalize: compiled };
  // Every idempotent operation declares X-Idempotency-Key, so the docs' "Try it" can send it
  // (type string only: the key's format is checked, with its own message, in preHandler).
  if (route.config?.idempotent) {
    const headers = (schema.headers ?? { type: 'object' }) as { properties?: Record<string, unknown> };
    schema.headers = { ...headers, type: 'object', properties: { ...headers.properties, 'x-idempotency-key': IDEMPOTENCY_KEY_HEADER } };
  }
  // Error responses, described with the statuses this operation can answer (http/docs.ts).
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const errors = errorResponses({
    method: String(methods[0]).toUpperCase(),
    auth: route.config.auth ?? 'none',
    idempotent: route.config.idempotent === true,
    body: schema.body !== undefined,
    merchantApi: route.url.startsWith('/sandbox/') || route.url.startsWith('/live/'),
    url: route.url,
  });
  const responses = (schema.response ??= {}) as Record<string, unknown>;
  responses['4xx'] ??= errors['4xx'];
  responses['5xx'] ??= errors['5xx'];
  // The headers every success carries, in the docs (a copy: response schemas are shared).
  const successHeaders = successResponseHeaders(route.config.auth ?? 'none', route.config.idempotent === true);
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('2') || typeof response !== 'object' || response === null) continue;
    const own = (response as { headers?: Record<string, unknown> }).headers;
    responses[status] = { ...response, headers: { ...successHeaders, ...own } };
  }
}

/**
 * The first hook of every request: its id, language and headers; 503 while shutting down; then
 * the route's authentication (none, the operator's token or a merchant's) and rate limit.
 */
function admit(options: PipelineOptions) {
  const { deps, tokens, keyStatus, rateLimiter } = options;
  const limit = (request: FastifyRequest, reply: FastifyReply, key: string) => applyRateLimit(deps, rateLimiter, request, reply, key);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    request.lang = negotiateLanguage(request.headers['accept-language']);
    reply.header('x-request-id', String(request.id));
    reply.header('content-language', request.lang);
    reply.header('x-content-type-options', 'nosniff');
    // Routes match case-insensitively, so prefixes are tested on the lower-cased path: on the raw
    // URL, /SANDBOX/v1/… skipped the per-address rate limit of the token endpoint.
    const path = request.url.toLowerCase();
    // API answers carry balances and keys: no shared cache may keep them.
    if (path.startsWith('/sandbox/') || path.startsWith('/live/') || path.startsWith('/admin/')) reply.header('cache-control', 'no-store');
    if (options.isShuttingDown()) {
      reply.header('connection', 'close');
      return sendProblem(request, reply, 'unavailable', t(request.lang, 'detail.shuttingDown'));
    }
    // An unknown route answers 404 whoever asks: the not-found handler has no route config.
    if (request.is404) return undefined;
    const mode = request.routeOptions.config?.auth ?? 'merchant';
    if (mode === 'none') {
      // Unauthenticated calls that reach the database are limited per client address: the
      // merchant API's (the token endpoint, checkout initiate) and the pages people open (hosted
      // checkout, set-password and the console, which hash with argon2). Health, docs and metrics are not.
      if (UNAUTHENTICATED_LIMITED.some((prefix) => path.startsWith(prefix))) return limit(request, reply, `ip:${request.ip}`);
      return undefined;
    }
    if (mode === 'admin') {
      const token = bearer(request);
      if (!deps.config.adminToken) return sendProblem(request, reply, 'notFound', t(request.lang, 'detail.routeNotFound', { method: request.method, path: request.url.split('?')[0] }));
      if (!token || !sameSecret(token, deps.config.adminToken)) return sendProblem(request, reply, 'unauthorized', t(request.lang, 'detail.adminToken'));
      return undefined;
    }
    const token = bearer(request);
    if (!token) return sendProblem(request, reply, 'unauthorized', t(request.lang, 'detail.missingToken'));
    const principal = await tokens.verify(token, deps.clock.now());
    if (!principal) return sendProblem(request, reply, 'unauthorized', t(request.lang, 'detail.invalidToken'));
    if (!(await keyStatus.isUsable(principal.clientId))) return sendProblem(request, reply, 'unauthorized', t(request.lang, 'detail.revokedKey'));
    request.principal = principal;
    return limit(request, reply, `m:${principal.merchantAccountNumber}`);
  };
}

async function applyRateLimit(deps: Deps, rateLimiter: RateLimiter, request: FastifyRequest, reply: FastifyReply, key: string): Promise<FastifyReply | undefined> {
  if (!rateLimiter.enabled) return undefined;
  const decision = await rateLimiter.take(key, deps.clock.now().getTime());
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetUnixSeconds);
  if (decision.allowed) return undefined;
  reply.header('retry-after', decision.retryAfterSeconds);
  return sendProblem(request, reply, 'rateLimited', t(request.lang, 'detail.rateLimited', { limit: decision.limit, retryAfter: decision.retryAfterSeconds }));
}

/** A large keyed body is hashed while it arrives (see fingerprintOfBytes): by its declared length only, so the same bytes always get the same kind of fingerprint. */
async function hashLargeKeyedBody(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload): Promise<RequestPayload> {
  const minBytes = request.routeOptions.config?.rawFingerprintMinBytes;
  if (minBytes === undefined || !request.principal || idempotencyKeyOf(request) === undefined) return payload;
  if (!(Number(request.headers['content-length']) >= minBytes)) return payload;
  const hasher = new BodyHasher((sha256) => {
    request.rawBodySha256 = sha256;
  });
  pipeline(payload, hasher, () => undefined);
  return hasher;
}

/**
 * Merchant scoping: a token is bound to one merchant account; naming another one answers 404,
 * exactly as if it did not exist, so account numbers cannot be probed.
 */
function checkMerchantScope(request: FastifyRequest, principal: Principal): void {
  const { merchants, organisations } = namedScopes(request);
  for (const value of merchants) {
    const text = String(value);
    if (!/^\d{8}$/.test(text)) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.merchantAccountNumber', params: {} }] });
    if (Number(text) !== principal.merchantAccountNumber) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: text });
  }
  for (const value of organisations) {
    if (String(value).toUpperCase() !== principal.organisationId) throw new AppError('notFound', 'detail.organisationNotFound', { organisationId: String(value).slice(0, 40) });
  }
}

/** The idempotency context of a keyed request (undefined without a key, where keys are optional); a key of the wrong form is refused. */
function idempotencyContextOf(request: FastifyRequest, principal: Principal, deps: Deps): IdempotencyContext | undefined {
  const key = idempotencyKeyOf(request);
  if (key === undefined) {
    if (deps.config.idempotencyRequired) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.idempotencyKeyRequired', params: {} }] });
    return undefined;
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.idempotencyKey', params: {} }] });
  // No claim here: the record is written with the effect's commit (http/idempotency.ts).
  return {
    merchantAccountNumber: principal.merchantAccountNumber,
    key,
    fingerprint: request.rawBodySha256
      ? fingerprintOfBytes(request.method, request.routeOptions.url ?? request.url, request.query, request.rawBodySha256)
      : fingerprint(request.method, request.routeOptions.url ?? request.url, request.query, request.body),
    retentionHours: deps.config.idempotencyRetentionHours,
    completed: false,
  };
}

/**
 * A keyed request that failed: if its key is held by another request's record (its own store
 * failed, or its effect was refused because the first one happened: the reference is taken, the
 * batch has moved on), it is answered from that record. True: the replay is sent; false: answer
 * the error. (Never the reply itself: a Fastify reply is a thenable that resolves to undefined
 * once the answer is out, so `await` on it read "not answered", and the error handler answered
 * the held-key error again, as an unexpected error, after the replay.)
 */
async function answerFromHeldKey(deps: Deps, request: FastifyRequest, reply: FastifyReply, error: unknown): Promise<boolean> {
  const context = request.idempotency;
  if (!context) return false;
  context.completed = false;
  const refused = error instanceof AppError && error.status < 500;
  if (!refused && !isKeyHeld(error)) return false;
  const held = await heldKey(deps.db, context);
  switch (held.kind) {
    case 'free':
      // Only a failed store says the key is held; its holder has gone since (rolled back): retry.
      if (!isKeyHeld(error)) return false;
      context.completed = true;
      throw new AppError('idempotencyInProgress', 'detail.idempotencyInProgress', { key: context.key }, { headers: { 'retry-after': '1' } });
    case 'replay':
      context.completed = true;
      reply.header('idempotent-replayed', 'true');
      reply.code(held.status).type(held.contentType).send(held.body);
      return true;
    case 'mismatch':
      context.completed = true;
      throw new AppError('idempotencyMismatch', 'detail.idempotencyMismatch', { key: context.key });
    case 'inProgress':
      context.completed = true;
      throw new AppError('idempotencyInProgress', 'detail.idempotencyInProgress', { key: context.key }, { headers: { 'retry-after': '1' } });
  }
}

/** Every error as problem+json: ours as raised, Fastify's and the driver's by kind, anything else as a 500 with its request id. */
function answerError(deps: Deps) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const lang = request.lang ?? 'en';
    const instance = request.url.split('?')[0];
    if (request.idempotency) {
      try {
        if (await answerFromHeldKey(deps, request, reply, error)) return reply;
      } catch (held) {
        error = held as FastifyError;
      }
    }
    if (error instanceof AppError) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      const body = problemFromAppError(error, lang, instance, String(request.id));
      return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
    }
    if (error.validation) {
      return sendProblem(request, reply, 'validation', t(lang, 'detail.validation'), fieldMessages(lang, error.validation as ErrorObject[]));
    }
    return answerFastifyError(deps, error, request, reply);
  };
}

function answerFastifyError(deps: Deps, error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const lang = request.lang ?? 'en';
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.routeOptions.bodyLimit ?? deps.config.bodyLimitBytes;
      keepReadingRefusedBody(request, reply, limit);
      return sendProblem(request, reply, 'tooLarge', t(lang, 'detail.tooLarge', { limit }));
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendProblem(request, reply, 'unsupportedMediaType', t(lang, 'detail.unsupportedMediaType', { type: String(request.headers['content-type'] ?? '').slice(0, 100) || '(none)' }));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendProblem(request, reply, 'validation', t(lang, 'detail.emptyJson'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendProblem(request, reply, 'validation', t(lang, 'detail.badJson'));
  }
  if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    // Any other client error Fastify detected (bad content length, malformed body…).
    const kind: ErrorName = error.statusCode === 413 ? 'tooLarge' : error.statusCode === 415 ? 'unsupportedMediaType' : error.statusCode === 404 ? 'notFound' : 'validation';
    return sendProblem(request, reply, kind, error instanceof SyntaxError ? t(lang, 'detail.badJson') : t(lang, 'detail.validation'));
  }
  if (isDatabaseUnavailable(error)) {
    // Nothing was acknowledged: a retry (with the same idempotency key) has exactly one effect.
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return sendProblem(request, reply, 'unavailable', t(lang, 'detail.unavailable'));
  }
  request.log.error({ err: error }, 'unexpected error');
  return sendProblem(request, reply, 'internal', t(lang, 'detail.internal', { requestId: String(request.id) }));
}

/** A refused body is read to its end, and dropped, when it declares at most this many times the limit. */
const DISCARD_LIMIT_FACTOR = 4;

/**
 * A body over the limit is refused from its Content-Length, before it is read, and Fastify then
 * asks for the connection to be closed after the answer. Closed while the client was still
 * sending, the socket answered the rest with a reset, which a client sending its whole body
 * before reading met instead of the 413 (and one that did read, whenever the reset overtook the
 * answer). So a body that declares its length, up to DISCARD_LIMIT_FACTOR times the limit, is
 * read to its end and dropped (Node does so once the answer is sent, for a connection that stays
 * open), and the connection serves the next request; requestTimeout bounds a slow one. A longer one, or one of
 * unknown length, is not worth reading: the connection is closed after the answer, as before.
 */
function keepReadingRefusedBody(request: FastifyRequest, reply: FastifyReply, limitBytes: number): void {
  const declaredBytes = Number(request.headers['content-length']);
  if (!Number.isSafeInteger(declaredBytes) || declaredBytes > DISCARD_LIMIT_FACTOR * limitBytes) return;
  // Only a body not yet read from: one that was (no Content-Length, or a wrong one) has lost bytes.
  if (request.raw.readableDidRead) return;
  reply.removeHeader('connection');
}

/** The request's idempotency key as sent (either header name), unchecked. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-idempotency-key'] ?? request.headers['idempotency-key'];
  return Array.isArray(raw) ? raw[0] : raw;
}

export function requestIdFrom(header: unknown, fallback: () => string): string {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : fallback();
}

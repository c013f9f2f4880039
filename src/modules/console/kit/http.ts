// The console's HTTP ground: one Fastify scope under /console whose hooks give every page its
// ConsoleContext (language, nonce, CSRF token, the signed-in user) before the handler runs, refuse
// a state-changing request without the right CSRF token and a same-origin Origin, and answer
// errors and unknown addresses as console pages (never problem+json: a person reads them).
//
// Routes declare `config: { consoleAccess }`: 'user' (the default: a signed-in user, optionally of
// a role that may see `consoleSection`), 'public' (sign-in, forgot and reset password: bound to
// the browser by the pre-session cookie) or 'asset' (static files: no session, no cookies).
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../http/errors.ts';
import { formField } from '../../../http/html.ts';
import { LANGUAGES, type Lang } from '../../../http/i18n.ts';
import type { App, Deps, RouteContext } from '../../../http/types.ts';
import type { SafeHtml } from '../../../lib/html/jsx.ts';
import { USER } from '../../users/repository.ts';
import { originOf, type Origin } from './audit.ts';
import { cookieNames, csrfToken, newSecret, parseCookies, parsePreSession, parseSessionCookie, sameToken, serializeCookie, type SessionId } from './cookies.ts';
import { CONSOLE_PATH, SECURITY_PATH, SIGN_IN_PATH, type Section } from './paths.ts';
import { isSandboxOnly, maySee, mustUseTwoFactor } from './roles.ts';
import { deleteSession, findSession, touchSession, type SessionRow } from './session-store.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../../db/errors.ts';

export type ConsoleAccess = 'user' | 'public' | 'asset';

/** The signed-in user, read fresh from the database on every request. */
export interface ConsoleUser {
  userId: string;
  merchantAccountNumber: number;
  merchantName: string;
  firstName: string;
  lastName: string;
  emailAddress: string;
  roleId: number;
  /** MERC_ADMIN, MERC_VIEWER, … (roles.ts decides the sections by it). */
  roleCode: string;
  roleName: string;
}

/** What every console page is rendered with. */
export interface PageContext {
  lang: Lang;
  /** For this response's Content-Security-Policy ('nonce-…'). */
  nonce: string;
  /** The token every state-changing request must carry (form field _csrf, or header X-CSRF-Token). */
  csrfToken: string;
  sandbox: boolean;
  /** The page's path and query without lang (the language links add theirs). */
  url: string;
  user?: ConsoleUser;
}

/** The context of a page only signed-in users reach. */
export type ConsoleContext = PageContext & { user: ConsoleUser };

interface ConsoleState extends PageContext {
  cookies: Map<string, string>;
  session?: SessionId;
  /** The pre-session secret (public pages). */
  preSession?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may open a console route (http.ts). Default 'user'. */
    consoleAccess?: ConsoleAccess;
    /** The section a 'user' route belongs to: roles.ts decides who sees it. */
    consoleSection?: Section;
    /**
     * A 'user' route a user who must enrol an authenticator first (CONSOLE_REQUIRE_2FA) may still
     * open: the security page and sign-out. Every other route sends them to the security page.
     */
    consoleBeforeTwoFactor?: boolean;
  }
  interface FastifyRequest {
    consoleState: ConsoleState | undefined;
  }
}

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';
/** The console's forms are small; htmx posts the same fields. */
const FORM_BODY_LIMIT_BYTES = 16 * 1024;
/** A session's last_seen_at is written at most this often: one write a minute, not one per request. */
const TOUCH_EVERY_MS = 60_000;
const LANG_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 3600;

export function pagePolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** An origin in one form (lower case, no default port), or undefined when `url` is not one. */
function originOfUrl(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** This service's origin: PUBLIC_BASE_URL in production, the request's own in sandbox mode. */
export function expectedOrigin(deps: Deps, request: FastifyRequest): string | undefined {
  if (deps.config.mode === 'production' && deps.config.publicBaseUrl) return originOfUrl(deps.config.publicBaseUrl);
  return originOfUrl(`${request.protocol}://${request.host}`);
}

/** The Origin of the request, else its Referer's origin; undefined when it sends neither (or "null"). */
function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin === 'string') return originOfUrl(origin);
  const referer = request.headers.referer;
  return typeof referer === 'string' ? originOfUrl(referer) : undefined;
}

/** The path and query of the request without `lang`. */
function urlWithoutLang(request: FastifyRequest): string {
  const url = new URL(request.url, 'http://console.invalid');
  url.searchParams.delete('lang');
  return url.pathname + url.search;
}

function languageOf(request: FastifyRequest, cookies: Map<string, string>, langCookie: string): { lang: Lang; chosen: boolean } {
  const asked = (formField(request.query, 'lang') ?? formField(request.body, 'lang'))?.toLowerCase();
  if ((LANGUAGES as readonly string[]).includes(asked ?? '')) return { lang: asked as Lang, chosen: true };
  const kept = cookies.get(langCookie);
  if ((LANGUAGES as readonly string[]).includes(kept ?? '')) return { lang: kept as Lang, chosen: false };
  return { lang: request.lang, chosen: false };
}

export function originFromRequest(request: FastifyRequest): Origin {
  return originOf(request.ip, request.headers['user-agent']);
}

export type SessionLookup = { kind: 'none' } | { kind: 'ended' } | { kind: 'active'; row: SessionRow; id: SessionId };

/** The request's session, if its cookie names one that is still going; an ended one is deleted. */
export async function lookUpSession(deps: Deps, cookieValue: string | undefined): Promise<SessionLookup> {
  const id = parseSessionCookie(cookieValue);
  if (!id) return { kind: cookieValue ? 'ended' : 'none' };
  const row = await findSession(deps.db, id.merchantAccountNumber, id.hash);
  if (!row) return { kind: 'ended' };
  const now = deps.clock.now();
  const idleMs = deps.config.consoleIdleMinutes * 60_000;
  if (row.expires_at <= now || now.getTime() - row.last_seen_at.getTime() >= idleMs || row.user_status_code !== USER.active) {
    await deleteSession(deps.db, id.merchantAccountNumber, id.hash);
    return { kind: 'ended' };
  }
  if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) await touchSession(deps.db, id.merchantAccountNumber, id.hash, now);
  return { kind: 'active', row, id };
}

function userOf(row: SessionRow): ConsoleUser {
  return {
    userId: row.user_id,
    merchantAccountNumber: row.merchant_account_number,
    merchantName: row.account_name,
    firstName: row.first_name,
    lastName: row.last_name,
    emailAddress: row.email_address,
    roleId: row.role_id,
    roleCode: row.role_code,
    roleName: row.role_name,
  };
}

/** A path inside the console to come back to after signing in; anything else is the home page. */
export function safeNext(next: string | undefined): string {
  if (!next || next.length > 500) return CONSOLE_PATH;
  if (!/^\/console(?:[/?][^\\\s]*)?$/.test(next) || next.startsWith('//') || /^\/console\/(sign-in|sign-out|forgot-password|reset-password|assets)/.test(next)) return CONSOLE_PATH;
  return next;
}

/** 303 to `location`; an htmx request is told with HX-Redirect instead (it would swap the page in). */
export function redirect(request: FastifyRequest, reply: FastifyReply, location: string): FastifyReply {
  if (request.headers['hx-request'] === 'true') return reply.code(200).header('hx-redirect', location).header('cache-control', 'no-store').send('');
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

/** The cookie headers of this deployment (names and Secure by mode). */
export function cookieHeader(deps: Deps, name: keyof ReturnType<typeof cookieNames>, value: string, maxAgeSeconds?: number): string {
  return serializeCookie(cookieNames(deps.config.mode)[name], value, { mode: deps.config.mode, maxAgeSeconds });
}

/** The page's state, set by the scope's hook (every route but the assets has it). */
export function pageContext(request: FastifyRequest): PageContext {
  const state = request.consoleState;
  if (!state) throw new Error(`console route ${request.routeOptions.url} has no page context (consoleAccess 'asset'?)`);
  return state;
}

/** The signed-in context: only on 'user' routes. */
export function consoleContext(request: FastifyRequest): ConsoleContext {
  const state = pageContext(request);
  if (!state.user) throw new Error(`console route ${request.routeOptions.url} is not a signed-in route`);
  return state as ConsoleContext;
}

/** The session id of the signed-in request (sign-out ends it). */
export function sessionOf(request: FastifyRequest): SessionId | undefined {
  return request.consoleState?.session;
}

/** The pre-session secret of a public page (the merchant choice is bound to it). */
export function preSessionOf(request: FastifyRequest): string {
  const secret = request.consoleState?.preSession;
  if (!secret) throw new Error('not a public console route');
  return secret;
}

export function sendHtml(reply: FastifyReply, context: Pick<PageContext, 'lang' | 'nonce'>, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-language', context.lang)
    .header('content-security-policy', pagePolicy(context.nonce))
    .header('cache-control', 'no-store')
    // strict-origin: a POST carries the Origin the CSRF check needs, and no path or query (a
    // reset link's token) ever leaves in a Referer.
    .header('referrer-policy', 'strict-origin')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin')
    .send(html);
}

/** What the scope needs from the module's pages: the error pages (layout.tsx renders them). */
export interface ConsoleScopeOptions {
  /** The page answering `status` (403 CSRF, 403 role, 404, 4xx, 500, 503). */
  errorPage(context: PageContext, status: number, kind: 'csrf' | 'forbidden' | 'notFound' | 'other'): SafeHtml;
}

/** A context for an error page when the hook did not run (a body refused before it). */
function fallbackContext(deps: Deps, request: FastifyRequest): PageContext {
  return { lang: request.lang ?? 'en', nonce: newNonce(), csrfToken: '', sandbox: deps.config.mode === 'sandbox', url: CONSOLE_PATH };
}

type ErrorKind = 'csrf' | 'forbidden' | 'notFound' | 'other';
type SendError = (request: FastifyRequest, reply: FastifyReply, status: number, kind: ErrorKind) => FastifyReply;

/** The console's error pages, in the page's context when the hook set one. */
function errorSender(deps: Deps, options: ConsoleScopeOptions): SendError {
  return (request, reply, status, kind) => {
    const context = request.consoleState ?? fallbackContext(deps, request);
    let html: string;
    try {
      html = options.errorPage(context, status, kind).html;
    } catch (err) {
      // The error page itself failed (a bug in the layout): a bare page rather than an error loop.
      request.log.error({ err }, 'console error page failed');
      html = `<!doctype html><html lang="en"><title>Error ${status}</title><main><h1>Error ${status}</h1></main></html>`;
    }
    return sendHtml(reply, context, status, html);
  };
}

/** Registers the console's scope under /console with its hooks; `routes` adds the pages to it. */
export function consoleScope(app: App, ctx: RouteContext, options: ConsoleScopeOptions, routes: (scope: App) => void): void {
  const { deps } = ctx;
  const sendError = errorSender(deps, options);
  void app.register(
    async (scope: App) => {
      scope.decorateRequest('consoleState', undefined);
      readFieldsAsPages(scope);
      scope.addHook('preHandler', admitToPage(deps, sendError));
      // An action's next page (after its redirect) must show it: the merchant's reads stay on the
      // primary for the replicas' lag bound (db/replicas.ts).
      scope.addHook('onSend', async (request, _reply, payload) => {
        const user = request.consoleState?.user;
        if (deps.reads && user && request.method === 'POST') deps.reads.wrote(user.merchantAccountNumber);
        return payload;
      });
      scope.setNotFoundHandler((request, reply) => sendError(request, reply, 404, 'notFound'));
      scope.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
        const given = error instanceof AppError ? error.status : error.statusCode;
        const unreachable = isDatabaseUnavailable(error);
        const status = given !== undefined && given >= 400 && given < 600 && given !== 500 ? given : unreachable ? 503 : 500;
        if (unreachable) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        if (status === 500) request.log.error({ err: error }, 'console page failed');
        return sendError(request, reply, status, status === 404 ? 'notFound' : 'other');
      });
      routes(scope);
    },
    { prefix: CONSOLE_PATH },
  );
}

/**
 * Every console route is hidden from the API's OpenAPI document, reads forms as urlencoded strings,
 * and has its schema checked only once admitToPage has run (validation errors are attached, then
 * answered there).
 */
function readFieldsAsPages(scope: App): void {
  scope.addHook('onRoute', (route) => {
    route.attachValidation = true;
    // The API's onRoute hook (http/pipeline.ts) has run first, on a schema not yet hidden: its
    // case-insensitive key normalisation and documented error responses are the API's, not a page's.
    const { response: _apiResponses, ...schema } = route.schema ?? {};
    route.schema = { ...schema, hide: true };
    route.config = { ...route.config, normalize: undefined };
  });
  // Read as the pages read fields before they had schemas: a POST without a body is an empty
  // form (its CSRF token may come as a header), and a query field given twice is absent.
  scope.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && (request.body === undefined || request.body === null)) request.body = {};
    const query = request.query as Record<string, unknown> | undefined;
    if (query) for (const [name, value] of Object.entries(query)) if (Array.isArray(value)) delete query[name];
  });
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}

/**
 * Before every page: its language and state; the session (or a pre-session for the pages before
 * sign-in), two-factor and the role's sections; the CSRF token and origin of every state-changing
 * request; then what the route's schema refused.
 */
function admitToPage(deps: Deps, sendError: SendError) {
  const names = cookieNames(deps.config.mode);
  const sandbox = deps.config.mode === 'sandbox';
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const config = request.routeOptions.config;
    const access = config.consoleAccess ?? 'user';
    if (access === 'asset') return undefined;
    const cookies = parseCookies(request.headers.cookie);
    const { lang, chosen } = languageOf(request, cookies, names.lang);
    if (chosen) reply.header('set-cookie', cookieHeader(deps, 'lang', lang, LANG_COOKIE_MAX_AGE_SECONDS));
    // A page answering a POST links its languages to the page's GET address (it says which), else home.
    const url = request.method === 'GET' ? urlWithoutLang(request) : access === 'user' ? CONSOLE_PATH : SIGN_IN_PATH;
    const state: ConsoleState = { lang, nonce: newNonce(), csrfToken: '', sandbox, url, cookies };
    request.consoleState = state;
    if (access === 'user') {
      if (await admitUser(deps, request, reply, state, sendError)) return reply;
    } else {
      let secret = parsePreSession(cookies.get(names.preSession));
      if (!secret) {
        secret = newSecret();
        reply.header('set-cookie', cookieHeader(deps, 'preSession', secret));
      }
      state.preSession = secret;
      state.csrfToken = csrfToken(deps.jwtSecret, 'pre-session', secret);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && !fromThisConsole(deps, request, state)) return sendError(request, reply, 403, 'csrf');
    // What the route's schema refused (kit/schemas.ts): a path naming nothing is not found; a
    // query or form that is not one of ours cannot be read.
    if (request.validationError) {
      const inPath = request.validationError.validationContext === 'params';
      return sendError(request, reply, inPath ? 404 : 400, inPath ? 'notFound' : 'other');
    }
    return undefined;
  };
}

/**
 * A signed-in user's page: the session, two-factor where it is required, and the role's sections.
 * True when it refused and answered. A boolean, not the reply: a Fastify reply is a thenable, so
 * an awaited reply comes back undefined once sent, and the caller went on as if admitted.
 */
async function admitUser(deps: Deps, request: FastifyRequest, reply: FastifyReply, state: ConsoleState, sendError: SendError): Promise<boolean> {
  const config = request.routeOptions.config;
  const sandbox = state.sandbox;
  const found = await lookUpSession(deps, state.cookies.get(cookieNames(deps.config.mode).session));
  if (found.kind !== 'active') {
    if (found.kind === 'ended') reply.header('set-cookie', cookieHeader(deps, 'session', '', 0));
    const next = request.method === 'GET' ? `&next=${encodeURIComponent(state.url)}` : '';
    redirect(request, reply, `${SIGN_IN_PATH}?${found.kind === 'ended' ? 'expired=1' : 'from=console'}${next}`);
    return true;
  }
  state.user = userOf(found.row);
  state.session = found.id;
  state.csrfToken = csrfToken(deps.jwtSecret, 'session', found.id.secret);
  if (!found.row.two_factor_enrolled && mustUseTwoFactor(state.user.roleCode, deps.config.consoleRequireTwoFactor) && !config.consoleBeforeTwoFactor) {
    redirect(request, reply, `${SECURITY_PATH}?required=1`);
    return true;
  }
  const refusal = config.consoleSection && isSandboxOnly(config.consoleSection) && !sandbox ? 404 : config.consoleSection && !maySee(state.user.roleCode, config.consoleSection, sandbox) ? 403 : undefined;
  if (refusal === undefined) return false;
  sendError(request, reply, refusal, refusal === 404 ? 'notFound' : 'forbidden');
  return true;
}

/** Every state-changing request carries the token of this session (or pre-session) and comes from this origin. */
function fromThisConsole(deps: Deps, request: FastifyRequest, state: ConsoleState): boolean {
  const field = formField(request.body, CSRF_FIELD);
  const header = request.headers[CSRF_HEADER];
  const given = field ? field : typeof header === 'string' ? header : undefined;
  const origin = requestOrigin(request);
  const fromHere = origin !== undefined && origin === expectedOrigin(deps, request);
  if (fromHere && sameToken(given, state.csrfToken)) return true;
  request.log.warn({ origin: request.headers.origin ?? null, fromHere, tokenSent: given !== undefined }, 'console request refused: CSRF token or origin');
  return false;
}

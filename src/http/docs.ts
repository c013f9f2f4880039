// What the API reference (/openapi.json and /docs) says beyond each route's own schema: one
// illustrative example set, the sandbox's test accounts, magic suffixes and events, the
// X-Idempotency-Key header, the error statuses an operation can answer, and the docs page's brand.
// Texts about the sandbox and the events are generated from the data that drives them, never
// copied by hand; they belong to their modules (modules/disbursements/docs.ts,
// modules/webhooks/docs.ts), which add their paragraphs to the description (docsIntro).
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { ERRORS, problem } from './errors.ts';
import { t } from './i18n.ts';
import { ProblemSchema } from './schemas.ts';
import type { AuthMode } from './types.ts';

export const PROJECT_NAME = 'OneKhusa Sandbox';
export const DOCS_TITLE = `${PROJECT_NAME} · API reference`;

/**
 * The example set every schema of the reference uses. The demo merchant's numbers are random per
 * installation: the start-up banner prints your own (and its key pair) — use those in "Try it".
 */
export const EXAMPLE = {
  merchantAccountNumber: 10010001,
  organisationId: 'FYH0NTVW0DXK',
  /** The merchant's payment account number (customers pay into it; E11's beneficiaryAccountNumber). */
  paymentAccountNumber: '9010010001000',
  actor: 'ops@example.mw',
  apiKey: 'DEMO0KEY0000000000000000000000',
  apiSecret: 'demo-secret-printed-by-the-start-up-banner-00',
  batchNumber: 1,
  /** Their account numbers are the sandbox's test accounts: modules/disbursements/docs.ts EXAMPLE_ACCOUNTS. */
  bank: { connectorId: 212188, connectorName: 'National Bank of Malawi', accountName: 'Kondwani Mwale' },
  wallet: { connectorId: 112400, connectorName: 'Airtel Money', accountName: 'Chikondi Banda' },
  /** Settlement accounts are bank accounts. */
  settlementBank: { connectorId: 221500, connectorName: 'FDH Bank', accountNumber: '1000123456', accountName: 'Demo Shop Ltd' },
  callbackUrl: 'https://shop.example.mw/hooks/onekhusa',
} as const;

/** Said once in the document's description and pointed to from operation descriptions. */
export const EXAMPLES_NOTE =
  `Examples use an illustrative merchant (merchantAccountNumber ${EXAMPLE.merchantAccountNumber}, organisationId ${EXAMPLE.organisationId}, ` +
  `payment account ${EXAMPLE.paymentAccountNumber}). Your server's demo merchant has its own random numbers and key pair: the start-up ` +
  'banner prints them (and `npm run cli -- keys create --merchant N` issues a new pair). Replace the example numbers with yours.';

/** The header every idempotent operation declares (product.md §4); added by the pipeline's onRoute. */
export const IDEMPOTENCY_KEY_HEADER = {
  type: 'string',
  description:
    'Optional in the sandbox, required in production mode (IDEMPOTENCY_REQUIRED: a write without a valid key answers 400 E900); ' +
    'when sent, it is enforced. 15–80 characters of [A-Za-z0-9-], case-sensitive, scoped to your merchant account and ' +
    'kept 24 hours (IDEMPOTENCY_RETENTION_HOURS). Retrying with the same key and the same request (method, path, body) replays the ' +
    'first answer byte for byte with `Idempotent-Replayed: true`, and nothing happens twice; the same key with a different request ' +
    'answers 409 E907. A retry sent while the first request is still running waits for its commit and gets its answer (409 E907 ' +
    'with Retry-After if that takes over 5 s). Use a new key, e.g. `order-1001-payout-01`, for every new operation.',
} as const;

/** The response headers of a success, for the docs. */
export function successResponseHeaders(auth: AuthMode, idempotent: boolean): Record<string, { type: string; description: string }> {
  return {
    'x-request-id': { type: 'string', description: "The request's id (problem bodies carry it as requestId): quote it when asking about a request." },
    ...(auth === 'merchant'
      ? {
          'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed per second for the merchant account (when rate limiting is on).' },
          'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the current second.' },
          'x-ratelimit-reset': { type: 'integer', description: 'When the window resets (unix seconds).' },
        }
      : {}),
    ...(idempotent ? { 'idempotent-replayed': { type: 'string', description: '"true" when this answer replays the first request sent with the same X-Idempotency-Key.' } } : {}),
  };
}

/** Facts about a route that decide which errors it can answer. */
export interface RouteTraits {
  method: string;
  auth: AuthMode;
  idempotent: boolean;
  /** Takes a JSON body (so 413 and 415 apply). */
  body: boolean;
  /** Under /sandbox/v1 or /live/v1. */
  merchantApi: boolean;
  /** The route's path, for the examples' `instance`. */
  url: string;
}

/** One status an operation can answer, with its code and when. */
export interface ErrorStatus {
  status: number;
  kind: keyof typeof ERRORS;
  /** `- 400 E900: when`, as the description lists it. */
  line: string;
}

const entry = (kind: keyof typeof ERRORS, when: string, code: string = ERRORS[kind].errorCode): ErrorStatus => ({ status: ERRORS[kind].status, kind, line: `- ${ERRORS[kind].status} ${code}: ${when}` });

/** The error statuses a route can answer, client errors first (http/openapi.ts lists them one by one). */
export function errorStatuses(route: RouteTraits): ErrorStatus[] {
  const writes = route.method !== 'GET' && route.method !== 'HEAD';
  return [
    entry('validation', 'validation failed (bad JSON, wrong type, out of range, missing field); `errors` has one message per field'),
    route.body && entry('unsupportedMediaType', 'the body is not application/json'),
    route.auth === 'merchant' && entry('unauthorized', 'missing, malformed, expired or revoked access token'),
    route.auth === 'admin' && entry('unauthorized', 'missing or wrong operator token (ADMIN_TOKEN)'),
    route.auth === 'merchant' && writes && entry('invalidState', 'a business rule refused the request (limit, balance, state…), each rule with its own code', 'E910–E949'),
    route.auth === 'merchant' && writes && entry('fourEyes', 'not allowed (e.g. the same user capturing and approving)'),
    route.auth === 'merchant'
      ? entry('notFound', "not found, or another merchant's: a token only sees its own merchant account")
      : route.auth === 'admin'
        ? entry('notFound', 'not found; every operator route answers 404 when the server runs without ADMIN_TOKEN')
        : entry('notFound', 'not found'),
    route.idempotent && entry('idempotencyMismatch', 'X-Idempotency-Key reused with a different request, or the first one is still running (Retry-After)'),
    route.body && entry('tooLarge', 'the body is larger than the configured maximum'),
    (route.auth === 'merchant' || route.merchantApi) && entry('rateLimited', 'rate limit exceeded; see X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset and Retry-After'),
    entry('internal', 'unexpected; the detail never leaks internals, quote the requestId'),
    entry('unavailable', 'shutting down, overloaded or the database is unreachable (Retry-After): retry later, with the same X-Idempotency-Key'),
  ].filter((x): x is ErrorStatus => typeof x === 'object');
}

export const PROBLEM_INTRO = 'Problem details (RFC 9457, application/problem+json) with errorCode, detail, errors and requestId.';
const EXAMPLE_REQUEST_ID = '9f1c3b2a-5d4e-4c7b-8a21-0e6f5d3c2b1a';

/** An example problem body of `kind` at `url`. */
export function exampleProblem(kind: keyof typeof ERRORS, url: string): object {
  const detail = kind === 'validation' ? t('en', 'detail.validation') : t('en', ERRORS[kind].title);
  return problem(kind, 'en', detail, [kind === 'validation' ? t('en', 'field.merchantAccountNumber') : detail], url, EXAMPLE_REQUEST_ID);
}

/** The 4xx and 5xx responses of a route at run time (they serialise problem bodies), described with the statuses it can answer. */
export function errorResponses(route: RouteTraits): { '4xx': unknown; '5xx': unknown } {
  const statuses = errorStatuses(route);
  const response = (description: string, example: object) => {
    const { $id: _id, ...schema } = ProblemSchema;
    return { description, content: { 'application/problem+json': { schema: { ...schema, examples: [example] } } } };
  };
  const lines = (server: boolean) => statuses.filter((s) => s.status >= 500 === server).map((s) => s.line);
  return {
    '4xx': response(`${PROBLEM_INTRO} This operation can answer:\n\n${lines(false).join('\n')}`, exampleProblem('validation', route.url)),
    '5xx': response(`${PROBLEM_INTRO}\n\n${lines(true).join('\n')}`, exampleProblem('unavailable', route.url)),
  };
}

/** Every tag an operation uses, declared once with what it groups (the order /docs shows them in). */
export const TAGS = [
  { name: 'Authentication', description: 'Access tokens for a key pair (valid 5 minutes).' },
  { name: 'API keys', description: "The merchant's key pairs." },
  { name: 'Merchants', description: 'The merchant account, its balances and status history.' },
  { name: 'Connectors', description: 'Banks and wallets payouts go to and collections come from.' },
  { name: 'Limits', description: 'Transaction limits per transaction type.' },
  { name: 'Collections', description: 'Requests to pay with timed accounts, customer payments, reversals.' },
  { name: 'Disbursements', description: 'Batch and single payouts, their approval and their results.' },
  { name: 'Settlement accounts', description: "The merchant's bank accounts for settlement." },
  { name: 'Webhooks', description: 'Subscriptions to events and their delivery log.' },
  { name: 'Analytics', description: 'Daily counts and sums per connector, and disbursement metrics.' },
  { name: 'Merchant users', description: 'People who sign in to the merchant console.' },
  { name: 'Operator', description: 'The operator API under /admin/v1 (ADMIN_TOKEN): merchants, fundings, rails, reconciliation.' },
  { name: 'Operations', description: 'Health checks for load balancers and orchestrators.' },
] as const;

// ---------------------------------------------------------------------------------------------
// The docs page (/docs): this project's name in the top bar and the title, no framework logo, and
// nothing the page's Content-Security-Policy refuses (the stock top-bar logo is an SVG with an
// inline <style>, which style-src 'self' blocks, so the Logo component itself is replaced).

/**
 * A Swagger UI plugin, serialised into swagger-initializer.js by @fastify/swagger-ui (functions
 * are written out with toString). Built with `new Function` so that the text is exactly this,
 * whatever the TypeScript loader does to ordinary functions. It keeps the DownloadUrl plugin
 * that the default configuration would have had.
 */
const brandPlugin = new Function(
  'system',
  `var h = system.React.createElement;
  function Brand() {
    return h('span', { className: 'okx-brand' },
      h('span', { className: 'okx-brand-mark', 'aria-hidden': 'true' }, 'OK'),
      h('span', { className: 'okx-brand-name' }, ${JSON.stringify(PROJECT_NAME)}),
      h('span', { className: 'okx-brand-tag' }, 'API reference'));
  }
  // Tags start closed but the first: drawing every operation at once held the page back (issue 30).
  function afterLoad(system) { system.layoutActions.show(['operations-tag', ${JSON.stringify(TAGS[0].name)}], true); }
  return [SwaggerUIBundle.plugins.DownloadUrl, { components: { Logo: Brand }, afterLoad: afterLoad }];`,
);

const THEME_CSS = `
.swagger-ui .topbar { background-color: #0f3b2e; padding: 8px 0; }
.swagger-ui .topbar .topbar-wrapper { flex-wrap: wrap; gap: 8px; }
.swagger-ui .topbar a.link { flex: 0 1 auto; max-width: none; text-decoration: none; }
.okx-brand { display: inline-flex; align-items: center; gap: 10px; color: #fff; font-family: sans-serif; white-space: nowrap; }
.okx-brand-mark { display: inline-flex; align-items: center; justify-content: center; width: 34px; height: 34px; border-radius: 8px; background: #f2b705; color: #0f3b2e; font-weight: 800; font-size: 15px; letter-spacing: -0.5px; }
.okx-brand-name { font-size: 20px; font-weight: 700; }
.okx-brand-tag { font-size: 14px; opacity: 0.8; }
/* Tables in descriptions (the sandbox's magic suffixes) scroll inside their box on a phone. */
.swagger-ui .markdown table, .swagger-ui .renderedMarkdown table { display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; }
.swagger-ui .markdown th, .swagger-ui .markdown td, .swagger-ui .renderedMarkdown th, .swagger-ui .renderedMarkdown td { padding: 2px 8px; text-align: left; border-bottom: 1px solid #e3e3e3; }
@media (max-width: 600px) {
  .swagger-ui .topbar .topbar-wrapper { flex-direction: row; flex-wrap: nowrap; align-items: center; justify-content: space-between; }
  .okx-brand-name { font-size: 18px; }
  .okx-brand-tag { display: none; }
  .swagger-ui .topbar .download-url-wrapper { display: none; }
  /* "No links" in every response row: the column only makes tables wider than a phone. */
  .swagger-ui .response-col_links { display: none; }
  .swagger-ui .responses-inner { padding: 10px 8px; }
  .swagger-ui .headers-wrapper table td, .swagger-ui .response-col_description { word-break: break-word; }
  .swagger-ui .info .title { font-size: 26px; }
}
`;

// The page @fastify/swagger-ui serves has no viewport meta tag, so phones lay it out 980 px wide
// and zoom out; this script (a file from 'self', as the CSP wants) adds one.
const VIEWPORT_JS = `(function () {
  if (document.querySelector('meta[name="viewport"]')) return;
  var meta = document.createElement('meta');
  meta.name = 'viewport';
  meta.content = 'width=device-width, initial-scale=1';
  document.head.appendChild(meta);
})();
`;

const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f3b2e"/><rect x="5" y="5" width="22" height="22" rx="5" fill="#f2b705"/><path d="M11 9h3v6l5-6h4l-6 7 6 7h-4l-5-6v6h-3z" fill="#0f3b2e"/></svg>`;

/**
 * The page's Link header: the browser fetches the document while it parses the reference's 1.7 MB
 * script, instead of when Swagger UI asks for it once the page has loaded.
 */
export const DOCS_PRELOAD_LINK = '</docs/json>; rel=preload; as=fetch; crossorigin=anonymous';

/** @fastify/swagger-ui options that brand the page (see app.ts for the rest). */
export const DOCS_UI_OPTIONS = {
  // No image logo: the top bar's Logo component is ours (brandPlugin), so no data: image either.
  logo: null as unknown as undefined,
  uiConfig: {
    deepLinking: true,
    // The schemas and webhooks sections are not rendered until opened: drawing every model first
    // held back the operations on a small machine.
    defaultModelsExpandDepth: -1,
    docExpansion: 'none',
    // "Try it" shows the time each call took, and operations can be filtered by tag.
    displayRequestDuration: true,
    filter: true,
    plugins: [brandPlugin] as never,
  },
  theme: {
    title: DOCS_TITLE,
    css: [{ filename: 'onekhusa.css', content: THEME_CSS }],
    js: [{ filename: 'viewport.js', content: VIEWPORT_JS }],
    favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON_SVG }],
  },
} satisfies Partial<FastifySwaggerUiOptions>;

/**
 * The document's description: what this is and the first calls, for "Try it", then the paragraphs
 * modules add (the sandbox's test accounts: modules/disbursements/docs.ts), in module order.
 */
export function docsIntro(moduleParagraphs: readonly string[]): string {
  return [
    `${PROJECT_NAME}: a self-hostable implementation of the OneKhusa merchant gateway API. Merchant operations live under /sandbox/v1 ` +
      '(and /live/v1 in production mode); operator operations under /admin/v1 (with ADMIN_TOKEN). Request property names match ' +
      'case-insensitively; amounts are MWK with at most 2 decimals.',
    '',
    '**Try it.** 1. POST /sandbox/v1/account/getAccessToken with your key pair. 2. Press *Authorize* and paste the accessToken ' +
      '(valid 5 minutes). 3. Call any operation: its body is prefilled with a working example.',
    '',
    `**Examples.** ${EXAMPLES_NOTE}`,
    ...moduleParagraphs.flatMap((paragraph) => ['', paragraph]),
    '',
    '**The document** for generators is /openapi.json (OpenAPI 3.1, with a webhooks section describing every event\'s payload); this ' +
      'page draws its 3.0 rendering, which is faster to display. A typed TypeScript client generated from it: packages/sdk.',
    '',
    '**Idempotency.** Operations that move money or change a batch take an optional X-Idempotency-Key header: a retry with the same ' +
      'key replays the first answer. **Errors** are RFC 9457 application/problem+json with an errorCode; each operation lists the ' +
      'statuses it can answer.',
  ].join('\n');
}

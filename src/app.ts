// buildApp(deps): the whole HTTP API as one Fastify instance, its routes and their services from
// the modules (src/composition.ts). server.ts only listens and closes.
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import compress from '@fastify/compress';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { registerPipeline, requestIdFrom } from './http/pipeline.ts';
import { registerCors } from './http/cors.ts';
import { DOCS_PRELOAD_LINK, DOCS_UI_OPTIONS } from './http/docs.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import type { App, Deps, RouteContext } from './http/types.ts';
import { AJV_OPTIONS, ajvPlugins } from './http/validation.ts';
import { registerJsonParser } from './http/json-body.ts';
import { limitConnections } from './http/connections.ts';
import { apiServices, DOCS_INTRO, DOCS_WEBHOOKS, merchantApi, ROOT_ROUTES } from './composition.ts';
import type { KeyStatusCache } from './modules/auth/key-status.ts';
import { registerFspiopRoutes } from './rails/mojaloop/routes.ts';
import { documentRoute, finishDocument } from './http/openapi.ts';
import { asOpenApi30 } from './http/docs-view.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Aborted when shutdown begins (beginShutdown): answers that stay open (the console's live
     * batch pages, server-sent events) end then, rather than hold the drain for its whole grace.
     */
    shutdownSignal: AbortSignal;
  }
}

export interface BuiltApp {
  app: App;
  metrics: Metrics;
  keyStatus: KeyStatusCache;
  /** Starts refusing new requests (503) while in-flight ones finish. */
  beginShutdown(): void;
  /** Resolves once no request is in flight, or after `timeoutMs`; false on timeout. */
  drain(timeoutMs: number): Promise<boolean>;
}

export async function buildApp(deps: Deps): Promise<BuiltApp> {
  let shuttingDown = false;
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id'], randomUUID),
    requestIdHeader: false,
    // One line a request, written by the pipeline when the answer is out (http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    // ASP.NET routes match case-insensitively; clients write /core/connectors/GetAll and /core/Connectors/GetSummary.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 200 },
    // Limits on everything: slow clients and hung handlers are cut off.
    connectionTimeout: 60_000,
    requestTimeout: 60_000,
    keepAliveTimeout: 72_000,
    // A request's headers must arrive within HEADERS_TIMEOUT_MS (a silent connection gets as long
    // to start one: http/connections.ts). Node checks every connectionsCheckingInterval: at its
    // default, 30 s, a 10 s timeout let headers take up to 40.
    http: { headersTimeout: deps.config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, Math.floor(deps.config.headersTimeoutMs / 2)) },
    return503OnClosing: true,
    ajv: { customOptions: AJV_OPTIONS, plugins: [ajvPlugins as never] },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  const shutdown = new AbortController();
  app.decorate('shutdownSignal', shutdown.signal);

  const requests = countRequests(app);

  // JSON only: a text/plain body is refused with 415 rather than validated as a string.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);

  const metrics = createMetrics(deps.db);
  limitConnections(app.server, deps.config, metrics.registry);
  // The modules' per-process services (src/composition.ts): every route's context, and the token
  // verifier and key-status cache the pipeline checks merchant requests with.
  const { context: ctx, tokens, keyStatus } = apiServices(deps, metrics);

  await registerOpenApi(app);
  // Before the pipeline: a browser's preflight is answered without authentication or rate limit.
  registerCors(app, { allowedOrigins: deps.config.corsAllowedOrigins, prefixes: apiPrefixes(deps.config.mode) });
  registerPipeline(app, { deps, tokens, keyStatus, rateLimiter: createRateLimiter(deps.config.rateLimitStore, deps.db, deps.config.rateLimitPerSecond), metrics, isShuttingDown: () => shuttingDown });
  await registerReference(app);
  await registerRoutes(app, deps, ctx);
  // A person opening the server's address lands on the API reference.
  app.get('/', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/docs', 302));
  app.get('/metrics', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  return {
    app,
    metrics,
    keyStatus,
    beginShutdown: () => {
      shuttingDown = true;
      shutdown.abort();
    },
    drain: requests.drain,
  };
}

/**
 * In-flight requests, for a graceful shutdown: counted from the first hook to the socket's
 * response 'close', which fires whether the response completed or the client went away.
 */
function countRequests(app: App): Pick<BuiltApp, 'drain'> {
  let inFlight = 0;
  app.addHook('onRequest', async (_request, reply) => {
    inFlight += 1;
    reply.raw.once('close', () => {
      inFlight -= 1;
    });
  });
  return {
    drain: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (inFlight > 0) {
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    },
  };
}

/**
 * Where the operations' paths (which carry /sandbox/v1, /live/v1 or /admin/v1) are served: this
 * server, and the gateway whose API this mirrors (only the base URL differs: product.md).
 */
const DOCUMENT_SERVERS = [
  { url: '/', description: 'This server (sandbox: /sandbox/v1; production mode: /live/v1 too)' },
  { url: 'https://api.onekhusa.com', description: 'The OneKhusa gateway (sandbox /sandbox/v1, live /live/v1)' },
];

/** The OpenAPI document: registered before the pipeline, whose onRoute hook completes each operation it lists. */
async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'OneKhusa-compatible merchant payments API',
        version: '1.0.0',
        description: DOCS_INTRO,
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /sandbox/v1/account/getAccessToken.' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN).' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // The document's own shape (http/openapi.ts): statuses one by one, operation ids, tags, servers.
    transform: documentRoute as never,
    transformObject: finishDocument({ servers: DOCUMENT_SERVERS, ...DOCS_WEBHOOKS }) as never,
  });
}

/**
 * The API reference at /docs and the document at /openapi.json, compressed (br or gzip, as the
 * browser accepts): the document is over half a megabyte of JSON and the reference's script 1.7
 * MB, which uncompressed kept /docs blank for seconds. Only in this scope: API answers, streamed
 * exports and event streams are sent as they are. Brotli at quality 5, not the default 11: about
 * as small for these files at a fraction of the CPU, per request. The document is serialised once:
 * the routes do not change after start.
 */
async function registerReference(app: App): Promise<void> {
  let docsView: object | undefined;
  await app.register(async (scope) => {
    await scope.register(compress, { global: true, encodings: ['br', 'gzip'], brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } } });
    scope.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'GET' && /^\/docs\/?(?:\?|$)/.test(request.url)) reply.header('link', DOCS_PRELOAD_LINK);
      return payload;
    });
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      // This project's name, title and icon; no framework logo (http/docs.ts).
      ...DOCS_UI_OPTIONS,
      staticCSP: true,
      // Served over plain http on localhost: do not tell browsers to upgrade asset requests to https.
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
      // The page draws from the document's 3.0 view (http/docs-view.ts), made once: the routes do not change.
      transformSpecificationClone: false,
      transformSpecification: (spec: object) => (docsView ??= asOpenApi30(spec)) as never,
    });
    let document: string | undefined;
    scope.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) => {
      document ??= JSON.stringify(app.swagger());
      return reply.type('application/json; charset=utf-8').send(document);
    });
  });
}

/** Where the merchant API is served: production mode also has /live/v1. */
function apiPrefixes(mode: Deps['config']['mode']): string[] {
  return mode === 'production' ? ['/sandbox/v1', '/live/v1'] : ['/sandbox/v1'];
}

/** The merchant API under its prefixes, the root routes and, without mutual TLS, the switch's side. */
async function registerRoutes(app: App, deps: Deps, ctx: RouteContext): Promise<void> {
  const routes = merchantApi(deps.config.mode);
  for (const prefix of apiPrefixes(deps.config.mode)) {
    await app.register(
      async (scope) => {
        for (const route of routes) route(scope as App, ctx);
      },
      { prefix },
    );
  }
  for (const route of ROOT_ROUTES) route(app, ctx);
  // The switch's side (src/rails/mojaloop/): on the main port only without mutual TLS (sandbox
  // mode: config.ts refuses production without it); with it, on a listener of its own (listener.ts).
  if (deps.config.mojaloop && !deps.config.mojaloop.tls) await app.register((scope) => registerFspiopRoutes(scope as never, deps), { prefix: '/fspiop' });
}

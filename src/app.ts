// buildApp(deps): the whole HTTP API as one Fastify instance. server.ts only listens and closes.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { KeyStatusCache } from './modules/auth/key-status.ts';
import { TtlCache } from './lib/ttl-cache.ts';
import { listLimits } from './modules/limits/repository.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { registerPipeline, requestIdFrom } from './http/pipeline.ts';
import { DOCS_INTRO, DOCS_UI_OPTIONS } from './http/docs.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import type { App, Deps, RouteContext, RouteModule } from './http/types.ts';
import { AJV_OPTIONS, ajvPlugins } from './http/validation.ts';
import { registerJsonParser } from './http/json-body.ts';
import { limitConnections } from './http/connections.ts';
import getAccessToken from './modules/auth/routes/get-access-token.ts';
import generateKey from './modules/api-keys/routes/generate.ts';
import getAllKeys from './modules/api-keys/routes/get-all.ts';
import addKey from './modules/api-keys/routes/add.ts';
import getKey from './modules/api-keys/routes/get.ts';
import activateKey from './modules/api-keys/routes/activate.ts';
import deactivateKey from './modules/api-keys/routes/deactivate.ts';
import deleteKey from './modules/api-keys/routes/delete.ts';
import getAccount from './modules/merchants/routes/get-account.ts';
import topup from './modules/merchants/routes/topup.ts';
import merchantGetAll from './modules/merchants/routes/get-all.ts';
import merchantStatusChanges from './modules/merchants/routes/get-status-changes.ts';
import connectorSummary from './modules/connectors/routes/get-summary.ts';
import connectorsAll from './modules/connectors/routes/get-all.ts';
import connectorGet from './modules/connectors/routes/get.ts';
import limitsAll from './modules/limits/routes/get-all.ts';
import webhookAdd from './modules/webhooks/routes/add.ts';
import webhookGetAll from './modules/webhooks/routes/get-all.ts';
import webhookGet from './modules/webhooks/routes/get.ts';
import webhookUpdate from './modules/webhooks/routes/update.ts';
import webhookDelete from './modules/webhooks/routes/delete.ts';
import webhookVerify from './modules/webhooks/routes/verify.ts';
import webhookDeliveries from './modules/webhooks/routes/deliveries.ts';
import webhookRedeliver from './modules/webhooks/routes/redeliver.ts';
import webhookTest from './modules/webhooks/routes/test.ts';
import webhookListenerCreate from './modules/webhooks/routes/listeners-create.ts';
import webhookListenerRenew from './modules/webhooks/routes/listeners-renew.ts';
import webhookListenerDelete from './modules/webhooks/routes/listeners-delete.ts';
import rtpInitiate from './modules/collections/routes/initiate.ts';
import rtpAddFakeTransaction from './modules/collections/routes/add-fake-transaction.ts';
import addFakeCustomPayment from './modules/collections/routes/add-fake-custom-payment.ts';
import collectionGet from './modules/collections/routes/get-transaction.ts';
import collectionList from './modules/collections/routes/get-transactions.ts';
import collectionReverse from './modules/collections/routes/reverse.ts';
import { createRequestBatcher } from './modules/collections/service.ts';
import checkoutInitiate from './modules/checkout/routes/initiate.ts';
import checkoutPage from './modules/checkout/routes/page.ts';
import batchAddJson from './modules/disbursements/routes/add-json.ts';
import batchGetBatches from './modules/disbursements/routes/get-batches.ts';
import batchGetTransactions from './modules/disbursements/routes/get-transactions.ts';
import batchGet from './modules/disbursements/routes/get-batch.ts';
import batchGetTransaction from './modules/disbursements/routes/get-transaction.ts';
import batchReview from './modules/disbursements/routes/review.ts';
import batchApprove from './modules/disbursements/routes/approve.ts';
import batchReject from './modules/disbursements/routes/reject.ts';
import batchCancel from './modules/disbursements/routes/cancel.ts';
import batchTransferFunds from './modules/disbursements/routes/transfer-funds.ts';
import singleAdd from './modules/disbursements/routes/single-add.ts';
import singleGetTransaction from './modules/disbursements/routes/single-get-transaction.ts';
import singleGetTransactions from './modules/disbursements/routes/single-get-transactions.ts';
import batchAddFile from './modules/disbursements/routes/add-file.ts';
import batchDownloadErrors from './modules/disbursements/routes/download-errors.ts';
import batchDownload from './modules/disbursements/routes/batch-download.ts';
import singleReview from './modules/disbursements/routes/single-review.ts';
import singleApprove from './modules/disbursements/routes/single-approve.ts';
import singleReject from './modules/disbursements/routes/single-reject.ts';
import settlementAdd from './modules/settlement/routes/add.ts';
import settlementGetAll from './modules/settlement/routes/get-all.ts';
import settlementGet from './modules/settlement/routes/get.ts';
import settlementActivate from './modules/settlement/routes/activate.ts';
import settlementDeactivate from './modules/settlement/routes/deactivate.ts';
import settlementUpdate from './modules/settlement/routes/update.ts';
import settlementDelete from './modules/settlement/routes/delete.ts';
import analyticsCount from './modules/analytics/routes/count-metrics.ts';
import analyticsSum from './modules/analytics/routes/sum-metrics.ts';
import analyticsDisbursements from './modules/analytics/routes/disbursement-metrics.ts';
import userAdd from './modules/users/routes/add.ts';
import userGetAll from './modules/users/routes/get-all.ts';
import userGet from './modules/users/routes/get.ts';
import userUpdate from './modules/users/routes/update.ts';
import userActivate from './modules/users/routes/activate.ts';
import userClose from './modules/users/routes/close.ts';
import userReinvite from './modules/users/routes/reinvite.ts';
import userClaims from './modules/users/routes/get-merchant-claims.ts';
import setPasswordPage from './modules/users/routes/set-password.ts';
import listEmails from './modules/admin/routes/list-emails.ts';
import createMerchant from './modules/admin/routes/create-merchant.ts';
import listMerchants from './modules/admin/routes/list-merchants.ts';
import fundMerchant from './modules/admin/routes/fund-merchant.ts';
import listFundings from './modules/admin/routes/list-fundings.ts';
import adminMerchantAdd from './modules/admin/routes/merchant-accounts-add.ts';
import adminMerchantUpdate from './modules/admin/routes/merchant-accounts-update.ts';
import adminMerchantActivate from './modules/admin/routes/merchant-accounts-activate.ts';
import adminMerchantSuspend from './modules/admin/routes/merchant-accounts-suspend.ts';
import adminMerchantBlacklist from './modules/admin/routes/merchant-accounts-blacklist.ts';
import adminMerchantStatusChanges from './modules/admin/routes/merchant-accounts-status-changes.ts';
import adminMerchantGetAll from './modules/admin/routes/merchant-accounts-get-all.ts';
import adminCreateKey from './modules/admin/routes/create-key.ts';
import health from './modules/health/routes/health.ts';

/** The merchant API, served under /sandbox/v1 (and /live/v1 in production mode). */
const MERCHANT_API: RouteModule[] = [
  getAccessToken,
  generateKey,
  getAllKeys,
  addKey,
  getKey,
  activateKey,
  deactivateKey,
  deleteKey,
  getAccount,
  topup,
  merchantGetAll,
  merchantStatusChanges,
  connectorSummary,
  connectorsAll,
  connectorGet,
  limitsAll,
  webhookAdd,
  webhookGetAll,
  webhookGet,
  webhookUpdate,
  webhookDelete,
  webhookVerify,
  webhookDeliveries,
  webhookRedeliver,
  webhookTest,
  webhookListenerCreate,
  webhookListenerRenew,
  webhookListenerDelete,
  rtpInitiate,
  rtpAddFakeTransaction,
  addFakeCustomPayment,
  collectionGet,
  collectionList,
  collectionReverse,
  checkoutInitiate,
  batchAddJson,
  batchGetBatches,
  batchGetTransactions,
  batchGet,
  batchGetTransaction,
  batchReview,
  batchApprove,
  batchReject,
  batchCancel,
  batchTransferFunds,
  singleAdd,
  singleGetTransaction,
  singleGetTransactions,
  singleReview,
  singleApprove,
  singleReject,
  batchDownload,
  settlementAdd,
  settlementGetAll,
  settlementGet,
  settlementActivate,
  settlementDeactivate,
  settlementUpdate,
  settlementDelete,
  analyticsCount,
  analyticsSum,
  analyticsDisbursements,
  userAdd,
  userGetAll,
  userGet,
  userUpdate,
  userActivate,
  userClose,
  userReinvite,
  userClaims,
  batchAddFile,
  batchDownloadErrors,
];

/**
 * Operations that make money up or simulate the outside world (product.md §15). A deployment in
 * production mode does not have them at all, under either prefix (the two share one ledger): they
 * answer 404 E903 like any unknown operation and are absent from the OpenAPI document. Operators
 * fund merchants through POST /admin/v1/merchants/{n}/fundings instead.
 */
export const SANDBOX_ONLY: ReadonlySet<RouteModule> = new Set([topup, rtpAddFakeTransaction, addFakeCustomPayment, collectionReverse]);

/** Operator and operations routes, and the pages people open from links (checkout, set password), at the root. */
const ROOT_ROUTES: RouteModule[] = [createMerchant, listMerchants, fundMerchant, listFundings, listEmails, health, checkoutPage, setPasswordPage];
// The documented merchant-account administration (issue 14), the operator's: status changes,
// creation and level changes are not a merchant token's to make (docs/integrators-guide.md, Connectors and merchant accounts).
ROOT_ROUTES.push(adminMerchantAdd, adminMerchantUpdate, adminMerchantActivate, adminMerchantSuspend, adminMerchantBlacklist, adminMerchantStatusChanges, adminMerchantGetAll);
// A new key pair for a merchant (`npm run cli -- keys create`): lost credentials are one command away.
ROOT_ROUTES.push(adminCreateKey);

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

  // In-flight requests, for a graceful shutdown: counted from the first hook to the socket's
  // response 'close', which fires whether the response completed or the client went away.
  let inFlight = 0;
  app.addHook('onRequest', async (_request, reply) => {
    inFlight += 1;
    reply.raw.once('close', () => {
      inFlight -= 1;
    });
  });

  // JSON only: a text/plain body is refused with 415 rather than validated as a string.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);

  const keyStatus = new KeyStatusCache(deps.db, deps.clock, deps.config.keyStatusCacheMs);
  const metrics = createMetrics(deps.db);
  limitConnections(app.server, deps.config, metrics.registry);
  const limits = new TtlCache(deps.clock, deps.config.readCacheMs, (merchant: number) => listLimits(deps.db, merchant));
  const ctx: RouteContext = { deps, keyStatus, limits, requestBatcher: createRequestBatcher(deps, (rows) => metrics.observeBatch('insert_payment_requests', rows)) };

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
  });
  registerPipeline(app, { deps, keyStatus, rateLimiter: createRateLimiter(deps.config.rateLimitStore, deps.db, deps.config.rateLimitPerSecond), metrics, isShuttingDown: () => shuttingDown });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // This project's name, title and icon; no framework logo (http/docs.ts).
    ...DOCS_UI_OPTIONS,
    staticCSP: true,
    // Served over plain http on localhost: do not tell browsers to upgrade asset requests to https.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });

  const production = deps.config.mode === 'production';
  const prefixes = production ? ['/sandbox/v1', '/live/v1'] : ['/sandbox/v1'];
  const merchantApi = production ? MERCHANT_API.filter((route) => !SANDBOX_ONLY.has(route)) : MERCHANT_API;
  for (const prefix of prefixes) {
    await app.register(
      async (scope) => {
        for (const route of merchantApi) route(scope as App, ctx);
      },
      { prefix },
    );
  }
  for (const route of ROOT_ROUTES) route(app, ctx);

  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
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
    },
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

// The composition root: the list of modules, and what the API process (src/app.ts) and the
// worker (src/worker.ts, src/server.ts) are assembled from. Each module presents itself from its
// index.ts (src/module.ts says what it may present); the shared layers (http/, db/, lib/, jobs/)
// know none of them, and receive what they need from here.
import type { TaskList } from 'graphile-worker';
import { docsIntro } from './http/docs.ts';
import { deleteExpiredKeys } from './http/idempotency.ts';
import type { Metrics } from './http/metrics.ts';
import type { TokenVerifier } from './http/pipeline.ts';
import { deleteOldRateWindows } from './http/rate-limit.ts';
import type { Deps, RouteContext, RouteModule } from './http/types.ts';
import type { BackgroundService, WorkerPlan } from './jobs/queue.ts';
import type { ModuleDefinition } from './module.ts';
import { adminModule } from './modules/admin/index.ts';
import { analyticsModule } from './modules/analytics/index.ts';
import { apiKeysModule } from './modules/api-keys/index.ts';
import { authModule, createAuthServices } from './modules/auth/index.ts';
import type { KeyStatusCache } from './modules/auth/key-status.ts';
import { checkoutModule } from './modules/checkout/index.ts';
import { collectionsModule, createRequestBatcher } from './modules/collections/index.ts';
import { connectorsModule } from './modules/connectors/index.ts';
import { consoleModule } from './modules/console/index.ts';
import { disbursementsModule } from './modules/disbursements/index.ts';
import { emailModule } from './modules/email/index.ts';
import { feesModule } from './modules/fees/index.ts';
import { healthModule } from './modules/health/index.ts';
import { ledgerModule } from './modules/ledger/index.ts';
import { createLimitsCache, limitsModule } from './modules/limits/index.ts';
import { merchantsModule } from './modules/merchants/index.ts';
import { settlementModule } from './modules/settlement/index.ts';
import { usersModule } from './modules/users/index.ts';
import { webhooksModule } from './modules/webhooks/index.ts';
import { railsWorkerPart } from './rails/module.ts';
import { WEBHOOK_SCHEMAS, webhookDocument } from './modules/webhooks/event-schemas.ts';

/**
 * Every module, in the order their routes are registered (and listed in the OpenAPI document):
 * the merchant API first by module, then the root routes by module.
 */
export const MODULES: readonly ModuleDefinition[] = [
  authModule,
  apiKeysModule,
  merchantsModule,
  connectorsModule,
  limitsModule,
  webhooksModule,
  collectionsModule,
  checkoutModule,
  disbursementsModule,
  settlementModule,
  analyticsModule,
  usersModule,
  adminModule,
  healthModule,
  emailModule,
  feesModule,
  ledgerModule,
  consoleModule,
];

// ---------------------------------------------------------------------------------------------
// The API process

/** The merchant API, served under /sandbox/v1 (and /live/v1 in production mode). */
export const MERCHANT_API: readonly RouteModule[] = MODULES.flatMap((m) => m.routes ?? []);

/**
 * Operations that make money up or simulate the outside world (product.md §15). A deployment in
 * production mode does not have them at all, under either prefix (the two share one ledger): they
 * answer 404 E903 like any unknown operation and are absent from the OpenAPI document. Operators
 * fund merchants through POST /admin/v1/merchants/{n}/fundings instead.
 */
export const SANDBOX_ONLY: ReadonlySet<RouteModule> = new Set(MODULES.flatMap((m) => m.sandboxOnlyRoutes ?? []));

/** The merchant API of a deployment in this mode. */
export function merchantApi(mode: Deps['config']['mode']): readonly RouteModule[] {
  return mode === 'production' ? MERCHANT_API.filter((route) => !SANDBOX_ONLY.has(route)) : MERCHANT_API;
}

/** Operator and operations routes, and the pages people open from links (checkout, set password), at the root. */
export const ROOT_ROUTES: readonly RouteModule[] = MODULES.flatMap((m) => m.rootRoutes ?? []);

/** The OpenAPI document's description, with the modules' paragraphs. */
export const DOCS_INTRO = docsIntro(MODULES.flatMap((m) => m.docsIntro ?? []));

/** The document's webhooks section and the payload schemas it names (http/openapi.ts finishDocument). */
export const DOCS_WEBHOOKS = { webhooks: webhookDocument(), schemas: WEBHOOK_SCHEMAS };

/** The per-process services of one API instance: every route's context, and what the pipeline asks of a token. */
export interface ApiServices {
  context: RouteContext;
  tokens: TokenVerifier;
  keyStatus: KeyStatusCache;
}

export function apiServices(deps: Deps, metrics: Metrics): ApiServices {
  const { tokens, keyStatus } = createAuthServices(deps);
  const context: RouteContext = {
    deps,
    keyStatus,
    limits: createLimitsCache(deps),
    requestBatcher: createRequestBatcher(deps, (rows) => metrics.observeBatch('insert_payment_requests', rows)),
  };
  return { context, tokens, keyStatus };
}

// ---------------------------------------------------------------------------------------------
// The worker

/**
 * The shared layers' own housekeeping. Idempotency records hourly: they live 24 h, so an hour's
 * delay in deleting them is harmless, and the delete runs in bounded batches. Rate-limit windows
 * every minute: they matter for one second and are a few rows per merchant.
 */
const SHARED: ModuleDefinition = {
  name: 'shared (http/)',
  tasks: (deps) => ({
    idempotency_cleanup: async () => {
      const deleted = await deleteExpiredKeys(deps.db);
      if (deleted > 0) deps.log.info({ deleted }, 'expired idempotency records deleted');
    },
    rate_limit_cleanup: async () => {
      await deleteOldRateWindows(deps.db, deps.clock.now().getTime());
    },
  }),
  cron: ['7 * * * * idempotency_cleanup ?max=1', '* * * * * rate_limit_cleanup ?max=1'],
};

/** The rails' jobs (reconciliation): not a module of src/modules/, their operator routes are the admin module's. */
const WORKER_PARTS: readonly ModuleDefinition[] = [SHARED, railsWorkerPart, ...MODULES];

/** Every task the worker knows, from every module; two modules naming one task is a programming error. */
export function taskList(deps: Deps): TaskList {
  const tasks: TaskList = {};
  for (const part of WORKER_PARTS) {
    for (const [name, task] of Object.entries(part.tasks?.(deps) ?? {})) {
      if (name in tasks) throw new Error(`task ${name} is defined twice (module ${part.name})`);
      tasks[name] = task;
    }
  }
  return tasks;
}

/** The recurring jobs (graphile-worker crontab syntax), one line each; each module's comment says why as often as it is. */
export const CRONTAB: readonly string[] = WORKER_PARTS.flatMap((part) => part.cron ?? []);

/** What `startWorker` (jobs/queue.ts) runs: the tasks, the crontab, the modules' services and start-up steps. */
export function workerPlan(deps: Deps): WorkerPlan {
  const services: BackgroundService[] = WORKER_PARTS.flatMap((part) => part.services?.(deps) ?? []);
  const onStart = WORKER_PARTS.flatMap((part) => (part.onWorkerStart ? [() => part.onWorkerStart!(deps)] : []));
  return { tasks: taskList(deps), crontab: CRONTAB, services, onStart };
}

// What a module presents, from one place: src/modules/<name>/index.ts exports one
// ModuleDefinition, and the composition root (src/composition.ts) assembles them for the API
// process and the worker. Like http/, db/, lib/ and jobs/, this file knows no module.
import type { TaskList } from 'graphile-worker';
import type { Deps, RouteModule } from './http/types.ts';
import type { BackgroundService } from './jobs/queue.ts';

export interface ModuleDefinition {
  name: string;
  /**
   * The module's part of the merchant API, under /sandbox/v1 (and /live/v1 in production mode), in
   * registration order: the OpenAPI document lists operations in this order.
   */
  routes?: readonly RouteModule[];
  /**
   * Those of `routes` that make money up or simulate the outside world (product.md §15): a
   * deployment in production mode does not have them at all, under either prefix.
   */
  sandboxOnlyRoutes?: readonly RouteModule[];
  /** Routes at the root: operator routes (/admin/v1), health, and the pages people open from links. */
  rootRoutes?: readonly RouteModule[];
  /** The module's jobs, by task name (the names are the module's own constants). */
  tasks?: (deps: Deps) => TaskList;
  /** Its recurring jobs: graphile-worker crontab lines naming its tasks. */
  cron?: readonly string[];
  /** What runs beside the job runner in every worker (the webhook dispatcher). */
  services?: (deps: Deps) => BackgroundService[];
  /** Run once when a worker starts, after its runner and services (re-queueing what a dead worker held). */
  onWorkerStart?: (deps: Deps) => Promise<void>;
  /** Paragraphs the module adds to the API reference's description (http/docs.ts docsIntro). */
  docsIntro?: readonly string[];
  // Later: pages (the operator console's screens).
}

// The console module: the merchant console at /console (issue 18), served by the API process itself.
// Server-rendered pages (the escaping JSX runtime of src/lib/html/jsx.ts), sessions in PostgreSQL,
// CSRF-checked forms, htmx for partial updates; see http.ts for the ground every page stands on.
import type { RouteModule } from '../../http/types.ts';
import type { ModuleDefinition } from '../../module.ts';
import { deleteOldSubmissions } from './kit/actions.tsx';
import { consoleScope } from './kit/http.ts';
import { ErrorPage } from './kit/layout.tsx';
import assets from './kit/routes/assets.ts';
import home from './home/routes/home.ts';
import password from './security/routes/password.ts';
import security from './security/routes/security.ts';
import signIn from './security/routes/sign-in.ts';
import signOut from './security/routes/sign-out.ts';
// collections & analytics pages (P1)
import analytics from './analytics/routes/analytics.ts';
import collections from './collections/routes/collections.ts';
// payouts & statements pages (P2)
import payouts from './payouts/routes/payouts.ts';
import statements from './statements/routes/statements.ts';
// part 2's areas (issue 19)
import developerKeys from './developers/routes/keys.ts';
import developerWebhooks from './developers/routes/webhooks.ts';
import getPaid from './get-paid/routes/get-paid.ts';
import payoutActions from './payouts/routes/payout-actions.ts';
import sandboxTools from './sandbox/routes/sandbox-tools.ts';
import sandboxOutbox from './sandbox/routes/outbox.ts';
import settlement from './settlement/routes/settlement.ts';
import team from './team/routes/team.ts';
import uploads from './payouts/routes/uploads.ts';
import { deleteEndedSessions } from './kit/session-store.ts';
import { dummyHash } from './security/sign-in.ts';
import { deleteStaleThrottles } from './kit/throttle.ts';

/** The console's routes, registered inside its /console scope (paths relative to it: kit/at.ts). */
const PAGES: readonly RouteModule[] = [
  assets,
  signIn,
  signOut,
  password,
  security,
  home,
  // collections & analytics pages (P1)
  collections,
  analytics,
  // payouts & statements pages (P2)
  payouts,
  statements,
  // part 2's areas (issue 19)
  payoutActions,
  uploads,
  getPaid,
  developerKeys,
  developerWebhooks,
  team,
  settlement,
  sandboxTools,
  sandboxOutbox,
];

const consoleRoutes: RouteModule = (app, ctx) => {
  // The dummy hash of sign-in's unknown addresses, made now rather than in the first such attempt
  // (which would then take twice as long as a wrong password and tell them apart).
  void dummyHash().catch((err: unknown) => ctx.deps.log.error({ err }, 'could not prepare the sign-in dummy hash'));
  consoleScope(app, ctx, { errorPage: (context, status, kind) => ErrorPage({ context, status, kind }) }, (scope) => {
    for (const route of PAGES) route(scope, ctx);
  });
};

export const CONSOLE_CLEANUP_TASK = 'console_cleanup';

export const consoleModule: ModuleDefinition = {
  name: 'console',
  rootRoutes: [consoleRoutes],
  tasks: (deps) => ({
    [CONSOLE_CLEANUP_TASK]: async () => {
      const now = deps.clock.now();
      const sessions = await deleteEndedSessions(deps.db, now, new Date(now.getTime() - deps.config.consoleIdleMinutes * 60_000));
      const throttles = await deleteStaleThrottles(deps.db, now);
      const submissions = await deleteOldSubmissions(deps.db, now);
      if (sessions + throttles + submissions > 0) deps.log.info({ sessions, throttles, submissions }, 'ended console sessions, stale sign-in counters and old form submissions deleted');
    },
  }),
  // Hourly: an ended session is refused when used whether or not it has been deleted; this only
  // keeps the tables small.
  cron: [`17 * * * * ${CONSOLE_CLEANUP_TASK} ?max=1`],
};

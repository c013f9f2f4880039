// The webhooks module: subscriptions, listeners, deliveries, and the dispatcher every worker runs.
import type { ModuleDefinition } from '../../module.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { sweepListeners } from './repository.ts';
import webhookAdd from './routes/add.ts';
import webhookDelete from './routes/delete.ts';
import webhookDeliveries from './routes/deliveries.ts';
import webhookGetAll from './routes/get-all.ts';
import webhookGet from './routes/get.ts';
import webhookListenerCreate from './routes/listeners-create.ts';
import webhookListenerDelete from './routes/listeners-delete.ts';
import webhookListenerRenew from './routes/listeners-renew.ts';
import webhookRedeliver from './routes/redeliver.ts';
import webhookTest from './routes/test.ts';
import webhookUpdate from './routes/update.ts';
import webhookVerify from './routes/verify.ts';

export const LISTENERS_SWEEP_TASK = 'webhook_listeners_sweep';
/** Lapsed webhook listeners deleted per sweep, at most. */
const LISTENER_SWEEP_BATCH = 1000;

export const webhooksModule: ModuleDefinition = {
  name: 'webhooks',
  routes: [
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
  ],
  tasks: (deps) => ({
    [LISTENERS_SWEEP_TASK]: async () => {
      // Bounded per run; a lapsed listener gets nothing meanwhile (the fan-out checks its lease).
      const swept = await sweepListeners(deps.db, LISTENER_SWEEP_BATCH);
      if (swept > 0) deps.log.info({ listeners: swept }, 'lapsed webhook listeners deleted');
    },
  }),
  // Lapsed webhook listeners (`listen`) every minute: they already get nothing; the sweep deletes
  // them and ends their undelivered copies.
  cron: [`* * * * * ${LISTENERS_SWEEP_TASK} ?max=1`],
  services: (deps) => [new WebhookDispatcher(deps)],
};

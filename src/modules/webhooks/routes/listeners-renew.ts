// PUT /merchants/webhooks/listeners/renew — extends a temporary listener's lease by its length from
// now. A lapsed listener cannot be renewed (404): create a new one.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { Listener, ListenerId } from '../schemas.ts';
import { renewListener } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.put('/merchants/webhooks/listeners/renew', {
    schema: {
      tags: ['Webhooks'],
      summary: "Renew a temporary listener's lease",
      description:
        "Extends a temporary listener's lease by its length (leaseSeconds) from now; `npm run cli -- listen` renews it while it runs. " +
        'A lapsed or unknown listener answers 404 E903: create a new one.',
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, listenerId: ListenerId }),
      response: { 200: { ...Listener, description: 'The listener with its new expiry time (UTC).' } },
    },
    handler: async (request) => renewListener(deps, request.body.merchantAccountNumber, request.body.listenerId),
  });
};
export default route;

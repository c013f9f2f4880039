// POST /merchants/webhooks/listeners/delete — ends a temporary listener now (lapsed or not); its
// undelivered copies end as failed.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { MerchantAccountNumber, Message } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { ListenerId } from '../schemas.ts';
import { deleteListener } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/listeners/delete', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Delete a temporary listener',
      description: "Ends a temporary listener now, lapsed or not; its undelivered copies end as failed. The merchant's subscriptions are not touched.",
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, listenerId: ListenerId }),
      response: { 200: { ...Message, description: 'The listener was deleted: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await deleteListener(deps, request.body.merchantAccountNumber, request.body.listenerId);
      return sendMessage(reply, 200, t(request.lang, 'ok.listenerDeleted'));
    },
  });
};
export default route;

// POST /merchants/webhooks/add — subscribes a callback URL to an event code. 201 with a message.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, MerchantAccountNumber, Message } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CallbackUrl, EventCode } from '../schemas.ts';
import { addWebhook } from '../service.ts';

const Body = Type.Object({ merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode, callbackUrl: CallbackUrl, capturedBy: Email() });

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/add', {
    schema: { tags: ['Webhooks'], summary: 'Add a webhook', description: 'One subscription per merchant and event code; a second for the same code answers 409 E906.', body: Body, response: { 201: Message } },
    handler: async (request, reply) => {
      await addWebhook(deps, request.body);
      return sendMessage(reply, 201, t(request.lang, 'ok.webhookCreated'));
    },
  });
};
export default route;

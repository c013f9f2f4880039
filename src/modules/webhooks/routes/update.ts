// E13 POST /merchants/webhooks/update — changes a subscription's event code and callback URL.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, MerchantAccountNumber, Message } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CallbackUrl, EventCode, WebhookId } from '../schemas.ts';
import { updateWebhook } from '../service.ts';

const Body = Type.Object(
  { webhookId: WebhookId, merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode, callbackUrl: CallbackUrl, capturedBy: Email() },
  { examples: [{ webhookId: 1, merchantAccountNumber: EXAMPLE.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: EXAMPLE.callbackUrl, capturedBy: EXAMPLE.actor }] },
);

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/update', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Update a webhook (E13)',
      description:
        "Changes a subscription's event code and callback URL (webhookId from add's answer, getAll or get). Pending deliveries go " +
        "to the new URL from their next attempt. Another merchant's or an unknown webhookId answers 404 E903.\n\n" +
        EVENTS_TEXT,
      body: Body,
      response: { 200: { ...Message, description: 'The subscription was updated: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await updateWebhook(deps, request.body);
      return sendMessage(reply, 200, t(request.lang, 'ok.webhookUpdated'));
    },
  });
};
export default route;

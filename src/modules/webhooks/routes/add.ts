// POST /merchants/webhooks/add — subscribes a callback URL to an event code. 201
// {"message": "Merchant webhook has been created successfully"}: an object, as the gateway's
// documentation answers it (a real client decodes `message`), not the bare string of update/delete.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { Email, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CallbackUrl, EventCode } from '../schemas.ts';
import { addWebhook } from '../service.ts';

const Body = Type.Object(
  { merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode, callbackUrl: CallbackUrl, capturedBy: Email() },
  { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: EXAMPLE.callbackUrl, capturedBy: EXAMPLE.actor }] },
);

const Created = Type.Object({ message: Type.String({ description: 'Confirmation message.', examples: ['Merchant webhook has been created successfully'] }) });

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/add', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Add a webhook',
      description:
        'Subscribes callbackUrl to an event code: each event is POSTed there, signed (Standard Webhooks headers webhook-id, ' +
        'webhook-timestamp, webhook-signature, and the static X-OneKhusa-Webhook-Signature), and retried until it is answered 2xx. ' +
        'One subscription per merchant and event code; a second for the same code answers 409 E906. Answers 201 {"message": "…"} ' +
        '(an object, as the gateway documents it).\n\n' +
        EVENTS_TEXT,
      body: Body,
      response: { 201: { ...Created, description: 'The subscription was created: {"message": "…"}.' } },
    },
    handler: async (request, reply) => {
      await addWebhook(deps, request.body);
      return reply.code(201).send({ message: t(request.lang, 'ok.webhookCreated') });
    },
  });
};
export default route;

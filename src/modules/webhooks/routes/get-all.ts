// GET /merchants/webhooks/getAll — the merchant's subscriptions.
import { Type } from '@sinclair/typebox';
import { MerchantQuery } from '../../../http/schemas.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { WebhookRecord } from '../schemas.ts';
import { listWebhooks } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/webhooks/getAll', {
    schema: {
      tags: ['Webhooks'],
      summary: 'List webhooks',
      description: "The merchant's webhook subscriptions: one per event code, with its callback URL and static signature.\n\n" + EVENTS_TEXT,
      querystring: MerchantQuery,
      response: { 200: Type.Array(WebhookRecord, { description: "The merchant's subscriptions." }) },
    },
    handler: async (request) => listWebhooks(deps, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

// GET /merchants/webhooks/getAll — the merchant's subscriptions.
import { Type } from '@sinclair/typebox';
import { MerchantQuery } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { WebhookRecord } from '../schemas.ts';
import { listWebhooks } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/webhooks/getAll', {
    schema: { tags: ['Webhooks'], summary: 'List webhooks', querystring: MerchantQuery, response: { 200: Type.Array(WebhookRecord) } },
    handler: async (request) => listWebhooks(deps, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

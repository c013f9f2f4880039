// GET /merchants/webhooks/get — one subscription, by webhookId or by eventCode.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EventCode, WebhookId, WebhookRecord } from '../schemas.ts';
import { getWebhook } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/webhooks/get', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Get a webhook',
      querystring: Type.Object({ merchantAccountNumber: MerchantAccountNumber, webhookId: Type.Optional(WebhookId), eventCode: Type.Optional(EventCode) }),
      response: { 200: WebhookRecord },
    },
    handler: async (request) => {
      const { merchantAccountNumber, webhookId, eventCode } = request.query;
      if (webhookId === undefined && eventCode === undefined) {
        throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Webhook Id' } }] });
      }
      return getWebhook(deps, request.lang, merchantAccountNumber, { webhookId, eventCode });
    },
  });
};
export default route;

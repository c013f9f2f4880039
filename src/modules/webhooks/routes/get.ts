// GET /merchants/webhooks/get — one subscription, by webhookId or by eventCode.
// POST /merchants/webhooks/get {merchantAccountNumber, eventCode | webhookId} — the same, as the
// gateway's curl example sends it (a JSON body); a GET may carry that body too.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { mergeGetBodyIntoQuery } from '../../../http/get-body.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { Deps, RouteModule } from '../../../http/types.ts';
import type { Lang } from '../../../http/i18n.ts';
import { EventCode, WebhookId, WebhookRecord } from '../schemas.ts';
import { getWebhook } from '../service.ts';

const Lookup = Type.Object({ merchantAccountNumber: MerchantAccountNumber, webhookId: Type.Optional(WebhookId), eventCode: Type.Optional(EventCode) }, { 'x-one-of-fields': ['webhookId', 'eventCode'] });

const DESCRIPTION = 'One subscription of the merchant, by webhookId or by eventCode (one of the two is required); another merchant\'s answers 404.';

function lookup(deps: Deps, lang: Lang, by: { merchantAccountNumber: number; webhookId?: number; eventCode?: string }) {
  const { merchantAccountNumber, webhookId, eventCode } = by;
  if (webhookId === undefined && eventCode === undefined) {
    throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Webhook Id' } }] });
  }
  return getWebhook(deps, lang, merchantAccountNumber, { webhookId, eventCode });
}

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/webhooks/get', {
    preValidation: mergeGetBodyIntoQuery,
    schema: {
      tags: ['Webhooks'],
      summary: 'Get a webhook',
      description: `${DESCRIPTION} The parameters are read from the query string or from a JSON body.`,
      querystring: Lookup,
      response: { 200: { ...WebhookRecord, description: 'The subscription.' } },
    },
    handler: async (request) => lookup(deps, request.lang, request.query),
  });

  app.post('/merchants/webhooks/get', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Get a webhook (JSON body)',
      description: `${DESCRIPTION} The gateway's documentation sends this request as a POST with a JSON body {merchantAccountNumber, eventCode}; the answer is the GET's.`,
      body: Lookup,
      response: { 200: { ...WebhookRecord, description: 'The subscription.' } },
    },
    handler: async (request) => lookup(deps, request.lang, request.body),
  });
};
export default route;

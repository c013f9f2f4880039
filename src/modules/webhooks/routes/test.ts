// POST /merchants/webhooks/test — delivers a realistic sample of an event, marked as a test
// (body `isTest: true`, header X-OneKhusa-Webhook-Test), to the merchant's subscription for it.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EventCode } from '../schemas.ts';
import { sendTestEvent } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/test', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Send a test event',
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode }),
      response: { 200: Type.Object({ merchantAccountNumber: Type.Integer(), eventCode: Type.String(), webhookId: Type.Integer(), eventId: Type.Integer(), deliveryId: Type.Integer() }) },
    },
    handler: async (request) => sendTestEvent(deps, request.body.merchantAccountNumber, request.body.eventCode),
  });
};
export default route;

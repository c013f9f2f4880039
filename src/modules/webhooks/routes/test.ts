// POST /merchants/webhooks/test — delivers a realistic sample of an event, marked as a test
// (body `isTest: true`, header X-OneKhusa-Webhook-Test), to the merchant's subscription for it and
// to its unexpired temporary listeners of that event (404 when there is neither).
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EventCode } from '../schemas.ts';
import { sendTestEvent } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/test', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Send a test event',
      description:
        'Delivers a realistic sample of the event, marked as a test (body isTest: true, header X-OneKhusa-Webhook-Test), to the ' +
        "merchant's subscription for it and to its unexpired temporary listeners of that event; 404 E903 when there is neither. " +
        'Follow it in the delivery log.\n\n' +
        EVENTS_TEXT,
      body: Type.Object(
        { merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode },
        { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, eventCode: 'payment.success' }] },
      ),
      response: { 200: Type.Object({ merchantAccountNumber: Type.Integer(), eventCode: Type.String(), webhookId: Type.Union([Type.Integer(), Type.Null()], { description: 'The subscription; null when only temporary listeners take the event.' }), eventId: Type.Integer(), deliveryId: Type.Integer() }, { description: 'The test event and its delivery, queued.' }) },
    },
    handler: async (request) => sendTestEvent(deps, request.body.merchantAccountNumber, request.body.eventCode),
  });
};
export default route;

// POST /merchants/webhooks/redeliver — one delivery again, or every failed one in a date range.
// The receiver gets the same webhook-id as before, so it can tell a redelivery from a new event.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { redeliver } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/redeliver', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Redeliver webhooks',
      description:
        'Sends one delivery again (deliveryId), or every failed delivery created in a date range (fromDate, toDate, UTC days). The ' +
        'receiver gets the same webhook-id as before, so it can tell a redelivery from a new event.',
      body: Type.Object({
        merchantAccountNumber: MerchantAccountNumber,
        deliveryId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
        fromDate: Type.Optional(Type.String({ format: 'date' })),
        toDate: Type.Optional(Type.String({ format: 'date' })),
      }),
      response: { 200: Type.Object({ merchantAccountNumber: Type.Integer(), numberOfDeliveries: Type.Integer() }, { description: 'How many deliveries were queued again.' }) },
    },
    handler: async (request) => redeliver(deps, request.body.merchantAccountNumber, request.body),
  });
};
export default route;

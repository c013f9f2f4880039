// POST /merchants/webhooks/deliveries — the delivery log, newest first, with every attempt.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow } from '../../../http/paging.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { Delivery, EventCode } from '../schemas.ts';
import { listDeliveries } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  eventCode: Type.Optional(EventCode),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
  fromDate: Type.Optional(Type.String({ format: 'date', description: 'Created on or after (YYYY-MM-DD, UTC).' })),
  toDate: Type.Optional(Type.String({ format: 'date', description: 'Created on or before (YYYY-MM-DD, UTC).' })),
  pageNumber: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  numberOfReturnedRows: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/deliveries', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Webhook delivery log',
      description:
        "The merchant's webhook deliveries, newest first, paged, each with every attempt (status code, error, time); filter by " +
        'eventCode, status (pending, succeeded, failed) and creation date. Redeliver one with POST /merchants/webhooks/redeliver.\n\n' +
        EVENTS_TEXT,
      body: Body,
      response: { 200: Type.Array(Delivery, { description: 'The page of deliveries, newest first, with their attempts.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, pageNumber, numberOfReturnedRows, ...filter } = request.body;
      return listDeliveries(deps, merchantAccountNumber, { ...filter, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental: false }) });
    },
  });
};
export default route;

// E14 POST /merchants/webhooks/delete — removes the subscription for an event code. The
// MerchantAccountNumber header must equal the body's; undelivered events to it end as failed.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, MerchantAccountNumber, Message } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EVENTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EventCode } from '../schemas.ts';
import { deleteWebhook } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/delete', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Delete a webhook (E14)',
      description:
        "Removes the merchant's subscription for an event code; its undelivered events end as failed. The MerchantAccountNumber " +
        'header must equal merchantAccountNumber in the body.\n\n' +
        EVENTS_TEXT,
      headers: Type.Object({ merchantaccountnumber: Type.String({ description: 'Must equal merchantAccountNumber in the body.', examples: [String(EXAMPLE.merchantAccountNumber)] }) }),
      body: Type.Object(
        { eventCode: EventCode, merchantAccountNumber: MerchantAccountNumber, deletedBy: Email() },
        { examples: [{ eventCode: 'payment.success', merchantAccountNumber: EXAMPLE.merchantAccountNumber, deletedBy: EXAMPLE.actor }] },
      ),
      response: { 200: { ...Message, description: 'The subscription was deleted: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      // Scoping has already checked the header names this merchant; here it must match the body.
      if (String(request.headers.merchantaccountnumber).trim() !== String(request.body.merchantAccountNumber)) {
        throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.headerMismatch', params: { header: 'MerchantAccountNumber', field: 'merchantAccountNumber' } }] });
      }
      await deleteWebhook(deps, request.body.merchantAccountNumber, request.body.eventCode);
      return sendMessage(reply, 200, t(request.lang, 'ok.webhookDeleted'));
    },
  });
};
export default route;

// POST /merchants/webhooks/verify — is this the subscription's static signature?
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EventCode } from '../schemas.ts';
import { verifySignature } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/verify', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Verify a webhook signature',
      description:
        "Tells whether webhookSignature is the static X-OneKhusa-Webhook-Signature of the merchant's subscription for the event " +
        'code (a receiver can also compare it itself: it is in the subscription record).',
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode, webhookSignature: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: Type.Object({ merchantAccountNumber: Type.Integer(), isSignatureValid: Type.Boolean() }, { description: 'Whether the signature is the subscription\'s.' }) },
    },
    handler: async (request) => verifySignature(deps, request.body.merchantAccountNumber, request.body.eventCode, request.body.webhookSignature),
  });
};
export default route;

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
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, eventCode: EventCode, webhookSignature: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: Type.Object({ merchantAccountNumber: Type.Integer(), isSignatureValid: Type.Boolean() }) },
    },
    handler: async (request) => verifySignature(deps, request.body.merchantAccountNumber, request.body.eventCode, request.body.webhookSignature),
  });
};
export default route;

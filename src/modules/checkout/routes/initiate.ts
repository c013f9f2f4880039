// POST /checkout/rtp/initiate — a hosted checkout (product.md §10). No Bearer token: the key pair
// is in the body, checked exactly like getAccessToken's (one 401 for any wrong part), and the
// per-address rate limit of unauthenticated calls applies.
import { Type } from '@sinclair/typebox';
import { publicCheckoutUrl } from '../../../http/base-url.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { CheckoutBody } from '../schemas.ts';
import { initiateCheckout } from '../service.ts';


const Result = Type.Object({
  sourceReferenceNumber: Type.String(),
  merchantAccountNumber: Type.Integer(),
  paymentTransactionId: Type.String({ description: 'The checkout\'s unguessable id (32 url-safe characters).' }),
  checkoutUrl: Type.String({ description: 'The page to send the customer to.' }),
  expiryDate: Type.String({ format: 'date-time', description: 'When the timed account stops taking payment.' }),
  callbackSigningSecret: Type.Optional(
    Type.String({
      description:
        'Standard Webhooks secret that signs the callback, when the merchant has no payrequest.success webhook (whose secrets sign it otherwise). Shown once.',
    }),
  ),
  callbackWebhookSignature: Type.Optional(Type.String({ description: 'The X-OneKhusa-Webhook-Signature the callback carries, in the same case.' })),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/checkout/rtp/initiate', {
    config: { auth: 'none' },
    schema: {
      tags: ['Collections'],
      summary: 'Initiate a hosted checkout',
      security: [],
      description:
        'Creates a request to pay with a timed account and returns the checkout page\'s URL. The customer pays there (simulated) and is redirected ' +
        'to the success or failure URL; callbackApiUrl receives payrequest.success. No Bearer token: the key pair is in the body.',
      body: CheckoutBody,
      response: { 200: { ...Result, description: "The checkout: the page to send the customer to (checkoutUrl), its id and its expiry time (UTC)." } },
    },
    handler: async (request) => {
      const { authentication, merchant, payment, route: target } = request.body;
      return initiateCheckout(deps, {
        ...authentication,
        ...merchant,
        sourceReferenceNumber: payment.sourceReferenceNumber,
        description: payment.description,
        amountMinor: toMinor(payment.amount),
        successRedirectionUrl: target.successRedirectionUrl,
        failureRedirectionUrl: target.failureRedirectionUrl,
        callbackApiUrl: target.callbackApiUrl ?? null,
        baseUrl: publicCheckoutUrl(deps.config, request),
      });
    },
  });
};
export default route;

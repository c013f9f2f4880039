// POST /checkout/rtp/initiate — a hosted checkout (product.md §10). No Bearer token: the key pair
// is in the body, checked exactly like getAccessToken's (one 401 for any wrong part), and the
// per-address rate limit of unauthenticated calls applies.
import { Type } from '@sinclair/typebox';
import { publicCheckoutUrl } from '../../../http/base-url.ts';
import { MerchantAccountNumber, Money, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { initiateCheckout, REDIRECT_URL_MAX_LENGTH } from '../service.ts';

const Url = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: REDIRECT_URL_MAX_LENGTH,
    // Checked again by the URL parser (no credentials, a plain host); this catches most at once.
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
    description,
    examples: ['https://shop.example.mw/checkout/done'],
    'x-message': 'field.redirectUrl',
    'x-message-limit': REDIRECT_URL_MAX_LENGTH,
  });

/** The request body (the console checks its form against the same limits). */
export const Body = Type.Object({
  authentication: Type.Object({
    apiKey: Type.String({ minLength: 1, maxLength: 64, description: 'The key pair\'s clientKey.' }),
    apiSecret: Type.String({ minLength: 1, maxLength: 128, description: 'The key pair\'s secret.' }),
  }),
  merchant: Type.Object({
    organisationId: OrganisationId,
    merchantAccountNumber: MerchantAccountNumber,
  }),
  payment: Type.Object({
    sourceReferenceNumber: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.:/#-]*$',
      description: 'The merchant\'s own reference for this payment (1–50: letters, digits and _ . : / # -), echoed on the redirects and in the event.',
      examples: ['INV-2026-0042'],
    }),
    description: Type.String({ minLength: 1, maxLength: 200, description: 'What the customer pays for, shown on the page.' }),
    amount: Money('0.01', '50000000', 'Amount the customer pays (MWK), at most 2 decimals.'),
  }),
  route: Type.Object({
    successRedirectionUrl: Url('Where the customer\'s browser goes after paying, with ?sourceReferenceNumber=…&transactionReferenceNumber=….'),
    failureRedirectionUrl: Url('Where it goes when the payment does not happen, with ?sourceReferenceNumber=…&reason=…&errorCode=….'),
    callbackApiUrl: Type.Optional(
      Type.Union([Url('Receives the payrequest.success event (POST, flat payload, signed like a webhook). Private addresses are refused in production mode.'), Type.Null()]),
    ),
  }),
}, {
  examples: [
    {
      authentication: { apiKey: EXAMPLE.apiKey, apiSecret: EXAMPLE.apiSecret },
      merchant: { organisationId: EXAMPLE.organisationId, merchantAccountNumber: EXAMPLE.merchantAccountNumber },
      payment: { sourceReferenceNumber: 'INV-2026-0042', description: 'School shoes, size 5', amount: '2500.00' },
      route: {
        successRedirectionUrl: 'https://shop.example.mw/checkout/paid',
        failureRedirectionUrl: 'https://shop.example.mw/checkout/failed',
        callbackApiUrl: EXAMPLE.callbackUrl,
      },
    },
  ],
});

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
      body: Body,
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

// The hosted checkout's request body (POST /checkout/rtp/initiate), apart from its route: the
// console's Get paid form is checked against the same schema (console/get-paid/limits.ts).
import { Type } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { MerchantAccountNumber, Money, OrganisationId } from '../../http/schemas.ts';
import { REDIRECT_URL_MAX_LENGTH } from './service.ts';

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
export const CheckoutBody = Type.Object({
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

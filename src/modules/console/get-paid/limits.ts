// The API's limits on what Get paid's forms send, read from its own request schemas (E12 and POST
// /checkout/rtp/initiate) so that the forms cannot drift from them.
import { CheckoutBody } from '../../checkout/schemas.ts';
import { ReferenceNumber, RequestToPayBody } from '../../collections/schemas.ts';

interface MoneyRange {
  min: string;
  max: string;
}
const moneyRange = (schema: unknown): MoneyRange => (schema as { 'x-money': MoneyRange })['x-money'];
const maxLength = (schema: { maxLength?: number }): number => {
  if (schema.maxLength === undefined) throw new Error('an API field without a maximum length');
  return schema.maxLength;
};

const rtp = RequestToPayBody.properties;
const checkoutPayment = CheckoutBody.properties.payment.properties;

/** E12's fields: amount, description and the merchant's reference. */
export const REQUEST_TO_PAY_LIMITS = {
  amount: moneyRange(rtp.transactionAmount),
  descriptionMaxLength: maxLength(rtp.transactionDescription),
  referenceMinLength: ReferenceNumber.minLength ?? 1,
  referenceMaxLength: maxLength(ReferenceNumber),
  referencePattern: new RegExp(ReferenceNumber.pattern ?? '^.*$'),
} as const;

/** POST /checkout/rtp/initiate's payment and route fields. */
export const CHECKOUT_LIMITS = {
  amount: moneyRange(checkoutPayment.amount),
  descriptionMaxLength: maxLength(checkoutPayment.description),
  sourceReferenceMaxLength: maxLength(checkoutPayment.sourceReferenceNumber),
  sourceReferencePattern: new RegExp(checkoutPayment.sourceReferenceNumber.pattern ?? '^.*$'),
  urlMaxLength: maxLength(CheckoutBody.properties.route.properties.successRedirectionUrl),
} as const;

// The checks of Get paid's two forms, before any service is called: each refused field gets a
// message of its own in the user's language, with the API's own limits (limits.ts) and, for the
// amount, the merchant's (the route reads them: limits/enforce.ts amountRange). The services
// check again (limits per merchant, open references, addresses): kit/forms.tsx fieldOfRefusal
// places their refusals on a field.
import type { Lang } from '../../../http/i18n.ts';
import type { AmountRange } from '../../limits/enforce.ts';
import { CHECKOUT_LIMITS, REQUEST_TO_PAY_LIMITS } from './limits.ts';
import { amountProblem, textProblem, withoutEmpty, type Problems } from '../kit/forms.tsx';
import { ct } from './texts.ts';

/** A request to pay's fields (E12's limits). */
export function requestProblems(lang: Lang, v: Record<'amount' | 'description' | 'reference', string>, amount: AmountRange): Problems<'amount' | 'description' | 'reference'> {
  const limits = REQUEST_TO_PAY_LIMITS;
  let reference: string | undefined;
  if (v.reference === '') reference = ct(lang, 'form.error.required');
  else if (v.reference.length < limits.referenceMinLength || v.reference.length > limits.referenceMaxLength || !limits.referencePattern.test(v.reference)) {
    reference = ct(lang, 'getPaid.error.reference', { min: limits.referenceMinLength, max: limits.referenceMaxLength });
  }
  return withoutEmpty({
    amount: amountProblem(lang, v.amount, amount),
    description: textProblem(lang, v.description, limits.descriptionMaxLength),
    reference,
  });
}

const WEB_ADDRESS = /^https?:\/\/\S+$/i;

function urlProblem(lang: Lang, text: string): string | undefined {
  if (text === '') return ct(lang, 'form.error.required');
  if (text.length > CHECKOUT_LIMITS.urlMaxLength || !WEB_ADDRESS.test(text)) return ct(lang, 'getPaid.error.url', { max: CHECKOUT_LIMITS.urlMaxLength });
  return undefined;
}

/** A checkout's fields (POST /checkout/rtp/initiate's limits). */
export function checkoutProblems(lang: Lang, v: Record<'amount' | 'description' | 'sourceReference' | 'successUrl' | 'failureUrl', string>, amount: AmountRange) {
  const limits = CHECKOUT_LIMITS;
  let sourceReference: string | undefined;
  if (v.sourceReference === '') sourceReference = ct(lang, 'form.error.required');
  else if (v.sourceReference.length > limits.sourceReferenceMaxLength || !limits.sourceReferencePattern.test(v.sourceReference)) {
    sourceReference = ct(lang, 'getPaid.error.sourceReference', { max: limits.sourceReferenceMaxLength });
  }
  return withoutEmpty({
    amount: amountProblem(lang, v.amount, amount),
    description: textProblem(lang, v.description, limits.descriptionMaxLength),
    sourceReference,
    successUrl: urlProblem(lang, v.successUrl),
    failureUrl: urlProblem(lang, v.failureUrl),
  });
}

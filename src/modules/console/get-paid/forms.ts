// The checks of the getting-paid and sandbox forms, before any service is called: each refused
// field gets a message of its own in the user's language, with the API's own limits (read from
// its request schemas: data/get-paid.ts). The services check again (limits per merchant, open
// references, addresses): their refusals are placed on a field by `fieldOfRefusal`.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../http/errors.ts';
import { formField } from '../../../http/html.ts';
import type { Lang } from '../../../http/i18n.ts';
import { formatMajor, parseMinor } from '../../../lib/money.ts';
import { CHECKOUT_URL_FIELDS } from '../../checkout/service.ts';
import { CHECKOUT_LIMITS, REQUEST_TO_PAY_LIMITS } from './queries.ts';
import { ct } from '../kit/i18n.ts';

/** The longest value of any field a form shows back (the body limit bounds the whole form anyway). */
const SHOWN_MAX_CHARS = 2100;

/** The form's fields as typed (trimmed of surrounding spaces; '' when absent). */
export function valuesOf<K extends string>(request: FastifyRequest, names: readonly K[]): Record<K, string> {
  return Object.fromEntries(names.map((name) => [name, (formField(request.body, name) ?? '').trim().slice(0, SHOWN_MAX_CHARS)])) as Record<K, string>;
}

export interface AmountRange {
  min: string;
  max: string;
}

/** "2,500.50" and "2500.5" → 250050: spaces and thousands commas are dropped, at most 2 decimals. */
export function amountMinorOf(text: string): number | undefined {
  const cleaned = text.replace(/[\s,]/g, '');
  return cleaned === '' ? undefined : parseMinor(cleaned);
}

/** "50000000" → "50,000,000.00", as the hints and messages show the API's bounds. */
export function shownAmount(decimal: string): string {
  return formatMajor(parseMinor(decimal) ?? 0);
}

/** The amount's message, or undefined when it is a valid amount within the API's range. */
export function amountProblem(lang: Lang, text: string, range: AmountRange): string | undefined {
  if (text === '') return ct(lang, 'getPaid.error.amountRequired');
  const minor = amountMinorOf(text);
  if (minor === undefined) return ct(lang, 'getPaid.error.amountFormat');
  if (minor < parseMinor(range.min)! || minor > parseMinor(range.max)!) return ct(lang, 'getPaid.error.amountRange', { min: shownAmount(range.min), max: shownAmount(range.max) });
  return undefined;
}

function textProblem(lang: Lang, text: string, maxLength: number): string | undefined {
  if (text === '') return ct(lang, 'getPaid.error.required');
  if (text.length > maxLength) return ct(lang, 'getPaid.error.tooLong', { max: maxLength });
  return undefined;
}

export type Problems<K extends string> = Partial<Record<K, string>>;

const withoutEmpty = <K extends string>(problems: Problems<K>): Problems<K> =>
  Object.fromEntries(Object.entries(problems).filter(([, message]) => message !== undefined)) as Problems<K>;

/** A request to pay's fields (E12's limits). */
export function requestProblems(lang: Lang, v: Record<'amount' | 'description' | 'reference', string>): Problems<'amount' | 'description' | 'reference'> {
  const limits = REQUEST_TO_PAY_LIMITS;
  let reference: string | undefined;
  if (v.reference === '') reference = ct(lang, 'getPaid.error.required');
  else if (v.reference.length < limits.referenceMinLength || v.reference.length > limits.referenceMaxLength || !limits.referencePattern.test(v.reference)) {
    reference = ct(lang, 'getPaid.error.reference', { min: limits.referenceMinLength, max: limits.referenceMaxLength });
  }
  return withoutEmpty({
    amount: amountProblem(lang, v.amount, limits.amount),
    description: textProblem(lang, v.description, limits.descriptionMaxLength),
    reference,
  });
}

const WEB_ADDRESS = /^https?:\/\/\S+$/i;

function urlProblem(lang: Lang, text: string): string | undefined {
  if (text === '') return ct(lang, 'getPaid.error.required');
  if (text.length > CHECKOUT_LIMITS.urlMaxLength || !WEB_ADDRESS.test(text)) return ct(lang, 'getPaid.error.url', { max: CHECKOUT_LIMITS.urlMaxLength });
  return undefined;
}

/** A checkout's fields (POST /checkout/rtp/initiate's limits). */
export function checkoutProblems(lang: Lang, v: Record<'amount' | 'description' | 'sourceReference' | 'successUrl' | 'failureUrl', string>) {
  const limits = CHECKOUT_LIMITS;
  let sourceReference: string | undefined;
  if (v.sourceReference === '') sourceReference = ct(lang, 'getPaid.error.required');
  else if (v.sourceReference.length > limits.sourceReferenceMaxLength || !limits.sourceReferencePattern.test(v.sourceReference)) {
    sourceReference = ct(lang, 'getPaid.error.sourceReference', { max: limits.sourceReferenceMaxLength });
  }
  return withoutEmpty({
    amount: amountProblem(lang, v.amount, limits.amount),
    description: textProblem(lang, v.description, limits.descriptionMaxLength),
    sourceReference,
    successUrl: urlProblem(lang, v.successUrl),
    failureUrl: urlProblem(lang, v.failureUrl),
  });
}

/** A connector picked from the list: 6 digits (the service checks that it takes collections). */
export function connectorProblem(lang: Lang, text: string): string | undefined {
  if (text === '') return ct(lang, 'sandboxTools.error.connectorRequired');
  return /^\d{6}$/.test(text) ? undefined : ct(lang, 'sandboxTools.error.connector');
}

/** The form field a service's refusal is about, when it names one (else the message goes at the top). */
export function fieldOfRefusal(err: unknown): string | undefined {
  if (!(err instanceof AppError)) return undefined;
  switch (err.kind) {
    case 'amountOutOfRange':
    case 'limitExceeded':
    case 'amountMismatch':
      return 'amount';
    case 'connectorInactive':
    case 'connectorNotAllowed':
      return 'connector';
    case 'timedAccountExpired':
    case 'timedAccountPaid':
      return 'timedAccount';
    case 'notFound':
      return err.detailKey === 'detail.timedAccountNotFound' ? 'timedAccount' : err.detailKey === 'detail.connectorNotFound' ? 'connector' : undefined;
    case 'conflict':
      return err.detailKey === 'detail.referenceOpen' ? 'reference' : undefined;
    case 'validation': {
      const named = String(err.fieldErrors[0]?.params.field ?? '');
      return named === CHECKOUT_URL_FIELDS.success ? 'successUrl' : named === CHECKOUT_URL_FIELDS.failure ? 'failureUrl' : undefined;
    }
    default:
      return undefined;
  }
}

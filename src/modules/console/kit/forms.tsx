// What the console's forms share: reading a submitted form, checking amounts and required fields
// in the user's words before any service is called, placing a service's refusal on the field it is
// about, and the fields themselves (labelled, hinted, tied to their message by aria-describedby).
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../http/errors.ts';
import { formField } from '../../../http/html.ts';
import type { Lang } from '../../../http/i18n.ts';
import { Fragment, h, type SafeHtml } from '../../../lib/html/jsx.ts';
import { formatMajor, parseMinor } from '../../../lib/money.ts';
import { CHECKOUT_URL_FIELDS } from '../../checkout/service.ts';
import type { AmountRange } from '../../limits/enforce.ts';
import { FormKey } from './actions.tsx';
import { CSRF_FIELD, type ConsoleContext } from './http.ts';
import { ct } from './i18n.ts';

/** The longest value of any field a form shows back (the body limit bounds the whole form anyway). */
const SHOWN_MAX_CHARS = 2100;

/** The form's fields as typed (trimmed of surrounding spaces; '' when absent). */
export function valuesOf<K extends string>(request: FastifyRequest, names: readonly K[]): Record<K, string> {
  return Object.fromEntries(names.map((name) => [name, (formField(request.body, name) ?? '').trim().slice(0, SHOWN_MAX_CHARS)])) as Record<K, string>;
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
  if (text === '') return ct(lang, 'form.error.amountRequired');
  const minor = amountMinorOf(text);
  if (minor === undefined) return ct(lang, 'form.error.amountFormat');
  if (minor < parseMinor(range.min)! || minor > parseMinor(range.max)!) return ct(lang, 'form.error.amountRange', { min: shownAmount(range.min), max: shownAmount(range.max) });
  return undefined;
}

export function textProblem(lang: Lang, text: string, maxLength: number): string | undefined {
  if (text === '') return ct(lang, 'form.error.required');
  if (text.length > maxLength) return ct(lang, 'form.error.tooLong', { max: maxLength });
  return undefined;
}

export type Problems<K extends string> = Partial<Record<K, string>>;

export const withoutEmpty = <K extends string>(problems: Problems<K>): Problems<K> =>
  Object.fromEntries(Object.entries(problems).filter(([, message]) => message !== undefined)) as Problems<K>;

/** A connector picked from the list: 6 digits (the service checks that it takes collections). */
export function connectorProblem(lang: Lang, text: string): string | undefined {
  if (text === '') return ct(lang, 'form.error.connectorRequired');
  return /^\d{6}$/.test(text) ? undefined : ct(lang, 'form.error.connector');
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

/** A form's fields as typed, the message of each refused one, and what to say at the top. */
export interface FormState<K extends string> {
  values: Record<K, string>;
  errors: Partial<Record<K, string>>;
  /** Why nothing was made (a refusal of the service, a stale form), at the top of the form. */
  message?: string;
}

export interface FieldProps {
  /** The form's prefix for ids (two forms on a page share field names). */
  form: string;
  name: string;
  label: string;
  hint?: string;
  value: string;
  error?: string;
  maxlength?: number;
  inputmode?: string;
  autocomplete?: string;
  type?: 'text' | 'url';
  spellcheck?: boolean;
}

export const fieldId = (form: string, name: string) => `${form}-${name}`;

/** A labelled text field with its hint and, when refused, its message (tied to it by aria-describedby). */
export function Field(p: FieldProps): SafeHtml {
  const id = fieldId(p.form, p.name);
  const describedBy = [p.hint ? `${id}-hint` : '', p.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={p.error ? 'field field-invalid' : 'field'}>
      <label for={id}>{p.label}</label>
      {p.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {p.hint}
        </p>
      ) : null}
      {p.error ? (
        <p class="field-error" id={`${id}-error`}>
          {p.error}
        </p>
      ) : null}
      <input
        type={p.type ?? 'text'}
        id={id}
        name={p.name}
        value={p.value}
        required
        maxlength={p.maxlength}
        inputmode={p.inputmode}
        autocomplete={p.autocomplete ?? 'off'}
        spellcheck={p.spellcheck === false ? 'false' : undefined}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
      />
    </div>
  );
}

/** The top of a refused form: what went wrong, and a link to each refused field. */
export function FormProblem<K extends string>(p: { lang: Lang; form: string; state?: FormState<K>; labels: Record<K, string> }): SafeHtml | null {
  const state = p.state;
  if (!state || (!state.message && Object.keys(state.errors).length === 0)) return null;
  const refused = (Object.keys(state.errors) as K[]).filter((name) => state.errors[name]);
  return (
    <div class="alert alert-error form-problem" role="alert" id={`${p.form}-problem`}>
      <p>{state.message ?? ct(p.lang, 'form.fixFields')}</p>
      {refused.length > 0 ? (
        <ul>
          {refused.map((name) => (
            <li>
              <a href={`#${fieldId(p.form, name)}`}>{`${p.labels[name]}: ${state.errors[name] ?? ''}`}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The hidden fields every state-changing form carries. */
export function ActionFields(p: { context: ConsoleContext }): SafeHtml {
  return (
    <Fragment>
      <input type="hidden" name={CSRF_FIELD} value={p.context.csrfToken} />
      <FormKey />
    </Fragment>
  );
}

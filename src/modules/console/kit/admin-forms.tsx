// What the team and settlement-account forms share: the hidden fields of a state-changing form
// (CSRF token and form key), fields that show the user's input back with their own message
// (aria-invalid, the message tied to the field by aria-describedby), and the summary of a refused
// form at its top (role=alert, each message a link to its field).
import { Fragment, h, type SafeHtml } from '../../../lib/html/jsx.ts';
import { FormKey } from './actions.tsx';
import { CSRF_FIELD, type ConsoleContext } from './http.ts';

/** A form as it was sent and refused: its values as typed, one message per field, and one for the whole form. */
export interface FormState {
  values: Record<string, string>;
  /** Messages by field name. */
  errors: Record<string, string>;
  /** A message about the whole form (a service's refusal naming no field). */
  message?: string;
}

export const EMPTY_FORM: FormState = { values: {}, errors: {} };

/** The hidden fields every state-changing form carries (actions.tsx). */
export function ActionFields(p: { context: ConsoleContext }): SafeHtml {
  return (
    <>
      <input type="hidden" name={CSRF_FIELD} value={p.context.csrfToken} />
      <FormKey />
    </>
  );
}

/** The summary of a refused form: the form's message, then each field's, linking to the field. */
export function FormProblems(p: { id: string; title: string; state: FormState; fieldIds: Record<string, string> }): SafeHtml | null {
  const fields = Object.entries(p.state.errors);
  if (!p.state.message && fields.length === 0) return null;
  return (
    <div class="alert alert-error admin-problems" role="alert" id={p.id} tabindex="-1">
      <p class="admin-problems-title">{p.title}</p>
      {p.state.message ? <p id={`${p.id}-message`}>{p.state.message}</p> : null}
      {fields.length > 0 ? (
        <ul>
          {fields.map(([name, message]) => (
            <li>{p.fieldIds[name] ? <a href={`#${p.fieldIds[name]}`}>{message}</a> : message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function describedBy(id: string, hint: boolean, error: boolean): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

function FieldMessage(p: { id: string; error?: string }): SafeHtml | null {
  return p.error ? (
    <p class="admin-field-error" id={`${p.id}-error`}>
      {p.error}
    </p>
  ) : null;
}

export interface TextFieldProps {
  id: string;
  name: string;
  label: string;
  value: string;
  error?: string;
  hint?: string;
  type?: 'text' | 'email' | 'tel';
  autocomplete?: string;
  inputmode?: string;
  maxlength?: number;
  required?: boolean;
  autofocus?: boolean;
}

/** A text input with its label, hint and message; the value as the user typed it. */
export function TextField(p: TextFieldProps): SafeHtml {
  return (
    <div class={p.error ? 'field admin-field-invalid' : 'field'}>
      <label for={p.id}>{p.label}</label>
      {p.hint ? (
        <p class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </p>
      ) : null}
      <FieldMessage id={p.id} error={p.error} />
      <input
        type={p.type ?? 'text'}
        id={p.id}
        name={p.name}
        value={p.value}
        autocomplete={p.autocomplete}
        inputmode={p.inputmode}
        maxlength={p.maxlength}
        required={p.required}
        autofocus={p.autofocus}
        spellcheck={p.type === 'email' || p.type === 'tel' ? 'false' : undefined}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy(p.id, Boolean(p.hint), Boolean(p.error))}
      />
    </div>
  );
}

export interface SelectFieldProps {
  id: string;
  name: string;
  label: string;
  value: string;
  options: ReadonlyArray<readonly [string, string]>;
  /** The first, empty option ("Choose …"); none when absent. */
  placeholder?: string;
  error?: string;
  hint?: string;
  required?: boolean;
}

/** A <select> with its label, hint and message; a value sent that is not an option is kept as one (shown as sent). */
export function SelectField(p: SelectFieldProps): SafeHtml {
  const known = p.value === '' || p.options.some(([value]) => value === p.value);
  return (
    <div class={p.error ? 'field admin-field-invalid' : 'field'}>
      <label for={p.id}>{p.label}</label>
      {p.hint ? (
        <p class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </p>
      ) : null}
      <FieldMessage id={p.id} error={p.error} />
      <select id={p.id} name={p.name} required={p.required} aria-invalid={p.error ? 'true' : undefined} aria-describedby={describedBy(p.id, Boolean(p.hint), Boolean(p.error))}>
        {p.placeholder !== undefined ? (
          <option value="" selected={p.value === ''}>
            {p.placeholder}
          </option>
        ) : null}
        {p.options.map(([value, label]) => (
          <option value={value} selected={value === p.value}>
            {label}
          </option>
        ))}
        {known ? null : (
          <option value={p.value} selected>
            {p.value}
          </option>
        )}
      </select>
    </div>
  );
}

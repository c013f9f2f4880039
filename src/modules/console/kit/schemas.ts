// The console's request schemas, declared with TypeBox like the API's: each route says what its
// path, query and form carry, and reads them typed. consoleScope (http.ts) hides them from the
// OpenAPI document and checks them after the session and the CSRF token, as the pages did by hand:
// a signed-out visitor is still sent to sign in and a forged form refused as forged; then a path
// that names nothing answers the 404 page, and a query or form that is not one of ours the 400 page.
import { Type, type StringOptions, type TProperties } from '@sinclair/typebox';
import { FORM_KEY_FIELD } from './actions.tsx';
import { CSRF_FIELD } from './http.ts';

/** An optional text of a query or form (an empty one reads as absent: `given`). */
export const Text = (options: StringOptions = {}) => Type.Optional(Type.String(options));

/**
 * An id or number in an address, a bigint identity (a key's client_id, a batch's number, a
 * settlement account's id, a request's request_id…): up to 16 digits; anything else names nothing (404).
 */
export const PathId = Type.String({ pattern: '^[1-9][0-9]{0,15}$' });

/** A PathId's number; one beyond the safe integers (the pattern bounds digits, not value) names nothing. */
export function pathId(value: string, notFound: () => Error): number {
  const id = pathNumber(value);
  if (id === undefined) throw notFound();
  return id;
}

/** A query string's fields; other fields (lang, notice) pass, as links add them. */
export const Query = <P extends TProperties>(fields: P) => Type.Object(fields);

/** A form's fields, with the CSRF token and the form key every state-changing form carries. */
export const Form = <P extends TProperties>(fields: P) => Type.Object({ [CSRF_FIELD]: Text(), [FORM_KEY_FIELD]: Text(), ...fields });

/** A query or form field as given, an empty one as absent (a form's empty filter means "any"). */
export function given(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A PathId's number, or undefined beyond the safe integers (the pattern bounds its digits, not its value). */
export function pathNumber(value: string): number | undefined {
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

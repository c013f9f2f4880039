// Limits every request's input obeys, whatever its route: no text PostgreSQL cannot store (NUL,
// unpaired UTF-16 surrogates: they made the database refuse the statement, a 500), and no nesting
// deeper than any operation needs (unknown fields are ignored by the schemas but still walked by
// the idempotency fingerprint, which recursed until the stack overflowed, another 500), and no
// number that is not finite (Ajv's type coercion turns the strings "Infinity", "-Infinity" and
// "1e999" into ±Infinity, which then skips minimum and maximum and reached PostgreSQL: a 500).
// Iterative, so the check itself cannot overflow.
import { AppError } from './errors.ts';
import { fieldLabel } from './i18n.ts';

/** No operation's input nests anywhere near this deep (E8: body → transactions → line → field). */
export const MAX_INPUT_DEPTH = 32;

function storableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

function badText(name: string): AppError {
  return new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.text', params: { field: fieldLabel(name) } }] });
}

function badNumber(name: string): AppError {
  return new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.invalid', params: { field: fieldLabel(name) } }] });
}

const alwaysStorable = (_text: string) => true;

/**
 * Throws a 400 AppError when `input` (a parsed body or query) breaks one of the limits above.
 * `textKnownStorable`: the JSON it was parsed from had no \u escape, the only way JSON text can
 * spell a NUL or an unpaired surrogate (a raw control character is a syntax error, and decoding
 * UTF-8 never yields an unpaired surrogate), so its strings need no check.
 */
export function checkInput(input: unknown, rootName: string, textKnownStorable = false): void {
  const storable = textKnownStorable ? alwaysStorable : storableText;
  const stack: Array<{ value: unknown; depth: number; name: string }> = [{ value: input, depth: 0, name: rootName }];
  while (stack.length > 0) {
    const { value, depth, name } = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) throw badText(name);
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw badNumber(name);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    // Only what a JSON or query parser builds; a Buffer or stream body is the route's business.
    // The query parser's objects have a prototype of their own whose prototype is null (they
    // were skipped here, so a query's text and numbers went unchecked).
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== null && Object.getPrototypeOf(proto) !== null) continue;
    if (depth >= MAX_INPUT_DEPTH) throw new AppError('validation', 'detail.tooDeep', { limit: MAX_INPUT_DEPTH });
    // Strings and scalars are checked in place: a 50,000-line batch has 300,000 of them, and
    // pushing each onto the stack doubled the cost of this walk.
    if (Array.isArray(value)) {
      for (const item of value) {
        if (typeof item === 'string') {
          if (!storable(item)) throw badText(name);
        } else if (typeof item === 'number') {
          if (!Number.isFinite(item)) throw badNumber(name);
        } else if (typeof item === 'object' && item !== null) stack.push({ value: item, depth: depth + 1, name });
      }
    } else {
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        if (!storable(key)) throw badText(rootName);
        const item = (value as Record<string, unknown>)[key];
        if (typeof item === 'string') {
          if (!storable(item)) throw badText(key);
        } else if (typeof item === 'number') {
          if (!Number.isFinite(item)) throw badNumber(key);
        } else if (typeof item === 'object' && item !== null) stack.push({ value: item, depth: depth + 1, name: key });
      }
    }
  }
}

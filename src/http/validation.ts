// Ajv set-up and the translation of schema failures into one message per invalid field.
import { _, str, type Ajv, type ErrorObject, type KeywordCxt } from 'ajv';
import { actorProblem } from '../lib/actor.ts';
import { parseMinor, formatMajor } from '../lib/money.ts';
import { fieldLabel, hasMessage, t, type Lang, type MessageKey } from './i18n.ts';
import { utcDate } from './schemas.ts';

/** At most this many field messages in one problem: a 50,000-line body must not echo 50,000. */
export const MAX_FIELD_ERRORS = 100;

interface MoneyBounds {
  min: string;
  max: string;
}

/**
 * Characters (code points) in `text`: what minLength and maxLength count, as PostgreSQL's
 * varchar(n) does; an emoji is one character and two UTF-16 units.
 */
export function codePointLength(text: string): number {
  let length = 0;
  for (let at = 0; at < text.length; at++, length++) {
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) at++;
  }
  return length;
}

/**
 * minLength and maxLength as Ajv defines them (code points, the same errors), counted only when
 * the UTF-16 length cannot decide: a string has between length/2 and length code points. Ajv's
 * own keywords count every string's code points one by one: 12 of the 15 ms that validating a
 * 50,000-line E8 batch took.
 */
function stringLengthKeyword(keyword: 'minLength' | 'maxLength') {
  return {
    keyword,
    type: 'string' as const,
    schemaType: 'number' as const,
    error: {
      message: ({ schemaCode }: { schemaCode: unknown }) => str`must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${schemaCode as number} characters`,
      params: ({ schemaCode }: { schemaCode: unknown }) => _`{limit: ${schemaCode as number}}`,
    },
    code(cxt: KeywordCxt) {
      const { data, schemaCode, gen } = cxt;
      const count = gen.scopeValue('func', { ref: codePointLength });
      cxt.fail(
        keyword === 'maxLength'
          ? _`${data}.length > ${schemaCode} && ${count}(${data}) > ${schemaCode}`
          : _`${data}.length < ${schemaCode} || (${data}.length < 2 * ${schemaCode} && ${count}(${data}) < ${schemaCode})`,
      );
    },
  };
}

/** The `x-email` keyword: Ajv reads the errors of a failed call from the function itself. */
function checkEmail(enabled: boolean, data: string): boolean {
  const problem = enabled ? actorProblem(data) : undefined;
  if (!problem) return true;
  checkEmail.errors = [{ keyword: 'x-email', message: problem, params: { problem } }];
  return false;
}
checkEmail.errors = undefined as Array<Partial<ErrorObject>> | undefined;

export function ajvPlugins(ajv: Ajv): Ajv {
  for (const keyword of ['minLength', 'maxLength'] as const) ajv.removeKeyword(keyword).addKeyword(stringLengthKeyword(keyword));
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-message-limit', schemaType: 'number' });
  // Documentation only (http/openapi.ts writes it as anyOf): the handler checks it with its own message.
  ajv.addKeyword({ keyword: 'x-one-of-fields', schemaType: 'array' });
  // Every Email() field: no invisible characters, no local part mixing scripts (src/lib/actor.ts).
  ajv.addKeyword({
    keyword: 'x-email',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: checkEmail,
  });
  ajv.addKeyword({
    keyword: 'x-money',
    schemaType: 'object',
    // The bounds are parsed once per schema, not once per value.
    compile: (bounds: MoneyBounds) => {
      const min = parseMinor(bounds.min) ?? 0;
      const max = parseMinor(bounds.max) ?? 0;
      return (data: unknown) => {
        if (typeof data !== 'number' && typeof data !== 'string') return true; // `type` reports it
        const minor = parseMinor(data);
        return minor !== undefined && minor >= min && minor <= max;
      };
    },
  });
  // DateOrDateTime() fields (src/http/schemas.ts): a real day, handed on as its UTC YYYY-MM-DD.
  ajv.addKeyword({
    keyword: 'x-utc-date',
    type: 'string',
    schemaType: 'boolean',
    modifying: true,
    validate: (enabled: boolean, data: string, _parent?: unknown, cxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }) => {
      if (!enabled) return true;
      const day = utcDate(data);
      if (day === undefined) return false;
      if (cxt?.parentData && cxt.parentDataProperty !== undefined) cxt.parentData[cxt.parentDataProperty] = day;
      return true;
    },
  });
  return ajv;
}

export const AJV_OPTIONS = {
  // Report every invalid field, not just the first; bodies are size-limited and arrays capped.
  allErrors: true,
  // parentSchema in errors lets us find the field's own message (`x-message`).
  verbose: true,
  coerceTypes: 'array' as const,
  useDefaults: true,
  removeAdditional: true,
  // Amounts are `number | string` (product.md §1).
  allowUnionTypes: true,
};

function pathLabel(segments: string[]): string {
  const last = [...segments].reverse().find((s) => !/^\d+$/.test(s)) ?? 'body';
  const label = fieldLabel(last);
  if (!segments.some((s) => /^\d+$/.test(s))) return label;
  const where = segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '');
  return `${label} (${where})`;
}

function typeName(lang: Lang, type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((x) => (hasMessage(`type.${x}`) ? t(lang, `type.${x}` as MessageKey) : String(x))).join(' / ');
}

function messageFor(lang: Lang, err: ErrorObject, label: string): string {
  const own = (err.parentSchema as Record<string, unknown> | undefined) ?? {};
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') {
    return t(lang, 'field.required', { field: label });
  }
  // Before x-message: Email()'s own message (length and format) would not say what is wrong.
  if (err.keyword === 'x-email') {
    return t(lang, (params.problem === 'invisible' ? 'field.emailInvisible' : 'field.emailMixedScripts') as MessageKey, { field: label });
  }
  const custom = own['x-message'];
  if (typeof custom === 'string' && hasMessage(custom)) {
    return t(lang, custom, { field: label, limit: Number(own['x-message-limit'] ?? own.maxLength ?? 0) });
  }
  switch (err.keyword) {
    case 'type':
      return t(lang, 'field.type', { field: label, type: typeName(lang, params.type) });
    case 'minimum':
    case 'exclusiveMinimum':
      return t(lang, 'field.minimum', { field: label, limit: String(params.limit) });
    case 'maximum':
    case 'exclusiveMaximum':
      return t(lang, 'field.maximum', { field: label, limit: String(params.limit) });
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return t(lang, `field.${err.keyword}`, { field: label, limit: String(params.limit) });
    case 'pattern':
      return t(lang, 'field.pattern', { field: label });
    case 'format':
      return t(lang, 'field.format', { field: label, format: String(params.format) });
    case 'enum':
      return t(lang, 'field.enum', { field: label, values: ((params.allowedValues as unknown[]) ?? []).join(', ') });
    case 'x-money': {
      const bounds = own['x-money'] as MoneyBounds;
      return t(lang, 'field.money', { field: label, min: formatMajor(parseMinor(bounds.min) ?? 0), max: formatMajor(parseMinor(bounds.max) ?? 0) });
    }
    default:
      return t(lang, 'field.invalid', { field: label });
  }
}

/** One message per invalid field, in document order, at most MAX_FIELD_ERRORS. */
export function fieldMessages(lang: Lang, errors: ErrorObject[]): string[] {
  const seen = new Set<string>();
  const messages: string[] = [];
  for (const err of errors) {
    const segments = err.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (err.keyword === 'required') segments.push(String((err.params as { missingProperty: string }).missingProperty));
    const path = segments.join('/');
    // anyOf/oneOf wrappers repeat what their branches already said.
    if (seen.has(path) || err.keyword === 'anyOf' || err.keyword === 'oneOf') continue;
    seen.add(path);
    messages.push(messageFor(lang, err, pathLabel(segments)));
    if (messages.length >= MAX_FIELD_ERRORS) break;
  }
  return messages;
}

// Schemas shared by many routes. Each carries its own limits, so no string or number enters the
// service unbounded. `x-message` names the i18n message used when the field fails validation.
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';

export const MerchantAccountNumber = Type.Integer({
  minimum: 10000000,
  maximum: 99999999,
  description: 'Merchant account number (8 digits, 10000000–99999999).',
  examples: [10010001],
  'x-message': 'field.merchantAccountNumber',
});

export const OrganisationId = Type.String({
  minLength: 12,
  maxLength: 12,
  pattern: '^[A-Za-z0-9]{12}$',
  description: 'Organisation identifier (12 upper-case alphanumerics).',
  examples: ['FYH0NTVW0DXK'],
});

export const EMAIL_MAX_LENGTH = 120;
export const Email = (maxLength = EMAIL_MAX_LENGTH) =>
  Type.String({
    minLength: 3,
    maxLength,
    // Deliberately simple: local@domain.tld, no spaces. RFC 5322 in full accepts too much.
    pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
    description: 'E-mail address of the acting user.',
    examples: ['ops@example.mw'],
    'x-message': 'field.email',
    'x-message-limit': maxLength,
    // No invisible characters, no local part mixing scripts: 400 naming the field (src/lib/actor.ts).
    'x-email': true,
  });

export const ConnectorId = Type.Integer({ minimum: 100000, maximum: 999999, description: 'Connector id (6 digits).', examples: [212188] });

/**
 * An amount: a JSON number or a numeric string ("8375000.00"), at most 2 decimals, within
 * [min, max] (in major units, MWK). Checked by the `x-money` keyword without floating point; the
 * service converts it to integer minor units with `toMinor`.
 * `string` comes first on purpose: Ajv (coerceTypes) coerces a value of neither type to the first
 * listed one, and true → "true" fails `x-money`, where true → 1 would have credited 1.00.
 */
export function Money(min: string, max: string, description = 'Amount, at most 2 decimals.'): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({ type: ['string', 'number'], description, examples: [min === '0.01' ? 1500 : Number(min)], 'x-money': { min, max } });
}

export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC date-time.' });
export const NullableDateTime = Type.Union([DateTime, Type.Null()]);
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * A date, or a date-time taken as its UTC date (issue 14: the gateway's own examples send
 * "2026-11-24T08:43:21.699084" and "2025-09-19T12:47:31.183Z" where a date is asked for). A
 * date-time without a zone is UTC; one with an offset is moved to UTC first. The `x-utc-date`
 * keyword (src/http/validation.ts) checks the calendar and replaces the value with YYYY-MM-DD, so
 * handlers only ever see a date; `utcDate` does the same for values that do not pass a schema.
 */
const DATE_OR_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}(:?\\d{2})?)?)?$';
export const DateOrDateTime = (description: string, examples: string[] = ['2025-09-19', '2025-09-19T12:47:31.183Z']) =>
  Type.String({ maxLength: 40, pattern: DATE_OR_DATE_TIME, 'x-utc-date': true, 'x-message': 'field.dateOrDateTime', description, examples });

const civilDays = (y: number, m: number, d: number): number => {
  // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
};

/** YYYY-MM-DD of `text` (a date, or a date-time at its UTC date); undefined if it is neither, or names no real day or time. */
export function utcDate(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|([+-])(\d{2}):?(\d{2})?)?)?$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const daysInMonth = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth[mo - 1] || h > 23 || mi > 59 || s > 60) return undefined;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const day = Math.floor((civilDays(y, mo, d) * 1440 + h * 60 + mi - offset) / 1440);
  // Back from days to a civil date (days_from_civil's inverse).
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const dd = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mm = mp < 10 ? mp + 3 : mp - 9;
  const yyyy = yoe + era * 400 + (mm <= 2 ? 1 : 0);
  if (yyyy < 0 || yyyy > 9999) return undefined;
  return `${String(yyyy).padStart(4, '0')}-${String(mm).padStart(2, '0')}-${String(dd).padStart(2, '0')}`;
}

/**
 * A status or type code answered as a string, with every value it can take listed (an enum, for
 * the document and the clients generated from it, rather than values in prose). Static type
 * string: the handlers answer what the database holds, and the enum documents the closed set.
 */
export function Code(values: readonly string[], description: string): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', enum: [...values], description });
}

/**
 * Gives shared schemas their names in the OpenAPI document: each gets a `title`, and
 * http/openapi.ts says every titled object schema once in components.schemas and refers to it by
 * $ref (a generated client's named types). Only the document reads the title.
 */
export function named(schemas: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(schemas)) (schema as { title?: string }).title ??= name;
}

/** A bare JSON string answer, e.g. "API key has been created successfully". */
export const Message = Type.String({ description: 'Confirmation message.' });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    errorCode: Type.String({ description: 'E900 validation, E901 unauthorized, E903 not found, E907 idempotency, E905 rate limit, E91x business rules, E950 internal, E952 unavailable.' }),
    detail: Type.String(),
    instance: Type.String(),
    errors: Type.Array(Type.String()),
    requestId: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' },
);

export const MerchantQuery = Type.Object({ merchantAccountNumber: MerchantAccountNumber });

export function withDescription<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

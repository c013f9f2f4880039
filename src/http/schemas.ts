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

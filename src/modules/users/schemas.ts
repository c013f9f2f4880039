import { Type } from '@sinclair/typebox';
import { DateTime, Email, MerchantAccountNumber, NullableDateTime, OrganisationId, withDescription, named, Code } from '../../http/schemas.ts';

export const NAME_MAX_LENGTH = 60;

export const UserId = Type.String({
  minLength: 36,
  maxLength: 36,
  pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  description: 'The user\'s id (a UUID), as in the add answer\'s message and X-User-Id header.',
  examples: ['6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a11'],
  'x-message': 'field.userId',
});

export const PersonName = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
    // Something besides spaces, and no control characters (names go into e-mails).
    pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f]+$',
    description,
    'x-message': 'field.personName',
    'x-message-limit': NAME_MAX_LENGTH,
  });

/**
 * A Malawian mobile number in any of the ways people write it: 265XXXXXXXXX, +265XXXXXXXXX or
 * 0XXXXXXXXX, where the 9-digit national number starts with 8 (TNM) or 9 (Airtel). Stored as
 * 265XXXXXXXXX (normalisePhone).
 */
export const PhoneNumber = Type.String({
  minLength: 10,
  maxLength: 13,
  pattern: '^(?:\\+?265|0)[89][0-9]{8}$',
  description: 'Malawian mobile number: 265XXXXXXXXX, +265XXXXXXXXX or 0XXXXXXXXX (national number of 9 digits starting 8 or 9); answered as 265XXXXXXXXX.',
  examples: ['265991234567', '0881234567'],
  'x-message': 'field.phoneMalawi',
});

export function normalisePhone(phone: string): string {
  const digits = phone.startsWith('+') ? phone.slice(1) : phone;
  return digits.startsWith('0') ? `265${digits.slice(1)}` : digits;
}

/** A role code as the gateway's documentation writes them (MERC_ADMIN), or a role number as text ("4"). */
export const ROLE_CODE_PATTERN = '^[A-Za-z0-9_]{1,20}$';

/**
 * A role: its code as the gateway documents it ("MERC_ADMIN"; any case), or its number. `string`
 * comes first on purpose: Ajv (coerceTypes) coerces a value of neither type to the first listed
 * one, so `true` becomes "true" (an unknown role, 400), never 1 (Administrator).
 */
export const RoleId = Type.Unsafe<string | number>({
  type: ['string', 'integer'],
  minLength: 1,
  maxLength: 20,
  pattern: ROLE_CODE_PATTERN,
  minimum: 1,
  maximum: 32767,
  description:
    'The role, by code as the gateway documents it, or by number: MERC_ADMIN or 1 (Merchant Administrator), MERC_INITIATOR or 2 (Merchant Initiator), MERC_REVIEWER or 3 (Merchant Reviewer), MERC_APPROVER or 4 (Merchant Approver), MERC_VIEWER or 5 (Merchant Viewer).',
  examples: ['MERC_ADMIN', 2],
});

/** The gateway's organisation type of a merchant's users (its roles are MER roles). */
export const OrganisationTypeCode = Type.Unsafe<string>({ type: 'string', enum: ['MER'], description: 'The organisation type: MER (a merchant\'s users), as the gateway documents it.', examples: ['MER'] });

/**
 * Who made a change: the gateway documents `changedBy` as "email or identifier of the operator".
 * At most 120 characters (the audit columns), something besides spaces, no control characters.
 */
export const ChangedBy = Type.String({
  minLength: 1,
  maxLength: 120,
  pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f]+$',
  description: 'E-mail address or identifier of whoever makes the change (1–120 characters).',
  examples: ['ops.admin@example.com'],
});

/**
 * A userId as the gateway's `merchantUsers/get` example sends it (`"userId": 8`, a number, or a
 * string): any value is taken, and one that is not a user's id (a UUID) of the merchant is 404.
 */
export const UserRef = Type.Unsafe<string | number>({
  type: ['string', 'integer'],
  minLength: 1,
  maxLength: 64,
  description: 'The user\'s id (a UUID, as in the add answer). The gateway\'s example sends a number; anything that is not one of the merchant\'s user ids answers 404.',
  examples: ['6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a11'],
});

// null comes first in the unions below: Ajv (coerceTypes) would turn null into "" or 0 in a first
// string or integer branch.
/** The body of activate and close: the gateway's {merchantAccountNumber, userId, changedBy, reasonId?, comments?}. */
export const StatusChangeBody = Type.Object({
  organisationId: Type.Optional(OrganisationId),
  merchantAccountNumber: MerchantAccountNumber,
  userId: UserId,
  changedBy: Type.Optional(ChangedBy),
  modifiedBy: Type.Optional(withDescription(Email(), 'Earlier name of changedBy, still accepted. One of the two is required.')),
  // One schema of two types rather than a union: Ajv's array coercion ([301] → 301) mutates the
  // value inside an anyOf branch and let an array through to the service (found by the fuzzer).
  reasonId: Type.Optional(
    Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 2147483647,
      description: 'Why the status changed (a reason id), kept in the status change audit trail; 0 or null: none given.',
      examples: [101],
    }),
  ),
  comments: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 500 })], { description: 'Free-form notes for the status change audit trail (at most 500 characters).' })),
});

/** One claim of getMerchantClaims, as the gateway documents it. */
export const Claim = Type.Object({
  claimType: Type.String({ description: 'MerchantAccountName, MerchantStatusCode, LevelNumber, LevelName, MerchantAccountNumber, OrganisationId, OrganisationTypeCode, Role, UserRole, and ours: UserId, EmailAddress, UserStatusCode, Permission.' }),
  claimValue: Type.String(),
});

export const MerchantUser = Type.Object({
  organisationId: Type.String(),
  merchantAccountNumber: Type.Integer(),
  userId: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  emailAddress: Type.String(),
  phoneNumber: Type.String({ description: '265XXXXXXXXX.' }),
  roleId: Type.Integer({ description: 'The role\'s number (1–5).' }),
  roleCode: Type.String({ description: 'The role\'s code, as the gateway names it: MERC_ADMIN, MERC_INITIATOR, MERC_REVIEWER, MERC_APPROVER, MERC_VIEWER.' }),
  roleName: Type.String({ description: 'E.g. Merchant Administrator.' }),
  statusCode: Code(['A', 'C'], 'A active, C closed.'),
  statusName: Type.String(),
  isEmailConfirmed: Type.Boolean({ description: 'True once the user has set a password from the e-mailed link (which confirms the address).' }),
  isPasswordSet: Type.Boolean({ description: 'Same as isEmailConfirmed (the earlier name).' }),
  capturedBy: Type.String(),
  dateCaptured: DateTime,
  dateCreated: withDescription(DateTime, 'Same as dateCaptured (the earlier name).'),
  modifiedBy: Type.Union([Type.String(), Type.Null()]),
  dateModified: NullableDateTime,
});

// Their names in the OpenAPI document's components.schemas.
named({ MerchantUser, Claim });

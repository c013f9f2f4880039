import { Type } from '@sinclair/typebox';
import { DateTime, NullableDateTime } from '../../http/schemas.ts';

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

export const RoleId = Type.Integer({ minimum: 1, maximum: 32767, description: '1 Administrator, 2 Initiator, 3 Reviewer, 4 Approver, 5 Viewer.', examples: [2] });

export const MerchantUser = Type.Object({
  organisationId: Type.String(),
  merchantAccountNumber: Type.Integer(),
  userId: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  emailAddress: Type.String(),
  phoneNumber: Type.String({ description: '265XXXXXXXXX.' }),
  roleId: Type.Integer(),
  roleName: Type.String(),
  statusCode: Type.String({ description: 'A active, C closed.' }),
  statusName: Type.String(),
  isPasswordSet: Type.Boolean({ description: 'Whether the user has set a password through the invitation link.' }),
  capturedBy: Type.String(),
  dateCreated: DateTime,
  modifiedBy: Type.Union([Type.String(), Type.Null()]),
  dateModified: NullableDateTime,
});

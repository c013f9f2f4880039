import { Type } from '@sinclair/typebox';
import { named, Code } from '../../http/schemas.ts';

export const AccountId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Settlement account id.', examples: [1001] });
export const BankAccountNumber = Type.String({ pattern: '^[0-9]{10,16}$', description: 'Bank account number, 10–16 digits.', examples: ['1005638723'] });
export const AccountName = Type.String({ minLength: 1, maxLength: 100, description: 'Account holder.' });

export const SettlementAccount = Type.Object({
  accountId: Type.Integer(),
  merchantAccountNumber: Type.Integer(),
  accountNumber: Type.String(),
  connectorId: Type.Integer(),
  connectorName: Type.String(),
  accountName: Type.String(),
  statusCode: Code(['A', 'I'], 'A active, I inactive.'),
  statusName: Type.String(),
  isActive: Type.Boolean(),
  capturedBy: Type.String(),
  dateCreated: Type.String({ format: 'date-time' }),
  modifiedBy: Type.Union([Type.String(), Type.Null()]),
  dateModified: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

// Their names in the OpenAPI document's components.schemas.
named({ SettlementAccount });

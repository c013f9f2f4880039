import { Type } from '@sinclair/typebox';

export const MerchantAccount = Type.Object({
  organisationId: Type.String(),
  accountName: Type.String(),
  merchantAccountNumber: Type.Integer(),
  paymentAccountNumber: Type.String({ description: 'Account number customers pay into directly (E11 beneficiaryAccountNumber).' }),
  accountBalance: Type.Number({ description: 'collectionBalance + disbursmentBalance.' }),
  collectionBalance: Type.Number(),
  disbursmentBalance: Type.Number({ description: 'Spelled as the gateway spells it.' }),
  currencyCode: Type.String(),
  levelNumber: Type.Integer({ description: '1 initiator only, 2 initiator + approver, 3 initiator + reviewer + approver.' }),
  levelName: Type.String(),
  statusCode: Type.String(),
  statusName: Type.String(),
  capturedBy: Type.String(),
  dateCreated: Type.String({ format: 'date-time' }),
});

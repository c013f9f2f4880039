import { Type } from '@sinclair/typebox';

export const Funding = Type.Object({
  fundingId: Type.Integer(),
  merchantAccountNumber: Type.Integer(),
  currencyCode: Type.String(),
  amount: Type.Number(),
  bankReference: Type.String({ description: 'Upper-cased as stored.' }),
  receivedOn: Type.String({ format: 'date' }),
  recordedBy: Type.String(),
  transactionReferenceNumber: Type.String({ description: 'The ledger transfer that credited the disbursement balance.' }),
  dateRecorded: Type.String({ format: 'date-time' }),
});

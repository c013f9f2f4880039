import { Type } from '@sinclair/typebox';

export const TimedAccountNumber = Type.String({ pattern: '^1[0-9]{7}$', description: 'Timed account number: 8 digits beginning with 1.', examples: ['13456789'] });
export const TransactionReference = Type.String({ pattern: '^[A-Za-z0-9]{12}$', description: 'Transaction reference number (12 alphanumerics).', examples: ['251220XF152G'] });

export const TimedAccount = Type.Object({
  merchantAccountNumber: Type.Integer(),
  timedAccountNumber: Type.String(),
  expiryDate: Type.String({ format: 'date-time' }),
  expiryInMinutes: Type.Integer(),
});

export const CollectionResult = Type.Object({
  beneficiary: Type.Object({ accountNumber: Type.String(), accountName: Type.String(), amountReceived: Type.Number(), currencyCode: Type.String() }),
  source: Type.Object({
    accountNumber: Type.String(),
    customerName: Type.String(),
    amountSent: Type.Number(),
    currencyCode: Type.String(),
    sourceReferenceNumber: Type.String(),
    connectorId: Type.Integer(),
    connectorName: Type.String(),
  }),
  transaction: Type.Object({
    transactionReferenceNumber: Type.String(),
    transactionFee: Type.Number(),
    transactionDescription: Type.String(),
    transactionDate: Type.String({ format: 'date-time' }),
    valueDate: Type.String({ format: 'date-time' }),
    transactionCode: Type.String(),
    transactionTypeName: Type.String(),
    transactionStatusCode: Type.String({ description: 'S successful, R reversed.' }),
    transactionStatusName: Type.String(),
    bridgeReferenceNumber: Type.String(),
    responseCode: Type.String(),
    responseMessage: Type.String(),
  }),
  metaData: Type.Optional(
    Type.Object(
      {
        timedAccountNumber: Type.String(),
        referenceNumber: Type.Union([Type.String(), Type.Null()], { description: "The E12 referenceNumber; for a hosted checkout, the shop's sourceReferenceNumber exactly as sent." }),
        ReferenceNumber: Type.Optional(Type.String({ description: 'Hosted checkout: the same, as shops written for the gateway spell it.' })),
        paymentTransactionId: Type.Optional(Type.String({ description: 'Hosted checkout: the id its initiate answer gave.' })),
      },
      { description: 'Request-to-pay payments only.' },
    ),
  ),
});

import { Type } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { Email, MerchantAccountNumber, Money, Code, named } from '../../http/schemas.ts';

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
    currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
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
    transactionCode: Code(['BAM', 'RTP'], 'BAM direct payment, RTP request to pay.'),
    transactionTypeName: Type.String(),
    transactionStatusCode: Code(['S', 'R'], 'S successful, R reversed.'),
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

// The request bodies of E12 and E11, apart from their routes: the console's forms are checked
// against the same schemas (console/get-paid/limits.ts, console/sandbox/queries.ts).
export const ReferenceNumber = Type.String({ minLength: 5, maxLength: 25, pattern: '^[A-Za-z0-9]+$', description: 'The merchant system\'s reference (5–25 alphanumerics), unique while its request is open.' });

/** The request body (the console checks its form against the same limits). */
export const RequestToPayBody = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionAmount: Money('0.01', '50000000', 'Amount the customer must pay, at most 2 decimals.'),
  transactionDescription: Type.String({ minLength: 1, maxLength: 200 }),
  referenceNumber: ReferenceNumber,
  capturedBy: Email(),
}, {
  examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, transactionAmount: '2500.00', transactionDescription: 'School shoes, size 5', referenceNumber: 'ORDER10001', capturedBy: EXAMPLE.actor }],
});

/** The request body (the console checks its form against the same limits). */
export const CustomPaymentBody = Type.Object({
  beneficiaryAccountNumber: Type.String({ minLength: 10, maxLength: 15, pattern: '^[0-9]+$', description: 'The merchant\'s payment account number.' }),
  connectorId: Type.Integer({ minimum: 100000, maximum: 999999, description: 'Connector the customer pays from (6 digits).' }),
  transactionAmount: Money('0.01', '50000000', 'Greater than 0 and at most 50,000,000.'),
  createdBy: Email(60),
}, {
  examples: [{ beneficiaryAccountNumber: EXAMPLE.paymentAccountNumber, connectorId: EXAMPLE.wallet.connectorId, transactionAmount: '50000.00', createdBy: EXAMPLE.actor }],
});

// Their names in the OpenAPI document's components.schemas.
named({ TimedAccount, CollectionResult });

// The webhook events as the OpenAPI document's `webhooks` section describes them (issue 30): one
// schema per payload shape (payloads.ts builds them), one entry per event code, each with an
// example built by the same payload functions, so that the document cannot drift from what
// receivers get. The examples are fixed (not samplePayload's random ids): the document, and the
// clients generated from it, are the same on every start.
import { Type, type TSchema } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { EXAMPLE_DATE_TIME } from '../../http/example-values.ts';
import { Code, NullableString } from '../../http/schemas.ts';
import { PAYOUT } from '../disbursements/lifecycle.ts';
import { EVENT_CODES, type EventCode } from './catalogue.ts';
import { batchPayload, paymentPayload, payoutPayload, sampleLine, type PayoutLine } from './payloads.ts';


const PaymentEvent = Type.Object(
  {
    eventCode: Code(EVENT_CODES.filter((c) => c.startsWith('payment.') || c.startsWith('payrequest.')), 'The event.'),
    merchantAccountNumber: Type.Integer(),
    connectorId: Type.Integer(),
    connectorName: Type.String(),
    sourceInstitution: Type.String({ description: 'The institution the customer paid from.' }),
    sourceAccountNumber: Type.String(),
    sourceAccountName: Type.String(),
    sourceReferenceNumber: Type.String(),
    beneficiaryAccountNumber: Type.String(),
    transactionReferenceNumber: Type.String(),
    transactionDescription: Type.String(),
    transactionAmount: Type.Number({ description: 'MWK.' }),
    transactionFee: Type.Number({ description: 'MWK.' }),
    currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
    transactionDate: Type.String({ format: 'date-time' }),
    transactionCode: Code(['RTP', 'BAM'], 'RTP a request to pay (timed account), BAM a payment into the payment account.'),
    transactionStatusCode: Code(['S', 'R'], 'S successful, R reversed.'),
    responseCode: Code(['S100', 'R100'], 'S100 successful, R100 reversed.'),
    responseMessage: Type.String(),
    metaData: Type.Optional(
      Type.Object(
        {
          timedAccountNumber: Type.String(),
          referenceNumber: Type.String({ description: "The merchant's reference of the request to pay." }),
          ReferenceNumber: Type.Optional(Type.String({ description: "A hosted checkout's: the shop's reference as sent (the gateway's spelling)." })),
          paymentTransactionId: Type.Optional(Type.String({ description: "A hosted checkout's payment id." })),
        },
        { description: 'payrequest.* only: the timed account and the request to pay it answered.' },
      ),
    ),
  },
  { description: 'payment.* and payrequest.*: a payment into the merchant, or its reversal.' },
);

const BatchEvent = Type.Object(
  {
    eventCode: Code(['batch.received', 'batch.failed'], 'The event.'),
    merchantAccountNumber: Type.Integer(),
    isBatchScheduled: Type.Boolean(),
    scheduledDate: NullableString,
    uploadType: Code(['JSON', 'CSV', 'XLSX'], 'How the batch came.'),
    capturerEmailAddress: Type.String(),
    dateCaptured: Type.String(),
    errorMessage: NullableString,
    metaData: Type.Object(
      {
        batchNumber: Type.String({ description: 'A string, as the gateway sends it (the API answers batchNumber as a number).' }),
        totalAmount: Type.String({ description: 'MWK with 2 decimals, a string as the gateway sends it.' }),
        numberOfTransactions: Type.String({ description: 'A string, as the gateway sends it.' }),
        dateOccurred: Type.String({ format: 'date-time' }),
      },
      { description: 'The four values are strings, as the gateway sends them.' },
    ),
  },
  { description: 'batch.received and batch.failed: a batch taken, or refused (errorMessage says why).' },
);

const PayoutEvent = Type.Object(
  {
    eventCode: Code(['payout.success', 'payout.failed', 'payout.reversed', 'batch.payout.success', 'batch.payout.failed', 'batch.payout.reversed'], 'The event.'),
    merchantAccountNumber: Type.Integer(),
    numberOfTransactions: Type.Integer(),
    transactions: Type.Array(
      Type.Object({
        batchNumber: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a single payout.' }),
        transactionReferenceNumber: Type.String(),
        sourceReferenceNumber: Type.String(),
        beneficiaryName: Type.String(),
        beneficiaryAccountNumber: Type.String(),
        connectorId: Type.Integer(),
        connectorName: Type.String(),
        transactionAmount: Type.Number(),
        transactionFee: Type.Number(),
        currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
        transactionStatusCode: Code(Object.values(PAYOUT), "The payout's status."),
        responseCode: Type.String(),
        responseMessage: Type.String(),
        transactionDate: Type.String({ format: 'date-time' }),
      }),
      { description: 'The payouts concerned (a batch event carries at most 10).' },
    ),
  },
  { description: 'payout.* and batch.payout.*: payouts that ended (paid, failed or reversed).' },
);

/** The payload schemas, by the name the document's components give them. */
export const WEBHOOK_SCHEMAS: Record<string, TSchema> = { PaymentEvent, BatchEvent, PayoutEvent };

function exampleLine(eventCode: EventCode): PayoutLine {
  return sampleLine(eventCode, {
    batchNumber: eventCode.startsWith('batch.') ? 100001 : null,
    transactionReferenceNumber: 'K7Q2M9X4C1PA',
    sourceReferenceNumber: 'PAY0001234',
    beneficiaryName: 'Tiyamike Phiri',
    beneficiaryAccountNumber: '111100000112',
    connectorId: 112400,
    connectorName: 'Airtel Money',
    transactionAmount: 75000,
    transactionDate: EXAMPLE_DATE_TIME,
  });
}

/** A fixed example of `eventCode`, built by the payload functions the features use. */
function example(eventCode: EventCode): { schema: string; value: object } {
  if (eventCode.startsWith('payment.') || eventCode.startsWith('payrequest.')) {
    const rtp = eventCode.startsWith('payrequest.');
    const fields = {
      merchantAccountNumber: EXAMPLE.merchantAccountNumber,
      connectorId: 112400,
      connectorName: 'Airtel Money',
      sourceInstitution: 'Airtel Money',
      sourceAccountNumber: '265991234567',
      sourceAccountName: 'Chisomo Banda',
      sourceReferenceNumber: 'SRC123456789',
      beneficiaryAccountNumber: EXAMPLE.paymentAccountNumber,
      transactionReferenceNumber: 'R4T8N2W6Q0ZB',
      transactionDescription: 'Order 1001',
      transactionAmount: 50000,
      transactionFee: 500,
      currencyCode: 'MWK',
      transactionDate: EXAMPLE_DATE_TIME,
      transactionCode: rtp ? 'RTP' : 'BAM',
    };
    return { schema: 'PaymentEvent', value: paymentPayload(eventCode, fields, rtp ? { timedAccountNumber: '12345678', referenceNumber: 'ORDER1001' } : undefined) };
  }
  if (eventCode === 'batch.received' || eventCode === 'batch.failed') {
    const b = { merchantAccountNumber: EXAMPLE.merchantAccountNumber, isBatchScheduled: false, scheduledDate: null, uploadType: 'JSON' as const, capturerEmailAddress: 'ops@example.mw', dateCaptured: EXAMPLE_DATE_TIME.slice(0, 10), errorMessage: eventCode === 'batch.failed' ? 'Insufficient balance to transfer funds for the batch.' : null, batchNumber: 100001, totalAmount: 125000, numberOfTransactions: 2, dateOccurred: EXAMPLE_DATE_TIME };
    return { schema: 'BatchEvent', value: batchPayload(eventCode, b) };
  }
  return { schema: 'PayoutEvent', value: payoutPayload(eventCode, EXAMPLE.merchantAccountNumber, [exampleLine(eventCode)]) };
}

/**
 * The document's `webhooks`: one POST per event code to the subscription's callbackUrl, its body
 * the event's payload, signed with the subscription's secret (Standard Webhooks headers).
 */
export function webhookDocument(): Record<string, object> {
  return Object.fromEntries(
    EVENT_CODES.map((code) => {
      const { schema, value } = example(code);
      return [
        code,
        {
          post: {
            summary: code,
            description: `Sent to every callbackUrl subscribed to ${code} (POST /merchants/webhooks/add), signed with the subscription's secret: headers webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks: HMAC-SHA256 with the subscription's signing secret), x-onekhusa-webhook-signature (the subscription's webhookSignature, which POST /merchants/webhooks/verify checks), X-OneKhusa-Webhook-Event and x-onekhusa-delivery-id. Any 2xx within the time-out acknowledges it; anything else is retried on the published schedule.`,
            operationId: `webhook${code.split('.').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`,
            tags: ['Webhooks'],
            requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example: value } } },
            responses: { '200': { description: 'Acknowledged (any 2xx).' } },
          },
        },
      ];
    }),
  );
}

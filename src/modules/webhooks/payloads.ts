// The flat payloads receivers get (product.md §11). Features build their events with these, and
// the sample events of POST /merchants/webhooks/test use them too, so a test delivery has exactly
// the shape of a real one.
import { randomDigits, randomUpperAlnum } from '../../lib/ids.ts';
import { PAYOUT } from '../disbursements/lifecycle.ts';
import type { EventCode } from './catalogue.ts';

export interface PaymentFields {
  merchantAccountNumber: number;
  connectorId: number;
  connectorName: string;
  /** The institution the customer paid from (the connector's institution). */
  sourceInstitution: string;
  sourceAccountNumber: string;
  sourceAccountName: string;
  sourceReferenceNumber: string;
  beneficiaryAccountNumber: string;
  transactionReferenceNumber: string;
  transactionDescription: string;
  transactionAmount: number;
  transactionFee: number;
  currencyCode: string;
  transactionDate: string;
  transactionCode: string;
}

/**
 * payrequest.* metaData: the timed account and the merchant's reference. A hosted checkout's
 * payment names the shop's own sourceReferenceNumber, exactly as sent (also as ReferenceNumber,
 * the spelling shops written for the gateway read), and its paymentTransactionId.
 */
export type PayRequestMeta =
  | { timedAccountNumber: string; referenceNumber: string }
  | { timedAccountNumber: string; referenceNumber: string; ReferenceNumber: string; paymentTransactionId: string };

/** payment.* and payrequest.*: "S" success with S100, "R" reversed. */
export function paymentPayload(eventCode: EventCode, p: PaymentFields, metaData?: PayRequestMeta) {
  const reversed = eventCode.endsWith('.reversed');
  return {
    eventCode,
    ...p,
    transactionStatusCode: reversed ? 'R' : 'S',
    responseCode: reversed ? 'R100' : 'S100',
    responseMessage: reversed ? 'Transaction reversed' : 'Transaction successful',
    ...(metaData ? { metaData } : {}),
  };
}

export interface BatchFields {
  merchantAccountNumber: number;
  isBatchScheduled: boolean;
  scheduledDate: string | null;
  uploadType: 'JSON' | 'CSV' | 'XLSX';
  capturerEmailAddress: string;
  dateCaptured: string;
  errorMessage: string | null;
  batchNumber: number;
  totalAmount: number;
  numberOfTransactions: number;
  dateOccurred: string;
}

/** batch.received / batch.failed: the four metaData values are strings, as the gateway sends them. */
export function batchPayload(eventCode: EventCode, b: BatchFields) {
  return {
    eventCode,
    merchantAccountNumber: b.merchantAccountNumber,
    isBatchScheduled: b.isBatchScheduled,
    scheduledDate: b.scheduledDate,
    uploadType: b.uploadType,
    capturerEmailAddress: b.capturerEmailAddress,
    dateCaptured: b.dateCaptured,
    errorMessage: b.errorMessage,
    metaData: {
      batchNumber: String(b.batchNumber),
      totalAmount: b.totalAmount.toFixed(2),
      numberOfTransactions: String(b.numberOfTransactions),
      dateOccurred: b.dateOccurred,
    },
  };
}

export interface PayoutLine {
  batchNumber: number | null;
  transactionReferenceNumber: string;
  sourceReferenceNumber: string;
  beneficiaryName: string;
  beneficiaryAccountNumber: string;
  connectorId: number;
  connectorName: string;
  transactionAmount: number;
  transactionFee: number;
  currencyCode: string;
  transactionStatusCode: string;
  responseCode: string;
  responseMessage: string;
  transactionDate: string;
}

/** payout.* and batch.payout.*: the transactions concerned (batch events in chunks of ≤ 10). */
export function payoutPayload(eventCode: EventCode, merchantAccountNumber: number, transactions: PayoutLine[]) {
  return { eventCode, merchantAccountNumber, numberOfTransactions: transactions.length, transactions };
}

/** A realistic example of `eventCode` for this merchant, for test deliveries. */
export function samplePayload(eventCode: EventCode, merchantAccountNumber: number, paymentAccountNumber: string, now: Date) {
  const date = now.toISOString();
  const reference = randomUpperAlnum(12);
  if (eventCode.startsWith('payment.') || eventCode.startsWith('payrequest.')) {
    const fields: PaymentFields = {
      merchantAccountNumber,
      connectorId: 112400,
      connectorName: 'Airtel Money',
      sourceInstitution: 'Airtel Money',
      sourceAccountNumber: '265991234567',
      sourceAccountName: 'Chisomo Banda',
      sourceReferenceNumber: `SRC${randomDigits(9)}`,
      beneficiaryAccountNumber: paymentAccountNumber,
      transactionReferenceNumber: reference,
      transactionDescription: 'Sample payment (test event)',
      transactionAmount: 50000,
      transactionFee: 500,
      currencyCode: 'MWK',
      transactionDate: date,
      transactionCode: eventCode.startsWith('payrequest.') ? 'RTP' : 'BAM',
    };
    const meta = eventCode.startsWith('payrequest.') ? { timedAccountNumber: randomDigits(8, '1'), referenceNumber: `ORDER${randomDigits(6)}` } : undefined;
    return paymentPayload(eventCode, fields, meta);
  }
  if (eventCode === 'batch.received' || eventCode === 'batch.failed') {
    return batchPayload(eventCode, {
      merchantAccountNumber,
      isBatchScheduled: false,
      scheduledDate: null,
      uploadType: 'JSON',
      capturerEmailAddress: 'ops@example.mw',
      dateCaptured: date.slice(0, 10),
      errorMessage: eventCode === 'batch.failed' ? 'Insufficient balance to transfer funds for the batch.' : null,
      batchNumber: Number(randomDigits(6)),
      totalAmount: 125000,
      numberOfTransactions: 2,
      dateOccurred: date,
    });
  }
  const line = (amount: number, account: string, connectorId: number, connectorName: string, name: string): PayoutLine =>
    sampleLine(eventCode, {
      batchNumber: eventCode.startsWith('batch.') ? Number(randomDigits(6)) : null,
      transactionReferenceNumber: randomUpperAlnum(12),
      sourceReferenceNumber: `PAY${randomDigits(7)}`,
      beneficiaryName: name,
      beneficiaryAccountNumber: account,
      connectorId,
      connectorName,
      transactionAmount: amount,
      transactionDate: date,
    });
  const lines = [line(75000, '111100000112', 112400, 'Airtel Money', 'Tiyamike Phiri')];
  if (eventCode.startsWith('batch.')) lines.push(line(50000, '3333888801', 212188, 'National Bank of Malawi', 'Kondwani Mwale'));
  return payoutPayload(eventCode, merchantAccountNumber, lines);
}

/** A sample payout of `eventCode` (its status, response code and message follow the event): test events and the document's examples. */
export function sampleLine(eventCode: EventCode, p: Omit<PayoutLine, 'transactionFee' | 'currencyCode' | 'transactionStatusCode' | 'responseCode' | 'responseMessage'>): PayoutLine {
  const status = eventCode.endsWith('.success') ? PAYOUT.successful : eventCode.endsWith('.failed') ? PAYOUT.failed : PAYOUT.reversed;
  const { transactionDate, ...first } = p;
  // In the order real payloads carry their fields.
  return {
    ...first,
    transactionFee: 100,
    currencyCode: 'MWK',
    transactionStatusCode: status,
    responseCode: `${status}100`,
    responseMessage: status === PAYOUT.successful ? 'Transaction successful' : status === PAYOUT.failed ? 'Beneficiary account not found' : 'Transaction reversed',
    transactionDate,
  };
}

// Request and response shapes of the disbursement endpoints (interface.md E3, E4, E8; product.md §9).
import { Type } from '@sinclair/typebox';
import { Code, DateOrDateTime, Email, MerchantAccountNumber, Money, NullableDateTime, NullableString, named } from '../../http/schemas.ts';
import { BATCH, PAYOUT } from './lifecycle.ts';

/** A batch's status (product.md §9); batchStatusDescription names it at the merchant's authorisation level. */
const BatchStatusCode = Code(Object.values(BATCH), `The batch's status: ${Object.entries(BATCH).map(([name, code]) => `${code} ${name}`).join(', ')}.`);
/** A payout's status: a batch's line or a single payout (product.md §9). */
const PayoutStatusCode = Code(Object.values(PAYOUT), `The transaction's status: ${Object.entries(PAYOUT).map(([name, code]) => `${code} ${name}`).join(', ')}.`);

export const MAX_BATCH_LINES = 50_000;
/** The largest single payout or batch line, MWK (the biggest transfer a merchant limit allows). */
export const MAX_PAYOUT_AMOUNT = '1000000000';

export const BatchNumber = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Batch number.', examples: [100001] });
export const PayoutReference = Type.String({ pattern: '^[A-Za-z0-9]{12}$', description: 'Transaction reference number (12 alphanumerics).', examples: ['251220XF152G'] });
export const ScheduledDate = DateOrDateTime('YYYY-MM-DD (UTC), from today to SCHEDULE_MAX_DAYS (default 365) days ahead; used when isBatchScheduled. A date-time counts as its UTC date.');

/** One payout as merchants send it (an E8 line, or the body of single/add). */
export const PayoutInputFields = {
  beneficiaryName: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the account holder.' }),
  connectorId: Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Connector of the beneficiary account (E9).', examples: [112400] }),
  beneficiaryAccountNumber: Type.String({
    minLength: 1,
    maxLength: 30,
    description: 'Wallets: 12-digit MSISDN starting 265 (or a documented test wallet); banks: 10–16 digits.',
    examples: ['265991234567'],
  }),
  transactionDescription: Type.String({ maxLength: 200, default: '' }),
  transactionAmount: Money('0.01', MAX_PAYOUT_AMOUNT),
  sourceReferenceNumber: Type.String({ minLength: 1, maxLength: 50, description: "The merchant system's reference; unique within a batch." }),
};

export const PayoutInput = Type.Object(PayoutInputFields);

/** One payout as the service takes it: a batch line or a single payout, amounts as sent. */
export interface PayoutInput {
  beneficiaryName: string;
  connectorId: number;
  beneficiaryAccountNumber: string;
  transactionDescription?: string;
  transactionAmount: number | string;
  sourceReferenceNumber: string;
}

export const BatchHeader = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  isBatchScheduled: Type.Boolean({ default: false }),
  scheduledDate: Type.Optional(Type.Union([ScheduledDate, Type.Null()])),
  capturedBy: Email(),
});

export const BatchAccepted = Type.Object({
  merchantAccountNumber: Type.Integer(),
  batchNumber: Type.Integer(),
  BatchStatusCode: Type.String({ description: 'Q (queued): validation runs in the background.' }),
});

/** What review/approve/reject/cancel/transferFunds answer (PascalCase, as the gateway does since Feb 2026). */
export const BatchActionResult = Type.Object({
  MerchantAccountNumber: Type.Integer(),
  BatchNumber: Type.Integer(),
  CurrencyCode: Type.String(),
  BatchStatusCode: Type.String(),
  NumberOfSuccessfulEntries: Type.Integer(),
  TotalAmountOfSuccessfulEntries: Type.Number(),
});

export const BatchActionBody = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  batchNumber: BatchNumber,
});

export const BatchSummary = Type.Object({
  batchNumber: Type.Integer(),
  capturedBy: Type.String(),
  dateCaptured: Type.String({ format: 'date' }),
  batchStatusCode: BatchStatusCode,
  batchStatusDescription: Type.String(),
  processDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  isBatchScheduled: Type.Boolean(),
  numberOfTransactions: Type.Integer(),
});


/** Who reviewed, approved or rejected a batch or a single payout, and when. */
const APPROVALS = {
  reviewedBy: NullableString,
  dateReviewed: NullableDateTime,
  approvedBy: NullableString,
  dateApproved: NullableDateTime,
  rejectedBy: NullableString,
  rejectionReason: NullableString,
  dateRejected: NullableDateTime,
};

export const BatchRecord = Type.Object({
  contentType: Type.String({ description: 'How the batch came in: "Microsoft Excel File" (addFile XLSX), "text/csv" (addFile CSV) or "application/json" (addJson).', examples: ['Microsoft Excel File'] }),
  dataSource: Type.String({ description: '"File" (addFile) or "JSON" (addJson).', examples: ['File'] }),
  authorisationLevel: Type.String({ description: 'The level the batch follows, by name: "Initiator Only", "Initiator -> Approver" or "Initiator -> Reviewer -> Approver".', examples: ['Initiator -> Reviewer -> Approver'] }),
  errorFileName: Type.Union([Type.String(), Type.Null()], { description: 'The invalid lines\' document (POST /disbursements/batch/downloadErrors) once validation found any; null otherwise.' }),
  actionedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who acted on the batch last after capturing it (review, approval, rejection, cancellation or funds transfer); null until then.' }),
  dateActioned: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The UTC day of that action (YYYY-MM-DD).', examples: ['2024-01-15'] }),
  merchantAccountNumber: Type.Integer(),
  batchNumber: Type.Integer(),
  batchStatusCode: BatchStatusCode,
  batchStatusDescription: Type.String(),
  uploadType: Type.String(),
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  levelNumber: Type.Integer(),
  isBatchScheduled: Type.Boolean(),
  scheduledDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  processDate: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  capturedBy: Type.String(),
  dateCaptured: Type.String({ format: 'date-time' }),
  ...APPROVALS,
  cancelledBy: NullableString,
  dateCancelled: NullableDateTime,
  transferredBy: NullableString,
  dateTransferred: NullableDateTime,
  dateCompleted: NullableDateTime,
  errorMessage: NullableString,
  numberOfEntries: Type.Integer(),
  numberOfValidEntries: Type.Integer(),
  numberOfInvalidEntries: Type.Integer(),
  numberOfSuccessfulEntries: Type.Integer(),
  numberOfFailedEntries: Type.Integer(),
  numberOfReversedEntries: Type.Integer(),
  totalAmount: Type.Number({ description: 'Sum of the valid lines.' }),
  totalFees: Type.Number(),
  totalAmountOfSuccessfulEntries: Type.Number(),
  totalAmountOfFailedEntries: Type.Number(),
  totalAmountOfReversedEntries: Type.Number(),
});

/** E3's items, with what a merchant needs to reconcile a line besides the documented fields. */
export const PayoutRecord = Type.Object({
  batchNumber: Type.Union([Type.Integer(), Type.Null()]),
  lineNumber: Type.Union([Type.Integer(), Type.Null()]),
  transactionReferenceNumber: Type.String(),
  sourceReferenceNumber: Type.String(),
  beneficiaryName: Type.String(),
  connectorId: Type.Integer(),
  connectorName: Type.String(),
  beneficiaryAccountNumber: Type.String(),
  transactionDescription: Type.String(),
  transactionAmount: Type.Union([Type.Number(), Type.Null()], {
    description: 'MWK. null only for an invalid line (E) of a file uploaded in the console whose amount was not a number of MWK with at most 2 decimals (errorMessage quotes it): it has no amount and is never paid.',
  }),
  transactionFee: Type.Number(),
  transactionCode: NullableString,
  transactionStatusCode: PayoutStatusCode,
  transactionStatusName: Type.String(),
  errorMessage: NullableString,
  responseCode: NullableString,
  responseMessage: NullableString,
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  capturedBy: Type.String(),
  dateCreated: Type.String({ format: 'date-time' }),
  dateTransferred: NullableDateTime,
  dateCompleted: NullableDateTime,
  dateReversed: NullableDateTime,
});


/** SinglePayoutRecord: a single payout (single/getTransaction and getTransactions' items). */
export const SinglePayoutRecord = Type.Object({
  ...PayoutRecord.properties,
  transactionDate: Type.String({ format: 'date', description: 'The UTC day it was captured.' }),
  levelNumber: Type.Integer({ minimum: 1, maximum: 3, description: 'The authorisation level it follows: 1 paid at once, 2 approved first, 3 reviewed and approved first.' }),
  ...APPROVALS,
});

/** batch/getTransaction: a batch line with its merchant account and the day it was processed. */
export const PayoutDetail = Type.Object({
  merchantAccountNumber: Type.Integer(),
  merchantAccountName: Type.String({ examples: ['MERCHANT SANDBOX'] }),
  ...PayoutRecord.properties,
  processedDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The UTC day the line reached its outcome (S or F); null until then.', examples: ['2025-10-30'] }),
});

/** single/getTransaction: a single payout with its merchant account, its type and the day it was processed. */
export const SinglePayoutDetail = Type.Object({
  merchantAccountName: Type.String({ examples: ['ABC Company Ltd'] }),
  merchantAccountNumber: Type.Integer(),
  ...SinglePayoutRecord.properties,
  transactionType: Type.String({ description: 'Always "Disbursement".', examples: ['Disbursement'] }),
  processedDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The UTC day the payout reached its outcome (S or F); null until then.', examples: ['2024-01-15'] }),
});

/** Empty: no search (the gateway's own examples send "searchText": ""). */
export const SearchText = Type.String({ minLength: 0, maxLength: 100, description: 'Case-insensitive text contained in the searchBy field; "" searches nothing.' });

export const LineStatusCode = Type.Union(Object.values(PAYOUT).map((c) => Type.Literal(c)), { description: 'One transaction status code.' });

// A document's download type and the document answered (batch/download, batch/downloadErrors).
// documents.ts's DownloadType (documents.ts reads files.ts, which reads this file).
export const DownloadTypeField = Type.Unsafe<'XLSX' | 'CSV'>({
  type: 'string',
  enum: ['XLSX', 'CSV'],
  default: 'XLSX',
  description: 'XLSX (the default): an Excel workbook; CSV: UTF-8 with a byte-order mark, CRLF line ends.',
});

export const Document = Type.Object({
  documentName: Type.String({ examples: ['Batch Disbursement Errors'] }),
  contentType: Type.String({ description: '"Microsoft Excel File" for a workbook, "text/csv" for CSV.', examples: ['Microsoft Excel File'] }),
  dateCreated: Type.String({ format: 'date-time' }),
  documentBase64: Type.String({ description: 'The file, base64-encoded.' }),
});

// Their names in the OpenAPI document's components.schemas.
named({ BatchAccepted, BatchActionResult, BatchSummary, BatchRecord, PayoutRecord, SinglePayoutRecord, PayoutDetail, SinglePayoutDetail, PayoutInput });

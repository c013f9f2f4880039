// POST /disbursements/batch/download — every line of a batch as a file (issue 14; docs.onekhusa.com,
// Download Batch): body {merchantAccountNumber, headerId, downloadType "XLSX" | "CSV"} (the
// documentation's other copy names the batch batchNumber: both are accepted), answered, as the
// documentation shows, with a JSON string: the file, base64-encoded.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { fieldLabel } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { tableDocument, type Cell } from '../documents.ts';
import { BATCH, LINE_STATUS_NAMES } from '../lifecycle.ts';
import { findBatch, listPayouts } from '../repository.ts';
import { BatchNumber, DownloadTypeField, MAX_BATCH_LINES } from '../schemas.ts';
import { lineError } from '../service.ts';
import { amountCell } from '../errors-document.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  headerId: Type.Optional({ ...BatchNumber, description: 'The batch number (the name the documentation gives it here).' }),
  batchNumber: Type.Optional({ ...BatchNumber, description: 'The batch number; either this or headerId.' }),
  downloadType: Type.Optional(DownloadTypeField),
}, { 'x-one-of-fields': ['headerId', 'batchNumber'] });

export const BATCH_FILE_COLUMNS = [
  'lineNumber',
  'transactionReferenceNumber',
  'beneficiaryName',
  'connectorId',
  'connectorName',
  'beneficiaryAccountNumber',
  'transactionDescription',
  'transactionAmount',
  'transactionFee',
  'currencyCode',
  'sourceReferenceNumber',
  'transactionStatusCode',
  'transactionStatusName',
  'responseCode',
  'responseMessage',
  'errorMessage',
] as const;

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/download', {
    schema: {
      tags: ['Disbursements'],
      summary: "Download a batch's transactions (Excel or CSV)",
      description: `Every line of the batch (at most ${MAX_BATCH_LINES.toLocaleString('en-US')}), in line order: ${BATCH_FILE_COLUMNS.join(', ')}. downloadType XLSX (the default) gives an Excel workbook, CSV a UTF-8 CSV with a byte-order mark. Name the batch by headerId or batchNumber. The answer is a JSON string: the file, base64-encoded. 404 for an unknown or another merchant's batch; 409 while it is still being validated (Q); 503 E952 with Retry-After while other documents are being prepared.`,
      body: Body,
      response: { 200: Type.String({ contentEncoding: 'base64', description: 'The file, base64-encoded (a JSON string).' }) },
    },
    handler: async (request, reply) => {
      const { merchantAccountNumber, headerId, batchNumber: named, downloadType = 'XLSX' } = request.body;
      const batchNumber = named ?? headerId;
      if (batchNumber === undefined) {
        throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: fieldLabel('batchNumber') } }] });
      }
      if (named !== undefined && headerId !== undefined && named !== headerId) {
        throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.invalid', params: { field: `${fieldLabel('headerId')} (≠ ${fieldLabel('batchNumber')})` } }] });
      }
      const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
      if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
      if (batch.status_code === BATCH.queued) throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
      const lines = await listPayouts(deps.db, batch.merchant_account_number, { batchNumber: batch.batch_number, offset: 0, limit: MAX_BATCH_LINES });
      const rows: Cell[][] = lines.map((l) => [
        l.line_number,
        l.transaction_reference_number,
        l.beneficiary_name,
        l.connector_id,
        l.connector_name ?? '',
        l.beneficiary_account_number,
        l.transaction_description,
        amountCell(l),
        { minor: l.fee_minor },
        l.currency_code,
        l.source_reference_number,
        l.status_code,
        LINE_STATUS_NAMES[l.status_code] ?? l.status_code,
        l.response_code,
        l.response_message,
        lineError(request.lang, l),
      ]);
      const file = await tableDocument(downloadType, 'Transactions', BATCH_FILE_COLUMNS, rows);
      return sendMessage(reply, 200, file.toString('base64'));
    },
  });
};
export default route;

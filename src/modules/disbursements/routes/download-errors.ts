// POST /disbursements/batch/downloadErrors — a batch's invalid lines as a document: an Excel
// workbook ("Microsoft Excel File", as the gateway answers) unless downloadType "CSV" asks for CSV
// (the option batch/download documents). The line number, the six input columns as stored and why
// the line is invalid, in the reader's language. A batch without invalid lines gives the header
// row alone.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import type { Lang } from '../../../http/i18n.ts';
import type { Deps, RouteModule } from '../../../http/types.ts';
import { CONTENT_TYPES, tableDocument, type DownloadType } from '../documents.ts';
import { FILE_COLUMNS } from '../files.ts';
import { findBatch, invalidLines } from '../repository.ts';
import { BatchActionBody } from '../schemas.ts';
import { lineError } from '../service.ts';

export const DownloadTypeField = Type.Unsafe<DownloadType>({
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

const Body = Type.Object({ ...BatchActionBody.properties, downloadType: Type.Optional(DownloadTypeField) });

/**
 * The document of a batch's invalid lines, in `lang` (the route's, and the console's error
 * workbook: console/routes/uploads.ts). 404 for a batch that is not the merchant's, 409 while it
 * is being validated, 503 while other documents are being built (tableDocument).
 */
export async function batchErrorsDocument(deps: Deps, lang: Lang, merchantAccountNumber: number, batchNumber: number, downloadType: DownloadType): Promise<Buffer> {
  const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
  if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
  if (batch.status_code === 'Q') throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
  const lines = await invalidLines(deps.db, batch.merchant_account_number, batch.batch_number);
  return tableDocument(
    downloadType,
    'Errors',
    ['lineNumber', ...FILE_COLUMNS, 'errorMessage'],
    lines.map((l) => [
      l.line_number,
      l.beneficiary_name,
      l.connector_id,
      l.beneficiary_account_number,
      l.transaction_description,
      { minor: l.amount_minor },
      l.source_reference_number,
      lineError(lang, l),
    ]),
  );
}

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/downloadErrors', {
    schema: {
      tags: ['Disbursements'],
      summary: "Download a batch's invalid lines (Excel or CSV)",
      description:
        'One row per invalid line: lineNumber, the six columns of addFile and errorMessage (fix them and upload the file again with addFile). An Excel workbook ("Microsoft Excel File", documentName "Batch Disbursement Errors") unless downloadType is "CSV" (text/csv, batch-<n>-errors.csv). 409 while the batch is still being validated (Q); 503 E952 with Retry-After while other documents are being prepared.',
      body: Body,
      response: { 200: { ...Document, description: 'The document: its name, content type, creation time and the file, base64-encoded.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, batchNumber, downloadType = 'XLSX' } = request.body;
      const file = await batchErrorsDocument(deps, request.lang, merchantAccountNumber, batchNumber, downloadType);
      return {
        documentName: downloadType === 'CSV' ? `batch-${batchNumber}-errors.csv` : 'Batch Disbursement Errors',
        contentType: CONTENT_TYPES[downloadType],
        dateCreated: deps.clock.now().toISOString(),
        documentBase64: file.toString('base64'),
      };
    },
  });
};
export default route;

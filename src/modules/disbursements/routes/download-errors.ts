// POST /disbursements/batch/downloadErrors — a batch's invalid lines as a document: an Excel
// workbook ("Microsoft Excel File", as the gateway answers) unless downloadType "CSV" asks for CSV
// (the option batch/download documents). The line number (a file's batch: the line's row in the
// file, errors-document.ts), the six input columns as stored and why the line is invalid, in the
// reader's language. A batch without invalid lines gives the header row alone.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { CONTENT_TYPES, ERRORS_DOCUMENT_NAME } from '../documents.ts';
import { BatchActionBody, Document, DownloadTypeField } from '../schemas.ts';
import { batchErrorsDocument } from '../errors-document.ts';

const Body = Type.Object({ ...BatchActionBody.properties, downloadType: Type.Optional(DownloadTypeField) });


const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/downloadErrors', {
    schema: {
      tags: ['Disbursements'],
      summary: "Download a batch's invalid lines (Excel or CSV)",
      description:
        'One row per invalid line: lineNumber, the six columns of addFile and errorMessage (fix them and upload the file again with addFile). lineNumber is the line\'s row in the file for a batch sent as a file (the header is row 1, blank rows count), its position for an addJson batch (transactions[i] is line i + 1). An Excel workbook ("Microsoft Excel File", documentName "Batch Disbursement Errors") unless downloadType is "CSV" (text/csv, batch-<n>-errors.csv). 409 while the batch is still being validated (Q); 503 E952 with Retry-After while other documents are being prepared.',
      body: Body,
      response: { 200: { ...Document, description: 'The document: its name, content type, creation time and the file, base64-encoded.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, batchNumber, downloadType = 'XLSX' } = request.body;
      const file = await batchErrorsDocument(deps, request.lang, merchantAccountNumber, batchNumber, downloadType);
      return {
        documentName: downloadType === 'CSV' ? `batch-${batchNumber}-errors.csv` : ERRORS_DOCUMENT_NAME,
        contentType: CONTENT_TYPES[downloadType],
        dateCreated: deps.clock.now().toISOString(),
        documentBase64: file.toString('base64'),
      };
    },
  });
};
export default route;

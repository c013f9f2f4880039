// POST /disbursements/batch/downloadErrors — a batch's invalid lines as a CSV document: the line
// number, the six input columns as stored and why the line is invalid, in the reader's language.
// A batch without invalid lines gives the header row alone.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import type { RouteModule } from '../../../http/types.ts';
import { csvDocument, FILE_COLUMNS } from '../files.ts';
import { findBatch, invalidLines } from '../repository.ts';
import { BatchActionBody } from '../schemas.ts';
import { lineError } from '../service.ts';

const Document = Type.Object({
  documentName: Type.String({ examples: ['batch-100001-errors.csv'] }),
  contentType: Type.String({ examples: ['text/csv'] }),
  dateCreated: Type.String({ format: 'date-time' }),
  documentBase64: Type.String({ description: 'The CSV (UTF-8 with a byte-order mark, CRLF line ends), base64-encoded.' }),
});

/** Minor units as plain major text ("1500.50"): no grouping, so the file can be uploaded again. */
const plainMajor = (minor: number) => `${Math.trunc(minor / 100)}.${String(Math.abs(minor % 100)).padStart(2, '0')}`;

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/downloadErrors', {
    schema: {
      tags: ['Disbursements'],
      summary: "Download a batch's invalid lines (CSV)",
      description: 'One row per invalid line: lineNumber, the six columns of addFile and errorMessage. 409 while the batch is still being validated (Q).',
      body: BatchActionBody,
      response: { 200: Document },
    },
    handler: async (request) => {
      const { merchantAccountNumber, batchNumber } = request.body;
      const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
      if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
      if (batch.status_code === 'Q') throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
      const lines = await invalidLines(deps.db, batch.merchant_account_number, batch.batch_number);
      const csv = csvDocument(
        ['lineNumber', ...FILE_COLUMNS, 'errorMessage'],
        lines.map((l) => [
          l.line_number,
          l.beneficiary_name,
          l.connector_id,
          l.beneficiary_account_number,
          l.transaction_description,
          plainMajor(l.amount_minor),
          l.source_reference_number,
          lineError(request.lang, l),
        ]),
      );
      return {
        documentName: `batch-${batch.batch_number}-errors.csv`,
        contentType: 'text/csv',
        dateCreated: deps.clock.now().toISOString(),
        documentBase64: csv.toString('base64'),
      };
    },
  });
};
export default route;

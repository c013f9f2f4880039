// POST /disbursements/batch/addFile — a batch as a CSV or XLSX file (base64): a header row naming
// the E8 columns, one payout per row. The same result and checks as E8 (addJson): rows that break
// the line schema are a 400 naming them (transactions[3].transactionAmount, the first 100);
// everything else is checked by the validation job. Idempotent.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import { EXAMPLE_PAYOUTS, SANDBOX_PAYOUTS_TEXT } from '../docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { FILE_COLUMNS, readBatchFile, type FileType } from '../files.ts';
import { BatchAccepted, BatchHeader, MAX_BATCH_LINES } from '../schemas.ts';
import { submitBatch } from '../service.ts';

const Body = Type.Object({
  ...BatchHeader.properties,
  contentType: Type.Unsafe<FileType>({ type: 'string', enum: ['CSV', 'XLSX'], description: 'CSV (UTF-8, comma-separated) or XLSX (the first worksheet is read).' }),
  fileContent: Type.String({ minLength: 1, contentEncoding: 'base64', description: 'The file, base64-encoded.' }),
}, {
  examples: [
    {
      merchantAccountNumber: EXAMPLE.merchantAccountNumber,
      isBatchScheduled: false,
      capturedBy: EXAMPLE.actor,
      contentType: 'CSV',
      // A CSV with the header row and the two example payouts.
      fileContent: Buffer.from(
        [FILE_COLUMNS.join(','), ...EXAMPLE_PAYOUTS.map((line) => FILE_COLUMNS.map((column) => String(line[column])).join(','))].join('\r\n') + '\r\n',
      ).toString('base64'),
    },
  ],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/addFile', {
    config: { idempotent: true },
    bodyLimit: deps.config.batchBodyLimitBytes,
    schema: {
      tags: ['Disbursements'],
      summary: 'Add a batch of payouts (CSV or XLSX file)',
      description: `The file's first row names the columns ${FILE_COLUMNS.join(', ')} (any case and order; transactionDescription may be left out, other columns are ignored); each further row is one payout, up to ${MAX_BATCH_LINES}. Answers like addJson: the batch number and status Q, validation running in the background. Send X-Idempotency-Key to make retries safe.\n\n${SANDBOX_PAYOUTS_TEXT}`,
      body: Body,
      response: { 200: { ...BatchAccepted, description: 'The batch was accepted: its number and status Q (queued for validation).' } },
    },
    handler: async (request, reply) => {
      const { contentType, fileContent, ...header } = request.body;
      // Same result as E8 (product.md §9): a row whose amount is not one refuses the file, as it refuses an E8 body.
      const transactions = await readBatchFile(contentType, fileContent, deps.config.batchBodyLimitBytes, { malformedAmounts: 'refuse-file' });
      const body = await withTransaction(deps.db, async (tx) => {
        const accepted = await submitBatch(deps, tx, { ...header, uploadType: contentType, transactions });
        return storeResponse(tx, request, reply, 200, accepted);
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;

// E3 POST /disbursements/batch/getTransactions — a batch's lines (or every batch line of the
// merchant), paged, searchable, filtered by transactionStatusCode.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow, Paging } from '../../../http/paging.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { BATCH, LINE_STATUS_NAMES } from '../lifecycle.ts';
import { findBatch, listPayouts } from '../repository.ts';
import { BatchNumber, LineStatusCode, PayoutRecord, SearchText } from '../schemas.ts';
import { payoutRecord } from '../service.ts';
import { readDb } from '../../../db/replicas.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  batchNumber: Type.Optional(BatchNumber),
  searchBy: Type.Optional(Type.Union(['BeneficiaryName', 'BeneficiaryAccountNumber', 'TransactionReferenceNumber', 'SourceReferenceNumber'].map((v) => Type.Literal(v)))),
  searchText: Type.Optional(SearchText),
  transactionStatusCode: Type.Optional(LineStatusCode),
  ...Paging,
}, {
  examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, batchNumber: EXAMPLE.batchNumber, pageNumber: 1, numberOfReturnedRows: 20, isIncremental: false, searchText: '' }],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/getTransactions', {
    config: { readOnly: true },
    schema: {
      tags: ['Disbursements'],
      summary: 'List batch transactions (E3)',
      description:
        "A batch's lines (or, without batchNumber, every batch line of the merchant), paged like E4, searchable (searchBy, " +
        `searchText) and filtered by transactionStatusCode (${Object.entries(LINE_STATUS_NAMES).map(([code, name]) => `${code} ${name}`).join(', ')}). ` +
        '409 while the batch is still being validated (Q).',
      body: Body,
      response: { 200: Type.Object({ message: Type.Array(PayoutRecord) }, { description: 'The page of batch transactions, under message.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, batchNumber, searchBy, searchText, transactionStatusCode, ...paging } = request.body;
      if (batchNumber !== undefined) {
        const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
        if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
        if (batch.status_code === BATCH.queued) throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
      }
      const rows = await listPayouts(readDb(deps, merchantAccountNumber), merchantAccountNumber, { batchNumber, searchBy: searchBy as never, searchText, statusCode: transactionStatusCode, ...pageWindow(paging) });
      return { message: rows.map((r) => payoutRecord(request.lang, r)) };
    },
  });
};
export default route;

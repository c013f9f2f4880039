// E3 POST /disbursements/batch/getTransactions — a batch's lines (or every batch line of the
// merchant), paged, searchable, filtered by transactionStatusCode.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow, Paging } from '../../../http/paging.ts';
import type { RouteModule } from '../../../http/types.ts';
import { findBatch, listPayouts } from '../repository.ts';
import { BatchNumber, LineStatusCode, PayoutRecord, SearchText } from '../schemas.ts';
import { payoutRecord } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  batchNumber: Type.Optional(BatchNumber),
  searchBy: Type.Optional(Type.Union(['BeneficiaryName', 'BeneficiaryAccountNumber', 'TransactionReferenceNumber', 'SourceReferenceNumber'].map((v) => Type.Literal(v)))),
  searchText: Type.Optional(SearchText),
  transactionStatusCode: Type.Optional(LineStatusCode),
  ...Paging,
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/getTransactions', {
    schema: { tags: ['Disbursements'], summary: 'List batch transactions (E3)', body: Body, response: { 200: Type.Object({ message: Type.Array(PayoutRecord) }) } },
    handler: async (request) => {
      const { merchantAccountNumber, batchNumber, searchBy, searchText, transactionStatusCode, ...paging } = request.body;
      if (batchNumber !== undefined) {
        const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
        if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
        if (batch.status_code === 'Q') throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
      }
      const rows = await listPayouts(deps.db, merchantAccountNumber, { batchNumber, searchBy: searchBy as never, searchText, statusCode: transactionStatusCode, ...pageWindow(paging) });
      return { message: rows.map((r) => payoutRecord(request.lang, r)) };
    },
  });
};
export default route;

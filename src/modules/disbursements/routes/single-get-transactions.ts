// POST /disbursements/single/getTransactions — the merchant's single payouts, newest first, paged
// like E3.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow, Paging } from '../../../http/paging.ts';
import type { RouteModule } from '../../../http/types.ts';
import { listPayouts } from '../repository.ts';
import { LineStatusCode, PayoutRecord, SearchText } from '../schemas.ts';
import { payoutRecord } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionDate: Type.Optional(Type.String({ format: 'date', description: 'Only this day (UTC), YYYY-MM-DD.' })),
  searchBy: Type.Optional(Type.Union(['BeneficiaryName', 'BeneficiaryAccountNumber', 'TransactionReferenceNumber', 'SourceReferenceNumber'].map((v) => Type.Literal(v)))),
  searchText: Type.Optional(SearchText),
  transactionStatusCode: Type.Optional(LineStatusCode),
  ...Paging,
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/single/getTransactions', {
    schema: { tags: ['Disbursements'], summary: 'List single payouts', body: Body, response: { 200: Type.Object({ message: Type.Array(PayoutRecord) }) } },
    handler: async (request) => {
      const { merchantAccountNumber, transactionDate, searchBy, searchText, transactionStatusCode, ...paging } = request.body;
      const rows = await listPayouts(deps.db, merchantAccountNumber, { single: true, transactionDate, searchBy: searchBy as never, searchText, statusCode: transactionStatusCode, ...pageWindow(paging) });
      return { message: rows.map((r) => payoutRecord(request.lang, r)) };
    },
  });
};
export default route;

// POST /disbursements/single/getTransactions — the merchant's single payouts, newest first, paged
// like E3; a bare array, as the gateway answers (issue 14). "searchText": "" searches nothing, and
// transactionDate may be a date-time (its UTC day).
import { Type } from '@sinclair/typebox';
import { DateOrDateTime, MerchantAccountNumber } from '../../../http/schemas.ts';
import { pageWindow, Paging } from '../../../http/paging.ts';
import type { RouteModule } from '../../../http/types.ts';
import { listPayouts } from '../repository.ts';
import { LineStatusCode, SearchText, SinglePayoutRecord } from '../schemas.ts';
import { singlePayoutRecord } from '../service.ts';
import { readDb } from '../../../db/replicas.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionDate: Type.Optional(DateOrDateTime('Only this day (UTC): YYYY-MM-DD, or a date-time taken as its UTC date.', ['2024-01-15'])),
  searchBy: Type.Optional(Type.Union(['BeneficiaryName', 'BeneficiaryAccountNumber', 'TransactionReferenceNumber', 'SourceReferenceNumber'].map((v) => Type.Literal(v)))),
  searchText: Type.Optional(SearchText),
  transactionStatusCode: Type.Optional(LineStatusCode),
  ...Paging,
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/single/getTransactions', {
    config: { readOnly: true },
    schema: {
      tags: ['Disbursements'],
      summary: 'List single payouts',
      description:
        'The merchant\'s single payouts, newest first, as a JSON array (empty when none match). Filters: transactionDate, transactionStatusCode (P includes those awaiting review or approval), searchBy with a non-empty searchText.',
      body: Body,
      response: { 200: Type.Array(SinglePayoutRecord, { description: 'The page of single payouts, newest first.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, transactionDate, searchBy, searchText, transactionStatusCode, ...paging } = request.body;
      const rows = await listPayouts(readDb(deps, merchantAccountNumber), merchantAccountNumber, { single: true, transactionDate, searchBy: searchBy as never, searchText, statusCode: transactionStatusCode, ...pageWindow(paging) });
      return rows.map((r) => singlePayoutRecord(request.lang, r));
    },
  });
};
export default route;

// POST /collections/getTransactions — the merchant's collections, newest first, paged.
import { Type } from '@sinclair/typebox';
import { pageWindow, Paging } from '../../../http/paging.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CollectionResult } from '../schemas.ts';
import { getTransactions } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionDate: Type.Optional(Type.String({ format: 'date', description: 'Only this day (UTC), YYYY-MM-DD.' })),
  searchBy: Type.Optional(
    Type.Union([
      Type.Literal('TransactionReferenceNumber'),
      Type.Literal('SourceReferenceNumber'),
      Type.Literal('SourceAccountNumber'),
      Type.Literal('CustomerName'),
      Type.Literal('ReferenceNumber'),
    ]),
  ),
  searchText: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive text contained in the searchBy field.' })),
  ...Paging,
});

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/getTransactions', {
    schema: { tags: ['Collections'], summary: 'List collections', body: Body, response: { 200: Type.Array(CollectionResult) } },
    handler: async (request) => {
      const { merchantAccountNumber, pageNumber, numberOfReturnedRows, isIncremental, ...search } = request.body;
      return getTransactions(deps, request.lang, merchantAccountNumber, { ...search, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental }) });
    },
  });
};
export default route;

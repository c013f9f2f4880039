// POST /core/MerchantAnalytics/GetDisbursementMetrics — payout totals, rates and the daily trend.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { disbursementMetrics, rangeOf } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  fromDate: Type.Optional(Type.String({ format: 'date' })),
  toDate: Type.Optional(Type.String({ format: 'date' })),
});

const Result = Type.Object({
  fromDate: Type.String({ format: 'date' }),
  toDate: Type.String({ format: 'date' }),
  totalSuccessfulTransactionsAmount: Type.Number(),
  numberOfSuccessfulTransactions: Type.Integer(),
  totalFailedTransactionsAmount: Type.Number(),
  numberOfFailedTransactions: Type.Integer(),
  totalTransactionsAmount: Type.Number(),
  numberOfTransactions: Type.Integer(),
  successRate: Type.Number({ description: 'Percent of numberOfTransactions, 2 decimals.' }),
  failureRate: Type.Number(),
  transactionsTrend: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      numberOfTransactions: Type.Integer(),
      numberOfSuccessfulTransactions: Type.Integer(),
      numberOfFailedTransactions: Type.Integer(),
      totalTransactionsAmount: Type.Number(),
    }),
  ),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/core/MerchantAnalytics/GetDisbursementMetrics', {
    schema: { tags: ['Analytics'], summary: 'Payout metrics', body: Body, response: { 200: Result } },
    handler: async (request) => {
      const { merchantAccountNumber, fromDate, toDate } = request.body;
      return disbursementMetrics(deps.db, merchantAccountNumber, rangeOf(deps.clock, fromDate, toDate));
    },
  });
};
export default route;

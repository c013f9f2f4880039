// POST /core/MerchantAnalytics/GetDisbursementMetrics — payout totals, rates, the trend against the
// previous period (a percentage, as documented) and the daily series.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AnalyticsDate } from '../schemas.ts';
import { disbursementMetrics, rangeOf } from '../service.ts';
import { readDb } from '../../../db/replicas.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  summaryType: Type.Optional(Type.Union([Type.Literal('D'), Type.Literal('C')], { description: 'D disbursements (the default), C collections.' })),
  fromDate: Type.Optional(AnalyticsDate('First day (UTC), inclusive: a date or a date-time ("2024-01-01T00:00:00Z") taken as its UTC date. Default: 29 days before toDate.')),
  toDate: Type.Optional(AnalyticsDate('Last day (UTC), inclusive: a date or a date-time ("2024-01-31T23:59:59Z") taken as its UTC date. Default: today. At most 366 days in all.')),
}, { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, summaryType: 'D', fromDate: '2025-09-01', toDate: '2025-09-30' }] });

const Result = Type.Object({
  fromDate: Type.String({ format: 'date' }),
  toDate: Type.String({ format: 'date' }),
  summaryType: Type.String(),
  totalSuccessfulTransactionsAmount: Type.Number(),
  numberOfSuccessfulTransactions: Type.Integer(),
  totalFailedTransactionsAmount: Type.Number(),
  numberOfFailedTransactions: Type.Integer(),
  totalTransactionsAmount: Type.Number(),
  numberOfTransactions: Type.Integer(),
  successRate: Type.Number({ description: 'Percent of numberOfTransactions, 2 decimals.' }),
  failureRate: Type.Number(),
  transactionsTrend: Type.Number({
    description:
      'Change in numberOfTransactions against the previous period of the same length (previousFromDate–previousToDate), in percent, ' +
      '2 decimals: positive growth, negative decline. 0 when both periods have none; 100 when only the previous one has none.',
    examples: [12.5],
  }),
  previousFromDate: Type.String({ description: 'First day of the period the trend compares with (YYYY-MM-DD).' }),
  previousToDate: Type.String({ description: 'Its last day: the day before fromDate.' }),
  previousNumberOfTransactions: Type.Integer(),
  dailyTrend: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date' }),
      numberOfTransactions: Type.Integer(),
      numberOfSuccessfulTransactions: Type.Integer(),
      numberOfFailedTransactions: Type.Integer(),
      totalTransactionsAmount: Type.Number(),
    }),
    { description: 'One entry per day of the range, zeros included.' },
  ),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/core/MerchantAnalytics/GetDisbursementMetrics', {
    config: { readOnly: true },
    schema: {
      tags: ['Analytics'],
      summary: 'Payout metrics',
      description:
        'Totals and rates over an inclusive UTC date range (at most 366 days; payouts by completion date, collections by transaction ' +
        'date), transactionsTrend against the previous period of the same length, and the day-by-day series in dailyTrend.',
      body: Body,
      response: { 200: { ...Result, description: 'Totals, rates, the trend against the previous period and the daily series.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, summaryType, fromDate, toDate } = request.body;
      return disbursementMetrics(readDb(deps, merchantAccountNumber), merchantAccountNumber, rangeOf(deps.clock, fromDate, toDate), summaryType ?? 'D');
    },
  });
};
export default route;

// POST /core/MerchantAnalytics/GetConnectorSummarySumMetrics — E5 with amounts instead of counts.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { AnalyticsBody, ConnectorMetric } from '../schemas.ts';
import { sumMetrics, rangeOf } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/core/MerchantAnalytics/GetConnectorSummarySumMetrics', {
    schema: {
      tags: ['Analytics'],
      summary: 'Transactions per connector, by amount',
      description: 'Over an inclusive UTC date range (at most 366 days). Collections count by transaction date, payouts by completion date.',
      body: AnalyticsBody,
      response: { 200: Type.Array(ConnectorMetric) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, summaryType, fromDate, toDate } = request.body;
      return sumMetrics(deps.db, merchantAccountNumber, summaryType ? [summaryType] : ['D', 'C'], rangeOf(deps.clock, fromDate, toDate));
    },
  });
};
export default route;

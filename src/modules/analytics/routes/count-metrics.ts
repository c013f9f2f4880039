// E5 POST /core/MerchantAnalytics/GetConnectorSummaryCountMetrics — counts per connector.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { AnalyticsBody, ConnectorMetric } from '../schemas.ts';
import { countMetrics, rangeOf } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', {
    schema: {
      tags: ['Analytics'],
      summary: 'Transactions per connector, by count (E5)',
      description: 'Over an inclusive UTC date range (at most 366 days). Collections count by transaction date, payouts by completion date.',
      body: AnalyticsBody,
      response: { 200: Type.Array(ConnectorMetric) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, summaryType, fromDate, toDate } = request.body;
      return countMetrics(deps.db, merchantAccountNumber, summaryType ? [summaryType] : ['D', 'C'], rangeOf(deps.clock, fromDate, toDate));
    },
  });
};
export default route;

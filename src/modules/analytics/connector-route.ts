// E5 and its sum variant share everything but the figure they add up: one route shape, used by
// routes/count-metrics.ts and routes/sum-metrics.ts.
import { Type, type Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/pool.ts';
import type { RouteModule } from '../../http/types.ts';
import { AnalyticsBody, ConnectorMetric } from './schemas.ts';
import { rangeOf, type Range } from './service.ts';
import type { SummaryType } from './stats.ts';
import { readDb } from '../../db/replicas.ts';

type Metrics = (q: Queryable, merchantAccountNumber: number, types: SummaryType[], range: Range) => Promise<Array<Static<typeof ConnectorMetric>>>;

export function connectorMetricsRoute(url: string, summary: string, metrics: Metrics): RouteModule {
  return (app, { deps }) => {
    app.post(url, {
      config: { readOnly: true },
      schema: {
        tags: ['Analytics'],
        summary,
        description:
          'Successful, failed and total transactions per connector over an inclusive UTC date range (at most 366 days; default: the ' +
          'last 30 days), for disbursements (summaryType D), collections (C) or both. Collections count by transaction date, payouts ' +
          'by completion date.',
        body: AnalyticsBody,
        response: { 200: Type.Array(ConnectorMetric, { description: 'One entry per connector and summary type.' }) },
      },
      handler: async (request) => {
        const { merchantAccountNumber, summaryType, fromDate, toDate } = request.body;
        return metrics(readDb(deps, merchantAccountNumber), merchantAccountNumber, summaryType ? [summaryType] : ['D', 'C'], rangeOf(deps.clock, fromDate, toDate));
      },
    });
  };
}

// GET /console/analytics?from=&to= — E5's counts and sums by connector over a range of UTC days
// (analytics/queries.ts analyticsOverview; the last 30 days by default). A refused range (reversed,
// longer than 366 days, not a day) is the page again with the range as typed and the message: 400.
import { ct } from '../texts.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { analyticsOverview } from '../queries.ts';
import { consoleContext, sendHtml } from '../../kit/http.ts';
import { page } from '../../kit/layout.tsx';
import { ANALYTICS_PATH, AnalyticsPage, type AnalyticsResult } from '../pages/analytics.tsx';
import { filterProblem } from '../../kit/display.tsx';
import { at } from '../../kit/at.ts';
import { Query, Text } from '../../kit/schemas.ts';
import { readDb } from '../../../../db/replicas.ts';

const FIELDS = {
  fromDate: { name: 'from', label: 'filter.from' },
  toDate: { name: 'to', label: 'filter.to' },
} as const;

/** The range as typed, unconstrained: the data function refuses a bad one, shown back with its message. */
const RangeQuery = Query({ from: Text(), to: Text() });

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(ANALYTICS_PATH), { schema: { querystring: RangeQuery }, config: { consoleAccess: 'user', consoleSection: 'analytics' } }, async (request, reply) => {
    const context = consoleContext(request);
    const values = { from: request.query.from ?? '', to: request.query.to ?? '' };
    let result: AnalyticsResult;
    try {
      const overview = await analyticsOverview(readDb(deps, context.user.merchantAccountNumber), context.user.merchantAccountNumber, { fromDate: values.from || undefined, toDate: values.to || undefined }, deps.clock.now());
      result = { overview };
    } catch (err) {
      result = { problem: filterProblem({ lang: context.lang, ct }, err, FIELDS, values) };
    }
    return sendHtml(reply, context, 'problem' in result ? 400 : 200, page(AnalyticsPage({ context, values, result })));
  });
};
export default route;

// GET /console — the home page: the balances (as GET /merchants/accounts/get reads them), the last 30
// days' collections and payouts, what needs this user's attention, and the sections.
import type { RouteModule } from '../../../../http/types.ts';
import { attention, homeSummary } from '../queries.ts';
import { consoleContext, sendHtml } from '../../kit/http.ts';
import { page } from '../../kit/layout.tsx';
import { HomePage } from '../pages/home.tsx';
import { CONSOLE_PATH } from '../../kit/paths.ts';
import { at } from '../../kit/at.ts';
import { readDb } from '../../../../db/replicas.ts';

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(CONSOLE_PATH), { config: { consoleAccess: 'user', consoleSection: 'home' } }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    // The balances are read as the API's GET /merchants/accounts/get reads them (findMerchant), with
    // the last 30 days' figures. The two reads are independent chains of round trips on the pool,
    // run side by side: the page waits for the longer one, not their sum (measured: the home page
    // was the console's slowest under load, docs/performance.md).
    const [summary, waiting] = await Promise.all([
      homeSummary(readDb(deps, user.merchantAccountNumber), user.merchantAccountNumber, deps.clock.now()),
      attention(readDb(deps, user.merchantAccountNumber), user.merchantAccountNumber, { userId: user.userId, roleId: user.roleId, emailAddress: user.emailAddress }),
    ]);
    if (!summary) throw new Error(`the signed-in user's merchant ${user.merchantAccountNumber} does not exist`);
    return sendHtml(reply, context, 200, page(HomePage({ context, balances: summary.balances, summary, attention: waiting })));
  });
};
export default route;

// GET /console — the home page: the balances (as GET /merchants/accounts/get reads them) and the sections.
import type { RouteModule } from '../../../http/types.ts';
import { findMerchant } from '../../merchants/repository.ts';
import { consoleContext, sendHtml } from '../http.ts';
import { page } from '../layout.tsx';
import { HomePage } from '../pages/home.tsx';
import { CONSOLE_PATH } from '../paths.ts';
import { at } from './at.ts';

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(CONSOLE_PATH), { schema: { hide: true }, config: { consoleAccess: 'user', consoleSection: 'home' } }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = await findMerchant(deps.db, context.user.merchantAccountNumber);
    if (!merchant) throw new Error(`the signed-in user's merchant ${context.user.merchantAccountNumber} does not exist`);
    const balances = {
      currencyCode: merchant.currency_code,
      accountMinor: merchant.collection_minor + merchant.disbursement_minor,
      collectionMinor: merchant.collection_minor,
      disbursementMinor: merchant.disbursement_minor,
    };
    return sendHtml(reply, context, 200, page(HomePage({ context, balances })));
  });
};
export default route;

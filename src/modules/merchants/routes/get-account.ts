// GET /merchants/accounts/get — the merchant account with its balances.
import { MerchantQuery } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { MerchantAccount } from '../schemas.ts';
import { getAccount } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/accounts/get', {
    schema: {
      tags: ['Merchants'],
      summary: 'Get the merchant account and balances',
      querystring: MerchantQuery,
      response: { 200: MerchantAccount },
    },
    handler: async (request) => getAccount(deps, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

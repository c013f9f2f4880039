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
      description:
        'The merchant account: organisation, name, authorisation level (1 initiator only, 2 initiator + approver, 3 initiator + ' +
        'reviewer + approver), status and balances (accountBalance, collectionBalance and disbursmentBalance, sic, in MWK). ' +
        'A token only sees its own merchant account: another number answers 404 E903.',
      querystring: MerchantQuery,
      response: { 200: { ...MerchantAccount, description: 'The merchant account with its balances.' } },
    },
    handler: async (request) => getAccount(deps, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

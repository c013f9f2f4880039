// GET /merchants/bankAccounts/get?accountId= — one settlement account of the caller's merchant.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId, SettlementAccount } from '../schemas.ts';
import { getAccount, settlementView } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/bankAccounts/get', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Get a settlement account',
      description: "One settlement account of the merchant, by accountId. An unknown or another merchant's accountId answers 404 E903.",
      querystring: Type.Object({ accountId: AccountId, merchantAccountNumber: Type.Optional(MerchantAccountNumber) }),
      response: { 200: { ...SettlementAccount, description: 'The settlement account.' } },
    },
    handler: async (request) => settlementView(await getAccount(deps.db, request.principal!.merchantAccountNumber, request.query.accountId)),
  });
};
export default route;

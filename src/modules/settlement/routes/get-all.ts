// GET /merchants/bankAccounts/getAll — the merchant's settlement accounts.
import { Type } from '@sinclair/typebox';
import { MerchantQuery } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { SettlementAccount } from '../schemas.ts';
import { listAccounts, settlementView } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/bankAccounts/getAll', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'List settlement accounts',
      description: "The merchant's settlement bank accounts, active or not (at most one is active).",
      querystring: MerchantQuery,
      response: { 200: Type.Array(SettlementAccount, { description: "The merchant's settlement accounts." }) },
    },
    handler: async (request) => (await listAccounts(deps.db, request.query.merchantAccountNumber)).map(settlementView),
  });
};
export default route;

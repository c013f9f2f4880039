// GET /admin/v1/merchants — every merchant with balances, in account-number order (keyset pages).
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { accountView } from '../../merchants/service.ts';
import { listMerchants } from '../../merchants/repository.ts';
import { MerchantAccount } from '../../merchants/schemas.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/merchants', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'List merchants',
      description: 'Every merchant account with its balances, in account-number order; page with limit and afterAccountNumber.',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
        afterAccountNumber: Type.Optional(Type.Integer({ minimum: 0, maximum: 99999999, description: 'Return merchants after this account number (the last one of the previous page).' })),
      }),
      response: { 200: Type.Array(MerchantAccount, { description: 'The page of merchant accounts.' }) },
    },
    handler: async (request) => (await listMerchants(deps.db, request.query.limit, request.query.afterAccountNumber)).map((m) => accountView(request.lang, m)),
  });
};
export default route;

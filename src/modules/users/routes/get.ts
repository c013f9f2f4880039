// GET /security/merchantUsers/get?merchantAccountNumber=&userId= — one user of the caller's merchant.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { MerchantUser, UserId } from '../schemas.ts';
import { getMerchantUser, userView } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/security/merchantUsers/get', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Get a merchant user',
      querystring: Type.Object({ merchantAccountNumber: MerchantAccountNumber, userId: UserId }),
      response: { 200: MerchantUser },
    },
    handler: async (request) => userView(request.lang, await getMerchantUser(deps, request.principal!.merchantAccountNumber, request.query.userId)),
  });
};
export default route;

// GET /admin/v1/merchants/{merchantAccountNumber}/fundings — what operators recorded for a
// merchant, in the order recorded (keyset pages), with who recorded each.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { FUNDINGS_PAGE_MAX, listFundings } from '../../merchants/fundings.ts';
import { findMerchant } from '../../merchants/repository.ts';
import { Funding } from '../schemas.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/merchants/:merchantAccountNumber/fundings', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "List a merchant's fundings",
      description: 'Every funding recorded for the merchant, oldest first, with the bank reference and who recorded it.',
      security: [{ adminToken: [] }],
      params: Type.Object({ merchantAccountNumber: MerchantAccountNumber }),
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: FUNDINGS_PAGE_MAX, default: 100 }),
        afterFundingId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Return fundings after this id (the last one of the previous page).' })),
      }),
      response: { 200: Type.Array(Funding, { description: 'The page of fundings, oldest first.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber } = request.params;
      if (!(await findMerchant(deps.db, merchantAccountNumber))) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
      return listFundings(deps.db, merchantAccountNumber, request.query.limit, request.query.afterFundingId);
    },
  });
};
export default route;

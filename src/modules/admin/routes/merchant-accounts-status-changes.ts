// GET /admin/v1/merchants/accounts/getStatusChanges?MerchantAccountNumber= — any account's status
// history, for the operator (a merchant reads its own under /sandbox/v1).
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { StatusChange, StatusChangeQuery } from '../../merchants/schemas.ts';
import { getStatusChanges, STATUS_CHANGES_MAX } from '../../merchants/status.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/merchants/accounts/getStatusChanges', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "A merchant account's status changes",
      description: `Every status the account was given, newest first (at most ${STATUS_CHANGES_MAX}), with who, the reason and the comments. 404 E903 for an unknown account.`,
      security: [{ adminToken: [] }],
      querystring: StatusChangeQuery,
      response: { 200: Type.Array(StatusChange, { description: 'The status changes, newest first.' }) },
    },
    handler: async (request) => getStatusChanges(deps.db, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

// GET /merchants/accounts/getStatusChanges?MerchantAccountNumber= — the merchant's own account's
// status history (who, why, when), newest first.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { StatusChange, StatusChangeQuery } from '../schemas.ts';
import { getStatusChanges, STATUS_CHANGES_MAX } from '../status.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/merchants/accounts/getStatusChanges', {
    schema: {
      tags: ['Merchants'],
      summary: 'Status changes of the merchant account',
      description:
        `Every status the account was given (created, suspended, blacklisted, activated), newest first, at most ${STATUS_CHANGES_MAX}: ` +
        'who made the change, the reason and the comments. Changes are made by the operator (POST /admin/v1/merchants/accounts/…).',
      querystring: StatusChangeQuery,
      response: { 200: Type.Array(StatusChange, { description: 'The status changes, newest first.' }) },
    },
    handler: async (request) => getStatusChanges(deps.db, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

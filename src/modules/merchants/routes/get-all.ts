// POST /merchants/accounts/getAll — the documented list of an organisation's merchant accounts.
// A merchant's token is bound to one account: it sees that account only (when it matches the
// search and the page), never its organisation's other accounts. Operators list them all with
// POST /admin/v1/merchants/accounts/getAll.
import { Type } from '@sinclair/typebox';
import { pageWindow } from '../../../http/paging.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { MerchantAccount, MerchantListBody } from '../schemas.ts';
import { listMerchantAccounts } from '../service.ts';

const Body = Type.Composite([MerchantListBody, Type.Object({ merchantAccountNumber: Type.Optional(MerchantAccountNumber) })]);

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/accounts/getAll', {
    schema: {
      tags: ['Merchants'],
      summary: 'List merchant accounts (your own)',
      description:
        "The documented body: organisationId (the token's), paging, searchBy AccountName and searchText (\"\" is no search). The answer " +
        "lists the token's own account, as GET /merchants/accounts/get shows it, when it matches: a token is bound to one merchant account.",
      body: Body,
      response: { 200: Type.Array(MerchantAccount, { description: "The token's own merchant account when it matches the search and the page, else an empty list." }) },
    },
    handler: async (request) => {
      const { organisationId, searchText, pageNumber, numberOfReturnedRows, isIncremental } = request.body;
      const window = pageWindow({ pageNumber, numberOfReturnedRows, isIncremental });
      return listMerchantAccounts(deps, request.lang, { organisationId, merchantAccountNumber: request.principal!.merchantAccountNumber, searchText, ...window });
    },
  });
};
export default route;

// POST /security/merchantUsers/getAll — the merchant's users, newest first, paged and searchable.
import { Type } from '@sinclair/typebox';
import { pageWindow, Paging } from '../../../http/paging.ts';
import { MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { MerchantUser } from '../schemas.ts';
import { listMerchantUsers, userView } from '../service.ts';

const Body = Type.Object({
  organisationId: Type.Optional(OrganisationId),
  merchantAccountNumber: MerchantAccountNumber,
  ...Paging,
  searchBy: Type.Optional(Type.Union([Type.Literal('FirstName'), Type.Literal('LastName'), Type.Literal('EmailAddress')])),
  searchText: Type.Optional(Type.String({ minLength: 0, maxLength: 100, description: 'Case-insensitive text contained in the searchBy field (in any of the three without searchBy); empty: no filter.' })),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/security/merchantUsers/getAll', {
    schema: {
      tags: ['Merchant users'],
      summary: 'List merchant users',
      description:
        "The merchant's users (people who sign in for the merchant, with a role), newest first, paged (pageNumber from 1, " +
        'numberOfReturnedRows, isIncremental) and searchable by FirstName, LastName or EmailAddress.',
      body: Body,
      response: { 200: Type.Array(MerchantUser, { description: 'The page of users, newest first.' }) },
    },
    handler: async (request) => {
      const { pageNumber, numberOfReturnedRows, isIncremental, searchBy, searchText } = request.body;
      const rows = await listMerchantUsers(deps, request.principal!.merchantAccountNumber, { searchBy, searchText, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental }) });
      return rows.map((u) => userView(request.lang, u));
    },
  });
};
export default route;

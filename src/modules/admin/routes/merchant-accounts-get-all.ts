// POST /admin/v1/merchants/accounts/getAll — the documented "Get Merchants" body, for the
// operator: every merchant account of an organisation, paged, searched by account name.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { pageWindow } from '../../../http/paging.ts';
import type { RouteModule } from '../../../http/types.ts';
import { organisationExists } from '../../merchants/repository.ts';
import { MerchantAccount, MerchantListBody } from '../../merchants/schemas.ts';
import { listMerchantAccounts } from '../../merchants/service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants/accounts/getAll', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "List an organisation's merchant accounts (documented body)",
      description: 'In account-number order, with balances; searchBy AccountName and searchText ("" is no search). 404 E903 for an unknown organisation.',
      security: [{ adminToken: [] }],
      body: MerchantListBody,
      response: { 200: Type.Array(MerchantAccount, { description: "The page of the organisation's merchant accounts." }) },
    },
    handler: async (request) => {
      const { organisationId, searchText, pageNumber, numberOfReturnedRows, isIncremental } = request.body;
      if (!(await organisationExists(deps.db, organisationId.toUpperCase()))) throw new AppError('notFound', 'detail.organisationNotFound', { organisationId });
      return listMerchantAccounts(deps, request.lang, { organisationId, searchText, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental }) });
    },
  });
};
export default route;

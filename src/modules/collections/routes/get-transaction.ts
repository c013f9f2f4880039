// POST /collections/getTransaction — one collection, in the nested shape of E11.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CollectionResult, TransactionReference } from '../schemas.ts';
import { getTransaction } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/getTransaction', {
    schema: {
      tags: ['Collections'],
      summary: 'Get a collection',
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, transactionReferenceNumber: TransactionReference }),
      response: { 200: CollectionResult },
    },
    handler: async (request) => getTransaction(deps, request.lang, request.body.merchantAccountNumber, request.body.transactionReferenceNumber.toUpperCase()),
  });
};
export default route;

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
      description:
        'One collection of the merchant (a direct payment, E11, or a paid request to pay), by its transactionReferenceNumber, in the ' +
        "nested shape of E11. Another merchant's or an unknown reference answers 404 E903.",
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, transactionReferenceNumber: TransactionReference }),
      response: { 200: { ...CollectionResult, description: 'The collection.' } },
    },
    handler: async (request) => getTransaction(deps, request.lang, request.body.merchantAccountNumber, request.body.transactionReferenceNumber.toUpperCase()),
  });
};
export default route;

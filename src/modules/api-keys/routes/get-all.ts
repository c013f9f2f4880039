// E2 GET /security/apiKeys/getAll — the merchant's key pairs (secrets never included).
// merchantAccountNumber may come as a query parameter or in a JSON body (interface.md E2).
import { Type } from '@sinclair/typebox';
import { mergeGetBodyIntoQuery } from '../../../http/get-body.ts';
import { MerchantQuery } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { ApiKeyRecord } from '../schemas.ts';
import { list } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/security/apiKeys/getAll', {
    preValidation: mergeGetBodyIntoQuery,
    schema: {
      tags: ['API keys'],
      summary: 'List API keys (E2)',
      description:
        "The merchant's key pairs, active or not, never with their secrets (clientSecret is always null). merchantAccountNumber is " +
        'read from the query string or, as the gateway documents it, from a JSON body.',
      querystring: MerchantQuery,
      response: { 200: Type.Array(ApiKeyRecord, { description: "The merchant's API key records, without secrets." }) },
    },
    handler: async (request) => list(deps, request.lang, request.query.merchantAccountNumber),
  });
};
export default route;

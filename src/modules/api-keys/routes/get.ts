// GET /security/apiKeys/get — one key pair by clientKey.
import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { ApiKeyRecord, ClientKey } from '../schemas.ts';
import { get } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/security/apiKeys/get', {
    schema: {
      tags: ['API keys'],
      summary: 'Get an API key',
      querystring: Type.Object({ merchantAccountNumber: MerchantAccountNumber, clientKey: ClientKey }),
      response: { 200: ApiKeyRecord },
    },
    handler: async (request) => get(deps, request.lang, request.query.merchantAccountNumber, request.query.clientKey),
  });
};
export default route;

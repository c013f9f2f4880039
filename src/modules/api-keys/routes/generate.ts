// E1 GET /security/apiKeys/generate — a new key pair. Nothing is stored: `add` stores one.
import { Type } from '@sinclair/typebox';
import { MerchantQuery } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { generate } from '../service.ts';

const route: RouteModule = (app) => {
  app.get('/security/apiKeys/generate', {
    schema: {
      tags: ['API keys'],
      summary: 'Generate an API key pair (E1)',
      description:
        'Returns a random key (30 characters) and secret (45 characters). Nothing is persisted; store the pair with POST ' +
        '/security/apiKeys/add. Keep the secret confidential: never put it in a web page or a mobile app.',
      querystring: MerchantQuery,
      response: { 200: Type.Object({ key: Type.String(), secret: Type.String() }, { description: 'A new key pair (not stored yet).' }) },
    },
    handler: async () => generate(),
  });
};
export default route;

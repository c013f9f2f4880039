// POST /account/getAccessToken — a 5-minute access token for a key pair (product.md §2).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { getAccessToken } from '../service.ts';

const Body = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 64, description: 'The key pair\'s clientKey.' }),
  apiSecret: Type.String({ minLength: 1, maxLength: 128, description: 'The key pair\'s secret.' }),
  organisationId: OrganisationId,
  merchantAccountNumber: MerchantAccountNumber,
}, {
  examples: [{ apiKey: EXAMPLE.apiKey, apiSecret: EXAMPLE.apiSecret, organisationId: EXAMPLE.organisationId, merchantAccountNumber: EXAMPLE.merchantAccountNumber }],
});

const Token = Type.Object({
  accessToken: Type.String(),
  expiresOn: Type.String({ format: 'date-time' }),
  expiryInMinutes: Type.Integer(),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/account/getAccessToken', {
    config: { auth: 'none' },
    schema: {
      tags: ['Authentication'],
      summary: 'Get an access token',
      security: [],
      description:
        'Exchanges an API key pair for a Bearer token valid for 5 minutes. There is no refresh: ask again. No Authorization header is ' +
        'needed; wrong, inactive, expired or deleted credentials answer 401 E901. Optional headers X-Organisation-Id and ' +
        'X-Merchant-Account-Number, when sent, must match the body. Then press Authorize and paste the accessToken. ' +
        'The demo merchant\'s key pair is printed by the start-up banner (the example values here are placeholders).',
      body: Body,
      response: { 200: { ...Token, description: 'The access token, its expiry time (UTC) and its lifetime in minutes (5).' } },
    },
    handler: async (request) => {
      // Optional headers; checked when present (product.md §2).
      const org = request.headers['x-organisation-id'];
      const account = request.headers['x-merchant-account-number'];
      if ((org !== undefined && String(org).toUpperCase() !== request.body.organisationId.toUpperCase()) || (account !== undefined && String(account) !== String(request.body.merchantAccountNumber))) {
        throw new AppError('unauthorized', 'detail.badCredentials');
      }
      return getAccessToken(deps, request.body);
    },
  });
};
export default route;

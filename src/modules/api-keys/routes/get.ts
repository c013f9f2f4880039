// GET /security/apiKeys/get — one key pair, by clientKey or by clientId. The gateway's schema names
// the parameter `clientId` (an integer, in a JSON body) while its curl example sends
// `?clientKey=23`: every one of those forms is served. A clientKey of at most 15 digits is a
// clientId (real client keys are 16–64 characters), so the example finds key 23.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { mergeGetBodyIntoQuery } from '../../../http/get-body.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { ApiKeyRecord } from '../schemas.ts';
import { get, getById } from '../service.ts';

const Query = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  clientKey: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The API key (clientKey); a number of at most 15 digits is taken as a clientId, as in the gateway\'s example.' }),
  ),
  clientId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The key pair\'s clientId, as the gateway\'s schema names it.', examples: [23] })),
});

/** A clientKey that is a number: real keys are at least 16 characters, so this one is a clientId. */
const CLIENT_ID_AS_KEY = /^[0-9]{1,15}$/;

const route: RouteModule = (app, { deps }) => {
  app.get('/security/apiKeys/get', {
    preValidation: mergeGetBodyIntoQuery,
    schema: {
      tags: ['API keys'],
      summary: 'Get an API key',
      description:
        'One key pair of the merchant (never its secret), by clientKey or by clientId (one is required), from the query string or a JSON body. A clientKey of at most 15 digits is taken as a clientId. Another merchant\'s key answers 404.',
      querystring: Query,
      response: { 200: { ...ApiKeyRecord, description: 'The API key record, without its secret.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, clientKey, clientId } = request.query;
      if (clientId !== undefined) return getById(deps, request.lang, merchantAccountNumber, clientId);
      if (clientKey === undefined) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Client Key' } }] });
      if (CLIENT_ID_AS_KEY.test(clientKey)) return getById(deps, request.lang, merchantAccountNumber, Number(clientKey));
      return get(deps, request.lang, merchantAccountNumber, clientKey);
    },
  });
};
export default route;

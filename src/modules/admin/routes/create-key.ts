// POST /admin/v1/merchants/{merchantAccountNumber}/keys — the operator issues a new key pair for a
// merchant (`npm run cli -- keys create --merchant N`): lost credentials, the demo merchant's
// included, are one command away. The secret is answered once and stored only as a hash; the
// merchant's other key pairs are not touched. 404 for an unknown merchant.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { Email, MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { add, generate, get } from '../../api-keys/service.ts';
import { findMerchant } from '../../merchants/repository.ts';

const Body = Type.Object({
  capturedBy: Type.Optional(Email()),
});

const KeyPair = Type.Object({
  organisationId: Type.String(),
  merchantAccountNumber: Type.Integer(),
  paymentAccountNumber: Type.String(),
  clientId: Type.Integer(),
  apiKey: Type.String(),
  apiSecret: Type.String({ description: 'Shown once; only its hash is stored.' }),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants/:merchantAccountNumber/keys', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Issue a new key pair for a merchant',
      description: 'A new active key pair (apiKey, apiSecret) for getAccessToken. The secret is in this answer only; the merchant keeps its other key pairs.',
      security: [{ adminToken: [] }],
      params: Type.Object({ merchantAccountNumber: MerchantAccountNumber }),
      body: Body,
      response: { 201: { ...KeyPair, description: 'The new key pair, with the merchant\'s numbers (the secret is shown once).' } },
    },
    handler: async (request, reply) => {
      const { merchantAccountNumber } = request.params;
      const merchant = await findMerchant(deps.db, merchantAccountNumber);
      if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
      const pair = generate();
      await add(deps, { merchantAccountNumber, organisationId: merchant.organisation_id, clientKey: pair.key, clientSecret: pair.secret, capturedBy: request.body.capturedBy ?? 'operator' });
      const stored = await get(deps, request.lang, merchantAccountNumber, pair.key);
      return reply.code(201).send({
        organisationId: merchant.organisation_id,
        merchantAccountNumber,
        paymentAccountNumber: merchant.payment_account_number,
        clientId: stored.clientId,
        apiKey: pair.key,
        apiSecret: pair.secret,
      });
    },
  });
};
export default route;

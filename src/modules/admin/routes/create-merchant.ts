// POST /admin/v1/merchants — the operator creates a merchant (organisation, account, ledger
// accounts, default limits and a first key pair). Bearer ADMIN_TOKEN; 404 when no token is set.
import { Type } from '@sinclair/typebox';
import { OrganisationId } from '../../../http/schemas.ts';
import { Credentials } from '../schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { createMerchant } from '../../merchants/service.ts';

const Body = Type.Object({
  accountName: Type.String({ minLength: 1, maxLength: 200 }),
  levelNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 1 })),
  currencyCode: Type.Optional(Type.Union([Type.Literal('MWK')], { default: 'MWK' })),
  organisationId: Type.Optional(OrganisationId),
}, { examples: [{ accountName: 'Chikondi General Store', levelNumber: 1, currencyCode: 'MWK' }] });

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Create a merchant',
      description:
        'Creates an organisation (or uses organisationId) with a merchant account, its ledger accounts, its payment account number, ' +
        'default transaction limits and a first key pair. The apiSecret is in this answer only: hand it to the merchant.',
      security: [{ adminToken: [] }],
      body: Body,
      response: { 201: { ...Credentials, description: 'The new merchant and its first key pair (the secret is shown once).' } },
    },
    handler: async (request, reply) => {
      const created = await createMerchant(deps, { ...request.body, organisationId: request.body.organisationId?.toUpperCase() });
      return reply.code(201).send(created);
    },
  });
};
export default route;

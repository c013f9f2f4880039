// POST /admin/v1/merchants/accounts/add — the documented "Create Merchant" body
// (docs.onekhusa.com), for the operator: a new merchant account in an existing organisation, with
// its ledger accounts, default limits and a first key pair. Creating merchants is the operator's
// (product.md §2), so the gateway's merchant-side path is not served under /sandbox/v1.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { Email, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { createMerchant } from '../../merchants/service.ts';
import { Credentials } from '../schemas.ts';

const Body = Type.Object({
  organisationId: OrganisationId,
  accountName: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', examples: ['KHUSA VILLAGE BANKS'] }),
  currencyCode: Type.Union([Type.Literal('MWK')], { description: 'MWK (the one currency served).' }),
  levelNumber: Type.Integer({ minimum: 1, maximum: 3, description: '1 initiator only, 2 initiator + approver, 3 initiator + reviewer + approver ("1" is accepted too).' }),
  capturedBy: Email(),
}, { examples: [{ organisationId: EXAMPLE.organisationId, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', levelNumber: 2, capturedBy: EXAMPLE.actor }] });

const Created = Type.Composite([Type.Object({ message: Type.String({ examples: ['Merchant has been created successfully'] }) }), Credentials]);

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants/accounts/add', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Create a merchant account (documented body)',
      description:
        "The gateway's Create Merchant body. The organisation must exist (404 E903 otherwise). Answers 201 with the gateway's message " +
        'and the new account, its payment account number and its first key pair (the secret is shown once).',
      security: [{ adminToken: [] }],
      body: Body,
      response: { 201: { ...Created, description: "The gateway's message, the new account and its first key pair (the secret is shown once)." } },
    },
    handler: async (request, reply) => {
      const { organisationId, accountName, currencyCode, levelNumber, capturedBy } = request.body;
      const created = await createMerchant(deps, { organisationId: organisationId.toUpperCase(), accountName: accountName.trim(), currencyCode, levelNumber, capturedBy });
      return reply.code(201).send({ message: t(request.lang, 'ok.merchantCreated'), ...created });
    },
  });
};
export default route;

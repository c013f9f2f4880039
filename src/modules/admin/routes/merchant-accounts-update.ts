// POST /admin/v1/merchants/accounts/update — the documented "Update Merchant" body, for the
// operator: the account name and the authorisation level. The level decides how many people must
// act on a payout (four eyes), so an API key, which is no person, cannot lower it: the operator's.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { updateMerchant } from '../../merchants/service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  accountName: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', examples: ['KHUSA VILLAGE BANKS'] }),
  currencyCode: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Za-z]{3}$', description: "The account's currency (it cannot change: 402 E916 otherwise).", examples: ['MWK'] }),
  organisationId: Type.Optional(OrganisationId),
  capturedBy: Email(),
  levelNumber: Type.Integer({ minimum: 1, maximum: 3, description: 'Applies to batches and single payouts captured from now on.' }),
}, { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', capturedBy: EXAMPLE.actor, levelNumber: 2 }] });

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants/accounts/update', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Update a merchant account (documented body)',
      description:
        "The gateway's Update Merchant body: renames the account and sets its authorisation level. 404 E903 for an unknown account " +
        '(or one of another organisation, when organisationId is sent); 402 E916 for another currency.',
      security: [{ adminToken: [] }],
      body: Body,
      response: { 200: { ...Message, description: 'The account was updated: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      const { merchantAccountNumber, accountName, currencyCode, organisationId, capturedBy, levelNumber } = request.body;
      await updateMerchant(deps, { merchantAccountNumber, accountName, currencyCode, organisationId, levelNumber, modifiedBy: capturedBy });
      return sendMessage(reply, 200, t(request.lang, 'ok.merchantUpdated'));
    },
  });
};
export default route;

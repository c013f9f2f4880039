// E6 POST /security/merchantUsers/reinvite — a new invitation e-mail for a user who has not set a
// password yet (402 E927 once they have; 402 E916 for a closed user). The previous links stop
// working.
import { Type } from '@sinclair/typebox';
import { publicBaseUrl } from '../../../http/base-url.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Message, MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { UserId } from '../schemas.ts';
import { reinviteMerchantUser } from '../service.ts';

const Body = Type.Object(
  { organisationId: OrganisationId, merchantAccountNumber: MerchantAccountNumber, userId: UserId },
  { examples: [{ organisationId: EXAMPLE.organisationId, merchantAccountNumber: EXAMPLE.merchantAccountNumber, userId: UserId.examples[0] }] },
);

const route: RouteModule = (app, { deps }) => {
  app.post('/security/merchantUsers/reinvite', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Resend the invitation (E6)',
      description:
        'E-mails a new one-time link to set a password to a user who has not set one yet; earlier links stop working. 402 E927 once ' +
        'the user has a password, 402 E916 for a closed user.',
      body: Body,
      response: { 200: { ...Message, description: 'The invitation was sent: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await reinviteMerchantUser(deps, request.principal!.merchantAccountNumber, request.body.userId, publicBaseUrl(deps.config, request));
      return sendMessage(reply, 200, t(request.lang, 'ok.userReinvited'));
    },
  });
};
export default route;

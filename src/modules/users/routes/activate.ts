// PUT /security/merchantUsers/activate — a closed user becomes active again (an active one stays so).
// Their revoked links stay revoked: reinvite if they have no password yet.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { UserId } from '../schemas.ts';
import { activateMerchantUser } from '../service.ts';

const Body = Type.Object({ organisationId: Type.Optional(OrganisationId), merchantAccountNumber: MerchantAccountNumber, userId: UserId, modifiedBy: Email() });

const route: RouteModule = (app, { deps }) => {
  app.put('/security/merchantUsers/activate', {
    schema: { tags: ['Merchant users'], summary: 'Activate a merchant user', body: Body, response: { 200: Message } },
    handler: async (request, reply) => {
      await activateMerchantUser(deps, request.principal!.merchantAccountNumber, request.body.userId, request.body.modifiedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.userActivated'));
    },
  });
};
export default route;

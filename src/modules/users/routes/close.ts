// PUT /security/merchantUsers/close — the user is closed and their open invitation links stop
// working (closing a closed user changes nothing).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { UserId } from '../schemas.ts';
import { closeMerchantUser } from '../service.ts';

const Body = Type.Object({ organisationId: Type.Optional(OrganisationId), merchantAccountNumber: MerchantAccountNumber, userId: UserId, modifiedBy: Email() });

const route: RouteModule = (app, { deps }) => {
  app.put('/security/merchantUsers/close', {
    schema: { tags: ['Merchant users'], summary: 'Close a merchant user', body: Body, response: { 200: Message } },
    handler: async (request, reply) => {
      await closeMerchantUser(deps, request.principal!.merchantAccountNumber, request.body.userId, request.body.modifiedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.userClosed'));
    },
  });
};
export default route;

// PUT /security/merchantUsers/update — names, phone, role and (optionally) e-mail address. A new
// address revokes the open invitations (they went to the old one): reinvite to send one there.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId, withDescription } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { PersonName, PhoneNumber, RoleId, UserId } from '../schemas.ts';
import { updateMerchantUser } from '../service.ts';

const Body = Type.Object({
  organisationId: OrganisationId,
  merchantAccountNumber: MerchantAccountNumber,
  userId: UserId,
  firstName: PersonName('First name (1–60 characters).'),
  lastName: PersonName('Last name (1–60 characters).'),
  emailAddress: Type.Optional(withDescription(Email(), 'A new e-mail address; absent: unchanged. Changing it revokes the open invitations.')),
  phoneNumber: PhoneNumber,
  roleId: RoleId,
  modifiedBy: Email(),
});

const route: RouteModule = (app, { deps }) => {
  app.put('/security/merchantUsers/update', {
    schema: { tags: ['Merchant users'], summary: 'Update a merchant user', body: Body, response: { 200: Message } },
    handler: async (request, reply) => {
      await updateMerchantUser(deps, { ...request.body, merchantAccountNumber: request.principal!.merchantAccountNumber });
      return sendMessage(reply, 200, t(request.lang, 'ok.userUpdated'));
    },
  });
};
export default route;

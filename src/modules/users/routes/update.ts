// PUT /security/merchantUsers/update — names, phone, role and (optionally) e-mail address. A new
// address revokes the open invitations (they went to the old one): reinvite to send one there.
// The gateway's body names who updates `capturedBy` and has no organisationId; `modifiedBy` (the
// earlier name) is accepted too, and one of the two is required.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId, withDescription } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { PersonName, PhoneNumber, RoleId, UserId } from '../schemas.ts';
import { updateMerchantUser } from '../service.ts';

const Body = Type.Object({
  organisationId: Type.Optional(OrganisationId),
  merchantAccountNumber: MerchantAccountNumber,
  userId: UserId,
  firstName: PersonName('First name (1–60 characters).'),
  lastName: PersonName('Last name (1–60 characters).'),
  emailAddress: Type.Optional(withDescription(Email(), 'A new e-mail address; absent: unchanged. Changing it revokes the open invitations.')),
  phoneNumber: PhoneNumber,
  roleId: RoleId,
  capturedBy: Type.Optional(withDescription(Email(), 'Who updates the user, as the gateway names it. capturedBy or modifiedBy is required.')),
  modifiedBy: Type.Optional(withDescription(Email(), 'Who updates the user (the earlier name of capturedBy).')),
});

const route: RouteModule = (app, { deps }) => {
  app.put('/security/merchantUsers/update', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Update a merchant user',
      description:
        'Names, phone, role (a role code such as MERC_ADMIN, or its number) and, optionally, the e-mail address. Who updates is capturedBy (the gateway\'s name) or modifiedBy; one is required. A new address revokes the open invitations.',
      body: Body,
      response: { 200: Message },
    },
    handler: async (request, reply) => {
      const modifiedBy = request.body.modifiedBy ?? request.body.capturedBy;
      if (modifiedBy === undefined) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Captured By' } }] });
      await updateMerchantUser(deps, { ...request.body, modifiedBy, merchantAccountNumber: request.principal!.merchantAccountNumber });
      return sendMessage(reply, 200, t(request.lang, 'ok.userUpdated'));
    },
  });
};
export default route;

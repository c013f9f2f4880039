// POST /security/merchantUsers/add — a new merchant user, invited by e-mail to set a password.
// 201 with a message naming the new userId (also in the X-User-Id header). The same e-mail
// address twice for one merchant (in any case) is 409 E906.
import { Type } from '@sinclair/typebox';
import { publicBaseUrl } from '../../../http/base-url.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId, withDescription } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { PersonName, PhoneNumber, RoleId } from '../schemas.ts';
import { addUser } from '../service.ts';

const Body = Type.Object({
  organisationId: OrganisationId,
  merchantAccountNumber: MerchantAccountNumber,
  firstName: PersonName('First name (1–60 characters).'),
  lastName: PersonName('Last name (1–60 characters).'),
  emailAddress: withDescription(Email(), 'The user\'s e-mail address: the invitation goes there. Unique per merchant, whatever its case.'),
  phoneNumber: PhoneNumber,
  roleId: RoleId,
  capturedBy: Email(),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/security/merchantUsers/add', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Add a merchant user',
      description:
        'Creates the user and e-mails them a one-time link to set their password (valid INVITATION_HOURS, default 72). The new userId is in the message and the X-User-Id header.',
      body: Body,
      response: { 201: Message },
    },
    handler: async (request, reply) => {
      const principal = request.principal!;
      const userId = await addUser(deps, { ...request.body, organisationId: principal.organisationId, merchantAccountNumber: principal.merchantAccountNumber }, publicBaseUrl(deps.config, request));
      reply.header('x-user-id', userId);
      return sendMessage(reply, 201, t(request.lang, 'ok.userCreated', { userId, emailAddress: request.body.emailAddress }));
    },
  });
};
export default route;

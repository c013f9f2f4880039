// POST /security/merchantUsers/add — a new merchant user, invited by e-mail to set a password.
// 201 with the gateway's message; the new userId is in the X-User-Id header. The same e-mail
// address twice for one merchant (in any case) is 409 E906. The body is the gateway's: `roleId` a
// role code ("MERC_ADMIN") or number, with `"organisationTypeCode": "MER"`.
import { Type } from '@sinclair/typebox';
import { publicBaseUrl } from '../../../http/base-url.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber, OrganisationId, withDescription } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { OrganisationTypeCode, PersonName, PhoneNumber, RoleId } from '../schemas.ts';
import { addUser } from '../service.ts';

const Body = Type.Object({
  organisationId: OrganisationId,
  merchantAccountNumber: MerchantAccountNumber,
  firstName: PersonName('First name (1–60 characters).'),
  lastName: PersonName('Last name (1–60 characters).'),
  emailAddress: withDescription(Email(), 'The user\'s e-mail address: the invitation goes there. Unique per merchant, whatever its case.'),
  phoneNumber: PhoneNumber,
  roleId: RoleId,
  organisationTypeCode: Type.Optional(OrganisationTypeCode),
  capturedBy: Email(),
}, {
  examples: [
    {
      organisationId: EXAMPLE.organisationId,
      merchantAccountNumber: EXAMPLE.merchantAccountNumber,
      firstName: 'Thandiwe',
      lastName: 'Phiri',
      emailAddress: 'thandiwe.phiri@example.mw',
      phoneNumber: '265991234567',
      roleId: 'MERC_APPROVER',
      organisationTypeCode: 'MER',
      capturedBy: EXAMPLE.actor,
    },
  ],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/security/merchantUsers/add', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Add a merchant user',
      description:
        'Creates the user and e-mails them a one-time link to set their password (valid INVITATION_HOURS, default 72). The answer is the gateway\'s message; the new userId is in the X-User-Id header. ' +
        'roleId is a role code as the gateway documents it (MERC_ADMIN, MERC_INITIATOR, MERC_REVIEWER, MERC_APPROVER, MERC_VIEWER) or its number 1–5; organisationTypeCode, when sent, is MER.',
      body: Body,
      response: {
        201: {
          ...Message,
          description: 'The user was created and invited: the gateway\'s confirmation message (JSON string); the userId is in X-User-Id.',
          headers: { 'x-user-id': { type: 'string', description: 'The new user\'s id (a UUID).' } },
        },
      },
    },
    handler: async (request, reply) => {
      const principal = request.principal!;
      const userId = await addUser(deps, { ...request.body, organisationId: principal.organisationId, merchantAccountNumber: principal.merchantAccountNumber }, publicBaseUrl(deps.config, request));
      reply.header('x-user-id', userId);
      return sendMessage(reply, 201, t(request.lang, 'ok.userCreated'));
    },
  });
};
export default route;

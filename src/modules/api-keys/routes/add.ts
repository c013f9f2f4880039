// POST /security/apiKeys/add — stores a key pair (typically one from E1). 201 with a message.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, MerchantAccountNumber, Message, OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { ClientKey } from '../schemas.ts';
import { add } from '../service.ts';

const Body = Type.Object({
  organisationId: OrganisationId,
  merchantAccountNumber: MerchantAccountNumber,
  clientKey: ClientKey,
  clientSecret: Type.String({ minLength: 32, maxLength: 128, pattern: '^[\\x21-\\x7e]+$', description: 'The secret, 32–128 printable characters; stored only as a hash.' }),
  capturedBy: Type.Optional(Email()),
  createdBy: Type.Optional(Email()),
  expiryDate: Type.Optional(Type.String({ format: 'date-time', description: 'When the key stops working (UTC); omit for no expiry.' })),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/security/apiKeys/add', {
    schema: {
      tags: ['API keys'],
      summary: 'Add an API key',
      body: Body,
      response: { 201: Message },
    },
    handler: async (request, reply) => {
      const capturedBy = request.body.capturedBy ?? request.body.createdBy;
      if (!capturedBy) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Captured By' } }] });
      await add(deps, { ...request.body, capturedBy });
      return sendMessage(reply, 201, t(request.lang, 'ok.apiKeyCreated'));
    },
  });
};
export default route;

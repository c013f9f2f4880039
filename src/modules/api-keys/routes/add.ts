// POST /security/apiKeys/add — stores a key pair (typically one from E1). 201 with a message.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, MerchantAccountNumber, Message, OrganisationId } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
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
}, {
  examples: [
    {
      organisationId: EXAMPLE.organisationId,
      merchantAccountNumber: EXAMPLE.merchantAccountNumber,
      clientKey: 'Q7RZ2KX9M4TB8WNC3HFD6JPL0SYVAE',
      clientSecret: 'k3J9-pLq2Xz8Rt5Vw1Yb7Nc4Md6Fg0Hs2Ja5Ke8Lu1Oi',
      capturedBy: EXAMPLE.actor,
    },
  ],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/security/apiKeys/add', {
    schema: {
      tags: ['API keys'],
      summary: 'Add an API key',
      description:
        'Stores a key pair, typically one from GET /security/apiKeys/generate (E1), for the merchant account; the secret is kept only as ' +
        'a hash. The pair can then get access tokens. A clientKey already stored answers 409 E906.',
      body: Body,
      response: { 201: { ...Message, description: 'The key pair was stored: a confirmation message (JSON string).' } },
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

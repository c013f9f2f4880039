// PUT /security/apiKeys/deactivate — sets the key's status to I. Tokens follow within seconds.
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Message } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { KeyAction } from '../schemas.ts';
import { setStatus } from '../service.ts';

const route: RouteModule = (app, { deps, keyStatus }) => {
  app.put('/security/apiKeys/deactivate', {
    schema: {
      tags: ['API keys'],
      summary: 'Deactivate an API key',
      body: KeyAction('changedBy'),
      response: { 200: Message },
    },
    handler: async (request, reply) => {
      const { merchantAccountNumber, clientKey, changedBy } = request.body;
      await setStatus(deps, keyStatus, merchantAccountNumber, clientKey, 'I', changedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.apiKeyDeactivated'));
    },
  });
};
export default route;

// DELETE (or POST) /security/apiKeys/delete — deletes a key pair; its tokens stop working.
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Message } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { KeyAction } from '../schemas.ts';
import { remove } from '../service.ts';

const route: RouteModule = (app, { deps, keyStatus }) => {
  app.route({
    method: ['DELETE', 'POST'],
    url: '/security/apiKeys/delete',
    schema: {
      tags: ['API keys'],
      summary: 'Delete an API key',
      description: 'Deletes a key pair of the merchant (DELETE, or POST as some clients send it); its access tokens stop working within seconds. Another merchant\'s key answers 404 E903.',
      body: KeyAction('deletedBy'),
      response: { 200: { ...Message, description: 'The key pair was deleted: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      const { merchantAccountNumber, clientKey, deletedBy } = request.body;
      await remove(deps, keyStatus, merchantAccountNumber, clientKey, deletedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.apiKeyDeleted'));
    },
  });
};
export default route;

// Shared by activate.ts and deactivate.ts: the two endpoints differ only in the status they set.
import { t, type MessageKey } from '../../http/i18n.ts';
import { sendMessage } from '../../http/respond.ts';
import { Message } from '../../http/schemas.ts';
import type { RouteModule } from '../../http/types.ts';
import { API_KEY, type ApiKeyStatus } from './repository.ts';
import { KeyAction } from './schemas.ts';
import { setStatus } from './service.ts';

export function statusRoute(action: 'activate' | 'deactivate', status: ApiKeyStatus, message: MessageKey, summary: string): RouteModule {
  return (app, { deps, keyStatus }) => {
    app.put(`/security/apiKeys/${action}`, {
      schema: {
        tags: ['API keys'],
        summary,
        description:
          status === API_KEY.active
            ? 'Activates a key pair of the merchant: it gets access tokens again, and its unexpired tokens work again. Another merchant\'s key answers 404 E903.'
            : 'Deactivates a key pair of the merchant: it gets no new access token, and its tokens stop working within seconds. Another merchant\'s key answers 404 E903.',
        body: KeyAction('changedBy'),
        response: { 200: { ...Message, description: `The key was ${status === API_KEY.active ? 'activated' : 'deactivated'}: a confirmation message (JSON string).` } },
      },
      handler: async (request, reply) => {
        const { merchantAccountNumber, clientKey, changedBy } = request.body;
        await setStatus(deps, keyStatus, merchantAccountNumber, clientKey, status, changedBy);
        return sendMessage(reply, 200, t(request.lang, message));
      },
    });
  };
}

// activate, suspend and blacklist share one shape: the documented body {merchantAccountNumber,
// changedBy, reasonId, comments} and a message. Used by merchant-accounts-{activate,suspend,blacklist}.ts.
import type { MessageKey } from '../../http/i18n.ts';
import { t } from '../../http/i18n.ts';
import { sendMessage } from '../../http/respond.ts';
import { Message } from '../../http/schemas.ts';
import type { RouteModule } from '../../http/types.ts';
import { StatusChangeBody } from '../merchants/schemas.ts';
import { changeMerchantStatus, STATUS_TRANSITIONS, type StatusAction } from '../merchants/status.ts';

const NAMES: Record<StatusAction, { summary: string; done: MessageKey; what: string }> = {
  activate: { summary: 'Activate a merchant account', done: 'ok.merchantActivated', what: 'Lifts a suspension or a blacklisting: the account may authenticate and move money again.' },
  suspend: { summary: 'Suspend a merchant account', done: 'ok.merchantSuspended', what: 'Until activated, its tokens stop working and no money moves (the key status cache expires within KEY_STATUS_CACHE_MS).' },
  blacklist: { summary: 'Blacklist a merchant account', done: 'ok.merchantBlacklisted', what: 'As suspend, for an account the operator refuses to serve; only the operator can lift it (activate).' },
};

export function merchantStatusRoute(action: StatusAction): RouteModule {
  const { summary, done, what } = NAMES[action];
  return (app, { deps, keyStatus }) => {
    app.post(`/admin/v1/merchants/accounts/${action}`, {
      config: { auth: 'admin' },
      schema: {
        tags: ['Operator'],
        summary,
        description:
          `${what} Allowed from ${STATUS_TRANSITIONS[action].from.join(', ')} (A active, S suspended, B blacklisted, I inactive); 402 E916 otherwise. ` +
          'Recorded with changedBy, the reason and the comments (GET getStatusChanges). 404 E903 for an unknown account or reasonId.',
        security: [{ adminToken: [] }],
        body: StatusChangeBody,
        response: { 200: { ...Message, description: 'The status was changed: a confirmation message (JSON string).' } },
      },
      handler: async (request, reply) => {
        const { merchantAccountNumber, changedBy, reasonId, comments } = request.body;
        await changeMerchantStatus(deps, { merchantAccountNumber, action, changedBy, reasonId, comments });
        // At once on this process; other processes within their cache's lifetime.
        keyStatus.invalidate();
        return sendMessage(reply, 200, t(request.lang, done));
      },
    });
  };
}

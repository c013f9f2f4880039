// PUT /security/merchantUsers/close — the user is closed and their open invitation links stop
// working (closing a closed user changes nothing).
import { AppError } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Message } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { StatusChangeBody } from '../schemas.ts';
import { closeMerchantUser } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.put('/security/merchantUsers/close', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Close a merchant user',
      description:
        'The user is closed and their open invitation links stop working (closing a closed user changes nothing). The gateway\'s body: {merchantAccountNumber, userId, changedBy, reasonId?, comments?}; modifiedBy (the earlier name of changedBy) is accepted too, and one of the two is required. reasonId and comments go into the status change audit trail.',
      body: StatusChangeBody,
      response: { 200: { ...Message, description: 'The user is closed: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      const { userId, changedBy, modifiedBy, reasonId, comments } = request.body;
      const by = changedBy ?? modifiedBy;
      if (by === undefined) throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.required', params: { field: 'Changed By' } }] });
      await closeMerchantUser(deps, request.principal!.merchantAccountNumber, userId, { changedBy: by, reasonId, comments });
      return sendMessage(reply, 200, t(request.lang, 'ok.userClosed'));
    },
  });
};
export default route;

// POST /merchants/bankAccounts/delete — inactive accounts only (402 E916 otherwise).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId } from '../schemas.ts';
import { deleteAccount } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/delete', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Delete a settlement account',
      body: Type.Object({ accountId: AccountId, merchantAccountNumber: MerchantAccountNumber, deletedBy: Email() }),
      response: { 200: Message },
    },
    handler: async (request, reply) => {
      await deleteAccount(deps, request.body.merchantAccountNumber, request.body.accountId, request.body.deletedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementDeleted'));
    },
  });
};
export default route;

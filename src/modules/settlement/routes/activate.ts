// E7 POST /merchants/bankAccounts/activate — one active settlement account per merchant (402 E926
// naming the active one otherwise).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId } from '../schemas.ts';
import { activate } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/activate', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Activate a settlement account (E7)',
      body: Type.Object({ accountId: AccountId, changedBy: Email(), merchantAccountNumber: Type.Optional(MerchantAccountNumber) }),
      response: { 200: Message },
    },
    handler: async (request, reply) => {
      await activate(deps, request.principal!.merchantAccountNumber, request.body.accountId, request.body.changedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementActivated'));
    },
  });
};
export default route;

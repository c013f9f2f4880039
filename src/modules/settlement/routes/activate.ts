// E7 POST /merchants/bankAccounts/activate — one active settlement account per merchant (402 E926
// naming the active one otherwise).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId } from '../schemas.ts';
import { activate } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/activate', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Activate a settlement account (E7)',
      description:
        'The account becomes the one settlements are paid into. Only one settlement account of a merchant is active at a time: ' +
        'while another is, the answer is 402 E926 naming it (deactivate it first). An unknown or another merchant\'s accountId answers 404 E903.',
      body: Type.Object(
        { accountId: AccountId, changedBy: Email(), merchantAccountNumber: Type.Optional(MerchantAccountNumber) },
        { examples: [{ accountId: 1001, changedBy: EXAMPLE.actor, merchantAccountNumber: EXAMPLE.merchantAccountNumber }] },
      ),
      response: { 200: { ...Message, description: 'The account was activated: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await activate(deps, request.principal!.merchantAccountNumber, request.body.accountId, request.body.changedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementActivated'));
    },
  });
};
export default route;

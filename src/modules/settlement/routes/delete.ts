// POST /merchants/bankAccounts/delete — inactive accounts only (402 E916 otherwise).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId } from '../schemas.ts';
import { deleteAccount } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/delete', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Delete a settlement account',
      description: 'Deletes an inactive settlement account (402 E916 while it is active: deactivate it first). An unknown or another merchant\'s accountId answers 404 E903.',
      body: Type.Object(
        { accountId: AccountId, merchantAccountNumber: MerchantAccountNumber, deletedBy: Email() },
        { examples: [{ accountId: 1001, merchantAccountNumber: EXAMPLE.merchantAccountNumber, deletedBy: EXAMPLE.actor }] },
      ),
      response: { 200: { ...Message, description: 'The account was deleted: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await deleteAccount(deps, request.body.merchantAccountNumber, request.body.accountId, request.body.deletedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementDeleted'));
    },
  });
};
export default route;

// POST /merchants/bankAccounts/deactivate — the account stops receiving settlements.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId } from '../schemas.ts';
import { deactivate } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/deactivate', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Deactivate a settlement account',
      description: 'The account stops receiving settlements; another one can then be activated. An unknown or another merchant\'s accountId answers 404 E903.',
      body: Type.Object(
        { accountId: AccountId, changedBy: Email(), merchantAccountNumber: Type.Optional(MerchantAccountNumber) },
        { examples: [{ accountId: 1001, changedBy: EXAMPLE.actor, merchantAccountNumber: EXAMPLE.merchantAccountNumber }] },
      ),
      response: { 200: { ...Message, description: 'The account was deactivated: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await deactivate(deps, request.principal!.merchantAccountNumber, request.body.accountId, request.body.changedBy);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementDeactivated'));
    },
  });
};
export default route;

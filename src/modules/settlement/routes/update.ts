// E15 POST /merchants/bankAccounts/update — active accounts only (402 E916 otherwise).
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { ConnectorId, Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountId, AccountName, BankAccountNumber } from '../schemas.ts';
import { updateAccount } from '../service.ts';

const Body = Type.Object({
  // The gateway's samples send it as a string: "merchantAccountNumber": "10010001".
  merchantAccountNumber: MerchantAccountNumber,
  accountId: AccountId,
  accountNumber: BankAccountNumber,
  connectorId: ConnectorId,
  accountName: AccountName,
  capturedBy: Email(),
}, {
  examples: [
    {
      merchantAccountNumber: EXAMPLE.merchantAccountNumber,
      accountId: 1001,
      accountNumber: EXAMPLE.settlementBank.accountNumber,
      connectorId: EXAMPLE.settlementBank.connectorId,
      accountName: EXAMPLE.settlementBank.accountName,
      capturedBy: EXAMPLE.actor,
    },
  ],
});

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/update', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Update a settlement account (E15)',
      description:
        'Changes the bank account number, the bank connector and the holder\'s name of the active settlement account (only an active ' +
        "account can be updated: 402 E916 otherwise). An unknown or another merchant's accountId answers 404 E903.",
      body: Body,
      response: { 200: { ...Message, description: 'The account was updated: a confirmation message (JSON string).' } },
    },
    handler: async (request, reply) => {
      await updateAccount(deps, request.body);
      return sendMessage(reply, 200, t(request.lang, 'ok.settlementUpdated'));
    },
  });
};
export default route;

// POST /merchants/bankAccounts/add — a new settlement account, inactive. 201 with a message.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { ConnectorId, Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountName, BankAccountNumber } from '../schemas.ts';
import { addAccount } from '../service.ts';

const Body = Type.Object(
  { merchantAccountNumber: MerchantAccountNumber, accountNumber: BankAccountNumber, connectorId: ConnectorId, accountName: AccountName, capturedBy: Email() },
  {
    examples: [
      {
        merchantAccountNumber: EXAMPLE.merchantAccountNumber,
        accountNumber: EXAMPLE.settlementBank.accountNumber,
        connectorId: EXAMPLE.settlementBank.connectorId,
        accountName: EXAMPLE.settlementBank.accountName,
        capturedBy: EXAMPLE.actor,
      },
    ],
  },
);

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/add', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Add a settlement account',
      description:
        'A bank account of the merchant that settlements can be paid into (connectorId: a bank connector, e.g. 221500 FDH Bank, ' +
        '212188 National Bank of Malawi, 221300 Standard Bank; accountNumber: 10–16 digits). New accounts are inactive; activate one ' +
        'with /merchants/bankAccounts/activate. The gateway\'s message ("Merchant bank account has been created successfully"); the new accountId is in the X-Account-Id header.',
      body: Body,
      response: {
        201: {
          ...Message,
          description: 'The account was added (inactive): the gateway\'s confirmation message (JSON string); its accountId is in X-Account-Id.',
          headers: { 'x-account-id': { type: 'integer', description: 'The new settlement account id.' } },
        },
      },
    },
    handler: async (request, reply) => {
      const accountId = await addAccount(deps, request.body);
      reply.header('x-account-id', accountId);
      return sendMessage(reply, 201, t(request.lang, 'ok.settlementCreated'));
    },
  });
};
export default route;

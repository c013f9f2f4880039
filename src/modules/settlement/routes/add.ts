// POST /merchants/bankAccounts/add — a new settlement account, inactive. 201 with a message.
import { Type } from '@sinclair/typebox';
import { t } from '../../../http/i18n.ts';
import { sendMessage } from '../../../http/respond.ts';
import { ConnectorId, Email, Message, MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { AccountName, BankAccountNumber } from '../schemas.ts';
import { addAccount } from '../service.ts';

const Body = Type.Object({ merchantAccountNumber: MerchantAccountNumber, accountNumber: BankAccountNumber, connectorId: ConnectorId, accountName: AccountName, capturedBy: Email() });

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/bankAccounts/add', {
    schema: {
      tags: ['Settlement accounts'],
      summary: 'Add a settlement account',
      description: 'New accounts are inactive; activate one with /merchants/bankAccounts/activate. The new accountId is in the message and the X-Account-Id header.',
      body: Body,
      response: { 201: Message },
    },
    handler: async (request, reply) => {
      const accountId = await addAccount(deps, request.body);
      reply.header('x-account-id', accountId);
      return sendMessage(reply, 201, t(request.lang, 'ok.settlementCreated', { accountId }));
    },
  });
};
export default route;

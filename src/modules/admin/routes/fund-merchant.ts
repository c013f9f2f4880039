// POST /admin/v1/merchants/{merchantAccountNumber}/fundings — the operator records money the bank
// received for a merchant: the only way a production merchant's disbursement balance grows
// (product.md §15). Idempotent by bank reference, as keyed writes are: the same receipt recorded
// again answers the first answer (201, the same record) with Idempotent-Replayed: true and
// credits nothing; the reference used for another merchant, amount or day is 409 E906.
import { Type } from '@sinclair/typebox';
import { Email, MerchantAccountNumber, Money } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { toMinor } from '../../../lib/money.ts';
import { BANK_REFERENCE_MAX_LENGTH, recordFunding } from '../../merchants/fundings.ts';
import { Funding } from '../schemas.ts';

const Body = Type.Object({
  amount: Money('0.01', '5000000000', 'Amount received, 0.01–5,000,000,000.00 in the merchant currency, at most 2 decimals.'),
  bankReference: Type.String({
    minLength: 1,
    maxLength: BANK_REFERENCE_MAX_LENGTH,
    pattern: '^ *[A-Za-z0-9][A-Za-z0-9 /._-]*$',
    description: "The bank's reference of the receipt (unique: one receipt credits one merchant once; compared without case).",
    examples: ['FT24330XK9Q1'],
  }),
  receivedOn: Type.String({ format: 'date', description: 'The day the bank received the money (YYYY-MM-DD, not in the future).' }),
  recordedBy: Email(),
}, { examples: [{ amount: '2500000.00', bankReference: 'FT24330XK9Q1', receivedOn: '2025-09-19', recordedBy: 'finance@example.mw' }] });

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/merchants/:merchantAccountNumber/fundings', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "Record money received for a merchant's disbursement balance",
      description:
        'A ledger transfer from the bank settlement account to the merchant disbursement balance, kept with the bank reference, ' +
        'the day received and who recorded it. The only funding in production mode (top-up is sandbox-only). Recording the same ' +
        'receipt again answers the first record again (201, Idempotent-Replayed: true) and credits nothing.',
      security: [{ adminToken: [] }],
      params: Type.Object({ merchantAccountNumber: MerchantAccountNumber }),
      body: Body,
      response: { 201: { ...Funding, description: 'The funding recorded (or, for a receipt already recorded, the first record again).' } },
    },
    handler: async (request, reply) => {
      const { funding, created } = await recordFunding(deps, {
        merchantAccountNumber: request.params.merchantAccountNumber,
        amountMinor: toMinor(request.body.amount),
        bankReference: request.body.bankReference,
        receivedOn: request.body.receivedOn,
        recordedBy: request.body.recordedBy,
      });
      if (!created) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(funding);
    },
  });
};
export default route;

// The rails group: the payment rails as the operator sees them (src/rails/operator.ts).
import { adminCall } from './request.ts';
import { printJson, usage, wholeNumber, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'rails health',
    usage: `\
  rails health
      Each payment rail with the connector ids it carries, its last success and failure, its
      successes and failures in the last hour, and its payouts in flight and overdue.
`,
    options: [],
    server: true,
    async run(values, base) {
      printJson(await adminCall(base, 'GET', '/admin/v1/rails', values, {}));
    },
  },
  {
    name: 'rails unknown',
    usage: `\
  rails unknown [--limit N]
      Payouts sent over a rail and still unanswered past their expiry, oldest first (N ≤ 1000,
      default 100). The service keeps asking the switch about each; none is failed or resent.
`,
    options: ['limit'],
    server: true,
    async run(values, base) {
      printJson(await adminCall(base, 'GET', '/admin/v1/rails/payouts/unknown', values, { query: { limit: wholeNumber(values, 'limit') } }));
    },
  },
  {
    name: 'rails traffic',
    usage: `\
  rails traffic --reference TRANSACTION_REFERENCE_NUMBER
      One payout's way over its rail: its ids and phase, the beneficiary's DFSP and the name it
      holds, and every message sent and received, oldest first (routing headers only).
`,
    options: ['reference'],
    server: true,
    async run(values, base) {
      const reference = values.reference?.trim();
      if (!reference || !/^[A-Z0-9]{12}$/.test(reference)) usage('--reference must be a payout\'s 12-character transactionReferenceNumber');
      printJson(await adminCall(base, 'GET', `/admin/v1/rails/payouts/${reference}`, values, {}));
    },
  },
];

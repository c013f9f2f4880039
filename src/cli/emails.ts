// The emails group: the server's e-mail outbox as the operator sees it. Without SMTP_URL the
// server sends nothing and keeps its e-mails "held", so this is where invitation links are read.
import { adminCall } from './request.ts';
import { printJson, usage, wholeNumber, type CliCommand } from './shared.ts';

const EMAIL_STATUSES = ['pending', 'sent', 'held', 'failed'];

export const commands: CliCommand[] = [
  {
    name: 'emails list',
    usage: `\
  emails list [--status pending|sent|held|failed] [--recipient ADDRESS] [--page N] [--limit N]
      List the e-mail outbox, newest first (N ≤ 100 a page, default 50), with each message's
      status, attempts, last error and text body. Without SMTP_URL the server sends nothing and
      keeps its e-mails here as "held": this is where invitation links can be read.
`,
    options: ['status', 'recipient', 'page', 'limit'],
    server: true,
    async run(values, base) {
      const status = values.status?.trim();
      if (status !== undefined && !EMAIL_STATUSES.includes(status)) usage(`--status must be one of ${EMAIL_STATUSES.join(', ')}, got "${status.slice(0, 40)}"`);
      printJson(
        await adminCall(base, 'GET', '/admin/v1/emails', values, {
          query: { status, recipient: values.recipient?.trim(), pageNumber: wholeNumber(values, 'page'), numberOfReturnedRows: wholeNumber(values, 'limit') },
        }),
      );
    },
  },
];

// GET /admin/v1/emails — the e-mail outbox, newest first, paged; optionally one status or one
// recipient. With no SMTP_URL configured this is where invitations can be read ('held'). The
// bodies hold set-password links: the operator token only.
import { Type } from '@sinclair/typebox';
import { pageWindow } from '../../../http/paging.ts';
import { Email, withDescription } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { listEmails, type EmailRow } from '../../email/repository.ts';
import { EmailRecord, EmailStatusSchema } from '../../email/schemas.ts';

export function emailView(e: EmailRow) {
  return {
    emailId: e.email_id,
    merchantAccountNumber: e.merchant_account_number,
    recipient: e.recipient,
    subject: e.subject,
    status: e.status,
    attempts: e.attempts,
    lastError: e.last_error,
    createdAt: e.created_at.toISOString(),
    sentAt: e.sent_at?.toISOString() ?? null,
    bodyText: e.body_text,
  };
}

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/emails', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'List e-mails of the outbox',
      description:
        'The e-mail outbox (invitations and other messages), newest first, paged; optionally one status or one recipient. Without ' +
        'SMTP_URL messages are held here, so this is where invitation links can be read in a sandbox.',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        pageNumber: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
        numberOfReturnedRows: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
        status: Type.Optional(EmailStatusSchema),
        recipient: Type.Optional(withDescription(Email(), 'Only messages to this address (any case).')),
      }),
      response: { 200: Type.Array(EmailRecord, { description: 'The page of e-mails, newest first, with their bodies.' }) },
    },
    handler: async (request) => {
      const { pageNumber, numberOfReturnedRows, status, recipient } = request.query;
      const rows = await listEmails(deps.db, { status, recipient, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental: false }) });
      return rows.map(emailView);
    },
  });
};
export default route;

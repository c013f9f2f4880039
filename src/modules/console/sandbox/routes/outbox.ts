// The sandbox's outbox (issue 27; sandbox mode only, like every sandbox page: 404 in production).
// GET /console/sandbox/outbox           the merchant's held e-mails, newest first
// GET /console/sandbox/outbox/:emailId  one of them; another merchant's, or one that was sent, is the 404 page
// Held e-mails carry invitation and password reset links, so they are for the roles that may invite
// users (roles.ts: whoever sees the team), 403 for the others; opening one is in the audit log.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../http/errors.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { writeAudit } from '../../kit/audit.ts';
import { at } from '../../kit/at.ts';
import { consoleContext, originFromRequest, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { page } from '../../kit/layout.tsx';
import { mayReadOutbox } from '../../kit/mail.ts';
import { SANDBOX_OUTBOX_PATH } from '../../kit/paths.ts';
import { EmailPage, OutboxPage } from '../pages/outbox.tsx';
import { findHeldEmail, listHeldEmails, OUTBOX_LIMIT } from '../queries.ts';

const CONFIG = { consoleAccess: 'user', consoleSection: 'sandbox' } as const;
/** Any text: one that is not an e-mail id is looked up as none (the 404 page). */
const EmailParams = Type.Object({ emailId: Type.String() });
const EMAIL_ID = /^[1-9][0-9]{0,15}$/;

/** The section's own check (sandbox mode, a sandbox role) is done by CONFIG; this is the team's. */
function refuseOthers(context: ConsoleContext): void {
  if (!mayReadOutbox(context)) throw new AppError('forbidden');
}

function outboxList(scope: App, deps: Deps): void {
  scope.get(at(SANDBOX_OUTBOX_PATH), { config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    refuseOthers(context);
    const smtpConfigured = deps.config.smtpUrl !== undefined;
    const emails = await listHeldEmails(deps.db, context.user.merchantAccountNumber, smtpConfigured);
    return sendHtml(reply, context, 200, page(OutboxPage({ context, emails, smtpConfigured, limit: OUTBOX_LIMIT })));
  });
}

function outboxEmail(scope: App, deps: Deps): void {
  scope.get(`${at(SANDBOX_OUTBOX_PATH)}/:emailId`, { schema: { params: EmailParams }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    refuseOthers(context);
    const { merchantAccountNumber, userId } = context.user;
    const id = request.params.emailId;
    const email = EMAIL_ID.test(id) ? await findHeldEmail(deps.db, merchantAccountNumber, Number(id), deps.config.smtpUrl !== undefined) : undefined;
    if (!email) throw new AppError('notFound');
    // Who read which held e-mail (its links work for whoever has them): the team's audit log shows it.
    await writeAudit(deps.db, deps.clock.now(), originFromRequest(request), [
      { merchantAccountNumber, userId, action: 'sandbox.read_email', detail: { emailId: email.emailId, recipient: email.recipient } },
    ]);
    return sendHtml(reply, context, 200, page(EmailPage({ context, email })));
  });
}

const route: RouteModule = (scope, { deps }) => {
  outboxList(scope, deps);
  outboxEmail(scope, deps);
};
export default route;

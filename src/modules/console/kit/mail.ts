// What the console tells a person about an e-mail it wrote (issue 27). E-mails go through the
// outbox (src/modules/email): with SMTP_URL set the worker sends them; without it none leaves the
// service: each is held, readable in the sandbox's outbox page (sandbox mode) or by the operator
// (GET /admin/v1/emails, `npm run cli -- emails list`, with ADMIN_TOKEN). A page that says "on its
// way" for a held e-mail sends the person to wait for something that never comes, so each notice
// about an e-mail has three wordings, chosen here from the configuration (the worker decides the
// same way: deliverEmail holds a message exactly when SMTP_URL is unset).
import type { FastifyRequest } from 'fastify';
import { formField } from '../../../http/html.ts';
import type { Config } from '../../../config.ts';
import type { ConsoleContext } from './http.ts';
import { ct } from './i18n.ts';
import { SANDBOX_OUTBOX_PATH } from './paths.ts';
import { maySee } from './roles.ts';

/** sent: handed to the worker, which sends it; held: kept in the outbox, in the sandbox's page or for the operator. */
export type MailDelivery = 'sent' | 'heldSandbox' | 'heldOperator';

export function mailDelivery(config: Pick<Config, 'smtpUrl' | 'mode'>): MailDelivery {
  if (config.smtpUrl) return 'sent';
  return config.mode === 'sandbox' ? 'heldSandbox' : 'heldOperator';
}

/** The suffix of a notice key for each delivery: notice.team.invited, …invitedHeld, …invitedHeldOperator. */
const NOTICE_SUFFIX: Record<MailDelivery, '' | 'Held' | 'HeldOperator'> = { sent: '', heldSandbox: 'Held', heldOperator: 'HeldOperator' };

/** The notice key saying what became of an e-mail: `base` when it is sent, its held variants otherwise (each needs its text). */
export function mailNotice<K extends `notice.${string}`>(config: Pick<Config, 'smtpUrl' | 'mode'>, base: K): `${K}${'' | 'Held' | 'HeldOperator'}` {
  return `${base}${NOTICE_SUFFIX[mailDelivery(config)]}`;
}

/**
 * The link beside a notice of an e-mail held in the sandbox (its key ends in "Held"), to the
 * outbox, for whom the outbox is open: sandbox mode and a role that manages the team (the held
 * e-mails carry invitation and reset links). Undefined otherwise.
 */
export function heldMailLink(request: FastifyRequest, context: ConsoleContext): { href: string; text: string } | undefined {
  const key = formField(request.query, 'notice');
  if (!key?.startsWith('notice.') || !key.endsWith('Held')) return undefined;
  if (!mayReadOutbox(context)) return undefined;
  return { href: SANDBOX_OUTBOX_PATH, text: ct(context.lang, 'mail.openOutbox') };
}

/** Who may read the held e-mails: in sandbox mode, the roles that may invite users (they carry their links). */
export function mayReadOutbox(context: ConsoleContext): boolean {
  return context.sandbox && maySee(context.user.roleCode, 'team', context.sandbox);
}

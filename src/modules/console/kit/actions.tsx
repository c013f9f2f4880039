// The console's actions (issue 19): a form that changes something runs through `runAction`, which
// makes it happen once and leaves a trace.
//   - Once: every such form carries a key of its own (<FormKey/>, a random UUID rendered into the
//     page). The key is claimed (console_form_submissions, migration 0018) in the same transaction
//     as the effect and its audit entry, so a double click or a resubmitted form waits for the
//     first submission and is answered with its outcome (the same redirect) instead of acting
//     again. A refusal rolls everything back, claim included: the corrected form can be sent again
//     with the same key.
//   - A trace: the audit log (audit.ts) gets who (the signed-in user), what, when and from where.
//   - The same rules as the API: `run` calls the services the API routes call, with the signed-in
//     user as the actor; their refusals (AppError) come back as a message in the user's language
//     (`refusalOf`), for the page to show beside the user's input.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withTransaction } from '../../../db/pool.ts';
import { AppError, problemFromAppError } from '../../../http/errors.ts';
import { formField } from '../../../http/html.ts';
import type { Lang } from '../../../http/i18n.ts';
import type { Deps } from '../../../http/types.ts';
import { h, type SafeHtml } from '../../../lib/html/jsx.ts';
import { writeAudit, type AuditAction, type AuditDetail } from './audit.ts';
import { originFromRequest, type ConsoleContext } from './http.ts';
import { ct, knownText } from './i18n.ts';

/** The form field carrying the submission's key. */
export const FORM_KEY_FIELD = '_form';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The hidden field every state-changing form carries (a new key each time the form is rendered). */
export function FormKey(): SafeHtml {
  return <input type="hidden" name={FORM_KEY_FIELD} value={randomUUID()} />;
}

/** Where the browser goes after the action, and the notice shown there (a message key: see noticeOf). */
export interface ActionOutcome {
  location: string;
}

/** `path` with ?notice=KEY (or &notice=KEY): the page it leads to shows that message. */
export function withNotice(path: string, notice: `notice.${string}`): string {
  return `${path}${path.includes('?') ? '&' : '?'}notice=${encodeURIComponent(notice)}`;
}

/**
 * The notice a page shows after an action: only a known message whose key starts with "notice."
 * (never text from the address: a link cannot make the console say something it does not).
 */
export function noticeOf(request: FastifyRequest, lang: Lang): string | undefined {
  const key = formField(request.query, 'notice');
  return key && key.startsWith('notice.') ? knownText(lang, key) : undefined;
}

/** A refusal, for the page to show: the message, and one message per field when the service named fields. */
export interface Refusal {
  status: number;
  message: string;
  fields: string[];
}

/** The refusal an error from a service means, in `lang`; undefined when it is not a refusal (a bug: let it be a 500). */
export function refusalOf(err: unknown, lang: Lang): Refusal | undefined {
  if (!(err instanceof AppError) || err.status >= 500) return undefined;
  const problem = problemFromAppError(err, lang, '', '');
  return { status: problem.status, message: problem.detail, fields: problem.errors.filter((e) => e !== problem.detail) };
}

/** A refusal the console itself makes (a form field missing or out of range), already translated. */
export class ConsoleRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Messages by form field name. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export type ActionResult = { kind: 'done'; outcome: ActionOutcome } | { kind: 'replayed'; outcome: ActionOutcome };

export interface ActionSpec {
  /** What it is, as the audit log names it ('batch.approve', 'api_key.generate', …). */
  action: AuditAction;
  /** Does it, in the transaction the claim and the audit entry are written in; answers where to go and what to record. */
  run(tx: pg.PoolClient): Promise<{ outcome: ActionOutcome; detail?: AuditDetail }>;
}

/**
 * Runs a console action once per form key (see the top of this file). Throws ConsoleRefusal for a
 * form without a valid key (a page from before this version, or a forged request), and whatever
 * `run` throws (AppError refusals: the caller shows them with refusalOf).
 */
export async function runAction(deps: Deps, request: FastifyRequest, context: ConsoleContext, spec: ActionSpec): Promise<ActionResult> {
  const key = formField(request.body, FORM_KEY_FIELD) ?? '';
  if (!UUID_PATTERN.test(key)) throw new ConsoleRefusal(400, ct(context.lang, 'action.staleForm'));
  const { user } = context;
  const now = deps.clock.now();
  const done = await withTransaction(deps.db, async (tx) => {
    // Waits here while another submission of this form is under way; inserts nothing if one went through.
    const claimed = await tx.query(
      `insert into console_form_submissions (merchant_account_number, form_key, user_id, action, outcome, created_at)
       values ($1, $2, $3, $4, '{}', $5) on conflict do nothing`,
      [user.merchantAccountNumber, key, user.userId, spec.action, now],
    );
    if (claimed.rowCount !== 1) return undefined;
    const { outcome, detail } = await spec.run(tx);
    await tx.query('update console_form_submissions set outcome = $3 where merchant_account_number = $1 and form_key = $2', [user.merchantAccountNumber, key, JSON.stringify(outcome)]);
    await writeAudit(tx, now, originFromRequest(request), [{ merchantAccountNumber: user.merchantAccountNumber, userId: user.userId, action: spec.action, detail }]);
    return outcome;
  });
  if (done) return { kind: 'done', outcome: done };
  const { rows } = await deps.db.query<{ user_id: string; action: string; outcome: ActionOutcome }>(
    'select user_id, action, outcome from console_form_submissions where merchant_account_number = $1 and form_key = $2',
    [user.merchantAccountNumber, key],
  );
  const first = rows[0];
  // The key of another user's or another form's submission: not this form's to replay.
  if (!first || first.user_id !== user.userId || first.action !== spec.action) throw new ConsoleRefusal(409, ct(context.lang, 'action.staleForm'));
  return { kind: 'replayed', outcome: first.outcome };
}

/** Submissions older than this are forgotten (console_cleanup): nobody resubmits a form a day later. */
export const FORM_KEY_RETENTION_HOURS = 24;

export async function deleteOldSubmissions(q: pg.PoolClient | Deps['db'], now: Date): Promise<number> {
  const { rowCount } = await q.query(
    // By key, not ctid: Citus plans the limited subquery first and refuses a ctid from it.
    `delete from console_form_submissions f
      using (select merchant_account_number, form_key from console_form_submissions where created_at < $1 limit 10000) d
      where f.merchant_account_number = d.merchant_account_number and f.form_key = d.form_key`,
    [new Date(now.getTime() - FORM_KEY_RETENTION_HOURS * 3_600_000)],
  );
  return rowCount ?? 0;
}

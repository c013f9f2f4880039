// The e-mail outbox: one row per message, written in the transaction that decided to send it.
// Every status change is a guarded UPDATE (`… and status = 'pending'`), so a message that is
// already sent, held or failed is never changed again.
import type { Queryable } from '../../db/pool.ts';

export type EmailStatus = 'pending' | 'sent' | 'held' | 'failed';
export const EMAIL_STATUSES: EmailStatus[] = ['pending', 'sent', 'held', 'failed'];

export interface EmailRow {
  email_id: number;
  merchant_account_number: number | null;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  status: EmailStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export interface NewEmail {
  merchantAccountNumber: number | null;
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

export async function insertEmail(q: Queryable, e: NewEmail): Promise<number> {
  const { rows } = await q.query<{ email_id: number }>(
    `insert into email_outbox (merchant_account_number, recipient, subject, body_text, body_html) values ($1, $2, $3, $4, $5) returning email_id`,
    [e.merchantAccountNumber, e.recipient, e.subject, e.text, e.html],
  );
  return rows[0].email_id;
}

export async function findEmail(q: Queryable, emailId: number): Promise<EmailRow | undefined> {
  const { rows } = await q.query<EmailRow>('select * from email_outbox where email_id = $1', [emailId]);
  return rows[0];
}

/** pending → held (no SMTP configured). False when the message was no longer pending. */
export async function markHeld(q: Queryable, emailId: number): Promise<boolean> {
  const { rowCount } = await q.query(`update email_outbox set status = 'held' where email_id = $1 and status = 'pending'`, [emailId]);
  return rowCount === 1;
}

/** pending → sent, counting the attempt that succeeded. */
/**
 * One-time links (set-password tokens) live in a message only until it is out of our hands: a
 * sent or failed message keeps its text, with every `token=…` blanked, so the outbox is never a
 * store of usable links. A held one keeps its link: reading it is how the sandbox delivers it.
 */
const BLANK_TOKENS = (column: string) => `regexp_replace(${column}, 'token=[A-Za-z0-9_-]+', 'token=[removed]', 'g')`;

export async function markSent(q: Queryable, emailId: number): Promise<boolean> {
  const { rowCount } = await q.query(
    `update email_outbox set status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = null,
            body_text = ${BLANK_TOKENS('body_text')}, body_html = ${BLANK_TOKENS('body_html')}
      where email_id = $1 and status = 'pending'`,
    [emailId],
  );
  return rowCount === 1;
}

/** A failed attempt: counted, its error kept (at most 500 characters); on the last one, pending → failed. */
export async function recordFailure(q: Queryable, emailId: number, error: string, final: boolean): Promise<number | undefined> {
  const { rows } = await q.query<{ attempts: number }>(
    `update email_outbox set attempts = attempts + 1, last_error = left($2, 500), status = case when $3 then 'failed' else status end,
            body_text = case when $3 then ${BLANK_TOKENS('body_text')} else body_text end,
            body_html = case when $3 then ${BLANK_TOKENS('body_html')} else body_html end
      where email_id = $1 and status = 'pending' returning attempts`,
    [emailId, error, final],
  );
  return rows[0]?.attempts;
}

export interface EmailFilter {
  status?: EmailStatus;
  recipient?: string;
  offset: number;
  limit: number;
}

/** The operator's listing: newest first (created_at, then id, so equal times keep one order). */
export async function listEmails(q: Queryable, f: EmailFilter): Promise<EmailRow[]> {
  // Only the filters given, so each shape uses its index (email_outbox_status_idx, _recipient_idx).
  const where: string[] = [];
  const values: unknown[] = [];
  if (f.status) {
    values.push(f.status);
    where.push(`status = $${values.length}`);
  }
  if (f.recipient) {
    values.push(f.recipient);
    where.push(`lower(recipient) = lower($${values.length})`);
  }
  values.push(f.limit, f.offset);
  const { rows } = await q.query<EmailRow>(
    `select * from email_outbox ${where.length ? `where ${where.join(' and ')}` : ''}
      order by created_at desc, email_id desc limit $${values.length - 1} offset $${values.length}`,
    values,
  );
  return rows;
}

// The e-mail outbox: one row per message, written in the transaction that decided to send it.
// Every status change is a guarded UPDATE (`… and status = 'pending'`), so a message that is
// already sent, held or failed is never changed again.
//
// Every message is a merchant's (email_outbox, keyed (merchant_account_number, email_id) and
// distributed with the merchant's other rows). Rows that had no merchant before migration 0033
// were moved, under their ids, to operator_email_outbox (local to the coordinator): nothing writes
// there, but the operator's listing and the sender still read them, as an EmailKey without a merchant.
import type { Queryable } from '../../db/pool.ts';

export type EmailStatus = 'pending' | 'sent' | 'held' | 'failed';
export const EMAIL_STATUSES: EmailStatus[] = ['pending', 'sent', 'held', 'failed'];

export interface EmailRow {
  email_id: number;
  /** null: a row of operator_email_outbox (written before migration 0033 without a merchant). */
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
  merchantAccountNumber: number;
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

/** A message: a merchant's (email_outbox), or with merchantAccountNumber null one of operator_email_outbox. */
export interface EmailKey {
  merchantAccountNumber: number | null;
  emailId: number;
}

/** The table and the WHERE that name `key`, its values numbered from $`first`. */
function keyed(key: EmailKey, first: number): { table: string; where: string; values: unknown[] } {
  if (key.merchantAccountNumber === null) return { table: 'operator_email_outbox', where: `email_id = $${first}`, values: [key.emailId] };
  return { table: 'email_outbox', where: `merchant_account_number = $${first} and email_id = $${first + 1}`, values: [key.merchantAccountNumber, key.emailId] };
}

export async function findEmail(q: Queryable, key: EmailKey): Promise<EmailRow | undefined> {
  const k = keyed(key, 1);
  const { rows } = await q.query<EmailRow>(
    key.merchantAccountNumber === null ? `select *, null::integer as merchant_account_number from ${k.table} where ${k.where}` : `select * from ${k.table} where ${k.where}`,
    k.values,
  );
  return rows[0];
}

/**
 * Where message `emailId` is, for a send_email job queued before its payload named the merchant.
 * Transitional: by id alone (email_outbox_email_id_idx, migration 0033), then operator_email_outbox.
 */
export async function locateEmail(q: Queryable, emailId: number): Promise<EmailKey | undefined> {
  const merchant = await q.query<{ merchant_account_number: number }>('select merchant_account_number from email_outbox where email_id = $1', [emailId]);
  if (merchant.rows[0]) return { merchantAccountNumber: merchant.rows[0].merchant_account_number, emailId };
  const operator = await q.query('select 1 from operator_email_outbox where email_id = $1', [emailId]);
  return operator.rowCount === 1 ? { merchantAccountNumber: null, emailId } : undefined;
}

/** pending → held (no SMTP configured). False when the message was no longer pending. */
export async function markHeld(q: Queryable, key: EmailKey): Promise<boolean> {
  const k = keyed(key, 1);
  const { rowCount } = await q.query(`update ${k.table} set status = 'held' where ${k.where} and status = 'pending'`, k.values);
  return rowCount === 1;
}

/** pending → sent, counting the attempt that succeeded. */
/**
 * One-time links (set-password tokens) live in a message only until it is out of our hands: a
 * sent or failed message keeps its text, with every `token=…` blanked, so the outbox is never a
 * store of usable links. A held one keeps its link: reading it is how the sandbox delivers it.
 */
const BLANK_TOKENS = (column: string) => `regexp_replace(${column}, 'token=[A-Za-z0-9_-]+', 'token=[removed]', 'g')`;

export async function markSent(q: Queryable, key: EmailKey): Promise<boolean> {
  const k = keyed(key, 1);
  const { rowCount } = await q.query(
    `update ${k.table} set status = 'sent', sent_at = now(), attempts = attempts + 1, last_error = null,
            body_text = ${BLANK_TOKENS('body_text')}, body_html = ${BLANK_TOKENS('body_html')}
      where ${k.where} and status = 'pending'`,
    k.values,
  );
  return rowCount === 1;
}

/** A failed attempt: counted, its error kept (at most 500 characters); on the last one, pending → failed. */
export async function recordFailure(q: Queryable, key: EmailKey, error: string, final: boolean): Promise<number | undefined> {
  const k = keyed(key, 3);
  const { rows } = await q.query<{ attempts: number }>(
    `update ${k.table} set attempts = attempts + 1, last_error = left($1, 500), status = case when $2 then 'failed' else status end,
            body_text = case when $2 then ${BLANK_TOKENS('body_text')} else body_text end,
            body_html = case when $2 then ${BLANK_TOKENS('body_html')} else body_html end
      where ${k.where} and status = 'pending' returning attempts`,
    [error, final, ...k.values],
  );
  return rows[0]?.attempts;
}

export interface EmailFilter {
  status?: EmailStatus;
  recipient?: string;
  offset: number;
  limit: number;
}

const EMAIL_COLUMNS = 'recipient, subject, body_text, body_html, status, attempts, last_error, created_at, sent_at';

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
  const filter = where.length ? `where ${where.join(' and ')}` : '';
  // Merchants' messages and the operator's (rows without a merchant from before migration 0033),
  // one order: each branch is read in its index order and merged.
  const { rows } = await q.query<EmailRow>(
    `select * from (
       select email_id, merchant_account_number, ${EMAIL_COLUMNS} from email_outbox ${filter}
       union all
       select email_id, null::integer, ${EMAIL_COLUMNS} from operator_email_outbox ${filter}
     ) e
      order by created_at desc, email_id desc limit $${values.length - 1} offset $${values.length}`,
    values,
  );
  return rows;
}


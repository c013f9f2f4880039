// E-mail from a durable outbox (product.md §13): a message is written to email_outbox and its
// `send_email` job enqueued in the transaction that decided to send it, so it exists exactly when
// that decision committed. The worker delivers it over SMTP with retries.
//
// Delivery is at-least-once: the row is marked sent in its own statement after the server
// accepted the message, so a process dying between the two (or the update failing) sends it
// again on the job's retry. Every copy carries the same Message-ID, by which mail clients drop
// duplicates.
//
// Without SMTP_URL, messages are not sent: they become 'held' and stay readable by the operator
// (GET /admin/v1/emails, `npm run cli -- emails list`) and by the merchant's sandbox outbox page,
// which is how the embedded sandbox shows what it would have sent.
//
// Every message is a merchant's, and its job names it by (merchant, id). Rows from before
// migration 0033 that had no merchant live in operator_email_outbox; their jobs, queued then,
// still deliver them (repository.ts).
import type pg from 'pg';
import type { JobHelpers, Task } from 'graphile-worker';
import { enqueue } from '../../jobs/queue.ts';
import type { Deps } from '../../http/types.ts';
import { findEmail, insertEmail, locateEmail, markHeld, markSent, recordFailure, type EmailKey, type EmailRow } from './repository.ts';
import { describeError, transportFor } from './transport.ts';

export const SEND_EMAIL_TASK = 'send_email';
/**
 * Attempts per message. graphile-worker waits exp(min(attempt, 10)) seconds between them (3 s,
 * 7 s, 20 s, 55 s, 2.5 min, 7 min, 18 min): about half an hour before a message is 'failed'.
 */
export const EMAIL_MAX_ATTEMPTS = 8;

export interface QueuedEmail {
  /** The merchant the message is about (every message has one; docs/scaling.md group E). */
  merchantAccountNumber: number;
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

/** Writes the message and its delivery job in `tx`, the caller's transaction; returns its id. */
export async function queueEmail(tx: pg.PoolClient, email: QueuedEmail): Promise<number> {
  const emailId = await insertEmail(tx, email);
  // The job names the message by its key, merchant first: the worker reads it on that merchant's shard.
  await enqueue(tx, SEND_EMAIL_TASK, { merchantAccountNumber: email.merchantAccountNumber, emailId }, { maxAttempts: EMAIL_MAX_ATTEMPTS });
  return emailId;
}

export type DeliveryOutcome = 'sent' | 'held' | 'skipped' | 'failed';

/** `<outbox-42.1767225600000@shop.mw>`: the same on every attempt, unique per message. */
function messageId(row: EmailRow, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)/.exec(from)?.[1] ?? 'onekhusa.local';
  return `<outbox-${row.email_id}.${row.created_at.getTime()}@${domain}>`;
}

/**
 * One delivery attempt of message `key`. Returns how it ended; throws (so that the job is
 * retried) when the attempt failed and attempts remain. The last attempt — the job's last, or
 * the row's EMAIL_MAX_ATTEMPTS-th — marks the message 'failed' instead of throwing.
 */
export async function deliverEmail(deps: Deps, key: EmailKey, job?: Pick<JobHelpers['job'], 'attempts' | 'max_attempts'>): Promise<DeliveryOutcome> {
  const { emailId, merchantAccountNumber } = key;
  const row = await findEmail(deps.db, key);
  if (!row || row.status !== 'pending') return 'skipped';
  const smtpUrl = deps.config.smtpUrl;
  if (!smtpUrl) {
    await markHeld(deps.db, key);
    deps.log.info({ merchantAccountNumber, emailId }, 'e-mail held: no SMTP_URL configured');
    return 'held';
  }
  try {
    await transportFor(smtpUrl).sendMail({
      from: deps.config.smtpFrom,
      to: row.recipient,
      subject: row.subject,
      text: row.body_text,
      html: row.body_html,
      messageId: messageId(row, deps.config.smtpFrom),
    });
  } catch (err) {
    const error = describeError(err, smtpUrl);
    const final = (job !== undefined && job.attempts >= job.max_attempts) || row.attempts + 1 >= EMAIL_MAX_ATTEMPTS;
    const attempts = await recordFailure(deps.db, key, error, final);
    if (final) {
      deps.log.error({ merchantAccountNumber, emailId, attempts, error }, 'e-mail failed; no attempts left');
      return 'failed';
    }
    deps.log.warn({ merchantAccountNumber, emailId, attempts, error }, 'e-mail attempt failed; will retry');
    throw new Error(`e-mail ${emailId} not sent (attempt ${attempts ?? '?'} of ${EMAIL_MAX_ATTEMPTS}): ${error}`);
  }
  // Accepted by the server. Until this update commits, a crash means the message goes again.
  await markSent(deps.db, key);
  deps.log.info({ merchantAccountNumber, emailId }, 'e-mail sent');
  return 'sent';
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;

/**
 * The `send_email` task: payload `{merchantAccountNumber, emailId}`. A job queued before the
 * payload named the merchant (migration 0033) has `{emailId}` alone: its message is looked up by
 * id (locateEmail), in email_outbox, then in operator_email_outbox.
 */
export function sendEmailTask(deps: Deps): Task {
  return async (payload, helpers) => {
    const { emailId, merchantAccountNumber } = (payload ?? {}) as { emailId?: unknown; merchantAccountNumber?: unknown };
    if (!isId(emailId) || (merchantAccountNumber !== undefined && !isId(merchantAccountNumber))) {
      deps.log.error({ payload }, 'send_email job without a valid emailId and merchantAccountNumber; dropped');
      return;
    }
    const key = isId(merchantAccountNumber) ? { merchantAccountNumber, emailId } : await locateEmail(deps.db, emailId);
    if (!key) return;
    await deliverEmail(deps, key, helpers?.job);
  };
}

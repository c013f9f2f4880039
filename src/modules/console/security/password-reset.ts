// "Forgot password": a one-time link by e-mail (through the outbox), and the page it opens, which
// sets a new password under the same policy as the set-password page (src/modules/users), ends
// every session of the user and forgets the account's failed sign-ins.
//
// The form always gives the same answer. For each active user the address names (at most
// MAX_USERS_PER_EMAIL, one link per merchant: the link names it), a link is made unless one was
// sent to that user in the last RESEND_AFTER_MINUTES (so the form cannot flood a mailbox). The
// link carries 32 random bytes; the database keeps their SHA-256 (migrations/0015).
import type pg from 'pg';
import { withTransaction } from '../../../db/pool.ts';
import type { Deps } from '../../../http/types.ts';
import { queueEmail } from '../../email/service.ts';
import { activeUsersByEmail } from '../../users/repository.ts';
import { changePassword } from '../../users/service.ts';
import { writeAudit, type Origin } from '../kit/audit.ts';
import { newSecret, sha256 } from '../kit/cookies.ts';
import { resetEmail } from './emails.tsx';
import { MAX_USERS_PER_EMAIL } from './sign-in.ts';
import { forgetAccount } from '../kit/throttle.ts';

/** How long a reset link works. */
export const RESET_LINK_MINUTES = 60;
/** A user is sent at most one link in this time, however often the form is sent. */
export const RESEND_AFTER_MINUTES = 5;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const EMAIL_MAX_LENGTH = 254;
const MINUTE_MS = 60_000;

export interface ResetRequest {
  emailAddress: string;
  origin: Origin;
  baseUrl: string;
}

/** Sends the links, if the address names users; the caller answers the same whatever happened. */
export async function requestReset(deps: Deps, r: ResetRequest): Promise<void> {
  const email = r.emailAddress.trim();
  if (email === '' || email.length > EMAIL_MAX_LENGTH) return;
  const users = await activeUsersByEmail(deps.db, email, MAX_USERS_PER_EMAIL);
  const now = deps.clock.now();
  for (const u of users) {
    await withTransaction(deps.db, async (tx) => {
      // The user row is locked (as every writer of a user does first), so two requests at once send one link.
      await tx.query('select 1 from merchant_users where merchant_account_number = $1 and user_id = $2 for update', [u.merchant_account_number, u.user_id]);
      if (await recentlySent(tx, u.merchant_account_number, u.user_id, now)) return;
      const token = newSecret();
      const expiresAt = new Date(now.getTime() + RESET_LINK_MINUTES * MINUTE_MS);
      await tx.query(
        'insert into console_password_resets (merchant_account_number, token_hash, user_id, created_at, expires_at) values ($1, $2, $3, $4, $5)',
        [u.merchant_account_number, sha256(token), u.user_id, now, expiresAt],
      );
      const content = resetEmail({ baseUrl: r.baseUrl, merchantAccountNumber: u.merchant_account_number, merchantName: u.account_name, firstName: u.first_name, emailAddress: u.email_address, token, expiresAt });
      await queueEmail(tx, { merchantAccountNumber: u.merchant_account_number, recipient: u.email_address, ...content });
      await writeAudit(tx, now, r.origin, [{ merchantAccountNumber: u.merchant_account_number, userId: u.user_id, emailTried: email, action: 'password_reset_requested' }]);
    });
  }
}

async function recentlySent(tx: pg.PoolClient, merchantAccountNumber: number, userId: string, now: Date): Promise<boolean> {
  const { rowCount } = await tx.query(
    'select 1 from console_password_resets where merchant_account_number = $1 and user_id = $2 and used_at is null and created_at > $3 limit 1',
    [merchantAccountNumber, userId, new Date(now.getTime() - RESEND_AFTER_MINUTES * MINUTE_MS)],
  );
  return rowCount === 1;
}

export interface OpenReset {
  merchantAccountNumber: number;
  userId: string;
  emailAddress: string;
  merchantName: string;
  expiresAt: Date;
}

/** The reset behind a link, while it works: unused, unexpired, for an active user. */
export async function openReset(deps: Deps, merchantAccountNumber: number, token: string): Promise<OpenReset | undefined> {
  if (!TOKEN.test(token) || !Number.isSafeInteger(merchantAccountNumber)) return undefined;
  const { rows } = await deps.db.query<{ user_id: string; email_address: string; account_name: string; expires_at: Date }>(
    `select p.user_id, u.email_address, m.account_name, p.expires_at
       from console_password_resets p
       join merchant_users u on u.merchant_account_number = p.merchant_account_number and u.user_id = p.user_id
       join merchants m on m.merchant_account_number = p.merchant_account_number
      where p.merchant_account_number = $1 and p.token_hash = $2 and p.used_at is null and p.expires_at > $3 and u.status_code = 'A'`,
    [merchantAccountNumber, sha256(token), deps.clock.now()],
  );
  const row = rows[0];
  return row && { merchantAccountNumber, userId: row.user_id, emailAddress: row.email_address, merchantName: row.account_name, expiresAt: row.expires_at };
}

/** Thrown inside the password change's transaction when the link was used meanwhile: rolls it back. */
class LinkUsed extends Error {}

/**
 * Sets the new password (it must have passed passwordProblem) and uses the link up, with every
 * other open link of the user, in the transaction that ends the user's sessions. False when the
 * link no longer works (used meanwhile, expired, user closed).
 */
export async function resetPassword(deps: Deps, merchantAccountNumber: number, token: string, password: string, origin: Origin): Promise<boolean> {
  const reset = await openReset(deps, merchantAccountNumber, token);
  if (!reset) return false;
  const now = deps.clock.now();
  try {
    return await changePassword(deps, merchantAccountNumber, reset.userId, password, async (tx) => {
      const { rowCount } = await tx.query(
        'update console_password_resets set used_at = $3 where merchant_account_number = $1 and token_hash = $2 and used_at is null and expires_at > $3',
        [merchantAccountNumber, sha256(token), now],
      );
      if (rowCount !== 1) throw new LinkUsed();
      await tx.query('update console_password_resets set used_at = $3 where merchant_account_number = $1 and user_id = $2 and used_at is null', [merchantAccountNumber, reset.userId, now]);
      await forgetAccount(tx, reset.emailAddress);
      await writeAudit(tx, now, origin, [{ merchantAccountNumber, userId: reset.userId, action: 'password_reset' }]);
    });
  } catch (err) {
    if (err instanceof LinkUsed) return false;
    throw err;
  }
}

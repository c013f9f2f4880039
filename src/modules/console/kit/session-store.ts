// Console sessions in PostgreSQL (migrations/0015): plain SQL, every statement naming the merchant
// account number the cookie carries. Imports nothing from the other modules: the users service
// (src/modules/users/service.ts) calls endUserSessions when it closes a user or sets a password,
// in its own transaction, so a closed user's browser is signed out by the same commit.
import type { Queryable } from '../../../db/pool.ts';

export interface NewSession {
  merchantAccountNumber: number;
  sessionIdHash: Buffer;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  ip: string;
  userAgent: string;
}

export async function insertSession(q: Queryable, s: NewSession): Promise<void> {
  await q.query(
    `insert into console_sessions (merchant_account_number, session_id_hash, user_id, created_at, last_seen_at, expires_at, ip, user_agent)
     values ($1, $2, $3, $4, $4, $5, $6, $7)`,
    [s.merchantAccountNumber, s.sessionIdHash, s.userId, s.createdAt, s.expiresAt, s.ip, s.userAgent],
  );
}

/** A session with who it belongs to, read fresh on every request (a new role applies at once). */
export interface SessionRow {
  merchant_account_number: number;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  first_name: string;
  last_name: string;
  email_address: string;
  role_id: number;
  role_code: string;
  role_name: string;
  user_status_code: string;
  account_name: string;
  /** The user has a confirmed authenticator (CONSOLE_REQUIRE_2FA sends those without one to enrol). */
  two_factor_enrolled: boolean;
}

export async function findSession(q: Queryable, merchantAccountNumber: number, sessionIdHash: Buffer): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `select s.merchant_account_number, s.user_id, s.created_at, s.last_seen_at, s.expires_at,
            u.first_name, u.last_name, u.email_address, u.role_id, r.role_code, r.role_name, u.status_code as user_status_code, m.account_name,
            exists (select 1 from console_two_factor t
                     where t.merchant_account_number = s.merchant_account_number and t.user_id = s.user_id and t.confirmed_at is not null) as two_factor_enrolled
       from console_sessions s
       join merchant_users u on u.merchant_account_number = s.merchant_account_number and u.user_id = s.user_id
       join roles r on r.role_id = u.role_id
       join merchants m on m.merchant_account_number = s.merchant_account_number
      where s.merchant_account_number = $1 and s.session_id_hash = $2`,
    [merchantAccountNumber, sessionIdHash],
  );
  return rows[0];
}

/** Records activity; the caller limits how often (one write a minute per session at most). */
export async function touchSession(q: Queryable, merchantAccountNumber: number, sessionIdHash: Buffer, at: Date): Promise<void> {
  await q.query('update console_sessions set last_seen_at = $3 where merchant_account_number = $1 and session_id_hash = $2 and last_seen_at < $3', [
    merchantAccountNumber,
    sessionIdHash,
    at,
  ]);
}

/** Ends one session; returns the user it belonged to, if it existed. */
export async function deleteSession(q: Queryable, merchantAccountNumber: number, sessionIdHash: Buffer): Promise<string | undefined> {
  const { rows } = await q.query<{ user_id: string }>('delete from console_sessions where merchant_account_number = $1 and session_id_hash = $2 returning user_id', [
    merchantAccountNumber,
    sessionIdHash,
  ]);
  return rows[0]?.user_id;
}

/** Ends every session of a user (closed, or a new password); returns how many there were. */
export async function endUserSessions(q: Queryable, merchantAccountNumber: number, userId: string): Promise<number> {
  const { rowCount } = await q.query('delete from console_sessions where merchant_account_number = $1 and user_id = $2', [merchantAccountNumber, userId]);
  return rowCount ?? 0;
}

/** Ends every session of a user but one (the browser that enrolled an authenticator keeps its own). */
export async function endOtherSessions(q: Queryable, merchantAccountNumber: number, userId: string, keepSessionIdHash: Buffer): Promise<number> {
  const { rowCount } = await q.query('delete from console_sessions where merchant_account_number = $1 and user_id = $2 and session_id_hash <> $3', [
    merchantAccountNumber,
    userId,
    keepSessionIdHash,
  ]);
  return rowCount ?? 0;
}

/** Rows deleted per statement by the clean-up: bounded, so it never holds many locks at once. */
const CLEANUP_BATCH_ROWS = 1000;

/**
 * Deletes sessions past their absolute end or idle since `idleBefore`, in bounded batches; returns
 * how many. Expired sessions are refused when used whether or not this has run: it only keeps the
 * table small.
 */
export async function deleteEndedSessions(q: Queryable, now: Date, idleBefore: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await q.query(
      // By key, not ctid: Citus plans the limited subquery first and refuses a ctid from it.
      `delete from console_sessions s
        using (select merchant_account_number, session_id_hash from console_sessions where expires_at <= $1 or last_seen_at <= $2 limit $3) d
        where s.merchant_account_number = d.merchant_account_number and s.session_id_hash = d.session_id_hash`,
      [now, idleBefore, CLEANUP_BATCH_ROWS],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < CLEANUP_BATCH_ROWS) return total;
  }
}

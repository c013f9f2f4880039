// Merchant users and their set-password invitations: plain SQL. Every query names the merchant
// account number (the token's), so another merchant's user is simply not found. Writers lock the
// user row first and its invitations after, in that order everywhere, so two of them never
// deadlock.
import type { FindOptions, Queryable } from '../../db/pool.ts';

/** A merchant user's status (migrations/0005): active, closed. */
export type UserStatus = 'A' | 'C';

/** The user statuses by name: code compares a user's status_code with these, never with the letter. */
export const USER = { active: 'A', closed: 'C' } as const satisfies Record<string, UserStatus>;

export interface UserRow {
  user_id: string;
  organisation_id: string;
  merchant_account_number: number;
  first_name: string;
  last_name: string;
  email_address: string;
  phone_number: string;
  role_id: number;
  role_code: string;
  role_name: string;
  status_code: UserStatus;
  is_password_set: boolean;
  captured_by: string;
  date_created: Date;
  modified_by: string | null;
  date_modified: Date | null;
}

// Never the hash itself: only whether there is one.
const USER_COLUMNS = `u.user_id, u.organisation_id, u.merchant_account_number, u.first_name, u.last_name, u.email_address, u.phone_number,
  u.role_id, r.role_code, r.role_name, u.status_code, u.password_hash is not null as is_password_set, u.captured_by, u.date_created, u.modified_by, u.date_modified`;
const FROM_USERS = 'merchant_users u join roles r on r.role_id = u.role_id';

export interface RoleRow {
  role_id: number;
  /** The gateway's name for the role ("MERC_ADMIN"), unique. */
  role_code: string;
  role_name: string;
  organisation_type_code: string;
}

export async function listRoles(q: Queryable): Promise<RoleRow[]> {
  const { rows } = await q.query<RoleRow>('select role_id, role_code, role_name, organisation_type_code from roles order by role_id');
  return rows;
}

export interface ActingUserRow {
  user_id: string;
  email_address: string;
  role_code: string;
  role_name: string;
}

/**
 * The merchant's active users, with their roles, locked FOR SHARE until the caller's transaction
 * ends: a user closed or given another role meanwhile waits for the action that relied on them.
 */
export async function activeUsers(q: Queryable, merchantAccountNumber: number): Promise<ActingUserRow[]> {
  const { rows } = await q.query<ActingUserRow>(
    `select u.user_id, u.email_address, r.role_code, r.role_name from ${FROM_USERS} where u.merchant_account_number = $1 and u.status_code = 'A' for share of u`,
    [merchantAccountNumber],
  );
  return rows;
}

/** Whether the merchant takes its payout decisions in the console only (migrations/0019). */
export async function decisionsInConsole(q: Queryable, merchantAccountNumber: number): Promise<boolean> {
  const { rows } = await q.query<{ on: boolean }>('select payout_decisions_in_console as on from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  return rows[0]?.on ?? false;
}

/** Turns console-only payout decisions on or off; answers whether it changed. */
export async function setDecisionsInConsole(q: Queryable, merchantAccountNumber: number, on: boolean): Promise<boolean> {
  const { rowCount } = await q.query('update merchants set payout_decisions_in_console = $2 where merchant_account_number = $1 and payout_decisions_in_console <> $2', [merchantAccountNumber, on]);
  return rowCount === 1;
}

/** Every user's e-mail address (any status): to refuse a second user with the same mailbox. */
export async function userEmails(q: Queryable, merchantAccountNumber: number): Promise<Array<{ user_id: string; email_address: string }>> {
  const { rows } = await q.query<{ user_id: string; email_address: string }>('select user_id, email_address from merchant_users where merchant_account_number = $1', [merchantAccountNumber]);
  return rows;
}

export async function merchantName(q: Queryable, merchantAccountNumber: number): Promise<string> {
  const { rows } = await q.query<{ account_name: string }>('select account_name from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  return rows[0]?.account_name ?? String(merchantAccountNumber);
}

export async function findUser(q: Queryable, merchantAccountNumber: number, userId: string, options: FindOptions = {}): Promise<UserRow | undefined> {
  const { rows } = await q.query<UserRow>(
    `select ${USER_COLUMNS} from ${FROM_USERS} where u.merchant_account_number = $1 and u.user_id = $2${options.lock ? ' for update of u' : ''}`,
    [merchantAccountNumber, userId],
  );
  return rows[0];
}

export interface NewUser {
  organisationId: string;
  merchantAccountNumber: number;
  firstName: string;
  lastName: string;
  emailAddress: string;
  phoneNumber: string;
  roleId: number;
  capturedBy: string;
}

export async function insertUser(q: Queryable, u: NewUser): Promise<string> {
  const { rows } = await q.query<{ user_id: string }>(
    `insert into merchant_users (organisation_id, merchant_account_number, first_name, last_name, email_address, phone_number, role_id, captured_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning user_id`,
    [u.organisationId, u.merchantAccountNumber, u.firstName, u.lastName, u.emailAddress, u.phoneNumber, u.roleId, u.capturedBy],
  );
  return rows[0].user_id;
}

export interface UserChanges {
  firstName: string;
  lastName: string;
  emailAddress: string;
  phoneNumber: string;
  roleId: number;
  modifiedBy: string;
}

export async function updateUserRow(q: Queryable, merchantAccountNumber: number, userId: string, c: UserChanges): Promise<void> {
  await q.query(
    `update merchant_users set first_name = $3, last_name = $4, email_address = $5, phone_number = $6, role_id = $7, modified_by = $8, date_modified = now()
      where merchant_account_number = $1 and user_id = $2`,
    [merchantAccountNumber, userId, c.firstName, c.lastName, c.emailAddress, c.phoneNumber, c.roleId, c.modifiedBy],
  );
}

export async function setUserStatus(q: Queryable, merchantAccountNumber: number, userId: string, status: UserStatus, modifiedBy: string): Promise<void> {
  await q.query('update merchant_users set status_code = $3, modified_by = $4, date_modified = now() where merchant_account_number = $1 and user_id = $2', [
    merchantAccountNumber,
    userId,
    status,
    modifiedBy,
  ]);
}

export interface StatusChange {
  status: UserStatus;
  changedBy: string;
  reasonId?: number | null;
  comments?: string | null;
}

/** One row of the status change audit trail (migrations/0008). */
export async function insertStatusChange(q: Queryable, merchantAccountNumber: number, userId: string, c: StatusChange): Promise<void> {
  await q.query(
    `insert into merchant_user_status_changes (merchant_account_number, user_id, status_code, reason_id, comments, changed_by) values ($1, $2, $3, $4, $5, $6)`,
    [merchantAccountNumber, userId, c.status, c.reasonId ?? null, c.comments ?? null, c.changedBy],
  );
}

export interface ClaimsMerchantRow {
  account_name: string;
  status_code: string;
  level_number: number;
}

/** What the claims say about the merchant itself. */
export async function claimsMerchant(q: Queryable, merchantAccountNumber: number): Promise<ClaimsMerchantRow | undefined> {
  const { rows } = await q.query<ClaimsMerchantRow>('select account_name, status_code, level_number from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  return rows[0];
}

export type UserSearchField = 'FirstName' | 'LastName' | 'EmailAddress';

const SEARCH_COLUMNS: Record<UserSearchField, string> = { FirstName: 'u.first_name', LastName: 'u.last_name', EmailAddress: 'u.email_address' };

export interface UserFilter {
  searchBy?: UserSearchField;
  /** Already escaped for LIKE. */
  searchPattern?: string;
  offset: number;
  limit: number;
}

/** Newest first; a search without searchBy looks in the names and the e-mail address. */
export async function listUsers(q: Queryable, merchantAccountNumber: number, f: UserFilter): Promise<UserRow[]> {
  const values: unknown[] = [merchantAccountNumber];
  let search = '';
  if (f.searchPattern !== undefined) {
    values.push(f.searchPattern);
    const columns = f.searchBy ? [SEARCH_COLUMNS[f.searchBy]] : Object.values(SEARCH_COLUMNS);
    search = `and (${columns.map((c) => `${c} ilike $2`).join(' or ')})`;
  }
  values.push(f.limit, f.offset);
  const { rows } = await q.query<UserRow>(
    `select ${USER_COLUMNS} from ${FROM_USERS} where u.merchant_account_number = $1 ${search}
      order by u.date_created desc, u.user_id desc limit $${values.length - 1} offset $${values.length}`,
    values,
  );
  return rows;
}

/**
 * A new invitation and the claim of its token (invitation_claims, migration 0031), in the caller's
 * transaction; its lifetime is counted on the database's clock, like its checks. The set-password
 * link carries the token alone, so its hash is unique across merchants: the claim's primary key
 * holds that (a table shared by every merchant; user_invitations is distributed by merchant). A
 * claim is never released: a used or revoked invitation keeps its token taken.
 */
export async function insertInvitation(tx: Queryable, merchantAccountNumber: number, userId: string, tokenHash: Buffer, hours: number): Promise<Date> {
  const { rows } = await tx.query<{ invitation_id: number; expires_at: Date }>(
    `insert into user_invitations (merchant_account_number, user_id, token_hash, expires_at) values ($1, $2, $3, now() + make_interval(hours => $4))
     returning invitation_id, expires_at`,
    [merchantAccountNumber, userId, tokenHash, hours],
  );
  await tx.query('insert into invitation_claims (token_hash, owner_merchant_account_number, invitation_id) values ($1, $2, $3)', [
    tokenHash,
    merchantAccountNumber,
    rows[0].invitation_id,
  ]);
  return rows[0].expires_at;
}

/** The invitation a token names, from its claim: (merchant, invitation id), the invitation's key. */
async function invitationOf(q: Queryable, tokenHash: Buffer): Promise<{ merchant: number; invitationId: number } | undefined> {
  const { rows } = await q.query<{ owner_merchant_account_number: number; invitation_id: number }>(
    'select owner_merchant_account_number, invitation_id from invitation_claims where token_hash = $1',
    [tokenHash],
  );
  return rows[0] && { merchant: rows[0].owner_merchant_account_number, invitationId: rows[0].invitation_id };
}

/** Revokes the user's open invitations: their links stop working. */
export async function revokeInvitations(q: Queryable, merchantAccountNumber: number, userId: string): Promise<number> {
  const { rowCount } = await q.query(
    'update user_invitations set revoked_at = now() where merchant_account_number = $1 and user_id = $2 and used_at is null and revoked_at is null',
    [merchantAccountNumber, userId],
  );
  return rowCount ?? 0;
}

export interface OpenInvitation {
  merchant_account_number: number;
  user_id: string;
  first_name: string;
  email_address: string;
  account_name: string;
  expires_at: Date;
}

/** The invitation behind a token, if its link still works: open, unexpired, for an active user without a password. */
export async function findOpenInvitation(q: Queryable, tokenHash: Buffer): Promise<OpenInvitation | undefined> {
  const claim = await invitationOf(q, tokenHash);
  if (!claim) return undefined;
  const { rows } = await q.query<OpenInvitation>(
    `select i.merchant_account_number, i.user_id, u.first_name, u.email_address, m.account_name, i.expires_at
       from user_invitations i
       join merchant_users u on u.merchant_account_number = i.merchant_account_number and u.user_id = i.user_id
       join merchants m on m.merchant_account_number = i.merchant_account_number
      where i.merchant_account_number = $1 and i.invitation_id = $2 and i.token_hash = $3
        and i.used_at is null and i.revoked_at is null and i.expires_at > now()
        and u.status_code = 'A' and u.password_hash is null`,
    [claim.merchant, claim.invitationId, tokenHash],
  );
  return rows[0];
}

/**
 * Uses the invitation behind `tokenHash` and sets the user's password, in `tx`. The user row is
 * locked first (the order every writer follows), then the invitation is marked used by one
 * guarded UPDATE, which only one caller can win; undefined when the link no longer works.
 */
export async function consumeInvitation(tx: Queryable, tokenHash: Buffer, passwordHash: string): Promise<string | undefined> {
  const claim = await invitationOf(tx, tokenHash);
  if (!claim) return undefined;
  const { rows: found } = await tx.query<{ merchant_account_number: number; user_id: string }>(
    'select merchant_account_number, user_id from user_invitations where merchant_account_number = $1 and invitation_id = $2',
    [claim.merchant, claim.invitationId],
  );
  if (!found[0]) return undefined;
  const { merchant_account_number: merchant, user_id: userId } = found[0];
  const { rows: users } = await tx.query<{ status_code: UserStatus; has_password: boolean }>(
    'select status_code, password_hash is not null as has_password from merchant_users where merchant_account_number = $1 and user_id = $2 for update',
    [merchant, userId],
  );
  if (!users[0] || users[0].status_code !== USER.active || users[0].has_password) return undefined;
  const { rowCount } = await tx.query(
    `update user_invitations set used_at = now()
      where merchant_account_number = $1 and invitation_id = $2 and used_at is null and revoked_at is null and expires_at > now() returning invitation_id`,
    [merchant, claim.invitationId],
  );
  if (rowCount !== 1) return undefined;
  await tx.query('update merchant_users set password_hash = $3, date_password_set = now() where merchant_account_number = $1 and user_id = $2', [merchant, userId, passwordHash]);
  return userId;
}

/** A new password hash for a user the caller has locked (findUser with lock). */
export async function setPasswordHash(q: Queryable, merchantAccountNumber: number, userId: string, passwordHash: string): Promise<void> {
  await q.query('update merchant_users set password_hash = $3, date_password_set = now() where merchant_account_number = $1 and user_id = $2', [
    merchantAccountNumber,
    userId,
    passwordHash,
  ]);
}

/** An active user with a password, as sign-in and forgot-password find them by the address typed. */
export interface SignInUserRow {
  merchant_account_number: number;
  user_id: string;
  first_name: string;
  email_address: string;
  password_hash: string | null;
  role_code: string;
  role_name: string;
  account_name: string;
}

/**
 * The active users whose address is `emailAddress` (in any case), of every merchant, oldest first,
 * at most `limit`: one person can be a user of several merchants. With their password hash: for
 * the sign-in only, never shown.
 */
export async function activeUsersByEmail(q: Queryable, emailAddress: string, limit: number): Promise<SignInUserRow[]> {
  const { rows } = await q.query<SignInUserRow>(
    `select u.merchant_account_number, u.user_id, u.first_name, u.email_address, u.password_hash, r.role_code, r.role_name, m.account_name
       from merchant_users u join roles r on r.role_id = u.role_id join merchants m on m.merchant_account_number = u.merchant_account_number
      where lower(u.email_address) = lower($1) and u.status_code = 'A'
      order by u.date_created, u.user_id limit $2`,
    [emailAddress, limit],
  );
  return rows;
}

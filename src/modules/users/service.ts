// Merchant users (product.md §13): the people of a merchant's back office, each with a role, and
// the invitation that lets a new user set a password. Adding a user writes the user, a one-time
// invitation (the users tables keep only its SHA-256) and the invitation e-mail (outbox + job) in ONE
// transaction: there is never a user whose invitation was lost, nor an e-mail for a user that
// does not exist. E6 (reinvite) revokes the open invitations and sends a new one, only while the
// user is active and has no password. Every read and write is scoped to the caller's merchant.
import { hash } from '@node-rs/argon2';
import type pg from 'pg';
import { containsPattern } from '../../db/like.ts';
import { withTransaction, type FindOptions, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { canonicalActor } from '../../lib/actor.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { endUserSessions } from '../console/kit/session-store.ts';
import { queueEmail } from '../email/service.ts';
import { hashToken, invitationEmail, newInvitationToken, TOKEN_PATTERN } from './invitation.ts';
import { isCommonPassword } from './password-policy.ts';
import { batchPermissions } from './permissions.ts';
import {
  type NewUser,
  claimsMerchant,
  consumeInvitation,
  findOpenInvitation,
  findUser,
  insertInvitation,
  insertStatusChange,
  insertUser,
  listRoles,
  listUsers,
  merchantName,
  revokeInvitations,
  setPasswordHash,
  setUserStatus,
  updateUserRow,
  USER,
  userEmails,
  type OpenInvitation,
  type RoleRow,
  type StatusChange,
  type UserRow,
  type UserSearchField,
} from './repository.ts';
import { normalisePhone } from './schemas.ts';
import { isViolation } from '../../db/errors.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

export function userView(lang: Lang, u: UserRow) {
  return {
    organisationId: u.organisation_id,
    merchantAccountNumber: u.merchant_account_number,
    userId: u.user_id,
    firstName: u.first_name,
    lastName: u.last_name,
    emailAddress: u.email_address,
    phoneNumber: u.phone_number,
    roleId: u.role_id,
    roleCode: u.role_code,
    roleName: u.role_name,
    statusCode: u.status_code,
    statusName: t(lang, u.status_code === USER.active ? 'status.A' : 'status.C'),
    // The gateway's name: the address is confirmed by setting a password from the e-mailed link.
    isEmailConfirmed: u.is_password_set,
    isPasswordSet: u.is_password_set,
    capturedBy: u.captured_by,
    dateCaptured: u.date_created.toISOString(),
    dateCreated: u.date_created.toISOString(),
    modifiedBy: u.modified_by,
    dateModified: u.date_modified?.toISOString() ?? null,
  };
}

/**
 * The role named by its code as the gateway documents it ("MERC_ADMIN", in any case) or by its
 * number (1, or "1"), or 400 naming the roles that exist.
 */
async function roleOf(q: Queryable, roleId: number | string): Promise<RoleRow> {
  const roles = await listRoles(q);
  const text = String(roleId).trim();
  const role = /^\d+$/.test(text) ? roles.find((r) => r.role_id === Number(text)) : roles.find((r) => r.role_code === text.toUpperCase());
  if (role) return role;
  const list = roles.map((r) => `${r.role_code} or ${r.role_id} (${r.role_name})`).join(', ');
  throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.roleUnknown', params: { roleId: text, roles: list } }] });
}

/**
 * `fn` in the caller's transaction `tx` when there is one (the console runs an action, its form key
 * and its audit entry in one: src/modules/console/kit/actions.tsx), else in a transaction of its own (the
 * API). The same rules either way: only where the transaction comes from differs.
 */
function inTransaction<T>(deps: Deps, tx: pg.PoolClient | undefined, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return tx ? fn(tx) : withTransaction(deps.db, fn);
}

/** A user id is a UUID: anything else names no user (404, as an unknown UUID does). */
const USER_ID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

async function userOf(q: Queryable, merchantAccountNumber: number, userId: string, options: FindOptions = {}): Promise<UserRow> {
  const user = USER_ID.test(userId) ? await findUser(q, merchantAccountNumber, userId, options) : undefined;
  if (!user) throw new AppError('notFound', 'detail.userNotFound', { userId });
  return user;
}

/**
 * 409 when another user of the merchant has the same mailbox in canonical form (src/lib/actor.ts:
 * boss+1@x.com, "boss"@x.com. and BOSS@x.com are boss@x.com): actors are matched to users that
 * way, so two users may not share one. Serialised per merchant by a transaction advisory lock
 * (the unique index below knows only lower case).
 */
async function refuseSameMailbox(tx: pg.PoolClient, merchantAccountNumber: number, emailAddress: string, exceptUserId?: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1, $2)', [MAILBOX_LOCK_CLASS, merchantAccountNumber]);
  const mailbox = canonicalActor(emailAddress);
  const twin = (await userEmails(tx, merchantAccountNumber)).find((u) => u.user_id !== exceptUserId && canonicalActor(u.email_address) === mailbox);
  if (twin) throw new AppError('conflict', 'detail.userEmailExists', { emailAddress });
}
/** The first key of refuseSameMailbox's advisory lock (the second is the merchant account number). */
const MAILBOX_LOCK_CLASS = 13_002;

/** The unique index on (merchant, lower(e-mail)) refused the write: 409, naming the address. */
async function refusingDuplicateEmail<T>(emailAddress: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isViolation(err, '23505', 'merchant_users_email')) throw new AppError('conflict', 'detail.userEmailExists', { emailAddress });
    throw err;
  }
}

/** A new invitation for `user` and its e-mail, in `tx`. The token exists only in the e-mail. */
async function invite(deps: Deps, tx: pg.PoolClient, user: { merchantAccountNumber: number; userId: string; firstName: string; emailAddress: string; roleName: string }, baseUrl: string): Promise<void> {
  const { token, hash: tokenHash } = newInvitationToken();
  const expiresAt = await insertInvitation(tx, user.merchantAccountNumber, user.userId, tokenHash, deps.config.invitationHours);
  const content = invitationEmail({ merchantName: await merchantName(tx, user.merchantAccountNumber), firstName: user.firstName, roleName: user.roleName, baseUrl, token, expiresAt });
  await queueEmail(tx, { merchantAccountNumber: user.merchantAccountNumber, recipient: user.emailAddress, ...content });
}

export type NewMerchantUser = Omit<NewUser, 'roleId'> & { roleId: number | string };

/** Adds the user, invites them; returns the new userId. In `tx` when given (see inTransaction). */
export async function addUser(deps: Deps, input: NewMerchantUser, baseUrl: string, tx?: pg.PoolClient): Promise<string> {
  return refusingDuplicateEmail(input.emailAddress, () =>
    inTransaction(deps, tx, async (tx) => {
      const role = await roleOf(tx, input.roleId);
      await refuseSameMailbox(tx, input.merchantAccountNumber, input.emailAddress);
      const firstName = input.firstName.trim();
      const userId = await insertUser(tx, {
        ...input,
        organisationId: input.organisationId.toUpperCase(),
        firstName,
        lastName: input.lastName.trim(),
        phoneNumber: normalisePhone(input.phoneNumber),
        roleId: role.role_id,
      });
      await invite(deps, tx, { merchantAccountNumber: input.merchantAccountNumber, userId, firstName, emailAddress: input.emailAddress, roleName: role.role_name }, baseUrl);
      return userId;
    }),
  );
}

/**
 * A user who can sign in at once, without an invitation (no e-mail is sent): the sandbox's demo
 * administrator, made on the first start (src/runtime.ts). In `tx`, the caller's transaction; the
 * password must pass passwordProblem. Returns the new userId.
 */
export async function addUserWithPassword(tx: pg.PoolClient, input: NewMerchantUser, password: string): Promise<string> {
  const problem = passwordProblem(password, password);
  if (problem) throw new Error(`the password of ${input.emailAddress} does not pass the policy: ${problem.key}`);
  const role = await roleOf(tx, input.roleId);
  const userId = await insertUser(tx, { ...input, organisationId: input.organisationId.toUpperCase(), phoneNumber: normalisePhone(input.phoneNumber), roleId: role.role_id });
  await setPasswordHash(tx, input.merchantAccountNumber, userId, await hash(password));
  return userId;
}

export interface UserListQuery {
  searchBy?: UserSearchField;
  searchText?: string;
  offset: number;
  limit: number;
}

export async function listMerchantUsers(deps: Deps, merchantAccountNumber: number, q: UserListQuery): Promise<UserRow[]> {
  const text = q.searchText?.trim();
  return listUsers(deps.db, merchantAccountNumber, { searchBy: q.searchBy, searchPattern: text ? containsPattern(text) : undefined, offset: q.offset, limit: q.limit });
}

/** `userId` as sent: the gateway's get example sends a number; whatever is not a user's UUID is 404. */
export const getMerchantUser = (deps: Deps, merchantAccountNumber: number, userId: string | number) => userOf(deps.db, merchantAccountNumber, String(userId));

export interface MerchantUserUpdate {
  merchantAccountNumber: number;
  userId: string;
  firstName: string;
  lastName: string;
  /** Absent: unchanged. A different address revokes the open invitations (they went to the old one). */
  emailAddress?: string;
  phoneNumber: string;
  /** A role code ("MERC_ADMIN") or number. */
  roleId: number | string;
  modifiedBy: string;
}

export async function updateMerchantUser(deps: Deps, input: MerchantUserUpdate, tx?: pg.PoolClient): Promise<void> {
  const emailAddress = input.emailAddress;
  await refusingDuplicateEmail(emailAddress ?? '', () =>
    inTransaction(deps, tx, async (tx) => {
      const user = await userOf(tx, input.merchantAccountNumber, input.userId, { lock: 'for update' });
      const role = await roleOf(tx, input.roleId);
      const newEmail = emailAddress ?? user.email_address;
      if (emailAddress !== undefined) await refuseSameMailbox(tx, input.merchantAccountNumber, emailAddress, input.userId);
      if (newEmail.toLowerCase() !== user.email_address.toLowerCase()) await revokeInvitations(tx, input.merchantAccountNumber, input.userId);
      await updateUserRow(tx, input.merchantAccountNumber, input.userId, {
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
        emailAddress: newEmail,
        phoneNumber: normalisePhone(input.phoneNumber),
        roleId: role.role_id,
        modifiedBy: input.modifiedBy,
      });
    }),
  );
}

/** Who changes a user's status and why (the gateway's changedBy, reasonId, comments). */
export type StatusChangeRequest = Omit<StatusChange, 'status'>;

/** Sets the status when it differs, with its row in the audit trail, in `tx`. */
async function changeStatus(tx: pg.PoolClient, merchantAccountNumber: number, user: UserRow, status: 'A' | 'C', change: StatusChangeRequest): Promise<void> {
  if (user.status_code === status) return;
  await setUserStatus(tx, merchantAccountNumber, user.user_id, status, change.changedBy);
  // Blank comments and reason 0 (a client's unset integer) are none given.
  const comments = change.comments?.trim() ? change.comments : null;
  await insertStatusChange(tx, merchantAccountNumber, user.user_id, { ...change, reasonId: change.reasonId || null, comments, status });
}

export async function activateMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, change: StatusChangeRequest, tx?: pg.PoolClient): Promise<void> {
  await inTransaction(deps, tx, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, { lock: 'for update' });
    await changeStatus(tx, merchantAccountNumber, user, 'A', change);
  });
}

/**
 * Closing also revokes the open invitations (a closed user's link stops working) and ends the
 * user's console sessions, in the same transaction: their browser is signed out by this commit.
 */
export async function closeMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, change: StatusChangeRequest, tx?: pg.PoolClient): Promise<void> {
  await inTransaction(deps, tx, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, { lock: 'for update' });
    await changeStatus(tx, merchantAccountNumber, user, 'C', change);
    await revokeInvitations(tx, merchantAccountNumber, userId);
    await endUserSessions(tx, merchantAccountNumber, userId);
  });
}

export interface Claim {
  claimType: string;
  claimValue: string;
}

/**
 * getMerchantClaims: who the user is for the merchant, as the gateway lists it (claimType /
 * claimValue pairs: the merchant's name, status, level, account number and organisation, the
 * organisation type and the user's role code and name), followed by ours: the user's id, e-mail
 * address and status, and one `Permission` claim per batch action the role allows while the user
 * is active (users/permissions.ts).
 */
export async function merchantClaims(deps: Deps, lang: Lang, merchantAccountNumber: number, userId: string | number): Promise<Claim[]> {
  const user = await userOf(deps.db, merchantAccountNumber, String(userId));
  const merchant = await claimsMerchant(deps.db, merchantAccountNumber);
  if (!merchant) throw new AppError('notFound', 'detail.userNotFound', { userId: String(userId) });
  const roles = await listRoles(deps.db);
  const organisationType = roles.find((r) => r.role_id === user.role_id)?.organisation_type_code ?? 'MER';
  const claims: Array<[string, string]> = [
    ['MerchantAccountName', merchant.account_name],
    ['MerchantStatusCode', merchant.status_code],
    ['LevelNumber', String(merchant.level_number)],
    ['LevelName', t(lang, `level.${merchant.level_number}` as MessageKey)],
    ['MerchantAccountNumber', String(merchantAccountNumber)],
    ['OrganisationId', user.organisation_id],
    ['OrganisationTypeCode', organisationType],
    ['Role', user.role_code],
    ['UserRole', user.role_name],
    ['UserId', user.user_id],
    ['EmailAddress', user.email_address],
    ['UserStatusCode', user.status_code],
    ...(user.status_code === USER.active ? batchPermissions(user.role_code).map((p): [string, string] => ['Permission', p]) : []),
  ];
  return claims.map(([claimType, claimValue]) => ({ claimType, claimValue }));
}

/** E6: a new invitation (the previous links stop working); returns the address it goes to. */
export async function reinviteMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, baseUrl: string, tx?: pg.PoolClient): Promise<string> {
  return inTransaction(deps, tx, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, { lock: 'for update' });
    if (user.status_code !== USER.active) throw new AppError('invalidState', 'detail.userClosed', { userId });
    if (user.is_password_set) throw new AppError('passwordAlreadySet', 'detail.passwordAlreadySet', { userId });
    await revokeInvitations(tx, merchantAccountNumber, userId);
    await invite(deps, tx, { merchantAccountNumber, userId, firstName: user.first_name, emailAddress: user.email_address, roleName: user.role_name }, baseUrl);
    return user.email_address;
  });
}

// ---------------------------------------------------------------------------------------------
// The set-password page

/** The invitation behind a link's token, while the link works. */
export async function openInvitation(deps: Deps, token: string): Promise<OpenInvitation | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  return findOpenInvitation(deps.db, hashToken(token));
}

/**
 * What is wrong with a new password, if anything: its length (characters, i.e. code points, not
 * bytes), being a common password (password-policy.ts), or a confirmation that differs. The same
 * rules for the set-password page and the console's reset page.
 */
export function passwordProblem(password: string, confirmation: string): { key: MessageKey; params: Record<string, number> } | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return { key: 'setPassword.tooShort', params: { min: PASSWORD_MIN_LENGTH } };
  if (length > PASSWORD_MAX_LENGTH) return { key: 'setPassword.tooLong', params: { max: PASSWORD_MAX_LENGTH } };
  if (isCommonPassword(password)) return { key: 'setPassword.common', params: {} };
  if (password !== confirmation) return { key: 'setPassword.mismatch', params: {} };
  return undefined;
}

/**
 * Sets the password of the invitation's user and uses the invitation up, once: a second use, a
 * revoked or expired link, or a closed user gets false. The password must have passed
 * passwordProblem. Hashed with argon2id (the library's defaults: 19 MiB, 2 passes) before the
 * transaction, so no lock waits on it, and only for a link that works.
 */
export async function setPassword(deps: Deps, token: string, password: string): Promise<boolean> {
  const invitation = await openInvitation(deps, token);
  if (!invitation) return false;
  const passwordHash = await hash(password);
  const userId = await withTransaction(deps.db, async (tx) => {
    const used = await consumeInvitation(tx, hashToken(token), passwordHash);
    // A new password ends every session of the user (none can exist before the first one).
    if (used) await endUserSessions(tx, invitation.merchant_account_number, used);
    return used;
  });
  if (userId) deps.log.info({ userId }, 'merchant user set a password');
  return userId !== undefined;
}

/**
 * A new password for an active user (the console's reset link), hashed with argon2id before the
 * transaction. In one transaction: the hash, the end of every console session of the user and of
 * their open invitations (a link to set a first password has nothing left to do). False when the
 * user is closed or does not exist. The password must have passed passwordProblem.
 */
export async function changePassword(deps: Deps, merchantAccountNumber: number, userId: string, password: string, then?: (tx: pg.PoolClient) => Promise<void>): Promise<boolean> {
  const passwordHash = await hash(password);
  return withTransaction(deps.db, async (tx) => {
    const user = await findUser(tx, merchantAccountNumber, userId, { lock: 'for update' });
    if (!user || user.status_code !== USER.active) return false;
    await setPasswordHash(tx, merchantAccountNumber, userId, passwordHash);
    await revokeInvitations(tx, merchantAccountNumber, userId);
    await endUserSessions(tx, merchantAccountNumber, userId);
    await then?.(tx);
    deps.log.info({ userId }, 'merchant user changed their password');
    return true;
  });
}

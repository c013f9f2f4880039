// Merchant users (product.md §13): the people of a merchant's back office, each with a role, and
// the invitation that lets a new user set a password. Adding a user writes the user, a one-time
// invitation (the users tables keep only its SHA-256) and the invitation e-mail (outbox + job) in ONE
// transaction: there is never a user whose invitation was lost, nor an e-mail for a user that
// does not exist. E6 (reinvite) revokes the open invitations and sends a new one, only while the
// user is active and has no password. Every read and write is scoped to the caller's merchant.
import { hash } from '@node-rs/argon2';
import type pg from 'pg';
import { containsPattern } from '../../db/like.ts';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { canonicalActor } from '../../lib/actor.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { queueEmail } from '../email/service.ts';
import { hashToken, invitationEmail, newInvitationToken, TOKEN_PATTERN } from './invitation.ts';
import {
  type NewUser,
  consumeInvitation,
  findOpenInvitation,
  findUser,
  insertInvitation,
  insertUser,
  listRoles,
  listUsers,
  merchantName,
  revokeInvitations,
  setUserStatus,
  updateUserRow,
  userEmails,
  type OpenInvitation,
  type RoleRow,
  type UserRow,
  type UserSearchField,
} from './repository.ts';
import { normalisePhone } from './schemas.ts';

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
    roleName: u.role_name,
    statusCode: u.status_code,
    statusName: t(lang, u.status_code === 'A' ? 'status.A' : 'status.C'),
    isPasswordSet: u.is_password_set,
    capturedBy: u.captured_by,
    dateCreated: u.date_created.toISOString(),
    modifiedBy: u.modified_by,
    dateModified: u.date_modified?.toISOString() ?? null,
  };
}

/** The role, or 400 naming the roles that exist. */
async function roleOf(q: Queryable, roleId: number): Promise<RoleRow> {
  const roles = await listRoles(q);
  const role = roles.find((r) => r.role_id === roleId);
  if (role) return role;
  const list = roles.map((r) => `${r.role_id} ${r.role_name}`).join(', ');
  throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.roleUnknown', params: { roleId, roles: list } }] });
}

async function userOf(q: Queryable, merchantAccountNumber: number, userId: string, lock = false): Promise<UserRow> {
  const user = await findUser(q, merchantAccountNumber, userId, lock);
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
    if ((err as { constraint?: string }).constraint === 'merchant_users_email') throw new AppError('conflict', 'detail.userEmailExists', { emailAddress });
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

export type NewMerchantUser = NewUser;

/** Adds the user, invites them; returns the new userId. */
export async function addUser(deps: Deps, input: NewMerchantUser, baseUrl: string): Promise<string> {
  return refusingDuplicateEmail(input.emailAddress, () =>
    withTransaction(deps.db, async (tx) => {
      const role = await roleOf(tx, input.roleId);
      await refuseSameMailbox(tx, input.merchantAccountNumber, input.emailAddress);
      const firstName = input.firstName.trim();
      const userId = await insertUser(tx, { ...input, organisationId: input.organisationId.toUpperCase(), firstName, lastName: input.lastName.trim(), phoneNumber: normalisePhone(input.phoneNumber) });
      await invite(deps, tx, { merchantAccountNumber: input.merchantAccountNumber, userId, firstName, emailAddress: input.emailAddress, roleName: role.role_name }, baseUrl);
      return userId;
    }),
  );
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

export const getMerchantUser = (deps: Deps, merchantAccountNumber: number, userId: string) => userOf(deps.db, merchantAccountNumber, userId);

export interface MerchantUserUpdate {
  merchantAccountNumber: number;
  userId: string;
  firstName: string;
  lastName: string;
  /** Absent: unchanged. A different address revokes the open invitations (they went to the old one). */
  emailAddress?: string;
  phoneNumber: string;
  roleId: number;
  modifiedBy: string;
}

export async function updateMerchantUser(deps: Deps, input: MerchantUserUpdate): Promise<void> {
  const emailAddress = input.emailAddress;
  await refusingDuplicateEmail(emailAddress ?? '', () =>
    withTransaction(deps.db, async (tx) => {
      const user = await userOf(tx, input.merchantAccountNumber, input.userId, true);
      await roleOf(tx, input.roleId);
      const newEmail = emailAddress ?? user.email_address;
      if (emailAddress !== undefined) await refuseSameMailbox(tx, input.merchantAccountNumber, emailAddress, input.userId);
      if (newEmail.toLowerCase() !== user.email_address.toLowerCase()) await revokeInvitations(tx, input.merchantAccountNumber, input.userId);
      await updateUserRow(tx, input.merchantAccountNumber, input.userId, {
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
        emailAddress: newEmail,
        phoneNumber: normalisePhone(input.phoneNumber),
        roleId: input.roleId,
        modifiedBy: input.modifiedBy,
      });
    }),
  );
}

export async function activateMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, modifiedBy: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, true);
    if (user.status_code !== 'A') await setUserStatus(tx, merchantAccountNumber, userId, 'A', modifiedBy);
  });
}

/** Closing also revokes the open invitations: a closed user's link stops working. */
export async function closeMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, modifiedBy: string): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, true);
    if (user.status_code !== 'C') await setUserStatus(tx, merchantAccountNumber, userId, 'C', modifiedBy);
    await revokeInvitations(tx, merchantAccountNumber, userId);
  });
}

/** E6: a new invitation (the previous links stop working); returns the address it goes to. */
export async function reinviteMerchantUser(deps: Deps, merchantAccountNumber: number, userId: string, baseUrl: string): Promise<string> {
  return withTransaction(deps.db, async (tx) => {
    const user = await userOf(tx, merchantAccountNumber, userId, true);
    if (user.status_code !== 'A') throw new AppError('invalidState', 'detail.userClosed', { userId });
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

/** What is wrong with a new password, if anything. Lengths count characters (code points), not bytes. */
export function passwordProblem(password: string, confirmation: string): { key: MessageKey; params: Record<string, number> } | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return { key: 'setPassword.tooShort', params: { min: PASSWORD_MIN_LENGTH } };
  if (length > PASSWORD_MAX_LENGTH) return { key: 'setPassword.tooLong', params: { max: PASSWORD_MAX_LENGTH } };
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
  if (!(await openInvitation(deps, token))) return false;
  const passwordHash = await hash(password);
  const userId = await withTransaction(deps.db, (tx) => consumeInvitation(tx, hashToken(token), passwordHash));
  if (userId) deps.log.info({ userId }, 'merchant user set a password');
  return userId !== undefined;
}

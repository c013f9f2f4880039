// The team pages' reads: the merchant's users with how each signs in (password set or invitation
// pending, two-factor on or off, last sign-in from the audit log), and the audit log itself,
// filtered by user, action and UTC days, newest first, a keyset page at a time. Every statement is
// scoped by merchant_account_number: another merchant's user or entry is simply not found.
import type { Queryable } from '../../../db/pool.ts';
import { AppError } from '../../../http/errors.ts';
import { checkDay, checkOrder, decodeCursor, keysetTime, listScope, pageOf, pageRows, type Page } from '../../../http/keyset-pages.ts';
import type { UserStatus } from '../../users/repository.ts';

/** The most users the team page lists (a merchant's back office is a few people; a limit all the same). */
export const TEAM_MAX_USERS = 200;

export interface TeamMember {
  userId: string;
  firstName: string;
  lastName: string;
  emailAddress: string;
  phoneNumber: string;
  roleId: number;
  roleCode: string;
  roleName: string;
  statusCode: 'A' | 'C';
  isPasswordSet: boolean;
  /** Two-factor sign-in set up and confirmed (console_two_factor.confirmed_at). */
  twoFactor: boolean;
  /** When the newest open invitation link stops working; null when there is none (used, revoked or none sent). */
  invitationExpiresAt: Date | null;
  lastSignInAt: Date | null;
  capturedBy: string;
  dateCreated: Date;
  modifiedBy: string | null;
  dateModified: Date | null;
}

interface MemberRow {
  user_id: string;
  first_name: string;
  last_name: string;
  email_address: string;
  phone_number: string;
  role_id: number;
  role_code: string;
  role_name: string;
  status_code: UserStatus;
  is_password_set: boolean;
  two_factor: boolean;
  invitation_expires_at: Date | null;
  last_sign_in_at: Date | null;
  captured_by: string;
  date_created: Date;
  modified_by: string | null;
  date_modified: Date | null;
}

// The last sign-in is the newest 'sign_in' entry of the user (sessions are deleted when they end,
// the audit log is kept), one index lookup per user (console_audit_log_sign_in_idx, migration
// 0020); the open invitation is the one whose link still works now.
const MEMBER_SELECT = `
  select u.user_id, u.first_name, u.last_name, u.email_address, u.phone_number, u.role_id, r.role_code, r.role_name, u.status_code,
         u.password_hash is not null as is_password_set,
         exists (select 1 from console_two_factor f
                  where f.merchant_account_number = u.merchant_account_number and f.user_id = u.user_id and f.confirmed_at is not null) as two_factor,
         (select max(i.expires_at) from user_invitations i
           where i.merchant_account_number = u.merchant_account_number and i.user_id = u.user_id
             and i.used_at is null and i.revoked_at is null and i.expires_at > $2) as invitation_expires_at,
         (select a.at from console_audit_log a
           where a.merchant_account_number = u.merchant_account_number and a.user_id = u.user_id and a.action = 'sign_in'
           order by a.at desc limit 1) as last_sign_in_at,
         u.captured_by, u.date_created, u.modified_by, u.date_modified
    from merchant_users u join roles r on r.role_id = u.role_id
   where u.merchant_account_number = $1 and ($3::uuid is null or u.user_id = $3::uuid)`;

function member(r: MemberRow): TeamMember {
  return {
    userId: r.user_id,
    firstName: r.first_name,
    lastName: r.last_name,
    emailAddress: r.email_address,
    phoneNumber: r.phone_number,
    roleId: r.role_id,
    roleCode: r.role_code,
    roleName: r.role_name,
    statusCode: r.status_code,
    isPasswordSet: r.is_password_set,
    twoFactor: r.two_factor,
    invitationExpiresAt: r.invitation_expires_at,
    lastSignInAt: r.last_sign_in_at,
    capturedBy: r.captured_by,
    dateCreated: r.date_created,
    modifiedBy: r.modified_by,
    dateModified: r.date_modified,
  };
}

/** The merchant's users, active ones first, then by name; at most TEAM_MAX_USERS + 1 (the page says when there are more). */
export async function teamMembers(q: Queryable, merchantAccountNumber: number, now: Date): Promise<TeamMember[]> {
  const { rows } = await q.query<MemberRow>(
    `${MEMBER_SELECT}
      order by u.status_code, lower(u.first_name), lower(u.last_name), u.user_id
      limit ${TEAM_MAX_USERS + 1}`,
    [merchantAccountNumber, now, null],
  );
  return rows.map(member);
}

const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One user of the merchant; undefined for another merchant's, an unknown one, or what is not a user id. */
export async function teamMember(q: Queryable, merchantAccountNumber: number, userId: string, now: Date): Promise<TeamMember | undefined> {
  if (!USER_ID.test(userId)) return undefined;
  const { rows } = await q.query<MemberRow>(MEMBER_SELECT, [merchantAccountNumber, now, userId]);
  return rows[0] ? member(rows[0]) : undefined;
}

/** The merchant's users for the audit log's filter: every one, closed too (their entries stay). */
export async function userChoices(q: Queryable, merchantAccountNumber: number): Promise<Array<{ userId: string; name: string; emailAddress: string }>> {
  const { rows } = await q.query<{ user_id: string; name: string; email_address: string }>(
    `select user_id, first_name || ' ' || last_name as name, email_address from merchant_users
      where merchant_account_number = $1 order by lower(first_name), lower(last_name), user_id limit ${TEAM_MAX_USERS}`,
    [merchantAccountNumber],
  );
  return rows.map((r) => ({ userId: r.user_id, name: r.name, emailAddress: r.email_address }));
}

// ---------------------------------------------------------------------------------------------
// The audit log

export interface AuditFilter {
  /** Entries by this user, or about them (detail.userId: the console's user.* actions). */
  userId?: string;
  action?: string;
  /** UTC days, both included. */
  fromDate?: string;
  toDate?: string;
  after?: string;
  limit?: number;
}

export interface AuditItem {
  auditId: string;
  at: Date;
  userId: string | null;
  /** The acting user's name and address as they are now (null for an entry without a user). */
  userName: string | null;
  userEmail: string | null;
  emailTried: string | null;
  action: string;
  ip: string;
  userAgent: string;
  detail: Record<string, unknown>;
}

interface AuditQueryRow {
  audit_id: string;
  at: Date;
  at_key: string;
  user_id: string | null;
  user_name: string | null;
  user_email: string | null;
  email_tried: string | null;
  action: string;
  ip: string;
  user_agent: string;
  detail: Record<string, unknown>;
}

/** An action code as the audit log's check constraint allows it (migrations/0015). */
const ACTION_CODE = /^[a-z][a-z0-9_.]{0,39}$/;

function invalid(field: string, value: string): AppError {
  return new AppError('validation', 'detail.valueInvalid', { field, value: value.slice(0, 40) });
}

/** The day after `day` (YYYY-MM-DD), at 00:00 UTC: the end of a range that includes `day`. */
function dayAfter(day: string): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
}

/**
 * The merchant's audit log, newest first, filtered, a keyset page at a time (on at, audit_id: the
 * order of console_audit_log_at_idx). A filter value that cannot be one (a user id that is not a
 * UUID, an action that is not an action code, a day that does not exist, a cursor of another
 * list) is refused with AppError 'validation' naming its field.
 */
export async function listAuditEntries(q: Queryable, merchantAccountNumber: number, filter: AuditFilter): Promise<Page<AuditItem>> {
  const userId = filter.userId?.toLowerCase();
  if (userId !== undefined && !USER_ID.test(userId)) throw invalid('userId', userId);
  const action = filter.action;
  if (action !== undefined && !ACTION_CODE.test(action)) throw invalid('action', action);
  const fromDate = checkDay('fromDate', filter.fromDate);
  const toDate = checkDay('toDate', filter.toDate);
  checkOrder(fromDate, toDate);
  const limit = pageRows(filter.limit);
  const scope = listScope('audit', merchantAccountNumber, { userId, action, fromDate, toDate });
  const after = decodeCursor(filter.after, scope, ['time', 'uuid']);
  const { rows } = await q.query<AuditQueryRow>(
    `select a.audit_id, a.at, ${keysetTime('a.at')} as at_key, a.user_id, u.first_name || ' ' || u.last_name as user_name, u.email_address as user_email,
            a.email_tried, a.action, a.ip, a.user_agent, a.detail
       from console_audit_log a
       left join merchant_users u on u.merchant_account_number = a.merchant_account_number and u.user_id = a.user_id
      where a.merchant_account_number = $1
        and ($2::text is null or a.user_id = $2::text::uuid or a.detail ->> 'userId' = $2::text)
        and ($3::text is null or a.action = $3)
        and ($4::timestamptz is null or a.at >= $4)
        and ($5::timestamptz is null or a.at < $5)
        and ($6::timestamptz is null or (a.at, a.audit_id) < ($6::timestamptz, $7::uuid))
      order by a.at desc, a.audit_id desc
      limit $8`,
    [
      merchantAccountNumber,
      userId ?? null,
      action ?? null,
      fromDate ? new Date(`${fromDate}T00:00:00Z`) : null,
      toDate ? dayAfter(toDate) : null,
      after ? after[0] : null,
      after ? after[1] : null,
      limit + 1,
    ],
  );
  return pageOf(rows, limit, scope, (r) => [r.at_key, r.audit_id], (r) => ({
    auditId: r.audit_id,
    at: r.at,
    userId: r.user_id,
    userName: r.user_name,
    userEmail: r.user_email,
    emailTried: r.email_tried,
    action: r.action,
    ip: r.ip,
    userAgent: r.user_agent,
    detail: r.detail,
  }));
}

/** The merchant's organisation: a new user belongs to it (the API takes it from the access token). */
export async function organisationOf(q: Queryable, merchantAccountNumber: number): Promise<string> {
  const { rows } = await q.query<{ organisation_id: string }>('select organisation_id from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  if (!rows[0]) throw new Error(`merchant ${merchantAccountNumber} has no row`);
  return rows[0].organisation_id;
}

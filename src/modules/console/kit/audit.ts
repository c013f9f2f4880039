// The console's audit log (migrations/0015 console_audit_log): who did what, when and from where.
// Written for sign-ins, failures, back-offs, locks, sign-outs and password resets; part 2 adds the
// console's actions and shows the log to administrators (listAudit).
import type { Queryable } from '../../../db/pool.ts';

export type AuditAction =
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_in_backoff'
  | 'account_locked'
  | 'sign_out'
  | 'password_reset_requested'
  | 'password_reset'
  | 'two_factor_failed'
  | 'two_factor_enrolled'
  | 'two_factor_removed'
  // Part 2's actions (actions.ts): the area, a dot, what was done ('batch.approve', 'api_key.generate', …).
  | `${ActionArea}.${string}`;

/** The parts of the console that act, as the first half of their audit actions. */
export type ActionArea = 'batch' | 'payout' | 'upload' | 'payment_request' | 'checkout' | 'api_key' | 'webhook' | 'user' | 'settlement_account' | 'sandbox' | 'merchant';

export type AuditDetail = Record<string, string | number | boolean | null>;

/** Where a request came from, as the audit log keeps it (bounded to its columns). */
export interface Origin {
  ip: string;
  userAgent: string;
}

export interface AuditEntry {
  merchantAccountNumber: number;
  userId: string | null;
  emailTried?: string | null;
  action: AuditAction;
  detail?: AuditDetail;
}

const EMAIL_TRIED_MAX = 254;
const USER_AGENT_MAX = 300;
const IP_MAX = 64;

/** The request's origin, cut to what the columns hold. */
export function originOf(ip: string, userAgent: string | string[] | undefined): Origin {
  const agent = Array.isArray(userAgent) ? userAgent[0] : userAgent;
  return { ip: ip.slice(0, IP_MAX), userAgent: (agent ?? '').slice(0, USER_AGENT_MAX) };
}

/** Writes the entries in one statement (also when there are none: callers rely on the round trip being the same). */
export async function writeAudit(q: Queryable, at: Date, origin: Origin, entries: AuditEntry[]): Promise<void> {
  await q.query(
    `insert into console_audit_log (merchant_account_number, at, user_id, email_tried, action, ip, user_agent, detail)
     select e.merchant_account_number, $1, e.user_id, e.email_tried, e.action, $2, $3, e.detail
       from jsonb_to_recordset($4::jsonb) as e(merchant_account_number integer, user_id uuid, email_tried varchar, action varchar, detail jsonb)`,
    [
      at,
      origin.ip,
      origin.userAgent,
      JSON.stringify(
        entries.map((e) => ({
          merchant_account_number: e.merchantAccountNumber,
          user_id: e.userId,
          email_tried: e.emailTried?.slice(0, EMAIL_TRIED_MAX) ?? null,
          action: e.action,
          detail: e.detail ?? {},
        })),
      ),
    ],
  );
}

export interface AuditRow {
  audit_id: string;
  at: Date;
  user_id: string | null;
  /** The user's name and address as they are now (null for an entry without a user). */
  user_name: string | null;
  user_email: string | null;
  email_tried: string | null;
  action: string;
  ip: string;
  user_agent: string;
  detail: Record<string, unknown>;
}

/** Where the previous page ended: its last row's time and id. */
export interface AuditCursor {
  at: Date;
  auditId: string;
}

/** Largest page of the audit log. */
export const AUDIT_PAGE_MAX = 200;

/** The merchant's audit log, newest first, a page at a time (keyset on at, audit_id). */
export async function listAudit(q: Queryable, merchantAccountNumber: number, params: { before?: AuditCursor; limit: number }): Promise<AuditRow[]> {
  const limit = Math.max(1, Math.min(AUDIT_PAGE_MAX, Math.floor(params.limit)));
  const { rows } = await q.query<AuditRow>(
    `select a.audit_id, a.at, a.user_id, u.first_name || ' ' || u.last_name as user_name, u.email_address as user_email,
            a.email_tried, a.action, a.ip, a.user_agent, a.detail
       from console_audit_log a
       left join merchant_users u on u.merchant_account_number = a.merchant_account_number and u.user_id = a.user_id
      where a.merchant_account_number = $1 and ($2::timestamptz is null or (a.at, a.audit_id) < ($2, $3::uuid))
      order by a.at desc, a.audit_id desc
      limit $4`,
    [merchantAccountNumber, params.before?.at ?? null, params.before?.auditId ?? null, limit],
  );
  return rows;
}

// Which merchant users may act on batches (issue 13). A merchant with at least one active merchant
// user has its batches reviewed, approved, rejected, cancelled and transferred only by those users,
// as their role allows; the actor field names the user by e-mail address, matched in canonical
// form (src/lib/actor.ts). A merchant without users keeps free-text actors (sandbox convenience).
// Four eyes (lifecycle.ts notBy) apply in both cases. Capturing a batch is not restricted here.
// Single payouts awaiting approval (issue 14) follow the same grants for review, approve and reject.
import type pg from 'pg';
import { AppError } from '../../http/errors.ts';
import { canonicalActor } from '../../lib/actor.ts';
import type { BatchAction } from '../disbursements/lifecycle.ts';
import { activeUsers, decisionsInConsole } from './repository.ts';

/** The seeded merchant-user roles (migrations/0005 and 0008, table roles), by code; other roles may exist and take nothing. */
export const ROLE = {
  admin: 'MERC_ADMIN',
  initiator: 'MERC_INITIATOR',
  reviewer: 'MERC_REVIEWER',
  approver: 'MERC_APPROVER',
  viewer: 'MERC_VIEWER',
} as const;
export type RoleCode = (typeof ROLE)[keyof typeof ROLE];

/** 'any': on any batch of the merchant; 'own': only on a batch the user captured. */
export type Grant = 'any' | 'own';

/**
 * The batch actions each seeded role (migrations/0005 and 0008, table roles) may take, by role
 * code (role names are for people and may change). Roles not listed here may take none. The
 * "Merchant users" section of docs/integrators-guide.md shows the same table.
 */
export const ACTIONS_BY_ROLE: Readonly<Record<string, Readonly<Partial<Record<BatchAction, Grant>>>>> = {
  [ROLE.admin]: { review: 'any', approve: 'any', reject: 'any', cancel: 'any', transferFunds: 'any' },
  // Captures batches; may withdraw (cancel) their own, never move money.
  [ROLE.initiator]: { cancel: 'own' },
  [ROLE.reviewer]: { review: 'any', reject: 'any' },
  [ROLE.approver]: { approve: 'any', reject: 'any', cancel: 'any', transferFunds: 'any' },
  [ROLE.viewer]: {},
} satisfies Record<RoleCode, Readonly<Partial<Record<BatchAction, Grant>>>>;

/** The batch actions of ACTIONS_BY_ROLE, in the order the table of docs/integrators-guide.md shows them. */
const BATCH_ACTIONS: readonly BatchAction[] = ['review', 'approve', 'reject', 'cancel', 'transferFunds'];

/**
 * A role's batch permissions as claim values: `batch.review`, … and `batch.cancel.own` for an
 * action allowed only on the batches the user captured.
 */
export function batchPermissions(roleCode: string): string[] {
  const grants = ACTIONS_BY_ROLE[roleCode] ?? {};
  return BATCH_ACTIONS.flatMap((action) => (grants[action] === 'any' ? [`batch.${action}`] : grants[action] === 'own' ? [`batch.${action}.own`] : []));
}

/** Where a payout decision comes from: the API (actor named in the body) or the console (the signed-in user). */
export type DecisionChannel = 'api' | 'console';

export interface ActorCheck {
  merchantAccountNumber: number;
  channel: DecisionChannel;
  /** The batch acted on; or, for a single payout (issue 14: the same rules), its reference. */
  batchNumber?: number;
  transactionReferenceNumber?: string;
  action: BatchAction;
  /** The actor field as sent. */
  actor: string;
  /** The batch's captured_by as stored. */
  capturedBy: string;
}

/**
 * Nothing for a merchant without active users; otherwise 403 E902 unless the actor is one of them
 * and one of their roles (two users can share a mailbox only from before canonical matching)
 * grants the action on this batch or single payout.
 */
/**
 * Whether `roleCode` grants `action` to `actor` on a batch or payout `capturedBy` captured ('own':
 * only on their own). The one copy of the role rule: the service refuses by it (authoriseActor),
 * the console shows its buttons by it (disbursements/may-act.ts).
 */
export function roleGrants(roleCode: string, action: BatchAction, actor: string, capturedBy: string): boolean {
  const grant = ACTIONS_BY_ROLE[roleCode]?.[action];
  return grant === 'any' || (grant === 'own' && canonicalActor(capturedBy) === canonicalActor(actor));
}

export async function authoriseActor(tx: pg.PoolClient, c: ActorCheck): Promise<void> {
  if (c.channel === 'api' && (await decisionsInConsole(tx, c.merchantAccountNumber))) {
    const subject = c.transactionReferenceNumber !== undefined ? { key: 'detail.subjectPayout' as const } : { key: 'detail.subjectBatch' as const };
    throw new AppError('forbidden', 'detail.decisionsInConsole', { merchantAccountNumber: c.merchantAccountNumber, subject, id: c.transactionReferenceNumber ?? c.batchNumber ?? 0 });
  }
  const users = await activeUsers(tx, c.merchantAccountNumber);
  if (users.length === 0) return;
  const actor = canonicalActor(c.actor);
  const matching = users.filter((u) => canonicalActor(u.email_address) === actor);
  const payout = c.transactionReferenceNumber !== undefined;
  if (matching.length === 0) throw new AppError('forbidden', payout ? 'detail.actorNotUserPayout' : 'detail.actorNotUser', { actor: c.actor, merchantAccountNumber: c.merchantAccountNumber });
  if (matching.some((u) => roleGrants(u.role_code, c.action, c.actor, c.capturedBy))) return;
  const grants = matching.map((u) => ACTIONS_BY_ROLE[u.role_code]?.[c.action]);
  const params = { actor: c.actor, role: matching.map((u) => u.role_name).join(', '), action: { key: `actionVerb.${c.action}` as const } };
  if (payout) throw new AppError('forbidden', 'detail.actorRolePayout', { ...params, reference: c.transactionReferenceNumber ?? '' });
  throw new AppError('forbidden', grants.includes('own') ? 'detail.actorRoleOwn' : 'detail.actorRole', { ...params, batchNumber: c.batchNumber ?? 0 });
}

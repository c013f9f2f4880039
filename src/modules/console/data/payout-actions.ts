// Who may do what to a batch or a single payout now (issue 19): the one decision the console's
// action buttons are shown by. It reads the same tables the service checks: the lifecycle
// (disbursements/lifecycle.ts: which step exists from which state at which level, and its four-eyes
// notBy rule) and the role grants (users/permissions.ts ACTIONS_BY_ROLE, 'own' = batches the user
// captured), actors compared in canonical form (src/lib/actor.ts). A button is only a hint: the
// POST calls the service (actOnBatch, transferFunds, actOnSinglePayout), which refuses the same
// cases on its own, under the row's lock (test/console-payout-actions.test.ts checks they agree).
import { canonicalActor } from '../../../lib/actor.ts';
import {
  SINGLE_TRANSITIONS,
  singleAllowed,
  singleStage,
  transitionFrom,
  TRANSITIONS,
  type Actor,
  type BatchAction,
  type BatchStatus,
  type SingleAction,
} from '../../disbursements/lifecycle.ts';
import { ACTIONS_BY_ROLE } from '../../users/permissions.ts';

/** In the order the actions card shows them. */
export const BATCH_ACTIONS = ['review', 'approve', 'transferFunds', 'reject', 'cancel'] as const satisfies readonly BatchAction[];
export const SINGLE_ACTIONS = ['review', 'approve', 'reject'] as const satisfies readonly SingleAction[];

/**
 * 'yes'; or why not: 'state' (no such step from this state at this level), 'role' (the user's role
 * does not grant it here), 'capturer' or 'reviewer' (four eyes: the user already acted as that).
 */
export type Verdict = 'yes' | 'state' | 'role' | Actor;

export interface ActingUser {
  emailAddress: string;
  roleCode: string;
}

/** Who already acted on the batch or payout. */
export interface Acted {
  capturedBy: string;
  reviewedBy: string | null;
}

export interface BatchFacts extends Acted {
  statusCode: BatchStatus;
  levelNumber: number;
  isBatchScheduled: boolean;
  /** YYYY-MM-DD (UTC). */
  scheduledDate: string | null;
}

export interface SingleFacts extends Acted {
  statusCode: string;
  levelNumber: number;
}

function verdict(user: ActingUser, action: BatchAction, stepExists: boolean, notBy: readonly Actor[], acted: Acted): Verdict {
  if (!stepExists) return 'state';
  const me = canonicalActor(user.emailAddress);
  const grant = ACTIONS_BY_ROLE[user.roleCode]?.[action];
  if (grant !== 'any' && !(grant === 'own' && canonicalActor(acted.capturedBy) === me)) return 'role';
  for (const role of notBy) {
    const earlier = role === 'capturer' ? acted.capturedBy : acted.reviewedBy;
    if (earlier && canonicalActor(earlier) === me) return role;
  }
  return 'yes';
}

/**
 * May `user` take `action` on `batch` now. A step allowed only before the batch is due (cancel of
 * a transferred batch: lifecycle.ts beforeDue) exists while its scheduled day is after `today`
 * (YYYY-MM-DD, UTC): before then none of its lines is due.
 */
export function batchVerdict(user: ActingUser, batch: BatchFacts, action: BatchAction, today: string): Verdict {
  const from = transitionFrom(action, batch.statusCode, batch.levelNumber);
  const exists = from !== undefined && (!from.beforeDue || (batch.isBatchScheduled && batch.scheduledDate !== null && batch.scheduledDate > today));
  return verdict(user, action, exists, TRANSITIONS[action].notBy, batch);
}

/** May `user` take `action` on a single payout now (its stage read from the row, as the service does). */
export function singleVerdict(user: ActingUser, payout: SingleFacts, action: SingleAction): Verdict {
  const exists = singleAllowed(action, singleStage(payout.statusCode, payout.reviewedBy), payout.levelNumber);
  return verdict(user, action, exists, SINGLE_TRANSITIONS[action].notBy, payout);
}

/**
 * Capturing is no lifecycle step (the API lets any user capture): the console offers it to the
 * roles that take part in payouts at all, those with at least one batch action. Not the viewer,
 * who sees the money and changes nothing.
 */
export function mayCapture(roleCode: string): boolean {
  return Object.keys(ACTIONS_BY_ROLE[roleCode] ?? {}).length > 0;
}

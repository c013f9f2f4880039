// Who may take which action on a batch or a single payout now, and why not: the lifecycle
// (lifecycle.ts: whether the step exists from this state at this level, and its four-eyes rule)
// and the role grants (users/permissions.ts roleGrants). The service refuses by the same rules,
// under the row's lock (service.ts lockForAction and actOnSinglePayout: allowed, fourEyesConflict,
// authoriseActor); the console shows its action buttons by this verdict, so a button is only a
// hint of what the service will do (test/console/payouts/actions.test.ts checks they agree).
import { roleGrants } from '../users/permissions.ts';
import {
  fourEyesConflict,
  SINGLE_TRANSITIONS,
  singleAllowed,
  singleStage,
  transitionFrom,
  TRANSITIONS,
  type Acted,
  type Actor,
  type BatchAction,
  type BatchStatus,
  type SingleAction,
} from './lifecycle.ts';

/**
 * 'yes'; or why not: 'state' (no such step from this state at this level), 'role' (the user's role
 * does not grant it here), 'capturer' or 'reviewer' (four eyes: the user already acted as that).
 */
export type Verdict = 'yes' | 'state' | 'role' | Actor;

export interface ActingUser {
  emailAddress: string;
  roleCode: string;
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
  if (!roleGrants(user.roleCode, action, user.emailAddress, acted.capturedBy)) return 'role';
  return fourEyesConflict(notBy, acted, user.emailAddress) ?? 'yes';
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

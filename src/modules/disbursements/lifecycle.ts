// The batch lifecycle (product.md §9) as data: which action may move a batch from which state, at
// which authorisation level, under which condition, and who may not perform it (four eyes). The
// merchant's actions are looked up here; the transitions the system makes (Q → P/E by validation,
// T → C/F when the last line is final) are in the validation job and the payout worker.
import { sameActor } from '../../lib/actor.ts';

export type BatchStatus = 'Q' | 'P' | 'R' | 'A' | 'T' | 'C' | 'E' | 'F' | 'N' | 'X';

/**
 * The batch statuses by name (product.md §9; statusDescription below): code compares a batch's
 * status_code with these, never with the letter. SQL keeps the letters.
 */
export const BATCH = {
  queued: 'Q',
  pending: 'P',
  reviewed: 'R',
  approved: 'A',
  transferring: 'T',
  completed: 'C',
  error: 'E',
  failed: 'F',
  cancelled: 'N',
  rejected: 'X',
} as const satisfies Record<string, BatchStatus>;

/**
 * The transaction statuses [doc] (product.md §9; LINE_STATUS_NAMES below) of a payout: a batch's
 * line or a single payout (which has no status of its own beyond these).
 */
export type PayoutStatus = 'P' | 'E' | 'D' | 'T' | 'S' | 'F' | 'X' | 'C' | 'R';

/** The transaction statuses by name: code compares a payout's status_code with these, never with the letter. */
export const PAYOUT = {
  pending: 'P',
  error: 'E',
  ready: 'D',
  transferring: 'T',
  successful: 'S',
  failed: 'F',
  rejected: 'X',
  cancelled: 'C',
  reversed: 'R',
} as const satisfies Record<string, PayoutStatus>;
export type BatchAction = 'review' | 'approve' | 'reject' | 'cancel' | 'transferFunds';

/** Who has already acted on the batch: the four-eyes rules compare the actor with these. */
export type Actor = 'capturer' | 'reviewer';

/** Who already acted on a batch or a single payout, as stored (names as they were sent). */
export interface Acted {
  capturedBy: string;
  reviewedBy: string | null;
}

/**
 * The four-eyes rule of an action (its `notBy`): the role `actor` already played on the batch or
 * payout, if any, which forbids it; undefined when the rule allows it. Names are compared in
 * canonical form (lib/actor.ts). The one copy of the rule: the service refuses by it, the console
 * shows its buttons and the home page its to-do list by it.
 */
export function fourEyesConflict(notBy: readonly Actor[], acted: Acted, actor: string): Actor | undefined {
  return notBy.find((role) => {
    const earlier = role === 'capturer' ? acted.capturedBy : acted.reviewedBy;
    return earlier !== null && sameActor(earlier, actor);
  });
}

export interface From {
  status: BatchStatus;
  levels: number[];
  /**
   * Only while the batch's lines all still wait for their scheduled date: none due, none sent to a
   * connector. The money was debited, so leaving this state refunds it (service.refundWaitingTransfer
   * checks the condition under the lines' locks, so the payout worker and the action never both win).
   */
  beforeDue?: true;
}

interface Transition {
  /** Allowed from these states, for batches captured at these levels (and under the condition). */
  from: From[];
  to: BatchStatus;
  /** The acting user must differ from each of these (compared in canonical form: src/lib/actor.ts). */
  notBy: Actor[];
}

export const TRANSITIONS: Record<BatchAction, Transition> = {
  review: { from: [{ status: 'P', levels: [3] }], to: 'R', notBy: ['capturer'] },
  approve: {
    from: [
      { status: 'P', levels: [2] },
      { status: 'R', levels: [3] },
    ],
    to: 'A',
    notBy: ['capturer', 'reviewer'],
  },
  reject: {
    from: [
      { status: 'P', levels: [1, 2, 3] },
      { status: 'R', levels: [3] },
    ],
    to: 'X',
    notBy: [],
  },
  // Before funds move; or after, while a scheduled batch waits for its day (everything refunded).
  cancel: {
    from: [
      { status: 'P', levels: [1, 2, 3] },
      { status: 'R', levels: [3] },
      { status: 'A', levels: [2, 3] },
      { status: 'T', levels: [1, 2, 3], beforeDue: true },
    ],
    to: 'N',
    notBy: [],
  },
  transferFunds: {
    from: [
      { status: 'P', levels: [1] },
      { status: 'A', levels: [2, 3] },
    ],
    to: 'T',
    notBy: [],
  },
};

/** What happens to the batch's valid lines when the batch takes each state. */
export const LINE_STATUS_ON: Partial<Record<BatchStatus, { from: string[]; to: string }>> = {
  A: { from: ['P'], to: 'D' },
  X: { from: ['P', 'D'], to: 'X' },
  N: { from: ['P', 'D'], to: 'C' },
  // T: lines D → T with their due time, in repository.startTransfer; T → N: lines T → C with
  // their refund, in repository.cancelWaitingLines.
};

/**
 * The amount a payout moves, in minor units. Only an invalid line (E, which never moves on) may
 * lack one: a console upload's line whose amount was not one (amountFormat, migrations/0028). An
 * invalid line is never debited, paid or shown as money, so asking for its amount is a bug.
 */
export function payableAmount(p: { amount_minor: number | null; transaction_reference_number: string }): number {
  if (p.amount_minor === null) throw new Error(`payout ${p.transaction_reference_number} has no amount: it is invalid, never payable`);
  return p.amount_minor;
}

/** Valid lines after validation: ready for funds transfer at once when nobody has to approve. */
export function validLineStatus(levelNumber: number): 'P' | 'D' {
  return levelNumber === 1 ? 'D' : 'P';
}

/** The entry of the table that allows `action` from `status` at this level, if any. */
export function transitionFrom(action: BatchAction, status: BatchStatus, levelNumber: number): From | undefined {
  return TRANSITIONS[action].from.find((f) => f.status === status && f.levels.includes(levelNumber));
}

export function allowed(action: BatchAction, status: BatchStatus, levelNumber: number): boolean {
  return transitionFrom(action, status, levelNumber) !== undefined;
}

/** The descriptions E4 shows (`batchStatusDescription`); P depends on who acts next. */
export function statusDescription(status: BatchStatus, levelNumber: number): string {
  switch (status) {
    case BATCH.queued:
      return 'Queued';
    case BATCH.pending:
      return levelNumber === 3 ? 'Pending Review' : levelNumber === 2 ? 'Pending Approval' : 'Pending Funds Transfer';
    case BATCH.reviewed:
      return 'Reviewed';
    case BATCH.approved:
      return 'Approved';
    case BATCH.transferring:
      return 'Transferring Funds';
    case BATCH.completed:
      return 'Processed';
    case BATCH.error:
      return 'Error';
    case BATCH.failed:
      return 'Failed';
    case BATCH.cancelled:
      return 'Cancelled';
    case BATCH.rejected:
      return 'Rejected';
  }
}

export const LINE_STATUS_NAMES: Record<string, string> = {
  P: 'Pending',
  E: 'Error',
  D: 'Ready for funds transfer',
  T: 'Transferring funds',
  S: 'Successful',
  F: 'Transfer failed',
  X: 'Rejected',
  C: 'Cancelled',
  R: 'Reversed',
};

const ALL_STATUSES: BatchStatus[] = ['P', 'R', 'A', 'T', 'C', 'E', 'F', 'N', 'X'];

/** A status as merchants see it: P reads differently at each level. */
export interface ShownStatus {
  status: BatchStatus;
  level: number;
}

/**
 * E4's BatchStatus / BatchStatusDescription searches: the (status, level) pairs whose code
 * equals, or whose description contains, the text ("Pending Approval" is P at level 2 only).
 */
export function statusesMatching(searchBy: 'BatchStatus' | 'BatchStatusDescription', text: string): ShownStatus[] {
  const needle = text.toLowerCase();
  const all = ALL_STATUSES.flatMap((status) => [1, 2, 3].map((level) => ({ status, level })));
  if (searchBy === 'BatchStatus') return all.filter((s) => s.status.toLowerCase() === needle);
  return all.filter((s) => statusDescription(s.status, s.level).toLowerCase().includes(needle));
}

// ---------------------------------------------------------------------------------------------
// Single payouts (issue 14): the same levels and four-eyes rules as batches, on one payout.
//
// A single payout has no status of its own beyond the documented transaction statuses, so its
// stage is read from the row: P without a reviewer is `pending` (level 2 awaits approval, level 3
// review), P with one is `reviewed` (level 3 awaits approval). Approving it debits amount + fee,
// counts it against the day's limit and moves it to T (the payout worker takes it at once), all in
// one transaction; a level 1 payout is captured straight into T the same way. Rejecting it (X)
// never moved money. Once T, it is the payout worker's: S, F, then perhaps R.

export type SingleAction = Extract<BatchAction, 'review' | 'approve' | 'reject'>;
export type SingleStage = 'pending' | 'reviewed' | 'transferring' | 'final';

export interface SingleFrom {
  stage: SingleStage;
  levels: number[];
}

interface SingleTransition {
  from: SingleFrom[];
  /** The transaction status the payout takes. */
  to: 'P' | 'T' | 'X';
  notBy: Actor[];
}

export const SINGLE_TRANSITIONS: Record<SingleAction, SingleTransition> = {
  review: { from: [{ stage: 'pending', levels: [3] }], to: 'P', notBy: ['capturer'] },
  approve: {
    from: [
      { stage: 'pending', levels: [2] },
      { stage: 'reviewed', levels: [3] },
    ],
    to: 'T',
    notBy: ['capturer', 'reviewer'],
  },
  reject: {
    from: [
      { stage: 'pending', levels: [2, 3] },
      { stage: 'reviewed', levels: [3] },
    ],
    to: 'X',
    notBy: [],
  },
};

/** A single payout's status at capture: T when nobody has to approve it, P otherwise. */
export function singleStatusAtCapture(levelNumber: number): 'P' | 'T' {
  return levelNumber === 1 ? 'T' : 'P';
}

/** Where a single payout stands; `reviewedBy` tells a reviewed P from a pending one. */
export function singleStage(status: string, reviewedBy: string | null): SingleStage {
  if (status === PAYOUT.pending) return reviewedBy ? 'reviewed' : 'pending';
  return status === PAYOUT.transferring ? 'transferring' : 'final';
}

export function singleAllowed(action: SingleAction, stage: SingleStage, levelNumber: number): boolean {
  return SINGLE_TRANSITIONS[action].from.some((f) => f.stage === stage && f.levels.includes(levelNumber));
}


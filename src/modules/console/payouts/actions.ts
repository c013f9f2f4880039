// The console's side of who may do what to a batch or a single payout: the order its actions
// card shows them in, and who is offered capturing. The verdict itself (may this user take this
// action now, and why not) is the domain's: disbursements/may-act.ts, by the same rules the
// service refuses by.
import type { BatchAction, SingleAction } from '../../disbursements/lifecycle.ts';
import { ACTIONS_BY_ROLE } from '../../users/permissions.ts';

/** In the order the actions card shows them. */
export const BATCH_ACTIONS = ['review', 'approve', 'transferFunds', 'reject', 'cancel'] as const satisfies readonly BatchAction[];
export const SINGLE_ACTIONS = ['review', 'approve', 'reject'] as const satisfies readonly SingleAction[];

/**
 * Capturing is no lifecycle step (the API lets any user capture): the console offers it to the
 * roles that take part in payouts at all, those with at least one batch action. Not the viewer,
 * who sees the money and changes nothing.
 */
export function mayCapture(roleCode: string): boolean {
  return Object.keys(ACTIONS_BY_ROLE[roleCode] ?? {}).length > 0;
}

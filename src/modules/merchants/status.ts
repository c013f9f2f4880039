// Merchant account statuses (issue 14; docs.onekhusa.com, Activate / Suspend / Blacklist Merchant,
// Get Status Changes). Every change is the operator's decision, through the operator API: a
// merchant's own token cannot change its status (a suspended or blacklisted merchant cannot even
// authenticate: only A accounts get tokens, and their tokens stop working within
// KEY_STATUS_CACHE_MS of a change). Each change is recorded, in the same transaction, with who
// made it, the reason and the comments.
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import * as repo from './repository.ts';

export type StatusAction = 'activate' | 'suspend' | 'blacklist';

/** The status each action gives, and the statuses it may be given from (C closed is final). */
export const STATUS_TRANSITIONS: Record<StatusAction, { to: 'A' | 'S' | 'B'; from: ReadonlyArray<string> }> = {
  // Lifting a suspension, or a blacklisting the operator decides was wrong.
  activate: { to: 'A', from: ['S', 'B', 'I'] },
  // A blacklisted account is not "merely" suspended: that would lift the blacklisting.
  suspend: { to: 'S', from: ['A', 'I'] },
  blacklist: { to: 'B', from: ['A', 'S', 'I'] },
};

/** The most status changes one answer lists (newest first): changes are rare, this is years of them. */
export const STATUS_CHANGES_MAX = 1000;

export function merchantStatusName(lang: Lang, statusCode: string): string {
  return t(lang, `merchantStatus.${statusCode}` as MessageKey);
}

export interface StatusChangeInput {
  merchantAccountNumber: number;
  action: StatusAction;
  reasonId: number;
  comments?: string;
  changedBy: string;
}

/**
 * Gives the account the action's status: 404 for an unknown account or reason, 402 E916 when the
 * account's status does not allow the action (naming that status).
 */
export async function changeMerchantStatus(deps: Deps, input: StatusChangeInput): Promise<void> {
  const { to, from } = STATUS_TRANSITIONS[input.action];
  await withTransaction(deps.db, async (tx) => {
    const merchant = await repo.lockMerchantForUpdate(tx, input.merchantAccountNumber);
    if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
    if (!(await repo.findStatusReason(tx, input.reasonId))) throw new AppError('notFound', 'detail.statusReasonNotFound', { reasonId: input.reasonId });
    if (!from.includes(merchant.status_code)) {
      throw new AppError('invalidState', 'detail.merchantStatusChange', {
        merchantAccountNumber: input.merchantAccountNumber,
        status: { key: `merchantStatus.${merchant.status_code}` as MessageKey },
        action: { key: `merchantAction.${input.action}` },
      });
    }
    await repo.setMerchantStatus(tx, input.merchantAccountNumber, to, input.changedBy);
    await repo.insertStatusChange(tx, {
      merchantAccountNumber: input.merchantAccountNumber,
      previousStatusCode: merchant.status_code,
      statusCode: to,
      reasonId: input.reasonId,
      comments: input.comments?.trim() || null,
      changedBy: input.changedBy,
      changedVia: 'operator',
    });
  });
}

/** The documented record (capturedBy, statusName, dateCreated, comments, reasonDescription) and the codes behind it. */
export function statusChangeView(lang: Lang, c: repo.StatusChangeRow) {
  return {
    capturedBy: c.changed_by,
    statusCode: c.status_code,
    statusName: merchantStatusName(lang, c.status_code),
    previousStatusCode: c.previous_status_code,
    dateCreated: c.date_created.toISOString(),
    comments: c.comments ?? '',
    reasonId: c.reason_id,
    reasonDescription: c.reason_description,
  };
}

export async function getStatusChanges(q: Queryable, lang: Lang, merchantAccountNumber: number) {
  if (!(await repo.merchantExists(q, merchantAccountNumber))) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
  return (await repo.listStatusChanges(q, merchantAccountNumber, STATUS_CHANGES_MAX)).map((c) => statusChangeView(lang, c));
}

// The actions card of a batch or a single payout (issue 19): one POST form per action this user may
// take now (payouts/actions.ts decides; the service refuses the rest anyway), each with the
// CSRF field and its own form key. The two that stop a payout for good ask first without needing
// JavaScript: a <details> disclosure opens a second form, reject's with its required reason.
// Four eyes are explained where they hide a step the role would allow.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { formatMajor } from '../../../../lib/money.ts';
import type { BatchAction } from '../../../disbursements/lifecycle.ts';
import { FormKey } from '../../kit/actions.tsx';
import { batchVerdict, type BatchFacts, type Verdict } from '../../../disbursements/may-act.ts';
import { BATCH_ACTIONS } from '../actions.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { SECTION_PATHS } from '../../kit/paths.ts';

const PAYOUTS_PATH = SECTION_PATHS.payouts;
export const NEW_SINGLE_PATH = `${PAYOUTS_PATH}/single/new`;
export const singlePayoutPath = (reference: string) => `${PAYOUTS_PATH}/single/${reference}`;

/** The last part of an action's address: /console/payouts/batches/7/transfer-funds. */
export const ACTION_SLUGS: Record<BatchAction, string> = { review: 'review', approve: 'approve', transferFunds: 'transfer-funds', reject: 'reject', cancel: 'cancel' };
export const batchActionPath = (batchNumber: number, action: BatchAction) => `${PAYOUTS_PATH}/batches/${batchNumber}/${ACTION_SLUGS[action]}`;
export const singleActionPath = (reference: string, action: BatchAction) => `${singlePayoutPath(reference)}/${ACTION_SLUGS[action]}`;

export function actionOfSlug(slug: string): BatchAction | undefined {
  return (Object.keys(ACTION_SLUGS) as BatchAction[]).find((a) => ACTION_SLUGS[a] === slug);
}

/** The most characters of a rejection reason (the API's reasonForRejection). */
export const REASON_MAX_LENGTH = 500;

/** Why the last action was refused: shown in the card; a problem with the reason is shown by its field. */
export interface ActionProblem {
  action: BatchAction;
  message: string;
  /** The reason as typed, and its message when it is the reason that is wrong. */
  reason?: string;
  reasonError?: string;
}

function Hidden(p: { context: ConsoleContext }): SafeHtml {
  return (
    <>
      <input type="hidden" name={CSRF_FIELD} value={p.context.csrfToken} />
      <FormKey />
    </>
  );
}

function ReasonField(p: { context: ConsoleContext; problem?: ActionProblem }): SafeHtml {
  const lang = p.context.lang;
  const error = p.problem?.reasonError;
  return (
    <div class="field">
      <label for="reason">{ct(lang, 'payoutActions.reason')}</label>
      <textarea
        id="reason"
        name="reason"
        rows="3"
        required
        maxlength={REASON_MAX_LENGTH}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'reason-error reason-hint' : 'reason-hint'}
        autofocus={Boolean(error)}
      >
        {p.problem?.reason ?? ''}
      </textarea>
      {error ? (
        <p class="field-error" id="reason-error">
          {error}
        </p>
      ) : null}
      <p class="hint" id="reason-hint">
        {ct(lang, 'payoutActions.reasonHint', { max: REASON_MAX_LENGTH })}
      </p>
    </div>
  );
}

/** A step that stops the payouts for good: a disclosure, then the form that does it. */
function Confirm(p: { context: ConsoleContext; action: 'reject' | 'cancel'; subject: string; path: string; problem?: ActionProblem }): SafeHtml {
  const lang = p.context.lang;
  const open = p.problem?.action === p.action && p.problem.reasonError !== undefined;
  return (
    <details class="confirm" id={`confirm-${p.action}`} open={open}>
      <summary class="link-button" id={`open-${p.action}`}>
        {ct(lang, `payoutActions.button.${p.action}`)}
      </summary>
      <form method="post" action={p.path} class="confirm-form">
        <Hidden context={p.context} />
        <p>{ct(lang, p.action === 'reject' ? 'payoutActions.rejectWarning' : 'payoutActions.cancelWarning', { subject: p.subject })}</p>
        {p.action === 'reject' ? <ReasonField context={p.context} problem={p.problem} /> : null}
        <button class="button button-danger" type="submit" id={`action-${p.action}`}>
          {ct(lang, p.action === 'reject' ? 'payoutActions.confirmReject' : 'payoutActions.confirmCancel', { subject: p.subject })}
        </button>
        <p class="hint">{ct(lang, 'payoutActions.keep', { button: ct(lang, `payoutActions.button.${p.action}`) })}</p>
      </form>
    </details>
  );
}

const NOTES: Partial<Record<Verdict, Partial<Record<BatchAction, TextKey>>>> = {
  capturer: { review: 'payoutActions.note.capturer.review', approve: 'payoutActions.note.capturer.approve' },
  reviewer: { approve: 'payoutActions.note.reviewer.approve' },
};

export interface ActionsCardProps {
  context: ConsoleContext;
  /** "batch 7", "payout 251105CJZ16U". */
  subject: string;
  /** Each action with this user's verdict on it now, in the order to show them. */
  verdicts: ReadonlyArray<readonly [BatchAction, Verdict]>;
  path: (action: BatchAction) => string;
  problem?: ActionProblem;
  /** What transferring funds debits (batches). */
  transferHint?: string;
}

/** Nothing at all when the user can do nothing and there is nothing to explain (a viewer, a finished batch). */
export function ActionsCard(p: ActionsCardProps): SafeHtml | null {
  const { context, problem } = p;
  const lang = context.lang;
  const allowed = p.verdicts.filter(([, v]) => v === 'yes').map(([a]) => a);
  const notes = p.verdicts.flatMap(([action, v]) => {
    const key = NOTES[v]?.[action];
    return key ? [{ action, key }] : [];
  });
  if (allowed.length === 0 && notes.length === 0 && !problem) return null;
  const buttons = allowed.filter((a) => a !== 'reject' && a !== 'cancel');
  return (
    <section class="card actions-card" id="actions" aria-labelledby="actions-title">
      <h2 id="actions-title">{ct(lang, 'payoutActions.title')}</h2>
      {problem && problem.reasonError === undefined ? (
        <div class="alert alert-error" role="alert" id="actions-error">
          <p>{problem.message}</p>
          <p>{ct(lang, 'action.refused')}</p>
        </div>
      ) : null}
      {notes.map((n) => (
        <p class="action-note" id={`note-${n.action}`}>
          {ct(lang, n.key)}
        </p>
      ))}
      {allowed.length === 0 ? <p id="actions-none">{ct(lang, 'payoutActions.none')}</p> : null}
      {buttons.length > 0 ? (
        <div class="action-buttons">
          {buttons.map((action) => (
            <form method="post" action={p.path(action)} class="action-form">
              <Hidden context={context} />
              <button class="button" type="submit" id={`action-${action}`} aria-describedby={action === 'transferFunds' && p.transferHint ? 'transfer-hint' : undefined}>
                {ct(lang, `payoutActions.button.${action}` as TextKey)}
              </button>
            </form>
          ))}
        </div>
      ) : null}
      {allowed.includes('transferFunds') && p.transferHint ? (
        <p class="hint" id="transfer-hint">
          {p.transferHint}
        </p>
      ) : null}
      {allowed.includes('reject') || allowed.includes('cancel') ? (
        <div class="confirms">
          {allowed.includes('reject') ? <Confirm context={context} action="reject" subject={p.subject} path={p.path('reject')} problem={problem} /> : null}
          {allowed.includes('cancel') ? <Confirm context={context} action="cancel" subject={p.subject} path={p.path('cancel')} problem={problem} /> : null}
        </div>
      ) : null}
    </section>
  );
}

/** A batch's actions card, for the batch page (payouts/pages/payouts.tsx). */
export function BatchActions(p: {
  context: ConsoleContext;
  batch: BatchFacts & { batchNumber: number; currencyCode: string; totals: { amountMinor: number; feeMinor: number } };
  problem?: ActionProblem;
}): SafeHtml | null {
  const { context, batch } = p;
  // Its lines come due by the database's clock, which is the real one (not a test's).
  const today = new Date().toISOString().slice(0, 10);
  const amount = `${batch.currencyCode} ${formatMajor(batch.totals.amountMinor + batch.totals.feeMinor)}`;
  return (
    <ActionsCard
      context={context}
      subject={ct(context.lang, 'payoutActions.subject.batch', { number: batch.batchNumber })}
      verdicts={BATCH_ACTIONS.map((a) => [a, batchVerdict(context.user, batch, a, today)] as const)}
      path={(action) => batchActionPath(batch.batchNumber, action)}
      problem={p.problem}
      transferHint={ct(context.lang, 'payoutActions.transferHint', { amount })}
    />
  );
}

// The actions card of a batch or a single payout (issue 19): one POST form per action this user may
// take now (payouts/actions.ts decides; the service refuses the rest anyway), each with the
// CSRF field and its own form key. The steps that stop a payout for good, and those that move money
// (issue 27: transferring a batch's funds, approving a single payout, creating one from the form),
// ask first without needing JavaScript: a <details> disclosure opens a second form, reject's with
// its required reason, a money step's with what it debits (disbursements/preview.ts) and the field
// `confirmed`, without which the route shows this confirmation instead of acting.
// Four eyes are explained where they hide a step the role would allow.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { formatMajor } from '../../../../lib/money.ts';
import type { BatchAction } from '../../../disbursements/lifecycle.ts';
import type { DebitPreview } from '../../../disbursements/preview.ts';
import { FormKey } from '../../kit/actions.tsx';
import { batchVerdict, type BatchFacts, type Verdict } from '../../../disbursements/may-act.ts';
import { BATCH_ACTIONS } from '../actions.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { Money } from '../../kit/lists.tsx';
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

/** The form field a money step's confirmation carries; the route acts only when it says yes. */
export const CONFIRMED_FIELD = 'confirmed';

/** What a money step debits: amount, fee, their sum, and the disbursement balance now and after. */
export function DebitFigures(p: { lang: ConsoleContext['lang']; debit: DebitPreview }): SafeHtml {
  const { lang, debit } = p;
  const row = (id: string, key: TextKey, minor: number) => (
    <div class="fact" id={`debit-${id}`}>
      <dt>{ct(lang, key)}</dt>
      <dd>
        <Money minor={minor} currencyCode={debit.currencyCode} />
      </dd>
    </div>
  );
  return (
    <>
      <dl class="debit-figures">
        {row('amount', 'payoutActions.debit.amount', debit.amountMinor)}
        {row('fee', 'payoutActions.debit.fee', debit.feeMinor)}
        {row('total', 'payoutActions.debit.total', debit.debitMinor)}
        {row('balance', 'payoutActions.debit.balance', debit.balanceMinor)}
        {row('after', 'payoutActions.debit.after', debit.balanceAfterMinor)}
      </dl>
      {debit.balanceAfterMinor < 0 ? (
        <p class="field-error" id="debit-short">
          {ct(lang, 'payoutActions.debit.short')}
        </p>
      ) : null}
    </>
  );
}

/** The steps that ask first: those that stop a payout for good, and those that move money (with their preview). */
export type ConfirmStep = 'reject' | 'cancel' | 'transferFunds' | 'approve' | 'create';

/**
 * A step that asks first: a disclosure (open when the page is answering for it), then the form that
 * does it, with its warning, what it debits for a money step, and its button.
 */
export function Confirm(p: {
  context: ConsoleContext;
  action: ConfirmStep;
  subject: string;
  path: string;
  problem?: ActionProblem;
  debit?: DebitPreview;
  open?: boolean;
  /** The warning, when not the action's own (the single-payout form's names the payee). */
  text?: string;
  /** Fields the form sends again (the single-payout form's values). */
  fields?: Record<string, string>;
  /** The button's text, when not the action's own. */
  button?: string;
}): SafeHtml {
  const lang = p.context.lang;
  const open = p.open || (p.problem?.action === p.action && p.problem.reasonError !== undefined);
  const stops = p.action === 'reject' || p.action === 'cancel';
  const total = p.debit ? `${p.debit.currencyCode} ${formatMajor(p.debit.debitMinor)}` : '';
  return (
    <details class="confirm" id={`confirm-${p.action}`} open={open}>
      <summary class="link-button" id={`open-${p.action}`}>
        {ct(lang, `payoutActions.button.${p.action}`)}
      </summary>
      <form method="post" action={p.path} class={stops ? 'confirm-form' : 'confirm-form confirm-money'}>
        <Hidden context={p.context} />
        {Object.entries(p.fields ?? {}).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        {stops ? null : <input type="hidden" name={CONFIRMED_FIELD} value="yes" />}
        {/* Opened by the server (the page answers for this step): focus, and so scroll, to it. */}
        <p id={`confirm-${p.action}-text`} tabindex={p.open ? '-1' : undefined} autofocus={Boolean(p.open)}>
          {p.text ?? ct(lang, `payoutActions.${p.action}Warning`, { subject: p.subject })}
        </p>
        {p.debit ? <DebitFigures lang={lang} debit={p.debit} /> : null}
        {p.action === 'reject' ? <ReasonField context={p.context} problem={p.problem} /> : null}
        <button class={stops ? 'button button-danger' : 'button'} type="submit" id={`action-${p.action}`}>
          {p.button ?? ct(lang, `payoutActions.confirm.${p.action}`, { subject: p.subject, amount: total })}
        </button>
        <p class="hint">{ct(lang, stops ? 'payoutActions.keep' : 'payoutActions.debit.keep', { button: ct(lang, `payoutActions.button.${p.action}`) })}</p>
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
  /** What each step that moves money would debit: those steps ask first, showing it. */
  debits?: Partial<Record<BatchAction, DebitPreview>>;
  /** The step whose confirmation the page answers for (a POST without it), shown open. */
  confirming?: BatchAction;
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
  const asks = (a: BatchAction) => a === 'reject' || a === 'cancel' || p.debits?.[a] !== undefined;
  const buttons = allowed.filter((a) => !asks(a));
  const confirms = allowed.filter(asks) as Array<BatchAction & ConfirmStep>;
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
      {confirms.length > 0 ? (
        <div class="confirms">
          {confirms.map((action) => (
            <Confirm context={context} action={action} subject={p.subject} path={p.path(action)} problem={problem} debit={p.debits?.[action]} open={p.confirming === action} />
          ))}
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
  /** What transferring its funds would debit (its confirmation shows it), and whether the page answers for it. */
  transfer?: DebitPreview;
  confirming?: BatchAction;
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
      debits={p.transfer ? { transferFunds: p.transfer } : undefined}
      confirming={p.confirming}
    />
  );
}

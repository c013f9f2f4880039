// Single payouts in the console (issue 19): the form that creates one (the fields of the API's
// single/add, each refused with its own message, the user's input shown again), one payout's
// page, with its facts and the actions card (review, approve, reject while it awaits them), and
// their list, in the rows of a batch's lines (payouts.tsx PayoutHead, PayoutCells).
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { formatMajor } from '../../../../lib/money.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConnectorRow } from '../../../connectors/repository.ts';
import type { PayoutRow } from '../../../disbursements/repository.ts';
import { payableAmount, singleStage } from '../../../disbursements/lifecycle.ts';
import { PayoutInputFields } from '../../../disbursements/schemas.ts';
import { FormKey } from '../../kit/actions.tsx';
import { singleVerdict } from '../../../disbursements/may-act.ts';
import { mayCapture, SINGLE_ACTIONS } from '../actions.ts';
import type { SinglePayoutItem } from '../queries.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { TEST_WALLETS } from '../../../disbursements/sandbox.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { Cell, Money, Pager, Results, When, withQuery } from '../../kit/lists.tsx';
import { ActionsCard, Confirm, NEW_SINGLE_PATH, singleActionPath, singlePayoutPath, type ActionProblem } from './payout-actions.tsx';
import type { DebitPreview } from '../../../disbursements/preview.ts';
import type { BatchAction } from '../../../disbursements/lifecycle.ts';
import { lineStatusName, LineSearch, PayoutCells, PayoutExportLinks, PayoutHead, PAYOUTS_PATH, REGIONS, SINGLE_PAYOUTS_PATH, Tabs, type LineFilterValues } from './payouts.tsx';
import { Alerts } from '../../kit/display.tsx';

/** The form's fields: the API's own names (single/add). */
export const SINGLE_FIELDS = ['connectorId', 'beneficiaryAccountNumber', 'beneficiaryName', 'transactionAmount', 'sourceReferenceNumber', 'transactionDescription'] as const;
export type SingleField = (typeof SINGLE_FIELDS)[number];
export type SingleFormValues = Record<SingleField, string>;

/** The API's length limits (disbursements/schemas.ts PayoutInputFields). */
export const MAX_LENGTHS = {
  beneficiaryAccountNumber: PayoutInputFields.beneficiaryAccountNumber.maxLength!,
  beneficiaryName: PayoutInputFields.beneficiaryName.maxLength!,
  sourceReferenceNumber: PayoutInputFields.sourceReferenceNumber.maxLength!,
  transactionDescription: PayoutInputFields.transactionDescription.maxLength!,
} as const satisfies Partial<Record<SingleField, number>>;

/** What the payout the form describes would debit, and through which connector (its confirmation). */
export type SinglePreview = DebitPreview & { connectorName: string };

export interface FormProblem {
  /** A refusal that is no one field's. */
  message?: string;
  fields: Partial<Record<SingleField, string>>;
}

const LABELS: Record<SingleField, TextKey> = {
  connectorId: 'payoutActions.field.connector',
  beneficiaryAccountNumber: 'payoutActions.field.account',
  beneficiaryName: 'payoutActions.field.name',
  transactionAmount: 'payoutActions.field.amount',
  sourceReferenceNumber: 'payoutActions.field.reference',
  transactionDescription: 'payoutActions.field.description',
};

function Breadcrumbs(p: { context: ConsoleContext; here: string }): SafeHtml {
  const lang = p.context.lang;
  return (
    <nav class="breadcrumbs" aria-label={ct(lang, 'payouts.breadcrumbs')}>
      <ol>
        <li>
          <a href={PAYOUTS_PATH}>{ct(lang, 'payouts.title')}</a>
        </li>
        <li>
          <a href={SINGLE_PAYOUTS_PATH}>{ct(lang, 'payouts.singleTab')}</a>
        </li>
        <li>
          <span aria-current="page">{p.here}</span>
        </li>
      </ol>
    </nav>
  );
}

/** A field's label, its control (given the ids to describe it by), its message when refused, and its hint. */
function Field(p: { lang: ConsoleContext['lang']; name: SingleField; problem: FormProblem; hint?: string; control: (describedBy: string, invalid: boolean) => SafeHtml }): SafeHtml {
  const error = p.problem.fields[p.name];
  const describedBy = [error ? `${p.name}-error` : '', p.hint ? `${p.name}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={p.name}>{ct(p.lang, LABELS[p.name])}</label>
      {error ? (
        <p class="field-error" id={`${p.name}-error`}>
          {error}
        </p>
      ) : null}
      {p.control(describedBy, Boolean(error))}
      {p.hint ? (
        <p class="hint" id={`${p.name}-hint`}>
          {p.hint}
        </p>
      ) : null}
    </div>
  );
}

function TextField(p: { lang: ConsoleContext['lang']; name: SingleField; values: SingleFormValues; problem: FormProblem; hint?: string; required?: boolean; maxlength?: number; inputmode?: string; autocomplete?: string }): SafeHtml {
  return (
    <Field
      lang={p.lang}
      name={p.name}
      problem={p.problem}
      hint={p.hint}
      control={(describedBy, invalid) => (
        <input
          type="text"
          id={p.name}
          name={p.name}
          value={p.values[p.name]}
          required={p.required ?? true}
          maxlength={p.maxlength}
          inputmode={p.inputmode}
          autocomplete={p.autocomplete ?? 'off'}
          spellcheck="false"
          aria-invalid={invalid ? 'true' : undefined}
          aria-describedby={describedBy || undefined}
        />
      )}
    />
  );
}

/** The connectors of one channel (wallets M, banks B), the one chosen selected. */
function ConnectorGroup(p: { lang: ConsoleContext['lang']; connectors: ConnectorRow[]; channel: 'M' | 'B'; chosen: string }): SafeHtml {
  return (
    <optgroup label={ct(p.lang, p.channel === 'M' ? 'payoutActions.field.wallets' : 'payoutActions.field.banks')}>
      {p.connectors
        .filter((c) => c.channel_code === p.channel)
        .map((c) => (
          <option value={c.connector_id} selected={p.chosen === String(c.connector_id)}>
            {c.connector_name}
          </option>
        ))}
    </optgroup>
  );
}

function ConnectorField(p: { lang: ConsoleContext['lang']; connectors: ConnectorRow[]; values: SingleFormValues; problem: FormProblem }): SafeHtml {
  const { lang } = p;
  return (
    <Field
      lang={lang}
      name="connectorId"
      problem={p.problem}
      control={(describedBy, invalid) => (
        <select id="connectorId" name="connectorId" required aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy || undefined}>
          <option value="">{ct(lang, 'payoutActions.field.choose')}</option>
          <ConnectorGroup lang={lang} connectors={p.connectors} channel="M" chosen={p.values.connectorId} />
          <ConnectorGroup lang={lang} connectors={p.connectors} channel="B" chosen={p.values.connectorId} />
        </select>
      )}
    />
  );
}

/** Why the form was refused, at its top: the refusal that is no one field's, and a link to each refused field. */
function FormErrors(p: { lang: ConsoleContext['lang']; problem: FormProblem; refused: SingleField[] }): SafeHtml | null {
  const { lang, problem, refused } = p;
  if (!problem.message && !refused.length) return null;
  return (
    <div class="alert alert-error" role="alert" id="form-error" tabindex="-1" autofocus>
      {problem.message ? <p>{problem.message}</p> : null}
      {refused.length ? (
        <>
          <p>{ct(lang, 'payoutActions.fixFields')}</p>
          <ul>
            {refused.map((f) => (
              <li>
                <a href={`#${f}`}>{ct(lang, LABELS[f])}</a>: {problem.fields[f] ?? ''}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/**
 * The form's confirmation, open under it once its fields pass: the payee, what it debits (now, or once
 * approved), and the button that sends the same values with `confirmed`.
 */
function CreateConfirm(p: { context: ConsoleContext; values: SingleFormValues; preview: SinglePreview }): SafeHtml {
  const { context, values, preview } = p;
  const lang = context.lang;
  const payee = { name: values.beneficiaryName, account: values.beneficiaryAccountNumber, connector: preview.connectorName };
  const amount = `${preview.currencyCode} ${formatMajor(preview.debitMinor)}`;
  return (
    <div class="confirms">
      <Confirm
        context={context}
        action="create"
        subject=""
        path={NEW_SINGLE_PATH}
        debit={preview}
        open
        text={ct(lang, preview.debitedNow ? 'payoutActions.createWarning' : 'payoutActions.createLaterWarning', payee)}
        button={preview.debitedNow ? ct(lang, 'payoutActions.confirm.create', { amount }) : ct(lang, 'payoutActions.confirm.createLater')}
        fields={values}
      />
    </div>
  );
}

export function SingleFormPage(p: {
  context: ConsoleContext;
  connectors: ConnectorRow[];
  levelNumber: number;
  currencyCode: string;
  values: SingleFormValues;
  problem?: FormProblem;
  preview?: SinglePreview;
}): SafeHtml {
  const { context, values } = p;
  const lang = context.lang;
  const problem = p.problem ?? { fields: {} };
  const title = ct(lang, 'payoutActions.newSingle');
  const refused = SINGLE_FIELDS.filter((f) => problem.fields[f]);
  return (
    <Layout context={context} title={refused.length || problem.message ? ct(lang, 'payoutActions.notSaved', { title }) : title} section="payouts" languageUrl={NEW_SINGLE_PATH}>
      <Breadcrumbs context={context} here={title} />
      <h1>{title}</h1>
      <p class="lead" id="level-text">
        {ct(lang, `payoutActions.level.${Math.min(Math.max(p.levelNumber, 1), 3)}` as TextKey)}
      </p>
      <FormErrors lang={lang} problem={problem} refused={refused} />
      <form method="post" action={NEW_SINGLE_PATH} class="card single-form" id="single-form" novalidate>
        <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
        <FormKey />
        <ConnectorField lang={lang} connectors={p.connectors} values={values} problem={problem} />
        <TextField lang={lang} name="beneficiaryAccountNumber" values={values} problem={problem} hint={context.sandbox ? ct(lang, 'payoutActions.field.accountHintSandbox', { example: TEST_WALLETS[0] }) : ct(lang, 'payoutActions.field.accountHint')} maxlength={MAX_LENGTHS.beneficiaryAccountNumber} inputmode="numeric" />
        <TextField lang={lang} name="beneficiaryName" values={values} problem={problem} maxlength={MAX_LENGTHS.beneficiaryName} autocomplete="name" />
        <TextField lang={lang} name="transactionAmount" values={values} problem={problem} hint={ct(lang, 'payoutActions.field.amountHint', { currency: p.currencyCode })} inputmode="decimal" />
        <TextField lang={lang} name="sourceReferenceNumber" values={values} problem={problem} hint={ct(lang, 'payoutActions.field.referenceHint', { max: MAX_LENGTHS.sourceReferenceNumber })} maxlength={MAX_LENGTHS.sourceReferenceNumber} />
        <TextField
          lang={lang}
          name="transactionDescription"
          values={values}
          problem={problem}
          hint={ct(lang, 'payoutActions.field.descriptionHint', { max: MAX_LENGTHS.transactionDescription })}
          maxlength={MAX_LENGTHS.transactionDescription}
          required={false}
        />
        <button class="button" type="submit" id="create-single">
          {ct(lang, 'payoutActions.create')}
        </button>
      </form>
      {p.preview ? <CreateConfirm context={context} values={values} preview={p.preview} /> : null}
    </Layout>
  );
}

function Fact(p: { id: string; label: string; children?: SafeHtml | string | number | null | Array<SafeHtml | null> }): SafeHtml {
  return (
    <div class="fact" id={`payout-${p.id}`}>
      <dt>{p.label}</dt>
      <dd>{p.children}</dd>
    </div>
  );
}

/** Who did a step and when, or nothing when it has not happened. */
function Step(p: { id: string; label: string; who: string | null; at: Date | null; lang: ConsoleContext['lang']; extra?: string | null }): SafeHtml | null {
  if (!p.who) return null;
  return (
    <Fact id={p.id} label={p.label}>
      <span class="who">{p.who}</span>
      <span class="when">
        <When at={p.at} lang={p.lang} />
      </span>
      {p.extra ? <span class="sub">{p.extra}</span> : null}
    </Fact>
  );
}

/** The payout's facts: its status (and whom it waits for), beneficiary, amounts, references, and who took each step. */
function PayoutDetails(p: { lang: ConsoleContext['lang']; payout: PayoutRow }): SafeHtml {
  const { lang, payout } = p;
  const level = payout.level_number ?? 1;
  const stage = singleStage(payout.status_code, payout.reviewed_by);
  const waiting = stage === 'pending' ? (level === 3 ? 'payouts.awaitingReview' : 'payouts.awaitingApproval') : stage === 'reviewed' ? 'payouts.awaitingApproval' : null;
  return (
    <section class="card" aria-labelledby="payout-facts-title">
      <h2 id="payout-facts-title">{ct(lang, 'payouts.details')}</h2>
      <dl class="facts">
        <Fact id="status" label={ct(lang, 'payouts.col.status')}>
          <span class={`status status-line-${payout.status_code}`}>{lineStatusName(lang, payout.status_code)}</span>
          {waiting ? <span class="sub">{ct(lang, waiting)}</span> : null}
        </Fact>
        <Fact id="beneficiary" label={ct(lang, 'payouts.col.beneficiary')}>
          <span class="beneficiary-name">{payout.beneficiary_name}</span>
          <span class="sub">{payout.beneficiary_account_number}</span>
        </Fact>
        <Fact id="connector" label={ct(lang, 'payouts.col.connector')}>
          {payout.connector_name ?? String(payout.connector_id)}
        </Fact>
        <Fact id="amount" label={ct(lang, 'payouts.col.amount')}>
          <Money minor={payableAmount(payout)} currencyCode={payout.currency_code} />
        </Fact>
        <Fact id="fee" label={ct(lang, 'payouts.col.fee')}>
          <Money minor={payout.fee_minor} currencyCode={payout.currency_code} />
        </Fact>
        <Fact id="reference" label={ct(lang, 'payoutActions.yourReference')}>
          {payout.source_reference_number}
        </Fact>
        {payout.transaction_description ? (
          <Fact id="description" label={ct(lang, 'payoutActions.description')}>
            {payout.transaction_description}
          </Fact>
        ) : null}
        <Fact id="level" label={ct(lang, 'payouts.authorisation')}>
          {ct(lang, `payouts.level.${Math.min(Math.max(level, 1), 3)}` as TextKey)}
        </Fact>
        <Step lang={lang} id="captured" label={ct(lang, 'payouts.captured')} who={payout.captured_by} at={payout.created_at} />
        <Step lang={lang} id="reviewed" label={ct(lang, 'payouts.reviewed')} who={payout.reviewed_by} at={payout.date_reviewed} />
        <Step lang={lang} id="approved" label={ct(lang, 'payouts.approved')} who={payout.approved_by} at={payout.date_approved} />
        <Step
          lang={lang}
          id="rejected"
          label={ct(lang, 'payouts.rejected')}
          who={payout.rejected_by}
          at={payout.date_rejected}
          extra={payout.rejection_reason ? ct(lang, 'payouts.reason', { reason: payout.rejection_reason }) : null}
        />
        {payout.response_code || payout.response_message ? (
          <Fact id="outcome" label={ct(lang, 'payouts.col.outcome')}>
            {[payout.response_code, payout.response_message].filter(Boolean).join(' ')}
          </Fact>
        ) : null}
      </dl>
    </section>
  );
}

export function SinglePayoutPage(p: {
  context: ConsoleContext;
  payout: PayoutRow;
  problem?: ActionProblem;
  notice?: string;
  /** While it awaits approval: what approving it debits (its confirmation shows it), and whether the page answers for that. */
  approval?: DebitPreview;
  confirming?: BatchAction;
}): SafeHtml {
  const { context, payout } = p;
  const lang = context.lang;
  const reference = payout.transaction_reference_number;
  const title = ct(lang, 'payoutActions.payoutTitle', { reference });
  const level = payout.level_number ?? 1;
  const facts = { statusCode: payout.status_code, levelNumber: level, capturedBy: payout.captured_by, reviewedBy: payout.reviewed_by };
  return (
    <Layout context={context} title={title} section="payouts" languageUrl={`${SINGLE_PAYOUTS_PATH}/${reference}`}>
      <Breadcrumbs context={context} here={title} />
      <h1 id="payout-title">{title}</h1>
      <Alerts notice={p.notice} />
      <ActionsCard
        context={context}
        subject={ct(lang, 'payoutActions.subject.payout', { reference })}
        verdicts={SINGLE_ACTIONS.map((a) => [a, singleVerdict(context.user, facts, a)] as const)}
        path={(action) => singleActionPath(reference, action)}
        problem={p.problem}
        debits={p.approval ? { approve: p.approval } : undefined}
        confirming={p.confirming}
      />
      <PayoutDetails lang={lang} payout={payout} />
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// Their list (read-only, part 1: payouts/routes/payouts.ts)

/** Who a single payout waits for, while it waits. */
function singleWaiting(lang: Lang, item: SinglePayoutItem): string | null {
  if (item.stage === 'pending') return ct(lang, item.levelNumber === 3 ? 'payouts.awaitingReview' : 'payouts.awaitingApproval');
  if (item.stage === 'reviewed') return ct(lang, 'payouts.awaitingApproval');
  if (item.rejectedBy) return ct(lang, 'payouts.rejectedBy', { who: item.rejectedBy });
  return null;
}

export function SingleResults(p: { lang: Lang; page: Page<SinglePayoutItem>; filter: LineFilterValues; swapped: boolean }): SafeHtml {
  const { lang, page, filter } = p;
  return (
    <Results id={REGIONS.single} title={ct(lang, 'payouts.singleTab')} swapped={p.swapped}>
      {page.items.length > 0 ? (
        <PayoutExportLinks lang={lang} id="single-export" base={SINGLE_PAYOUTS_PATH} filters={{ search: filter.search, status: filter.status }} hint="payouts.downloadSinglesHint" />
      ) : null}
      {page.items.length === 0 ? (
        <p class="empty" id="single-empty">
          {ct(lang, 'payouts.noSingles')}
        </p>
      ) : (
        <table class="stack-table" id="single-table">
          <caption class="visually-hidden">{ct(lang, 'payouts.singleCaption')}</caption>
          <PayoutHead lang={lang} first="payouts.col.date" />
          <tbody>
            {page.items.map((item) => (
              <tr id={`single-${item.transactionReferenceNumber}`} data-reference={item.transactionReferenceNumber}>
                <Cell row label={ct(lang, 'payouts.col.date')}>
                  <a href={singlePayoutPath(item.transactionReferenceNumber)}>
                    <When at={item.dateCreated} lang={lang} />
                  </a>
                </Cell>
                <PayoutCells lang={lang} item={item} extraStatus={singleWaiting(lang, item)} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        lang={lang}
        label={ct(lang, 'payouts.singlePages')}
        target={REGIONS.single}
        firstUrl={withQuery(SINGLE_PAYOUTS_PATH, { search: filter.search, status: filter.status })}
        nextUrl={page.next ? withQuery(SINGLE_PAYOUTS_PATH, { search: filter.search, status: filter.status, after: page.next }) : null}
        onFirstPage={!filter.after}
      />
    </Results>
  );
}

export function SinglePage(p: { context: ConsoleContext; page: Page<SinglePayoutItem>; filter: LineFilterValues }): SafeHtml {
  const lang = p.context.lang;
  return (
    <Layout context={p.context} title={ct(lang, 'payouts.singleTab')} section="payouts">
      <h1>{ct(lang, 'payouts.title')}</h1>
      <Tabs lang={lang} current="single" />
      {mayCapture(p.context.user.roleCode) ? (
        <p>
          <a class="button" href={NEW_SINGLE_PATH} id="new-single">
            {ct(lang, 'payoutActions.newSingle')}
          </a>
        </p>
      ) : null}
      <p class="lead">{ct(lang, 'payouts.singleIntro')}</p>
      <LineSearch lang={lang} prefix="single" action={SINGLE_PAYOUTS_PATH} region={REGIONS.single} label={ct(lang, 'payouts.searchSingles')} filter={p.filter} />
      <SingleResults lang={lang} page={p.page} filter={p.filter} swapped={false} />
    </Layout>
  );
}

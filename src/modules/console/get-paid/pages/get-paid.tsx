// Getting paid: the forms that make a request to pay (a timed account to give the customer) and a
// hosted checkout link (a page to send them to), the open ones (keyset paged, newest first), and
// one request with its timed account, its amount and the time left to pay it. The time left is a
// sentence in UTC without JavaScript; getting-paid.js makes it a clock that ticks every second and
// announces only a few milestones through a polite live region, and makes the copy button work.
import { h, type Child, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { requestReference, type PaymentRequestItem } from '../../../collections/payment-requests.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ActionFields, Field, FormProblem, type FormState } from '../../kit/forms.tsx';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { collectionPath, paymentRequestPath, SECTION_PATHS } from '../../kit/paths.ts';
import { Cell, formatInstant, Money, Pager, Results, withQuery } from '../../kit/lists.tsx';
import { Alerts, timeLeftText } from '../../kit/display.tsx';

export const GET_PAID_PATH = SECTION_PATHS.getPaid;
/** POST: a new request to pay. GET REQUESTS_PATH/:id: one request (or checkout). */
export const REQUESTS_PATH = `${GET_PAID_PATH}/requests`;
/** POST: a new hosted checkout link. */
export const CHECKOUTS_PATH = `${GET_PAID_PATH}/checkouts`;
export const requestPath = paymentRequestPath;
/** The region htmx swaps when the open list pages. */
export const OPEN_REGION = 'open-requests';
/** Where the sandbox tools pay a timed account (a link from an open request, sandbox mode only). */
export const SANDBOX_PAY_PATH = SECTION_PATHS.sandbox;

// ---------------------------------------------------------------------------------------------
// Forms


export const REQUEST_FIELDS = ['amount', 'description', 'reference'] as const;
export type RequestField = (typeof REQUEST_FIELDS)[number];
export const CHECKOUT_FIELDS = ['amount', 'description', 'sourceReference', 'successUrl', 'failureUrl'] as const;
export type CheckoutField = (typeof CHECKOUT_FIELDS)[number];


function requestLabels(lang: Lang): Record<RequestField, string> {
  return { amount: ct(lang, 'form.amount'), description: ct(lang, 'getPaid.description'), reference: ct(lang, 'getPaid.reference') };
}

function checkoutLabels(lang: Lang): Record<CheckoutField, string> {
  return {
    amount: ct(lang, 'form.amount'),
    description: ct(lang, 'getPaid.description'),
    sourceReference: ct(lang, 'getPaid.sourceReference'),
    successUrl: ct(lang, 'getPaid.successUrl'),
    failureUrl: ct(lang, 'getPaid.failureUrl'),
  };
}

/** Limits the forms state to people (the routes check the same ones, read from the API's schemas). */
export interface GetPaidLimits {
  currencyCode: string;
  minAmount: string;
  maxAmount: string;
  descriptionMaxLength: number;
  referenceMaxLength: number;
  sourceReferenceMaxLength: number;
  urlMaxLength: number;
  expiryMinutes: number;
}

/** The amount both forms ask for, with the merchant's currency and its E12 limits. */
function AmountField(p: { form: string; lang: ConsoleContext['lang']; value: string; error?: string; limits: GetPaidLimits }): SafeHtml {
  const { lang, limits } = p;
  return (
    <Field
      form={p.form}
      name="amount"
      label={ct(lang, 'form.amountIn', { currency: limits.currencyCode })}
      hint={ct(lang, 'form.amountHint', { min: limits.minAmount, max: limits.maxAmount })}
      value={p.value}
      error={p.error}
      inputmode="decimal"
      maxlength={20}
    />
  );
}

function RequestForm(p: { context: ConsoleContext; state: FormState<RequestField>; limits: GetPaidLimits }): SafeHtml {
  const { context, state, limits } = p;
  const lang = context.lang;
  const form = 'rtp';
  return (
    <section class="card get-paid-card" aria-labelledby="rtp-title" id="request-to-pay">
      <h2 id="rtp-title">{ct(lang, 'getPaid.requestTitle')}</h2>
      <p>{ct(lang, 'getPaid.requestIntro', { minutes: limits.expiryMinutes })}</p>
      <FormProblem lang={lang} form={form} state={state} labels={requestLabels(lang)} />
      <form method="post" action={REQUESTS_PATH} id="rtp-form" novalidate>
        <ActionFields context={context} />
        <AmountField form={form} lang={lang} value={state.values.amount} error={state.errors.amount} limits={limits} />
        <Field form={form} name="description" label={ct(lang, 'getPaid.description')} hint={ct(lang, 'getPaid.descriptionHint')} value={state.values.description} error={state.errors.description} maxlength={limits.descriptionMaxLength} />
        <Field
          form={form}
          name="reference"
          label={ct(lang, 'getPaid.reference')}
          hint={ct(lang, 'getPaid.referenceHint', { max: limits.referenceMaxLength })}
          value={state.values.reference}
          error={state.errors.reference}
          maxlength={limits.referenceMaxLength}
          spellcheck={false}
        />
        <button class="button" type="submit" id="rtp-submit">
          {ct(lang, 'getPaid.requestSubmit')}
        </button>
      </form>
    </section>
  );
}

function CheckoutForm(p: { context: ConsoleContext; state: FormState<CheckoutField>; limits: GetPaidLimits }): SafeHtml {
  const { context, state, limits } = p;
  const lang = context.lang;
  const form = 'checkout';
  return (
    <section class="card get-paid-card" aria-labelledby="checkout-title" id="checkout-link">
      <h2 id="checkout-title">{ct(lang, 'getPaid.checkoutTitle')}</h2>
      <p>{ct(lang, 'getPaid.checkoutIntro', { minutes: limits.expiryMinutes })}</p>
      <FormProblem lang={lang} form={form} state={state} labels={checkoutLabels(lang)} />
      <form method="post" action={CHECKOUTS_PATH} id="checkout-form" novalidate>
        <ActionFields context={context} />
        <AmountField form={form} lang={lang} value={state.values.amount} error={state.errors.amount} limits={limits} />
        <Field form={form} name="description" label={ct(lang, 'getPaid.description')} hint={ct(lang, 'getPaid.checkoutDescriptionHint')} value={state.values.description} error={state.errors.description} maxlength={limits.descriptionMaxLength} />
        <Field
          form={form}
          name="sourceReference"
          label={ct(lang, 'getPaid.sourceReference')}
          hint={ct(lang, 'getPaid.sourceReferenceHint', { max: limits.sourceReferenceMaxLength })}
          value={state.values.sourceReference}
          error={state.errors.sourceReference}
          maxlength={limits.sourceReferenceMaxLength}
          spellcheck={false}
        />
        <Field
          form={form}
          name="successUrl"
          type="url"
          label={ct(lang, 'getPaid.successUrl')}
          hint={ct(lang, 'getPaid.successUrlHint')}
          value={state.values.successUrl}
          error={state.errors.successUrl}
          maxlength={limits.urlMaxLength}
          inputmode="url"
          spellcheck={false}
        />
        <Field
          form={form}
          name="failureUrl"
          type="url"
          label={ct(lang, 'getPaid.failureUrl')}
          hint={ct(lang, 'getPaid.failureUrlHint')}
          value={state.values.failureUrl}
          error={state.errors.failureUrl}
          maxlength={limits.urlMaxLength}
          inputmode="url"
          spellcheck={false}
        />
        <button class="button" type="submit" id="checkout-submit">
          {ct(lang, 'getPaid.checkoutSubmit')}
        </button>
      </form>
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// The open ones

export function kindName(lang: Lang, kind: PaymentRequestItem['kind']): string {
  return ct(lang, kind === 'checkout' ? 'getPaid.kind.checkout' : 'getPaid.kind.request');
}

const STATUS_KEYS: Record<PaymentRequestItem['status'], TextKey> = { open: 'getPaid.status.open', paid: 'getPaid.status.paid', expired: 'getPaid.status.expired' };

export function RequestStatusBadge(p: { lang: Lang; status: PaymentRequestItem['status']; id?: string }): SafeHtml {
  const tone = p.status === 'open' ? 'badge-open' : p.status === 'paid' ? 'badge-ok' : 'badge-ended';
  return (
    <span class={`badge ${tone}`} id={p.id}>
      {ct(p.lang, STATUS_KEYS[p.status])}
    </span>
  );
}



export function openListUrl(after?: string): string {
  return withQuery(GET_PAID_PATH, { after });
}

export function OpenRequests(p: { lang: Lang; page: Page<PaymentRequestItem>; after: string; swapped: boolean }): SafeHtml {
  const { lang, page } = p;
  return (
    <Results id={OPEN_REGION} title={ct(lang, 'getPaid.openTitle')} swapped={p.swapped}>
      <p class="results-summary" id="open-summary">
        {page.items.length === 0 ? ct(lang, p.after ? 'getPaid.openNoMore' : 'getPaid.openNone') : ct(lang, 'getPaid.openIntro')}
      </p>
      {page.items.length > 0 ? (
        <table class="stack-table" id="open-table">
          <caption class="visually-hidden">{ct(lang, 'getPaid.openCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{ct(lang, 'getPaid.col.reference')}</th>
              <th scope="col">{ct(lang, 'getPaid.col.kind')}</th>
              <th scope="col">{ct(lang, 'getPaid.col.timedAccount')}</th>
              <th scope="col" class="num">
                {ct(lang, 'getPaid.col.amount')}
              </th>
              <th scope="col">{ct(lang, 'getPaid.col.expires')}</th>
              <th scope="col">{ct(lang, 'getPaid.col.status')}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((r) => (
              <tr id={`open-${r.requestId}`}>
                <Cell label={ct(lang, 'getPaid.col.reference')} row>
                  <a href={requestPath(r.requestId)} class="reference">
                    {requestReference(r)}
                  </a>
                  <span class="sub">{r.description}</span>
                </Cell>
                <Cell label={ct(lang, 'getPaid.col.kind')}>{kindName(lang, r.kind)}</Cell>
                <Cell label={ct(lang, 'getPaid.col.timedAccount')}>
                  <span class="reference">{r.timedAccountNumber}</span>
                </Cell>
                <Cell label={ct(lang, 'getPaid.col.amount')} num minor={r.amountMinor}>
                  <Money minor={r.amountMinor} currencyCode={r.currencyCode} />
                </Cell>
                <Cell label={ct(lang, 'getPaid.col.expires')}>
                  <time datetime={r.expiresAt.toISOString()}>{formatInstant(r.expiresAt)}</time>
                  <span class="sub">{timeLeftText(lang, r.secondsLeft)}</span>
                </Cell>
                <Cell label={ct(lang, 'getPaid.col.status')}>
                  <RequestStatusBadge lang={lang} status={r.status} />
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager lang={lang} label={ct(lang, 'getPaid.openPages')} target={OPEN_REGION} firstUrl={openListUrl()} nextUrl={page.next ? openListUrl(page.next) : null} onFirstPage={!p.after} />
    </Results>
  );
}

export interface GetPaidView {
  context: ConsoleContext;
  notice?: string;
  request: FormState<RequestField>;
  checkout: FormState<CheckoutField>;
  open: Page<PaymentRequestItem>;
  after: string;
  limits: GetPaidLimits;
}

export function GetPaidPage(v: GetPaidView): SafeHtml {
  const { context } = v;
  const lang = context.lang;
  const title = ct(lang, 'getPaid.title');
  return (
    <Layout context={context} title={title} section="getPaid" languageUrl={GET_PAID_PATH}>
      <h1>{title}</h1>
      <p class="lead">{ct(lang, 'getPaid.intro')}</p>
      <Alerts notice={v.notice} />
      <div class="get-paid-forms">
        <RequestForm context={context} state={v.request} limits={v.limits} />
        <CheckoutForm context={context} state={v.checkout} limits={v.limits} />
      </div>
      <OpenRequests lang={lang} page={v.open} after={v.after} swapped={false} />
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// One request

/** mm:ss (h:mm:ss from an hour): what the script shows, rendered first by the server. */
export function clockText(secondsLeft: number): string {
  const s = Math.max(0, Math.floor(secondsLeft));
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor(s / 3600);
  const rest = `${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return hours > 0 ? `${hours}:${rest}` : rest;
}

/**
 * The time left to pay: without the script, the expiry in UTC and about how long that is; with
 * it (getting-paid.js, [data-expires-at]) a clock (role timer: never announced by itself) and, at
 * 5 minutes, 1 minute and the end only, a sentence in the polite live region.
 */
export function Countdown(p: { lang: Lang; expiresAt: Date; secondsLeft: number }): SafeHtml {
  const { lang } = p;
  return (
    <div
      class="countdown"
      id="countdown"
      data-expires-at={p.expiresAt.toISOString()}
      data-seconds-left={p.secondsLeft}
      data-say-300={ct(lang, 'getPaid.say5')}
      data-say-60={ct(lang, 'getPaid.say1')}
      data-say-0={ct(lang, 'getPaid.sayExpired')}
      data-expired-text={ct(lang, 'getPaid.status.expired')}
    >
      <p class="countdown-expiry" id="expiry-text">
        {ct(lang, 'getPaid.payBefore')} <time datetime={p.expiresAt.toISOString()}>{formatInstant(p.expiresAt)}</time>{' '}
        <span class="muted">({timeLeftText(lang, p.secondsLeft)})</span>
      </p>
      <p class="countdown-clock" data-countdown-clock hidden>
        <span class="countdown-label">{ct(lang, 'getPaid.timeLeft')}</span>{' '}
        <span class="countdown-value" role="timer" id="countdown-value" data-countdown-value>
          {clockText(p.secondsLeft)}
        </span>
      </p>
      <p class="visually-hidden" aria-live="polite" aria-atomic="true" id="countdown-live" data-countdown-live></p>
    </div>
  );
}

/** A read-only copy of `value` with a copy button (the script shows the button and copies). */
export function CopyField(p: { lang: Lang; id: string; label: string; value: string; hint?: Child }): SafeHtml {
  return (
    <div class="field copy-field">
      <label for={p.id}>{p.label}</label>
      <div class="copy-row">
        <input type="text" id={p.id} value={p.value} readonly spellcheck="false" autocomplete="off" aria-describedby={`${p.id}-status`} />
        <button class="link-button copy-button" type="button" data-copy-from={p.id} data-copied-text={ct(p.lang, 'getPaid.copied')} data-copy-failed-text={ct(p.lang, 'getPaid.copyFailed')} id={`${p.id}-copy`} hidden>
          {ct(p.lang, 'getPaid.copy')}
        </button>
      </div>
      <p class="hint copy-status" id={`${p.id}-status`} role="status" data-copy-status={p.id}>
        {p.hint}
      </p>
    </div>
  );
}

function Fact(p: { label: string; id?: string; children?: Child }): SafeHtml {
  return (
    <div class="fact">
      <dt>{p.label}</dt>
      <dd id={p.id}>{p.children}</dd>
    </div>
  );
}

/** An open request: what the customer pays (the timed account or the link), and the time left. */
function PayCard(p: { context: ConsoleContext; request: PaymentRequestItem; checkoutUrl?: string }): SafeHtml {
  const { context, request: r } = p;
  const lang = context.lang;
  return (
    <section class="card pay-card" aria-labelledby="pay-title">
      <h2 id="pay-title">{ct(lang, r.kind === 'checkout' ? 'getPaid.shareTitle' : 'getPaid.giveTitle')}</h2>
      {p.checkoutUrl ? (
        <CopyField lang={lang} id="checkout-url" label={ct(lang, 'getPaid.linkLabel')} value={p.checkoutUrl} hint={ct(lang, 'getPaid.linkHint')} />
      ) : null}
      <dl class="pay-figures">
        <div class="pay-figure">
          <dt>{ct(lang, 'getPaid.timedAccount')}</dt>
          <dd class="timed-account" id="timed-account">
            {r.timedAccountNumber}
          </dd>
        </div>
        <div class="pay-figure">
          <dt>{ct(lang, 'getPaid.amountToPay')}</dt>
          <dd class="pay-amount" id="pay-amount">
            <Money minor={r.amountMinor} currencyCode={r.currencyCode} />
          </dd>
        </div>
      </dl>
      <p class="hint">{ct(lang, r.kind === 'checkout' ? 'getPaid.checkoutExact' : 'getPaid.exactAmount')}</p>
      <Countdown lang={lang} expiresAt={r.expiresAt} secondsLeft={r.secondsLeft} />
      {context.sandbox ? (
        <p>
          <a href={withQuery(SANDBOX_PAY_PATH, { timedAccount: r.timedAccountNumber })} id="pay-in-sandbox">
            {ct(lang, 'getPaid.payInSandbox')}
          </a>
        </p>
      ) : null}
    </section>
  );
}

/** A request no longer open: when it was paid (and its collection), or when it expired. */
function RequestOutcome(p: { lang: Lang; request: PaymentRequestItem }): SafeHtml {
  const { lang, request: r } = p;
  return r.status === 'paid' ? (
    <p class="alert alert-info" id="request-outcome">
      {ct(lang, 'getPaid.paidText', { at: r.paidAt ? formatInstant(r.paidAt) : '' })}{' '}
      {r.collectionReference ? (
        <a href={collectionPath(r.collectionReference)} id="paid-collection">
          {ct(lang, 'getPaid.seeCollection', { reference: r.collectionReference })}
        </a>
      ) : null}
    </p>
  ) : (
    <p class="alert alert-error" id="request-outcome">
      {ct(lang, 'getPaid.expiredText', { at: formatInstant(r.expiresAt) })}
    </p>
  );
}

/** Everything about the request, whatever its status. */
function RequestDetails(p: { lang: Lang; request: PaymentRequestItem }): SafeHtml {
  const { lang, request: r } = p;
  return (
    <section class="card" aria-labelledby="details-title">
      <h2 id="details-title">{ct(lang, 'getPaid.details')}</h2>
      <dl class="facts">
        <Fact label={ct(lang, 'getPaid.col.status')}>
          <RequestStatusBadge lang={lang} status={r.status} id="request-status" />
        </Fact>
        <Fact label={ct(lang, 'getPaid.col.kind')}>{kindName(lang, r.kind)}</Fact>
        <Fact label={ct(lang, 'getPaid.description')} id="request-description">
          {r.description}
        </Fact>
        {r.kind === 'checkout' ? (
          <Fact label={ct(lang, 'getPaid.sourceReference')} id="request-source-reference">
            {r.sourceReferenceNumber ?? ''}
          </Fact>
        ) : null}
        <Fact label={ct(lang, 'getPaid.apiReference')} id="request-reference">
          <span class="reference">{r.referenceNumber}</span>
        </Fact>
        <Fact label={ct(lang, 'getPaid.timedAccount')}>
          <span class="reference">{r.timedAccountNumber}</span>
        </Fact>
        <Fact label={ct(lang, 'getPaid.col.amount')}>
          <Money minor={r.amountMinor} currencyCode={r.currencyCode} />
        </Fact>
        <Fact label={ct(lang, 'getPaid.created')}>
          <time datetime={r.createdAt.toISOString()}>{formatInstant(r.createdAt)}</time>
          <span class="sub">{ct(lang, 'getPaid.createdBy', { who: r.capturedBy })}</span>
        </Fact>
        <Fact label={ct(lang, 'getPaid.col.expires')}>
          <time datetime={r.expiresAt.toISOString()}>{formatInstant(r.expiresAt)}</time>
        </Fact>
      </dl>
    </section>
  );
}

export interface RequestView {
  context: ConsoleContext;
  request: PaymentRequestItem;
  /** The checkout's link (a checkout only). */
  checkoutUrl?: string;
  notice?: string;
}

export function RequestPage(v: RequestView): SafeHtml {
  const { context, request: r } = v;
  const lang = context.lang;
  const reference = requestReference(r);
  const title = ct(lang, r.kind === 'checkout' ? 'getPaid.checkoutHeading' : 'getPaid.requestHeading', { reference });
  return (
    <Layout context={context} title={title} section="getPaid">
      <nav class="breadcrumbs" aria-label={ct(lang, 'layout.breadcrumbs')}>
        <ol>
          <li>
            <a href={GET_PAID_PATH}>{ct(lang, 'getPaid.title')}</a>
          </li>
          <li aria-current="page">{reference}</li>
        </ol>
      </nav>
      <h1 id="request-title">{title}</h1>
      <Alerts notice={v.notice} />
      {r.status === 'open' ? (
        <PayCard context={context} request={r} checkoutUrl={v.checkoutUrl} />
      ) : (
        <RequestOutcome lang={lang} request={r} />
      )}
      <RequestDetails lang={lang} request={r} />
      <p>
        <a href={GET_PAID_PATH} id="back-to-get-paid">
          {ct(lang, 'getPaid.back')}
        </a>
      </p>
    </Layout>
  );
}

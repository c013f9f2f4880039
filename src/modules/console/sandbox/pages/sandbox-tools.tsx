// Sandbox tools (sandbox mode only): simulate a customer paying the merchant's payment account
// (E11), pay one of the merchant's open timed accounts (addFakeTransaction), and the table of the
// magic account suffixes the sandbox's payout connector answers to, drawn from the table the payout
// worker itself uses (disbursements/sandbox.ts), so the page cannot say anything the sandbox does
// not do. A payment's page says what it made: the collection, its reference and the collection
// balance right after it.
import { h, type Child, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { MAGIC_SUFFIXES, SUCCESS, TEST_BANKS, TEST_WALLETS, type Outcome } from '../../../disbursements/sandbox.ts';
import { requestReference, type PaymentRequestItem } from '../../../collections/payment-requests.ts';
import type { ConnectorChoice, PaymentResult } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { collectionPath, paymentRequestPath, SANDBOX_OUTBOX_PATH, SECTION_PATHS } from '../../kit/paths.ts';
import { ActionFields, Field, FormProblem, type FormState } from '../../kit/forms.tsx';
import { Cell, formatInstant, Money } from '../../kit/lists.tsx';
import { Alerts, moneyText, timeLeftText } from '../../kit/display.tsx';

export const SANDBOX_PATH = SECTION_PATHS.sandbox;
/** POST: a customer pays the merchant's payment account (E11). */
export const CUSTOMER_PAYMENT_PATH = `${SANDBOX_PATH}/customer-payments`;
/** POST: a customer pays an open timed account. */
export const TIMED_PAYMENT_PATH = `${SANDBOX_PATH}/timed-account-payments`;
/** GET: what one simulated payment made. */
export const PAYMENTS_PATH = `${SANDBOX_PATH}/payments`;
export const paymentPath = (transactionReferenceNumber: string) => `${PAYMENTS_PATH}/${encodeURIComponent(transactionReferenceNumber)}`;

/** The most open requests the payment form offers (newest first); older ones are paid from the API. */
export const OFFERED_REQUESTS = 20;

export const SIMULATE_FIELDS = ['amount', 'connector'] as const;
export type SimulateField = (typeof SIMULATE_FIELDS)[number];
export const PAY_FIELDS = ['timedAccount', 'connector'] as const;
export type PayField = (typeof PAY_FIELDS)[number];

const OUTCOME_KEYS: Record<Outcome, TextKey> = {
  fail: 'sandboxTools.outcome.fail',
  timeout: 'sandboxTools.outcome.timeout',
  reverse: 'sandboxTools.outcome.reverse',
};

export interface SandboxView {
  context: ConsoleContext;
  notice?: string;
  simulate: FormState<SimulateField>;
  pay: FormState<PayField>;
  connectors: ConnectorChoice[];
  open: PaymentRequestItem[];
  paymentAccountNumber: string;
  currencyCode: string;
  minAmount: string;
  maxAmount: string;
  payoutTimeoutSeconds: number;
  payoutReversalSeconds: number;
  /** Whether to offer the outbox (kit/mail.ts mayReadOutbox: the roles that may invite users). */
  outbox: boolean;
}

function ConnectorSelect(p: { lang: Lang; form: string; connectors: ConnectorChoice[]; value: string; error?: string }): SafeHtml {
  const id = `${p.form}-connector`;
  const known = p.value === '' || p.connectors.some((c) => String(c.connectorId) === p.value);
  return (
    <div class={p.error ? 'field field-invalid' : 'field'}>
      <label for={id}>{ct(p.lang, 'sandboxTools.connector')}</label>
      {p.error ? (
        <p class="field-error" id={`${id}-error`}>
          {p.error}
        </p>
      ) : null}
      <select id={id} name="connector" required aria-invalid={p.error ? 'true' : undefined} aria-describedby={p.error ? `${id}-error` : undefined}>
        <option value="">{ct(p.lang, 'sandboxTools.chooseConnector')}</option>
        {p.connectors.map((c) => (
          <option value={String(c.connectorId)} selected={String(c.connectorId) === p.value}>
            {`${c.connectorName} (${ct(p.lang, c.channelCode === 'M' ? 'sandboxTools.wallet' : 'sandboxTools.bank')})`}
          </option>
        ))}
        {known ? null : (
          <option value={p.value} selected>
            {p.value}
          </option>
        )}
      </select>
    </div>
  );
}

function SimulateForm(v: SandboxView): SafeHtml {
  const { context, simulate: state } = v;
  const lang = context.lang;
  const form = 'simulate';
  return (
    <section class="card sandbox-card" aria-labelledby="simulate-title" id="simulate">
      <h2 id="simulate-title">{ct(lang, 'sandboxTools.simulateTitle')}</h2>
      <p>{ct(lang, 'sandboxTools.simulateIntro', { account: v.paymentAccountNumber })}</p>
      <FormProblem lang={lang} form={form} state={state} labels={{ amount: ct(lang, 'form.amount'), connector: ct(lang, 'sandboxTools.connector') }} />
      <form method="post" action={CUSTOMER_PAYMENT_PATH} id="simulate-form" novalidate>
        <ActionFields context={context} />
        <Field
          form={form}
          name="amount"
          label={ct(lang, 'form.amountIn', { currency: v.currencyCode })}
          hint={ct(lang, 'form.amountHint', { min: v.minAmount, max: v.maxAmount })}
          value={state.values.amount}
          error={state.errors.amount}
          inputmode="decimal"
          maxlength={20}
        />
        <ConnectorSelect lang={lang} form={form} connectors={v.connectors} value={state.values.connector} error={state.errors.connector} />
        <button class="button" type="submit" id="simulate-submit">
          {ct(lang, 'sandboxTools.simulateSubmit')}
        </button>
      </form>
    </section>
  );
}

function PayForm(v: SandboxView): SafeHtml {
  const { context, pay: state } = v;
  const lang = context.lang;
  const form = 'pay';
  const error = state.errors.timedAccount;
  const offered = v.open.some((r) => r.timedAccountNumber === state.values.timedAccount);
  return (
    <section class="card sandbox-card" aria-labelledby="pay-title" id="pay-timed">
      <h2 id="pay-title">{ct(lang, 'sandboxTools.payTitle')}</h2>
      <p>{ct(lang, 'sandboxTools.payIntro')}</p>
      <FormProblem lang={lang} form={form} state={state} labels={{ timedAccount: ct(lang, 'sandboxTools.openRequest'), connector: ct(lang, 'sandboxTools.connector') }} />
      {v.open.length === 0 && !state.values.timedAccount ? (
        <p class="empty" id="pay-none">
          {ct(lang, 'sandboxTools.noneOpen')} <a href={SECTION_PATHS.getPaid}>{ct(lang, 'sandboxTools.createOne')}</a>
        </p>
      ) : (
        <form method="post" action={TIMED_PAYMENT_PATH} id="pay-form" novalidate>
          <ActionFields context={context} />
          <fieldset class={error ? 'field choice-list field-invalid' : 'field choice-list'} id="pay-timedAccount" aria-describedby={error ? 'pay-timedAccount-error' : undefined}>
            <legend>{ct(lang, 'sandboxTools.openRequest')}</legend>
            {error ? (
              <p class="field-error" id="pay-timedAccount-error">
                {error}
              </p>
            ) : null}
            {v.open.map((r) => (
              <div class="radio">
                <input type="radio" id={`pay-ta-${r.timedAccountNumber}`} name="timedAccount" value={r.timedAccountNumber} checked={r.timedAccountNumber === state.values.timedAccount} required />
                <label for={`pay-ta-${r.timedAccountNumber}`}>
                  <span class="reference">{r.timedAccountNumber}</span> <span class="radio-amount">{moneyText(r.currencyCode, r.amountMinor)}</span>
                  <span class="sub">
                    {`${requestReference(r)} · ${r.description} · ${ct(lang, 'sandboxTools.expires', { at: formatInstant(r.expiresAt), left: timeLeftText(lang, r.secondsLeft) })}`}
                  </span>
                </label>
              </div>
            ))}
            {state.values.timedAccount && !offered ? (
              // A choice no longer open (paid or expired since the page was drawn): kept, so the refusal names it.
              <div class="radio">
                <input type="radio" id="pay-ta-gone" name="timedAccount" value={state.values.timedAccount} checked />
                <label for="pay-ta-gone">
                  <span class="reference">{state.values.timedAccount}</span>
                </label>
              </div>
            ) : null}
          </fieldset>
          <ConnectorSelect lang={lang} form={form} connectors={v.connectors} value={state.values.connector} error={state.errors.connector} />
          <button class="button" type="submit" id="pay-submit">
            {ct(lang, 'sandboxTools.paySubmit')}
          </button>
        </form>
      )}
    </section>
  );
}

/** The magic suffixes, from the sandbox connector's own table; each row names its outcome (data-outcome). */
export function SuffixTable(p: { lang: Lang; timeoutSeconds: number; reversalSeconds: number }): SafeHtml {
  const { lang } = p;
  return (
    <section class="card" aria-labelledby="suffixes-title" id="suffixes">
      <h2 id="suffixes-title">{ct(lang, 'sandboxTools.suffixesTitle')}</h2>
      <p>{ct(lang, 'sandboxTools.suffixesIntro', { code: SUCCESS.responseCode })}</p>
      <table class="stack-table" id="suffix-table">
        <caption class="visually-hidden">{ct(lang, 'sandboxTools.suffixesTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{ct(lang, 'sandboxTools.col.suffix')}</th>
            <th scope="col">{ct(lang, 'sandboxTools.col.outcome')}</th>
            <th scope="col">{ct(lang, 'sandboxTools.col.code')}</th>
            <th scope="col">{ct(lang, 'sandboxTools.col.message')}</th>
          </tr>
        </thead>
        <tbody>
          {MAGIC_SUFFIXES.map((m) => (
            <tr data-outcome={m.outcome} data-suffix={m.suffix}>
              <Cell label={ct(lang, 'sandboxTools.col.suffix')} row>
                <code>{`…${m.suffix}`}</code>
              </Cell>
              <Cell label={ct(lang, 'sandboxTools.col.outcome')}>{ct(lang, OUTCOME_KEYS[m.outcome], { seconds: m.outcome === 'timeout' ? p.timeoutSeconds : p.reversalSeconds })}</Cell>
              <Cell label={ct(lang, 'sandboxTools.col.code')}>
                <code>{m.responseCode}</code>
              </Cell>
              <Cell label={ct(lang, 'sandboxTools.col.message')}>{m.responseMessage}</Cell>
            </tr>
          ))}
        </tbody>
      </table>
      <h3 class="table-title">{ct(lang, 'sandboxTools.testAccounts')}</h3>
      <p class="test-accounts" id="test-accounts">
        {ct(lang, 'sandboxTools.testWallets')} <code>{TEST_WALLETS.join(', ')}</code>
        <br />
        {ct(lang, 'sandboxTools.testBanks')} <code>{`${TEST_BANKS[0]} – ${TEST_BANKS[TEST_BANKS.length - 1]}`}</code>
      </p>
    </section>
  );
}

export function SandboxPage(v: SandboxView): SafeHtml {
  const { context } = v;
  const lang = context.lang;
  const title = ct(lang, 'sandboxTools.title');
  return (
    <Layout context={context} title={title} section="sandbox" languageUrl={SANDBOX_PATH}>
      <h1>{title}</h1>
      <p class="lead">{ct(lang, 'sandboxTools.intro')}</p>
      <Alerts notice={v.notice} />
      <div class="sandbox-forms">
        <SimulateForm {...v} />
        <PayForm {...v} />
      </div>
      <SuffixTable lang={lang} timeoutSeconds={v.payoutTimeoutSeconds} reversalSeconds={v.payoutReversalSeconds} />
      {v.outbox ? (
        <section class="card" aria-labelledby="outbox-title" id="outbox">
          <h2 id="outbox-title">{ct(lang, 'sandboxTools.emailsTitle')}</h2>
          <p>{ct(lang, 'sandboxTools.emailsIntro')}</p>
          <a class="link-button" href={SANDBOX_OUTBOX_PATH} id="outbox-link">
            {ct(lang, 'sandboxTools.emailsLink')}
          </a>
        </section>
      ) : null}
    </Layout>
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

/** What one simulated payment made. */
export function PaymentResultPage(p: { context: ConsoleContext; result: PaymentResult; notice?: string }): SafeHtml {
  const { context, result } = p;
  const c = result.collection;
  const lang = context.lang;
  const title = ct(lang, 'sandboxTools.resultTitle');
  const net = c.amount_minor - c.fee_minor;
  const what =
    c.transaction_code === 'RTP'
      ? ct(lang, 'sandboxTools.resultTimed', { amount: moneyText(c.currency_code, c.amount_minor), connector: c.connector_name, account: c.timed_account_number ?? '' })
      : ct(lang, 'sandboxTools.resultDirect', { amount: moneyText(c.currency_code, c.amount_minor), connector: c.connector_name, account: c.beneficiary_account_number });
  return (
    <Layout context={context} title={title} section="sandbox">
      <nav class="breadcrumbs" aria-label={ct(lang, 'layout.breadcrumbs')}>
        <ol>
          <li>
            <a href={SANDBOX_PATH}>{ct(lang, 'sandboxTools.title')}</a>
          </li>
          <li aria-current="page">{c.transaction_reference_number}</li>
        </ol>
      </nav>
      <h1>{title}</h1>
      <Alerts notice={p.notice} />
      <section class="card" aria-labelledby="result-what">
        <h2 id="result-what">{what}</h2>
        <dl class="facts">
          <Fact label={ct(lang, 'sandboxTools.collectionReference')} id="result-reference">
            <a href={collectionPath(c.transaction_reference_number)} class="reference" id="result-collection-link">
              {c.transaction_reference_number}
            </a>
          </Fact>
          <Fact label={ct(lang, 'col.amount')} id="result-amount">
            <Money minor={c.amount_minor} currencyCode={c.currency_code} />
          </Fact>
          <Fact label={ct(lang, 'sandboxTools.fee')} id="result-fee">
            <Money minor={c.fee_minor} currencyCode={c.currency_code} />
          </Fact>
          <Fact label={ct(lang, 'sandboxTools.credited')} id="result-credited">
            <Money minor={net} currencyCode={c.currency_code} />
          </Fact>
          <Fact label={ct(lang, 'sandboxTools.balanceAfter')} id="result-balance">
            <Money minor={result.balanceAfterMinor} currencyCode={c.currency_code} />
          </Fact>
          <Fact label={ct(lang, 'sandboxTools.customer')} id="result-customer">
            {c.source_account_name}
            <span class="sub">{`${c.connector_name} · ${c.source_account_number}`}</span>
          </Fact>
          {result.requestId !== null ? (
            <Fact label={ct(lang, 'sandboxTools.paidRequest')} id="result-request">
              <a href={paymentRequestPath(result.requestId)}>{c.reference_number ?? c.timed_account_number ?? ''}</a>
              <span class="sub">{ct(lang, 'sandboxTools.timedAccountNumber', { account: c.timed_account_number ?? '' })}</span>
            </Fact>
          ) : null}
          <Fact label={ct(lang, 'sandboxTools.when')}>
            <time datetime={c.transaction_date.toISOString()}>{formatInstant(c.transaction_date)}</time>
          </Fact>
        </dl>
      </section>
      <p class="result-links">
        <a class="button" href={collectionPath(c.transaction_reference_number)} id="see-collection">
          {ct(lang, 'sandboxTools.seeCollection')}
        </a>{' '}
        <a class="link-button" href={SANDBOX_PATH} id="back-to-tools">
          {ct(lang, 'sandboxTools.back')}
        </a>
      </p>
    </Layout>
  );
}

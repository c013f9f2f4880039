// The statements page: a period of UTC days (from, to); the statement's totals (opening balance,
// money in, money out, fees, closing balance, both accounts together: statementTotals); the opening
// and closing balance with the credits and debits of each account (the merchant's account, i.e.
// both together, its collection and its disbursement account: statementSummary); the lines page by
// page, one per movement with its counterparty and the balance after it (statementLines, keyset,
// swapped by htmx); and the link to the whole period as CSV.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { StatementAccount, StatementLine, StatementLineType, StatementSummary, StatementTotals } from '../../../ledger/statements.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { Cell, Money, Pager, Results, When, withQuery } from '../../kit/lists.tsx';

export const STATEMENTS_PATH = SECTION_PATHS.statements;
export const STATEMENTS_CSV_PATH = `${STATEMENTS_PATH}.csv`;
export const STATEMENTS_XLSX_PATH = `${STATEMENTS_PATH}.xlsx`;
export const MOVEMENTS_REGION = 'movement-results';

/** A line type, named for people. */
const lineTypeName = (lang: Lang, type: StatementLineType) => ct(lang, `statements.line.${type}`);

const accountName = (lang: Lang, account: StatementAccount | 'collection' | 'disbursement') => ct(lang, `statements.account.${account}` as TextKey);

/** The period as the form shows it: what was typed (even when wrong) and what is wrong with it. */
export interface PeriodForm {
  from: string;
  to: string;
  /** The message of a period that cannot be shown, and the field it is about. */
  problem?: { message: string; field: 'from' | 'to' };
}

function PeriodFields(p: { lang: Lang; form: PeriodForm; maxDays: number }): SafeHtml {
  const { lang, form } = p;
  const invalid = (field: 'from' | 'to') => (form.problem?.field === field ? 'true' : undefined);
  const describedBy = (field: 'from' | 'to') => (form.problem?.field === field ? 'period-error period-hint' : 'period-hint');
  return (
    <form class="filters card" method="get" action={STATEMENTS_PATH} aria-label={ct(lang, 'statements.periodLabel')} novalidate>
      {form.problem ? (
        <p class="alert alert-error field-full" id="period-error" role="alert">
          {form.problem.message}
        </p>
      ) : null}
      <div class="field">
        <label for="period-from">{ct(lang, 'statements.from')}</label>
        <input type="date" id="period-from" name="from" value={form.from} required aria-invalid={invalid('from')} aria-describedby={describedBy('from')} />
      </div>
      <div class="field">
        <label for="period-to">{ct(lang, 'statements.to')}</label>
        <input type="date" id="period-to" name="to" value={form.to} required aria-invalid={invalid('to')} aria-describedby={describedBy('to')} />
      </div>
      <div class="filter-actions">
        <button class="button" type="submit" id="period-submit">
          {ct(lang, 'statements.show')}
        </button>
      </div>
      <p class="hint field-full" id="period-hint">
        {ct(lang, 'statements.periodHint', { max: p.maxDays })}
      </p>
    </form>
  );
}

/** The statement's totals, both accounts together: closing = opening + in − out − fees. */
function Totals(p: { lang: Lang; totals: StatementTotals; currencyCode: string }): SafeHtml {
  const { lang, totals } = p;
  const figures: Array<[string, TextKey, number]> = [
    ['opening', 'statements.col.opening', totals.openingMinor],
    ['in', 'statements.col.in', totals.inMinor],
    ['out', 'statements.col.out', totals.outMinor],
    ['fees', 'statements.col.fees', totals.feesMinor],
    ['closing', 'statements.col.closing', totals.closingMinor],
  ];
  return (
    <>
      <dl class="facts" id="statement-totals">
        {figures.map(([id, key, minor]) => (
          <div class="fact">
            <dt>{ct(lang, key)}</dt>
            <dd id={`total-${id}`} data-minor={minor}>
              <Money minor={minor} currencyCode={p.currencyCode} />
            </dd>
          </div>
        ))}
      </dl>
      <p class="hint">{ct(lang, 'statements.totalsHint')}</p>
    </>
  );
}

function Summary(p: { lang: Lang; summary: StatementSummary; totals: StatementTotals; csvUrl: string; xlsxUrl: string }): SafeHtml {
  const { lang, summary } = p;
  const label = (key: TextKey) => ct(lang, key);
  const currency = summary.currencyCode;
  return (
    <section class="card card-wide" aria-labelledby="summary-title">
      <div class="card-head">
        <h2 id="summary-title">{ct(lang, 'statements.totals', { from: summary.fromDate, to: summary.toDate })}</h2>
        <span class="filter-buttons">
          <a class="button download" href={p.csvUrl} download id="download-csv">
            {ct(lang, 'statements.download')}
          </a>
          <a class="button download" href={p.xlsxUrl} download id="download-xlsx">
            {ct(lang, 'statements.downloadExcel')}
          </a>
        </span>
      </div>
      <Totals lang={lang} totals={p.totals} currencyCode={currency} />
      <h3 id="accounts-title">{ct(lang, 'statements.accountsTitle')}</h3>
      <table class="stack-table" id="summary-table">
        <caption class="visually-hidden">{ct(lang, 'statements.summaryCaption', { from: summary.fromDate, to: summary.toDate })}</caption>
        <thead>
          <tr>
            <th scope="col">{label('statements.col.account')}</th>
            <th scope="col" class="num">
              {label('statements.col.opening')}
            </th>
            <th scope="col" class="num">
              {label('statements.col.credits')}
            </th>
            <th scope="col" class="num">
              {label('statements.col.debits')}
            </th>
            <th scope="col" class="num">
              {label('statements.col.closing')}
            </th>
            <th scope="col" class="num">
              {label('statements.col.entries')}
            </th>
          </tr>
        </thead>
        <tbody>
          {summary.accounts.map((a) => (
            <tr id={`summary-${a.account}`} class={a.account === 'account' ? 'total-row' : undefined}>
              <Cell row label={label('statements.col.account')}>
                {accountName(lang, a.account)}
              </Cell>
              <Cell label={label('statements.col.opening')} num minor={a.openingMinor}>
                <Money minor={a.openingMinor} currencyCode={currency} />
              </Cell>
              <Cell label={label('statements.col.credits')} num minor={a.inMinor}>
                <Money minor={a.inMinor} currencyCode={currency} />
              </Cell>
              <Cell label={label('statements.col.debits')} num minor={a.outMinor}>
                <Money minor={a.outMinor} currencyCode={currency} />
              </Cell>
              <Cell label={label('statements.col.closing')} num minor={a.closingMinor}>
                <Money minor={a.closingMinor} currencyCode={currency} />
              </Cell>
              <Cell label={label('statements.col.entries')} num>
                {a.movements}
              </Cell>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">{ct(lang, 'statements.downloadHint')}</p>
    </section>
  );
}

export interface MovementsQuery {
  from: string;
  to: string;
  after?: string;
}

export function MovementsResults(p: { lang: Lang; currencyCode: string; page: Page<StatementLine>; query: MovementsQuery; swapped: boolean }): SafeHtml {
  const { lang, page, query } = p;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <Results id={MOVEMENTS_REGION} title={ct(lang, 'statements.movements')} swapped={p.swapped}>
      {page.items.length === 0 ? (
        <p class="empty" id="movements-empty">
          {ct(lang, 'statements.noMovements')}
        </p>
      ) : (
        <table class="stack-table" id="movements-table">
          <caption class="visually-hidden">{ct(lang, 'statements.movementsCaption', { from: query.from, to: query.to })}</caption>
          <thead>
            <tr>
              <th scope="col">{label('statements.col.date')}</th>
              <th scope="col">{label('statements.col.type')}</th>
              <th scope="col">{label('statements.col.counterparty')}</th>
              <th scope="col">{label('statements.col.reference')}</th>
              <th scope="col" class="num">
                {label('statements.col.amount')}
              </th>
              <th scope="col" class="num">
                {label('statements.col.balance')}
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((line) => (
              <tr id={`line-${line.entryId}-${line.seq}`} data-type={line.type} data-amount-minor={line.amountMinor} data-balance-minor={line.balanceMinor}>
                <Cell row label={label('statements.col.date')}>
                  <When at={line.date} lang={lang} />
                </Cell>
                <Cell label={label('statements.col.type')}>
                  {lineTypeName(lang, line.type)}
                  <span class="sub">{accountName(lang, line.account)}</span>
                  {line.note ? <span class="sub">{line.note}</span> : null}
                </Cell>
                <Cell label={label('statements.col.counterparty')}>
                  {line.counterparty ?? ''}
                  {line.counterpartyAccount ? <span class="sub reference">{line.counterpartyAccount}</span> : null}
                </Cell>
                <Cell label={label('statements.col.reference')}>
                  <span class="reference">{line.reference}</span>
                  {line.transactionReference && line.transactionReference !== line.reference ? <span class="sub reference">{line.transactionReference}</span> : null}
                </Cell>
                <Cell label={label('statements.col.amount')} num minor={line.amountMinor}>
                  <Money minor={line.amountMinor} currencyCode={p.currencyCode} />
                </Cell>
                <Cell label={label('statements.col.balance')} num>
                  <Money minor={line.balanceMinor} currencyCode={p.currencyCode} />
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        lang={lang}
        label={ct(lang, 'statements.movementsPages')}
        target={MOVEMENTS_REGION}
        firstUrl={withQuery(STATEMENTS_PATH, { from: query.from, to: query.to })}
        nextUrl={page.next ? withQuery(STATEMENTS_PATH, { from: query.from, to: query.to, after: page.next }) : null}
        onFirstPage={!query.after}
      />
    </Results>
  );
}

export function StatementsPage(p: {
  context: ConsoleContext;
  form: PeriodForm;
  maxDays: number;
  shown?: { summary: StatementSummary; totals: StatementTotals; movements: Page<StatementLine>; query: MovementsQuery };
}): SafeHtml {
  const lang = p.context.lang;
  const shown = p.shown;
  return (
    <Layout context={p.context} title={ct(lang, 'statements.title')} section="statements">
      <h1>{ct(lang, 'statements.title')}</h1>
      <p class="lead">{ct(lang, 'statements.intro')}</p>
      <PeriodFields lang={lang} form={p.form} maxDays={p.maxDays} />
      {shown ? (
        <>
          <Summary
            lang={lang}
            summary={shown.summary}
            totals={shown.totals}
            csvUrl={withQuery(STATEMENTS_CSV_PATH, { from: shown.query.from, to: shown.query.to })}
            xlsxUrl={withQuery(STATEMENTS_XLSX_PATH, { from: shown.query.from, to: shown.query.to })}
          />
          <MovementsResults lang={lang} currencyCode={shown.summary.currencyCode} page={shown.movements} query={shown.query} swapped={false} />
        </>
      ) : null}
    </Layout>
  );
}

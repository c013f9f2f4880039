// The collections list: a filter form (a plain GET form, so it works without JavaScript; with htmx
// it asks for the results region only and swaps it in, pushing the address so that it stays
// shareable), the page of collections (a table on a desk, a stacked list on a phone: console.css)
// and keyset paging ("Next page" carries the data function's cursor). A filter the data function
// refuses is shown back as typed, with the message, and no results.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { COLLECTION } from '../../../collections/repository.ts';
import type { CollectionItem } from '../queries.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { collectionPath, SECTION_PATHS } from '../../kit/paths.ts';
import { fitsDateInput, Money, Time, type FilterProblem } from '../../kit/display.tsx';
import { ExportLinks, exportUrl } from '../../kit/export-links.tsx';
import type { ExportFormat } from '../../kit/exports.ts';

export const COLLECTIONS_PATH = SECTION_PATHS.collections;
/** The id of the region htmx swaps (the route answers it alone when htmx asks for it). */
export const RESULTS_ID = 'collections-results';

/** The form's values as the query string gave them ('' when absent): shown back as typed. */
export interface CollectionsFilterValues {
  from: string;
  to: string;
  status: string;
  connector: string;
  search: string;
  /** Rows per page: not in the form, kept when an address carries it. */
  limit: string;
}

export const FILTER_NAMES = ['from', 'to', 'status', 'connector', 'search', 'limit'] as const satisfies ReadonlyArray<keyof CollectionsFilterValues>;

export interface ConnectorOption {
  connectorId: number;
  connectorName: string;
}

export type CollectionsResult = { page: Page<CollectionItem> } | { problem: FilterProblem };

export interface CollectionsView {
  context: ConsoleContext;
  values: CollectionsFilterValues;
  /** The cursor the page was read from (absent on the first page). */
  after: string;
  result: CollectionsResult;
}

/** The list as a file (kit/exports.ts) with these filters: every row they keep, so no page size and no cursor. */
export function collectionsExportUrl(values: CollectionsFilterValues, format: ExportFormat): string {
  return exportUrl(COLLECTIONS_PATH, format, { from: values.from, to: values.to, status: values.status, connector: values.connector, search: values.search });
}

/** The list's address with these filters (empty ones left out) and, optionally, a cursor. */
export function collectionsUrl(values: CollectionsFilterValues, after?: string): string {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) if (values[name] !== '') query.set(name, values[name]);
  if (after) query.set('after', after);
  const text = query.toString();
  return text ? `${COLLECTIONS_PATH}?${text}` : COLLECTIONS_PATH;
}

const STATUS_KEYS: Record<CollectionItem['statusCode'], TextKey> = { S: 'status.S', R: 'status.R' };

function statusKey(code: string): TextKey | undefined {
  return (STATUS_KEYS as Record<string, TextKey>)[code];
}

export function StatusBadge(p: { lang: ConsoleContext['lang']; code: string }): SafeHtml {
  const key = statusKey(p.code);
  return <span class={`badge badge-${p.code === COLLECTION.successful ? 'ok' : 'warn'}`}>{key ? ct(p.lang, key) : p.code}</span>;
}

/** htmx attributes of a link or form that replaces the results region and keeps the address. */
function swapping(url: string) {
  return { 'hx-get': url, 'hx-target': `#${RESULTS_ID}`, 'hx-swap': 'innerHTML show:top', 'hx-push-url': 'true' };
}

function Row(p: { lang: ConsoleContext['lang']; c: CollectionItem }): SafeHtml {
  const { lang, c } = p;
  return (
    <tr>
      <td data-label={ct(lang, 'col.date')}>
        <Time at={c.transactionDate} />
      </td>
      <td data-label={ct(lang, 'col.reference')}>
        <a class="reference" href={collectionPath(c.transactionReferenceNumber)}>
          {c.transactionReferenceNumber}
        </a>
      </td>
      <td data-label={ct(lang, 'col.customer')} class="wrap">
        {c.customerName}
      </td>
      <td data-label={ct(lang, 'col.connector')}>{c.connectorName}</td>
      <td data-label={ct(lang, 'col.amount')} class="num">
        <Money currencyCode={c.currencyCode} minor={c.amountMinor} />
      </td>
      <td data-label={ct(lang, 'col.fee')} class="num">
        <Money currencyCode={c.currencyCode} minor={c.feeMinor} />
      </td>
      <td data-label={ct(lang, 'col.status')}>
        <StatusBadge lang={lang} code={c.statusCode} />
      </td>
    </tr>
  );
}

function Table(p: { lang: ConsoleContext['lang']; items: CollectionItem[] }): SafeHtml {
  const { lang } = p;
  return (
    // Between a phone and a desk it may scroll sideways: focusable, so that the keyboard can scroll it.
    <div class="table-wrap" tabindex="0" role="region" aria-labelledby="collections-caption">
      <table class="list-table" id="collections-table">
        <caption class="visually-hidden" id="collections-caption">
          {ct(lang, 'collections.caption')}
        </caption>
        <thead>
          <tr>
            <th scope="col">{ct(lang, 'col.date')}</th>
            <th scope="col">{ct(lang, 'col.reference')}</th>
            <th scope="col">{ct(lang, 'col.customer')}</th>
            <th scope="col">{ct(lang, 'col.connector')}</th>
            <th scope="col" class="num">
              {ct(lang, 'col.amount')}
            </th>
            <th scope="col" class="num">
              {ct(lang, 'col.fee')}
            </th>
            <th scope="col">{ct(lang, 'col.status')}</th>
          </tr>
        </thead>
        <tbody>
          {p.items.map((c) => (
            <Row lang={lang} c={c} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function filtered(values: CollectionsFilterValues): boolean {
  return FILTER_NAMES.some((name) => name !== 'limit' && values[name] !== '');
}

/** The results region's content: the message of a refused filter, or the page and its paging. */
export function CollectionsResults(v: Omit<CollectionsView, 'context'> & { lang: ConsoleContext['lang'] }): SafeHtml {
  const { lang, values, result } = v;
  if ('problem' in result) {
    return (
      <div class="alert alert-error" role="alert" id="filter-problem">
        <strong>{ct(lang, 'filter.problemTitle')}:</strong> {result.problem.message}
      </div>
    );
  }
  const { items, next } = result.page;
  const summary =
    items.length === 0
      ? ct(lang, filtered(values) || v.after ? 'collections.none' : 'collections.noneYet')
      : items.length === 1 && !next
        ? ct(lang, 'collections.shownOne')
        : ct(lang, next ? 'collections.shownMore' : 'collections.shown', { count: items.length });
  const firstUrl = collectionsUrl(values);
  const nextUrl = next ? collectionsUrl(values, next) : undefined;
  return (
    <div>
      <p class="results-summary" role="status" id="collections-summary">
        {summary}
      </p>
      {items.length > 0 ? (
        <ExportLinks
          id="collections-export"
          csvUrl={collectionsExportUrl(values, 'csv')}
          xlsxUrl={collectionsExportUrl(values, 'xlsx')}
          csvText={ct(lang, 'collections.downloadCsv')}
          xlsxText={ct(lang, 'collections.downloadXlsx')}
          hint={ct(lang, 'collections.downloadHint')}
        />
      ) : null}
      {items.length > 0 ? <Table lang={lang} items={items} /> : null}
      {v.after || nextUrl ? (
        <nav class="pages-nav" aria-label={ct(lang, 'paging.label')}>
          {v.after ? (
            <a class="link-button" id="collections-first" href={firstUrl} {...swapping(firstUrl)}>
              {ct(lang, 'paging.first')}
            </a>
          ) : null}
          {nextUrl ? (
            <a class="button" id="collections-next" rel="next" href={nextUrl} {...swapping(nextUrl)}>
              {ct(lang, 'paging.next')}
            </a>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}

function invalidProps(problem: FilterProblem | undefined, name: string) {
  return problem?.field === name ? { 'aria-invalid': 'true', 'aria-describedby': 'filter-problem' } : {};
}

/** A day field: a date picker, unless the value given is not a day (then text, to show it as typed). */
function DayField(p: { lang: ConsoleContext['lang']; name: 'from' | 'to'; label: TextKey; value: string; problem?: FilterProblem }): SafeHtml {
  const isDay = fitsDateInput(p.value);
  return (
    <div class="field">
      <label for={`filter-${p.name}`}>{ct(p.lang, p.label)}</label>
      <input type={isDay ? 'date' : 'text'} id={`filter-${p.name}`} name={p.name} value={p.value} placeholder={isDay ? undefined : 'YYYY-MM-DD'} {...invalidProps(p.problem, p.name)} />
    </div>
  );
}

/** The status filter: the statuses a collection has, and a value given that is none of them (shown as typed). */
function StatusField(p: { lang: ConsoleContext['lang']; value: string; problem?: FilterProblem }): SafeHtml {
  const { lang } = p;
  return (
    <div class="field">
      <label for="filter-status">{ct(lang, 'filter.status')}</label>
      <select id="filter-status" name="status" {...invalidProps(p.problem, 'status')}>
        <option value="">{ct(lang, 'filter.any')}</option>
        {(['S', 'R'] as const).map((code) => (
          <option value={code} selected={p.value === code}>
            {ct(lang, STATUS_KEYS[code])}
          </option>
        ))}
        {p.value !== '' && !statusKey(p.value) ? (
          <option value={p.value} selected>
            {p.value}
          </option>
        ) : null}
      </select>
    </div>
  );
}

/** The connector filter: those a customer pays from, and a value given that is none of them (shown as typed). */
function ConnectorField(p: { lang: ConsoleContext['lang']; value: string; connectors: ConnectorOption[]; problem?: FilterProblem }): SafeHtml {
  const { lang } = p;
  const known = p.value === '' || p.connectors.some((c) => String(c.connectorId) === p.value);
  return (
    <div class="field">
      <label for="filter-connector">{ct(lang, 'filter.connector')}</label>
      <select id="filter-connector" name="connector" {...invalidProps(p.problem, 'connector')}>
        <option value="">{ct(lang, 'filter.any')}</option>
        {p.connectors.map((c) => (
          <option value={String(c.connectorId)} selected={String(c.connectorId) === p.value}>
            {c.connectorName}
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

export function CollectionsFilters(p: { context: ConsoleContext; values: CollectionsFilterValues; connectors: ConnectorOption[]; problem?: FilterProblem }): SafeHtml {
  const { values, problem } = p;
  const lang = p.context.lang;
  return (
    <form
      class="card filter-form"
      id="collections-filters"
      role="search"
      aria-label={ct(lang, 'filter.legend')}
      method="get"
      action={COLLECTIONS_PATH}
      hx-get={COLLECTIONS_PATH}
      hx-target={`#${RESULTS_ID}`}
      hx-swap="innerHTML"
      hx-push-url="true"
      hx-trigger="submit, change"
      hx-sync="this:replace"
    >
      <div class="filter-grid">
        <DayField lang={lang} name="from" label="filter.from" value={values.from} problem={problem} />
        <DayField lang={lang} name="to" label="filter.to" value={values.to} problem={problem} />
        <StatusField lang={lang} value={values.status} problem={problem} />
        <ConnectorField lang={lang} value={values.connector} connectors={p.connectors} problem={problem} />
        <div class="field field-wide">
          <label for="filter-search">{ct(lang, 'filter.search')}</label>
          <input type="search" id="filter-search" name="search" value={values.search} maxlength="100" aria-describedby="filter-search-hint" {...invalidProps(problem, 'search')} />
          <p class="hint" id="filter-search-hint">
            {ct(lang, 'filter.searchHint')}
          </p>
        </div>
      </div>
      {values.limit !== '' ? <input type="hidden" name="limit" value={values.limit} /> : null}
      <div class="filter-buttons">
        <button class="button" type="submit" id="filter-submit">
          {ct(lang, 'filter.submit')}
        </button>
        <a class="link-button" href={COLLECTIONS_PATH} id="filter-clear">
          {ct(lang, 'filter.clear')}
        </a>
      </div>
    </form>
  );
}

export function CollectionsPage(v: CollectionsView & { connectors: ConnectorOption[] }): SafeHtml {
  const { context } = v;
  const lang = context.lang;
  const problem = 'problem' in v.result ? v.result.problem : undefined;
  return (
    <Layout context={context} title={ct(lang, 'collections.title')} section="collections">
      <h1>{ct(lang, 'collections.title')}</h1>
      <p class="lead">{ct(lang, 'collections.intro')}</p>
      <CollectionsFilters context={context} values={v.values} connectors={v.connectors} problem={problem} />
      <section class="results" aria-labelledby="results-title">
        <h2 id="results-title" class="visually-hidden">
          {ct(lang, 'collections.results')}
        </h2>
        <div id={RESULTS_ID}>
          <CollectionsResults lang={lang} values={v.values} after={v.after} result={v.result} />
        </div>
      </section>
    </Layout>
  );
}

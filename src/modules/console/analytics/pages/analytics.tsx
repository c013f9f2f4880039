// Analytics: over a range of UTC days (a GET form: the address is shareable), E5's counts and sums
// by connector for collections and payouts, each as a bar chart (charts.ts, through chart.tsx) with
// the table of the same figures beside it: the bars show sizes, the table the exact numbers, for
// everyone and for screen readers.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { AnalyticsOverview, ConnectorFigures } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { BarChart } from '../../kit/chart.tsx';
import { fitsDateInput, moneyText, percentText, type FilterProblem } from '../../kit/display.tsx';

export const ANALYTICS_PATH = SECTION_PATHS.analytics;

export interface AnalyticsRangeValues {
  from: string;
  to: string;
}

export type AnalyticsResult = { overview: AnalyticsOverview } | { problem: FilterProblem };

type Kind = 'collections' | 'payouts';
const KINDS: ReadonlyArray<{ kind: Kind; summaryType: ConnectorFigures['summaryType']; label: TextKey }> = [
  { kind: 'collections', summaryType: 'C', label: 'analytics.collections' },
  { kind: 'payouts', summaryType: 'D', label: 'analytics.payouts' },
];

const DAY_MS = 86_400_000;
const daysIn = (fromDate: string, toDate: string) => (Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / DAY_MS + 1;

function RangeForm(p: { lang: Lang; values: AnalyticsRangeValues; problem?: FilterProblem }): SafeHtml {
  const { lang, values, problem } = p;
  const field = (name: 'from' | 'to', label: TextKey) => {
    const value = values[name];
    const isDay = fitsDateInput(value);
    const invalid = problem?.field === name ? { 'aria-invalid': 'true', 'aria-describedby': 'filter-problem' } : {};
    return (
      <div class="field">
        <label for={`filter-${name}`}>{ct(lang, label)}</label>
        <input type={isDay ? 'date' : 'text'} id={`filter-${name}`} name={name} value={value} placeholder={isDay ? undefined : 'YYYY-MM-DD'} {...invalid} />
      </div>
    );
  };
  return (
    <form class="card filter-form" id="analytics-range" role="search" aria-label={ct(lang, 'filter.legend')} method="get" action={ANALYTICS_PATH}>
      <div class="filter-grid filter-grid-range">
        {field('from', 'filter.from')}
        {field('to', 'filter.to')}
        <div class="filter-buttons">
          <button class="button" type="submit" id="filter-submit">
            {ct(lang, 'filter.submit')}
          </button>
        </div>
      </div>
    </form>
  );
}

/** The figures of the connectors with transactions: a table on a desk, a card per connector on a phone. */
function FiguresTable(p: { lang: Lang; id: string; caption: string; rows: ConnectorFigures[] }): SafeHtml {
  const { lang } = p;
  const successful = ct(lang, 'analytics.successful');
  const failed = ct(lang, 'analytics.failed');
  const total = ct(lang, 'analytics.total');
  const number = ct(lang, 'analytics.count');
  const amount = ct(lang, 'analytics.amount');
  // On a phone the column groups are gone: each cell names its group and column.
  const label = (group: string, column: string) => `${group}: ${column}`;
  return (
    <>
      <h3 class="table-title" id={`${p.id}-caption`}>
        {p.caption}
      </h3>
      <div class="table-wrap" tabindex="0" role="region" aria-labelledby={`${p.id}-caption`}>
        <table class="list-table figures-table" id={p.id}>
          <caption class="visually-hidden">{p.caption}</caption>
          <thead>
            <tr>
              <th scope="col" rowspan="2">
                {ct(lang, 'col.connector')}
              </th>
              <th scope="colgroup" colspan="3">
                {number}
              </th>
              <th scope="colgroup" colspan="3">
                {amount}
              </th>
            </tr>
            <tr>
              {[successful, failed, total, successful, failed, total].map((text) => (
                <th scope="col" class="num">
                  {text}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr>
                <th scope="row">{r.connectorName}</th>
                <td class="num" data-label={label(number, successful)}>
                  {r.successfulCount}
                </td>
                <td class="num" data-label={label(number, failed)}>
                  {r.failedCount}
                </td>
                <td class="num" data-label={label(number, total)}>
                  {r.totalCount}
                </td>
                <td class="num" data-label={label(amount, successful)}>
                  {moneyText(r.currencyCode, r.successfulMinor)}
                </td>
                <td class="num" data-label={label(amount, failed)}>
                  {moneyText(r.currencyCode, r.failedMinor)}
                </td>
                <td class="num" data-label={label(amount, total)}>
                  {moneyText(r.currencyCode, r.totalMinor)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function KindSection(p: { lang: Lang; overview: AnalyticsOverview; kind: Kind; summaryType: ConnectorFigures['summaryType']; label: TextKey }): SafeHtml {
  const { lang, overview } = p;
  const name = ct(lang, p.label);
  const range = { from: overview.fromDate, to: overview.toDate };
  const rows = overview.connectors.filter((c) => c.summaryType === p.summaryType);
  // The bars: connectors with transactions in the range (idle ones only in the table).
  const active = rows.filter((c) => c.totalCount > 0);
  const idle = rows.filter((c) => c.totalCount === 0);
  const currencies = [...new Set(rows.map((r) => r.currencyCode))];
  const series = overview[p.kind];
  const empty = ct(lang, 'analytics.noneChart');
  return (
    <section class="card" aria-labelledby={`${p.kind}-title`} id={`analytics-${p.kind}`}>
      <h2 id={`${p.kind}-title`}>{name}</h2>
      <p class="kpis">
        <span id={`${p.kind}-success-rate`}>{ct(lang, 'analytics.successRate', { rate: percentText(series.successRate) })}</span>
        <span id={`${p.kind}-trend`}>{ct(lang, 'analytics.trend', { days: daysIn(overview.fromDate, overview.toDate), trend: percentText(series.trendPercent) })}</span>
      </p>
      {active.length > 0 ? (
        <div class="charts">
          <figure class="chart-figure">
            <figcaption>{ct(lang, 'analytics.countTitle', { kind: name })}</figcaption>
            <BarChart
              options={{
                id: `${p.kind}-count-chart`,
                title: ct(lang, 'analytics.countTitle', { kind: name }),
                description: ct(lang, 'analytics.countDesc', range),
                data: active.map((c) => ({ label: c.connectorName, value: c.totalCount })),
              }}
            />
          </figure>
          {currencies.map((currency) => (
            <figure class="chart-figure">
              <figcaption>{ct(lang, 'analytics.sumTitle', { kind: name, currency })}</figcaption>
              <BarChart
                options={{
                  id: `${p.kind}-sum-chart-${currency}`,
                  title: ct(lang, 'analytics.sumTitle', { kind: name, currency }),
                  description: ct(lang, 'analytics.sumDesc', { ...range, currency }),
                  data: active.filter((c) => c.currencyCode === currency).map((c) => ({ label: c.connectorName, value: c.totalMinor / 100 })),
                }}
              />
            </figure>
          ))}
        </div>
      ) : (
        <p class="chart-none" id={`${p.kind}-none`}>
          {empty}
        </p>
      )}
      {active.length > 0 ? <FiguresTable lang={lang} id={`${p.kind}-table`} caption={ct(lang, 'analytics.tableCaption', { kind: name, ...range })} rows={active} /> : null}
      {idle.length > 0 ? (
        // E5 lists every connector open to the kind: the idle ones are named, not tabled as rows of zeros.
        <p class="hint" id={`${p.kind}-idle`}>
          {ct(lang, 'analytics.idle', { names: idle.map((c) => c.connectorName).join(', ') })}
        </p>
      ) : null}
    </section>
  );
}

export function AnalyticsPage(p: { context: ConsoleContext; values: AnalyticsRangeValues; result: AnalyticsResult }): SafeHtml {
  const { context, result } = p;
  const lang = context.lang;
  const problem = 'problem' in result ? result.problem : undefined;
  // The form shows the range the figures are for: the one asked, or the default (the last 30 days).
  const values = 'overview' in result ? { from: result.overview.fromDate, to: result.overview.toDate } : p.values;
  return (
    <Layout context={context} title={ct(lang, 'analytics.title')} section="analytics">
      <h1>{ct(lang, 'analytics.title')}</h1>
      <p class="lead">{ct(lang, 'analytics.intro')}</p>
      <RangeForm lang={lang} values={values} problem={problem} />
      {problem ? (
        <div class="alert alert-error" role="alert" id="filter-problem">
          <strong>{ct(lang, 'filter.problemTitle')}:</strong> {problem.message}
        </div>
      ) : null}
      {'overview' in result ? (
        <>
          <p class="range" id="analytics-range-text">
            {ct(lang, 'analytics.range', { from: result.overview.fromDate, to: result.overview.toDate })}
          </p>
          {KINDS.map((k) => (
            <KindSection lang={lang} overview={result.overview} kind={k.kind} summaryType={k.summaryType} label={k.label} />
          ))}
        </>
      ) : null}
    </Layout>
  );
}

// What the payouts and statements pages share: money and instants as text, a keyset pager whose
// links work with and without htmx, the results region htmx swaps, and a line-status bar.
//
// Tables stack at phone width (console.css, .stack-table): each cell carries its column's name in
// data-label, which the stylesheet shows before the value when the header row is hidden.
import { h, type Child, type SafeHtml } from '../../../lib/html/jsx.ts';
import { formatMajor } from '../../../lib/money.ts';
import type { Lang } from '../../../http/i18n.ts';
import { ct } from './i18n.ts';

/** "2026-01-15 14:03 UTC": instants are shown in UTC, as the statements' days are UTC days. */
export function formatInstant(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function When(p: { at: Date | null | undefined; lang: Lang }): SafeHtml {
  return p.at ? <time datetime={p.at.toISOString()}>{formatInstant(p.at)}</time> : <span class="muted">{ct(p.lang, 'list.notYet')}</span>;
}

/** An amount in minor units as "MWK 1,234.50" (negative: "MWK -1,234.50"). */
export function Money(p: { minor: number; currencyCode: string }): SafeHtml {
  return (
    <span class={p.minor < 0 ? 'money money-out' : 'money'}>
      <span class="currency-code">{p.currencyCode}</span> {formatMajor(p.minor)}
    </span>
  );
}

/**
 * A cell of a .stack-table: its column's name (data-label, shown before the value when the table
 * stacks on a phone) and its value in one element; `row`: the row's header cell.
 */
export function Cell(p: { label: string; num?: boolean; row?: boolean; minor?: number; children?: Child }): SafeHtml {
  const attributes = { class: p.num ? 'num' : undefined, 'data-label': p.label, 'data-minor': p.minor };
  const value = <div class="cell">{p.children}</div>;
  return p.row ? (
    <th scope="row" {...attributes}>
      {value}
    </th>
  ) : (
    <td {...attributes}>{value}</td>
  );
}

/** `base` with `params` as its query (empty values left out). */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, value);
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}

/**
 * Attributes of a link or GET form that htmx turns into a swap of the results region `target`
 * (its id) with the address pushed to the history; without JavaScript they are an ordinary
 * link or form.
 */
export function swapping(url: string, target: string): Record<string, string> {
  return { 'hx-get': url, 'hx-target': `#${target}`, 'hx-swap': 'outerHTML', 'hx-push-url': 'true' };
}

/**
 * Keyset paging: the first page and the next one (there is no "previous": a keyset cursor only
 * goes forward, and the browser's Back button goes back).
 */
export function Pager(p: { lang: Lang; label: string; target: string; firstUrl: string; nextUrl: string | null; onFirstPage: boolean }): SafeHtml | null {
  if (p.onFirstPage && !p.nextUrl) return null;
  return (
    <nav class="pager" aria-label={p.label}>
      {p.onFirstPage ? null : (
        <a class="link-button" href={p.firstUrl} {...swapping(p.firstUrl, p.target)} id={`${p.target}-first`}>
          {ct(p.lang, 'list.firstPage')}
        </a>
      )}
      {p.nextUrl ? (
        <a class="link-button" href={p.nextUrl} {...swapping(p.nextUrl, p.target)} rel="next" id={`${p.target}-next`}>
          {ct(p.lang, 'list.nextPage')}
        </a>
      ) : null}
    </nav>
  );
}

/**
 * The region htmx swaps. Its heading takes the focus after a swap (autofocus, honoured by htmx on
 * swapped content only), so that a keyboard or screen-reader user lands on the new rows, not on
 * the top of the page.
 */
export function Results(p: { id: string; title: string; swapped: boolean; children?: Child }): SafeHtml {
  return (
    <section class="results" id={p.id} aria-labelledby={`${p.id}-title`}>
      <h2 id={`${p.id}-title`} tabindex="-1" autofocus={p.swapped}>
        {p.title}
      </h2>
      {p.children}
    </section>
  );
}

/** A <select> of codes and their names, the current one selected; "" is "all". */
export function Choice(p: { id: string; name: string; label: string; value: string | undefined; options: ReadonlyArray<readonly [string, string]> }): SafeHtml {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <select id={p.id} name={p.name}>
        {p.options.map(([code, name]) => (
          <option value={code} selected={(p.value ?? '') === code}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}

export interface BarPart {
  /** A class of console.css: bar-successful, bar-failed, bar-reversed, bar-open. */
  kind: string;
  count: number;
}

/**
 * A stacked bar of line counts, drawn as SVG rectangles (no style attribute: the CSP forbids them;
 * console.css colours them by class). Decorative: the counts are written beside it as text.
 */
export function StatusBar(p: { parts: BarPart[] }): SafeHtml | null {
  const total = p.parts.reduce((sum, part) => sum + part.count, 0);
  if (total === 0) return null;
  let x = 0;
  return (
    <svg class="status-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="bar-track" x="0" y="0" width="100" height="10" />
      {p.parts
        .filter((part) => part.count > 0)
        .map((part) => {
          const width = (part.count * 100) / total;
          const rect = <rect class={part.kind} x={x.toFixed(3)} y="0" width={width.toFixed(3)} height="10" />;
          x += width;
          return rect;
        })}
    </svg>
  );
}

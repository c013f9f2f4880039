// The "Download CSV" and "Download Excel" links of a list (kit/exports.ts answers them). They sit in
// the list's results region, which htmx redraws on every filter change: the links always carry the
// filters the rows on screen were read with. Plain links (no htmx): the answer is an attachment.
import { h, type SafeHtml } from '../../../lib/html/jsx.ts';
import type { ExportFormat } from './exports.ts';

/** `base` (a list's path) as a download in `format`, with the list's filters (empty ones left out; never a page cursor: a file has every row). */
export function exportUrl(base: string, format: ExportFormat, filters: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== '') query.set(name, value);
  const text = query.toString();
  return `${base}.${format}${text ? `?${text}` : ''}`;
}

/** The two links; `id` prefixes their ids (`<id>-csv`, `<id>-xlsx`); `hint` says what the file holds. */
export function ExportLinks(p: { id: string; csvUrl: string; xlsxUrl: string; csvText: string; xlsxText: string; hint: string }): SafeHtml {
  return (
    <div class="filter-buttons export-links" id={p.id}>
      <a class="link-button" href={p.csvUrl} id={`${p.id}-csv`} download aria-describedby={`${p.id}-hint`}>
        {p.csvText}
      </a>
      <a class="link-button" href={p.xlsxUrl} id={`${p.id}-xlsx`} download aria-describedby={`${p.id}-hint`}>
        {p.xlsxText}
      </a>
      <span class="hint" id={`${p.id}-hint`}>
        {p.hint}
      </span>
    </div>
  );
}

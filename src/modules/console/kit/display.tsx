// What the collections, analytics and home pages show the same way: instants in UTC (the filters'
// days are UTC days), money as currency and major units, and a filter refused by a data function
// (AppError 'validation') as a sentence naming the form's field rather than the API's.
import type { Lang } from '../../../http/i18n.ts';
import { AppError } from '../../../http/errors.ts';
import { Fragment, h, type SafeHtml } from '../../../lib/html/jsx.ts';
import { formatMajor } from '../../../lib/money.ts';
import { ct, type Texts } from './i18n.ts';

/** 2026-11-25T03:22:54.123Z → "2026-11-25 03:22". */
export function utcMinute(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** An instant, shown in UTC to the minute, with the exact time for machines. */
export function Time(p: { at: Date }): SafeHtml {
  return <time datetime={p.at.toISOString()}>{utcMinute(p.at)}</time>;
}

/**
 * Whether a date input can show `value`: empty, or a day that exists. A browser's date input shows
 * nothing for anything else (2025-02-30), so a refused value goes in a text input, as typed.
 */
export function fitsDateInput(value: string): boolean {
  if (value === '') return true;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** "MWK 1,234.50". */
export function moneyText(currencyCode: string, minor: number): string {
  return `${currencyCode} ${formatMajor(minor)}`;
}

export function Money(p: { currencyCode: string; minor: number }): SafeHtml {
  return (
    <span class="money">
      <span class="money-currency">{p.currencyCode}</span> <span class="money-amount">{formatMajor(p.minor)}</span>
    </span>
  );
}

/** A percentage with at most 2 decimals, as the data functions round it. */
export function percentText(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** The most of a refused value a message repeats. */
const MAX_SHOWN_CHARS = 40;

/** A filter the data function refused: which form field, and what to tell the user. */
export interface FilterProblem {
  /** The form field's name (for aria-invalid), when one is to blame. */
  field?: string;
  message: string;
}

/**
 * The message of a data function's AppError 'validation' in the page's words: `fields` maps the
 * data function's field names (fromDate) to the form's (from) and their labels; `given` is what the
 * form sent, shown back as it was typed. Anything but a validation error is rethrown (a 500 is a bug
 * to see in the log, not a message to phrase).
 */
export function filterProblem<K extends string>(
  texts: { lang: Lang; ct: Texts<K> },
  err: unknown,
  fields: Record<string, { name: string; label: K }>,
  given: Record<string, string | undefined>,
): FilterProblem {
  const { lang } = texts;
  if (!(err instanceof AppError) || err.kind !== 'validation') throw err;
  const params = err.params as Record<string, string | number | undefined>;
  switch (err.detailKey) {
    case 'detail.rangeReversed':
      return { field: fields.fromDate?.name, message: ct(lang, 'filter.rangeReversed', { fromDate: String(params.fromDate), toDate: String(params.toDate) }) };
    case 'detail.rangeTooLong':
      return { field: fields.fromDate?.name, message: ct(lang, 'filter.rangeTooLong', { days: String(params.days), max: String(params.max) }) };
    case 'detail.cursorInvalid':
      return { message: ct(lang, 'filter.cursorInvalid') };
    default: {
      // detail.valueInvalid names its field in its params; a schema-style refusal in its field errors.
      const named = String(params.field ?? err.fieldErrors[0]?.params.field ?? '');
      const field = fields[named];
      if (!field) return { message: ct(lang, 'filter.invalidValue', { field: named, value: String(params.value ?? '') }) };
      const typed = given[field.name] ?? String(params.value ?? '');
      const value = typed.length > MAX_SHOWN_CHARS ? `${typed.slice(0, MAX_SHOWN_CHARS)}…` : typed;
      const key = field.name === 'from' || field.name === 'to' ? 'filter.invalidDay' : 'filter.invalidValue';
      return { field: field.name, message: ct(lang, key, { field: texts.ct(lang, field.label), value }) };
    }
  }
}

/**
 * The notice after an action (role=status) and a refusal (role=alert), as every page of these areas
 * shows them. `link`: where the notice sends the reader next (a held e-mail's outbox: kit/mail.ts).
 */
export function Alerts(p: { notice?: string; error?: string; link?: { href: string; text: string } }): SafeHtml {
  return (
    <>
      {p.notice ? (
        <p class="alert alert-info" role="status" id="notice">
          {p.notice}
          {p.link ? (
            <>
              {' '}
              <a href={p.link.href} id="notice-link">
                {p.link.text}
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {p.error ? (
        <p class="alert alert-error" role="alert" id="error" tabindex="-1">
          {p.error}
        </p>
      ) : null}
    </>
  );
}

/** "in about 12 minutes" / "in less than a minute": the time left as a sentence, for pages without the script. */
export function timeLeftText(lang: Lang, secondsLeft: number): string {
  if (secondsLeft <= 0) return ct(lang, 'time.expired');
  const minutes = Math.floor(secondsLeft / 60);
  return minutes < 1 ? ct(lang, 'time.lessThanMinute') : ct(lang, minutes === 1 ? 'time.aboutMinute' : 'time.aboutMinutes', { minutes });
}

/** After these a long address or reference may break: name@, domain dots, dashes, underscores, slashes. */
const BREAK_AFTER = /(?<=[@._/-])/;

/**
 * A long e-mail address, reference or URL that may wrap at its own seams (a <wbr> after each
 * @ . - _ /) instead of mid-word; the CSS's overflow-wrap breaks anywhere only what still does not
 * fit. Escaped like any text.
 */
export function Breakable(p: { text: string }): SafeHtml {
  const parts = p.text.split(BREAK_AFTER);
  return <>{parts.map((part, i) => (i === 0 ? part : [<wbr />, part]))}</>;
}

// What the webhooks pages share: an event's name with its code, and the fields of a subscription's
// form (the list's add form and a subscription's edit form).
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { EVENT_CODES, eventName, isKnownEvent } from '../../../webhooks/catalogue.ts';
import { ct } from '../texts.ts';
import { FieldError } from './developers.tsx';

export function EventName(p: { lang: Lang; code: string }): SafeHtml {
  return (
    <span class="event">
      <span class="event-name">{eventName(p.lang, p.code)}</span>
      <code class="sub">{p.code}</code>
    </span>
  );
}

/** The event codes a form offers: the known ones, and `current` when it is another (kept, never sent). */
function eventOptions(lang: Lang, current: string | undefined, taken: ReadonlySet<string>): Array<[string, string]> {
  const codes: string[] = [...EVENT_CODES];
  if (current && !isKnownEvent(current)) codes.push(current);
  return codes.map((code) => [code, `${eventName(lang, code)} (${code})${taken.has(code) && code !== current ? ` · ${ct(lang, 'developers.webhook.taken')}` : ''}`]);
}

export function UrlField(p: { lang: Lang; id: string; value: string; error?: string }): SafeHtml {
  return (
    <div class="field">
      <label for={p.id}>{ct(p.lang, 'developers.webhook.url')}</label>
      <input
        id={p.id}
        name="url"
        type="url"
        inputmode="url"
        autocomplete="off"
        spellcheck="false"
        maxlength={2048}
        value={p.value}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={p.error ? `${p.id}-error ${p.id}-hint` : `${p.id}-hint`}
      />
      <p class="hint" id={`${p.id}-hint`}>
        {ct(p.lang, 'developers.webhook.urlHint')}
      </p>
      <FieldError id={`${p.id}-error`} message={p.error} />
    </div>
  );
}

export function EventField(p: { lang: Lang; id: string; value: string; taken: ReadonlySet<string>; error?: string }): SafeHtml {
  return (
    <div class="field">
      <label for={p.id}>{ct(p.lang, 'developers.webhook.event')}</label>
      <select id={p.id} name="event" aria-invalid={p.error ? 'true' : undefined} aria-describedby={p.error ? `${p.id}-error` : undefined}>
        {eventOptions(p.lang, p.value, p.taken).map(([code, name]) => (
          <option value={code} selected={p.value === code}>
            {name}
          </option>
        ))}
      </select>
      <FieldError id={`${p.id}-error`} message={p.error} />
    </div>
  );
}


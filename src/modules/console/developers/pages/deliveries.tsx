// The delivery log: the merchant's webhook deliveries, newest first, filtered by status and event,
// keyset paged (htmx swaps the results region alone), each delivery's attempts summed up; redeliver
// one, or every failed one of a period.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { EVENT_CODES, eventName } from '../../../webhooks/catalogue.ts';
import { DELIVERY_STATUSES, type DeliveryItem } from '../../../webhooks/delivery-log.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Cell, Choice, Pager, When, withQuery } from '../../kit/lists.tsx';
import { Breakable } from '../../kit/display.tsx';
import { Alerts, ButtonForm, DELIVERIES_PATH, deliveryPath, DevelopersLayout, FieldError, FormFields, REDELIVER_FAILED_PATH, redeliverPath, Tabs, type FormState } from './developers.tsx';
import { EventName } from './webhook-parts.tsx';

export const DELIVERIES_REGION = 'delivery-results';

export interface DeliveryFilterValues {
  status: string;
  event: string;
  after: string;
}

function deliveryStatusName(lang: Lang, status: string): string {
  return (DELIVERY_STATUSES as readonly string[]).includes(status) ? ct(lang, `developers.delivery.status.${status}` as TextKey) : status;
}

export function DeliveryStatusBadge(p: { lang: Lang; status: string }): SafeHtml {
  return <span class={`status status-delivery-${p.status}`}>{deliveryStatusName(p.lang, p.status)}</span>;
}

/** "HTTP 500 · 12 ms", or the connection's error. */
function attemptOutcome(lang: Lang, a: { httpStatus: number | null; latencyMs: number; error: string | null }): string {
  const answer = a.httpStatus !== null ? ct(lang, 'developers.delivery.http', { status: a.httpStatus }) : (a.error ?? ct(lang, 'developers.delivery.noAnswer'));
  return `${answer} · ${ct(lang, 'developers.delivery.ms', { ms: a.latencyMs })}`;
}

function AttemptsSummary(p: { lang: Lang; d: DeliveryItem }): SafeHtml {
  const { lang, d } = p;
  return (
    <span class="attempts-summary">
      <span class="attempt-count">{ct(lang, 'developers.delivery.attemptCount', { count: d.totalAttempts })}</span>
      {d.last ? (
        <span class={d.last.httpStatus !== null && d.last.httpStatus >= 200 && d.last.httpStatus < 300 ? 'sub' : 'sub error-text'}>
          {ct(lang, 'developers.delivery.last', { outcome: attemptOutcome(lang, d.last) })}
        </span>
      ) : null}
      {d.status === 'pending' ? (
        <span class="sub">
          {ct(lang, 'developers.delivery.next')} <When at={d.nextAttemptAt} lang={lang} />
        </span>
      ) : null}
    </span>
  );
}

/** One delivery in the log: when, its event, status, attempts, and opening or redelivering it. */
function DeliveryRow(p: { context: ConsoleContext; d: DeliveryItem }): SafeHtml {
  const { context, d } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <tr id={`delivery-${d.deliveryId}`} data-status={d.status}>
      <Cell row label={label('developers.delivery.col.delivery')}>
        <a href={deliveryPath(d.deliveryId)} id={`open-delivery-${d.deliveryId}`}>
          {ct(lang, 'developers.delivery.number', { id: d.deliveryId })}
        </a>
        <span class="sub">
          <When at={d.createdAt} lang={lang} />
        </span>
      </Cell>
      <Cell label={label('developers.webhook.event')}>
        <EventName lang={lang} code={d.eventCode} />
        {d.isTest ? <span class="chip chip-test">{ct(lang, 'developers.delivery.test')}</span> : null}
        <code class="sub callback-url">
          <Breakable text={d.callbackUrl} />
        </code>
      </Cell>
      <Cell label={label('developers.delivery.col.status')}>
        <DeliveryStatusBadge lang={lang} status={d.status} />
      </Cell>
      <Cell label={label('developers.delivery.col.attempts')}>
        <AttemptsSummary lang={lang} d={d} />
      </Cell>
      <Cell label={label('developers.key.col.actions')}>
        <div class="row-actions">
          <a class="link-button" href={deliveryPath(d.deliveryId)}>
            {ct(lang, 'developers.delivery.open')}
          </a>
          {d.redeliverable && d.status !== 'pending' ? (
            <ButtonForm context={context} action={redeliverPath(d.deliveryId)} label={ct(lang, 'developers.delivery.redeliver')} id={`redeliver-${d.deliveryId}`} />
          ) : null}
        </div>
      </Cell>
    </tr>
  );
}

function DeliveriesTable(p: { context: ConsoleContext; items: DeliveryItem[] }): SafeHtml {
  const lang = p.context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <table class="stack-table" id="deliveries-table">
      <caption class="visually-hidden">{ct(lang, 'developers.deliveries.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{label('developers.delivery.col.delivery')}</th>
          <th scope="col">{label('developers.webhook.event')}</th>
          <th scope="col">{label('developers.delivery.col.status')}</th>
          <th scope="col">{label('developers.delivery.col.attempts')}</th>
          <th scope="col">{label('developers.key.col.actions')}</th>
        </tr>
      </thead>
      <tbody>
        {p.items.map((d) => (
          <DeliveryRow context={p.context} d={d} />
        ))}
      </tbody>
    </table>
  );
}

/** The region htmx swaps: the filter's problem, or the page of deliveries (or none), and the pager. */
export function DeliveriesResults(p: { context: ConsoleContext; page: Page<DeliveryItem>; filter: DeliveryFilterValues; problem?: string; swapped: boolean }): SafeHtml {
  const { context, page, filter } = p;
  const lang = context.lang;
  return (
    <section class="results" id={DELIVERIES_REGION} aria-labelledby={`${DELIVERIES_REGION}-title`}>
      <h2 id={`${DELIVERIES_REGION}-title`} tabindex="-1" autofocus={p.swapped}>
        {ct(lang, 'developers.deliveries.list')}
      </h2>
      {p.problem ? (
        <p class="alert alert-error" role="alert" id="deliveries-problem">
          {p.problem}
        </p>
      ) : page.items.length === 0 ? (
        <p class="empty" id="deliveries-empty">
          {ct(lang, filter.status || filter.event ? 'developers.deliveries.noneMatch' : 'developers.deliveries.none')}
        </p>
      ) : (
        <DeliveriesTable context={context} items={page.items} />
      )}
      {p.problem ? null : (
        <Pager
          lang={lang}
          label={ct(lang, 'developers.deliveries.pages')}
          target={DELIVERIES_REGION}
          firstUrl={withQuery(DELIVERIES_PATH, { status: filter.status, event: filter.event })}
          nextUrl={page.next ? withQuery(DELIVERIES_PATH, { status: filter.status, event: filter.event, after: page.next }) : null}
          onFirstPage={!filter.after}
        />
      )}
    </section>
  );
}

export interface DeliveriesView {
  context: ConsoleContext;
  page: Page<DeliveryItem>;
  filter: DeliveryFilterValues;
  problem?: string;
  /** Event codes for the filter besides the known ones (the subscriptions'). */
  eventCodes: string[];
  redeliverForm: FormState;
  notice?: string;
  /** What the notice adds (how many deliveries were queued again). */
  noticeExtra?: string;
  error?: string;
}

/** The log's filter (status, event): a plain GET form that htmx turns into a swap of the results region. */
function DeliveriesFilter(p: { lang: Lang; filter: DeliveryFilterValues; eventCodes: string[] }): SafeHtml {
  const { lang, filter } = p;
  const codes = [...new Set<string>([...EVENT_CODES, ...p.eventCodes])];
  const statusOptions: Array<[string, string]> = [['', ct(lang, 'developers.deliveries.allStatuses')], ...DELIVERY_STATUSES.map((s): [string, string] => [s, deliveryStatusName(lang, s)])];
  const eventOptions: Array<[string, string]> = [['', ct(lang, 'developers.deliveries.allEvents')], ...codes.map((c): [string, string] => [c, `${eventName(lang, c)} (${c})`])];
  return (
    <form class="filters card" method="get" action={DELIVERIES_PATH} hx-get={DELIVERIES_PATH} hx-target={`#${DELIVERIES_REGION}`} hx-swap="outerHTML" hx-push-url="true" aria-label={ct(lang, 'developers.deliveries.filter')}>
      <Choice id="filter-status" name="status" label={ct(lang, 'developers.delivery.col.status')} value={filter.status} options={statusOptions} />
      <Choice id="filter-event" name="event" label={ct(lang, 'developers.webhook.event')} value={filter.event} options={eventOptions} />
      <div class="filter-actions">
        <button class="button" type="submit" id="deliveries-filter-submit">
          {ct(lang, 'developers.deliveries.apply')}
        </button>
      </div>
    </form>
  );
}

/** One day field of the "redeliver failed" form (both describe themselves with the form's hint). */
function DayField(p: { lang: Lang; name: 'from' | 'to'; form: FormState }): SafeHtml {
  const id = `redeliver-${p.name}`;
  const error = p.form.errors[p.name];
  return (
    <div class="field">
      <label for={id}>{ct(p.lang, p.name === 'from' ? 'developers.redeliverFailed.from' : 'developers.redeliverFailed.to')}</label>
      <input id={id} name={p.name} type="date" value={p.form.values[p.name] ?? ''} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error redeliver-hint` : 'redeliver-hint'} />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** The form that redelivers every failed delivery created in a period. */
function RedeliverFailedForm(p: { context: ConsoleContext; form: FormState }): SafeHtml {
  const { context, form } = p;
  const lang = context.lang;
  return (
    <section class="card" aria-labelledby="redeliver-failed-title" id="redeliver-failed">
      <h2 id="redeliver-failed-title">{ct(lang, 'developers.redeliverFailed.title')}</h2>
      <p>{ct(lang, 'developers.redeliverFailed.text')}</p>
      {form.message ? (
        <p class="alert alert-error" role="alert" id="redeliver-failed-error">
          {form.message}
        </p>
      ) : null}
      <form method="post" action={REDELIVER_FAILED_PATH} class="developer-form range-form" data-once="" novalidate>
        <FormFields context={context} />
        <DayField lang={lang} name="from" form={form} />
        <DayField lang={lang} name="to" form={form} />
        <p class="hint range-hint" id="redeliver-hint">
          {ct(lang, 'developers.redeliverFailed.hint')}
        </p>
        <button class="button" type="submit" id="redeliver-failed-submit">
          {ct(lang, 'developers.redeliverFailed.submit')}
        </button>
      </form>
    </section>
  );
}

export function DeliveriesPage(p: DeliveriesView): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.deliveries.title')} languageUrl={DELIVERIES_PATH}>
      <h1>{ct(lang, 'developers.deliveries.title')}</h1>
      <Tabs lang={lang} current="deliveries" />
      <Alerts notice={p.notice} extra={p.noticeExtra} error={p.error} />
      <p class="lead">{ct(lang, 'developers.deliveries.intro')}</p>
      <DeliveriesFilter lang={lang} filter={p.filter} eventCodes={p.eventCodes} />
      <DeliveriesResults context={context} page={p.page} filter={p.filter} problem={p.problem} swapped={false} />
      <RedeliverFailedForm context={context} form={p.redeliverForm} />
    </DevelopersLayout>
  );
}

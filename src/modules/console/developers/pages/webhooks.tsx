// The webhooks pages: the subscriptions (one per event code: its callback URL, when and by whom)
// with the form that adds one; a subscription's page (change it, its signing secrets behind a
// disclosure, check a signature with POST /merchants/webhooks/verify's rule, send a test event,
// delete it); the delivery log (newest first, filtered by status and event, keyset paged, each
// delivery's attempts summed up, redeliver one or every failed one of a period); a delivery's page
// (the request as sent, signatures masked, and every attempt: status, timing, the response's first
// bytes, escaped).
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { EVENT_CODES, eventName, isKnownEvent } from '../../../webhooks/catalogue.ts';
import { DELIVERY_STATUSES, type AttemptView, type DeliveryDetail, type DeliveryItem } from '../../../webhooks/delivery-log.ts';
import type { Subscription } from '../queries.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Cell, Choice, Pager, When, withQuery } from '../../kit/lists.tsx';
import {
  Alerts,
  Breadcrumbs,
  ButtonForm,
  ConfirmForm,
  CopyButton,
  DELIVERIES_PATH,
  deliveryPath,
  DevelopersLayout,
  FieldError,
  FormFields,
  REDELIVER_FAILED_PATH,
  redeliverPath,
  Tabs,
  WEBHOOK_ADD_PATH,
  webhookActionPath,
  webhookPath,
  WEBHOOKS_PATH,
  type FormState,
} from './developers.tsx';

/** The response excerpt shown per attempt (the dispatcher keeps 1 KB). */
export const RESPONSE_SHOWN_CHARS = 500;
/** What a masked header value shows instead of the secret. */
export const MASK = '••••••••';

// ---------------------------------------------------------------------------------------------
// Shared bits

function EventName(p: { lang: Lang; code: string }): SafeHtml {
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

function UrlField(p: { lang: Lang; id: string; value: string; error?: string }): SafeHtml {
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

function EventField(p: { lang: Lang; id: string; value: string; taken: ReadonlySet<string>; error?: string }): SafeHtml {
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

// ---------------------------------------------------------------------------------------------
// Subscriptions

export interface WebhooksView {
  context: ConsoleContext;
  subscriptions: Subscription[];
  form: FormState;
  notice?: string;
  error?: string;
}

export function WebhooksPage(p: WebhooksView): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const taken = new Set(p.subscriptions.map((s) => s.event_code));
  const label = (key: TextKey) => ct(lang, key);
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.webhooks.title')} languageUrl={WEBHOOKS_PATH}>
      <h1>{ct(lang, 'developers.webhooks.title')}</h1>
      <Tabs lang={lang} current="webhooks" />
      <Alerts notice={p.notice} error={p.error} />
      <p class="lead">{ct(lang, 'developers.webhooks.intro')}</p>
      <section class="results" aria-labelledby="subscriptions-title">
        <h2 id="subscriptions-title">{ct(lang, 'developers.webhooks.list')}</h2>
        {p.subscriptions.length === 0 ? (
          <p class="empty" id="subscriptions-empty">
            {ct(lang, 'developers.webhooks.none')}
          </p>
        ) : (
          <table class="stack-table" id="subscriptions-table">
            <caption class="visually-hidden">{ct(lang, 'developers.webhooks.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{label('developers.webhook.event')}</th>
                <th scope="col">{label('developers.webhook.url')}</th>
                <th scope="col">{label('developers.webhook.created')}</th>
                <th scope="col">{label('developers.key.col.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {p.subscriptions.map((s) => (
                <tr id={`webhook-${s.webhook_id}`} data-event-code={s.event_code}>
                  <Cell row label={label('developers.webhook.event')}>
                    <a class="event-link" href={webhookPath(s.webhook_id)} id={`open-webhook-${s.webhook_id}`}>
                      {eventName(lang, s.event_code)}
                    </a>
                    <code class="sub">{s.event_code}</code>
                  </Cell>
                  <Cell label={label('developers.webhook.url')}>
                    <code class="callback-url">{s.callback_url}</code>
                  </Cell>
                  <Cell label={label('developers.webhook.created')}>
                    <When at={s.date_created} lang={lang} />
                    <span class="sub">{ct(lang, 'developers.by', { who: s.created_by })}</span>
                  </Cell>
                  <Cell label={label('developers.key.col.actions')}>
                    <div class="row-actions">
                      <a class="link-button" href={webhookPath(s.webhook_id)} id={`manage-webhook-${s.webhook_id}`}>
                        {ct(lang, 'developers.webhook.manage')}
                      </a>
                      {isKnownEvent(s.event_code) ? (
                        <ButtonForm context={context} action={webhookActionPath(s.webhook_id, 'test')} label={ct(lang, 'developers.webhook.test')} id={`test-webhook-${s.webhook_id}`} />
                      ) : null}
                      <a class="link-button" href={withQuery(DELIVERIES_PATH, { event: s.event_code })}>
                        {ct(lang, 'developers.webhook.deliveries')}
                      </a>
                    </div>
                  </Cell>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card" aria-labelledby="add-title" id="add">
        <h2 id="add-title">{ct(lang, 'developers.webhook.addTitle')}</h2>
        {p.form.message ? (
          <p class="alert alert-error" role="alert" id="add-error">
            {p.form.message}
          </p>
        ) : null}
        <form method="post" action={WEBHOOK_ADD_PATH} class="developer-form" data-once="" novalidate>
          <FormFields context={context} />
          <EventField lang={lang} id="add-event" value={p.form.values.event ?? ''} taken={taken} error={p.form.errors.event} />
          <UrlField lang={lang} id="add-url" value={p.form.values.url ?? ''} error={p.form.errors.url} />
          <button class="button" type="submit" id="add-submit">
            {ct(lang, 'developers.webhook.add')}
          </button>
        </form>
      </section>
    </DevelopersLayout>
  );
}

export interface WebhookView {
  context: ConsoleContext;
  subscription: Subscription;
  /** The other subscriptions' event codes (a change to one of them is refused). */
  taken: ReadonlySet<string>;
  edit: FormState;
  verify: FormState & { result?: boolean };
  notice?: string;
  error?: string;
}

export function WebhookPage(p: WebhookView): SafeHtml {
  const { context, subscription: s } = p;
  const lang = context.lang;
  const title = ct(lang, 'developers.webhook.title', { event: eventName(lang, s.event_code) });
  return (
    <DevelopersLayout context={context} title={title} languageUrl={webhookPath(s.webhook_id)}>
      <Breadcrumbs lang={lang} trail={[[WEBHOOKS_PATH, ct(lang, 'developers.webhooks.title')]]} />
      <h1>{title}</h1>
      <Alerts notice={p.notice} error={p.error} />
      <section class="card" aria-labelledby="facts-title">
        <h2 id="facts-title">{ct(lang, 'developers.webhook.details')}</h2>
        <dl class="facts">
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.event')}</dt>
            <dd>
              <EventName lang={lang} code={s.event_code} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.url')}</dt>
            <dd>
              <code class="callback-url" id="webhook-url">
                {s.callback_url}
              </code>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.created')}</dt>
            <dd>
              <When at={s.date_created} lang={lang} />
              <span class="sub">{ct(lang, 'developers.by', { who: s.created_by })}</span>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.changed')}</dt>
            <dd>
              {s.date_modified ? (
                <span>
                  <When at={s.date_modified} lang={lang} />
                  <span class="sub">{ct(lang, 'developers.by', { who: s.modified_by ?? '' })}</span>
                </span>
              ) : (
                <span class="muted">{ct(lang, 'developers.never')}</span>
              )}
            </dd>
          </div>
        </dl>
        <div class="row-actions card-actions">
          {isKnownEvent(s.event_code) ? (
            <ButtonForm context={context} action={webhookActionPath(s.webhook_id, 'test')} label={ct(lang, 'developers.webhook.test')} id="test-webhook" />
          ) : null}
          <a class="link-button" href={withQuery(DELIVERIES_PATH, { event: s.event_code })} id="webhook-deliveries">
            {ct(lang, 'developers.webhook.deliveries')}
          </a>
        </div>
      </section>

      <section class="card" aria-labelledby="edit-title" id="edit">
        <h2 id="edit-title">{ct(lang, 'developers.webhook.editTitle')}</h2>
        {p.edit.message ? (
          <p class="alert alert-error" role="alert" id="edit-error">
            {p.edit.message}
          </p>
        ) : null}
        <form method="post" action={webhookActionPath(s.webhook_id, 'edit')} class="developer-form" data-once="" novalidate>
          <FormFields context={context} />
          <EventField lang={lang} id="edit-event" value={p.edit.values.event ?? s.event_code} taken={p.taken} error={p.edit.errors.event} />
          <UrlField lang={lang} id="edit-url" value={p.edit.values.url ?? s.callback_url} error={p.edit.errors.url} />
          <button class="button" type="submit" id="edit-submit">
            {ct(lang, 'developers.webhook.save')}
          </button>
        </form>
      </section>

      <section class="card" aria-labelledby="secrets-title" id="secrets">
        <h2 id="secrets-title">{ct(lang, 'developers.webhook.secretsTitle')}</h2>
        <p>{ct(lang, 'developers.webhook.secretsText')}</p>
        <details class="secrets" id="secrets-details">
          <summary class="link-button">{ct(lang, 'developers.webhook.showSecrets')}</summary>
          <dl class="facts secret-facts">
            <div class="fact">
              <dt>
                <code>X-OneKhusa-Webhook-Signature</code>
              </dt>
              <dd>
                <code class="secret-value" id="webhook-signature">
                  {s.webhook_signature}
                </code>
                <CopyButton lang={lang} target="#webhook-signature" id="copy-signature" label={ct(lang, 'developers.copy')} />
              </dd>
            </div>
            <div class="fact">
              <dt>{ct(lang, 'developers.webhook.signingSecret')}</dt>
              <dd>
                <code class="secret-value" id="signing-secret">
                  {s.signing_secret}
                </code>
                <CopyButton lang={lang} target="#signing-secret" id="copy-signing-secret" label={ct(lang, 'developers.copy')} />
              </dd>
            </div>
          </dl>
        </details>
      </section>

      <section class="card" aria-labelledby="verify-title" id="verify">
        <h2 id="verify-title">{ct(lang, 'developers.webhook.verifyTitle')}</h2>
        <p>{ct(lang, 'developers.webhook.verifyText')}</p>
        {p.verify.message ? (
          <p class="alert alert-error" role="alert" id="verify-error">
            {p.verify.message}
          </p>
        ) : null}
        <form method="post" action={webhookActionPath(s.webhook_id, 'verify')} class="developer-form" data-once="" novalidate>
          <FormFields context={context} />
          <div class="field">
            <label for="verify-signature">{ct(lang, 'developers.webhook.signatureField')}</label>
            <input
              id="verify-signature"
              name="signature"
              type="text"
              autocomplete="off"
              spellcheck="false"
              maxlength={200}
              value={p.verify.values.signature ?? ''}
              aria-invalid={p.verify.errors.signature ? 'true' : undefined}
              aria-describedby={p.verify.errors.signature ? 'verify-signature-error' : undefined}
            />
            <FieldError id="verify-signature-error" message={p.verify.errors.signature} />
          </div>
          <button class="button" type="submit" id="verify-submit">
            {ct(lang, 'developers.webhook.verify')}
          </button>
        </form>
      </section>

      <section class="card" aria-labelledby="delete-title">
        <h2 id="delete-title">{ct(lang, 'developers.webhook.deleteTitle')}</h2>
        <p>{ct(lang, 'developers.webhook.deleteText')}</p>
        <ConfirmForm
          context={context}
          action={webhookActionPath(s.webhook_id, 'delete')}
          summary={ct(lang, 'developers.webhook.delete')}
          text={ct(lang, 'developers.webhook.deleteConfirmText', { event: s.event_code })}
          confirm={ct(lang, 'developers.webhook.deleteConfirm')}
          id="delete-webhook"
        />
      </section>
    </DevelopersLayout>
  );
}

// ---------------------------------------------------------------------------------------------
// The delivery log

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

export function DeliveriesResults(p: { context: ConsoleContext; page: Page<DeliveryItem>; filter: DeliveryFilterValues; problem?: string; swapped: boolean }): SafeHtml {
  const { context, page, filter } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
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
            {page.items.map((d) => (
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
                  <code class="sub callback-url">{d.callbackUrl}</code>
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
            ))}
          </tbody>
        </table>
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

export function DeliveriesPage(p: DeliveriesView): SafeHtml {
  const { context, filter } = p;
  const lang = context.lang;
  const codes = [...new Set<string>([...EVENT_CODES, ...p.eventCodes])];
  const statusOptions: Array<[string, string]> = [['', ct(lang, 'developers.deliveries.allStatuses')], ...DELIVERY_STATUSES.map((s): [string, string] => [s, deliveryStatusName(lang, s)])];
  const eventOptions: Array<[string, string]> = [['', ct(lang, 'developers.deliveries.allEvents')], ...codes.map((c): [string, string] => [c, `${eventName(lang, c)} (${c})`])];
  const form = p.redeliverForm;
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.deliveries.title')} languageUrl={DELIVERIES_PATH}>
      <h1>{ct(lang, 'developers.deliveries.title')}</h1>
      <Tabs lang={lang} current="deliveries" />
      <Alerts notice={p.notice} extra={p.noticeExtra} error={p.error} />
      <p class="lead">{ct(lang, 'developers.deliveries.intro')}</p>
      <form class="filters card" method="get" action={DELIVERIES_PATH} hx-get={DELIVERIES_PATH} hx-target={`#${DELIVERIES_REGION}`} hx-swap="outerHTML" hx-push-url="true" aria-label={ct(lang, 'developers.deliveries.filter')}>
        <Choice id="filter-status" name="status" label={ct(lang, 'developers.delivery.col.status')} value={filter.status} options={statusOptions} />
        <Choice id="filter-event" name="event" label={ct(lang, 'developers.webhook.event')} value={filter.event} options={eventOptions} />
        <div class="filter-actions">
          <button class="button" type="submit" id="deliveries-filter-submit">
            {ct(lang, 'developers.deliveries.apply')}
          </button>
        </div>
      </form>
      <DeliveriesResults context={context} page={p.page} filter={filter} problem={p.problem} swapped={false} />
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
          <div class="field">
            <label for="redeliver-from">{ct(lang, 'developers.redeliverFailed.from')}</label>
            <input
              id="redeliver-from"
              name="from"
              type="date"
              value={form.values.from ?? ''}
              aria-invalid={form.errors.from ? 'true' : undefined}
              aria-describedby={form.errors.from ? 'redeliver-from-error redeliver-hint' : 'redeliver-hint'}
            />
            <FieldError id="redeliver-from-error" message={form.errors.from} />
          </div>
          <div class="field">
            <label for="redeliver-to">{ct(lang, 'developers.redeliverFailed.to')}</label>
            <input
              id="redeliver-to"
              name="to"
              type="date"
              value={form.values.to ?? ''}
              aria-invalid={form.errors.to ? 'true' : undefined}
              aria-describedby={form.errors.to ? 'redeliver-to-error redeliver-hint' : 'redeliver-hint'}
            />
            <FieldError id="redeliver-to-error" message={form.errors.to} />
          </div>
          <p class="hint range-hint" id="redeliver-hint">
            {ct(lang, 'developers.redeliverFailed.hint')}
          </p>
          <button class="button" type="submit" id="redeliver-failed-submit">
            {ct(lang, 'developers.redeliverFailed.submit')}
          </button>
        </form>
      </section>
    </DevelopersLayout>
  );
}

// ---------------------------------------------------------------------------------------------
// One delivery

function Attempt(p: { lang: Lang; a: AttemptView }): SafeHtml {
  const { lang, a } = p;
  const ok = a.httpStatus !== null && a.httpStatus >= 200 && a.httpStatus < 300;
  const snippet = a.responseSnippet ?? '';
  const shown = snippet.length > RESPONSE_SHOWN_CHARS ? `${snippet.slice(0, RESPONSE_SHOWN_CHARS)}…` : snippet;
  return (
    <li class="attempt" id={`attempt-${a.attemptNumber}`}>
      <h3 class="attempt-title">
        {ct(lang, 'developers.delivery.attempt', { n: a.attemptNumber })}
        {' · '}
        <When at={a.attemptedAt} lang={lang} />
      </h3>
      <dl class="facts">
        <div class="fact">
          <dt>{ct(lang, 'developers.delivery.response')}</dt>
          <dd class={ok ? 'attempt-ok' : 'error-text'}>{a.httpStatus !== null ? ct(lang, 'developers.delivery.http', { status: a.httpStatus }) : ct(lang, 'developers.delivery.noAnswer')}</dd>
        </div>
        {a.error ? (
          <div class="fact">
            <dt>{ct(lang, 'developers.delivery.error')}</dt>
            <dd class="error-text">{a.error}</dd>
          </div>
        ) : null}
        <div class="fact">
          <dt>{ct(lang, 'developers.delivery.timing')}</dt>
          <dd>{ct(lang, 'developers.delivery.ms', { ms: a.latencyMs })}</dd>
        </div>
        <div class="fact">
          <dt>{ct(lang, 'developers.delivery.responseBody')}</dt>
          <dd>{snippet === '' ? <span class="muted">{ct(lang, 'developers.delivery.emptyBody')}</span> : <pre class="excerpt" tabindex="0" role="region" aria-label={ct(lang, 'developers.delivery.responseOf', { n: a.attemptNumber })}>{shown}</pre>}</dd>
        </div>
      </dl>
    </li>
  );
}

export function DeliveryPage(p: { context: ConsoleContext; delivery: DeliveryDetail; headers: Array<[string, string]>; notice?: string; error?: string }): SafeHtml {
  const { context, delivery: d } = p;
  const lang = context.lang;
  const title = ct(lang, 'developers.delivery.number', { id: d.deliveryId });
  return (
    <DevelopersLayout context={context} title={title} languageUrl={deliveryPath(d.deliveryId)}>
      <Breadcrumbs lang={lang} trail={[[DELIVERIES_PATH, ct(lang, 'developers.deliveries.title')]]} />
      <h1>{title}</h1>
      <Alerts notice={p.notice} error={p.error} />
      <section class="card" aria-labelledby="delivery-facts-title">
        <h2 id="delivery-facts-title">{ct(lang, 'developers.delivery.details')}</h2>
        <dl class="facts">
          <div class="fact">
            <dt>{ct(lang, 'developers.delivery.col.status')}</dt>
            <dd id="delivery-status">
              <DeliveryStatusBadge lang={lang} status={d.status} />
              {d.isTest ? ' ' : null}
              {d.isTest ? <span class="chip">{ct(lang, 'developers.delivery.test')}</span> : null}
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.event')}</dt>
            <dd>
              <EventName lang={lang} code={d.eventCode} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.webhook.url')}</dt>
            <dd>
              <code class="callback-url">{d.callbackUrl}</code>
            </dd>
          </div>
          <div class="fact">
            <dt>webhook-id</dt>
            <dd>
              <code>{d.messageId}</code>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.delivery.created')}</dt>
            <dd>
              <When at={d.createdAt} lang={lang} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, d.status === 'pending' ? 'developers.delivery.next' : 'developers.delivery.completed')}</dt>
            <dd>
              <When at={d.status === 'pending' ? d.nextAttemptAt : d.completedAt} lang={lang} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.delivery.col.attempts')}</dt>
            <dd id="delivery-attempts">{ct(lang, 'developers.delivery.attemptCount', { count: d.totalAttempts })}</dd>
          </div>
        </dl>
        <div class="row-actions card-actions">
          {d.redeliverable && d.status !== 'pending' ? (
            <ButtonForm context={context} action={redeliverPath(d.deliveryId)} label={ct(lang, 'developers.delivery.redeliver')} id="redeliver" kind="button" />
          ) : null}
          {!d.redeliverable ? <p class="hint">{ct(lang, 'developers.delivery.notRedeliverable')}</p> : null}
        </div>
      </section>

      <section class="card" aria-labelledby="request-title" id="request">
        <h2 id="request-title">{ct(lang, 'developers.delivery.request')}</h2>
        <p>
          <code>POST</code> <code class="callback-url">{d.callbackUrl}</code>
        </p>
        <p class="hint">{ct(lang, 'developers.delivery.headersHint')}</p>
        <table class="headers-table" id="request-headers">
          <caption class="visually-hidden">{ct(lang, 'developers.delivery.headers')}</caption>
          <thead>
            <tr>
              <th scope="col">{ct(lang, 'developers.delivery.header')}</th>
              <th scope="col">{ct(lang, 'developers.delivery.value')}</th>
            </tr>
          </thead>
          <tbody>
            {p.headers.map(([name, value]) => (
              <tr>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <code class={value === MASK ? 'masked' : undefined}>{value}</code>
                  {value === MASK ? <span class="sub">{ct(lang, 'developers.delivery.masked')}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3 class="table-title" id="request-body-title">
          {ct(lang, 'developers.delivery.body')}
        </h3>
        <pre class="excerpt" id="request-body" tabindex="0" role="region" aria-labelledby="request-body-title">
          {d.body}
          {d.bodyCut ? '…' : ''}
        </pre>
      </section>

      <section class="card" aria-labelledby="attempts-title" id="attempts">
        <h2 id="attempts-title">{ct(lang, 'developers.delivery.attempts')}</h2>
        {d.attempts.length === 0 ? (
          <p class="muted" id="attempts-none">
            {ct(lang, 'developers.delivery.noAttempts')}
          </p>
        ) : (
          <ol class="attempts" id="attempts-list" reversed>
            {d.attempts.map((a) => (
              <Attempt lang={lang} a={a} />
            ))}
          </ol>
        )}
        {d.totalAttempts > d.attempts.length && d.attempts.length > 0 ? <p class="hint">{ct(lang, 'developers.delivery.olderAttempts', { shown: d.attempts.length })}</p> : null}
      </section>
    </DevelopersLayout>
  );
}

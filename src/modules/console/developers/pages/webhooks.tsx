// The webhooks pages: the subscriptions (one per event code: its callback URL, when and by whom)
// with the form that adds one; a subscription's page (change it, its signing secrets behind a
// disclosure, check a signature with POST /merchants/webhooks/verify's rule, send a test event,
// delete it). The delivery log is deliveries.tsx, a delivery's page delivery.tsx.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { eventName, isKnownEvent } from '../../../webhooks/catalogue.ts';
import type { Subscription } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Cell, When, withQuery } from '../../kit/lists.tsx';
import { Breakable } from '../../kit/display.tsx';
import {
  Alerts,
  Breadcrumbs,
  ButtonForm,
  ConfirmForm,
  CopyButton,
  DELIVERIES_PATH,
  DevelopersLayout,
  FieldError,
  FormFields,
  Tabs,
  WEBHOOK_ADD_PATH,
  webhookActionPath,
  webhookPath,
  WEBHOOKS_PATH,
  type FormState,
} from './developers.tsx';
import { EventField, EventName, UrlField } from './webhook-parts.tsx';

// ---------------------------------------------------------------------------------------------
// Subscriptions

export interface WebhooksView {
  context: ConsoleContext;
  subscriptions: Subscription[];
  form: FormState;
  notice?: string;
  error?: string;
}

/** One subscription in the list: its event, callback URL, creation, and what can be done with it. */
function SubscriptionRow(p: { context: ConsoleContext; s: Subscription }): SafeHtml {
  const { context, s } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <tr id={`webhook-${s.webhook_id}`} data-event-code={s.event_code}>
      <Cell row label={label('developers.webhook.event')}>
        <a class="event-link" href={webhookPath(s.webhook_id)} id={`open-webhook-${s.webhook_id}`}>
          {eventName(lang, s.event_code)}
        </a>
        <code class="sub">{s.event_code}</code>
      </Cell>
      <Cell label={label('developers.webhook.url')}>
        <code class="callback-url">
          <Breakable text={s.callback_url} />
        </code>
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
  );
}

/** The merchant's subscriptions, or a line saying there are none. */
function SubscriptionsList(p: { context: ConsoleContext; subscriptions: Subscription[] }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
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
              <SubscriptionRow context={context} s={s} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The form that adds a subscription; `taken`: the event codes already subscribed (marked in its choice). */
function AddSubscriptionForm(p: { context: ConsoleContext; form: FormState; taken: ReadonlySet<string> }): SafeHtml {
  const { context, form } = p;
  const lang = context.lang;
  return (
    <section class="card" aria-labelledby="add-title" id="add">
      <h2 id="add-title">{ct(lang, 'developers.webhook.addTitle')}</h2>
      {form.message ? (
        <p class="alert alert-error" role="alert" id="add-error">
          {form.message}
        </p>
      ) : null}
      <form method="post" action={WEBHOOK_ADD_PATH} class="developer-form" data-once="" novalidate>
        <FormFields context={context} />
        <EventField lang={lang} id="add-event" value={form.values.event ?? ''} taken={p.taken} error={form.errors.event} />
        <UrlField lang={lang} id="add-url" value={form.values.url ?? ''} error={form.errors.url} />
        <button class="button" type="submit" id="add-submit">
          {ct(lang, 'developers.webhook.add')}
        </button>
      </form>
    </section>
  );
}

export function WebhooksPage(p: WebhooksView): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const taken = new Set(p.subscriptions.map((s) => s.event_code));
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.webhooks.title')} languageUrl={WEBHOOKS_PATH}>
      <h1>{ct(lang, 'developers.webhooks.title')}</h1>
      <Tabs lang={lang} current="webhooks" />
      <Alerts notice={p.notice} error={p.error} />
      <p class="lead">{ct(lang, 'developers.webhooks.intro')}</p>
      <SubscriptionsList context={context} subscriptions={p.subscriptions} />
      <AddSubscriptionForm context={context} form={p.form} taken={taken} />
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

/** What each part of a subscription's page is given. */
interface SubscriptionPart {
  context: ConsoleContext;
  s: Subscription;
}

/** The subscription's event, URL, creation and last change, with a test event and its deliveries. */
function SubscriptionFacts(p: SubscriptionPart): SafeHtml {
  const { context, s } = p;
  const lang = context.lang;
  return (
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
              <Breakable text={s.callback_url} />
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
  );
}

/** The form that changes the subscription's event or URL; `taken`: the other subscriptions' event codes. */
function EditSubscriptionForm(p: SubscriptionPart & { form: FormState; taken: ReadonlySet<string> }): SafeHtml {
  const { context, s, form } = p;
  const lang = context.lang;
  return (
    <section class="card" aria-labelledby="edit-title" id="edit">
      <h2 id="edit-title">{ct(lang, 'developers.webhook.editTitle')}</h2>
      {form.message ? (
        <p class="alert alert-error" role="alert" id="edit-error">
          {form.message}
        </p>
      ) : null}
      <form method="post" action={webhookActionPath(s.webhook_id, 'edit')} class="developer-form" data-once="" novalidate>
        <FormFields context={context} />
        <EventField lang={lang} id="edit-event" value={form.values.event ?? s.event_code} taken={p.taken} error={form.errors.event} />
        <UrlField lang={lang} id="edit-url" value={form.values.url ?? s.callback_url} error={form.errors.url} />
        <button class="button" type="submit" id="edit-submit">
          {ct(lang, 'developers.webhook.save')}
        </button>
      </form>
    </section>
  );
}

/** The subscription's two signing secrets, behind a disclosure (they are not shown at a glance). */
function SigningSecrets(p: SubscriptionPart): SafeHtml {
  const { context, s } = p;
  const lang = context.lang;
  return (
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
  );
}

/** The form that checks a signature against the subscription's (the API's verify). */
function VerifySignatureForm(p: SubscriptionPart & { form: FormState }): SafeHtml {
  const { context, s, form } = p;
  const lang = context.lang;
  return (
    <section class="card" aria-labelledby="verify-title" id="verify">
      <h2 id="verify-title">{ct(lang, 'developers.webhook.verifyTitle')}</h2>
      <p>{ct(lang, 'developers.webhook.verifyText')}</p>
      {form.message ? (
        <p class="alert alert-error" role="alert" id="verify-error">
          {form.message}
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
            value={form.values.signature ?? ''}
            aria-invalid={form.errors.signature ? 'true' : undefined}
            aria-describedby={form.errors.signature ? 'verify-signature-error' : undefined}
          />
          <FieldError id="verify-signature-error" message={form.errors.signature} />
        </div>
        <button class="button" type="submit" id="verify-submit">
          {ct(lang, 'developers.webhook.verify')}
        </button>
      </form>
    </section>
  );
}

/** Deleting the subscription, behind a confirmation step. */
function DeleteSubscription(p: SubscriptionPart): SafeHtml {
  const { context, s } = p;
  const lang = context.lang;
  return (
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
  );
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
      <SubscriptionFacts context={context} s={s} />
      <EditSubscriptionForm context={context} s={s} form={p.edit} taken={p.taken} />
      <SigningSecrets context={context} s={s} />
      <VerifySignatureForm context={context} s={s} form={p.verify} />
      <DeleteSubscription context={context} s={s} />
    </DevelopersLayout>
  );
}

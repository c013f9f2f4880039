// The developers section (issue 19): its addresses, its tabs (API keys, webhooks, the delivery log),
// the overview page, and what its pages share: a form's messages, a copy button, a confirmation
// step that works without JavaScript.
import { h, type Child, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { FormKey } from '../../kit/actions.tsx';
import type { DevelopersSummary } from '../queries.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';

export const DEVELOPERS_PATH = SECTION_PATHS.developers;
export const API_KEYS_PATH = `${DEVELOPERS_PATH}/api-keys`;
export const API_KEY_GENERATE_PATH = `${API_KEYS_PATH}/generate`;
export const apiKeyActionPath = (clientId: number, action: 'activate' | 'deactivate' | 'delete') => `${API_KEYS_PATH}/${clientId}/${action}`;
export const WEBHOOKS_PATH = `${DEVELOPERS_PATH}/webhooks`;
export const WEBHOOK_ADD_PATH = `${WEBHOOKS_PATH}/add`;
export const webhookPath = (webhookId: number) => `${WEBHOOKS_PATH}/${webhookId}`;
export const webhookActionPath = (webhookId: number, action: 'edit' | 'delete' | 'verify' | 'test') => `${webhookPath(webhookId)}/${action}`;
export const DELIVERIES_PATH = `${WEBHOOKS_PATH}/deliveries`;
export const REDELIVER_FAILED_PATH = `${DELIVERIES_PATH}/redeliver-failed`;
export const deliveryPath = (deliveryId: number) => `${DELIVERIES_PATH}/${deliveryId}`;
export const redeliverPath = (deliveryId: number) => `${deliveryPath(deliveryId)}/redeliver`;
/** The API reference the service serves (app.ts). */
export const API_DOCS_PATH = '/docs';

export type DevelopersTab = 'keys' | 'webhooks' | 'deliveries';

/** A form as the page shows it again: what the user typed, a message per field, one at the top. */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
  message?: string;
}

export const emptyForm = (values: Record<string, string> = {}): FormState => ({ values, errors: {} });

export function Tabs(p: { lang: Lang; current?: DevelopersTab }): SafeHtml {
  const tabs: Array<[DevelopersTab, string, TextKey]> = [
    ['keys', API_KEYS_PATH, 'developers.tab.keys'],
    ['webhooks', WEBHOOKS_PATH, 'developers.tab.webhooks'],
    ['deliveries', DELIVERIES_PATH, 'developers.tab.deliveries'],
  ];
  return (
    <nav class="tabs" aria-label={ct(p.lang, 'developers.tabs')}>
      <ul>
        {tabs.map(([tab, href, label]) => (
          <li>
            <a href={href} aria-current={tab === p.current ? 'page' : undefined} id={`tab-${tab}`}>
              {ct(p.lang, label)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The notice after an action (role=status) and a refusal's message (role=alert). */
export function Alerts(p: { notice?: string; error?: string; extra?: string }): SafeHtml {
  return (
    <div>
      {p.notice ? (
        <p class="alert alert-info" role="status" id="notice">
          {p.notice}
          {p.extra ? ` ${p.extra}` : ''}
        </p>
      ) : null}
      {p.error ? (
        <p class="alert alert-error" role="alert" id="form-error">
          {p.error}
        </p>
      ) : null}
    </div>
  );
}

/** A field's message, under it (the input names it in aria-describedby). */
export function FieldError(p: { id: string; message?: string }): SafeHtml | null {
  return p.message ? (
    <p class="field-error" id={p.id}>
      {p.message}
    </p>
  ) : null;
}

/** The hidden fields every state-changing form carries. */
export function FormFields(p: { context: ConsoleContext }): SafeHtml {
  return (
    <div class="form-fields">
      <input type="hidden" name={CSRF_FIELD} value={p.context.csrfToken} />
      <FormKey />
    </div>
  );
}

/** A form with one button (activate, send a test event, redeliver …). */
export function ButtonForm(p: { context: ConsoleContext; action: string; label: string; id: string; kind?: 'button' | 'link-button'; describedBy?: string }): SafeHtml {
  return (
    <form class="inline-form" method="post" action={p.action} data-once="">
      <FormFields context={p.context} />
      <button class={p.kind ?? 'link-button'} type="submit" id={p.id} aria-describedby={p.describedBy}>
        {p.label}
      </button>
    </form>
  );
}

/**
 * A destructive action behind a second step that needs no script: the summary opens the
 * explanation and the real submit button.
 */
export function ConfirmForm(p: { context: ConsoleContext; action: string; summary: string; text: string; confirm: string; id: string }): SafeHtml {
  return (
    <details class="confirm" id={`${p.id}-details`}>
      <summary class="link-button danger-link">{p.summary}</summary>
      <form method="post" action={p.action} class="confirm-form" data-once="">
        <FormFields context={p.context} />
        <p class="confirm-text">{p.text}</p>
        <button class="button button-danger" type="submit" id={p.id}>
          {p.confirm}
        </button>
      </form>
    </details>
  );
}

/**
 * A button copying the text of `target` (a selector) to the clipboard, with its outcome announced
 * in a live region. Hidden until the script shows it: without the script the value is plain,
 * selectable text.
 */
export function CopyButton(p: { lang: Lang; target: string; id: string; label: string }): SafeHtml {
  return (
    <span class="copy">
      <button
        class="link-button copy-button"
        type="button"
        id={p.id}
        hidden
        data-copy={p.target}
        data-copy-status={`#${p.id}-status`}
        data-copied={ct(p.lang, 'developers.copied')}
        data-copy-failed={ct(p.lang, 'developers.copyFailed')}
      >
        {p.label}
      </button>
      <span class="copy-status" id={`${p.id}-status`} role="status" aria-live="polite"></span>
    </span>
  );
}

export function Breadcrumbs(p: { lang: Lang; trail: Array<[string, string]> }): SafeHtml {
  return (
    <nav class="breadcrumbs" aria-label={ct(p.lang, 'developers.breadcrumbs')}>
      <ol>
        {p.trail.map(([href, label]) => (
          <li>
            <a href={href}>{label}</a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

export function DevelopersLayout(p: { context: ConsoleContext; title: string; languageUrl?: string; children?: Child }): SafeHtml {
  return (
    <Layout context={p.context} title={p.title} section="developers" languageUrl={p.languageUrl}>
      {p.children}
    </Layout>
  );
}

/** /console/developers: what is here, with the figures that say whether something needs a look. */
export function OverviewPage(p: { context: ConsoleContext; summary: DevelopersSummary }): SafeHtml {
  const { lang } = p.context;
  const s = p.summary;
  return (
    <DevelopersLayout context={p.context} title={ct(lang, 'developers.title')}>
      <h1>{ct(lang, 'developers.title')}</h1>
      <Tabs lang={lang} />
      <p class="lead">{ct(lang, 'developers.intro')}</p>
      <ul class="section-links card" id="developers-links">
        <li>
          <a href={API_KEYS_PATH} id="link-keys">
            {ct(lang, 'developers.tab.keys')}
          </a>
          <p>{ct(lang, 'developers.keysText')}</p>
          <p class="sub" id="summary-keys">
            {ct(lang, 'developers.keysCount', { active: s.activeKeys, inactive: s.inactiveKeys })}
          </p>
        </li>
        <li>
          <a href={WEBHOOKS_PATH} id="link-webhooks">
            {ct(lang, 'developers.tab.webhooks')}
          </a>
          <p>{ct(lang, 'developers.webhooksText')}</p>
          <p class="sub" id="summary-webhooks">
            {ct(lang, 'developers.subscriptionsCount', { count: s.subscriptions })}
          </p>
        </li>
        <li>
          <a href={DELIVERIES_PATH} id="link-deliveries">
            {ct(lang, 'developers.tab.deliveries')}
          </a>
          <p>{ct(lang, 'developers.deliveriesText')}</p>
          <p class={s.failedDeliveries > 0 ? 'sub error-text' : 'sub'} id="summary-deliveries">
            {ct(lang, 'developers.failedCount', { count: s.failedDeliveries })}
          </p>
        </li>
        <li>
          <a href={API_DOCS_PATH} id="link-docs">
            {ct(lang, 'developers.docs')}
          </a>
          <p>{ct(lang, 'developers.docsText')}</p>
        </li>
      </ul>
    </DevelopersLayout>
  );
}

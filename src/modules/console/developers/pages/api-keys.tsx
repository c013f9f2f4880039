// The API keys page: the merchant's key pairs as GET /security/apiKeys/getAll lists them (the key,
// its status, who created it and when, its expiry, its last change; never a secret: only a hash of
// it is stored), with activate, deactivate and delete (behind a confirmation step), and the form
// that generates a new pair. The new pair's page shows the secret this once, with a copy button.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { API_KEY } from '../../../api-keys/repository.ts';
import type { ApiKeyView } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { Cell, When } from '../../kit/lists.tsx';
import {
  Alerts,
  API_KEY_GENERATE_PATH,
  API_KEYS_PATH,
  apiKeyActionPath,
  ButtonForm,
  ConfirmForm,
  CopyButton,
  DevelopersLayout,
  FieldError,
  FormFields,
  Tabs,
  type FormState,
} from './developers.tsx';

function KeyStatus(p: { lang: Lang; item: ApiKeyView; now: Date }): SafeHtml {
  const expired = p.item.expiryDate !== null && p.item.expiryDate.getTime() <= p.now.getTime();
  if (expired) return <span class="status status-key-expired">{ct(p.lang, 'developers.key.expired')}</span>;
  return <span class={`status status-key-${p.item.statusCode}`}>{ct(p.lang, p.item.statusCode === API_KEY.active ? 'developers.key.active' : 'developers.key.inactive')}</span>;
}

function KeyActions(p: { context: ConsoleContext; item: ApiKeyView }): SafeHtml {
  const { context, item: key } = p;
  const lang = context.lang;
  return (
    <div class="row-actions">
      {key.statusCode === API_KEY.active ? (
        <ButtonForm context={context} action={apiKeyActionPath(key.clientId, 'deactivate')} label={ct(lang, 'developers.key.deactivate')} id={`deactivate-${key.clientId}`} describedBy={`key-${key.clientId}`} />
      ) : (
        <ButtonForm context={context} action={apiKeyActionPath(key.clientId, 'activate')} label={ct(lang, 'developers.key.activate')} id={`activate-${key.clientId}`} describedBy={`key-${key.clientId}`} />
      )}
      <ConfirmForm
        context={context}
        action={apiKeyActionPath(key.clientId, 'delete')}
        summary={ct(lang, 'developers.key.delete')}
        text={ct(lang, 'developers.key.deleteText', { key: key.clientKey })}
        confirm={ct(lang, 'developers.key.deleteConfirm')}
        id={`delete-${key.clientId}`}
      />
    </div>
  );
}

function KeysTable(p: { context: ConsoleContext; keys: ApiKeyView[]; now: Date }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const label = (key: Parameters<typeof ct>[1]) => ct(lang, key);
  if (p.keys.length === 0) {
    return (
      <p class="empty" id="keys-empty">
        {ct(lang, 'developers.key.none')}
      </p>
    );
  }
  return (
    <table class="stack-table" id="keys-table">
      <caption class="visually-hidden">{ct(lang, 'developers.key.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{label('developers.key.col.key')}</th>
          <th scope="col">{label('developers.key.col.status')}</th>
          <th scope="col">{label('developers.key.col.created')}</th>
          <th scope="col">{label('developers.key.col.expires')}</th>
          <th scope="col">{label('developers.key.col.changed')}</th>
          <th scope="col">{label('developers.key.col.actions')}</th>
        </tr>
      </thead>
      <tbody>
        {p.keys.map((k) => (
          <tr id={`key-row-${k.clientId}`} data-client-key={k.clientKey}>
            <Cell row label={label('developers.key.col.key')}>
              <code class="client-key" id={`key-${k.clientId}`}>
                {k.clientKey}
              </code>
            </Cell>
            <Cell label={label('developers.key.col.status')}>
              <KeyStatus lang={lang} item={k} now={p.now} />
            </Cell>
            <Cell label={label('developers.key.col.created')}>
              <When at={k.dateCaptured} lang={lang} />
              <span class="sub">{ct(lang, 'developers.by', { who: k.capturedBy })}</span>
            </Cell>
            <Cell label={label('developers.key.col.expires')}>
              {k.expiryDate ? <When at={k.expiryDate} lang={lang} /> : <span class="muted">{ct(lang, 'developers.key.noExpiry')}</span>}
            </Cell>
            <Cell label={label('developers.key.col.changed')}>
              {k.dateModified ? (
                <span>
                  <When at={k.dateModified} lang={lang} />
                  <span class="sub">{ct(lang, 'developers.by', { who: k.modifiedBy ?? '' })}</span>
                </span>
              ) : (
                <span class="muted">{ct(lang, 'developers.never')}</span>
              )}
            </Cell>
            <Cell label={label('developers.key.col.actions')}>
              <KeyActions context={context} item={k} />
            </Cell>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function GenerateForm(p: { context: ConsoleContext; form: FormState }): SafeHtml {
  const { context, form } = p;
  const lang = context.lang;
  const expiryError = form.errors.expiry;
  return (
    <section class="card" aria-labelledby="generate-title" id="generate">
      <h2 id="generate-title">{ct(lang, 'developers.generate.title')}</h2>
      <p>{ct(lang, 'developers.generate.text')}</p>
      {form.message ? (
        <p class="alert alert-error" role="alert" id="generate-error">
          {form.message}
        </p>
      ) : null}
      <form method="post" action={API_KEY_GENERATE_PATH} class="developer-form" data-once="" novalidate>
        <FormFields context={context} />
        <div class="field">
          <label for="expiry">{ct(lang, 'developers.generate.expiry')}</label>
          <input
            id="expiry"
            name="expiry"
            type="date"
            value={form.values.expiry ?? ''}
            aria-invalid={expiryError ? 'true' : undefined}
            aria-describedby={expiryError ? 'expiry-error expiry-hint' : 'expiry-hint'}
          />
          <p class="hint" id="expiry-hint">
            {ct(lang, 'developers.generate.expiryHint')}
          </p>
          <FieldError id="expiry-error" message={expiryError} />
        </div>
        <button class="button" type="submit" id="generate-submit">
          {ct(lang, 'developers.generate.submit')}
        </button>
      </form>
    </section>
  );
}

export interface ApiKeysView {
  context: ConsoleContext;
  keys: ApiKeyView[];
  organisationId: string;
  now: Date;
  form: FormState;
  notice?: string;
  /** A refusal of a key's button (activate, deactivate, delete). */
  error?: string;
}

export function ApiKeysPage(p: ApiKeysView): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.keys.title')} languageUrl={API_KEYS_PATH}>
      <h1>{ct(lang, 'developers.keys.title')}</h1>
      <Tabs lang={lang} current="keys" />
      <Alerts notice={p.notice} error={p.error} />
      <p class="lead">{ct(lang, 'developers.keys.intro')}</p>
      <section class="results" aria-labelledby="keys-title">
        <h2 id="keys-title">{ct(lang, 'developers.keys.list')}</h2>
        <KeysTable context={context} keys={p.keys} now={p.now} />
      </section>
      <GenerateForm context={context} form={p.form} />
      <section class="card" aria-labelledby="use-title">
        <h2 id="use-title">{ct(lang, 'developers.keys.useTitle')}</h2>
        <p>{ct(lang, 'developers.keys.useText')}</p>
        <dl class="facts">
          <div class="fact">
            <dt>{ct(lang, 'developers.organisationId')}</dt>
            <dd>
              <code id="organisation-id">{p.organisationId}</code>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.merchantAccountNumber')}</dt>
            <dd>
              <code id="merchant-account-number">{context.user.merchantAccountNumber}</code>
            </dd>
          </div>
        </dl>
      </section>
    </DevelopersLayout>
  );
}

export interface NewKey {
  clientId: number;
  clientKey: string;
  secret: string;
  expiryDate: Date | null;
}

/**
 * The answer to a generation (never a page of its own address): the new pair with its secret,
 * this once. The response is no-store (sendHtml); the secret is in no address, log or audit entry.
 */
export function NewKeyPage(p: { context: ConsoleContext; created: NewKey; organisationId: string }): SafeHtml {
  const { context, created: key } = p;
  const lang = context.lang;
  return (
    <DevelopersLayout context={context} title={ct(lang, 'developers.newKey.title')} languageUrl={API_KEYS_PATH}>
      <h1>{ct(lang, 'developers.newKey.title')}</h1>
      <p class="alert alert-warning" role="alert" id="secret-warning">
        {ct(lang, 'developers.newKey.warning')}
      </p>
      <section class="card" aria-labelledby="new-key-title">
        <h2 id="new-key-title">{ct(lang, 'developers.newKey.pair')}</h2>
        <dl class="facts secret-facts">
          <div class="fact">
            <dt>{ct(lang, 'developers.newKey.key')}</dt>
            <dd>
              <code class="secret-value" id="new-key">
                {key.clientKey}
              </code>
              <CopyButton lang={lang} target="#new-key" id="copy-key" label={ct(lang, 'developers.copyKey')} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.newKey.secret')}</dt>
            <dd>
              <code class="secret-value" id="new-secret">
                {key.secret}
              </code>
              <CopyButton lang={lang} target="#new-secret" id="copy-secret" label={ct(lang, 'developers.copySecret')} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.organisationId')}</dt>
            <dd>
              <code>{p.organisationId}</code>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.merchantAccountNumber')}</dt>
            <dd>
              <code>{context.user.merchantAccountNumber}</code>
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'developers.key.col.expires')}</dt>
            <dd>{key.expiryDate ? <When at={key.expiryDate} lang={lang} /> : ct(lang, 'developers.key.noExpiry')}</dd>
          </div>
        </dl>
        <p class="hint">{ct(lang, 'developers.newKey.hint')}</p>
      </section>
      <p>
        <a class="button" href={API_KEYS_PATH} id="new-key-done">
          {ct(lang, 'developers.newKey.done')}
        </a>
      </p>
    </DevelopersLayout>
  );
}

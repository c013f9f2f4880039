// A delivery's page: the request as its attempts sent it (the signatures masked) and every attempt:
// its status, timing and the response's first bytes, escaped.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { AttemptView, DeliveryDetail } from '../../../webhooks/delivery-log.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { When } from '../../kit/lists.tsx';
import { Breakable } from '../../kit/display.tsx';
import { Alerts, Breadcrumbs, ButtonForm, DELIVERIES_PATH, deliveryPath, DevelopersLayout, redeliverPath } from './developers.tsx';
import { DeliveryStatusBadge } from './deliveries.tsx';
import { EventName } from './webhook-parts.tsx';

/** The response excerpt shown per attempt (the dispatcher keeps 1 KB). */
export const RESPONSE_SHOWN_CHARS = 500;
/** What a masked header value shows instead of the secret. */
export const MASK = '••••••••';

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

/** The delivery's status, event, URL, message id, times and attempt count, with its redelivery. */
function DeliveryFacts(p: { context: ConsoleContext; d: DeliveryDetail }): SafeHtml {
  const { context, d } = p;
  const lang = context.lang;
  return (
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
            <code class="callback-url">
              <Breakable text={d.callbackUrl} />
            </code>
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
  );
}

/** The request every attempt sent: its address, headers (the signatures masked) and body. */
function DeliveryRequest(p: { lang: Lang; d: DeliveryDetail; headers: Array<[string, string]> }): SafeHtml {
  const { lang, d } = p;
  return (
    <section class="card" aria-labelledby="request-title" id="request">
      <h2 id="request-title">{ct(lang, 'developers.delivery.request')}</h2>
      <p>
        <code>POST</code> <code class="callback-url">
              <Breakable text={d.callbackUrl} />
            </code>
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
  );
}

/** The delivery's attempts, newest first (the older ones beyond those shown are counted). */
function DeliveryAttempts(p: { lang: Lang; d: DeliveryDetail }): SafeHtml {
  const { lang, d } = p;
  return (
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
      <DeliveryFacts context={context} d={d} />
      <DeliveryRequest lang={lang} d={d} headers={p.headers} />
      <DeliveryAttempts lang={lang} d={d} />
    </DevelopersLayout>
  );
}

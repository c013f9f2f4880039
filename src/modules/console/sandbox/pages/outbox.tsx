// The sandbox's outbox (issue 27): without SMTP_URL the e-mails the console and the API write
// (invitations, password reset links, lock notices) are held, not sent; this is where a person
// reads them. Only the signed-in merchant's, newest first; one e-mail's subject, recipient and
// plain-text body, whose web addresses are links (the invitation's or reset's link is the point).
// The body is text, never the e-mail's HTML: everything is escaped by the templates.
import { Fragment, h, type Child, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { HeldEmail } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SANDBOX_OUTBOX_PATH, SECTION_PATHS } from '../../kit/paths.ts';
import { Cell } from '../../kit/lists.tsx';
import { Breakable, Time } from '../../kit/display.tsx';

export const outboxEmailPath = (emailId: number) => `${SANDBOX_OUTBOX_PATH}/${emailId}`;

/** http(s) addresses in a text; a closing bracket or sentence's full stop after one is not part of it. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

/** `text` with each web address as a link to itself (only http and https: anything else stays text). */
export function linkedText(text: string): Child[] {
  const out: Child[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    out.push(text.slice(at, match.index));
    out.push(
      <a href={match[0]} class="email-link">
        <Breakable text={match[0]} />
      </a>,
    );
    at = match.index + match[0].length;
  }
  out.push(text.slice(at));
  return out;
}

function OutboxCrumbs(p: { lang: Lang; current?: string }): SafeHtml {
  return (
    <nav class="breadcrumbs" aria-label={ct(p.lang, 'layout.breadcrumbs')}>
      <ol>
        <li>
          <a href={SECTION_PATHS.sandbox}>{ct(p.lang, 'sandboxTools.title')}</a>
        </li>
        {p.current === undefined ? (
          <li aria-current="page">{ct(p.lang, 'sandboxTools.outbox.title')}</li>
        ) : (
          <>
            <li>
              <a href={SANDBOX_OUTBOX_PATH}>{ct(p.lang, 'sandboxTools.outbox.title')}</a>
            </li>
            <li aria-current="page">{p.current}</li>
          </>
        )}
      </ol>
    </nav>
  );
}

export function OutboxPage(p: { context: ConsoleContext; emails: HeldEmail[]; smtpConfigured: boolean; limit: number }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'sandboxTools.outbox.title');
  return (
    <Layout context={context} title={title} section="sandbox">
      <OutboxCrumbs lang={lang} />
      <h1>{title}</h1>
      <p class="lead">{ct(lang, p.smtpConfigured ? 'sandboxTools.outbox.introSmtp' : 'sandboxTools.outbox.intro', { limit: p.limit })}</p>
      {p.emails.length === 0 ? (
        <p class="empty" id="outbox-empty">
          {ct(lang, 'sandboxTools.outbox.empty')}
        </p>
      ) : (
        <table class="stack-table" id="outbox-table">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{ct(lang, 'sandboxTools.outbox.col.subject')}</th>
              <th scope="col">{ct(lang, 'sandboxTools.outbox.col.to')}</th>
              <th scope="col">{ct(lang, 'sandboxTools.outbox.col.when')}</th>
            </tr>
          </thead>
          <tbody>
            {p.emails.map((e) => (
              <tr id={`email-${e.emailId}`}>
                <Cell label={ct(lang, 'sandboxTools.outbox.col.subject')} row>
                  <a href={outboxEmailPath(e.emailId)} class="email-subject-link">
                    {e.subject}
                  </a>
                </Cell>
                <Cell label={ct(lang, 'sandboxTools.outbox.col.to')}>
                  <Breakable text={e.recipient} />
                </Cell>
                <Cell label={ct(lang, 'sandboxTools.outbox.col.when')}>
                  <Time at={e.createdAt} />
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

export function EmailPage(p: { context: ConsoleContext; email: HeldEmail }): SafeHtml {
  const { context, email } = p;
  const lang = context.lang;
  return (
    <Layout context={context} title={ct(lang, 'sandboxTools.outbox.emailTitle')} section="sandbox">
      <OutboxCrumbs lang={lang} current={ct(lang, 'sandboxTools.outbox.emailTitle')} />
      <h1>{ct(lang, 'sandboxTools.outbox.emailTitle')}</h1>
      <p class="lead">{ct(lang, 'sandboxTools.outbox.emailIntro')}</p>
      <section class="card email" aria-labelledby="email-subject">
        <dl class="facts">
          <div class="fact">
            <dt>{ct(lang, 'sandboxTools.outbox.col.subject')}</dt>
            <dd id="email-subject">{email.subject}</dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'sandboxTools.outbox.col.to')}</dt>
            <dd id="email-to">
              <Breakable text={email.recipient} />
            </dd>
          </div>
          <div class="fact">
            <dt>{ct(lang, 'sandboxTools.outbox.col.when')}</dt>
            <dd>
              <Time at={email.createdAt} />
            </dd>
          </div>
        </dl>
        <pre class="email-body" id="email-body">
          {linkedText(email.bodyText)}
        </pre>
      </section>
      <p>
        <a class="link-button" href={SANDBOX_OUTBOX_PATH} id="back-to-outbox">
          {ct(lang, 'sandboxTools.outbox.back')}
        </a>
      </p>
    </Layout>
  );
}

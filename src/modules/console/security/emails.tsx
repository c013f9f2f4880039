// The console's e-mails, in English then Chichewa (the service does not know which one the user
// reads), as plain text and HTML rendered by the escaping JSX runtime: a merchant's name or a
// user's name is text in them.
import { h, renderDocument } from '../../../lib/html/jsx.ts';
import type { Lang } from '../../../http/i18n.ts';
import { ct, type TextKey } from './texts.ts';
import { FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH } from '../kit/paths.ts';

const LANGS: Lang[] = ['en', 'ny'];
const SUBJECT_MAX_LENGTH = 200;

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** 2026-05-04 10:15 UTC: unambiguous, whatever the reader's time zone. */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function clip(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

interface Section {
  lang: Lang;
  paragraphs: string[];
  link?: { href: string; text: string };
}

function compose(subjectKey: TextKey, subjectParams: Record<string, string>, sections: Section[]): EmailContent {
  const subject = clip(LANGS.map((lang) => ct(lang, subjectKey, subjectParams)).join(' · '), SUBJECT_MAX_LENGTH);
  const text =
    sections.map((s) => [...s.paragraphs.slice(0, 2), ...(s.link ? [s.link.href] : []), ...s.paragraphs.slice(2)].join('\n\n')).join('\n\n---\n\n') + '\n';
  const html = renderDocument(
    <html>
      <head>
        <meta charset="utf-8" />
        <title>{subject}</title>
      </head>
      <body>
        {sections.map((s) => (
          <div lang={s.lang}>
            {s.paragraphs.slice(0, 2).map((p) => (
              <p>{p}</p>
            ))}
            {s.link ? (
              <p>
                <a href={s.link.href}>{s.link.text}</a>
                <br />
                {s.link.href}
              </p>
            ) : null}
            {s.paragraphs.slice(2).map((p) => (
              <p>{p}</p>
            ))}
            <hr />
          </div>
        ))}
      </body>
    </html>,
  );
  return { subject, text, html };
}

export function resetLink(baseUrl: string, merchantAccountNumber: number, token: string, lang: Lang): string {
  return `${baseUrl}${RESET_PASSWORD_PATH}?m=${merchantAccountNumber}&token=${token}${lang === 'en' ? '' : `&lang=${lang}`}`;
}

export interface ResetEmailInput {
  baseUrl: string;
  merchantAccountNumber: number;
  merchantName: string;
  firstName: string;
  emailAddress: string;
  token: string;
  expiresAt: Date;
}

export function resetEmail(c: ResetEmailInput): EmailContent {
  const params = { name: c.firstName, email: c.emailAddress, merchant: c.merchantName, expiry: formatUtc(c.expiresAt) };
  return compose(
    'mail.resetSubject',
    { merchant: clip(c.merchantName, 70) },
    LANGS.map((lang) => ({
      lang,
      paragraphs: [ct(lang, 'mail.greeting', params), ct(lang, 'mail.resetIntro', params), ct(lang, 'mail.resetExpiry', params), ct(lang, 'mail.resetIgnore')],
      link: { href: resetLink(c.baseUrl, c.merchantAccountNumber, c.token, lang), text: ct(lang, 'mail.resetAction') },
    })),
  );
}

export interface LockEmailInput {
  baseUrl: string;
  merchantName: string;
  firstName: string;
  emailAddress: string;
  failures: number;
  ip: string;
  lockedUntil: Date;
}

export function lockEmail(c: LockEmailInput): EmailContent {
  return lockNotice(c, 'mail.lockText', 'mail.lockAdvice');
}

/**
 * The authenticator step was failed until it locked: whoever it was had the right password, so this
 * e-mail says to change it (the password lock's says the password held).
 */
export function secondFactorLockEmail(c: LockEmailInput): EmailContent {
  return lockNotice(c, 'mail.codeLockText', 'mail.codeLockAdvice');
}

function lockNotice(c: LockEmailInput, textKey: 'mail.lockText' | 'mail.codeLockText', adviceKey: 'mail.lockAdvice' | 'mail.codeLockAdvice'): EmailContent {
  const params = { name: c.firstName, email: c.emailAddress, failures: c.failures, ip: c.ip, until: formatUtc(c.lockedUntil) };
  return compose(
    'mail.lockSubject',
    { merchant: clip(c.merchantName, 70) },
    LANGS.map((lang) => ({
      lang,
      paragraphs: [ct(lang, 'mail.greeting', params), ct(lang, textKey, params), ct(lang, adviceKey)],
      link: { href: `${c.baseUrl}${FORGOT_PASSWORD_PATH}${lang === 'en' ? '' : `?lang=${lang}`}`, text: ct(lang, 'signIn.forgot') },
    })),
  );
}

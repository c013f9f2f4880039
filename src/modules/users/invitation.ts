// Set-password invitations: the one-time token, the link that carries it, and the e-mail (in
// English, then Chichewa: the service does not know which one the user reads).
import { createHash, randomBytes } from 'node:crypto';
import { escapeHtml } from '../../http/html.ts';
import { t, type Lang } from '../../http/i18n.ts';

export const SET_PASSWORD_PATH = '/users/set-password';
/** 32 random bytes, base64url: 43 characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const SUBJECT_MAX_LENGTH = 200;
const SUBJECT_MERCHANT_MAX_LENGTH = 70;

export interface InvitationToken {
  /** Goes into the link, and nowhere else: the e-mail carries it until it is sent (see email/repository.ts). */
  token: string;
  /** What the database keeps. */
  hash: Buffer;
}

export function newInvitationToken(): InvitationToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function setPasswordLink(baseUrl: string, token: string, lang?: Lang): string {
  return `${baseUrl}${SET_PASSWORD_PATH}?token=${token}${lang && lang !== 'en' ? `&lang=${lang}` : ''}`;
}

/** 2026-05-04 10:15 UTC: unambiguous, whatever the reader's time zone. */
export function formatExpiry(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export interface InvitationContent {
  merchantName: string;
  firstName: string;
  roleName: string;
  baseUrl: string;
  token: string;
  expiresAt: Date;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function invitationEmail(c: InvitationContent): { subject: string; text: string; html: string } {
  const expiry = formatExpiry(c.expiresAt);
  const langs: Lang[] = ['en', 'ny'];
  const subjectMerchant = clip(c.merchantName.replace(/\s+/g, ' '), SUBJECT_MERCHANT_MAX_LENGTH);
  const subject = clip(langs.map((lang) => t(lang, 'invite.subject', { merchant: subjectMerchant })).join(' · '), SUBJECT_MAX_LENGTH);
  const sections = langs.map((lang) => {
    const link = setPasswordLink(c.baseUrl, c.token, lang);
    const p = { name: c.firstName, merchant: c.merchantName, role: c.roleName, expiry };
    return {
      lang,
      link,
      greeting: t(lang, 'invite.greeting', p),
      intro: t(lang, 'invite.intro', p),
      action: t(lang, 'invite.action'),
      expiry: t(lang, 'invite.expiry', p),
      ignore: t(lang, 'invite.ignore'),
    };
  });
  const text = sections.map((s) => [s.greeting, '', s.intro, '', s.link, '', s.expiry, s.ignore].join('\n')).join('\n\n---\n\n') + '\n';
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:16px;background:#eef2f6;font-family:Arial,Helvetica,sans-serif;color:#14202b">
${sections
  .map(
    (s) => `<div lang="${s.lang}" style="max-width:520px;margin:0 auto 16px;background:#ffffff;border-radius:12px;padding:20px">
<p>${escapeHtml(s.greeting)}</p>
<p>${escapeHtml(s.intro)}</p>
<p><a href="${escapeHtml(s.link)}" style="display:inline-block;background:#0b7a5f;color:#ffffff;padding:12px 18px;border-radius:8px;text-decoration:none;font-weight:bold">${escapeHtml(s.action)}</a></p>
<p style="font-size:13px;color:#5b6b79;word-break:break-all">${escapeHtml(s.link)}</p>
<p style="font-size:13px;color:#5b6b79">${escapeHtml(s.expiry)} ${escapeHtml(s.ignore)}</p>
</div>`,
  )
  .join('\n')}
</body></html>
`;
  return { subject, text, html };
}

// The set-password page (the link of the invitation e-mail): one self-contained HTML document,
// phone-sized, English or Chichewa, no script at all. See src/http/html.ts for what pages share.
import { BASE_STYLE, escapeHtml, htmlDocument, languageNav, newNonce, pagePolicy, type RenderedPage } from '../../http/html.ts';
import { t, type Lang } from '../../http/i18n.ts';
import { formatExpiry, SET_PASSWORD_PATH } from './invitation.ts';
import type { OpenInvitation } from './repository.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './service.ts';

const STYLE =
  BASE_STYLE +
  `
h1{font-size:22px;margin:0 0 6px}
.for{margin:0 0 16px;overflow-wrap:anywhere}
.field{margin:0 0 14px}
input{width:100%;font:inherit;padding:12px;border:1px solid #b8c4cf;border-radius:10px;background:#fff;color:inherit;min-height:48px}
input[readonly]{background:#f3f6f9;color:#3c4b58}
input:focus,button:focus{outline:3px solid #7cc4ad;outline-offset:2px}
.hint{margin:6px 0 0}
.error{margin:0 0 14px;padding:10px 12px;border-radius:10px;background:#fdecea;border:1px solid #f5c2bd;color:#a12a1d;font-weight:600}
.submit{display:block;width:100%;margin-top:6px;font:inherit;font-weight:700;font-size:18px;padding:14px;border:0;border-radius:12px;background:#0b7a5f;color:#fff;min-height:52px;cursor:pointer;text-align:center;text-decoration:none}
a.submit:focus{outline:3px solid #7cc4ad;outline-offset:2px}
`;

const BRAND = 'OneKhusa';

function shell(lang: Lang, nonce: string, title: string, body: string, token: string | undefined): string {
  const nav = languageNav(lang, t(lang, 'checkout.language'), (code) => `${SET_PASSWORD_PATH}?${token ? `token=${encodeURIComponent(token)}&` : ''}lang=${code}`);
  const inner = `<div class="wrap">
<div class="top"><span class="brand">${BRAND}</span></div>
${body}
${nav}
</div>`;
  return htmlDocument({ lang, nonce, title, style: STYLE, body: inner });
}

export interface FormState {
  token: string;
  invitation: OpenInvitation;
  /** Why the last submission was refused, already translated. */
  error?: string;
}

export function renderSetPasswordForm(lang: Lang, state: FormState): RenderedPage {
  const nonce = newNonce();
  const title = t(lang, 'setPassword.title');
  const { invitation } = state;
  const body = `<main class="card">
<h1>${escapeHtml(title)}</h1>
<p class="muted for">${escapeHtml(t(lang, 'setPassword.for', { email: invitation.email_address, merchant: invitation.account_name }))}</p>
${state.error ? `<p class="error" role="alert" id="error">${escapeHtml(state.error)}</p>` : ''}
<form id="set-password" method="post" action="${SET_PASSWORD_PATH}">
<input type="hidden" name="token" value="${escapeHtml(state.token)}">
<input type="hidden" name="lang" value="${lang}">
<div class="field"><label for="username">${escapeHtml(t(lang, 'setPassword.email'))}</label>
<input id="username" name="username" type="email" autocomplete="username" value="${escapeHtml(invitation.email_address)}" readonly></div>
<div class="field"><label for="password">${escapeHtml(t(lang, 'setPassword.password'))}</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" required aria-describedby="rules">
<p class="muted hint" id="rules">${escapeHtml(t(lang, 'setPassword.rules', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH }))}</p></div>
<div class="field"><label for="confirmation">${escapeHtml(t(lang, 'setPassword.confirmation'))}</label>
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" required></div>
<button class="submit" id="submit" type="submit">${escapeHtml(t(lang, 'setPassword.submit'))}</button>
<p class="muted hint">${escapeHtml(t(lang, 'setPassword.expires', { expiry: formatExpiry(invitation.expires_at) }))}</p>
</form>
</main>`;
  return { html: shell(lang, nonce, title, body, state.token), csp: pagePolicy(nonce) };
}

/** The done, link-no-longer-valid and error screens: same look, no form; the done screen links to sign in. */
export function renderUserMessage(lang: Lang, title: string, text: string, link?: { href: string; text: string }): RenderedPage {
  const nonce = newNonce();
  const action = link ? `<p><a class="submit" id="next" href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : '';
  const body = `<main class="card msg"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${action}</main>`;
  return { html: shell(lang, nonce, title, body, undefined), csp: pagePolicy(nonce) };
}

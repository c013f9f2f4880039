// Forgot password (the form and its one answer) and the reset page a link opens.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../users/service.ts';
import { CSRF_FIELD, type PageContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { PublicLayout } from '../../kit/layout.tsx';
import { FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH, SIGN_IN_PATH } from '../../kit/paths.ts';
import { RESET_LINK_MINUTES } from '../password-reset.ts';
import type { MailDelivery } from '../../kit/mail.ts';

/** The answer's words: the link is e-mailed, or held (no mail server) where the sandbox or the operator reads it. */
const SENT_TEXT = { sent: 'forgot.sent', heldSandbox: 'forgot.sentHeld', heldOperator: 'forgot.sentHeldOperator' } as const;

export function ForgotPasswordPage(p: { context: PageContext; sentTo?: string; delivery?: MailDelivery }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const delivery = p.delivery ?? 'sent';
  const title = p.sentTo === undefined ? ct(lang, 'forgot.title') : ct(lang, delivery === 'sent' ? 'forgot.sentTitle' : 'forgot.heldTitle');
  return (
    <PublicLayout context={context} title={title} languageUrl={FORGOT_PASSWORD_PATH}>
      <h1>{title}</h1>
      {p.sentTo === undefined ? (
        <form method="post" action={FORGOT_PASSWORD_PATH} id="forgot">
          <p>{ct(lang, 'forgot.intro', { minutes: RESET_LINK_MINUTES })}</p>
          <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
          <input type="hidden" name="lang" value={lang} />
          <div class="field">
            <label for="email">{ct(lang, 'signIn.email')}</label>
            <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} autofocus />
          </div>
          <button class="button button-block" type="submit" id="submit">
            {ct(lang, 'forgot.submit')}
          </button>
        </form>
      ) : (
        <p class="alert alert-info" role="status" id="notice">
          {ct(lang, SENT_TEXT[delivery], { email: p.sentTo, minutes: RESET_LINK_MINUTES })}
        </p>
      )}
      <p class="after">
        <a href={SIGN_IN_PATH}>{ct(lang, 'forgot.back')}</a>
      </p>
    </PublicLayout>
  );
}

export interface ResetForm {
  context: PageContext;
  merchantAccountNumber: number;
  token: string;
  emailAddress: string;
  merchantName: string;
  error?: string;
}

function resetUrl(merchantAccountNumber: number, token: string): string {
  return `${RESET_PASSWORD_PATH}?m=${merchantAccountNumber}&token=${token}`;
}

export function ResetPasswordPage(p: ResetForm): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'reset.title');
  return (
    <PublicLayout context={context} title={title} languageUrl={resetUrl(p.merchantAccountNumber, p.token)}>
      <h1>{title}</h1>
      <p class="lead">{ct(lang, 'reset.for', { email: p.emailAddress, merchant: p.merchantName })}</p>
      {p.error ? (
        <p class="alert alert-error" role="alert" id="error">
          {p.error}
        </p>
      ) : null}
      <form method="post" action={RESET_PASSWORD_PATH} id="reset">
        <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
        <input type="hidden" name="lang" value={lang} />
        <input type="hidden" name="m" value={p.merchantAccountNumber} />
        <input type="hidden" name="token" value={p.token} />
        <input type="email" name="username" autocomplete="username" value={p.emailAddress} readonly hidden />
        <div class="field">
          <label for="password">{ct(lang, 'reset.password')}</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required minlength={PASSWORD_MIN_LENGTH} maxlength={PASSWORD_MAX_LENGTH} aria-describedby="rules" autofocus />
          <p class="hint" id="rules">
            {ct(lang, 'reset.rules', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH })}
          </p>
        </div>
        <div class="field">
          <label for="confirmation">{ct(lang, 'reset.confirmation')}</label>
          <input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required minlength={PASSWORD_MIN_LENGTH} maxlength={PASSWORD_MAX_LENGTH} />
        </div>
        <button class="button button-block" type="submit" id="submit">
          {ct(lang, 'reset.submit')}
        </button>
      </form>
    </PublicLayout>
  );
}

export function ResetInvalidPage(p: { context: PageContext }): SafeHtml {
  const lang = p.context.lang;
  const title = ct(lang, 'reset.invalidTitle');
  return (
    <PublicLayout context={p.context} title={title} languageUrl={FORGOT_PASSWORD_PATH}>
      <h1>{title}</h1>
      <p id="message-text">{ct(lang, 'reset.invalid')}</p>
      <p>
        <a class="button" href={FORGOT_PASSWORD_PATH}>
          {ct(lang, 'reset.askAgain')}
        </a>
      </p>
    </PublicLayout>
  );
}

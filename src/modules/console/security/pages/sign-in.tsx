// The sign-in page, and the merchant choice for an address that is a user of several merchants.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { CSRF_FIELD, type PageContext } from '../../kit/http.ts';
import { roleName } from '../../kit/i18n.ts';
import { ct } from '../texts.ts';
import { PublicLayout } from '../../kit/layout.tsx';
import { FORGOT_PASSWORD_PATH, SIGN_IN_CHOOSE_PATH, SIGN_IN_CODE_PATH, SIGN_IN_PATH } from '../../kit/paths.ts';
import type { Candidate } from '../sign-in.ts';
import { Alerts } from '../../kit/display.tsx';

export interface SignInForm {
  context: PageContext;
  /** The address typed, shown again after a refusal. */
  email?: string;
  /** Where to go after signing in (a console path). */
  next?: string;
  /** Why the last attempt was refused, or a notice (signed out, session ended), already translated. */
  error?: string;
  notice?: string;
}

export function SignInPage(p: SignInForm): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'signIn.title');
  return (
    <PublicLayout context={context} title={title} languageUrl={SIGN_IN_PATH}>
      <h1>{title}</h1>
      <p class="lead">{ct(lang, 'signIn.intro')}</p>
      <Alerts notice={p.notice} />
      {p.error ? (
        <p class="alert alert-error" role="alert" id="error">
          {p.error}
        </p>
      ) : null}
      <form method="post" action={SIGN_IN_PATH} id="sign-in">
        <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
        <input type="hidden" name="lang" value={lang} />
        {p.next ? <input type="hidden" name="next" value={p.next} /> : null}
        <div class="field">
          <label for="email">{ct(lang, 'signIn.email')}</label>
          <input id="email" name="email" type="email" autocomplete="username" required maxlength={254} value={p.email ?? ''} autofocus={!p.email} />
        </div>
        <div class="field">
          <label for="password">{ct(lang, 'signIn.password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required maxlength={128} autofocus={Boolean(p.email)} />
        </div>
        <button class="button button-block" type="submit" id="submit">
          {ct(lang, 'signIn.submit')}
        </button>
      </form>
      <p class="after">
        <a href={FORGOT_PASSWORD_PATH} id="forgot">
          {ct(lang, 'signIn.forgot')}
        </a>
      </p>
    </PublicLayout>
  );
}

export function ChooseMerchantPage(p: { context: PageContext; ticket: string; candidates: Candidate[]; next?: string }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'signIn.chooseTitle');
  return (
    <PublicLayout context={context} title={title} languageUrl={SIGN_IN_PATH}>
      <h1>{title}</h1>
      <p>{ct(lang, 'signIn.chooseIntro')}</p>
      <form method="post" action={SIGN_IN_CHOOSE_PATH} id="choose">
        <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
        <input type="hidden" name="lang" value={lang} />
        <input type="hidden" name="ticket" value={p.ticket} />
        {p.next ? <input type="hidden" name="next" value={p.next} /> : null}
        <ul class="choices">
          {p.candidates.map((c) => (
            <li>
              <button class="button choice" type="submit" name="merchant" value={c.merchantAccountNumber}>
                {c.merchantName}
                <span class="choice-role">
                  {c.merchantAccountNumber} · {ct(lang, 'signIn.chooseAs', { role: roleName(lang, c.roleCode, c.roleName) })}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </form>
    </PublicLayout>
  );
}

/** After the right password, for a user with an authenticator: a code or a recovery code. */
export function SecondFactorPage(p: { context: PageContext; ticket: string; next?: string; error?: string }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'signIn.codeTitle');
  return (
    <PublicLayout context={context} title={title} languageUrl={SIGN_IN_PATH}>
      <h1>{title}</h1>
      <p>{ct(lang, 'signIn.codeIntro')}</p>
      {p.error ? (
        <p class="alert alert-error" role="alert" id="error">
          {p.error}
        </p>
      ) : null}
      <form method="post" action={SIGN_IN_CODE_PATH} id="second-factor">
        <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
        <input type="hidden" name="lang" value={lang} />
        <input type="hidden" name="ticket" value={p.ticket} />
        {p.next ? <input type="hidden" name="next" value={p.next} /> : null}
        <div class="field">
          <label for="code">{ct(lang, 'signIn.code')}</label>
          <p class="hint" id="code-hint">
            {ct(lang, 'signIn.codeHint')}
          </p>
          {/* Text, not number: a recovery code has letters and a hyphen; one-time-code lets phones offer the code. */}
          <input id="code" name="code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength={32} aria-describedby="code-hint" autofocus />
        </div>
        <button class="button button-block" type="submit" id="submit-code">
          {ct(lang, 'signIn.codeSubmit')}
        </button>
      </form>
    </PublicLayout>
  );
}

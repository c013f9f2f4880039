// The security page: the signed-in user's two-factor sign-in. Set up an authenticator (a QR code of
// its otpauth:// URI, the secret for typing in, then a code to prove it), see the recovery codes
// once, and remove it with a code. A user whose role must use one (CONSOLE_REQUIRE_2FA) is sent here
// until they have.
import qrcode from 'qrcode-generator';
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { FormKey } from '../../kit/actions.tsx';
import { CONSOLE_PATH, PAYOUT_DECISIONS_PATH, TWO_FACTOR_CONFIRM_PATH, TWO_FACTOR_PATH, TWO_FACTOR_REMOVE_PATH } from '../../kit/paths.ts';
import type { Enrolment, TwoFactorStatus } from '../two-factor.ts';
import { Alerts } from '../../kit/display.tsx';

/** Modules of light border around the code: what scanners need (ISO/IEC 18004). */
const QUIET_ZONE_MODULES = 4;

/**
 * The QR code of `text` as an SVG drawn from the module matrix: one path, a unit square per dark
 * module, so it goes through the escaping template like any other markup (no raw SVG string).
 */
export function QrCode(p: { text: string; label: string }): SafeHtml {
  const qr = qrcode(0, 'M');
  qr.addData(p.text);
  qr.make();
  const count = qr.getModuleCount();
  const size = count + 2 * QUIET_ZONE_MODULES;
  const squares: string[] = [];
  for (let row = 0; row < count; row++) {
    for (let col = 0; col < count; col++) {
      if (qr.isDark(row, col)) squares.push(`M${col + QUIET_ZONE_MODULES} ${row + QUIET_ZONE_MODULES}h1v1h-1z`);
    }
  }
  return (
    <svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={p.label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={squares.join('')} fill="#000" />
    </svg>
  );
}

/** The secret in groups of four, as authenticator apps show typed keys. */
function grouped(secretBase32: string): string {
  return secretBase32.replace(/(.{4})(?=.)/g, '$1 ');
}

function CodeField(p: { lang: ConsoleContext['lang']; id: string; hint: string; autofocus?: boolean }) {
  return (
    <div class="field">
      <label for={p.id}>{ct(p.lang, 'signIn.code')}</label>
      <p class="hint" id={`${p.id}-hint`}>
        {p.hint}
      </p>
      <input id={p.id} name="code" type="text" inputmode="text" autocomplete="one-time-code" spellcheck="false" required maxlength={32} aria-describedby={`${p.id}-hint`} autofocus={p.autofocus} />
    </div>
  );
}

export interface SecurityPageProps {
  context: ConsoleContext;
  status: TwoFactorStatus;
  /** The user's role must use two-factor sign-in and they have not set it up. */
  required: boolean;
  /** For administrators: whether the merchant takes its payout decisions in the console only. */
  decisionsInConsole?: boolean;
  notice?: string;
  error?: string;
}

/** The merchant's policy, for administrators: payout decisions through the API, or in the console only. */
function PayoutDecisions(p: { context: ConsoleContext; on: boolean }) {
  const lang = p.context.lang;
  return (
    <section class="card" aria-labelledby="decisions-title">
      <h2 id="decisions-title">{ct(lang, 'security.decisionsTitle')}</h2>
      <p id="decisions-status">
        <span class={p.on ? 'badge badge-ok' : 'badge badge-warn'}>{ct(lang, p.on ? 'security.decisionsOn' : 'security.decisionsOff')}</span>{' '}
        {ct(lang, p.on ? 'security.decisionsOnText' : 'security.decisionsOffText')}
      </p>
      <form method="post" action={PAYOUT_DECISIONS_PATH} id="decisions-form">
        <input type="hidden" name={CSRF_FIELD} value={p.context.csrfToken} />
        <FormKey />
        <input type="hidden" name="on" value={p.on ? 'false' : 'true'} />
        <button class={p.on ? 'link-button' : 'button'} type="submit" id="decisions-toggle">
          {ct(lang, p.on ? 'security.decisionsTurnOff' : 'security.decisionsTurnOn')}
        </button>
      </form>
    </section>
  );
}

export function SecurityPage(p: SecurityPageProps): SafeHtml {
  const { context, status } = p;
  const lang = context.lang;
  const title = ct(lang, 'security.title');
  return (
    <Layout context={context} title={title}>
      <h1>{title}</h1>
      <Alerts notice={p.notice} error={p.error} />
      {p.required && !status.enrolled ? (
        <p class="alert alert-error" role="alert" id="required">
          {ct(lang, 'security.required')}
        </p>
      ) : null}
      <section class="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">{ct(lang, 'security.twoFactor')}</h2>
        {status.enrolled ? (
          <div>
            <p id="two-factor-status">
              <span class="badge badge-ok">{ct(lang, 'security.on')}</span> {ct(lang, 'security.onText', { left: status.recoveryCodesLeft })}
            </p>
            <form method="post" action={TWO_FACTOR_REMOVE_PATH} id="remove-two-factor">
              <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
              <CodeField lang={lang} id="remove-code" hint={ct(lang, 'security.removeHint')} />
              <button class="button" type="submit" id="remove">
                {ct(lang, 'security.remove')}
              </button>
            </form>
          </div>
        ) : (
          <div>
            <p id="two-factor-status">
              <span class="badge badge-warn">{ct(lang, 'security.off')}</span> {ct(lang, 'security.offText')}
            </p>
            <form method="post" action={TWO_FACTOR_PATH} id="begin-two-factor">
              <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
              <button class="button" type="submit" id="begin">
                {ct(lang, 'security.begin')}
              </button>
            </form>
          </div>
        )}
      </section>
      {p.decisionsInConsole === undefined ? null : <PayoutDecisions context={context} on={p.decisionsInConsole} />}
    </Layout>
  );
}

/** Step 1 of 2: scan (or type) the secret, then prove it with a code. */
export function EnrolPage(p: { context: ConsoleContext; enrolment: Enrolment; error?: string }): SafeHtml {
  const { context, enrolment } = p;
  const lang = context.lang;
  const title = ct(lang, 'security.enrolTitle');
  return (
    <Layout context={context} title={title}>
      <h1>{title}</h1>
      <Alerts error={p.error} />
      <section class="card enrol" aria-labelledby="scan-title">
        <h2 id="scan-title">{ct(lang, 'security.scanTitle')}</h2>
        <p>{ct(lang, 'security.scanText')}</p>
        <div class="qr-box">
          <QrCode text={enrolment.otpauthUri} label={ct(lang, 'security.qrLabel')} />
        </div>
        <p>{ct(lang, 'security.typeText')}</p>
        <p class="secret" id="secret">
          <code>{grouped(enrolment.secretBase32)}</code>
        </p>
      </section>
      <section class="card" aria-labelledby="prove-title">
        <h2 id="prove-title">{ct(lang, 'security.proveTitle')}</h2>
        <form method="post" action={TWO_FACTOR_CONFIRM_PATH} id="confirm-two-factor">
          <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
          <CodeField lang={lang} id="confirm-code" hint={ct(lang, 'security.proveHint')} autofocus />
          <button class="button" type="submit" id="confirm">
            {ct(lang, 'security.confirm')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** Step 2 done: the recovery codes, shown this once. */
export function RecoveryCodesPage(p: { context: ConsoleContext; codes: string[] }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'security.codesTitle');
  return (
    <Layout context={context} title={title}>
      <h1>{title}</h1>
      <p class="alert alert-info" role="status" id="notice">
        {ct(lang, 'security.enrolled')}
      </p>
      <section class="card" aria-labelledby="codes-title">
        <h2 id="codes-title">{ct(lang, 'security.codesHeading')}</h2>
        <p>{ct(lang, 'security.codesText')}</p>
        <ol class="recovery-codes" id="recovery-codes">
          {p.codes.map((code) => (
            <li>
              <code>{code}</code>
            </li>
          ))}
        </ol>
        <p>
          <a class="button" href={CONSOLE_PATH} id="continue">
            {ct(lang, 'security.codesDone')}
          </a>
        </p>
      </section>
    </Layout>
  );
}

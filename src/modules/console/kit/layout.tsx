// The frame of every console page: the document head (the stylesheet, htmx and its configuration,
// all served by the service), a skip link, the sandbox strip in sandbox mode, and then either the
// signed-in frame (header with the merchant, the user, their role and the sign-out form; the
// sections the role may see; the main landmark) or the public one (one card: sign in, forgot and
// reset password). The language switch ends every page.
import { h, renderDocument, type Child, type SafeHtml } from '../../../lib/html/jsx.ts';
import { LANGUAGES, type Lang } from '../../../http/i18n.ts';
import { LANGUAGE_NAMES } from '../../../http/html.ts';
import { assetUrl } from './assets.ts';
import { CSRF_FIELD, CSRF_HEADER, type PageContext } from './http.ts';
import { ct, roleName, type KitTextKey } from './i18n.ts';
import { CONSOLE_PATH, SECTION_PATHS, SECURITY_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, type Section } from './paths.ts';
import { sectionsFor } from './roles.ts';

/**
 * htmx's configuration (read from this meta by htmx itself): no eval (hx-on, js: values), and no
 * indicator <style> injected into the page; both would be refused by the CSP anyway. Requests go
 * to this service only. No style attribute among the attributes htmx carries over when it swaps in an
 * element with a known id (attributesToSettle): setAttribute('style') is refused by the CSP, and
 * Chromium logged it on every history restore of the collections filters (P1).
 */
const HTMX_CONFIG = JSON.stringify({
  allowEval: false,
  includeIndicatorStyles: false,
  selfRequestsOnly: true,
  allowScriptTags: false,
  historyCacheSize: 0,
  attributesToSettle: ['class', 'width', 'height'],
});

export const SECTION_LABELS: Record<Section, KitTextKey> = {
  home: 'nav.home',
  collections: 'nav.collections',
  payouts: 'nav.payouts',
  statements: 'nav.statements',
  analytics: 'nav.analytics',
  getPaid: 'nav.getPaid',
  developers: 'nav.developers',
  team: 'nav.team',
  settlement: 'nav.settlement',
  sandbox: 'nav.sandbox',
};

/** The same page in `lang`. */
function languageHref(url: string, lang: Lang): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${lang}`;
}

function Languages(p: { context: PageContext; url?: string }) {
  const url = p.url ?? p.context.url;
  return (
    <nav class="languages" aria-label={ct(p.context.lang, 'layout.language')}>
      <ul>
        {LANGUAGES.map((code) => (
          <li>
            <a href={languageHref(url, code)} hreflang={code} lang={code} aria-current={code === p.context.lang ? 'true' : undefined}>
              {LANGUAGE_NAMES[code]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SandboxStrip(p: { context: PageContext }) {
  return p.context.sandbox ? (
    <p class="sandbox" id="sandbox-badge">
      {ct(p.context.lang, 'layout.sandbox')}
    </p>
  ) : null;
}

function Head(p: { context: PageContext; title: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width,initial-scale=1" />
      <meta name="robots" content="noindex" />
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <title>{`${p.title} · OneKhusa`}</title>
      <link rel="stylesheet" href={assetUrl('console.css')} />
      <script src={assetUrl('htmx.min.js')} nonce={p.context.nonce} defer />
      <script src={assetUrl('console.js')} nonce={p.context.nonce} defer />
    </head>
  );
}

export interface LayoutProps {
  context: PageContext;
  title: string;
  /** The section the page belongs to (marked in the navigation). */
  section?: Section;
  /** The address the language links point at, when not the request's (a page answering a POST). */
  languageUrl?: string;
  children?: Child;
}

/** Who and where: the merchant, the signed-in user and their role, Security and Sign out. */
function SignedInHeader({ context }: { context: LayoutProps['context'] }): SafeHtml {
  const user = context.user!;
  const lang = context.lang;
  return (
    <header class="header">
      <div class="header-inner">
        <div>
          <a class="brand" href={CONSOLE_PATH}>
            OneKhusa
          </a>
          <span class="merchant" id="merchant-name">
            {user.merchantName}
          </span>
          <span class="merchant-number">{ct(lang, 'layout.merchant', { number: user.merchantAccountNumber })}</span>
        </div>
        <div class="account" role="group" aria-label={ct(lang, 'layout.account')}>
          <span class="account-name" id="signed-in-user">
            {ct(lang, 'layout.user', { name: `${user.firstName} ${user.lastName}`, role: roleName(lang, user.roleCode, user.roleName) })}
          </span>
          <a class="account-link" href={SECURITY_PATH} id="security-link">
            {ct(lang, 'layout.security')}
          </a>
          <form class="inline-form" method="post" action={SIGN_OUT_PATH}>
            <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
            <button class="link-button" type="submit" id="sign-out">
              {ct(lang, 'layout.signOut')}
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}

/** A signed-in page. */
export function Layout(p: LayoutProps): SafeHtml {
  const { context } = p;
  const user = context.user;
  if (!user) throw new Error('Layout is for signed-in pages: use PublicLayout');
  const lang = context.lang;
  return (
    <html lang={lang}>
      <Head context={context} title={p.title} />
      <body hx-headers={JSON.stringify({ [CSRF_HEADER]: context.csrfToken })}>
        <a class="skip" href="#main">
          {ct(lang, 'layout.skip')}
        </a>
        <SandboxStrip context={context} />
        <SignedInHeader context={context} />
        <nav class="sections" aria-label={ct(lang, 'layout.navigation')} data-menu="">
          <div class="sections-inner">
            {/* Shown by console.js when the sections do not fit one row (a phone); without the
                script the row scrolls sideways instead (console.css), every link reachable. */}
            <button type="button" class="menu-button" id="menu-button" aria-expanded="false" aria-controls="sections-list" hidden>
              <span class="menu-icon" aria-hidden="true" />
              {ct(lang, 'layout.menu')}
              {p.section ? <span class="menu-current">{ct(lang, SECTION_LABELS[p.section])}</span> : null}
            </button>
            <ul id="sections-list">
              {sectionsFor(user.roleCode, context.sandbox).map((section) => (
                <li>
                  <a href={SECTION_PATHS[section]} aria-current={section === p.section ? 'page' : undefined}>
                    {ct(lang, SECTION_LABELS[section])}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        </nav>
        <main class="main" id="main" tabindex="-1">
          {p.children}
        </main>
        <footer class="footer">
          <div class="footer-inner">
            <Languages context={context} url={p.languageUrl} />
          </div>
        </footer>
      </body>
    </html>
  );
}

/** Sign in, forgot and reset password, and errors before signing in: one card. */
export function PublicLayout(p: LayoutProps): SafeHtml {
  const { context } = p;
  return (
    <html lang={context.lang}>
      <Head context={context} title={p.title} />
      <body>
        <a class="skip" href="#main">
          {ct(context.lang, 'layout.skip')}
        </a>
        <SandboxStrip context={context} />
        <div class="public">
          <a class="brand" href={SIGN_IN_PATH}>
            {ct(context.lang, 'layout.brand')}
          </a>
          <main class="card" id="main" tabindex="-1">
            {p.children}
          </main>
          <Languages context={context} url={p.languageUrl} />
        </div>
      </body>
    </html>
  );
}

/** A whole document. */
export function page(root: SafeHtml): string {
  return renderDocument(root);
}

const ERROR_TEXTS: Record<'csrf' | 'forbidden' | 'notFound' | 'badRequest' | 'other', [KitTextKey, KitTextKey]> = {
  csrf: ['error.csrfTitle', 'error.csrf'],
  forbidden: ['error.forbiddenTitle', 'error.forbidden'],
  notFound: ['error.notFoundTitle', 'error.notFound'],
  badRequest: ['error.badRequestTitle', 'error.badRequest'],
  other: ['error.title', 'error.text'],
};

/** The page of an error: in the signed-in frame when there is a user, else the public one. */
export function ErrorPage(p: { context: PageContext; status: number; kind: 'csrf' | 'forbidden' | 'notFound' | 'other' }): SafeHtml {
  const { context } = p;
  const kind = p.kind === 'other' && p.status >= 400 && p.status < 500 ? 'badRequest' : p.kind;
  const [titleKey, textKey] = ERROR_TEXTS[kind];
  const title = ct(context.lang, titleKey);
  const body = (
    <section class="message" aria-labelledby="message-title">
      <h1 id="message-title">{title}</h1>
      <p id="message-text">{ct(context.lang, textKey, { role: context.user ? roleName(context.lang, context.user.roleCode, context.user.roleName) : '' })}</p>
      <p>
        <a href={context.user ? CONSOLE_PATH : SIGN_IN_PATH}>{ct(context.lang, 'error.home')}</a>
      </p>
    </section>
  );
  return context.user ? (
    <Layout context={context} title={title}>
      {body}
    </Layout>
  ) : (
    <PublicLayout context={context} title={title}>
      {body}
    </PublicLayout>
  );
}

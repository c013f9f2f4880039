// Pages a person reads in a browser (the hosted checkout, the set-password page), as opposed to
// the JSON API: one self-contained HTML document per response, with inline CSS and JS under a
// per-response nonce and no external asset of any kind, so the Content-Security-Policy can be
// `default-src 'none'`. Their routes live in a scope of their own (pageScope) that parses forms
// and answers errors as pages, never as problem+json.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import { LANGUAGES, type Lang } from './i18n.ts';
import type { App } from './types.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/errors.ts';

export interface RenderedPage {
  html: string;
  /** The Content-Security-Policy that goes with this document (its nonce). */
  csp: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text → HTML text or attribute value. Every value from the database or the request goes through it. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** A fresh nonce for one response's inline style and script. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The policy of a page: only its own nonce-carrying style and script; forms post to this service (and `formTargets`). */
export function pagePolicy(nonce: string, formTargets: string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    // The favicon is an inline data: URL, so the browser asks this service for nothing else.
    'img-src data:',
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The look every page shares: a single phone-first column (375 px wide and up), cards, language links. */
export const BASE_STYLE = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#eef2f6;color:#14202b;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:440px;margin:0 auto;padding:16px 14px 28px}
.top{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-bottom:12px}
.brand{font-weight:700;letter-spacing:.02em;color:#0b5f4a}
.badge{font-size:12px;background:#fff4d6;color:#7a5200;border:1px solid #f0d48a;border-radius:999px;padding:2px 10px}
.card{background:#fff;border-radius:16px;box-shadow:0 1px 3px rgba(20,32,43,.12);padding:18px}
.muted{color:#5b6b79;font-size:14px;margin:0}
label{display:block;font-weight:600;margin:0 0 6px}
.langs{margin-top:16px;text-align:center;font-size:14px;color:#5b6b79}
.langs a{color:#23527c;margin:0 6px}
.langs a[aria-current]{font-weight:700;color:#14202b;text-decoration:none}
.msg h1{font-size:22px;margin:0 0 8px}
`;

export interface DocumentParts {
  lang: Lang;
  nonce: string;
  title: string;
  /** CSS (BASE_STYLE and the page's own), under the nonce. */
  style: string;
  /** The body's markup, already escaped. */
  body: string;
  script?: string;
}

export function htmlDocument(parts: DocumentParts): string {
  return `<!doctype html>
<html lang="${parts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(parts.title)}</title>
<link rel="icon" href="data:,">
<style nonce="${parts.nonce}">${parts.style}</style>
</head>
<body>
${parts.body}
${parts.script ? `<script nonce="${parts.nonce}">${parts.script}</script>` : ''}
</body>
</html>
`;
}

export const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English', ny: 'Chichewa' };

/** Links to the same page in every language; `hrefFor` builds the address of each. */
export function languageNav(lang: Lang, label: string, hrefFor: (code: Lang) => string): string {
  const links = (Object.keys(LANGUAGE_NAMES) as Lang[]).map(
    (code) => `<a href="${escapeHtml(hrefFor(code))}" hreflang="${code}" lang="${code}"${code === lang ? ' aria-current="true"' : ''}>${LANGUAGE_NAMES[code]}</a>`,
  );
  return `<nav class="langs" aria-label="${escapeHtml(label)}">${links.join('')}</nav>`;
}

/** A string (or number) field of a parsed query or form; anything else is absent. */
export function formField(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** ?lang= (or the form's lang) wins over Accept-Language, which the pipeline already read. */
export function pageLanguage(request: FastifyRequest, source: unknown): Lang {
  const asked = formField(source, 'lang')?.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(asked ?? '') ? (asked as Lang) : request.lang;
}

export function sendPage(reply: FastifyReply, status: number, lang: Lang, page: RenderedPage): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-language', lang)
    .header('content-security-policy', page.csp)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .send(page.html);
}

export interface PageScopeOptions {
  /** The largest form body the scope's POST routes take: their forms are small, anything bigger is not from the page. */
  formBodyLimitBytes: number;
  /** Logged with an unexpected error (status 500). */
  failureMessage: string;
  /** The page that answers an error with `status` (4xx, 500 or 503). */
  errorPage(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply;
}

/**
 * Registers page routes in a scope of their own: the form parser and the HTML error handler
 * apply to them only. A client error keeps its status (400, 404, 413, 415…), an unreachable
 * database is 503, anything else 500 (logged; the page says nothing of the cause).
 */
export function pageScope(app: App, options: PageScopeOptions, routes: (scope: App) => void): void {
  void app.register(async (scope: App) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: options.formBodyLimitBytes }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
      const given = error instanceof AppError ? error.status : error.statusCode;
      const unreachable = isDatabaseUnavailable(error);
      const status = given !== undefined && given >= 400 && given < 600 && given !== 500 ? given : unreachable ? 503 : 500;
      if (unreachable) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      if (status === 500) request.log.error({ err: error }, options.failureMessage);
      return options.errorPage(request, reply, status);
    });

    routes(scope);
  });
}

// GET /checkout/pay?ptid=… — the hosted checkout page (HTML, at the root, not under /sandbox/v1).
// POST /checkout/pay — its form: pays (or cancels) and answers 303 to the merchant's success or
// failure URL. No token: the unguessable ptid is the customer's only key, as in the link.
// Errors here are pages, not problem+json: a person reads them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../http/errors.ts';
import { LANGUAGES, t, type Lang } from '../../../http/i18n.ts';
import type { App, RouteModule } from '../../../http/types.ts';
import { renderCheckout, renderMessage, type RenderedPage } from '../page.ts';
import { pageState, PAGE_MESSAGES, PAYMENT_TRANSACTION_ID_PATTERN, submitCheckout, type Redirect } from '../service.ts';

/** The form has four short fields; anything bigger is not from the page. */
const FORM_BODY_LIMIT_BYTES = 4096;

function field(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** ?lang= (or the form's lang) wins over Accept-Language, which the pipeline already read. */
function languageOf(request: FastifyRequest, source: unknown): Lang {
  const asked = field(source, 'lang')?.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(asked ?? '') ? (asked as Lang) : request.lang;
}

function sendPage(reply: FastifyReply, status: number, lang: Lang, page: RenderedPage): FastifyReply {
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

function sendMessage(reply: FastifyReply, status: number, lang: Lang, which: keyof typeof PAGE_MESSAGES, ptid?: string): FastifyReply {
  const { title, body } = PAGE_MESSAGES[which];
  return sendPage(reply, status, lang, renderMessage(lang, t(lang, title), t(lang, body), ptid && PAYMENT_TRANSACTION_ID_PATTERN.test(ptid) ? ptid : undefined));
}

function sendRedirect(reply: FastifyReply, redirect: Redirect): FastifyReply {
  // 303: the browser follows with a GET, whatever the form's method was. No Referer: the page's
  // address holds the ptid, which the merchant's site has no business seeing.
  return reply.code(303).header('location', redirect.location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
}

const route: RouteModule = (app, { deps }) => {
  // Its own scope: the form parser and the HTML error handler apply to these two routes only.
  void app.register(async (scope: App) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
      const lang = languageOf(request, request.query);
      const given = error instanceof AppError ? error.status : error.statusCode;
      const unreachable = error.code === 'ECONNREFUSED' || error.code === '57P01';
      const status = given !== undefined && given >= 400 && given < 600 && given !== 500 ? given : unreachable ? 503 : 500;
      if (status === 500) request.log.error({ err: error }, 'checkout page failed');
      return sendMessage(reply, status, lang, 'error');
    });

    scope.get('/checkout/pay', { schema: { hide: true } }, async (request, reply) => {
      const lang = languageOf(request, request.query);
      const ptid = field(request.query, 'ptid') ?? '';
      const state = await pageState(deps, ptid);
      switch (state.kind) {
        case 'notFound':
          return sendMessage(reply, 404, lang, 'notFound');
        case 'redirect':
          return sendRedirect(reply, state.redirect);
        case 'open':
          return sendPage(reply, 200, lang, renderCheckout(lang, state.view));
      }
    });

    scope.post('/checkout/pay', { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
      const lang = languageOf(request, request.body);
      const ptid = field(request.body, 'ptid') ?? '';
      const connector = field(request.body, 'connectorId');
      const result = await submitCheckout(deps, {
        paymentTransactionId: ptid,
        connectorId: connector !== undefined && /^\d{6}$/.test(connector) ? Number(connector) : undefined,
        cancel: field(request.body, 'action') === 'cancel',
      });
      return result.kind === 'notFound' ? sendMessage(reply, 404, lang, 'notFound') : sendRedirect(reply, result.redirect);
    });
  });
};
export default route;

// GET /checkout/pay?ptid=… — the hosted checkout page (HTML, at the root, not under /sandbox/v1).
// POST /checkout/pay — its form: pays (or cancels) and answers 303 to the merchant's success or
// failure URL. No token: the unguessable ptid is the customer's only key, as in the link.
// Errors here are pages, not problem+json: a person reads them.
import type { FastifyReply } from 'fastify';
import { formField, pageLanguage, pageScope, redactingSerializers, sendPage } from '../../../http/html.ts';
import { t, type Lang } from '../../../http/i18n.ts';
import type { RouteModule } from '../../../http/types.ts';
import { renderCheckout, renderMessage } from '../page.ts';
import { pageState, PAGE_MESSAGES, PAYMENT_TRANSACTION_ID_PATTERN, submitCheckout, type Redirect } from '../service.ts';

/** The form has four short fields; anything bigger is not from the page. */
const FORM_BODY_LIMIT_BYTES = 4096;
/** The ptid is the page's only key: blanked in the request log. */
const logSerializers = redactingSerializers('ptid');

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
  pageScope(
    app,
    {
      formBodyLimitBytes: FORM_BODY_LIMIT_BYTES,
      failureMessage: 'checkout page failed',
      errorPage: (request, reply, status) => sendMessage(reply, status, pageLanguage(request, request.query), 'error'),
    },
    (scope) => {
      scope.get('/checkout/pay', { schema: { hide: true }, logSerializers },  async (request, reply) => {
        const lang = pageLanguage(request, request.query);
        const ptid = formField(request.query, 'ptid') ?? '';
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

      scope.post('/checkout/pay', { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT_BYTES, logSerializers }, async (request, reply) => {
        const lang = pageLanguage(request, request.body);
        const ptid = formField(request.body, 'ptid') ?? '';
        const connector = formField(request.body, 'connectorId');
        const result = await submitCheckout(deps, {
          paymentTransactionId: ptid,
          connectorId: connector !== undefined && /^\d{6}$/.test(connector) ? Number(connector) : undefined,
          cancel: formField(request.body, 'action') === 'cancel',
        });
        return result.kind === 'notFound' ? sendMessage(reply, 404, lang, 'notFound') : sendRedirect(reply, result.redirect);
      });
    },
  );
};
export default route;

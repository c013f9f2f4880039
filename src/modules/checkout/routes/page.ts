// GET /checkout/pay?ptid=… — the hosted checkout page (HTML, at the root, not under /sandbox/v1),
// also at the gateway's documented address GET /requestToPay/initiate?ptid=…, where shops written
// for the gateway send their customers.
// POST /checkout/pay — its form: pays (sandbox only) or cancels, and answers 303 to the merchant's
// success or failure URL. GET /checkout/status?ptid=… — what the open page polls, so that it moves
// on by itself once the timed account is paid. No token: the unguessable ptid is the customer's
// only key, as in the link. Errors here are pages, not problem+json: a person reads them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config.ts';
import { publicBaseUrl } from '../../../http/base-url.ts';
import { formField, pageLanguage, pageScope, sendPage } from '../../../http/html.ts';
import { t, type Lang } from '../../../http/i18n.ts';
import type { RouteModule } from '../../../http/types.ts';
import { renderCheckout, renderMessage } from '../page.ts';
import { CHECKOUT_PATHS, checkoutStatus, pageState, PAGE_MESSAGES, PAYMENT_TRANSACTION_ID_PATTERN, simulatesPayment, submitCheckout, type Redirect } from '../service.ts';

/** The form has four short fields; anything bigger is not from the page. */
const FORM_BODY_LIMIT_BYTES = 4096;
/** The ptid is the page's only key: blanked in the request log. */

function sendMessage(reply: FastifyReply, status: number, lang: Lang, which: keyof typeof PAGE_MESSAGES, sandbox: boolean, ptid?: string): FastifyReply {
  const { title, body } = PAGE_MESSAGES[which];
  return sendPage(reply, status, lang, renderMessage(lang, t(lang, title), t(lang, body), ptid && PAYMENT_TRANSACTION_ID_PATTERN.test(ptid) ? ptid : undefined, sandbox));
}

function sendRedirect(reply: FastifyReply, redirect: Redirect): FastifyReply {
  // 303: the browser follows with a GET, whatever the form's method was. No Referer: the page's
  // address holds the ptid, which the merchant's site has no business seeing.
  return reply.code(303).header('location', redirect.location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
}

/**
 * Cross-site request forgery (defence in depth: a forger would also need the ptid). A browser says
 * where a POST comes from: Sec-Fetch-Site (Chromium, Firefox, Safari ≥ 16.4) must be
 * "same-origin"; without it, Origin must be the page's own. The page's no-referrer policy makes
 * browsers send "Origin: null" for its own form, so null is only trusted beside Sec-Fetch-Site.
 * The page's origin is PUBLIC_BASE_URL's; without it (sandbox), the host the browser asked for.
 * A client that sends neither header is not a browser, and holds the ptid anyway.
 */
function sameOrigin(config: Pick<Config, 'publicBaseUrl' | 'publicCheckoutUrl'>, request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let sent: URL;
  try {
    sent = new URL(origin);
  } catch {
    return false;
  }
  const configured = [config.publicBaseUrl, config.publicCheckoutUrl].filter((url) => url !== undefined);
  if (configured.length > 0) return configured.some((url) => sent.origin === new URL(url).origin);
  return sent.host === new URL(publicBaseUrl(config, request)).host;
}

const route: RouteModule = (app, { deps }) => {
  const sandbox = simulatesPayment(deps);
  pageScope(
    app,
    {
      formBodyLimitBytes: FORM_BODY_LIMIT_BYTES,
      failureMessage: 'checkout page failed',
      errorPage: (request, reply, status) => sendMessage(reply, status, pageLanguage(request, request.query), 'error', sandbox),
    },
    (scope) => {
      for (const path of CHECKOUT_PATHS) {
        scope.get(path, { schema: { hide: true } }, async (request, reply) => {
          const lang = pageLanguage(request, request.query);
          const ptid = formField(request.query, 'ptid') ?? '';
          const state = await pageState(deps, ptid);
          switch (state.kind) {
            case 'notFound':
              return sendMessage(reply, 404, lang, 'notFound', sandbox);
            case 'redirect':
              return sendRedirect(reply, state.redirect);
            case 'open':
              return sendPage(reply, 200, lang, renderCheckout(lang, state.view));
          }
        });
      }

      scope.get('/checkout/status', { schema: { hide: true } }, async (request, reply) => {
        const status = await checkoutStatus(deps, formField(request.query, 'ptid') ?? '');
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        switch (status.kind) {
          case 'notFound':
            return reply.code(404).send({ status: 'notFound' });
          case 'paid':
            return reply.send({ status: 'paid', location: status.redirect.location });
          case 'open':
            return reply.send({ status: 'open', secondsLeft: status.secondsLeft });
          case 'closed':
            return reply.send({ status: 'closed' });
        }
      });

      scope.post('/checkout/pay', { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const lang = pageLanguage(request, request.body);
        if (!sameOrigin(deps.config, request)) return sendMessage(reply, 403, lang, 'forbidden', sandbox);
        const ptid = formField(request.body, 'ptid') ?? '';
        const cancel = formField(request.body, 'action') === 'cancel';
        // Production has no simulated Pay: only the customer's real payment pays (product.md §15).
        if (!cancel && !sandbox) return sendMessage(reply, 404, lang, 'notFound', sandbox);
        const connector = formField(request.body, 'connectorId');
        const result = await submitCheckout(deps, {
          paymentTransactionId: ptid,
          connectorId: connector !== undefined && /^\d{6}$/.test(connector) ? Number(connector) : undefined,
          cancel,
        });
        return result.kind === 'notFound' ? sendMessage(reply, 404, lang, 'notFound', sandbox) : sendRedirect(reply, result.redirect);
      });
    },
  );
};
export default route;

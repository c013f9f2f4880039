// Getting paid (issue 19): requests to pay with their timed accounts, hosted checkout links.
// GET  /console/get-paid — the two forms and the open ones (keyset paged; htmx asks for the list alone).
// POST /console/get-paid/requests — a request to pay (E12's service, the signed-in user as capturedBy);
//      303 to the request's page, which shows its timed account and the time left to pay.
// POST /console/get-paid/checkouts — a hosted checkout (the checkout service without its key pair:
//      the session stands for it); 303 to its page, which shows the link to share.
// GET  /console/get-paid/requests/:requestId — one of them; another merchant's is the 404 page.
// Both actions run through runAction (one effect per form key, audited with the user): a refused
// form is shown again with the user's input and a message per field.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import { publicCheckoutUrl } from '../../../../http/base-url.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { render } from '../../../../lib/html/jsx.ts';
import { randomUpperAlnum } from '../../../../lib/ids.ts';
import { checkoutTargets, checkoutUrl, createCheckout } from '../../../checkout/service.ts';
import { createPaymentRequestInTransaction } from '../../../collections/service.ts';
import { amountRange, type AmountRange } from '../../../limits/enforce.ts';
import { findMerchant } from '../../../merchants/repository.ts';
import { ConsoleRefusal, noticeOf, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { findPaymentRequest, listOpenRequests } from '../../../collections/payment-requests.ts';
import { CHECKOUT_LIMITS, REQUEST_TO_PAY_LIMITS } from '../limits.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import {
  CHECKOUT_FIELDS,
  CHECKOUTS_PATH,
  GET_PAID_PATH,
  GetPaidPage,
  OPEN_REGION,
  OpenRequests,
  REQUEST_FIELDS,
  requestPath,
  RequestPage,
  REQUESTS_PATH,
  type CheckoutField,
  type GetPaidLimits,
  type RequestField,
} from '../pages/get-paid.tsx';
import { at } from '../../kit/at.ts';
import { checkoutProblems, requestProblems } from '../forms.ts';
import { Form, PathId, pathId, Query, Text } from '../../kit/schemas.ts';
import { amountMinorOf, fieldOfRefusal, shownAmount, valuesOf, type FormState } from '../../kit/forms.tsx';

const CONFIG = { consoleAccess: 'user', consoleSection: 'getPaid' } as const;

// The forms' fields, all text: requestProblems and checkoutProblems (forms.ts) refuse a wrong one
// with its own message, shown beside it. `satisfies` keeps them the fields the pages show.
const RequestBody = Form({ amount: Text(), description: Text(), reference: Text() } satisfies Record<RequestField, unknown>);
const CheckoutBody = Form({ amount: Text(), description: Text(), sourceReference: Text(), successUrl: Text(), failureUrl: Text() } satisfies Record<CheckoutField, unknown>);
/** The open list's cursor: listOpenRequests refuses one that is not its own (the 400 page). */
const OpenQuery = Query({ after: Text() });
/** Request ids are bigint (payment_requests.request_id). */
const RequestParams = Type.Object({ requestId: PathId });

/** A suggested reference for a new form (the user may type their own): E12's 5–25 alphanumerics. */
const suggestedReference = () => `INV${randomUpperAlnum(9)}`;
/** A suggested source reference for a checkout: 1–50 of letters, digits and _ . : / # -. */
const suggestedOrder = () => `ORDER-${randomUpperAlnum(8)}`;

function freshRequest(): FormState<RequestField> {
  return { values: { amount: '', description: '', reference: suggestedReference() }, errors: {} };
}

function freshCheckout(): FormState<CheckoutField> {
  return { values: { amount: '', description: '', sourceReference: suggestedOrder(), successUrl: '', failureUrl: '' }, errors: {} };
}

/** Whether htmx asks for the open list alone (a pager link), not a history restore. */
function wantsOpenListOnly(request: FastifyRequest): boolean {
  const headers = request.headers;
  return headers['hx-request'] === 'true' && headers['hx-history-restore-request'] !== 'true' && headers['hx-target'] === OPEN_REGION;
}

/**
 * A refusal as the form shows it: a service's (AppError) on its field when it names one, else at
 * the top; the console's own (a stale form key) at the top. Anything else is not a refusal.
 */
function refusalState<K extends string>(context: ConsoleContext, err: unknown, names: readonly K[], values: Record<K, string>): { status: number; state: FormState<K> } {
  if (err instanceof ConsoleRefusal) return { status: err.status, state: { values, errors: err.fields as Partial<Record<K, string>>, message: err.message } };
  const refusal = refusalOf(err, context.lang);
  if (!refusal) throw err;
  const field = fieldOfRefusal(err);
  if (field && (names as readonly string[]).includes(field)) {
    // An address the checkout service refused: the form's own words for it (the API's name the JSON field).
    const message = field === 'successUrl' || field === 'failureUrl' ? ct(context.lang, 'getPaid.error.url', { max: CHECKOUT_LIMITS.urlMaxLength }) : refusal.message;
    return { status: refusal.status, state: { values, errors: { [field]: message } as Partial<Record<K, string>> } };
  }
  return { status: refusal.status, state: { values, errors: {}, message: refusal.message } };
}

/** What the forms tell people: the merchant's currency, the API's limits, how long a timed account lives. */
/** What a request to pay may ask: E12's range within the merchant's request-to-pay limit (a checkout is one too). */
async function requestAmountRange(deps: Deps, merchant: { merchant_account_number: number; currency_code: string }): Promise<AmountRange> {
  return amountRange(deps.db, merchant.merchant_account_number, 'RTP', merchant.currency_code, REQUEST_TO_PAY_LIMITS.amount);
}

async function merchantOf(deps: Deps, merchantAccountNumber: number) {
  const merchant = await findMerchant(deps.db, merchantAccountNumber);
  if (!merchant) throw new Error(`the signed-in user's merchant ${merchantAccountNumber} does not exist`);
  return merchant;
}

async function limitsFor(deps: Deps, merchantAccountNumber: number): Promise<GetPaidLimits> {
  const merchant = await merchantOf(deps, merchantAccountNumber);
  const range = await requestAmountRange(deps, merchant);
  return {
    currencyCode: merchant.currency_code,
    minAmount: shownAmount(range.min),
    maxAmount: shownAmount(range.max),
    descriptionMaxLength: REQUEST_TO_PAY_LIMITS.descriptionMaxLength,
    referenceMaxLength: REQUEST_TO_PAY_LIMITS.referenceMaxLength,
    sourceReferenceMaxLength: CHECKOUT_LIMITS.sourceReferenceMaxLength,
    urlMaxLength: CHECKOUT_LIMITS.urlMaxLength,
    expiryMinutes: deps.config.timedAccountMinutes,
  };
}

interface PageView {
  /** A refused form, with its input and messages (the other one fresh). */
  forms?: { request?: FormState<RequestField>; checkout?: FormState<CheckoutField> };
  /** The open list's cursor (a GET's; a refused form's page shows the first page). */
  after?: string;
}

/** The page with its two forms and a page of open ones. */
async function showPage(deps: Deps, request: FastifyRequest, reply: FastifyReply, status: number, view: PageView = {}): Promise<FastifyReply> {
  const context = consoleContext(request);
  const merchantAccountNumber = context.user.merchantAccountNumber;
  const after = view.after ?? '';
  const forms = view.forms ?? {};
  const open = await listOpenRequests(deps.db, merchantAccountNumber, { after: after || undefined });
  const html = page(
    GetPaidPage({
      context,
      notice: request.method === 'GET' ? noticeOf(request, context.lang) : undefined,
      request: forms.request ?? freshRequest(),
      checkout: forms.checkout ?? freshCheckout(),
      open,
      after,
      limits: await limitsFor(deps, merchantAccountNumber),
    }),
  );
  return sendHtml(reply, context, status, html);
}

/** GET /console/get-paid: the page, or (to htmx paging) the open list alone. */
function getPaidPageRoute(scope: App, deps: Deps): void {
  scope.get(at(GET_PAID_PATH), { schema: { querystring: OpenQuery }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const after = request.query.after ?? '';
    // The same address answers the whole page or, to htmx, the list it swaps: caches must tell them apart.
    reply.header('vary', 'HX-Request, HX-Target, HX-History-Restore-Request');
    if (wantsOpenListOnly(request)) {
      // A refused cursor (a 400 AppError) is the console's error page, as for the other lists' addresses.
      const open = await listOpenRequests(deps.db, context.user.merchantAccountNumber, { after: after || undefined });
      return sendHtml(reply, context, 200, render(OpenRequests({ lang: context.lang, page: open, after, swapped: true })));
    }
    return showPage(deps, request, reply, 200, { after });
  });
}

/** POST /console/get-paid/requests: a request to pay; 303 to its page. */
function requestToPayRoute(scope: App, deps: Deps): void {
  scope.post(at(REQUESTS_PATH), { schema: { body: RequestBody }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    const values = valuesOf(request, REQUEST_FIELDS);
    const problems = requestProblems(context.lang, values, await requestAmountRange(deps, await merchantOf(deps, user.merchantAccountNumber)));
    if (Object.keys(problems).length > 0) return showPage(deps, request, reply, 400, { forms: { request: { values, errors: problems } } });
    try {
      const result = await runAction(deps, request, context, {
        action: 'payment_request.create',
        run: async (tx) => {
          // E12's service, in the action's transaction: the request, the form key and the audit entry commit together.
          const made = await createPaymentRequestInTransaction(deps, tx, {
            merchantAccountNumber: user.merchantAccountNumber,
            amountMinor: amountMinorOf(values.amount)!,
            transactionDescription: values.description,
            referenceNumber: values.reference,
            capturedBy: user.emailAddress,
          });
          return {
            outcome: { location: withNotice(requestPath(Number(made.request_id)), 'notice.getPaid.requestCreated') },
            detail: { requestId: Number(made.request_id), referenceNumber: made.reference_number, timedAccountNumber: made.timed_account_number, amountMinor: Number(made.amount_minor) },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusalState(context, err, REQUEST_FIELDS, values);
      return showPage(deps, request, reply, refused.status, { forms: { request: refused.state } });
    }
  });
}

/** POST /console/get-paid/checkouts: a hosted checkout; 303 to its page, which shows the link. */
function checkoutRoute(scope: App, deps: Deps): void {
  scope.post(at(CHECKOUTS_PATH), { schema: { body: CheckoutBody }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    const values = valuesOf(request, CHECKOUT_FIELDS);
    const problems = checkoutProblems(context.lang, values, await requestAmountRange(deps, await merchantOf(deps, user.merchantAccountNumber)));
    if (Object.keys(problems).length > 0) return showPage(deps, request, reply, 400, { forms: { checkout: { values, errors: problems } } });
    try {
      const input = {
        merchantAccountNumber: user.merchantAccountNumber,
        sourceReferenceNumber: values.sourceReference,
        description: values.description,
        amountMinor: amountMinorOf(values.amount)!,
        successRedirectionUrl: values.successUrl,
        failureRedirectionUrl: values.failureUrl,
        // A callback's signing secrets would have to be shown once: shops that want one use the API.
        callbackApiUrl: null,
        baseUrl: publicCheckoutUrl(deps.config, request),
        capturedBy: user.emailAddress,
      };
      const targets = await checkoutTargets(deps, input);
      const result = await runAction(deps, request, context, {
        action: 'checkout.create',
        run: async (tx) => {
          const made = await createCheckout(deps, tx, input, targets);
          const requestId = Number(made.request.request_id);
          return {
            outcome: { location: withNotice(requestPath(requestId), 'notice.getPaid.checkoutCreated') },
            // Not the link: its id is the page's only guard, and the log is read by more people.
            detail: { requestId, sourceReferenceNumber: values.sourceReference, timedAccountNumber: made.request.timed_account_number, amountMinor: Number(made.request.amount_minor) },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusalState(context, err, CHECKOUT_FIELDS, values);
      return showPage(deps, request, reply, refused.status, { forms: { checkout: refused.state } });
    }
  });
}

/** GET /console/get-paid/requests/:requestId: one request or checkout. */
function requestPageRoute(scope: App, deps: Deps): void {
  scope.get(`${at(REQUESTS_PATH)}/:requestId`, { schema: { params: RequestParams }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const found = await findPaymentRequest(deps.db, context.user.merchantAccountNumber, pathId(request.params.requestId, () => new AppError('notFound')));
    // Unknown and another merchant's look the same: the console's 404 page (the scope's error handler).
    if (!found) throw new AppError('notFound');
    const link = found.paymentTransactionId ? checkoutUrl(publicCheckoutUrl(deps.config, request), found.paymentTransactionId) : undefined;
    return sendHtml(reply, context, 200, page(RequestPage({ context, request: found, checkoutUrl: link, notice: noticeOf(request, context.lang) })));
  });
}

const route: RouteModule = (scope, { deps }) => {
  getPaidPageRoute(scope, deps);
  requestToPayRoute(scope, deps);
  checkoutRoute(scope, deps);
  requestPageRoute(scope, deps);
};

export default route;

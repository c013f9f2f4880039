// GET  /console/developers/webhooks — the subscriptions and the form that adds one.
// POST /console/developers/webhooks/add — webhooks service addWebhook (the API's add).
// GET  /console/developers/webhooks/:webhookId — one subscription: change it, its secrets, verify a
//      signature, send a test event, delete it.
// POST …/:webhookId/{edit,delete,verify,test} — updateWebhook (E13), deleteWebhook (E14),
//      verifySignature (verify), sendTestEvent (test), each in the action's transaction.
// GET  /console/developers/webhooks/deliveries — the delivery log (htmx swaps its results region).
// GET  /console/developers/webhooks/deliveries/:deliveryId — one delivery: its request and attempts.
// POST …/deliveries/:deliveryId/redeliver and …/deliveries/redeliver-failed — the API's redeliver
//      (one delivery, or every failed one created in a period of at most REDELIVER_MAX_DAYS days);
//      the dispatcher is woken at the commit, as for the API.
// Another merchant's subscription or delivery, or an unknown id: the console's 404 page.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { render } from '../../../../lib/html/jsx.ts';
import { isKnownEvent } from '../../../webhooks/catalogue.ts';
import { deliveryHeaders, SIGNATURE_HEADERS } from '../../../webhooks/dispatcher.ts';
import { findSubscription } from '../../../webhooks/repository.ts';
import { addWebhook, deleteWebhookIn, redeliverIn, sendTestEventIn, updateWebhook, verifySignature } from '../../../webhooks/service.ts';
import { CALLBACK_URL_MAX_LENGTH } from '../../../webhooks/url-guard.ts';
import { ConsoleRefusal, noticeOf, runAction, withNotice } from '../../kit/actions.tsx';
import { deliveryDetail, deliveryEventCodes, listDeliveryLog, type DeliveryItem } from '../../../webhooks/delivery-log.ts';
import { findWebhookSubscription, listWebhookSubscriptions, type Subscription } from '../queries.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { DELIVERIES_PATH, deliveryPath, emptyForm, REDELIVER_FAILED_PATH, WEBHOOK_ADD_PATH, webhookPath, WEBHOOKS_PATH, type FormState } from '../pages/developers.tsx';
import { WebhookPage, WebhooksPage } from '../pages/webhooks.tsx';
import { DeliveriesPage, DeliveriesResults, DELIVERIES_REGION, type DeliveryFilterValues } from '../pages/deliveries.tsx';
import { DeliveryPage, MASK } from '../pages/delivery.tsx';
import { at } from '../../kit/at.ts';
import { Form, PathId, pathId, Query, Text } from '../../kit/schemas.ts';
import { DAY_MS, dayOf, DEVELOPERS_CONFIG as config, failedForm, failureOf, fieldRefusal, parseDay } from '../shared.ts';

/** "Redeliver failed" covers at most this many days: a bounded amount of work per click. */
export const REDELIVER_MAX_DAYS = 31;
/** The period the "redeliver failed" form proposes: the last week, today included. */
const REDELIVER_DEFAULT_DAYS = 7;
/** A signature typed to check: the API's verify takes at most 200 characters. */
const SIGNATURE_MAX_LENGTH = 200;
/** The API's callbackUrl schema: at least 8 characters ("http://a"). */
const CALLBACK_URL_MIN_LENGTH = 8;

// What each route reads (kit/schemas.ts): the shape only. The fields' own checks stay in the
// routes, so that each gets its own message on the form.
const WebhookParams = Type.Object({ webhookId: PathId });
const DeliveryParams = Type.Object({ deliveryId: PathId });
const SubscriptionForm = Form({ event: Text(), url: Text() });
const VerifyForm = Form({ signature: Text() });
const RedeliverFailedForm = Form({ from: Text(), to: Text() });
/** The test, delete and redeliver buttons post the token and the form key only. */
const ButtonForm = Form({});
/** The log's filter and cursor, and `queued`: how many deliveries "redeliver failed" queued. */
const DeliveriesQuery = Query({ status: Text(), event: Text(), after: Text(), queued: Text() });

const webhookNotFound = (id: number | string) => new AppError('notFound', 'detail.webhookNotFound', { webhook: String(id).slice(0, 20) });
const deliveryNotFound = (id: number | string) => new AppError('notFound', 'detail.deliveryNotFound', { deliveryId: String(id).slice(0, 20) });

/** A service refusal's field on the subscription forms. */
function subscriptionField(key: string | undefined): string | undefined {
  if (key === 'detail.callbackUrl' || key === 'detail.callbackPrivate') return 'url';
  if (key === 'detail.webhookExists') return 'event';
  return undefined;
}

/** The subscription form's fields, as typed (bounded: they are shown back). */
function subscriptionValues(body: Static<typeof SubscriptionForm>): { event: string; url: string } {
  return { event: (body.event ?? '').trim().slice(0, 100), url: (body.url ?? '').trim().slice(0, CALLBACK_URL_MAX_LENGTH + 1) };
}

/** The console's own checks of a subscription form; `current`: the subscription's code, which may stay as it is. */
function checkSubscription(context: ConsoleContext, values: { event: string; url: string }, current?: string): void {
  const lang = context.lang;
  const errors: Record<string, string> = {};
  if (values.event === '') errors.event = ct(lang, 'developers.webhook.eventRequired');
  else if (!isKnownEvent(values.event) && values.event !== current) errors.event = ct(lang, 'developers.webhook.eventUnknown', { event: values.event });
  if (values.url === '') errors.url = ct(lang, 'developers.webhook.urlRequired');
  else if (values.url.length > CALLBACK_URL_MAX_LENGTH) errors.url = ct(lang, 'developers.webhook.urlTooLong', { max: CALLBACK_URL_MAX_LENGTH });
  else if (values.url.length < CALLBACK_URL_MIN_LENGTH) errors.url = ct(lang, 'developers.webhook.urlInvalid');
  if (Object.keys(errors).length > 0) throw fieldRefusal(lang, errors);
}

/** The URL's host, for the audit log (a callback URL's path or query may carry a token of the merchant's). */
function hostOf(url: string): string {
  try {
    return new URL(url).host.slice(0, 255);
  } catch {
    return '';
  }
}

function defaultRedeliverForm(now: Date): FormState {
  return emptyForm({ from: dayOf(new Date(now.getTime() - (REDELIVER_DEFAULT_DAYS - 1) * DAY_MS)), to: dayOf(now) });
}

/** Whether htmx asks for the results region alone (not a history restore, which wants the page). */
function wantsResultsOnly(request: FastifyRequest): boolean {
  const headers = request.headers;
  return headers['hx-request'] === 'true' && headers['hx-history-restore-request'] !== 'true' && headers['hx-target'] === DELIVERIES_REGION;
}

/** The request headers a delivery's attempts sent, the signatures masked; the timestamp of the latest attempt. */
function shownHeaders(d: NonNullable<Awaited<ReturnType<typeof deliveryDetail>>>): Array<[string, string]> {
  const latest = d.attempts[0];
  const headers = deliveryHeaders({
    eventCode: d.eventCode,
    messageId: d.messageId,
    deliveryId: d.deliveryId,
    isTest: d.isTest,
    listenerId: d.listenerId,
    timestampSeconds: latest ? Math.floor(latest.attemptedAt.getTime() / 1000) : 0,
    webhookSignature: '',
    standardSignature: '',
  });
  return Object.entries(headers).map(([name, value]): [string, string] => [name, SIGNATURE_HEADERS.includes(name) ? MASK : name === 'webhook-timestamp' && !latest ? '—' : value]);
}

// ---------------------------------------------------------------------------------------------
// The pages, answered with a status (a refused form answers its page with the refusal's)

async function renderWebhooks(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, extra: { form?: FormState; notice?: string; error?: string }) {
  const subscriptions = await listWebhookSubscriptions(deps.db, context.user.merchantAccountNumber);
  return sendHtml(reply, context, status, page(WebhooksPage({ context, subscriptions, form: extra.form ?? emptyForm(), notice: extra.notice, error: extra.error })));
}

async function renderWebhook(
  deps: Deps,
  reply: FastifyReply,
  context: ConsoleContext,
  status: number,
  subscription: Subscription,
  extra: { edit?: FormState; verify?: FormState; notice?: string; error?: string },
) {
  const all = await listWebhookSubscriptions(deps.db, context.user.merchantAccountNumber);
  const taken = new Set(all.filter((s) => s.webhook_id !== subscription.webhook_id).map((s) => s.event_code));
  return sendHtml(
    reply,
    context,
    status,
    page(WebhookPage({ context, subscription, taken, edit: extra.edit ?? emptyForm(), verify: extra.verify ?? emptyForm(), notice: extra.notice, error: extra.error })),
  );
}

/** The merchant's subscription the address names; another merchant's or an unknown one is the 404 page. */
async function subscriptionOf(deps: Deps, context: ConsoleContext, webhookIdParam: string): Promise<Subscription> {
  const webhookId = pathId(webhookIdParam, () => webhookNotFound('?'));
  const found = await findWebhookSubscription(deps.db, context.user.merchantAccountNumber, webhookId);
  if (!found) throw webhookNotFound(webhookId);
  return found;
}

/** A page of the delivery log, or the message saying its filter or cursor cannot be read. */
async function deliveriesOf(deps: Deps, context: ConsoleContext, filter: DeliveryFilterValues): Promise<{ found: Page<DeliveryItem>; problem?: string }> {
  try {
    const found = await listDeliveryLog(deps.db, context.user.merchantAccountNumber, { status: filter.status || undefined, event: filter.event || undefined, after: filter.after || undefined });
    return { found };
  } catch (err) {
    if (!(err instanceof AppError) || err.kind !== 'validation') throw err;
    return { found: { items: [], next: null }, problem: ct(context.lang, 'developers.deliveries.badFilter') };
  }
}

async function renderDeliveries(
  deps: Deps,
  reply: FastifyReply,
  context: ConsoleContext,
  status: number,
  extra: { filter?: DeliveryFilterValues; redeliverForm?: FormState; notice?: string; noticeExtra?: string; error?: string },
) {
  const filter = extra.filter ?? { status: '', event: '', after: '' };
  const { found, problem } = await deliveriesOf(deps, context, filter);
  const eventCodes = await deliveryEventCodes(deps.db, context.user.merchantAccountNumber);
  const view = { context, page: found, filter, problem, eventCodes, redeliverForm: extra.redeliverForm ?? defaultRedeliverForm(deps.clock.now()), notice: extra.notice, noticeExtra: extra.noticeExtra, error: extra.error };
  return sendHtml(reply, context, problem ? 400 : status, page(DeliveriesPage(view)));
}

async function renderDelivery(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, deliveryId: number, extra: { notice?: string; error?: string }) {
  const delivery = await deliveryDetail(deps.db, context.user.merchantAccountNumber, deliveryId);
  if (!delivery) throw deliveryNotFound(deliveryId);
  return sendHtml(reply, context, status, page(DeliveryPage({ context, delivery, headers: shownHeaders(delivery), notice: extra.notice, error: extra.error })));
}

// ---------------------------------------------------------------------------------------------
// Subscriptions

/** GET /webhooks (the list and the add form) and POST /webhooks/add. */
function subscriptionsList(scope: App, deps: Deps): void {
  scope.get(at(WEBHOOKS_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    return renderWebhooks(deps, reply, context, 200, { notice: noticeOf(request, context.lang) });
  });

  scope.post(at(WEBHOOK_ADD_PATH), { schema: { body: SubscriptionForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const values = subscriptionValues(request.body);
    try {
      checkSubscription(context, values);
      const result = await runAction(deps, request, context, {
        action: 'webhook.add',
        run: async (tx) => {
          const webhookId = await addWebhook(deps, { merchantAccountNumber: m, eventCode: values.event, callbackUrl: values.url, capturedBy: context.user.emailAddress }, tx);
          // To the subscription's page: its signing secrets are there.
          return { outcome: { location: withNotice(webhookPath(webhookId), 'notice.developers.webhookAdded') }, detail: { webhookId, eventCode: values.event, host: hostOf(values.url) } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang, subscriptionField);
      return renderWebhooks(deps, reply, context, failure.status, { form: failedForm(values, failure) });
    }
  });
}

/** GET /webhooks/:webhookId (the subscription's page) and POST …/edit. */
function subscriptionPage(scope: App, deps: Deps): void {
  scope.get(`${at(WEBHOOKS_PATH)}/:webhookId`, { schema: { params: WebhookParams }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const subscription = await subscriptionOf(deps, context, request.params.webhookId);
    return renderWebhook(deps, reply, context, 200, subscription, { notice: noticeOf(request, context.lang) });
  });

  scope.post(`${at(WEBHOOKS_PATH)}/:webhookId/edit`, { schema: { params: WebhookParams, body: SubscriptionForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const subscription = await subscriptionOf(deps, context, request.params.webhookId);
    const values = subscriptionValues(request.body);
    try {
      checkSubscription(context, values, subscription.event_code);
      const result = await runAction(deps, request, context, {
        action: 'webhook.update',
        run: async (tx) => {
          await updateWebhook(deps, { webhookId: subscription.webhook_id, merchantAccountNumber: m, eventCode: values.event, callbackUrl: values.url, capturedBy: context.user.emailAddress }, tx);
          return {
            outcome: { location: withNotice(webhookPath(subscription.webhook_id), 'notice.developers.webhookUpdated') },
            detail: { webhookId: subscription.webhook_id, eventCode: values.event, host: hostOf(values.url) },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang, subscriptionField);
      return renderWebhook(deps, reply, context, failure.status, subscription, { edit: failedForm(values, failure) });
    }
  });
}

/** POST /webhooks/:webhookId/delete and …/test: one button each, a refusal shown at the page's top. */
function subscriptionButtons(scope: App, deps: Deps): void {
  scope.post(`${at(WEBHOOKS_PATH)}/:webhookId/delete`, { schema: { params: WebhookParams, body: ButtonForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const subscription = await subscriptionOf(deps, context, request.params.webhookId);
    try {
      const result = await runAction(deps, request, context, {
        action: 'webhook.delete',
        run: async (tx) => {
          // By the subscription's event code as it is now (E14 deletes by code; the page may be stale).
          const current = await findSubscription(tx, m, { webhookId: subscription.webhook_id });
          if (!current) throw webhookNotFound(subscription.webhook_id);
          await deleteWebhookIn(tx, m, current.event_code);
          return { outcome: { location: withNotice(WEBHOOKS_PATH, 'notice.developers.webhookDeleted') }, detail: { webhookId: current.webhook_id, eventCode: current.event_code } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang);
      return renderWebhook(deps, reply, context, failure.status, subscription, { error: failure.message });
    }
  });

  scope.post(`${at(WEBHOOKS_PATH)}/:webhookId/test`, { schema: { params: WebhookParams, body: ButtonForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const subscription = await subscriptionOf(deps, context, request.params.webhookId);
    try {
      const result = await runAction(deps, request, context, {
        action: 'webhook.test',
        run: async (tx) => {
          const sent = await sendTestEventIn(tx, deps.clock, m, subscription.event_code);
          // To the test delivery's page, to follow it.
          return { outcome: { location: withNotice(deliveryPath(sent.deliveryId), 'notice.developers.testSent') }, detail: { webhookId: subscription.webhook_id, eventCode: subscription.event_code, deliveryId: sent.deliveryId } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang);
      return renderWebhook(deps, reply, context, failure.status, subscription, { error: failure.message });
    }
  });
}

/** POST /webhooks/:webhookId/verify: whether a signature is the subscription's (the API's verify). */
function subscriptionVerify(scope: App, deps: Deps): void {
  scope.post(`${at(WEBHOOKS_PATH)}/:webhookId/verify`, { schema: { params: WebhookParams, body: VerifyForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const subscription = await subscriptionOf(deps, context, request.params.webhookId);
    const signature = (request.body.signature ?? '').trim();
    // Shown back only when refused for its form (too long, empty): never stored or logged.
    const values = { signature: signature.slice(0, SIGNATURE_MAX_LENGTH + 1) };
    try {
      if (signature === '') throw fieldRefusal(context.lang, { signature: ct(context.lang, 'developers.webhook.signatureRequired') });
      if (signature.length > SIGNATURE_MAX_LENGTH) throw fieldRefusal(context.lang, { signature: ct(context.lang, 'developers.webhook.signatureTooLong', { max: SIGNATURE_MAX_LENGTH }) });
      const result = await runAction(deps, request, context, {
        action: 'webhook.verify',
        run: async (tx) => {
          const { isSignatureValid } = await verifySignature(deps, m, subscription.event_code, signature, tx);
          return {
            outcome: { location: withNotice(webhookPath(subscription.webhook_id), isSignatureValid ? 'notice.developers.signatureValid' : 'notice.developers.signatureInvalid') },
            detail: { webhookId: subscription.webhook_id, eventCode: subscription.event_code, isSignatureValid },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang);
      return renderWebhook(deps, reply, context, failure.status, subscription, { verify: failedForm(values, failure) });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The delivery log

/** GET /webhooks/deliveries: the log, or its results region alone for an htmx swap. */
function deliveryLog(scope: App, deps: Deps): void {
  scope.get(at(DELIVERIES_PATH), { schema: { querystring: DeliveriesQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const { query } = request;
    const filter: DeliveryFilterValues = { status: (query.status ?? '').slice(0, 20), event: (query.event ?? '').slice(0, 100), after: (query.after ?? '').slice(0, 400) };
    reply.header('vary', 'HX-Request, HX-Target, HX-History-Restore-Request');
    if (wantsResultsOnly(request)) {
      const { found, problem } = await deliveriesOf(deps, context, filter);
      // 200 even for a refused filter: htmx swaps no 4xx answer, and the message is the region's content.
      return sendHtml(reply, context, 200, render(DeliveriesResults({ context, page: found, filter, problem, swapped: true })));
    }
    // How many deliveries "redeliver failed" queued (a number only: the notice's text is ours).
    const queued = query.queued;
    const noticeExtra = queued && /^[0-9]{1,9}$/.test(queued) ? ct(context.lang, 'developers.redeliverFailed.queued', { count: Number(queued) }) : undefined;
    return renderDeliveries(deps, reply, context, 200, { filter, notice: noticeOf(request, context.lang), noticeExtra });
  });
}

/** The console's own checks of the "redeliver failed" period: two days that exist, in order, at most REDELIVER_MAX_DAYS apart. */
function checkRedeliverPeriod(context: ConsoleContext, values: { from: string; to: string }): void {
  const lang = context.lang;
  const errors: Record<string, string> = {};
  const from = parseDay(values.from);
  const to = parseDay(values.to);
  if (!from) errors.from = ct(lang, 'developers.redeliverFailed.badDay');
  if (!to) errors.to = ct(lang, 'developers.redeliverFailed.badDay');
  if (from && to && from > to) errors.from = ct(lang, 'developers.redeliverFailed.reversed', { from: values.from, to: values.to });
  else if (from && to && (to.getTime() - from.getTime()) / DAY_MS + 1 > REDELIVER_MAX_DAYS) {
    errors.from = ct(lang, 'developers.redeliverFailed.tooLong', { days: (to.getTime() - from.getTime()) / DAY_MS + 1, max: REDELIVER_MAX_DAYS });
  }
  if (Object.keys(errors).length > 0) throw fieldRefusal(lang, errors);
}

/** POST /webhooks/deliveries/redeliver-failed: every failed delivery created in the period, queued again. */
function redeliverFailed(scope: App, deps: Deps): void {
  scope.post(at(REDELIVER_FAILED_PATH), { schema: { body: RedeliverFailedForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const values = { from: (request.body.from ?? '').trim().slice(0, 20), to: (request.body.to ?? '').trim().slice(0, 20) };
    try {
      checkRedeliverPeriod(context, values);
      const result = await runAction(deps, request, context, {
        action: 'webhook.redeliver_failed',
        run: async (tx) => {
          const { numberOfDeliveries } = await redeliverIn(tx, m, { fromDate: values.from, toDate: values.to });
          return {
            outcome: { location: withNotice(`${DELIVERIES_PATH}?queued=${numberOfDeliveries}`, 'notice.developers.redeliveredFailed') },
            detail: { fromDate: values.from, toDate: values.to, deliveries: numberOfDeliveries },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang);
      return renderDeliveries(deps, reply, context, failure.status, { redeliverForm: failedForm(values, failure) });
    }
  });
}

/** GET /webhooks/deliveries/:deliveryId (the delivery's page) and POST …/redeliver. */
function deliveryPage(scope: App, deps: Deps): void {
  scope.get(`${at(DELIVERIES_PATH)}/:deliveryId`, { schema: { params: DeliveryParams }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const deliveryId = pathId(request.params.deliveryId, () => deliveryNotFound('?'));
    return renderDelivery(deps, reply, context, 200, deliveryId, { notice: noticeOf(request, context.lang) });
  });

  scope.post(`${at(DELIVERIES_PATH)}/:deliveryId/redeliver`, { schema: { params: DeliveryParams, body: ButtonForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const deliveryId = pathId(request.params.deliveryId, () => deliveryNotFound('?'));
    try {
      const result = await runAction(deps, request, context, {
        action: 'webhook.redeliver',
        run: async (tx) => {
          const { rows } = await tx.query<{ status: string; event_code: string }>('select status, event_code from webhook_deliveries where merchant_account_number = $1 and delivery_id = $2', [m, deliveryId]);
          if (!rows[0]) throw deliveryNotFound(deliveryId);
          // A stale page: the delivery is already queued (a redelivery from elsewhere, or its retries still running).
          if (rows[0].status === 'pending') throw new ConsoleRefusal(409, ct(context.lang, 'developers.delivery.alreadyPending', { id: deliveryId }));
          const { numberOfDeliveries } = await redeliverIn(tx, m, { deliveryId });
          if (numberOfDeliveries === 0) throw new ConsoleRefusal(409, ct(context.lang, 'developers.delivery.notRedeliverable'));
          return { outcome: { location: withNotice(deliveryPath(deliveryId), 'notice.developers.redelivered') }, detail: { deliveryId, eventCode: rows[0].event_code } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const failure = failureOf(err, context.lang);
      return renderDelivery(deps, reply, context, failure.status, deliveryId, { error: failure.message });
    }
  });
}

const route: RouteModule = (scope, { deps }) => {
  subscriptionsList(scope, deps);
  subscriptionPage(scope, deps);
  subscriptionButtons(scope, deps);
  subscriptionVerify(scope, deps);
  deliveryLog(scope, deps);
  redeliverFailed(scope, deps);
  deliveryPage(scope, deps);
};
export default route;

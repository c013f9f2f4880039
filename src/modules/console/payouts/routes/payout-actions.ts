// Payout actions (issue 19), each a POST form run once per form key (actions.tsx runAction) through
// the service the API route calls, with the signed-in user as the actor:
//   POST /console/payouts/batches/:n/(review|approve|transfer-funds|reject|cancel)  actOnBatch, transferFunds
//   GET/POST /console/payouts/single/new                                          addSinglePayout
//   GET /console/payouts/single/:reference                                        one single payout
//   POST /console/payouts/single/:reference/(review|approve|reject)                actOnSinglePayout
// The steps that move money (transfer-funds, a single payout's approve, the new payout's form) act
// only with the field `confirmed` that their confirmation sends (pages/payout-actions.tsx Confirm):
// without it the page answers with that confirmation, open, showing what would be debited
// (disbursements/preview.ts), and nothing moves. The confirmed POST is checked by the service as
// any other: the preview is no guard.
// A refusal (four eyes, role, balance, limits, a page whose batch or payout has moved on) shows the
// same page again with the service's message in the user's language, as 403, 402 or 409 (a stale
// page: the API's E916); another merchant's batch or payout is the console's 404 page.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import type { Lang, MessageKey } from '../../../../http/i18n.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { formatMajor, parseMinor, toMinor } from '../../../../lib/money.ts';
import { listConnectors } from '../../../connectors/repository.ts';
import { PAYOUT, type BatchAction } from '../../../disbursements/lifecycle.ts';
import { findPayout } from '../../../disbursements/repository.ts';
import { MAX_PAYOUT_AMOUNT } from '../../../disbursements/schemas.ts';
import { actOnBatch, actOnSinglePayout, addSinglePayout, transferFunds } from '../../../disbursements/service.ts';
import { findMerchant } from '../../../merchants/repository.ts';
import { ConsoleRefusal, noticeOf, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { mayCapture, SINGLE_ACTIONS } from '../actions.ts';
import { batchPageView } from '../queries.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { actionOfSlug, CONFIRMED_FIELD, NEW_SINGLE_PATH, REASON_MAX_LENGTH, singlePayoutPath, type ActionProblem } from '../pages/payout-actions.tsx';
import { previewApproval, previewSinglePayout, type DebitPreview } from '../../../disbursements/preview.ts';
import { batchPath, BatchPage, PAYOUTS_PATH, SINGLE_PAYOUTS_PATH } from '../pages/payouts.tsx';
import { MAX_LENGTHS, SINGLE_FIELDS, SingleFormPage, SinglePayoutPage, type FormProblem, type SingleField, type SingleFormValues, type SinglePreview } from '../pages/single-payout.tsx';
import { at } from '../../kit/at.ts';
import { Form, PathId, pathNumber, Text } from '../../kit/schemas.ts';

const config = { consoleAccess: 'user', consoleSection: 'payouts' } as const;

/** Batch numbers are positive bigints; references 12 alphanumerics (anything else names nothing: 404). */
const Reference = Type.String({ pattern: '^[A-Za-z0-9]{12}$' });
/** The action is a slug (actionOfSlug): one that names no action is a 404 too, from the route. */
const BatchActionParams = Type.Object({ batchNumber: PathId, action: Type.String() });
const PayoutParams = Type.Object({ reference: Reference });
const PayoutActionParams = Type.Object({ reference: Reference, action: Type.String() });
/** An action's form: reject's has its reason, a money step's `confirmed`; all carry the token and the form key. */
const ActionForm = Form({ reason: Text(), confirmed: Text() });
/** The single-payout form: SINGLE_FIELDS, each checked by formProblems with its own message. */
const SingleForm = Form({
  connectorId: Text(),
  beneficiaryAccountNumber: Text(),
  beneficiaryName: Text(),
  transactionAmount: Text(),
  sourceReferenceNumber: Text(),
  transactionDescription: Text(),
  confirmed: Text(),
});

const notFound = () => new AppError('notFound');

/** Whether a money step's form was sent from its confirmation (without it: show the confirmation). */
const confirmed = (body: Record<string, unknown>) => body[CONFIRMED_FIELD] === 'yes';

/**
 * What to tell the user about a refused action, with its status: the console's own refusal, or a
 * service's (AppError) in their language, a stale page (the step no longer exists from the state the
 * batch or payout is in now: E916) as 409. A 404 and anything that is not a refusal are rethrown.
 */
function problemOf(err: unknown, lang: Lang): { status: number; message: string; fields: Record<string, string>; detailKey?: MessageKey } {
  if (err instanceof ConsoleRefusal) return { status: err.status, message: err.message, fields: err.fields };
  const refusal = refusalOf(err, lang);
  if (!refusal || refusal.status === 404 || !(err instanceof AppError)) throw err;
  return { status: err.kind === 'invalidState' ? 409 : refusal.status, message: refusal.message, fields: {}, detailKey: err.detailKey };
}

/** The reject form's reason, trimmed; a ConsoleRefusal naming the field when it is missing or too long. */
function reasonOf(lang: Lang, given: string | undefined): string {
  const reason = (given ?? '').trim();
  const message = reason === '' ? ct(lang, 'payoutActions.reasonRequired') : reason.length > REASON_MAX_LENGTH ? ct(lang, 'payoutActions.tooLong', { length: reason.length, max: REASON_MAX_LENGTH }) : '';
  if (message) throw new ConsoleRefusal(400, message, { reason: message });
  return reason;
}

/** The audit log's name of an action, in its lower-case form: batch.transfer_funds. */
const auditVerb = (action: BatchAction) => action.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const SINGLE_NOTICES: Record<string, Extract<TextKey, `notice.${string}`>> = {
  review: 'notice.payoutActions.singleReview',
  approve: 'notice.payoutActions.singleApprove',
  reject: 'notice.payoutActions.singleReject',
};

// ---------------------------------------------------------------------------------------------
// The single-payout form

/** The service's refusals that are one field's fault. */
const FIELD_OF_DETAIL: Partial<Record<MessageKey, SingleField>> = {
  'detail.connectorNotFound': 'connectorId',
  'detail.connectorInactive': 'connectorId',
  'detail.connectorNoPayouts': 'connectorId',
  'detail.accountFormat': 'beneficiaryAccountNumber',
  'detail.amountOutOfRange': 'transactionAmount',
};

/** The amount as the API takes it: "1,500.50" as people write it, without its separators. */
const amountText = (values: SingleFormValues) => values.transactionAmount.replace(/[,\s]/g, '');

/** The form's fields as sent, trimmed (a missing one as empty). */
function formValues(body: Partial<SingleFormValues>): SingleFormValues {
  return Object.fromEntries(SINGLE_FIELDS.map((f) => [f, (body[f] ?? '').trim()])) as SingleFormValues;
}

/** The fields the form got wrong, by name, each with its message (the API's own limits). */
function formProblems(lang: Lang, v: SingleFormValues): FormProblem['fields'] {
  const fields: FormProblem['fields'] = {};
  const required: Array<[SingleField, TextKey]> = [
    ['beneficiaryAccountNumber', 'payoutActions.error.account'],
    ['beneficiaryName', 'payoutActions.error.name'],
    ['sourceReferenceNumber', 'payoutActions.error.reference'],
  ];
  for (const [field, key] of required) if (v[field] === '') fields[field] = ct(lang, key);
  for (const [field, max] of Object.entries(MAX_LENGTHS) as Array<[SingleField, number]>) {
    if (v[field].length > max) fields[field] = ct(lang, 'payoutActions.tooLong', { length: v[field].length, max });
  }
  if (!/^[1-9]\d{0,8}$/.test(v.connectorId)) fields.connectorId = ct(lang, 'payoutActions.error.connector');
  // "1,500.50" as people write it: the separators go, the decimals stay.
  const minor = parseMinor(v.transactionAmount.replace(/[,\s]/g, ''));
  const maxMinor = toMinor(MAX_PAYOUT_AMOUNT);
  if (minor === undefined) fields.transactionAmount = ct(lang, 'payoutActions.error.amount');
  else if (minor < 1 || minor > maxMinor) fields.transactionAmount = ct(lang, 'payoutActions.error.amountRange', { min: formatMajor(1), max: formatMajor(maxMinor) });
  return fields;
}

async function sendSingleForm(
  deps: Deps,
  reply: FastifyReply,
  context: ConsoleContext,
  status: number,
  values: SingleFormValues,
  extra: { problem?: FormProblem; preview?: SinglePreview } = {},
): Promise<FastifyReply> {
  const [connectors, merchant] = await Promise.all([listConnectors(deps.db, { activeInstitutionsOnly: true }), findMerchant(deps.db, context.user.merchantAccountNumber)]);
  if (!merchant) throw notFound();
  const payable = connectors.filter((c) => c.is_disbursement_allowed);
  const html = SingleFormPage({ context, connectors: payable, levelNumber: merchant.level_number, currencyCode: merchant.currency_code, values, ...extra });
  return sendHtml(reply, context, status, page(html));
}

// ---------------------------------------------------------------------------------------------
// A batch's actions

/** The batch page again, with why the action was refused, or the confirmation of a money step open. */
async function sendBatchPage(deps: Deps, reply: FastifyReply, context: ConsoleContext, batchNumber: number, status: number, extra: { problem?: ActionProblem; confirming?: BatchAction }): Promise<FastifyReply> {
  const merchant = context.user.merchantAccountNumber;
  const view = await batchPageView(deps.db, merchant, batchNumber);
  if (!view) throw notFound();
  const html = BatchPage({ context: { ...context, url: batchPath(batchNumber) }, ...view, filter: {}, actionProblem: extra.problem, confirming: extra.confirming });
  return sendHtml(reply, context, status, page(html));
}

/** POST /console/payouts/batches/:batchNumber/(review|approve|transfer-funds|reject|cancel). */
function batchAction(scope: App, deps: Deps): void {
  scope.post(`${at(PAYOUTS_PATH)}/batches/:batchNumber/:action`, { schema: { params: BatchActionParams, body: ActionForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const action = actionOfSlug(request.params.action);
    const batchNumber = pathNumber(request.params.batchNumber);
    if (!action || batchNumber === undefined) throw notFound();
    if (action === 'transferFunds' && !confirmed(request.body)) return sendBatchPage(deps, reply, context, batchNumber, 200, { confirming: action });
    const typed = action === 'reject' ? request.body.reason : undefined;
    try {
      const reason = action === 'reject' ? reasonOf(context.lang, request.body.reason) : undefined;
      const result = await runAction(deps, request, context, {
        action: `batch.${auditVerb(action)}`,
        run: async (tx) => {
          const input = { merchantAccountNumber: context.user.merchantAccountNumber, batchNumber, actionedBy: context.user.emailAddress, reason, channel: 'console' as const };
          if (action === 'transferFunds') await transferFunds(tx, input);
          else await actOnBatch(tx, action, input);
          return { outcome: { location: withNotice(batchPath(batchNumber), `notice.payoutActions.${action}`) }, detail: { batchNumber, ...(reason === undefined ? {} : { reason }) } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const problem = problemOf(err, context.lang);
      return sendBatchPage(deps, reply, context, batchNumber, problem.status, { problem: { action, message: problem.message, reason: typed, reasonError: problem.fields.reason } });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// A new single payout

/** Adds the payout (runAction: once per form key); where to go next: its page, saying whether it awaits approval. */
async function addPayout(deps: Deps, request: FastifyRequest, context: ConsoleContext, values: SingleFormValues): Promise<string> {
  const result = await runAction(deps, request, context, {
    action: 'payout.add',
    run: async (tx) => {
      const payout = await addSinglePayout(tx, {
        merchantAccountNumber: context.user.merchantAccountNumber,
        connectorId: Number(values.connectorId),
        beneficiaryAccountNumber: values.beneficiaryAccountNumber,
        beneficiaryName: values.beneficiaryName,
        transactionAmount: amountText(values),
        sourceReferenceNumber: values.sourceReferenceNumber,
        transactionDescription: values.transactionDescription,
        capturedBy: context.user.emailAddress,
      });
      const reference = payout.transaction_reference_number;
      const notice = payout.status_code === PAYOUT.pending ? 'notice.payoutActions.singleAwaiting' : 'notice.payoutActions.singleSent';
      return { outcome: { location: withNotice(singlePayoutPath(reference), notice) }, detail: { reference, amountMinor: payout.amount_minor } };
    },
  });
  return result.outcome.location;
}

/** What the payout the form describes would debit, by the service's checks (its refusals as addSinglePayout's). */
function previewOf(deps: Deps, context: ConsoleContext, values: SingleFormValues): Promise<SinglePreview> {
  return previewSinglePayout(deps.db, context.user.merchantAccountNumber, {
    connectorId: Number(values.connectorId),
    beneficiaryAccountNumber: values.beneficiaryAccountNumber,
    transactionAmount: amountText(values),
  });
}

/** GET and POST /console/payouts/single/new: the form, its confirmation, and the payout it adds. */
function newSingle(scope: App, deps: Deps): void {
  scope.get(at(NEW_SINGLE_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    if (!mayCapture(context.user.roleCode)) throw new AppError('forbidden');
    return sendSingleForm(deps, reply, context, 200, formValues({}));
  });

  scope.post(at(NEW_SINGLE_PATH), { schema: { body: SingleForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    if (!mayCapture(context.user.roleCode)) throw new AppError('forbidden');
    const values = formValues(request.body);
    const fields = formProblems(context.lang, values);
    if (Object.keys(fields).length > 0) return sendSingleForm(deps, reply, context, 400, values, { problem: { fields } });
    try {
      // First what it would debit (the confirmation); the payout once that is confirmed.
      if (!confirmed(request.body)) return sendSingleForm(deps, reply, context, 200, values, { preview: await previewOf(deps, context, values) });
      return redirect(request, reply, await addPayout(deps, request, context, values));
    } catch (err) {
      const problem = problemOf(err, context.lang);
      const field = problem.detailKey ? FIELD_OF_DETAIL[problem.detailKey] : undefined;
      return sendSingleForm(deps, reply, context, problem.status, values, { problem: field ? { fields: { [field]: problem.message } } : { message: problem.message, fields: {} } });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// One single payout

/** The payout's page (another merchant's, or a batch's line, is not found), with a notice or why an action was refused. */
async function sendPayoutPage(
  deps: Deps,
  reply: FastifyReply,
  context: ConsoleContext,
  reference: string,
  status: number,
  extra: { problem?: ActionProblem; notice?: string; confirming?: BatchAction },
): Promise<FastifyReply> {
  const payout = await findPayout(deps.db, context.user.merchantAccountNumber, reference, { single: true });
  if (!payout) throw notFound();
  // Awaiting approval: what approving it would debit (its confirmation shows it).
  const approval: DebitPreview | undefined = payout.status_code === PAYOUT.pending ? await previewApproval(deps.db, payout) : undefined;
  return sendHtml(reply, context, status, page(SinglePayoutPage({ context, payout, approval, ...extra })));
}

/** GET /console/payouts/single/:reference, and POST …/:reference/(review|approve|reject). */
function singlePayout(scope: App, deps: Deps): void {
  scope.get(`${at(SINGLE_PAYOUTS_PATH)}/:reference`, { schema: { params: PayoutParams }, config }, async (request, reply) => {
    const context = consoleContext(request);
    return sendPayoutPage(deps, reply, context, request.params.reference, 200, { notice: noticeOf(request, context.lang) });
  });

  scope.post(`${at(SINGLE_PAYOUTS_PATH)}/:reference/:action`, { schema: { params: PayoutActionParams, body: ActionForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const action = actionOfSlug(request.params.action);
    if (!action || !(SINGLE_ACTIONS as readonly BatchAction[]).includes(action)) throw notFound();
    const single = action as (typeof SINGLE_ACTIONS)[number];
    const reference = request.params.reference.toUpperCase();
    if (action === 'approve' && !confirmed(request.body)) return sendPayoutPage(deps, reply, context, reference, 200, { confirming: action });
    const typed = action === 'reject' ? request.body.reason : undefined;
    try {
      const reason = action === 'reject' ? reasonOf(context.lang, request.body.reason) : undefined;
      const result = await runAction(deps, request, context, {
        action: `payout.${action}`,
        run: async (tx) => {
          await actOnSinglePayout(tx, single, { merchantAccountNumber: context.user.merchantAccountNumber, transactionReferenceNumber: reference, actionedBy: context.user.emailAddress, reason, channel: 'console' });
          return { outcome: { location: withNotice(singlePayoutPath(reference), SINGLE_NOTICES[action]) }, detail: { reference, ...(reason === undefined ? {} : { reason }) } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const problem = problemOf(err, context.lang);
      return sendPayoutPage(deps, reply, context, reference, problem.status, { problem: { action, message: problem.message, reason: typed, reasonError: problem.fields.reason } });
    }
  });
}

const route: RouteModule = (scope, { deps }) => {
  batchAction(scope, deps);
  newSingle(scope, deps);
  singlePayout(scope, deps);
};
export default route;

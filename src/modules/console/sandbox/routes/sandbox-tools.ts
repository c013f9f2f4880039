// Sandbox tools (issue 19; sandbox mode only: section 'sandbox' answers 404 in production).
// GET  /console/sandbox — the two forms and the magic account suffixes; ?timedAccount= preselects one.
// POST /console/sandbox/customer-payments — a customer pays the merchant's payment account: E11's
//      service (payPaymentAccount), the signed-in user as createdBy.
// POST /console/sandbox/timed-account-payments — a customer pays one of the merchant's open timed
//      accounts, the requested amount: addFakeTransaction's service (payTimedAccount).
// GET  /console/sandbox/payments/:transactionReferenceNumber — what a payment made, with the
//      collection balance right after it; another merchant's reference is the 404 page.
// Each action runs through runAction (audited as sandbox.<verb>, once per form key).
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { payPaymentAccount, payTimedAccount } from '../../../collections/service.ts';
import { amountRange, type AmountRange } from '../../../limits/enforce.ts';
import { findMerchant } from '../../../merchants/repository.ts';
import { ConsoleRefusal, noticeOf, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { listOpenRequests, requestByTimedAccount } from '../../../collections/payment-requests.ts';
import { collectionConnectors, paymentResult, SANDBOX_LIMITS } from '../queries.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { mayReadOutbox } from '../../kit/mail.ts';
import {
  CUSTOMER_PAYMENT_PATH,
  OFFERED_REQUESTS,
  PAY_FIELDS,
  paymentPath,
  PaymentResultPage,
  PAYMENTS_PATH,
  SANDBOX_PATH,
  SandboxPage,
  SIMULATE_FIELDS,
  TIMED_PAYMENT_PATH,
  type PayField,
  type SimulateField,
} from '../pages/sandbox-tools.tsx';
import { at } from '../../kit/at.ts';
import { amountMinorOf, amountProblem, connectorProblem, fieldOfRefusal, shownAmount, valuesOf, withoutEmpty, type FormState } from '../../kit/forms.tsx';
import { Form, Query, Text } from '../../kit/schemas.ts';

const CONFIG = { consoleAccess: 'user', consoleSection: 'sandbox' } as const;

// The forms' fields, all text: the routes refuse a wrong one with its own message, shown beside it.
// `satisfies` keeps them the fields the page shows.
const SimulateBody = Form({ amount: Text(), connector: Text() } satisfies Record<SimulateField, unknown>);
const PayBody = Form({ timedAccount: Text(), connector: Text() } satisfies Record<PayField, unknown>);
/** A timed account to preselect: any text (one that is not open is simply not preselected). */
const SandboxQuery = Query({ timedAccount: Text() });
/** Any text: a reference that is not one is looked up and not found (the 404 page). */
const PaymentParams = Type.Object({ transactionReferenceNumber: Type.String() });

function refusalState<K extends string>(context: ConsoleContext, err: unknown, names: readonly K[], values: Record<K, string>): { status: number; state: FormState<K> } {
  if (err instanceof ConsoleRefusal) return { status: err.status, state: { values, errors: err.fields as Partial<Record<K, string>>, message: err.message } };
  const refusal = refusalOf(err, context.lang);
  if (!refusal) throw err;
  const field = fieldOfRefusal(err);
  if (field && (names as readonly string[]).includes(field)) return { status: refusal.status, state: { values, errors: { [field]: refusal.message } as Partial<Record<K, string>> } };
  return { status: refusal.status, state: { values, errors: {}, message: refusal.message } };
}

function timedAccountProblem(context: ConsoleContext, text: string): string | undefined {
  if (text === '') return ct(context.lang, 'sandboxTools.error.timedAccountRequired');
  return SANDBOX_LIMITS.timedAccountPattern.test(text) ? undefined : ct(context.lang, 'sandboxTools.error.timedAccount');
}

interface PageView {
  /** A refused form, with its input and messages (the other one fresh). */
  forms?: { simulate?: FormState<SimulateField>; pay?: FormState<PayField> };
  /** A GET's ?timedAccount=, preselected when it is among the open ones. */
  chosen?: string;
}

/** The page with its two forms, the connectors to pay from and the open timed accounts. */
async function showPage(deps: Deps, request: FastifyRequest, reply: FastifyReply, status: number, view: PageView = {}): Promise<FastifyReply> {
  const context = consoleContext(request);
  const merchantAccountNumber = context.user.merchantAccountNumber;
  const merchant = await findMerchant(deps.db, merchantAccountNumber);
  if (!merchant) throw new Error(`the signed-in user's merchant ${merchantAccountNumber} does not exist`);
  const open = await listOpenRequests(deps.db, merchantAccountNumber, { limit: OFFERED_REQUESTS });
  const range = await customerPaymentRange(deps, merchant);
  const chosen = view.chosen ?? '';
  const forms = view.forms ?? {};
  const html = page(
    SandboxPage({
      context,
      notice: request.method === 'GET' ? noticeOf(request, context.lang) : undefined,
      simulate: forms.simulate ?? { values: { amount: '', connector: '' }, errors: {} },
      // A timed account named in the address is preselected only when it is among the open ones.
      pay: forms.pay ?? { values: { timedAccount: open.items.some((r) => r.timedAccountNumber === chosen) ? chosen : '', connector: '' }, errors: {} },
      connectors: await collectionConnectors(deps.db),
      open: open.items,
      paymentAccountNumber: merchant.payment_account_number,
      currencyCode: merchant.currency_code,
      minAmount: shownAmount(range.min),
      maxAmount: shownAmount(range.max),
      payoutTimeoutSeconds: deps.config.payoutTimeoutSeconds,
      payoutReversalSeconds: deps.config.payoutReversalSeconds,
      outbox: mayReadOutbox(context),
    }),
  );
  return sendHtml(reply, context, status, html);
}

/** What a customer payment may be: E11's range within the merchant's limit for customer payments (BAM). */
function customerPaymentRange(deps: Deps, merchant: { merchant_account_number: number; currency_code: string }): Promise<AmountRange> {
  return amountRange(deps.db, merchant.merchant_account_number, 'BAM', merchant.currency_code, SANDBOX_LIMITS.amount);
}

/** GET /console/sandbox: the tools. */
function sandboxPageRoute(scope: App, deps: Deps): void {
  scope.get(at(SANDBOX_PATH), { schema: { querystring: SandboxQuery }, config: CONFIG }, async (request, reply) =>
    showPage(deps, request, reply, 200, { chosen: (request.query.timedAccount ?? '').trim() }),
  );
}

/** POST /console/sandbox/customer-payments: a customer pays the merchant's payment account (E11's service). */
function customerPaymentRoute(scope: App, deps: Deps): void {
  scope.post(at(CUSTOMER_PAYMENT_PATH), { schema: { body: SimulateBody }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    const values = valuesOf(request, SIMULATE_FIELDS);
    const merchant = await findMerchant(deps.db, user.merchantAccountNumber);
    const range = merchant ? await customerPaymentRange(deps, merchant) : SANDBOX_LIMITS.amount;
    const problems = withoutEmpty<SimulateField>({ amount: amountProblem(context.lang, values.amount, range), connector: connectorProblem(context.lang, values.connector) });
    if (Object.keys(problems).length > 0) return showPage(deps, request, reply, 400, { forms: { simulate: { values, errors: problems } } });
    try {
      const result = await runAction(deps, request, context, {
        action: 'sandbox.simulate_payment',
        run: async (tx) => {
          const merchant = await findMerchant(tx, user.merchantAccountNumber);
          if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: user.merchantAccountNumber });
          // E11's service: the customer pays the merchant's own payment account.
          const paid = await payPaymentAccount(tx, {
            merchantAccountNumber: user.merchantAccountNumber,
            beneficiaryAccountNumber: merchant.payment_account_number,
            connectorId: Number(values.connector),
            amountMinor: amountMinorOf(values.amount)!,
            createdBy: user.emailAddress,
          });
          const after = await findMerchant(tx, user.merchantAccountNumber);
          return {
            outcome: { location: withNotice(paymentPath(paid.transaction_reference_number), 'notice.sandboxTools.paid') },
            detail: {
              transactionReferenceNumber: paid.transaction_reference_number,
              amountMinor: Number(paid.amount_minor),
              feeMinor: Number(paid.fee_minor),
              connectorId: paid.connector_id,
              collectionBalanceAfterMinor: Number(after?.collection_minor ?? 0),
            },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusalState(context, err, SIMULATE_FIELDS, values);
      return showPage(deps, request, reply, refused.status, { forms: { simulate: refused.state } });
    }
  });
}

/** POST /console/sandbox/timed-account-payments: a customer pays an open timed account what it asks (addFakeTransaction's service). */
function timedPaymentRoute(scope: App, deps: Deps): void {
  scope.post(at(TIMED_PAYMENT_PATH), { schema: { body: PayBody }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    const values = valuesOf(request, PAY_FIELDS);
    const problems = withoutEmpty<PayField>({ timedAccount: timedAccountProblem(context, values.timedAccount), connector: connectorProblem(context.lang, values.connector) });
    if (Object.keys(problems).length > 0) return showPage(deps, request, reply, 400, { forms: { pay: { values, errors: problems } } });
    try {
      const result = await runAction(deps, request, context, {
        action: 'sandbox.pay_timed_account',
        run: async (tx) => {
          // The customer pays what was asked, in its currency: addFakeTransaction's service checks the rest.
          const asked = await requestByTimedAccount(tx, user.merchantAccountNumber, values.timedAccount);
          const paid = await payTimedAccount(tx, {
            merchantAccountNumber: user.merchantAccountNumber,
            amountMinor: asked.amountMinor,
            connectorId: Number(values.connector),
            timedAccountNumber: values.timedAccount,
            currencyCode: asked.currencyCode,
            capturedBy: user.emailAddress,
          });
          const after = await findMerchant(tx, user.merchantAccountNumber);
          return {
            outcome: { location: withNotice(paymentPath(paid.transaction_reference_number), 'notice.sandboxTools.paidTimed') },
            detail: {
              transactionReferenceNumber: paid.transaction_reference_number,
              timedAccountNumber: values.timedAccount,
              requestId: paid.request_id === null ? null : Number(paid.request_id),
              amountMinor: Number(paid.amount_minor),
              feeMinor: Number(paid.fee_minor),
              connectorId: paid.connector_id,
              collectionBalanceAfterMinor: Number(after?.collection_minor ?? 0),
            },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusalState(context, err, PAY_FIELDS, values);
      return showPage(deps, request, reply, refused.status, { forms: { pay: refused.state } });
    }
  });
}

/** GET /console/sandbox/payments/:transactionReferenceNumber: what a payment made. */
function paymentResultRoute(scope: App, deps: Deps): void {
  scope.get(`${at(PAYMENTS_PATH)}/:transactionReferenceNumber`, { schema: { params: PaymentParams }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const reference = request.params.transactionReferenceNumber.toUpperCase();
    const result = await paymentResult(deps.db, context.user.merchantAccountNumber, reference);
    if (!result) throw new AppError('notFound', 'detail.collectionNotFound', { transactionReferenceNumber: reference.slice(0, 40) });
    return sendHtml(reply, context, 200, page(PaymentResultPage({ context, result, notice: noticeOf(request, context.lang) })));
  });
}

const route: RouteModule = (scope, { deps }) => {
  sandboxPageRoute(scope, deps);
  customerPaymentRoute(scope, deps);
  timedPaymentRoute(scope, deps);
  paymentResultRoute(scope, deps);
};
export default route;

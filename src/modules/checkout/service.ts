// Hosted checkout (product.md §10). A merchant's server initiates a checkout with its key pair in
// the body; the customer opens the page this service serves, sees the amount and the timed
// account, picks a wallet or bank and pays (simulated); the browser is then sent to the merchant's
// success or failure URL, and the payment event goes to the merchant's callbackApiUrl through the
// durable webhook path (emitEvent → webhook_deliveries → dispatcher).
//
// A checkout is a request to pay (payment_requests) with the checkout's columns filled in; paying
// it is payTimedAccount, so every rule of a timed-account payment (expiry, one payment, limits,
// fees, ledger) holds here by construction.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import { AppError, ERRORS } from '../../http/errors.ts';
import type { MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { randomUpperAlnum } from '../../lib/ids.ts';
import { listConnectors, type ConnectorRow } from '../connectors/repository.ts';
import { verifyKeyPair } from '../auth/service.ts';
import { createPaymentRequest, payTimedAccount } from '../collections/service.ts';
import { findCollectionByRequest, PAYMENT_REQUEST, type PaymentRequestRow } from '../collections/repository.ts';
import { findSubscription } from '../webhooks/repository.ts';
import { newSigningSecret, newWebhookSignature } from '../webhooks/signing.ts';
import { assertPublicTarget, CALLBACK_URL_MAX_LENGTH, parseCallbackUrl } from '../webhooks/url-guard.ts';
import * as repo from './repository.ts';

/** Where the page is served; CHECKOUT_PATHS also holds the gateway's documented address of it. */
export const CHECKOUT_PATH = '/checkout/pay';
export const CHECKOUT_PATHS = [CHECKOUT_PATH, '/requestToPay/initiate'];

/** 24 random bytes → 32 url-safe characters (192 bits): the page's only guard. */
export const PAYMENT_TRANSACTION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;
export const REDIRECT_URL_MAX_LENGTH = CALLBACK_URL_MAX_LENGTH;
/** Who the payment request and the collection name as their capturer. */
const CAPTURED_BY = 'hosted-checkout';
/** The event whose subscription's secrets sign a checkout's callback, when the merchant has one. */
const CALLBACK_EVENT = 'payrequest.success';
/** A host as the WHATWG parser leaves it (ASCII after IDNA), safe inside a CSP header. */
const SAFE_HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

export function newPaymentTransactionId(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The E12 reference (5–25 alphanumerics, unique per merchant while open) for a checkout: the
 * merchant's sourceReferenceNumber without its separators when that fits and is free
 * ("INV-2026-0042" → "INV20260042"), so the merchant recognises it in metaData.referenceNumber;
 * otherwise a random one. A second checkout for the same order is allowed (the first may have
 * been abandoned): the sourceReferenceNumber is not unique, only the E12 reference is.
 */
async function referenceFor(tx: pg.PoolClient, merchantAccountNumber: number, sourceReferenceNumber: string): Promise<string> {
  const alnum = sourceReferenceNumber.replace(/[^A-Za-z0-9]/g, '');
  const fits = alnum.length >= 5 && alnum.length <= 25;
  return fits && !(await repo.openReferenceTaken(tx, merchantAccountNumber, alnum)) ? alnum : `CO${randomUpperAlnum(12)}`;
}

/** What a checkout is made of, however it is asked for (the API with a key pair, the console with a session). */
export interface CheckoutInput {
  merchantAccountNumber: number;
  sourceReferenceNumber: string;
  description: string;
  amountMinor: number;
  successRedirectionUrl: string;
  failureRedirectionUrl: string;
  callbackApiUrl: string | null;
  /** Origin the checkout link starts with, e.g. https://pay.example.mw. */
  baseUrl: string;
  /** Who the payment request names as its capturer: the console's signed-in user; 'hosted-checkout' by default. */
  capturedBy?: string;
}

export interface InitiateCheckoutInput extends CheckoutInput {
  apiKey: string;
  apiSecret: string;
  organisationId: string;
}

function badUrl(field: string): AppError {
  return new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.redirectUrl', params: { field, limit: REDIRECT_URL_MAX_LENGTH } }] });
}

/** A redirect target: http(s), no credentials, and a host plain enough to name in the page's CSP. */
function redirectUrl(raw: string, field: string): string {
  let url: URL;
  try {
    url = parseCallbackUrl(raw);
  } catch {
    throw badUrl(field);
  }
  if (!SAFE_HOST.test(url.hostname) || url.href.length > REDIRECT_URL_MAX_LENGTH) throw badUrl(field);
  return url.href;
}

async function callbackUrl(deps: Deps, raw: string): Promise<string> {
  let url: URL;
  try {
    url = parseCallbackUrl(raw);
  } catch {
    throw badUrl('Callback Api Url');
  }
  if (url.href.length > CALLBACK_URL_MAX_LENGTH) throw badUrl('Callback Api Url');
  // Production mode: no private, loopback or link-local targets (SSRF), as for subscriptions.
  if (deps.config.mode === 'production') await assertPublicTarget(url);
  return url.href;
}

/** The names a refused address goes by in its 400 (field.redirectUrl's {field}). */
export const CHECKOUT_URL_FIELDS = { success: 'Success Redirection Url', failure: 'Failure Redirection Url', callback: 'Callback Api Url' } as const;

/** A checkout's addresses, checked. */
export interface CheckoutTargets {
  successRedirectUrl: string;
  failureRedirectUrl: string;
  callback: string | null;
}

/** Checks the redirect and callback addresses (400 naming the field otherwise); no database. */
export async function checkoutTargets(deps: Deps, input: Pick<CheckoutInput, 'successRedirectionUrl' | 'failureRedirectionUrl' | 'callbackApiUrl'>): Promise<CheckoutTargets> {
  return {
    successRedirectUrl: redirectUrl(input.successRedirectionUrl, CHECKOUT_URL_FIELDS.success),
    failureRedirectUrl: redirectUrl(input.failureRedirectionUrl, CHECKOUT_URL_FIELDS.failure),
    callback: input.callbackApiUrl === null ? null : await callbackUrl(deps, input.callbackApiUrl),
  };
}

export interface InitiatedCheckout {
  sourceReferenceNumber: string;
  merchantAccountNumber: number;
  paymentTransactionId: string;
  checkoutUrl: string;
  expiryDate: string;
  /** Only when the merchant has no payrequest.success subscription whose secrets sign instead. */
  callbackSigningSecret?: string;
  callbackWebhookSignature?: string;
}

/** The checkout's link: the page at `baseUrl` with its unguessable id. */
export function checkoutUrl(baseUrl: string, paymentTransactionId: string): string {
  return `${baseUrl}${CHECKOUT_PATH}?ptid=${paymentTransactionId}`;
}

/**
 * Creates a checkout in `tx` (its addresses checked by checkoutTargets): the payment request with
 * the checkout's columns, and the answer the API gives. The console calls this too, in its action's
 * transaction, for the signed-in user's merchant.
 */
export async function createCheckout(deps: Deps, tx: pg.PoolClient, input: CheckoutInput, targets: CheckoutTargets): Promise<{ checkout: InitiatedCheckout; request: PaymentRequestRow }> {
  const { merchantAccountNumber } = input;
  const paymentTransactionId = newPaymentTransactionId();
  // The callback is signed like the merchant's payrequest.success webhook when it has one (its
  // receiver already knows those secrets); otherwise with a pair made for this checkout, which
  // the answer carries. Either way the pair is fixed now, so what the merchant was told holds.
  let generated: { signingSecret: string; webhookSignature: string } | undefined;
  let secrets: { signingSecret: string; webhookSignature: string } | undefined;
  if (targets.callback !== null) {
    const subscription = await findSubscription(tx, merchantAccountNumber, { eventCode: CALLBACK_EVENT });
    secrets = subscription ? { signingSecret: subscription.signing_secret, webhookSignature: subscription.webhook_signature } : (generated = { signingSecret: newSigningSecret(), webhookSignature: newWebhookSignature() });
  }
  const request = await createPaymentRequest(deps, tx, {
    merchantAccountNumber,
    amountMinor: input.amountMinor,
    transactionDescription: input.description,
    referenceNumber: await referenceFor(tx, merchantAccountNumber, input.sourceReferenceNumber),
    capturedBy: input.capturedBy ?? CAPTURED_BY,
    checkout: {
      paymentTransactionId,
      sourceReferenceNumber: input.sourceReferenceNumber,
      successRedirectUrl: targets.successRedirectUrl,
      failureRedirectUrl: targets.failureRedirectUrl,
      callback: targets.callback !== null && secrets ? { url: targets.callback, ...secrets } : null,
    },
  });
  return {
    request,
    checkout: {
      sourceReferenceNumber: input.sourceReferenceNumber,
      merchantAccountNumber,
      paymentTransactionId,
      checkoutUrl: checkoutUrl(input.baseUrl, paymentTransactionId),
      expiryDate: request.expires_at.toISOString(),
      ...(generated ? { callbackSigningSecret: generated.signingSecret, callbackWebhookSignature: generated.webhookSignature } : {}),
    },
  };
}

export async function initiateCheckout(deps: Deps, input: InitiateCheckoutInput): Promise<InitiatedCheckout> {
  // Credentials first: a caller without them learns nothing, not even which URL was wrong.
  const key = await verifyKeyPair(deps, input);
  const targets = await checkoutTargets(deps, input);
  const made = await withTransaction(deps.db, (tx) => createCheckout(deps, tx, { ...input, merchantAccountNumber: key.merchant_account_number }, targets));
  return made.checkout;
}

// ---------------------------------------------------------------------------------------------
// The page

export interface CheckoutView {
  paymentTransactionId: string;
  merchantName: string;
  amountMinor: number;
  currencyCode: string;
  description: string;
  sourceReferenceNumber: string;
  timedAccountNumber: string;
  secondsLeft: number;
  connectors: ConnectorRow[];
  /**
   * Sandbox mode: the page pays the timed account itself (a simulated Pay button). Production:
   * the customer pays from their bank or wallet, and the page waits for the payment to arrive.
   */
  simulatedPayment: boolean;
  /** Origins the form may be sent on to (the CSP's form-action: the 303 goes there). */
  redirectOrigins: string[];
}

/** Where the browser goes instead of seeing the page. */
export interface Redirect {
  location: string;
}

export type PageState = { kind: 'notFound' } | { kind: 'redirect'; redirect: Redirect } | { kind: 'open'; view: CheckoutView };

function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

function success(row: repo.CheckoutRow, transactionReferenceNumber: string): Redirect {
  return { location: withParams(row.success_redirect_url, { sourceReferenceNumber: row.source_reference_number, transactionReferenceNumber }) };
}

/** `reason` is a stable slug (the problem type's, or "cancelled"); `errorCode` the API's code. */
function failure(row: repo.CheckoutRow, reason: string, errorCode?: string): Redirect {
  return { location: withParams(row.failure_redirect_url, { sourceReferenceNumber: row.source_reference_number, reason, ...(errorCode ? { errorCode } : {}) }) };
}

function failureFor(row: repo.CheckoutRow, kind: keyof typeof ERRORS): Redirect {
  return failure(row, ERRORS[kind].slug, ERRORS[kind].errorCode);
}

/** A checkout that can no longer be paid, as the redirect that tells the merchant so. */
async function settled(q: pg.PoolClient | Deps['db'], row: repo.CheckoutRow): Promise<Redirect | undefined> {
  if (row.status_code === PAYMENT_REQUEST.paid) {
    // Paid (here or through addFakeTransaction): the customer lands where a payment lands.
    const paid = await findCollectionByRequest(q, row.merchant_account_number, row.request_id);
    return paid ? success(row, paid.transaction_reference_number) : failureFor(row, 'timedAccountPaid');
  }
  if (row.status_code === PAYMENT_REQUEST.expired || row.is_expired) return failureFor(row, 'timedAccountExpired');
  return undefined;
}

/** Whether the hosted checkout simulates the customer's payment: never in production (product.md §15). */
export function simulatesPayment(deps: Deps): boolean {
  return deps.config.mode === 'sandbox';
}

export type CheckoutStatus = { kind: 'notFound' } | { kind: 'open'; secondsLeft: number } | { kind: 'paid'; redirect: Redirect } | { kind: 'closed' };

/**
 * What the open page polls: 'paid' (with the success URL) once the timed account has been paid
 * by any means (the page, addFakeTransaction, a real transfer); 'closed' when it can no longer
 * be (expired, cancelled), which the page shows itself.
 */
export async function checkoutStatus(deps: Deps, paymentTransactionId: string): Promise<CheckoutStatus> {
  if (!PAYMENT_TRANSACTION_ID_PATTERN.test(paymentTransactionId)) return { kind: 'notFound' };
  const row = await repo.findCheckout(deps.db, paymentTransactionId);
  if (!row) return { kind: 'notFound' };
  if (row.status_code === PAYMENT_REQUEST.paid) {
    const paid = await findCollectionByRequest(deps.db, row.merchant_account_number, row.request_id);
    if (paid) return { kind: 'paid', redirect: success(row, paid.transaction_reference_number) };
  }
  return (await settled(deps.db, row)) ? { kind: 'closed' } : { kind: 'open', secondsLeft: row.seconds_left };
}

export async function pageState(deps: Deps, paymentTransactionId: string): Promise<PageState> {
  if (!PAYMENT_TRANSACTION_ID_PATTERN.test(paymentTransactionId)) return { kind: 'notFound' };
  const row = await repo.findCheckout(deps.db, paymentTransactionId);
  if (!row) return { kind: 'notFound' };
  const done = await settled(deps.db, row);
  if (done) return { kind: 'redirect', redirect: done };
  const simulatedPayment = simulatesPayment(deps);
  const connectors = simulatedPayment ? (await listConnectors(deps.db, { activeInstitutionsOnly: true })).filter((c) => c.is_collection_allowed) : [];
  return {
    kind: 'open',
    view: {
      paymentTransactionId,
      merchantName: row.merchant_name,
      amountMinor: row.amount_minor,
      currencyCode: row.currency_code,
      description: row.transaction_description,
      sourceReferenceNumber: row.source_reference_number,
      timedAccountNumber: row.timed_account_number,
      secondsLeft: row.seconds_left,
      connectors,
      simulatedPayment,
      redirectOrigins: [...new Set([new URL(row.success_redirect_url).origin, new URL(row.failure_redirect_url).origin])],
    },
  };
}

export type SubmitResult = { kind: 'notFound' } | { kind: 'redirect'; redirect: Redirect };

/**
 * The customer pressed Pay (or Cancel). One transaction: the request is locked, then paid through
 * payTimedAccount, so a second press finds it paid — never a second payment — and, being paid,
 * is sent where a payment lands: the success URL (however the timed account was paid). Any refusal (expired, paid, limit, connector, inactive merchant) is a failure
 * redirect naming it; what is not a refusal (the database gone) propagates to the caller.
 */
export async function submitCheckout(deps: Deps, input: { paymentTransactionId: string; connectorId: number | undefined; cancel: boolean }): Promise<SubmitResult> {
  if (!PAYMENT_TRANSACTION_ID_PATTERN.test(input.paymentTransactionId)) return { kind: 'notFound' };
  return withTransaction(deps.db, async (tx) => {
    const row = await repo.lockCheckout(tx, input.paymentTransactionId);
    if (!row) return { kind: 'notFound' } as const;
    const done = await settled(tx, row);
    if (done) return { kind: 'redirect', redirect: done } as const;
    if (input.cancel) {
      // Final: the merchant is told "cancelled", so the timed account takes no payment after.
      await repo.closeRequest(tx, row.request_id);
      return { kind: 'redirect', redirect: failure(row, 'cancelled') } as const;
    }
    if (input.connectorId === undefined) return { kind: 'redirect', redirect: failureFor(row, 'validation') } as const;
    // A refusal must not leave half a payment behind: the payment runs in a savepoint, and a
    // refusal rolls back to it while the transaction (and the row lock) goes on.
    await tx.query('savepoint checkout_payment');
    try {
      const paid = await payTimedAccount(tx, {
        merchantAccountNumber: row.merchant_account_number,
        amountMinor: row.amount_minor,
        connectorId: input.connectorId,
        timedAccountNumber: row.timed_account_number,
        currencyCode: row.currency_code,
        capturedBy: CAPTURED_BY,
      });
      // The timed account number names this request: the one open request holding it is ours.
      if (paid.request_id !== row.request_id) throw new Error(`checkout ${row.request_id} paid request ${paid.request_id}`);
      return { kind: 'redirect', redirect: success(row, paid.transaction_reference_number) } as const;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await tx.query('rollback to savepoint checkout_payment');
      return { kind: 'redirect', redirect: failureFor(row, err.kind) } as const;
    }
  });
}

/** Text for the page's not-found and error screens. */
export const PAGE_MESSAGES = {
  notFound: { title: 'checkout.notFoundTitle', body: 'checkout.notFound' },
  error: { title: 'checkout.errorTitle', body: 'checkout.error' },
  forbidden: { title: 'checkout.forbiddenTitle', body: 'checkout.forbidden' },
} as const satisfies Record<string, { title: MessageKey; body: MessageKey }>;

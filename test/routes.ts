// The registry of merchant-API operations: every route registered under /sandbox/v1 except
// POST /account/getAccessToken (which takes no token). test/security.test.ts runs the shared
// security cases (no token, expired token, another merchant's account, bad account number,
// foreign X-Merchant-Account-Number / X-Organisation-Id headers, a valid request) against each
// entry, and fails when the app registers a /sandbox/v1 route that is missing here.
//
// Adding a route: append one entry to MERCHANT_ROUTES.
//   method       one HTTP method; a route serving several methods (DELETE and POST) gets one
//                entry per method, so each is checked.
//   url          the full path as registered, e.g. `${BASE}/merchants/limits/getAll`.
//   merchantIn   where merchantAccountNumber travels: 'query', 'body', or 'none' for routes that
//                name no merchant (the connector catalogue). A route that names its merchant by
//                another number that `build` fills in for m (E11: beneficiaryAccountNumber, the
//                merchant's payment account number) is NOT 'none': the other-merchant case must send
//                the request built for B (B's number) with A's token, and expect 404. Such a route
//                takes the place where a merchantAccountNumber would travel ('body' for E11): the
//                suite's foreign and malformed account numbers are added there, and the token's
//                binding refuses them like anywhere else.
//   status       the success status of a valid request (default 200).
//   build        returns a VALID request for merchant `m` (query, body and/or headers). It may create the
//                state the request needs (a key to delete, a batch to approve…) directly in the
//                database or through the API with m's token; it must not depend on other merchants.
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { withTransaction } from '../src/db/pool.ts';
import { emitEvent } from '../src/jobs/outbox.ts';
import { insertApiKey, newKeyPair, setApiKeyStatus } from '../src/modules/api-keys/repository.ts';
import { findSubscription, type SubscriptionRow } from '../src/modules/webhooks/repository.ts';
import { addWebhook } from '../src/modules/webhooks/service.ts';
import type { CollectionRow, PaymentRequestRow } from '../src/modules/collections/repository.ts';
import { createPaymentRequest, payPaymentAccount } from '../src/modules/collections/service.ts';
import { BASE, type TestApp, type TestMerchant } from './helpers.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type MerchantField = 'query' | 'body' | 'none';

/**
 * What `build` returns: query parameters and/or a JSON body, and any request headers the
 * operation itself requires (E14's `MerchantAccountNumber`).
 */
export interface RouteRequest {
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface RouteSpec {
  method: HttpMethod;
  url: string;
  merchantIn: MerchantField;
  status?: number;
  build(t: TestApp, m: TestMerchant): Promise<RouteRequest> | RouteRequest;
}

/** A connector every catalogue and money route accepts (National Bank of Malawi). */
export const CONNECTOR_ID = 212188;
export const ACTOR = 'ops@shop.mw';

/** A further key pair for `m`, stored directly (status A or I); returns its clientKey. */
export async function spareKey(t: TestApp, m: TestMerchant, status: 'A' | 'I' = 'A'): Promise<string> {
  const pair = newKeyPair();
  await insertApiKey(t.db, { merchantAccountNumber: m.merchantAccountNumber, organisationId: m.organisationId, clientKey: pair.key, secret: pair.secret, capturedBy: ACTOR, expiryDate: null });
  if (status === 'I') await setApiKeyStatus(t.db, m.merchantAccountNumber, pair.key, 'I', ACTOR);
  return pair.key;
}

/** A webhook subscription of `m` for `eventCode` (a fresh, never-firing code unless told), created through the service. */
export async function webhookFor(t: TestApp, m: TestMerchant, eventCode = `custom.${randomBytes(6).toString('hex')}`, callbackUrl = 'https://shop.example.mw/hooks/onekhusa'): Promise<SubscriptionRow> {
  const existing = await findSubscription(t.db, m.merchantAccountNumber, { eventCode });
  if (existing) return existing;
  await addWebhook(t.deps, { merchantAccountNumber: m.merchantAccountNumber, eventCode, callbackUrl, capturedBy: ACTOR });
  return (await findSubscription(t.db, m.merchantAccountNumber, { eventCode }))!;
}

/** A pending delivery of a new event to a new subscription of `m`; returns its id. */
export async function deliveryFor(t: TestApp, m: TestMerchant): Promise<number> {
  const subscription = await webhookFor(t, m);
  const { eventId } = await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, subscription.event_code, { eventCode: subscription.event_code }));
  const { rows } = await t.db.query<{ delivery_id: number }>('select delivery_id from webhook_deliveries where event_id = $1', [eventId]);
  return rows[0].delivery_id;
}

/** A fresh open request-to-pay of `m` for `amountMinor` tambala, created through the service. */
export async function timedAccountFor(t: TestApp, m: TestMerchant, amountMinor = 250_000): Promise<PaymentRequestRow> {
  const referenceNumber = `REF${randomBytes(8).toString('hex')}`;
  return withTransaction(t.db, (tx) =>
    createPaymentRequest(t.deps, tx, { merchantAccountNumber: m.merchantAccountNumber, amountMinor, transactionDescription: 'Order', referenceNumber, capturedBy: ACTOR }),
  );
}

/** A fresh successful direct payment (E11) to `m`, created through the service. */
export async function collectionFor(t: TestApp, m: TestMerchant, amountMinor = 500_000): Promise<CollectionRow> {
  return withTransaction(t.db, (tx) =>
    payPaymentAccount(tx, { merchantAccountNumber: m.merchantAccountNumber, beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: CONNECTOR_ID, amountMinor, createdBy: ACTOR }),
  );
}

const mac = (m: TestMerchant) => ({ merchantAccountNumber: m.merchantAccountNumber });
const HOOK_URL = 'https://shop.example.mw/hooks/onekhusa';
const customCode = () => `custom.${randomBytes(6).toString('hex')}`;

export const MERCHANT_ROUTES: RouteSpec[] = [
  // API keys
  { method: 'GET', url: `${BASE}/security/apiKeys/generate`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },
  { method: 'GET', url: `${BASE}/security/apiKeys/getAll`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },
  {
    method: 'POST',
    url: `${BASE}/security/apiKeys/add`,
    merchantIn: 'body',
    status: 201,
    build: (_t, m) => ({
      body: { organisationId: m.organisationId, ...mac(m), clientKey: `k${randomBytes(15).toString('hex')}`, clientSecret: randomBytes(24).toString('hex'), capturedBy: ACTOR },
    }),
  },
  { method: 'GET', url: `${BASE}/security/apiKeys/get`, merchantIn: 'query', build: (_t, m) => ({ query: { ...mac(m), clientKey: m.apiKey } }) },
  { method: 'PUT', url: `${BASE}/security/apiKeys/activate`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), clientKey: await spareKey(t, m, 'I'), changedBy: ACTOR } }) },
  { method: 'PUT', url: `${BASE}/security/apiKeys/deactivate`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), clientKey: await spareKey(t, m), changedBy: ACTOR } }) },
  { method: 'DELETE', url: `${BASE}/security/apiKeys/delete`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), clientKey: await spareKey(t, m), deletedBy: ACTOR } }) },
  { method: 'POST', url: `${BASE}/security/apiKeys/delete`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), clientKey: await spareKey(t, m), deletedBy: ACTOR } }) },

  // Merchants
  { method: 'GET', url: `${BASE}/merchants/accounts/get`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },
  { method: 'POST', url: `${BASE}/merchants/accounts/topup`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), connectorId: CONNECTOR_ID, topupAmount: 1500, createdBy: ACTOR } }) },

  // Connectors (the catalogue names no merchant)
  { method: 'GET', url: `${BASE}/core/Connectors/GetSummary`, merchantIn: 'none', build: () => ({}) },
  { method: 'GET', url: `${BASE}/api/core/Connectors/GetSummary`, merchantIn: 'none', build: () => ({}) },
  { method: 'GET', url: `${BASE}/core/connectors/GetAll`, merchantIn: 'none', build: () => ({}) },
  { method: 'GET', url: `${BASE}/core/connectors/get`, merchantIn: 'none', build: () => ({ query: { connectorId: CONNECTOR_ID } }) },

  // Limits
  { method: 'GET', url: `${BASE}/merchants/limits/getAll`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },

  // Webhooks (subscriptions for fresh custom event codes: one per merchant and code)
  { method: 'POST', url: `${BASE}/merchants/webhooks/add`, merchantIn: 'body', status: 201, build: (_t, m) => ({ body: { ...mac(m), eventCode: customCode(), callbackUrl: HOOK_URL, capturedBy: ACTOR } }) },
  { method: 'GET', url: `${BASE}/merchants/webhooks/getAll`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },
  { method: 'GET', url: `${BASE}/merchants/webhooks/get`, merchantIn: 'query', build: async (t, m) => ({ query: { ...mac(m), webhookId: (await webhookFor(t, m)).webhook_id } }) },
  {
    method: 'POST',
    url: `${BASE}/merchants/webhooks/update`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { webhookId: (await webhookFor(t, m)).webhook_id, ...mac(m), eventCode: customCode(), callbackUrl: `${HOOK_URL}/v2`, capturedBy: ACTOR } }),
  },
  {
    // E14: the MerchantAccountNumber header must equal the body's; withMerchantNumber keeps them equal.
    method: 'POST',
    url: `${BASE}/merchants/webhooks/delete`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { eventCode: (await webhookFor(t, m)).event_code, ...mac(m), deletedBy: ACTOR }, headers: { MerchantAccountNumber: String(m.merchantAccountNumber) } }),
  },
  {
    method: 'POST',
    url: `${BASE}/merchants/webhooks/verify`,
    merchantIn: 'body',
    build: async (t, m) => {
      const s = await webhookFor(t, m);
      return { body: { ...mac(m), eventCode: s.event_code, webhookSignature: s.webhook_signature } };
    },
  },
  { method: 'POST', url: `${BASE}/merchants/webhooks/deliveries`, merchantIn: 'body', build: (_t, m) => ({ body: mac(m) }) },
  { method: 'POST', url: `${BASE}/merchants/webhooks/redeliver`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), deliveryId: await deliveryFor(t, m) } }) },
  {
    method: 'POST',
    url: `${BASE}/merchants/webhooks/test`,
    merchantIn: 'body',
    build: async (t, m) => {
      await webhookFor(t, m, 'payout.success');
      return { body: { ...mac(m), eventCode: 'payout.success' } };
    },
  },

  // Collections
  {
    method: 'POST',
    url: `${BASE}/collections/requestToPay/initiate`,
    merchantIn: 'body',
    build: (_t, m) => ({ body: { ...mac(m), transactionAmount: 2500, transactionDescription: 'Order 42', referenceNumber: `REF${randomBytes(8).toString('hex')}`, capturedBy: ACTOR } }),
  },
  {
    method: 'POST',
    url: `${BASE}/collections/requestToPay/addFakeTransaction`,
    merchantIn: 'body',
    build: async (t, m) => {
      const request = await timedAccountFor(t, m, 250_000);
      return { body: { ...mac(m), transactionAmount: 2500, connectorId: 112400, timedAccountNumber: request.timed_account_number, currencyCode: 'MWK', capturedBy: ACTOR } };
    },
  },
  {
    // E11 names no merchantAccountNumber: the merchant is the owner of beneficiaryAccountNumber,
    // so B's request sent with A's token pays into B's payment account, which A cannot see (404).
    method: 'POST',
    url: `${BASE}/collections/addFakeCustomPayment`,
    merchantIn: 'body',
    build: (_t, m) => ({ body: { beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: CONNECTOR_ID, transactionAmount: 5000, createdBy: ACTOR } }),
  },
  { method: 'POST', url: `${BASE}/collections/getTransactions`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), pageNumber: 1, numberOfReturnedRows: 10 } }) },
  {
    method: 'POST',
    url: `${BASE}/collections/getTransaction`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: (await collectionFor(t, m)).transaction_reference_number } }),
  },
  {
    method: 'POST',
    url: `${BASE}/collections/reverse`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: (await collectionFor(t, m)).transaction_reference_number, reason: 'Customer refund' } }),
  },
];

/** Inject options for `route` with request `req` and extra headers (e.g. authorization). */
export function injectFor(route: RouteSpec, req: RouteRequest, headers: Record<string, string> = {}): InjectOptions {
  const options: InjectOptions = { method: route.method, url: route.url, headers: { ...req.headers, ...headers } };
  if (req.query) options.query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
  if (req.body !== undefined) options.payload = req.body;
  return options;
}

/**
 * The same request with merchantAccountNumber replaced by `value`, where the route carries it
 * (query or body). Routes with merchantIn 'none' get it as a query parameter: naming another
 * merchant anywhere must be refused (product.md §2). A request header that must repeat the
 * account number (E14's MerchantAccountNumber) follows it, so what is exercised is the token's
 * binding to its merchant, not the header/body comparison.
 */
export function withMerchantNumber(route: RouteSpec, req: RouteRequest, value: unknown, name = 'merchantAccountNumber'): RouteRequest {
  const strip = (o: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => k.toLowerCase() !== 'merchantaccountnumber'));
  const headers = req.headers && Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, k.toLowerCase() === 'merchantaccountnumber' ? String(value) : v]));
  if (route.merchantIn === 'body') return { ...req, headers, body: { ...strip(req.body), [name]: value } };
  return { ...req, headers, query: { ...(strip(req.query) as RouteRequest['query']), [name]: value as string } };
}

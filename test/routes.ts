// The registry of merchant-API operations: every route registered under /sandbox/v1 except
// POST /account/getAccessToken (which takes no token). test/http/security.test.ts runs the shared
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
import { randomBytes, randomInt } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { withTransaction } from '../src/db/pool.ts';
import { emitEvent } from '../src/jobs/outbox.ts';
import { insertApiKey, newKeyPair, setApiKeyStatus } from '../src/modules/api-keys/repository.ts';
import { findSubscription, type SubscriptionRow } from '../src/modules/webhooks/repository.ts';
import { addWebhook, createListener } from '../src/modules/webhooks/service.ts';
import type { CollectionRow, PaymentRequestRow } from '../src/modules/collections/repository.ts';
import { createPaymentRequest, payPaymentAccount } from '../src/modules/collections/service.ts';
import { addSinglePayout, submitBatch, validateBatch } from '../src/modules/disbursements/service.ts';
import { topup } from '../src/modules/merchants/service.ts';
import { activate, addAccount, deactivate, listAccounts } from '../src/modules/settlement/service.ts';
import { addUser } from '../src/modules/users/service.ts';
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

/** A fresh temporary listener of `m` (the merchant's others deleted first: at most 10); returns its id. */
export async function listenerFor(t: TestApp, m: TestMerchant): Promise<number> {
  await t.db.query('delete from webhook_listeners where merchant_account_number = $1', [m.merchantAccountNumber]);
  const created = await createListener(t.deps, { merchantAccountNumber: m.merchantAccountNumber, callbackUrl: 'https://shop.example.mw/hooks/listen', eventCodes: ['payment.success'], leaseSeconds: 60, capturedBy: ACTOR });
  return created.listenerId;
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

/** A valid payout (batch line or single payout body fields): MWK 500 to an Airtel wallet. */
export const payoutLine = () => ({
  beneficiaryName: 'Chisomo Banda',
  connectorId: 112400,
  beneficiaryAccountNumber: '265991234567',
  transactionDescription: 'Salary',
  transactionAmount: 500,
  sourceReferenceNumber: `SRC${randomBytes(6).toString('hex')}`,
});

/** Who captures registry batches: not ACTOR, so that ACTOR may review and approve them (four eyes). */
export const BATCH_CAPTURER = 'capturer@shop.mw';

/**
 * A validated batch of `m` with one valid line, through the service and the validation job, that
 * follows the rules of `levelNumber` (1: lines ready for transfer; 2 and 3: awaiting approval or
 * review); returns its number.
 */
export async function batchFor(t: TestApp, m: TestMerchant, levelNumber = 1): Promise<number> {
  const { batchNumber } = await withTransaction(t.db, (tx) =>
    submitBatch(t.deps, tx, { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: BATCH_CAPTURER, uploadType: 'JSON', transactions: [payoutLine()] }),
  );
  // A batch follows the level it was captured at; set before validation decides its lines' states.
  await t.db.query('update batches set level_number = $2 where batch_number = $1', [batchNumber, levelNumber]);
  await withTransaction(t.db, (tx) => validateBatch(t.deps, tx, batchNumber));
  return batchNumber;
}

/** Credits `m`'s disbursement balance through the top-up service (MWK 10,000 unless told). */
export async function fund(t: TestApp, m: TestMerchant, amountMinor = 1_000_000): Promise<void> {
  await topup(t.deps, { merchantAccountNumber: m.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmountMinor: amountMinor, createdBy: ACTOR }, async () => undefined);
}

/** A fresh single payout of `m` (funded first), through the service; returns its reference. */
export async function singlePayoutFor(t: TestApp, m: TestMerchant): Promise<string> {
  await fund(t, m);
  const payout = await withTransaction(t.db, (tx) => addSinglePayout(tx, { merchantAccountNumber: m.merchantAccountNumber, capturedBy: ACTOR, ...payoutLine() }));
  return payout.transaction_reference_number;
}

/**
 * A fresh single payout of `m` captured as if `m` were at `levelNumber` (2 or 3: awaiting approval
 * or review), by BATCH_CAPTURER so that ACTOR may act on it; `m` is funded first, so that approving
 * it succeeds. The level is changed only inside the capturing transaction. Returns its reference.
 */
export async function pendingSingleFor(t: TestApp, m: TestMerchant, levelNumber: 2 | 3): Promise<string> {
  await fund(t, m);
  const payout = await withTransaction(t.db, async (tx) => {
    const { rows } = await tx.query<{ level_number: number }>('select level_number from merchants where merchant_account_number = $1', [m.merchantAccountNumber]);
    await tx.query('update merchants set level_number = $2 where merchant_account_number = $1', [m.merchantAccountNumber, levelNumber]);
    const added = await addSinglePayout(tx, { merchantAccountNumber: m.merchantAccountNumber, capturedBy: BATCH_CAPTURER, ...payoutLine() });
    await tx.query('update merchants set level_number = $2 where merchant_account_number = $1', [m.merchantAccountNumber, rows[0].level_number]);
    return added;
  });
  return payout.transaction_reference_number;
}

/** The transaction reference of the first line of a fresh batch of `m`. */
async function batchLineFor(t: TestApp, m: TestMerchant): Promise<string> {
  const batchNumber = await batchFor(t, m);
  const { rows } = await t.db.query<{ r: string }>('select transaction_reference_number as r from payouts where batch_number = $1 order by line_number limit 1', [batchNumber]);
  return rows[0].r;
}

/** Deactivates whichever settlement account of `m` is active, through the service. */
export async function deactivateSettlement(t: TestApp, m: TestMerchant): Promise<void> {
  for (const a of await listAccounts(t.db, m.merchantAccountNumber)) if (a.status_code === 'A') await deactivate(t.deps, m.merchantAccountNumber, a.account_id, ACTOR);
}

/** A unique e-mail address for a new merchant user. */
export const newUserEmail = () => `user.${randomBytes(6).toString('hex')}@shop.mw`;

/** A new merchant user of `m` (active, invited, no password yet), through the service; returns its userId. */
export async function merchantUserFor(t: TestApp, m: TestMerchant): Promise<string> {
  return addUser(
    t.deps,
    { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, firstName: 'Thoko', lastName: 'Mwale', emailAddress: newUserEmail(), phoneNumber: '0991234567', roleId: 2, capturedBy: ACTOR },
    'http://localhost',
  );
}

/**
 * A new settlement account of `m` (an NBM bank account), through the service; returns its id.
 * `active`: activated, after deactivating the one that was (one active account per merchant).
 */
export async function settlementAccountFor(t: TestApp, m: TestMerchant, active = false): Promise<number> {
  const accountId = await addAccount(t.deps, {
    merchantAccountNumber: m.merchantAccountNumber,
    accountNumber: String(randomInt(1_000_000_000, 10_000_000_000)),
    connectorId: CONNECTOR_ID,
    accountName: 'Shop Holdings Ltd',
    capturedBy: ACTOR,
  });
  if (active) {
    await deactivateSettlement(t, m);
    await activate(t.deps, m.merchantAccountNumber, accountId, ACTOR);
  }
  return accountId;
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
  {
    // The documented body names no merchant account: the suite's numbers travel beside organisationId.
    method: 'POST',
    url: `${BASE}/merchants/accounts/getAll`,
    merchantIn: 'body',
    build: (_t, m) => ({ body: { organisationId: m.organisationId, ...mac(m), pageNumber: 1, numberOfReturnedRows: 10, isIncremental: false, searchBy: 'AccountName', searchText: '' } }),
  },
  { method: 'GET', url: `${BASE}/merchants/accounts/getStatusChanges`, merchantIn: 'query', build: (_t, m) => ({ query: { MerchantAccountNumber: m.merchantAccountNumber } }) },
  // The operator's operations at their documented paths (issue 27): a merchant's token is refused, 403.
  // add's body names no merchant account: the suite's numbers travel beside organisationId.
  {
    method: 'POST',
    url: `${BASE}/merchants/accounts/add`,
    merchantIn: 'body',
    status: 403,
    build: (_t, m) => ({ body: { organisationId: m.organisationId, ...mac(m), accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', levelNumber: 1, capturedBy: ACTOR } }),
  },
  {
    method: 'POST',
    url: `${BASE}/merchants/accounts/update`,
    merchantIn: 'body',
    status: 403,
    build: (_t, m) => ({ body: { ...mac(m), accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', capturedBy: ACTOR, levelNumber: 1 } }),
  },
  ...(['activate', 'suspend', 'blacklist'] as const).map(
    (action): RouteSpec => ({
      method: 'POST',
      url: `${BASE}/merchants/accounts/${action}`,
      merchantIn: 'body',
      status: 403,
      build: (_t, m) => ({ body: { ...mac(m), changedBy: ACTOR, reasonId: 5, comments: 'Requested by the merchant' } }),
    }),
  ),

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
  // The gateway's documented form: POST with a JSON body naming the event code.
  { method: 'POST', url: `${BASE}/merchants/webhooks/get`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), eventCode: (await webhookFor(t, m)).event_code } }) },
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
  // Temporary listeners (`listen`): at most 10 unexpired per merchant, so a valid create starts
  // from none; renew and delete act on a fresh one.
  {
    method: 'POST',
    url: `${BASE}/merchants/webhooks/listeners`,
    merchantIn: 'body',
    status: 201,
    build: async (t, m) => {
      await t.db.query('delete from webhook_listeners where merchant_account_number = $1', [m.merchantAccountNumber]);
      return { body: { ...mac(m), callbackUrl: HOOK_URL, eventCodes: ['payment.success', 'payout.success'], leaseSeconds: 60, capturedBy: ACTOR } };
    },
  },
  { method: 'PUT', url: `${BASE}/merchants/webhooks/listeners/renew`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), listenerId: await listenerFor(t, m) } }) },
  { method: 'POST', url: `${BASE}/merchants/webhooks/listeners/delete`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), listenerId: await listenerFor(t, m) } }) },

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

  // Disbursements. State comes from the services (batchFor, fund, singlePayoutFor), never through
  // the API: a revoked key's merchant must still get its requests built.
  {
    // E8 names its merchant in body.header; the suite's foreign and malformed numbers go at the
    // top level of the body, where the scoping check reads them as well.
    method: 'POST',
    url: `${BASE}/disbursements/batch/addJson`,
    merchantIn: 'body',
    build: (_t, m) => ({ body: { header: { ...mac(m), isBatchScheduled: false, capturedBy: ACTOR }, transactions: [payoutLine(), payoutLine()] } }),
  },
  { method: 'POST', url: `${BASE}/disbursements/batch/getBatches`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), pageNumber: 1, numberOfReturnedRows: 10 } }) },
  { method: 'POST', url: `${BASE}/disbursements/batch/getTransactions`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m), pageNumber: 1, numberOfReturnedRows: 10 } }) },
  { method: 'POST', url: `${BASE}/disbursements/batch/getBatch`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m) } }) },
  { method: 'POST', url: `${BASE}/disbursements/batch/getTransaction`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: await batchLineFor(t, m) } }) },
  { method: 'PUT', url: `${BASE}/disbursements/batch/review`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m, 3), actionedBy: ACTOR } }) },
  { method: 'PUT', url: `${BASE}/disbursements/batch/approve`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m, 2), actionedBy: ACTOR } }) },
  {
    method: 'POST',
    url: `${BASE}/disbursements/batch/reject`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m), reasonForRejection: 'Wrong amounts', rejectedBy: ACTOR } }),
  },
  { method: 'POST', url: `${BASE}/disbursements/batch/cancel`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m), cancelledBy: ACTOR } }) },
  {
    method: 'POST',
    url: `${BASE}/disbursements/batch/transferFunds`,
    merchantIn: 'body',
    build: async (t, m) => {
      await fund(t, m);
      return { body: { ...mac(m), batchNumber: await batchFor(t, m), transferredBy: ACTOR } };
    },
  },
  {
    method: 'POST',
    url: `${BASE}/disbursements/single/add`,
    merchantIn: 'body',
    build: async (t, m) => {
      await fund(t, m);
      return { body: { ...mac(m), ...payoutLine(), capturedBy: ACTOR } };
    },
  },
  { method: 'POST', url: `${BASE}/disbursements/single/getTransaction`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: await singlePayoutFor(t, m) } }) },
  { method: 'POST', url: `${BASE}/disbursements/single/getTransactions`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), pageNumber: 1, numberOfReturnedRows: 10 } }) },
  // Single payouts awaiting approval (issue 14): the documented bodies.
  { method: 'PUT', url: `${BASE}/disbursements/single/review`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: await pendingSingleFor(t, m, 3), actionedBy: ACTOR } }) },
  { method: 'PUT', url: `${BASE}/disbursements/single/approve`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: await pendingSingleFor(t, m, 2), actionedBy: ACTOR } }) },
  {
    method: 'POST',
    url: `${BASE}/disbursements/single/reject`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), transactionReferenceNumber: await pendingSingleFor(t, m, 2), reasonForRejection: 'Invalid beneficiary account number format', rejectedBy: ACTOR } }),
  },
  { method: 'POST', url: `${BASE}/disbursements/batch/download`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), headerId: await batchFor(t, m), downloadType: 'XLSX' } }) },
  {
    method: 'POST',
    url: `${BASE}/disbursements/batch/addFile`,
    merchantIn: 'body',
    build: (_t, m) => {
      const lines = [payoutLine(), payoutLine()];
      const csv = [Object.keys(lines[0]).join(','), ...lines.map((l) => Object.values(l).join(','))].join('\r\n');
      return { body: { ...mac(m), isBatchScheduled: false, contentType: 'CSV', fileContent: Buffer.from(csv).toString('base64'), capturedBy: ACTOR } };
    },
  },
  { method: 'POST', url: `${BASE}/disbursements/batch/downloadErrors`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), batchNumber: await batchFor(t, m) } }) },

  // Settlement accounts (state from the settlement service). get, activate and deactivate name
  // the merchant only optionally: the suite's numbers travel in the query / body as for the rest.
  {
    method: 'POST',
    url: `${BASE}/merchants/bankAccounts/add`,
    merchantIn: 'body',
    status: 201,
    build: (_t, m) => ({ body: { ...mac(m), accountNumber: String(randomInt(1_000_000_000, 10_000_000_000)), connectorId: CONNECTOR_ID, accountName: 'Shop Holdings Ltd', capturedBy: ACTOR } }),
  },
  { method: 'GET', url: `${BASE}/merchants/bankAccounts/getAll`, merchantIn: 'query', build: (_t, m) => ({ query: mac(m) }) },
  { method: 'GET', url: `${BASE}/merchants/bankAccounts/get`, merchantIn: 'query', build: async (t, m) => ({ query: { ...mac(m), accountId: await settlementAccountFor(t, m) } }) },
  {
    // Valid only while no other account of m is active: that one is deactivated first.
    method: 'POST',
    url: `${BASE}/merchants/bankAccounts/activate`,
    merchantIn: 'body',
    build: async (t, m) => {
      await deactivateSettlement(t, m);
      return { body: { ...mac(m), accountId: await settlementAccountFor(t, m), changedBy: ACTOR } };
    },
  },
  { method: 'POST', url: `${BASE}/merchants/bankAccounts/deactivate`, merchantIn: 'body', build: async (t, m) => ({ body: { ...mac(m), accountId: await settlementAccountFor(t, m, true), changedBy: ACTOR } }) },
  {
    method: 'POST',
    url: `${BASE}/merchants/bankAccounts/update`,
    merchantIn: 'body',
    build: async (t, m) => ({
      body: { ...mac(m), accountId: await settlementAccountFor(t, m, true), accountNumber: String(randomInt(1_000_000_000, 10_000_000_000)), connectorId: 221300, accountName: 'Shop Holdings (Pty) Ltd', capturedBy: ACTOR },
    }),
  },
  { method: 'POST', url: `${BASE}/merchants/bankAccounts/delete`, merchantIn: 'body', build: async (t, m) => ({ body: { accountId: await settlementAccountFor(t, m), ...mac(m), deletedBy: ACTOR } }) },

  // Analytics (the last 30 days when no dates are given)
  { method: 'POST', url: `${BASE}/core/MerchantAnalytics/GetConnectorSummaryCountMetrics`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), summaryType: 'C' } }) },
  {
    method: 'POST',
    url: `${BASE}/core/MerchantAnalytics/GetConnectorSummarySumMetrics`,
    merchantIn: 'body',
    build: (_t, m) => {
      const today = new Date().toISOString().slice(0, 10);
      return { body: { ...mac(m), summaryType: 'D', fromDate: today, toDate: today } };
    },
  },
  { method: 'POST', url: `${BASE}/core/MerchantAnalytics/GetDisbursementMetrics`, merchantIn: 'body', build: (_t, m) => ({ body: mac(m) }) },

  // Merchant users (state from the users service: a fresh invited user per request)
  {
    method: 'POST',
    url: `${BASE}/security/merchantUsers/add`,
    merchantIn: 'body',
    status: 201,
    build: (_t, m) => ({
      body: {
        organisationId: m.organisationId,
        ...mac(m),
        firstName: 'Chikondi',
        lastName: 'Banda',
        emailAddress: newUserEmail(),
        phoneNumber: '265881234567',
        roleId: 'MERC_REVIEWER',
        organisationTypeCode: 'MER',
        capturedBy: ACTOR,
      },
    }),
  },
  { method: 'POST', url: `${BASE}/security/merchantUsers/getAll`, merchantIn: 'body', build: (_t, m) => ({ body: { ...mac(m), pageNumber: 1, numberOfReturnedRows: 10 } }) },
  { method: 'GET', url: `${BASE}/security/merchantUsers/get`, merchantIn: 'query', build: async (t, m) => ({ query: { ...mac(m), userId: await merchantUserFor(t, m) } }) },
  // The gateway's documented forms: POST with a JSON body (get) and getMerchantClaims.
  { method: 'POST', url: `${BASE}/security/merchantUsers/get`, merchantIn: 'body', build: async (t, m) => ({ body: { userId: await merchantUserFor(t, m), ...mac(m) } }) },
  {
    method: 'POST',
    url: `${BASE}/security/merchantUsers/getMerchantClaims`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { organisationId: m.organisationId, ...mac(m), userId: await merchantUserFor(t, m) } }),
  },
  {
    method: 'PUT',
    url: `${BASE}/security/merchantUsers/update`,
    merchantIn: 'body',
    build: async (t, m) => ({
      body: { userId: await merchantUserFor(t, m), ...mac(m), firstName: 'Thokozani', lastName: 'Mwale', emailAddress: newUserEmail(), phoneNumber: '+265991234568', roleId: 'MERC_APPROVER', capturedBy: ACTOR },
    }),
  },
  {
    method: 'PUT',
    url: `${BASE}/security/merchantUsers/activate`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), userId: await merchantUserFor(t, m), changedBy: ACTOR, reasonId: 101, comments: 'Restoring account after security review' } }),
  },
  {
    method: 'PUT',
    url: `${BASE}/security/merchantUsers/close`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { ...mac(m), userId: await merchantUserFor(t, m), changedBy: ACTOR, reasonId: 301, comments: 'Account closed at merchant request' } }),
  },
  {
    method: 'POST',
    url: `${BASE}/security/merchantUsers/reinvite`,
    merchantIn: 'body',
    build: async (t, m) => ({ body: { organisationId: m.organisationId, ...mac(m), userId: await merchantUserFor(t, m) } }),
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

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
//                name no merchant (the connector catalogue).
//   status       the success status of a valid request (default 200).
//   build        returns a VALID request for merchant `m` (query and/or body). It may create the
//                state the request needs (a key to delete, a batch to approve…) directly in the
//                database or through the API with m's token; it must not depend on other merchants.
import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { insertApiKey, newKeyPair, setApiKeyStatus } from '../src/modules/api-keys/repository.ts';
import { BASE, type TestApp, type TestMerchant } from './helpers.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type MerchantField = 'query' | 'body' | 'none';

/** What `build` returns: query parameters and/or a JSON body. */
export interface RouteRequest {
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
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

const mac = (m: TestMerchant) => ({ merchantAccountNumber: m.merchantAccountNumber });

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
];

/** Inject options for `route` with request `req` and extra headers (e.g. authorization). */
export function injectFor(route: RouteSpec, req: RouteRequest, headers: Record<string, string> = {}): InjectOptions {
  const options: InjectOptions = { method: route.method, url: route.url, headers };
  if (req.query) options.query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
  if (req.body !== undefined) options.payload = req.body;
  return options;
}

/**
 * The same request with merchantAccountNumber replaced by `value`, where the route carries it
 * (query or body). Routes with merchantIn 'none' get it as a query parameter: naming another
 * merchant anywhere must be refused (product.md §2).
 */
export function withMerchantNumber(route: RouteSpec, req: RouteRequest, value: unknown, name = 'merchantAccountNumber'): RouteRequest {
  const strip = (o: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(o ?? {}).filter(([k]) => k.toLowerCase() !== 'merchantaccountnumber'));
  if (route.merchantIn === 'body') return { ...req, body: { ...strip(req.body), [name]: value } };
  return { ...req, query: { ...(strip(req.query) as RouteRequest['query']), [name]: value as string } };
}

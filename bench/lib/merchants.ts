// Merchants for a part: created through the service's own function (createMerchant), their
// credentials as the token endpoint takes them, and bearer tokens (valid 5 minutes).
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { Deps } from '../../src/http/types.ts';
import { createMerchant, type MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { SANDBOX } from './api.ts';

/** The getAccessToken body for `m`. */
export function credentialsOf(m: MerchantCredentials): string {
  return JSON.stringify({ apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber });
}

/** `count` merchants named `${name} 1` … `${name} count`, created one after another. */
export async function createMerchants(deps: Deps, count: number, name: string, levelNumber?: number): Promise<MerchantCredentials[]> {
  const merchants: MerchantCredentials[] = [];
  for (let i = 0; i < count; i++) merchants.push(await createMerchant(deps, { accountName: `${name} ${i + 1}`, capturedBy: 'bench', ...(levelNumber ? { levelNumber } : {}) }));
  return merchants;
}

/** A bearer token for `m` from the service at `baseUrl` (over `dispatcher` when given). */
export async function accessToken(baseUrl: string, m: MerchantCredentials, dispatcher?: Dispatcher): Promise<string> {
  const res = await undiciRequest(`${baseUrl}${SANDBOX}/account/getAccessToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: credentialsOf(m),
    ...(dispatcher ? { dispatcher } : {}),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`token request failed: HTTP ${res.statusCode} ${text}`);
  return (JSON.parse(text) as { accessToken: string }).accessToken;
}

/** A token for each merchant, in order. */
export function accessTokens(baseUrl: string, merchants: MerchantCredentials[], dispatcher?: Dispatcher): Promise<string[]> {
  return Promise.all(merchants.map((m) => accessToken(baseUrl, m, dispatcher)));
}

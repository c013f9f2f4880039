// Access tokens for key pairs (product.md §2).
import { AppError } from '../../http/errors.ts';
import type { Deps } from '../../http/types.ts';
import { API_KEY, findLiveKeyByClientKey, secretMatches } from '../api-keys/repository.ts';
import { MERCHANT } from '../merchants/repository.ts';
import { signAccessToken } from './tokens.ts';

export interface TokenRequest {
  apiKey: string;
  apiSecret: string;
  organisationId: string;
  merchantAccountNumber: number;
}

export type VerifiedKey = NonNullable<Awaited<ReturnType<typeof findLiveKeyByClientKey>>>;

const NO_KEY_HASH = Buffer.alloc(32);

/**
 * The key pair if it opens this merchant account now; otherwise one 401 for every way it can fail.
 * Shared by the token endpoint and the hosted checkout's initiate (credentials in the body).
 */
export async function verifyKeyPair(deps: Deps, input: TokenRequest): Promise<VerifiedKey> {
  const key = await findLiveKeyByClientKey(deps.db, input.merchantAccountNumber, input.apiKey);
  const now = deps.clock.now();
  // One answer for every way this can fail, so the endpoint reveals nothing about which part
  // (key, secret, organisation, account, status) was wrong.
  // The secret is compared even for an unknown key (against a hash nothing matches), so the
  // response time does not tell whether a key exists.
  const secretOk = secretMatches(input.apiSecret, key?.secret_hash ?? NO_KEY_HASH);
  const ok =
    key !== undefined &&
    secretOk &&
    key.organisation_id === input.organisationId.toUpperCase() &&
    key.merchant_account_number === input.merchantAccountNumber &&
    key.status_code === API_KEY.active &&
    key.merchant_status === MERCHANT.active &&
    // The demo merchant's printed credentials must never open a production deployment.
    !(key.merchant_is_demo && deps.config.mode === 'production') &&
    (key.expiry_date === null || key.expiry_date.getTime() > now.getTime());
  if (!ok) throw new AppError('unauthorized', 'detail.badCredentials');
  return key;
}

export async function getAccessToken(deps: Deps, input: TokenRequest) {
  const key = await verifyKeyPair(deps, input);
  const now = deps.clock.now();
  const minutes = deps.config.accessTokenMinutes;
  const { token, expiresOn } = await signAccessToken(deps.jwtSecret, { clientId: key.client_id, organisationId: key.organisation_id, merchantAccountNumber: key.merchant_account_number }, now, minutes);
  return { accessToken: token, expiresOn: expiresOn.toISOString(), expiryInMinutes: minutes };
}

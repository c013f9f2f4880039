// The auth module: access tokens (POST /account/getAccessToken), and what the pipeline asks of
// every merchant request: who the token names and whether its key may still be used.
import type { ModuleDefinition } from '../../module.ts';
import type { Deps } from '../../http/types.ts';
import { KeyStatusCache } from './key-status.ts';
import getAccessToken from './routes/get-access-token.ts';
import { VerifiedTokenCache } from './tokens.ts';

declare module '../../http/types.ts' {
  interface RouteContext {
    /** Whether a key's tokens may still be used; routes that change a key or a merchant invalidate it. */
    keyStatus: KeyStatusCache;
  }
}

/** Per process: the verified-token cache and the key-status cache (http/pipeline.ts TokenVerifier, KeyStatusCheck). */
export function createAuthServices(deps: Deps): { tokens: VerifiedTokenCache; keyStatus: KeyStatusCache } {
  return { tokens: new VerifiedTokenCache(deps.jwtSecret), keyStatus: new KeyStatusCache(deps.db, deps.clock, deps.config.keyStatusCacheMs) };
}

export const authModule: ModuleDefinition = {
  name: 'auth',
  routes: [getAccessToken],
};

// Access tokens: HS256 JWTs (algorithm pinned on both sides) naming the key, organisation and
// merchant account. Five minutes, no refresh (product.md §2).
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Principal } from '../../http/types.ts';

const ALGORITHM = 'HS256';
const ISSUER = 'onekhusa-sandbox';
const AUDIENCE = 'merchant-api';

export async function signAccessToken(secret: Uint8Array, principal: Principal, now: Date, lifetimeMinutes: number): Promise<{ token: string; expiresOn: Date }> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = issuedAt + lifetimeMinutes * 60;
  const token = await new SignJWT({ org: principal.organisationId, mac: principal.merchantAccountNumber })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(String(principal.clientId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .setJti(randomUUID())
    .sign(secret);
  return { token, expiresOn: new Date(expiresAt * 1000) };
}

/**
 * Verified tokens, so that a client reusing its token for 5 minutes pays for the signature check
 * once: jose verifies through WebCrypto, which costs more than the rest of a cached read. Keyed by
 * the whole token (signature included), so only a token that passed verification can hit; its
 * expiry is checked again on every use. Bounded: cleared wholesale when full.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(
    private readonly secret: Uint8Array,
    private readonly maxEntries = 50_000,
  ) {}

  async verify(token: string, now: Date): Promise<Principal | undefined> {
    const hit = this.entries.get(token);
    if (hit) {
      if (hit.expiresAtMs > now.getTime()) return hit.principal;
      this.entries.delete(token);
      return undefined;
    }
    const verified = await verifyAccessToken(this.secret, token, now);
    if (!verified) return undefined;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(token, verified);
    return verified.principal;
  }
}

/** Verifies signature, algorithm, issuer, audience and expiry; undefined when any fails. */
export async function verifyAccessToken(secret: Uint8Array, token: string, now: Date): Promise<{ principal: Principal; expiresAtMs: number } | undefined> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    const clientId = Number(payload.sub);
    const merchantAccountNumber = payload.mac;
    const organisationId = payload.org;
    if (!Number.isSafeInteger(clientId) || typeof merchantAccountNumber !== 'number' || typeof organisationId !== 'string') return undefined;
    return { principal: { clientId, merchantAccountNumber, organisationId }, expiresAtMs: payload.exp! * 1000 };
  } catch {
    return undefined;
  }
}

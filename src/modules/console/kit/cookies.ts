// The console's cookies and the secrets they carry: the session cookie (merchant account number and
// 32 random bytes; the database keeps only the SHA-256 of the random part), the pre-session cookie
// that binds the sign-in, forgot- and reset-password forms to a browser, and the CSRF tokens
// derived from either with an HMAC, so no token is stored anywhere.
//
// Every cookie is HttpOnly, SameSite=Lax and Path=/; in production mode also Secure with the
// __Host- prefix (the browser then refuses it from plain http, from another path or a subdomain).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Mode } from '../../../config.ts';

export interface CookieNames {
  session: string;
  preSession: string;
  lang: string;
}

export function cookieNames(mode: Mode): CookieNames {
  const prefix = mode === 'production' ? '__Host-' : '';
  return { session: `${prefix}console_session`, preSession: `${prefix}console_form`, lang: `${prefix}console_lang` };
}

/** Cookies are small: a header past this many bytes is not read (a browser sends a few hundred). */
const COOKIE_HEADER_MAX_BYTES = 8192;

/** The request's cookies by name (the first of each name wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header || header.length > COOKIE_HEADER_MAX_BYTES) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

export interface CookieOptions {
  mode: Mode;
  /** Absent: a browser-session cookie. 0: delete it. */
  maxAgeSeconds?: number;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.mode === 'production') parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export interface SessionId {
  merchantAccountNumber: number;
  /** The random part: only in the cookie. */
  secret: string;
  /** What the database keeps. */
  hash: Buffer;
}

/** A new session id for a merchant's user: the cookie value and what to store. */
export function newSessionId(merchantAccountNumber: number): SessionId & { cookieValue: string } {
  const secret = newSecret();
  return { merchantAccountNumber, secret, hash: sha256(secret), cookieValue: `${merchantAccountNumber}.${secret}` };
}

/** The session cookie's value, read back; undefined for anything that is not one of ours. */
export function parseSessionCookie(value: string | undefined): SessionId | undefined {
  if (!value) return undefined;
  const match = /^(\d{8})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return undefined;
  return { merchantAccountNumber: Number(match[1]), secret: match[2], hash: sha256(match[2]) };
}

/** The pre-session cookie's value when it is well-formed. */
export function parsePreSession(value: string | undefined): string | undefined {
  return value && SECRET.test(value) ? value : undefined;
}

/**
 * The CSRF token of a session or pre-session secret: an HMAC under a key derived from the
 * service's signing secret, so that only this service can make one, and one made for a
 * pre-session never passes for a session.
 */
export function csrfToken(signingSecret: Uint8Array, purpose: 'session' | 'pre-session', secret: string): string {
  return signValue(signingSecret, `csrf ${purpose}`, secret);
}

/**
 * An HMAC of `value` for `purpose`, under a key derived from the service's signing secret (the
 * console's own key: a token for one purpose is never one for another, nor an access token).
 */
export function signValue(signingSecret: Uint8Array, purpose: string, value: string): string {
  const key = createHmac('sha256', signingSecret).update('onekhusa console v1').digest();
  return createHmac('sha256', key).update(`${purpose}\u0000${value}`).digest('base64url');
}

/** Compares two tokens in constant time (for equal lengths; the length of a token is no secret). */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

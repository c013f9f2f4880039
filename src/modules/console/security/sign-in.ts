// Signing in to the console with the e-mail address and password of an active merchant user
// (the password they set from the invitation link, src/modules/users), and the session it starts.
//
// One address can be a user of several merchants: the password is checked against each of them
// (at most MAX_USERS_PER_EMAIL), and when it is right for more than one the person chooses the
// merchant (a signed ticket carries the choice, bound to their browser's pre-session cookie).
//
// An unknown address and a wrong password get the same answer in the same time: the password is
// checked against a dummy argon2id hash (same parameters as the real ones) for every slot without
// a real one, so there are always max(1, users) checks, run side by side; both paths make the same
// database round trips. Failures, back-offs and locks go to the audit log of every merchant whose
// user the address names, and to the service log when it names none.
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type pg from 'pg';
import { withTransaction } from '../../../db/pool.ts';
import type { Deps } from '../../../http/types.ts';
import { queueEmail } from '../../email/service.ts';
import { activeUsersByEmail, findUser, USER, type SignInUserRow } from '../../users/repository.ts';
import { PASSWORD_MAX_LENGTH } from '../../users/service.ts';
import { writeAudit, type AuditEntry, type Origin } from '../kit/audit.ts';
import { newSessionId, sameToken, sha256, signValue } from '../kit/cookies.ts';
import { lockEmail, secondFactorLockEmail, type LockEmailInput } from './emails.tsx';
import { insertSession } from '../kit/session-store.ts';
import { admit, failed, succeeded, throttleKeys, LOCK_MINUTES, type ThrottleKeys } from '../kit/throttle.ts';
import { twoFactorKey, twoFactorStatus, verifySecondFactor, type TwoFactorUser } from './two-factor.ts';

/** Users of one address whose password is checked; past it, the oldest ones only (a person is a user of a few merchants). */
export const MAX_USERS_PER_EMAIL = 5;
/** Longest address read: RFC 5321's limit. */
const EMAIL_MAX_LENGTH = 254;
/** How long the merchant choice may take. */
const CHOICE_TTL_MS = 5 * 60_000;

let dummy: Promise<string> | undefined;

/** An argon2id hash of a random password nobody knows, made once per process. */
export function dummyHash(): Promise<string> {
  dummy ??= hash(randomBytes(32).toString('base64url'));
  return dummy;
}

/** A user the password was right for. */
export interface Candidate {
  merchantAccountNumber: number;
  userId: string;
  merchantName: string;
  roleCode: string;
  roleName: string;
}

export type SignInResult =
  | { kind: 'signedIn'; user: Candidate }
  | { kind: 'choose'; candidates: Candidate[] }
  | { kind: 'wrong'; backoffSeconds?: number }
  | { kind: 'backoff'; retryAfterSeconds: number }
  | { kind: 'locked'; retryAfterSeconds: number };

async function passwordMatches(storedHash: string | null, password: string): Promise<boolean> {
  const against = storedHash ?? (await dummyHash());
  try {
    return (await verify(against, password)) && storedHash !== null;
  } catch {
    // A hash the library cannot read verifies nothing.
    return false;
  }
}

export interface SignInRequest {
  emailAddress: string;
  password: string;
  origin: Origin;
  /** Where links in the lock e-mail start (PUBLIC_BASE_URL or the request's origin). */
  baseUrl: string;
}

/** Checks the credentials, under the throttle; a right password for exactly one user is `signedIn`. */
export async function checkCredentials(deps: Deps, r: SignInRequest): Promise<SignInResult> {
  const now = deps.clock.now();
  const email = r.emailAddress.trim();
  const keys = throttleKeys(email, r.origin.ip);
  const admission = await admit(deps.db, keys, now);
  if (admission.kind !== 'admitted') return admission;

  const readable = email.length <= EMAIL_MAX_LENGTH && [...r.password].length <= PASSWORD_MAX_LENGTH;
  const users = readable ? await activeUsersByEmail(deps.db, email, MAX_USERS_PER_EMAIL) : [];
  const slots: Array<SignInUserRow | undefined> = users.length > 0 ? users : [undefined];
  const results = await Promise.all(slots.map((u) => passwordMatches(u?.password_hash ?? null, r.password)));
  const matching = users.filter((_, i) => results[i]);

  if (matching.length > 0) {
    await succeeded(deps.db, keys, now);
    const candidates = matching.map(candidateOf);
    return candidates.length === 1 ? { kind: 'signedIn', user: candidates[0] } : { kind: 'choose', candidates };
  }
  return recordFailure(deps, r, email, users, keys, now);
}

function candidateOf(u: SignInUserRow): Candidate {
  return { merchantAccountNumber: u.merchant_account_number, userId: u.user_id, merchantName: u.account_name, roleCode: u.role_code, roleName: u.role_name };
}

async function recordFailure(deps: Deps, r: SignInRequest, email: string, users: SignInUserRow[], keys: ThrottleKeys, now: Date): Promise<SignInResult> {
  const outcome = await failed(deps.db, keys, now);
  const entries: AuditEntry[] = users.flatMap((u) => {
    const base = { merchantAccountNumber: u.merchant_account_number, userId: u.user_id, emailTried: email };
    const rows: AuditEntry[] = [{ ...base, action: 'sign_in_failed', detail: { failures: outcome.failures } }];
    if (outcome.backoffSeconds !== undefined) rows.push({ ...base, action: 'sign_in_backoff', detail: { seconds: outcome.backoffSeconds, failures: outcome.failures } });
    if (outcome.lockedUntil) rows.push({ ...base, action: 'account_locked', detail: { until: outcome.lockedUntil.toISOString(), failures: outcome.failures } });
    return rows;
  });
  await withTransaction(deps.db, async (tx) => {
    // Written whether or not the address names a user (an empty insert): the same round trips either way.
    await writeAudit(tx, now, r.origin, entries);
    if (outcome.lockedUntil) await emailLock(tx, r, users, outcome.failures, outcome.lockedUntil);
  });
  if (users.length === 0) deps.log.info({ failures: outcome.failures, locked: outcome.lockedUntil !== undefined, ip: r.origin.ip }, 'console sign-in failed for an address that names no user');
  if (outcome.lockedUntil) return { kind: 'locked', retryAfterSeconds: LOCK_MINUTES * 60 };
  return { kind: 'wrong', backoffSeconds: outcome.backoffSeconds };
}

async function emailLock(tx: pg.PoolClient, r: SignInRequest, users: SignInUserRow[], failures: number, lockedUntil: Date): Promise<void> {
  for (const u of users) {
    const content = lockEmail({ baseUrl: r.baseUrl, merchantName: u.account_name, firstName: u.first_name, emailAddress: u.email_address, failures, ip: r.origin.ip, lockedUntil });
    await queueEmail(tx, { merchantAccountNumber: u.merchant_account_number, recipient: u.email_address, ...content });
  }
}

export interface StartedSession {
  cookieValue: string;
  expiresAt: Date;
  /** The session's secret, for its CSRF token. */
  secret: string;
}

/** A new session for `user` (a new id at every sign-in), with its audit entry, in one transaction. */
export async function startSession(deps: Deps, user: Pick<Candidate, 'merchantAccountNumber' | 'userId'>, origin: Origin, emailTried: string, secondFactor?: 'code' | 'recovery'): Promise<StartedSession> {
  const now = deps.clock.now();
  const id = newSessionId(user.merchantAccountNumber);
  const expiresAt = new Date(now.getTime() + deps.config.consoleSessionHours * 3_600_000);
  await withTransaction(deps.db, async (tx) => {
    await insertSession(tx, { merchantAccountNumber: user.merchantAccountNumber, sessionIdHash: id.hash, userId: user.userId, createdAt: now, expiresAt, ...origin });
    await writeAudit(tx, now, origin, [{ merchantAccountNumber: user.merchantAccountNumber, userId: user.userId, emailTried, action: 'sign_in', detail: secondFactor ? { secondFactor } : {} }]);
  });
  return { cookieValue: id.cookieValue, expiresAt, secret: id.secret };
}

// ---------------------------------------------------------------------------------------------
// Tickets: what the sign-in steps after the password carry from one page to the next (the merchant
// choice, the second factor), signed by the service for one purpose, bound to the browser's
// pre-session secret and valid for a few minutes. They hold ids, never a secret.

function signTicket(deps: Deps, purpose: string, preSessionSecret: string, payload: object): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${signValue(deps.jwtSecret, `${purpose} ${preSessionSecret}`, body)}`;
}

/** The payload of a ticket this browser was given for `purpose`; 'expired' past its time. */
function openTicket<T extends { x: number }>(deps: Deps, purpose: string, preSessionSecret: string, ticket: string): T | 'expired' | undefined {
  const [body, signature] = ticket.split('.');
  if (!body || !signature || !sameToken(signature, signValue(deps.jwtSecret, `${purpose} ${preSessionSecret}`, body))) return undefined;
  let payload: T;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
  return payload.x <= deps.clock.now().getTime() ? 'expired' : payload;
}

interface ChoicePayload {
  /** [merchantAccountNumber, userId] pairs. */
  u: Array<[number, string]>;
  /** The address typed, for the audit entry. */
  e: string;
  /** Expiry, ms since the epoch. */
  x: number;
}

export function choiceTicket(deps: Deps, preSessionSecret: string, candidates: Candidate[], emailTried: string): string {
  const payload: ChoicePayload = { u: candidates.map((c) => [c.merchantAccountNumber, c.userId]), e: emailTried.slice(0, EMAIL_MAX_LENGTH), x: deps.clock.now().getTime() + CHOICE_TTL_MS };
  return signTicket(deps, 'choice', preSessionSecret, payload);
}

/**
 * The user chosen from a ticket, if the ticket is this browser's, unexpired, names that merchant,
 * and its user is still active with a password.
 */
export async function chosenUser(deps: Deps, preSessionSecret: string, ticket: string, merchantAccountNumber: number): Promise<{ userId: string; emailTried: string } | 'expired' | undefined> {
  const payload = openTicket<ChoicePayload>(deps, 'choice', preSessionSecret, ticket);
  if (payload === undefined || payload === 'expired') return payload;
  const pair = payload.u.find(([merchant]) => merchant === merchantAccountNumber);
  if (!pair) return undefined;
  return activeUser(deps, pair[0], pair[1], payload.e);
}

async function activeUser(deps: Deps, merchantAccountNumber: number, userId: string, emailTried: string): Promise<{ userId: string; emailTried: string } | undefined> {
  const user = await findUser(deps.db, merchantAccountNumber, userId);
  if (!user || user.status_code !== USER.active || !user.is_password_set) return undefined;
  return { userId: user.user_id, emailTried };
}

// ---------------------------------------------------------------------------------------------
// The second factor: a user with a confirmed authenticator (two-factor.ts) gets a ticket for the
// code page after the right password, and a session only with a right code or recovery code.
// Wrong codes are throttled like wrong passwords, on a key of the user's own that the right
// password does not reset: knowing the password does not buy more guesses.

/** How long the code may take: a few authenticator steps. */
const SECOND_FACTOR_TTL_MS = 5 * 60_000;

interface SecondFactorPayload {
  m: number;
  u: string;
  e: string;
  x: number;
}

/** Whether signing in as `user` asks for a code. */
export async function asksSecondFactor(deps: Deps, user: TwoFactorUser): Promise<boolean> {
  return (await twoFactorStatus(deps.db, user)).enrolled;
}

export function secondFactorTicket(deps: Deps, preSessionSecret: string, user: TwoFactorUser, emailTried: string, expiresAtMs?: number): string {
  const payload: SecondFactorPayload = { m: user.merchantAccountNumber, u: user.userId, e: emailTried.slice(0, EMAIL_MAX_LENGTH), x: expiresAtMs ?? deps.clock.now().getTime() + SECOND_FACTOR_TTL_MS };
  return signTicket(deps, 'second-factor', preSessionSecret, payload);
}

export interface PendingSecondFactor extends TwoFactorUser {
  emailTried: string;
  expiresAtMs: number;
}

/** The user a code-page ticket names, if it is this browser's, unexpired, and the user still active. */
export async function pendingSecondFactor(deps: Deps, preSessionSecret: string, ticket: string): Promise<PendingSecondFactor | 'expired' | undefined> {
  const payload = openTicket<SecondFactorPayload>(deps, 'second-factor', preSessionSecret, ticket);
  if (payload === undefined || payload === 'expired') return payload;
  const user = await activeUser(deps, payload.m, payload.u, payload.e);
  return user ? { merchantAccountNumber: payload.m, userId: user.userId, emailTried: payload.e, expiresAtMs: payload.x } : undefined;
}

export type SecondFactorResult =
  | { kind: 'passed'; method: 'code' | 'recovery' }
  | { kind: 'wrong'; backoffSeconds?: number }
  | { kind: 'backoff'; retryAfterSeconds: number }
  | { kind: 'locked'; retryAfterSeconds: number };

function secondFactorKeys(user: TwoFactorUser, clientAddress: string): ThrottleKeys {
  // Counters of their own, per user and per address: wrong codes neither touch the password step's
  // counters nor are reset by its successes.
  return { account: sha256(`second-factor\u0000${user.merchantAccountNumber}\u0000${user.userId}`), address: sha256(`second-factor address\u0000${clientAddress}`) };
}

/** Checks a code (or recovery code) under the throttle; failures and locks go to the audit log. */
export async function checkSecondFactor(deps: Deps, pending: PendingSecondFactor, code: string, origin: Origin, baseUrl: string): Promise<SecondFactorResult> {
  const now = deps.clock.now();
  const keys = secondFactorKeys(pending, origin.ip);
  const admission = await admit(deps.db, keys, now);
  if (admission.kind !== 'admitted') return admission;
  const method = code.length <= 32 ? await verifySecondFactor(deps.db, twoFactorKey(deps.jwtSecret), pending, code, now) : undefined;
  if (method) {
    await succeeded(deps.db, keys, now);
    return { kind: 'passed', method };
  }
  const outcome = await failed(deps.db, keys, now);
  const base = { merchantAccountNumber: pending.merchantAccountNumber, userId: pending.userId, emailTried: pending.emailTried };
  const entries: AuditEntry[] = [{ ...base, action: 'two_factor_failed', detail: { failures: outcome.failures } }];
  if (outcome.lockedUntil) entries.push({ ...base, action: 'account_locked', detail: { until: outcome.lockedUntil.toISOString(), failures: outcome.failures, step: 'second_factor' } });
  const lockedUntil = outcome.lockedUntil;
  await withTransaction(deps.db, async (tx) => {
    await writeAudit(tx, now, origin, entries);
    if (lockedUntil) await emailSecondFactorLock(tx, pending, { failures: outcome.failures, ip: origin.ip, lockedUntil, baseUrl });
  });
  if (lockedUntil) return { kind: 'locked', retryAfterSeconds: LOCK_MINUTES * 60 };
  return { kind: 'wrong', backoffSeconds: outcome.backoffSeconds };
}

async function emailSecondFactorLock(tx: pg.PoolClient, user: TwoFactorUser, c: Pick<LockEmailInput, 'failures' | 'ip' | 'lockedUntil' | 'baseUrl'>): Promise<void> {
  const found = await findUser(tx, user.merchantAccountNumber, user.userId);
  const { rows } = await tx.query<{ account_name: string }>('select account_name from merchants where merchant_account_number = $1', [user.merchantAccountNumber]);
  if (!found || !rows[0]) return;
  const content = secondFactorLockEmail({ ...c, merchantName: rows[0].account_name, firstName: found.first_name, emailAddress: found.email_address });
  await queueEmail(tx, { merchantAccountNumber: user.merchantAccountNumber, recipient: found.email_address, ...content });
}

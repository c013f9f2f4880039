// Brute force at the sign-in form, per account (the canonical form of the address typed,
// src/lib/actor.ts) and per client address, in PostgreSQL (migrations/0015), so every process of
// the service counts the same failures:
//   - failures are counted until 15 minutes pass without one (so the back-offs below, 15.5
//     minutes in all, cannot outwait the count);
//   - the 5th starts a back-off: 30 s, doubling with every further failure (60 s, 120 s, …, at
//     most 15 minutes); an attempt during a back-off is answered "try again in N seconds"
//     without its password being checked;
//   - the 10th locks the account for 30 minutes (the address only backs off): even the right
//     password is refused, and the users behind the address are e-mailed (sign-in.ts).
// An address that names no user is counted exactly like one that does: the answers (and their
// timing) tell nothing apart.
//
// Attempts are counted before the password is checked and given back when it was right, under a
// row lock per key: a burst of parallel guesses cannot all pass while the first ones are checked.
import type pg from 'pg';
import { withTransaction, type Db, type Queryable } from '../../../db/pool.ts';
import { canonicalActor } from '../../../lib/actor.ts';
import { sha256 } from './cookies.ts';

/** Failures are forgotten after this long without one. */
export const FAILURE_WINDOW_MINUTES = 15;
export const BACKOFF_AFTER_FAILURES = 5;
export const BACKOFF_FIRST_SECONDS = 30;
export const BACKOFF_MAX_SECONDS = 15 * 60;
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MINUTES = 30;

const MINUTE_MS = 60_000;

export interface ThrottleKeys {
  account: Buffer;
  address: Buffer;
}

/** The two keys of an attempt; hashed, so the table holds neither addresses typed nor client addresses. */
export function throttleKeys(emailTyped: string, clientAddress: string): ThrottleKeys {
  return { account: sha256(`account\u0000${canonicalActor(emailTyped.trim())}`), address: sha256(`address\u0000${clientAddress}`) };
}

interface ThrottleRow {
  throttle_key: Buffer;
  last_failure_at: Date;
  failures: number;
  blocked_until: Date | null;
  locked_until: Date | null;
}

/** How long after the n-th failure counted the next attempt must wait (0: at once). */
export function backoffSeconds(failures: number): number {
  if (failures < BACKOFF_AFTER_FAILURES) return 0;
  return Math.min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** Math.min(20, failures - BACKOFF_AFTER_FAILURES));
}

type State = { failures: number; lastFailureAt: Date; blockedUntil: Date | null; lockedUntil: Date | null };

/**
 * A row's state at `now`. A lock holds to its end, then everything starts afresh; so do 15 quiet
 * minutes, though a back-off still running keeps running.
 */
function current(row: ThrottleRow | undefined, now: Date): State {
  if (row?.locked_until && row.locked_until > now) return { failures: row.failures, lastFailureAt: row.last_failure_at, blockedUntil: row.blocked_until, lockedUntil: row.locked_until };
  const fresh: State = { failures: 0, lastFailureAt: row?.last_failure_at ?? now, blockedUntil: row?.blocked_until && row.blocked_until > now ? row.blocked_until : null, lockedUntil: null };
  if (!row || row.locked_until || now.getTime() - row.last_failure_at.getTime() >= FAILURE_WINDOW_MINUTES * MINUTE_MS) return fresh;
  return { failures: row.failures, lastFailureAt: row.last_failure_at, blockedUntil: row.blocked_until, lockedUntil: null };
}

async function lockRows(tx: pg.PoolClient, keys: Buffer[], now: Date): Promise<Map<string, ThrottleRow>> {
  // Rows are created first (so there is a row to lock), then locked in key order: two attempts on
  // the same keys never wait for each other in opposite orders.
  const sorted = [...keys].sort(Buffer.compare);
  for (const key of sorted) {
    await tx.query(`insert into console_sign_in_throttle (throttle_key, last_failure_at, failures) values ($1, $2, 0) on conflict (throttle_key) do nothing`, [key, now]);
  }
  const { rows } = await tx.query<ThrottleRow>('select * from console_sign_in_throttle where throttle_key = any($1) order by throttle_key for update', [sorted]);
  return new Map(rows.map((r) => [r.throttle_key.toString('hex'), r]));
}

async function writeRow(tx: pg.PoolClient, key: Buffer, state: State): Promise<void> {
  await tx.query('update console_sign_in_throttle set last_failure_at = $2, failures = $3, blocked_until = $4, locked_until = $5 where throttle_key = $1', [
    key,
    state.lastFailureAt,
    state.failures,
    state.blockedUntil,
    state.lockedUntil,
  ]);
}

export type Admission =
  | { kind: 'admitted' }
  | { kind: 'backoff'; retryAfterSeconds: number }
  | { kind: 'locked'; retryAfterSeconds: number };

function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

/**
 * Whether an attempt may check its password now. Admitted attempts are counted as failures at
 * once (given back by `succeeded`), so that the back-off also holds for attempts still running.
 */
export async function admit(db: Db, keys: ThrottleKeys, now: Date): Promise<Admission> {
  return withTransaction(db, async (tx) => {
    const rows = await lockRows(tx, [keys.account, keys.address], now);
    const account = current(rows.get(keys.account.toString('hex')), now);
    const address = current(rows.get(keys.address.toString('hex')), now);
    if (account.lockedUntil && account.lockedUntil > now) return { kind: 'locked', retryAfterSeconds: secondsUntil(account.lockedUntil, now) };
    const blocked = [account.blockedUntil, address.blockedUntil].filter((d): d is Date => d !== null && d > now);
    if (blocked.length > 0) return { kind: 'backoff', retryAfterSeconds: secondsUntil(new Date(Math.max(...blocked.map((d) => d.getTime()))), now) };
    for (const [key, state] of [
      [keys.account, account],
      [keys.address, address],
    ] as const) {
      const failures = state.failures + 1;
      const wait = backoffSeconds(failures);
      await writeRow(tx, key, { ...state, failures, lastFailureAt: now, blockedUntil: wait > 0 ? new Date(now.getTime() + wait * 1000) : null });
    }
    return { kind: 'admitted' };
  });
}

/**
 * The password was right: the account starts afresh, and the address gets its attempt back (a
 * person who signs in after a typo is not held back on the next one).
 */
export async function succeeded(db: Db, keys: ThrottleKeys, now: Date): Promise<void> {
  await withTransaction(db, async (tx) => {
    await tx.query('delete from console_sign_in_throttle where throttle_key = $1', [keys.account]);
    const rows = await lockRows(tx, [keys.address], now);
    const address = current(rows.get(keys.address.toString('hex')), now);
    const failures = Math.max(0, address.failures - 1);
    const wait = backoffSeconds(failures);
    await writeRow(tx, keys.address, { ...address, failures, blockedUntil: wait > 0 && address.blockedUntil ? address.blockedUntil : null });
  });
}

export interface FailureOutcome {
  /** Failures of the account counted now, this one included. */
  failures: number;
  /** Set when this failure started a back-off (of the account or the address): seconds to wait. */
  backoffSeconds: number | undefined;
  /** Set when this failure locked the account: until when. */
  lockedUntil: Date | undefined;
}

/** The password was wrong (the failure is already counted): lock the account at the 10th. */
export async function failed(db: Db, keys: ThrottleKeys, now: Date): Promise<FailureOutcome> {
  return withTransaction(db, async (tx) => {
    const rows = await lockRows(tx, [keys.account, keys.address], now);
    const account = current(rows.get(keys.account.toString('hex')), now);
    const address = current(rows.get(keys.address.toString('hex')), now);
    let lockedUntil: Date | undefined;
    if (account.failures >= LOCK_AFTER_FAILURES && !account.lockedUntil) {
      lockedUntil = new Date(now.getTime() + LOCK_MINUTES * MINUTE_MS);
      await writeRow(tx, keys.account, { ...account, lockedUntil });
    }
    const waits = [account.blockedUntil, address.blockedUntil].filter((d): d is Date => d !== null && d > now);
    const backoff = waits.length > 0 ? secondsUntil(new Date(Math.max(...waits.map((d) => d.getTime()))), now) : undefined;
    return { failures: account.failures, backoffSeconds: lockedUntil ? undefined : backoff, lockedUntil };
  });
}

/** A new password (reset link) proves the mailbox: the account's failures and lock are forgotten. */
export async function forgetAccount(q: Queryable, emailAddress: string): Promise<void> {
  await q.query('delete from console_sign_in_throttle where throttle_key = $1', [throttleKeys(emailAddress, '').account]);
}

/**
 * Deletes rows that hold nothing any more (15 quiet minutes, no back-off or lock running), in bounded
 * batches; returns how many.
 */
export async function deleteStaleThrottles(q: Queryable, now: Date): Promise<number> {
  const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MINUTES * MINUTE_MS);
  let total = 0;
  for (;;) {
    const { rowCount } = await q.query(
      `delete from console_sign_in_throttle where throttle_key = any (array(
         select throttle_key from console_sign_in_throttle
          where last_failure_at <= $1 and coalesce(blocked_until, '-infinity') <= $2 and coalesce(locked_until, '-infinity') <= $2 limit 1000))`,
      [windowStart, now],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < 1000) return total;
  }
}

// Which constraint refused a write, on PostgreSQL and on Citus alike. node-postgres gives
// PostgreSQL's constraint field; Citus re-raises a worker's error on the coordinator with its
// message and detail only, so the field is absent there, and the message names the shard's copy
// of the constraint: its name with the shard id appended (`idempotency_keys_pkey_102008`).
// Code that turns a violation into an answer (409, a replay, insufficient balance) asks here, so
// that the same race answers the same on a cluster instead of falling through to a 500.

/** Citus names a shard's objects after the table's, with `_<shard id>` appended (ids start at 102008). */
const SHARD_SUFFIX = /_[0-9]{6,}$/;
const CONSTRAINT_IN_MESSAGE = /constraint "([^"]+)"/;

/** The name of the constraint a database error reports (as the schema names it), or undefined. */
export function violatedConstraint(err: unknown): string | undefined {
  const e = err as { constraint?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.constraint === 'string') return e.constraint.replace(SHARD_SUFFIX, '');
  if (typeof e.message !== 'string') return undefined;
  return CONSTRAINT_IN_MESSAGE.exec(e.message)?.[1].replace(SHARD_SUFFIX, '');
}

/** Whether `err` is SQLSTATE `code` (23505 unique, 23514 check…) raised by `constraint`. */
export function isViolation(err: unknown, code: string, constraint: string): boolean {
  return (err as { code?: unknown } | null)?.code === code && violatedConstraint(err) === constraint;
}

/**
 * Error codes meaning "no database to talk to right now", not "this request is wrong": the server
 * refused or dropped the connection, is shutting down or starting, or is a standby that cannot
 * take a write (after a failover, or DATABASE_URL naming the wrong host). A request meeting one is
 * answered 503 with Retry-After (never 500), and whatever it did is not acknowledged: with an
 * idempotency key, its retry has exactly one effect.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  // admin_shutdown, crash_shutdown, cannot_connect_now; connection exceptions; read_only_sql_transaction.
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '25006',
  // db/primary-finder.ts: connected, but to a standby, where the pool wants the writable server.
  'ESTANDBY',
]);
/** What a 503 for an unavailable database asks the client to wait: a failover takes seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/** node-postgres says so in words only (no code): a connection lost, or not had in time. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)/;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined, depth = 0; e && typeof e === 'object' && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  }
  return false;
}

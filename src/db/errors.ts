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

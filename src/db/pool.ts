// The connection pool and the one way to run a transaction.
import pg from 'pg';

// bigint (int8) columns hold money in minor units (tambala) and counts; parse them as JS numbers.
// Every such value stays far below 2^53 (the largest balance allowed is 10^15 tambala), and the
// ledger's CHECK constraints guarantee it, so nothing is rounded.
pg.types.setTypeParser(20, (value) => Number(value));
// `date` columns are calendar dates: keep them as YYYY-MM-DD strings, never shift by time zone.
pg.types.setTypeParser(1082, (value) => value);

export type Db = pg.Pool;
/** Anything that can run a query: the pool, a client inside a transaction, or a command's own connection (the CLI's). */
export type Queryable = pg.Pool | pg.ClientBase;

/**
 * The transaction's now() as text (to the microsecond), to pass into a statement as a value: Citus
 * refuses a non-IMMUTABLE call inside CASE or COALESCE in an UPDATE's SET on a distributed table
 * ("non-IMMUTABLE functions are not allowed in CASE or COALESCE statements"). In a transaction it
 * is the value now() has in every statement of it.
 */
export async function transactionNow(q: Queryable): Promise<string> {
  return (await q.query<{ now: string }>('select now()::text as now')).rows[0].now;
}

export function createPool(connectionString: string, max: number): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Limits on everything: a query that takes longer than this is a bug or an attack.
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 60_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'onekhusa-sandbox',
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Statements to send with a transaction's COMMIT, in the same round trip: the simple protocol, so
 * they carry no parameters and every value in them is a literal escaped with the client's
 * escapeLiteral/escapeIdentifier. If one fails, the COMMIT after it never runs and the transaction
 * rolls back whole. Used for what must be the transaction's last write (the idempotency record).
 */
const atCommit = new WeakMap<pg.PoolClient, string[]>();

export function sendWithCommit(tx: pg.PoolClient, sql: string): void {
  const pending = atCommit.get(tx);
  if (pending) pending.push(sql);
  else atCommit.set(tx, [sql]);
}

/** COMMIT, with whatever sendWithCommit queued for this transaction, in one round trip. */
export async function commit(tx: pg.PoolClient): Promise<void> {
  const pending = atCommit.get(tx);
  atCommit.delete(tx);
  await tx.query(pending ? `${pending.join(';\n')};\ncommit` : 'commit');
}

/** Forgets what was queued for a transaction that will not commit (its client goes back to the pool). */
export function discardAtCommit(tx: pg.PoolClient): void {
  atCommit.delete(tx);
}

/**
 * Runs `fn` in one transaction. Everything a state change needs (ledger entries, outbox rows,
 * jobs, idempotency record) is written through the same client, so it commits or vanishes whole.
 */
export async function withTransaction<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await commit(client);
    return result;
  } catch (err) {
    discardAtCommit(client);
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * How a repository reads the row it finds: plainly, or locked until the transaction ends (`for
 * update`, the rows a state change is about to rewrite). Named, so a call says which it is.
 */
export interface FindOptions {
  lock?: 'for update';
}

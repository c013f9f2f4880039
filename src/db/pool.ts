// The connection pool and the one way to run a transaction.
import pg from 'pg';
import { isDatabaseUnavailable } from './errors.ts';
import { followingClient, PrimaryFinder } from './primary-finder.ts';
import { parseDatabaseHosts, type HostPort } from './hosts.ts';

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

/** Limits on everything: a query that takes longer than this is a bug or an attack. */
const STATEMENT_TIMEOUT_MS = 30_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

export interface PoolOptions {
  /**
   * `transaction`: the URL is a pooler in transaction mode (PgBouncer). Nothing may rely on the
   * session: no startup parameters (PgBouncer refuses them), no named prepared statements (the
   * next transaction may run on another server connection), timeouts set in each transaction.
   */
  pooler?: 'transaction';
  /** Told when the pool finds its writable server on another host (DATABASE_URL with several hosts). */
  onSwitch?: (message: string) => void;
}

/** Pools through a transaction pooler (beginSql sets their timeouts per transaction). */
const pooled = new WeakSet<pg.Pool>();
const finderOf = new WeakMap<pg.Pool, PrimaryFinder>();

/**
 * A pool on `connectionString`, which may name several hosts as libpq does
 * (postgres://h1,h2/db?target_session_attrs=read-write; db/hosts.ts): each new connection goes to
 * the host last found writable (PrimaryFinder), so after a failover the pool follows the new
 * primary without a restart, and connections that cannot be had fail fast (503 to a request).
 */
export function createPool(connectionString: string, max: number, options: PoolOptions = {}): Db {
  const target = parseDatabaseHosts(connectionString);
  const finder = new PrimaryFinder(target, options.onSwitch);
  const pool = new pg.Pool({
    max,
    ...(options.pooler ? {} : { statement_timeout: STATEMENT_TIMEOUT_MS, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS }),
    connectionTimeoutMillis: 10_000,
    application_name: 'onekhusa-sandbox',
    Client: followingClient(finder, { unnamedStatements: options.pooler === 'transaction' }),
    // pg-pool awaits a promise from onConnect (its types say void), and drops the client when it rejects.
    ...(target.targetSessionAttrs === 'read-write' ? { onConnect: (client: pg.ClientBase) => finder.refuseStandby(client as pg.Client) } : {}),
  });
  if (options.pooler) pooled.add(pool);
  finderOf.set(pool, finder);
  const end = pool.end.bind(pool);
  pool.end = (() => {
    finder.stop();
    return end();
  }) as typeof pool.end;
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The host a pool's new connections go to now (the writable one, after a failover). */
export function currentHost(db: Db): HostPort | undefined {
  return finderOf.get(db)?.current();
}

/**
 * The statement that opens a transaction on this pool: `head` (begin, with its isolation level),
 * and, through a transaction pooler, the timeouts the session cannot carry (SET LOCAL ends with
 * the transaction, so nothing is left on the server connection for the next client).
 */
export function beginSql(db: Db, head = 'begin'): string {
  if (!pooled.has(db)) return head;
  return `${head}; set local statement_timeout = ${STATEMENT_TIMEOUT_MS}; set local idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_TIMEOUT_MS}`;
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
    await client.query(beginSql(db));
    const result = await fn(client);
    await commit(client);
    client.release();
    return result;
  } catch (err) {
    discardAtCommit(client);
    // A connection that failed (the server went away, or turned out read-only) is not kept.
    if (isDatabaseUnavailable(err)) {
      client.release(true);
      throw err;
    }
    await client.query('rollback').catch(() => undefined);
    client.release();
    throw err;
  }
}

/**
 * How a repository reads the row it finds: plainly, or locked until the transaction ends (`for
 * update`, the rows a state change is about to rewrite). Named, so a call says which it is.
 */
export interface FindOptions {
  lock?: 'for update';
}

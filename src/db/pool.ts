// The connection pool and the one way to run a transaction.
import pg from 'pg';

// bigint (int8) columns hold money in minor units (tambala) and counts; parse them as JS numbers.
// Every such value stays far below 2^53 (the largest balance allowed is 10^15 tambala), and the
// ledger's CHECK constraints guarantee it, so nothing is rounded.
pg.types.setTypeParser(20, (value) => Number(value));
// `date` columns are calendar dates: keep them as YYYY-MM-DD strings, never shift by time zone.
pg.types.setTypeParser(1082, (value) => value);

export type Db = pg.Pool;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

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
 * Runs `fn` in one transaction. Everything a state change needs (ledger entries, outbox rows,
 * jobs, idempotency record) is written through the same client, so it commits or vanishes whole.
 */
export async function withTransaction<T>(db: Db, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

// Databases of a run: the admin connection that creates and drops each part's own database, the
// stale ones of interrupted runs, the Deps the bench passes to the service's functions, and
// waiting out autovacuum.
import pg from 'pg';
import { pino } from 'pino';
import type { Config } from '../../src/config.ts';
import { citusNodes, createCitusDatabase, dropCitusDatabase } from '../../src/db/citus-cluster.ts';
import type { Db } from '../../src/db/pool.ts';
import { systemClock, type Deps } from '../../src/http/types.ts';
import { log, sleep } from './common.ts';

/** `url` naming database `name` instead. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One statement on its own connection (create / drop database cannot run in a pool's transaction). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** BENCH_CITUS_WORKERS (host:port,…): each database is made on a Citus cluster, DATABASE_URL its coordinator. */
const CITUS_WORKERS = citusNodes(process.env.BENCH_CITUS_WORKERS);

/**
 * A new database named for its birth time (onekhusa_bench_<ms>), and its URL: empty, or on a Citus
 * cluster (BENCH_CITUS_WORKERS) migrated and distributed with Citus's default 32 shards a table.
 */
export async function createDatabase(adminUrl: string): Promise<{ name: string; url: string }> {
  const name = `onekhusa_bench_${Date.now()}`;
  if (CITUS_WORKERS) await createCitusDatabase(adminUrl, name, CITUS_WORKERS, { shardCount: 32 });
  else await adminQuery(adminUrl, `create database ${name}`);
  return { name, url: withDatabase(adminUrl, name) };
}

/**
 * Drops a database createDatabase made; a failure is logged, not thrown. `label` prefixes the log
 * line. BENCH_KEEP_DATABASE=1 keeps it (its URL logged) to read a query's plan on the loaded data
 * with EXPLAIN; the next run's dropStaleDatabases removes it once it is an hour old.
 */
export async function dropDatabase(adminUrl: string, name: string, label = ''): Promise<void> {
  if (process.env.BENCH_KEEP_DATABASE === '1') {
    log(`${label}database ${name} kept (BENCH_KEEP_DATABASE=1): ${withDatabase(adminUrl, name)}`);
    return;
  }
  const dropping = CITUS_WORKERS ? dropCitusDatabase(adminUrl, name, CITUS_WORKERS) : adminQuery(adminUrl, `drop database if exists ${name} with (force)`);
  await dropping.then(
    () => log(`${label}database ${name} dropped`),
    (err: Error) => log(`${label}dropping ${name} failed: ${err.message}`),
  );
}

/** Databases of interrupted runs (names carry their birth time) at least an hour old. */
export async function dropStaleDatabases(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname ~ '^onekhusa_bench_[0-9]+$'`);
    const hourAgoMs = Date.now() - 3_600_000;
    for (const { datname } of rows) {
      if (Number(datname.slice('onekhusa_bench_'.length)) >= hourAgoMs) continue;
      await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
      log(`dropped ${datname}, left behind by an interrupted run`);
    }
  } finally {
    await client.end();
  }
}

/** The Deps the service's functions take, silent; without JWT_SECRET (parts whose tokens the service signs) a dummy key. */
export function benchDeps(db: Db, config: Config): Deps {
  return { db, config, clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : new Uint8Array(32) };
}

/** Waits (at most 30 s) until no autovacuum worker runs on the server. */
export async function autovacuumDone(db: Db): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where backend_type = 'autovacuum worker'`);
    if (rows[0].n === 0) return;
    await sleep(100);
  }
}

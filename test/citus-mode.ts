// The test suite on a Citus cluster (docs/scaling.md, "Running the tests on Citus"): with
// DATABASE_URL naming a Citus coordinator's database and TEST_CITUS_WORKERS its workers
// (host:port,…), each test file's database is made on every node with the citus extension, the
// workers are added, the migrations run and `db distribute` distributes it (8 shards a table, not
// Citus's 32: a test database is small, and every shard is a table on a worker). Off unless
// TEST_CITUS_WORKERS is set; Citus is not a dependency of the project (it is built apart).
import pg from 'pg';
import { distribute } from '../src/db/distribute.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { migrateQueue } from '../src/jobs/queue.ts';

const SHARDS_PER_TABLE = 8;

/** The workers to put each test database on, or undefined outside Citus mode. */
export function citusWorkers(): { host: string; port: number }[] | undefined {
  const list = process.env.TEST_CITUS_WORKERS;
  if (!list) return undefined;
  return list.split(',').map((w) => {
    const [host, port] = w.trim().split(':');
    return { host, port: Number(port) };
  });
}

function on(url: string, host: string, port: number, database: string): string {
  const u = new URL(url);
  u.hostname = host;
  u.port = String(port);
  u.pathname = `/${database}`;
  return u.toString();
}

async function run(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

/** Makes `name` on the coordinator of `adminUrl` and on every worker, migrated and distributed. */
export async function createCitusDatabase(adminUrl: string, name: string, workers: { host: string; port: number }[]): Promise<void> {
  const coordinator = new URL(adminUrl);
  const nodes = [{ host: coordinator.hostname, port: Number(coordinator.port || 5432) }, ...workers];
  for (const n of nodes) {
    await run(on(adminUrl, n.host, n.port, coordinator.pathname.slice(1) || 'postgres'), [`create database ${name}`]);
    await run(on(adminUrl, n.host, n.port, name), ['create extension citus']);
  }
  const url = on(adminUrl, nodes[0].host, nodes[0].port, name);
  await run(url, [
    `select citus_set_coordinator_host('${nodes[0].host}', ${nodes[0].port})`,
    ...workers.map((w) => `select citus_add_node('${w.host}', ${w.port})`),
  ]);
  const db = createPool(url, 2);
  try {
    await migrate(db);
    await migrateQueue(db);
    const client = await db.connect();
    try {
      await client.query(`set citus.shard_count = ${SHARDS_PER_TABLE}`);
      await distribute(client);
    } finally {
      client.release();
    }
  } finally {
    await db.end();
  }
}

/** Drops `name` on the coordinator and on every worker. */
export async function dropCitusDatabase(adminUrl: string, name: string, workers: { host: string; port: number }[]): Promise<void> {
  const coordinator = new URL(adminUrl);
  for (const n of [{ host: coordinator.hostname, port: Number(coordinator.port || 5432) }, ...workers]) {
    await run(on(adminUrl, n.host, n.port, coordinator.pathname.slice(1) || 'postgres'), [`drop database if exists ${name} with (force)`]).catch(() => undefined);
  }
}

// A database on a Citus cluster, for the test suite (test/citus-mode.ts) and the benchmarks
// (BENCH_CITUS_WORKERS): made on the coordinator and on every worker with the citus extension, the
// workers added, migrated, and distributed as `npm run cli -- db distribute` does. Not used by the
// service: an operator's cluster is made by the operator (docs/scaling.md, "Distributing").
import pg from 'pg';
import { migrateQueue } from '../jobs/queue.ts';
import { distribute } from './distribute.ts';
import { migrate } from './migrate.ts';
import { createPool } from './pool.ts';

export interface CitusNode {
  host: string;
  port: number;
}

/** A list `host:port,host:port` (an environment variable's), or undefined when it is unset or empty. */
export function citusNodes(list: string | undefined): CitusNode[] | undefined {
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

/** The coordinator (adminUrl's server) first, then the workers; and the database adminUrl names (to create others from). */
function nodesOf(adminUrl: string, workers: CitusNode[]): { nodes: CitusNode[]; adminDatabase: string } {
  const coordinator = new URL(adminUrl);
  return { nodes: [{ host: coordinator.hostname, port: Number(coordinator.port || 5432) }, ...workers], adminDatabase: coordinator.pathname.slice(1) || 'postgres' };
}

/** Makes `name` on the coordinator of `adminUrl` and on every worker, migrated and distributed (`db distribute`). */
export async function createCitusDatabase(adminUrl: string, name: string, workers: CitusNode[], options: { shardCount: number }): Promise<void> {
  const { nodes, adminDatabase } = nodesOf(adminUrl, workers);
  for (const n of nodes) {
    await run(on(adminUrl, n.host, n.port, adminDatabase), [`create database ${name}`]);
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
      await client.query(`set citus.shard_count = ${Number(options.shardCount)}`);
      await distribute(client);
    } finally {
      client.release();
    }
  } finally {
    await db.end();
  }
}

/** Drops `name` on the coordinator and on every worker. */
export async function dropCitusDatabase(adminUrl: string, name: string, workers: CitusNode[]): Promise<void> {
  const { nodes, adminDatabase } = nodesOf(adminUrl, workers);
  for (const n of nodes) {
    await run(on(adminUrl, n.host, n.port, adminDatabase), [`drop database if exists ${name} with (force)`]).catch(() => undefined);
  }
}

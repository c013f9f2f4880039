// Forward-only numbered SQL migrations (migrations/0001_name.sql …), applied at start.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './pool.ts';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
// Any fixed number works; it only has to be the same in every process of this service.
const MIGRATION_LOCK_ID = 7_204_118_301;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const migrations = fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file.slice(5, -4), sql: fs.readFileSync(path.join(dir, file), 'utf8') }));
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration numbers must be 1, 2, 3 … without gaps; found ${m.version} at position ${i + 1}`);
  });
  return migrations;
}

/**
 * Applies every migration not yet applied, each in its own transaction. A session-level advisory
 * lock serialises processes that start together: the second waits, then finds nothing to do.
 * Returns the versions it applied.
 */
export async function migrate(db: Db, migrations = readMigrations()): Promise<number[]> {
  const client = await db.connect();
  const applied: number[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(`create table if not exists schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const { rows } = await client.query<{ version: number }>('select version from schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const latest = Math.max(0, ...done);
    if (latest > migrations.length) {
      throw new Error(`database is at migration ${latest}, newer than this code knows (${migrations.length}); refusing to run an older release against it`);
    }
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('begin');
      try {
        await client.query(m.sql);
        await client.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
        await client.query('commit');
        applied.push(m.version);
      } catch (err) {
        await client.query('rollback');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    client.release();
  }
  return applied;
}

export async function migrationsComplete(db: Db, expected = readMigrations().length): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from schema_migrations');
  return rows[0].n >= expected;
}

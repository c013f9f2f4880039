// Migrations: forward-only, applied once, safe when several processes start together.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrationsComplete, readMigrations } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createTestDatabase } from '../helpers.ts';
import pg from 'pg';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let emptyUrl: string;
const pools: Db[] = [];

beforeAll(async () => {
  // createTestDatabase clones the migrated template; these tests need an empty database.
  database = await createTestDatabase();
  const u = new URL(database.url);
  const empty = `${u.pathname.slice(1)}_empty`;
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`create database ${empty}`);
  await admin.end();
  u.pathname = `/${empty}`;
  emptyUrl = u.toString();
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`drop database if exists ${new URL(emptyUrl).pathname.slice(1)} with (force)`);
  await admin.end();
  await database.drop();
});

describe('migrate', () => {
  it('applies every migration exactly once when four processes start at the same moment', async () => {
    for (let i = 0; i < 4; i++) pools.push(createPool(emptyUrl, 2));
    const applied = await Promise.all(pools.map((p) => migrate(p)));
    const all = applied.flat().sort((a, b) => a - b);
    expect(all).toEqual(readMigrations().map((m) => m.version));
    expect(await migrationsComplete(pools[0])).toBe(true);
    // A later start finds nothing to do.
    expect(await migrate(pools[0])).toEqual([]);
  });

  it('refuses to run against a database newer than the code', async () => {
    const next = readMigrations().length + 1;
    await pools[0].query(`insert into schema_migrations (version, name) values ($1, 'from_the_future')`, [next]);
    await expect(migrate(pools[0])).rejects.toThrow(/newer than this code/);
    await pools[0].query('delete from schema_migrations where version = $1', [next]);
  });

  it('rolls a failing migration back whole', async () => {
    const broken = [...readMigrations(), { version: readMigrations().length + 1, name: 'broken', sql: 'create table half_done (id int); select 1/0;' }];
    await expect(migrate(pools[0], broken)).rejects.toThrow(/broken failed/);
    const { rowCount } = await pools[0].query(`select 1 from pg_tables where tablename = 'half_done'`);
    expect(rowCount).toBe(0);
  });
});

// A database migrated only up to a version, for the tests of a later migration on data written the
// way earlier releases wrote it. Test databases are clones of the fully migrated template, so this
// one is made empty beside one of them, on the same server, and dropped with it.
import pg from 'pg';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createTestDatabase } from '../helpers.ts';

export interface PartlyMigrated {
  url: string;
  db: Db;
  /** Closes the pool and drops the database (and the test database it was made beside). */
  drop(): Promise<void>;
}

export async function databaseMigratedTo(version: number, options: { poolSize?: number } = {}): Promise<PartlyMigrated> {
  const beside = await createTestDatabase();
  const u = new URL(beside.url);
  const name = `${u.pathname.slice(1)}_to_${version}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: beside.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  u.pathname = `/${name}`;
  const db = createPool(u.toString(), options.poolSize ?? 2);
  await migrate(db, readMigrations().filter((m) => m.version <= version));
  return {
    url: u.toString(),
    db,
    drop: async () => {
      await db.end();
      await admin(`drop database if exists ${name} with (force)`);
      await beside.drop();
    },
  };
}

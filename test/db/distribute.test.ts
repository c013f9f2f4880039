// `npm run cli -- db distribute` (issue 28) where it must refuse: a PostgreSQL without the citus
// extension loaded (every test server), before changing anything, with a sentence that says what to do.
// On a real Citus cluster the command is run by hand (docs/scaling.md, "Measured on Citus"): Citus is
// not in Debian's packages, so `npm test` cannot start one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../src/db/pool.ts';
import { distribute, DistributionRefused, LOCAL_TABLES, OWN_DISTRIBUTION, REFERENCE_TABLES } from '../../src/db/distribute.ts';
import { createTestDatabase, runCli } from '../helpers.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createPool(database.url, 2);
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe('db distribute', () => {
  it('refuses on a PostgreSQL without the citus extension, changing nothing', async () => {
    const extensionsBefore = (await db.query('select extname from pg_extension order by 1')).rows;
    const res = await runCli(['db', 'distribute'], { DATABASE_URL: database.url });
    expect(res.code, res.stderr).toBe(1);
    // Either the server has no citus at all (the embedded one), or has it installed but not loaded.
    expect(res.stderr).toMatch(/no citus extension: db distribute runs on a Citus coordinator|citus is installed but not loaded: add it first to shared_preload_libraries/);
    expect(res.stdout).toBe('');
    expect((await db.query('select extname from pg_extension order by 1')).rows).toEqual(extensionsBefore);
    await expect(distribute(db)).rejects.toBeInstanceOf(DistributionRefused);
  });

  it('knows every table of the schema: merchant-owned, a reference table or kept local', async () => {
    const { rows } = await db.query<{ table: string; merchant_owned: boolean }>(
      `select c.relname as table, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'merchant_account_number' and not a.attisdropped) as merchant_owned
         from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p')`,
    );
    const listed = new Set<string>([...REFERENCE_TABLES, ...LOCAL_TABLES]);
    expect(rows.filter((r) => !r.merchant_owned && !listed.has(r.table)).map((r) => r.table)).toEqual([]);
    // A listed name that no longer exists is a stale entry.
    const tables = new Set(rows.map((r) => r.table));
    expect([...listed].filter((name) => !tables.has(name))).toEqual([]);
    // A table distributed by its own column (a claims table) exists and has that column.
    for (const [table, column] of Object.entries(OWN_DISTRIBUTION)) {
      const { rowCount } = await db.query(`select 1 from pg_attribute where attrelid = to_regclass($1) and attname = $2 and not attisdropped`, [table, column]);
      expect(rowCount, `${table}.${column}`).toBe(1);
    }
  });

  it('has no foreign key that sets null or a default on delete: Citus refuses them on distributed tables', async () => {
    // Measured on Citus 13.2 when db distribute added the keys back (migration 0034 removed the last one).
    const { rows } = await db.query<{ key: string }>(
      `select c.conrelid::regclass || '.' || c.conname as key
         from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = 'public' and c.contype = 'f' and c.confdeltype in ('n', 'd')`,
    );
    expect(rows.map((r) => r.key)).toEqual([]);
  });

  it('is in the CLI\'s help', async () => {
    const res = await runCli(['help']);
    expect(res.stdout).toContain('db distribute');
  });
});

// Distribution by merchant (docs/scaling.md, "Beyond the catalog"): triggers. Citus refused to
// distribute ledger_entries and merchant_status_changes, and to make connectors a reference table,
// because they have triggers (issue 28, Citus 13.2). So a table of schema public (merchant-owned,
// to be distributed, or shared, to be a reference table) has no trigger of its own, or it is on
// KNOWN_TRIGGERS with its reason and plan. Constraint triggers that PostgreSQL makes for foreign
// keys (internal) are not counted; graphile_worker's schema stays on the coordinator.
//
// The test fails on a trigger not listed (drop it, or list it with a reason) and on a listed one
// that is gone (whoever removes a trigger deletes its entry here). Identity columns and the other
// catalog rules are test/db/citus-catalog.test.ts; the queries are test/db/citus-queries.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createTestDatabase } from '../helpers.ts';

/** `table.trigger` → why it is still there, and the plan. */
const KNOWN_TRIGGERS: Record<string, string> = {
  'ledger_entries.ledger_entries_no_update':
    'entries are immutable (migration 0001): plan: revoke UPDATE/DELETE on the table from the application role instead, or run Citus with triggers on shards (citus.enable_unsafe_triggers) where the trigger only refuses',
  'ledger_entries.ledger_entries_no_truncate': 'entries are immutable (migration 0001), TRUNCATE included: the same plan as ledger_entries_no_update',
  'merchant_status_changes.merchant_status_changes_no_update':
    'the status history is immutable (migration 0010): plan: revoke UPDATE/DELETE from the application role, as for ledger_entries',
  'connectors.connectors_alias_canonical':
    'an alias must point at a canonical connector (migration 0010): plan: a check the operator command makes (connectors change by operators only), or a constraint on a self-reference; the reference table cannot keep the trigger',
};

let db: Db;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = createPool(database.url, 2);
});

afterAll(async () => {
  await db?.end();
  await drop?.();
});

async function triggers(): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select c.relname || '.' || t.tgname as id
       from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and not t.tgisinternal and c.relname <> 'schema_migrations'
      order by 1`,
  );
  return rows.map((r) => r.id);
}

describe('catalog: no triggers on tables to distribute (Citus)', () => {
  it('every trigger of schema public is on KNOWN_TRIGGERS, and every entry there still exists', async () => {
    const found = await triggers();
    const lines = [
      ...found.filter((id) => !(id in KNOWN_TRIGGERS)).map((id) => `NEW  trigger ${id}: Citus refuses to distribute a table with triggers. Do it without the trigger (a constraint, a grant, the application), or add '${id}' to KNOWN_TRIGGERS in test/db/citus-triggers.test.ts with the reason and the plan.`),
      ...Object.keys(KNOWN_TRIGGERS).filter((id) => !found.includes(id)).map((id) => `GONE trigger ${id} is on KNOWN_TRIGGERS but no longer exists: delete its entry from KNOWN_TRIGGERS in test/db/citus-triggers.test.ts.`),
    ];
    expect(lines, `\n${lines.join('\n')}\n`).toEqual([]);
  });

  it('catches a trigger a migration might add (created here, in this file\'s own database, then dropped)', async () => {
    await db.query(`
      create table zz_owned (merchant_account_number integer not null, n integer, primary key (merchant_account_number));
      create function zz_touch() returns trigger language plpgsql as $$ begin return new; end $$;
      create trigger zz_owned_touch before update on zz_owned for each row execute function zz_touch();`);
    try {
      expect(await triggers()).toContain('zz_owned.zz_owned_touch');
    } finally {
      await db.query('drop table if exists zz_owned; drop function if exists zz_touch()');
    }
  });

  it('every entry says why', () => {
    expect(Object.entries(KNOWN_TRIGGERS).filter(([, reason]) => reason.trim().length < 20).map(([id]) => id)).toEqual([]);
  });
});

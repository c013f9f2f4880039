// Distribution by merchant on Citus (docs/scaling.md §4): `npm run cli -- db distribute`.
//
// Every table of schema public with a merchant_account_number column is distributed on it, all
// co-located with `merchants` (so one merchant's rows of every table sit on one node, and a request
// naming a merchant is a single-shard transaction); the shared tables are reference tables (a copy
// on every node); the few that are neither stay local to the coordinator (LOCAL_TABLES), as does
// graphile_worker's schema, the job queue. Tables are taken in foreign-key order (a table is
// distributed after the tables it references), and Citus moves a table's existing rows as it
// distributes it, so this works on an empty database and on one that holds data.
//
// Idempotent: a table Citus already knows (pg_dist_partition) is left as it is, so a run stopped
// by an error goes on from there once the cause is fixed. Refuses, before changing anything, where
// the citus extension cannot be had, and names the first table Citus refuses with Citus's reason.
// The claims tables of OWN_DISTRIBUTION are distributed by their claimed value, not co-located.
import type { Queryable } from './pool.ts';

/** Shared and small: copied to every node (docs/scaling.md "Reference tables"). */
export const REFERENCE_TABLES = [
  'connectors',
  'transaction_types',
  'limit_defaults',
  'fee_schedules',
  'roles',
  'merchant_status_reasons',
  'organisations',
  'settings',
  'rail_reconciliations',
  // Claims (docs/scaling.md group C, migration 0031): a value unique across merchants → its merchant.
  'payment_account_claims',
  'funding_claims',
  'invitation_claims',
] as const;

/** Neither merchant-owned nor shared: kept on the coordinator (docs/scaling.md, group E). */
export const LOCAL_TABLES = ['schema_migrations', 'rate_limit_windows', 'console_sign_in_throttle', 'rail_refused_messages', 'operator_email_outbox'] as const;

/**
 * Distributed by a column of their own, each in a co-location group of its own: claims tables keyed
 * by a value unique across merchants and written on a hot path (docs/scaling.md, group C). Their
 * merchant_account_number is data (the claim's owner), not their distribution column.
 */
export const OWN_DISTRIBUTION: Readonly<Record<string, string>> = {
  timed_account_claims: 'timed_account_number',
  ptid_claims: 'payment_transaction_id',
};

/** The distribution column, and the table every merchant-owned table is co-located with. */
export const DISTRIBUTION_COLUMN = 'merchant_account_number';
const COLOCATION_ANCHOR = 'merchants';

export type TableFate = 'reference' | 'distributed' | 'local';

export interface DistributedTable {
  table: string;
  fate: TableFate;
  /** What this run did: made it so, or found it so. */
  action: 'created' | 'already' | 'kept local';
}

export class DistributionRefused extends Error {}

/** The citus extension in this database, created if the server has it preloaded; refused clearly otherwise. */
async function ensureCitus(db: Queryable): Promise<void> {
  const available = await db.query(`select 1 from pg_available_extensions where name = 'citus'`);
  if (available.rowCount === 0) {
    throw new DistributionRefused(
      'this PostgreSQL has no citus extension: db distribute runs on a Citus coordinator (a plain PostgreSQL needs no distribution; see docs/scaling.md)',
    );
  }
  const installed = await db.query(`select 1 from pg_extension where extname = 'citus'`);
  if (installed.rowCount === 0) {
    const preload = await db.query<{ setting: string }>(`select setting from pg_settings where name = 'shared_preload_libraries'`);
    if (!/(^|,)\s*citus\s*(,|$)/.test(preload.rows[0]?.setting ?? '')) {
      throw new DistributionRefused('citus is installed but not loaded: add it first to shared_preload_libraries (postgresql.conf) and restart PostgreSQL');
    }
    await db.query('create extension citus');
  }
  const workers = await db.query(`select count(*)::int as n from pg_dist_node where noderole = 'primary' and groupid <> 0`);
  if (Number((workers.rows[0] as { n: number }).n) === 0) {
    throw new DistributionRefused('the citus extension is created, but the coordinator knows no worker: add them (select citus_add_node(host, port)) and run db distribute again');
  }
}

/** Every table of schema public, its fate, in an order where a table comes after those it references. */
async function tablesInOrder(db: Queryable): Promise<Array<{ table: string; fate: TableFate }>> {
  const { rows } = await db.query<{ table: string; merchant_owned: boolean; references: string[] }>(
    `select c.relname as table,
            exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = $1 and not a.attisdropped) as merchant_owned,
            coalesce(array(select distinct r.relname::text from pg_constraint f join pg_class r on r.oid = f.confrelid
                            where f.conrelid = c.oid and f.contype = 'f' and f.confrelid <> c.oid), '{}') as references
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname`,
    [DISTRIBUTION_COLUMN],
  );
  const fateOf = (r: (typeof rows)[number]): TableFate =>
    (REFERENCE_TABLES as readonly string[]).includes(r.table)
      ? 'reference'
      : r.table in OWN_DISTRIBUTION || (r.merchant_owned && !(LOCAL_TABLES as readonly string[]).includes(r.table))
        ? 'distributed'
        : 'local';
  const unlisted = rows.filter((r) => !r.merchant_owned && fateOf(r) === 'local' && !(LOCAL_TABLES as readonly string[]).includes(r.table));
  if (unlisted.length > 0) {
    throw new DistributionRefused(`tables neither merchant-owned nor listed (src/db/distribute.ts REFERENCE_TABLES, LOCAL_TABLES or OWN_DISTRIBUTION): ${unlisted.map((r) => r.table).join(', ')}`);
  }
  // Depth-first on references: reference tables before the tables pointing at them, merchants first.
  const byName = new Map(rows.map((r) => [r.table, r]));
  const ordered: Array<{ table: string; fate: TableFate }> = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    const row = byName.get(name);
    if (!row || seen.has(name)) return;
    seen.add(name);
    for (const referenced of row.references) visit(referenced);
    ordered.push({ table: name, fate: fateOf(row) });
  };
  for (const name of [...REFERENCE_TABLES, COLOCATION_ANCHOR, ...rows.map((r) => r.table)]) visit(name);
  return ordered;
}

/** Distributes what is not yet; returns each table's fate and what was done. */
/**
 * Where the foreign keys wait while tables are distributed: outside schema public (so not a table
 * of the service), written before any key is dropped, so a run stopped half-way puts them back on
 * the next run.
 */
const PARKING = 'onekhusa_distribution.parked_foreign_keys';

/**
 * Citus turns a plain table that references a new reference table into a "Citus local" table, and
 * then refuses to distribute a table such local tables reference (merchants, referenced by every
 * merchant-owned table). So the public schema's foreign keys are recorded and dropped first, the
 * tables distributed, and the keys added back, which Citus then checks and enforces on every node.
 */
async function parkForeignKeys(db: Queryable): Promise<void> {
  await db.query('create schema if not exists onekhusa_distribution');
  await db.query(`create table if not exists ${PARKING} (table_name text not null, constraint_name text not null, definition text not null, primary key (table_name, constraint_name))`);
  await db.query(
    `insert into ${PARKING}
     select c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
       from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
      where c.contype = 'f' and n.nspname = 'public'
     on conflict do nothing`,
  );
  for (const key of await parkedKeys(db, { present: true })) await db.query(`alter table ${key.table_name} drop constraint ${quoteIdent(key.constraint_name)}`);
}

/** The parked keys still on their tables (present) or not (absent). */
async function parkedKeys(db: Queryable, which: { present: boolean }): Promise<Array<{ table_name: string; constraint_name: string; definition: string }>> {
  const { rows } = await db.query<{ table_name: string; constraint_name: string; definition: string }>(
    `select p.table_name, p.constraint_name, p.definition from ${PARKING} p
      where ${which.present ? '' : 'not '}exists (select 1 from pg_constraint c where c.conrelid = p.table_name::regclass and c.conname = p.constraint_name)
      order by p.table_name, p.constraint_name`,
  );
  return rows;
}

async function restoreForeignKeys(db: Queryable): Promise<void> {
  for (const key of await parkedKeys(db, { present: false })) {
    await db.query(`alter table ${key.table_name} add constraint ${quoteIdent(key.constraint_name)} ${key.definition}`);
  }
  await db.query('drop schema onekhusa_distribution cascade');
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Distributes what is not yet; returns each table's fate and what was done. */
export async function distribute(db: Queryable): Promise<DistributedTable[]> {
  await ensureCitus(db);
  // Citus refuses to distribute a table with triggers unless told the triggers are safe on its
  // shards: a trigger runs on the node that holds the row, so it may only raise or read the row's
  // own shard group or a reference table. Ours are (test/db/citus-triggers.test.ts keeps the list):
  // the ledger's and status history's immutability guards only raise, and the connectors' alias
  // rule reads connectors, a reference table. For this session only.
  await db.query('set citus.enable_unsafe_triggers = on');
  const known = new Set((await db.query<{ table: string }>(`select table_name::text as table from citus_tables`)).rows.map((r) => r.table));
  const tables = await tablesInOrder(db);
  await parkForeignKeys(db);
  const done: DistributedTable[] = [];
  for (const { table, fate } of tables) {
    if (fate === 'local' || known.has(table)) {
      done.push({ table, fate, action: fate === 'local' ? 'kept local' : 'already' });
      continue;
    }
    try {
      if (fate === 'reference') await db.query('select create_reference_table($1)', [table]);
      else if (table in OWN_DISTRIBUTION) await db.query(`select create_distributed_table($1, $2, colocate_with => 'none')`, [table, OWN_DISTRIBUTION[table]]);
      else if (table === COLOCATION_ANCHOR) await db.query('select create_distributed_table($1, $2)', [table, DISTRIBUTION_COLUMN]);
      else await db.query('select create_distributed_table($1, $2, colocate_with => $3)', [table, DISTRIBUTION_COLUMN, COLOCATION_ANCHOR]);
    } catch (err) {
      throw refusal(err, `${fate === 'reference' ? 'to copy' : 'to distribute'} ${table}`, done);
    }
    done.push({ table, fate, action: 'created' });
  }
  try {
    await restoreForeignKeys(db);
  } catch (err) {
    throw refusal(err, 'to add back a foreign key', done);
  }
  return done;
}

function refusal(err: unknown, what: string, done: DistributedTable[]): DistributionRefused {
  const e = err as { message: string; detail?: string; hint?: string };
  return new DistributionRefused(
    `Citus refused ${what}: ${e.message}${e.detail ? ` (${e.detail})` : ''}${e.hint ? ` Hint: ${e.hint}` : ''}. ` +
      `${done.filter((d) => d.action === 'created').length} tables were distributed before it and stay so (foreign keys wait in ${PARKING}); fix the cause and run db distribute again.`,
  );
}

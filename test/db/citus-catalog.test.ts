// Distribution by merchant (docs/scaling.md): the catalog, after every migration, against the
// rules a Citus cluster distributed on merchant_account_number needs. Tables in schema `public`
// only: graphile_worker's own schema (the job queue) is the library's and stays on the
// coordinator, so it is not checked here.
//
// A table is merchant-owned when it has a merchant_account_number column. For those:
//   - merchant_account_number is NOT NULL (Citus refuses a row with NULL in the distribution column);
//   - the primary key includes merchant_account_number;
//   - every unique constraint, exclusion constraint and unique index includes it (as a plain column);
//   - every foreign key to another merchant-owned table pairs merchant_account_number with
//     merchant_account_number (co-located tables may only reference each other through it).
// Any other table is on REFERENCE_TABLES (small, shared, copied to every node) or, with a reason,
// on KNOWN_VIOLATIONS. A table that is not merchant-owned must not reference a merchant-owned one
// (a reference table cannot point into a distributed table).
// Everywhere: a key column filled from a sequence (identity, serial, nextval default) and a sequence
// no column owns are global sequences: one counter every node would have to ask. Except a bigint
// key column of a merchant-owned table (whose keys all include merchant_account_number, as the rules
// above make them): Citus draws such a sequence on each node from a range of the node's own (its
// group id in the top 16 bits; measured on Citus 13.2: a row inserted on a worker got 2^48 + 1),
// so no node asks another. An integer sequence has no room for ranges: Citus draws it on the
// coordinator only.
//
// KNOWN_VIOLATIONS lists what breaks these rules today, each with its reason and plan. The test
// fails on a violation that is not on it (a new table or constraint: fix it, or list it with a
// reason) and on an entry that is no longer a violation (the fix landed: delete the entry), so the
// list in docs/scaling.md stays true.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWN_DISTRIBUTION as SRC_OWN_DISTRIBUTION } from '../../src/db/distribute.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createTestDatabase } from '../helpers.ts';

const DIST = 'merchant_account_number';

/** Not merchant-owned, and meant to become Citus reference tables: small, rarely written, read with merchant rows. */
const REFERENCE_TABLES: Record<string, string> = {
  connectors: 'banks and wallets (14 rows, aliases included); joined by collections, payouts and settlement accounts of every merchant; changed by operators only',
  transaction_types: 'the four transaction codes (MMW, MBA, BAM, RTP); foreign-key target of limits, collections and daily totals',
  limit_defaults: 'one row per transaction code and currency; copied into a merchant\'s limits when it is created',
  fee_schedules: 'one row per transaction code and currency; read inside every money transaction to price it',
  roles: 'the five merchant user roles; foreign-key target of merchant_users',
  merchant_status_reasons: 'the eight documented reasons of a merchant status change; foreign-key target of merchant_status_changes',
  organisations: 'one row per customer organisation, written when an operator creates one (rare); merchants reference it. Grows with customers, not with traffic',
  settings: 'a handful of keys (the generated JWT secret); read at start-up by every process',
  rail_reconciliations:
    'one row per rail and day (the daily job) and per operator request: a few rows a day; rail_exceptions of every merchant reference their runs',
  // Claims (migration 0031): a value unique across merchants → its merchant (owner_merchant_account_number,
  // so not merchant-owned), written in the transaction of the row it claims; never released.
  payment_account_claims:
    'payment account number → merchant: customers pay into the number without naming the merchant (E11, a rail\'s ACCOUNT_ID party); one row per merchant, written when it is created; merchants reference their claim',
  funding_claims:
    'bank reference → merchant and funding: one bank receipt funds one merchant once, even across merchants; one row per operator funding (rare)',
  invitation_claims:
    'invitation token hash → merchant and invitation: the set-password link carries the token alone; one row per invitation sent (users are invited by hand, rare)',
};

/**
 * Distributed by a column of their own, each in a co-location group of its own (src/db/distribute.ts
 * OWN_DISTRIBUTION): claims tables keyed by a value unique across merchants and written on a hot path
 * (docs/scaling.md, group C). Their merchant_account_number is the claim's owner, not the distribution
 * column: the rules of a distributed table (NOT NULL, primary key and unique keys include the
 * column) hold for their own column, and no foreign key joins them to another table.
 */
const OWN_DISTRIBUTION: Record<string, { column: string; reason: string }> = {
  timed_account_claims: {
    column: 'timed_account_number',
    reason: 'a timed account number names one open request across all merchants (the customer pays into it without naming the merchant); claimed by every E12, so distributed by the number rather than copied to every node',
  },
  ptid_claims: {
    column: 'payment_transaction_id',
    reason: 'the hosted checkout link carries only the ptid, which must find one request across all merchants; claimed by every checkout E12, so distributed by the ptid rather than copied to every node',
  },
};

/**
 * What breaks the rules today, by `table.object` (constraint, index, column) or a bare name (a
 * table that is neither merchant-owned nor a reference table, a sequence no column owns).
 */
const KNOWN_VIOLATIONS: Record<string, string> = {
  // Tables that are neither merchant-owned nor reference tables.
  schema_migrations: 'migration bookkeeping, written by DDL runs only: stays a local table on the coordinator, where migrations run',
  rate_limit_windows: 'keyed by limiter key (a merchant or a client address), never joined: distributed on its own by limiter_key, not co-located, or kept on the coordinator (unlogged, one round trip per tenth of a limit)',
  console_sign_in_throttle:
    'the console\'s failed sign-ins, keyed by a hash of the address typed (or of the client address): an address typed at the sign-in form names no merchant yet, and an unknown one must be counted exactly like a known one; never joined: distributed on its own by throttle_key, not co-located, or kept on the coordinator',
  rail_refused_messages:
    'messages from a rail that named no payout of ours (refused and kept for the operator): they name no merchant by definition; written rarely, read by operators: stays a local table on the coordinator',
  operator_email_outbox:
    'e-mails written without a merchant before migration 0033 (none since: every message is a merchant\'s), moved there under their ids; nothing writes it, the operator\'s listing and the sender read it: stays a local table on the coordinator',

  // Sequences drawn on the coordinator.
  payout_reference_seq:
    'one sequence for every payout\'s transaction reference (scrambled, 36^6 a day), drawn on the coordinator, where every statement of the service goes in (a batch\'s in a statement of its own that names no distributed table; a single payout\'s in its INSERT\'s VALUES, which Citus evaluates before it routes the row): correct on Citus, one counter. Only if workers took writes themselves would they have to ask the coordinator: plan then: one such sequence per node, each a disjoint slice of the scrambled space (a node digit in the reference)',
  'rail_refused_messages.message_id': 'rail_refused_messages stays a local table on the coordinator (see above): its sequence lives on that one node',
  'rail_reconciliations.run_id': 'a reference table written by the daily job and by operators (a few rows a day): its identity is drawn on the coordinator, where reference-table writes go first',
};

interface Violation {
  id: string;
  rule: string;
  message: string;
}

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

interface TableRow {
  oid: number;
  name: string;
}
interface ColumnRow {
  table_oid: number;
  name: string;
  attnum: number;
  not_null: boolean;
  identity: string;
  default_expr: string | null;
  /** format_type of the column's type, without modifiers ('bigint', 'integer', …). */
  type: string;
}
interface ConstraintRow {
  table_oid: number;
  name: string;
  type: 'p' | 'u' | 'f' | 'x';
  cols: number[];
  ref_oid: number;
  ref_cols: number[] | null;
  def: string;
}
interface IndexRow {
  table_oid: number;
  name: string;
  cols: number[];
  def: string;
}
interface SequenceRow {
  name: string;
  owner_oid: number | null;
  owner_attnum: number | null;
}

async function catalogViolations(): Promise<{ violations: Violation[]; tables: Map<number, string>; merchantOwned: Set<string> }> {
  // Ordinary, partitioned and unlogged tables of schema public (graphile_worker's schema is not public).
  const tableRows = (
    await db.query<TableRow>(
      `select c.oid::int as oid, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
    )
  ).rows;
  const tables = new Map(tableRows.map((t) => [t.oid, t.name]));
  const oids = [...tables.keys()];
  const columns = (
    await db.query<ColumnRow>(
      `select a.attrelid::int as table_oid, a.attname as name, a.attnum::int as attnum, a.attnotnull as not_null,
              a.attidentity::text as identity, pg_get_expr(d.adbin, d.adrelid) as default_expr, format_type(a.atttypid, null) as type
         from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where a.attrelid = any($1::oid[]) and a.attnum > 0 and not a.attisdropped`,
      [oids],
    )
  ).rows;
  const constraints = (
    await db.query<ConstraintRow>(
      `select conrelid::int as table_oid, conname as name, contype::text as type, conkey::int[] as cols,
              confrelid::int as ref_oid, confkey::int[] as ref_cols, pg_get_constraintdef(oid) as def
         from pg_constraint where conrelid = any($1::oid[]) and contype in ('p', 'u', 'f', 'x')`,
      [oids],
    )
  ).rows;
  // Unique indexes that no constraint stands behind (those are checked as constraints).
  const indexes = (
    await db.query<IndexRow>(
      `select i.indrelid::int as table_oid, ic.relname as name, i.indkey::int2[]::int[] as cols, pg_get_indexdef(i.indexrelid) as def
         from pg_index i join pg_class ic on ic.oid = i.indexrelid
        where i.indrelid = any($1::oid[]) and i.indisunique
          and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u', 'x'))`,
      [oids],
    )
  ).rows;
  const sequences = (
    await db.query<SequenceRow>(
      `select s.relname as name, d.refobjid::int as owner_oid, d.refobjsubid::int as owner_attnum
         from pg_class s join pg_namespace n on n.oid = s.relnamespace
         left join pg_depend d on d.classid = 'pg_class'::regclass and d.objid = s.oid
                              and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')
        where n.nspname = 'public' and s.relkind = 'S' order by s.relname`,
    )
  ).rows;

  const colsOf = new Map<number, ColumnRow[]>();
  for (const c of columns) colsOf.set(c.table_oid, [...(colsOf.get(c.table_oid) ?? []), c]);
  // A table's distribution column: its own for OWN_DISTRIBUTION, merchant_account_number for the others.
  const distName = (table: number) => OWN_DISTRIBUTION[tables.get(table)!]?.column ?? DIST;
  const distAttnum = (table: number) => colsOf.get(table)?.find((c) => c.name === distName(table))?.attnum;
  const ownDistributed = new Set(oids.filter((oid) => tables.get(oid)! in OWN_DISTRIBUTION && distAttnum(oid) !== undefined));
  const merchantOwned = new Set(oids.filter((oid) => !ownDistributed.has(oid) && distAttnum(oid) !== undefined));
  const distributed = new Set([...merchantOwned, ...ownDistributed]);
  const includesDist = (table: number, cols: number[]) => cols.includes(distAttnum(table)!);

  const violations: Violation[] = [];
  const add = (id: string, rule: string, message: string) => violations.push({ id, rule, message });

  for (const [oid, table] of tables) {
    if (distributed.has(oid)) {
      const DIST = distName(oid);
      const dist = colsOf.get(oid)!.find((c) => c.name === DIST)!;
      if (!dist.not_null) {
        add(`${table}.${DIST}`, 'distribution column NOT NULL', `${table}.${DIST} is nullable: Citus cannot place a row without a merchant. Make it NOT NULL (rows without a merchant belong in another table)`);
      }
      const pk = constraints.find((k) => k.table_oid === oid && k.type === 'p');
      if (!pk) add(`${table}.(no primary key)`, 'primary key includes merchant_account_number', `${table} has no primary key: give it one that includes ${DIST}`);
      else if (!includesDist(oid, pk.cols)) {
        add(`${table}.${pk.name}`, 'primary key includes merchant_account_number', `${table}'s primary key ${pk.name} ${pk.def} does not include ${DIST}: make it (${DIST}, …)`);
      }
    } else if (!(table in REFERENCE_TABLES)) {
      add(table, 'merchant-owned or reference table', `${table} has no ${DIST} column and is not on REFERENCE_TABLES: add ${DIST} (in its keys), or list it in REFERENCE_TABLES (small shared data) or KNOWN_VIOLATIONS, with a reason`);
    }
  }

  for (const k of constraints) {
    const table = tables.get(k.table_oid)!;
    if ((k.type === 'u' || k.type === 'x') && distributed.has(k.table_oid) && !includesDist(k.table_oid, k.cols)) {
      const kind = k.type === 'u' ? 'unique constraint' : 'exclusion constraint';
      add(`${table}.${k.name}`, `${kind} includes merchant_account_number`, `${table}'s ${kind} ${k.name} ${k.def} does not include ${DIST}: it would have to hold across shards. Add ${DIST} to it, or move the cross-merchant uniqueness to a claims table`);
    }
    if (k.type === 'f' && (ownDistributed.has(k.table_oid) || ownDistributed.has(k.ref_oid)) && k.table_oid !== k.ref_oid) {
      add(`${table}.${k.name}`, 'no foreign key to or from a table distributed by its own column', `${table}'s foreign key ${k.name} ${k.def} joins a table of OWN_DISTRIBUTION (its own co-location group) to another table: Citus cannot check it. Drop the key; the statement that writes both keeps them in step`);
    } else if (k.type === 'f' && merchantOwned.has(k.ref_oid)) {
      const ref = tables.get(k.ref_oid)!;
      if (!merchantOwned.has(k.table_oid)) {
        add(`${table}.${k.name}`, 'no reference from a reference table to a merchant-owned table', `${table} is not merchant-owned but its foreign key ${k.name} ${k.def} references merchant-owned ${ref}: a reference table cannot point into a distributed table. Drop the key or make ${table} merchant-owned`);
      } else {
        const paired = k.cols.some((c, i) => c === distAttnum(k.table_oid) && k.ref_cols![i] === distAttnum(k.ref_oid));
        if (!paired) {
          add(`${table}.${k.name}`, 'foreign key between merchant-owned tables pairs merchant_account_number', `${table}'s foreign key ${k.name} ${k.def} to merchant-owned ${ref} does not pair ${DIST} with ${DIST}: co-located tables can reference each other only through the distribution column. Make it foreign key (${DIST}, …) references ${ref} (${DIST}, …)`);
        }
      }
    }
  }

  for (const i of indexes) {
    if (distributed.has(i.table_oid) && !includesDist(i.table_oid, i.cols)) {
      const table = tables.get(i.table_oid)!;
      add(`${table}.${i.name}`, 'unique index includes merchant_account_number', `${table}'s unique index ${i.name} (${i.def}) does not include ${DIST} as a column: it would have to hold across shards. Add ${DIST} to it, or move the cross-merchant uniqueness to a claims table`);
    }
  }

  // Global sequences: key columns filled from a sequence, and sequences no column owns.
  const keyCols = new Map<number, Set<number>>();
  for (const k of constraints.filter((k) => k.type !== 'f')) for (const c of k.cols) keyCols.set(k.table_oid, (keyCols.get(k.table_oid) ?? new Set()).add(c));
  for (const i of indexes) for (const c of i.cols) if (c > 0) keyCols.set(i.table_oid, (keyCols.get(i.table_oid) ?? new Set()).add(c));
  for (const k of constraints.filter((k) => k.type === 'f')) for (const c of k.ref_cols ?? []) keyCols.set(k.ref_oid, (keyCols.get(k.ref_oid) ?? new Set()).add(c));
  for (const c of columns) {
    const fromSequence = c.identity !== '' || /\bnextval\(/.test(c.default_expr ?? '');
    const drawnPerNode = merchantOwned.has(c.table_oid) && c.type === 'bigint';
    if (fromSequence && !drawnPerNode && keyCols.get(c.table_oid)?.has(c.attnum)) {
      const table = tables.get(c.table_oid)!;
      const how = c.identity === 'a' ? 'generated always as identity' : c.identity === 'd' ? 'generated by default as identity' : `default ${c.default_expr}`;
      const fix = merchantOwned.has(c.table_oid) ? `Make it bigint (Citus draws a bigint sequence of a distributed table per node)` : 'Use a merchant-owned table with a bigint key, or uuidv7';
      add(`${table}.${c.name}`, 'no global sequence for keys', `${table}.${c.name} is a ${c.type} key filled from one global sequence (${how}): every node would draw from one counter. ${fix}`);
    }
  }
  for (const s of sequences) {
    if (s.owner_oid === null) {
      add(s.name, 'no global sequence for keys', `sequence ${s.name} belongs to no column and is drawn service-wide (nextval('${s.name}')): every node would draw from one counter. Give each node its own, or derive the value from the merchant`);
    } else if (!tables.has(s.owner_oid)) {
      add(s.name, 'no global sequence for keys', `sequence ${s.name} is owned by ${s.owner_oid}, not a table of schema public: check who draws from it`);
    }
  }
  return { violations, tables, merchantOwned: new Set([...merchantOwned].map((oid) => tables.get(oid)!)) };
}

describe('catalog: ready to distribute by merchant (Citus)', () => {
  it('every violation of the distribution rules is on KNOWN_VIOLATIONS, and every entry there is still a violation', async () => {
    const { violations } = await catalogViolations();
    const found = new Map(violations.map((v) => [v.id, v]));
    expect(found.size, 'two violations share an id: the test names objects ambiguously').toBe(violations.length);

    const unlisted = violations.filter((v) => !(v.id in KNOWN_VIOLATIONS));
    const stale = Object.keys(KNOWN_VIOLATIONS).filter((id) => !found.has(id));
    const lines = [
      ...unlisted.map((v) => `NEW  ${v.id} breaks "${v.rule}": ${v.message}. Fix the migration, or add '${v.id}' to KNOWN_VIOLATIONS in test/db/citus-catalog.test.ts with the reason and the plan (and to docs/scaling.md).`),
      ...stale.map((id) => `GONE ${id} is on KNOWN_VIOLATIONS but no longer breaks any rule (fixed, renamed or dropped): delete its entry from KNOWN_VIOLATIONS in test/db/citus-catalog.test.ts (and from docs/scaling.md).`),
    ];
    expect(lines, `\n${lines.join('\n')}\n`).toEqual([]);
  });

  it('REFERENCE_TABLES names existing tables without merchant_account_number and without foreign keys into merchant-owned tables', async () => {
    const { tables, merchantOwned } = await catalogViolations();
    const names = new Set(tables.values());
    const problems: string[] = [];
    for (const table of Object.keys(REFERENCE_TABLES)) {
      if (!names.has(table)) problems.push(`REFERENCE_TABLES names ${table}, which is not a table of schema public: delete the entry`);
      else if (merchantOwned.has(table)) problems.push(`REFERENCE_TABLES names ${table}, which has ${DIST}: it is merchant-owned and would be distributed; delete the entry`);
      if (table in KNOWN_VIOLATIONS) problems.push(`${table} is on both REFERENCE_TABLES and KNOWN_VIOLATIONS: keep one`);
    }
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('catches each rule on tables a migration might add (created here, in this file\'s own database, then dropped)', async () => {
    await db.query(`
      create table zz_parent (merchant_account_number integer not null, parent_id bigint generated always as identity, primary key (merchant_account_number, parent_id));
      create table zz_counter (merchant_account_number integer not null, counter_id integer generated always as identity, primary key (merchant_account_number, counter_id));
      create table zz_child (
        child_id serial primary key,
        merchant_account_number integer,
        parent_id bigint not null,
        code text not null unique,
        foreign key (merchant_account_number, parent_id) references zz_parent (merchant_account_number, parent_id),
        constraint zz_child_parent_only foreign key (parent_id, child_id) references zz_parent (parent_id, merchant_account_number) match simple);
      create unique index zz_child_code_lower on zz_child (lower(code), merchant_account_number);
      create unique index zz_child_code_only on zz_child (lower(code));
      create table zz_lookup (code text primary key, child_id integer references zz_child (child_id));
      create sequence zz_loose_seq;`);
    try {
      const ids = new Map((await catalogViolations()).violations.filter((v) => v.id.startsWith('zz_')).map((v) => [v.id, v.rule]));
      expect(Object.fromEntries(ids)).toEqual({
        'zz_counter.counter_id': 'no global sequence for keys',
        'zz_child.merchant_account_number': 'distribution column NOT NULL',
        'zz_child.zz_child_pkey': 'primary key includes merchant_account_number',
        'zz_child.child_id': 'no global sequence for keys',
        'zz_child.zz_child_code_key': 'unique constraint includes merchant_account_number',
        'zz_child.zz_child_code_only': 'unique index includes merchant_account_number',
        'zz_child.zz_child_parent_only': 'foreign key between merchant-owned tables pairs merchant_account_number',
        zz_lookup: 'merchant-owned or reference table',
        'zz_lookup.zz_lookup_child_id_fkey': 'no reference from a reference table to a merchant-owned table',
        zz_loose_seq: 'no global sequence for keys',
      });
    } finally {
      await db.query('drop table if exists zz_lookup, zz_child, zz_parent, zz_counter; drop sequence if exists zz_loose_seq');
    }
  });

  it('OWN_DISTRIBUTION is src/db/distribute.ts\'s, names existing tables with their column, and its rules hold for that column', async () => {
    expect(Object.fromEntries(Object.entries(OWN_DISTRIBUTION).map(([table, o]) => [table, o.column]))).toEqual(SRC_OWN_DISTRIBUTION);
    for (const [table, { column }] of Object.entries(OWN_DISTRIBUTION)) {
      const { rowCount } = await db.query(`select 1 from pg_attribute where attrelid = to_regclass($1) and attname = $2 and not attisdropped`, [`public.${table}`, column]);
      expect(rowCount, `${table}.${column} exists`).toBe(1);
    }
    // A claims table of its own: keyed by its code, a unique key without it, a foreign key into a merchant table.
    await db.query(`
      create table zz_parent2 (merchant_account_number integer not null, parent_id bigint not null, primary key (merchant_account_number, parent_id));
      create table zz_claims (code text not null primary key, merchant_account_number integer not null unique, parent_id bigint not null,
                              foreign key (merchant_account_number, parent_id) references zz_parent2 (merchant_account_number, parent_id));`);
    OWN_DISTRIBUTION.zz_claims = { column: 'code', reason: 'created by this test' };
    try {
      const ids = new Map((await catalogViolations()).violations.filter((v) => v.id.startsWith('zz_')).map((v) => [v.id, v.rule]));
      expect(Object.fromEntries(ids)).toEqual({
        'zz_claims.zz_claims_merchant_account_number_key': 'unique constraint includes merchant_account_number',
        'zz_claims.zz_claims_merchant_account_number_parent_id_fkey': 'no foreign key to or from a table distributed by its own column',
      });
    } finally {
      delete OWN_DISTRIBUTION.zz_claims;
      await db.query('drop table if exists zz_claims, zz_parent2');
    }
  });

  it('every merchant-owned primary key is led by merchant_account_number, except the ones listed (migration 0030)', async () => {
    // Stronger than "includes": a key led by the merchant keeps a merchant's rows together in its
    // index, and is the shape foreign keys between co-located tables pair with.
    const { rows } = await db.query<{ table: string; name: string; def: string; leading: string }>(
      `select t.relname as table, k.conname as name, pg_get_constraintdef(k.oid) as def, a.attname as leading
         from pg_constraint k
         join pg_class t on t.oid = k.conrelid
         join pg_namespace n on n.oid = t.relnamespace
         join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
        where n.nspname = 'public' and k.contype = 'p' and t.relname <> all($2::text[])
          and exists (select 1 from pg_attribute d where d.attrelid = t.oid and d.attname = $1 and not d.attisdropped)`,
      [DIST, Object.keys(OWN_DISTRIBUTION)],
    );
    expect(rows.length, 'merchant-owned tables with a primary key').toBeGreaterThan(30);
    const notLed = rows.filter((r) => r.leading !== DIST && !(`${r.table}.${r.name}` in KNOWN_VIOLATIONS)).map((r) => `${r.table}: ${r.def}`);
    expect(notLed, 'primary keys of merchant-owned tables not led by merchant_account_number').toEqual([]);
  });

  it('every entry says why', () => {
    const empty = [...Object.entries(REFERENCE_TABLES), ...Object.entries(KNOWN_VIOLATIONS), ...Object.entries(OWN_DISTRIBUTION).map(([table, o]) => [table, o.reason] as const)].filter(([, reason]) => reason.trim().length < 20).map(([id]) => id);
    expect(empty, 'entries without a real reason').toEqual([]);
  });
});

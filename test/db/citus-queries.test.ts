// Distribution by merchant (docs/scaling.md, "Beyond the catalog"): the queries, against what a
// Citus cluster distributed on merchant_account_number refuses. Issue 28 met each class on a real
// Citus 13.2 cluster; this holds the rules in CI without one. The catalog's own rules (keys,
// foreign keys, identity columns) are test/db/citus-catalog.test.ts; triggers are
// test/db/citus-triggers.test.ts.
//
// Classes, in the SQL of src/**/*.ts(x) and in the SQL/PL/pgSQL functions the migrations created:
//   (a) insert-values-subquery: a subquery inside INSERT … VALUES ("subqueries are not supported
//       within INSERT queries"). Write INSERT … SELECT, or pass the value in.
//   (b) multi-shard-lock: FOR UPDATE/SHARE (any strength, SKIP LOCKED or not) on a merchant-owned
//       table that the same select does not pin with `merchant_account_number = <parameter>`
//       (directly, or through merchant_account_number = merchant_account_number with a pinned
//       table of the same select). Citus: "could not run distributed query with FOR UPDATE/SHARE
//       commands". Claim per merchant: find the merchants with due work lock-free, then lock
//       `where merchant_account_number = $1 … for update skip locked` (webhooks/dispatcher.ts).
//   (c) group-by-functional-dependency: a select that joins and groups, selecting a column (or
//       `x.*`) that is neither grouped nor aggregated: PostgreSQL accepts it when the group is a
//       primary key, Citus's multi-shard planner does not ("column … must appear in the GROUP BY
//       clause"). Group by every selected column, or aggregate in a subquery / lateral.
//   (d) non-immutable-upsert-set: INSERT into a merchant-owned table … ON CONFLICT DO UPDATE SET
//       calling a function that is not IMMUTABLE (now(), make_interval(), gen_random_uuid() …):
//       "functions used in the DO UPDATE SET clause of INSERTs on distributed tables must be marked
//       IMMUTABLE" (store_idempotent_answer before migration 0035). Compute it into a variable or
//       pass it as a parameter first.
//   (e) update-citus-refuses: in an UPDATE of a merchant-owned table, a non-IMMUTABLE call in
//       RETURNING or in a CASE of SET, or a simple CASE (case x when …) in SET.
//   (f) ctid-modification: an UPDATE or DELETE of a merchant-owned table naming ctid (the bounded
//       clean-up deletes as they were): "Recursively planned distributed modifications with ctid
//       on where clause are not supported". Delete by key.
//   (g) correlated-subquery-beside-srf: a select whose FROM holds a set-returning function
//       (unnest(), generate_series(), …; directly or in a subquery of its FROM) with a subquery in
//       its SELECT list or WHERE that reads a merchant-owned table and refers to an alias of that
//       FROM: "correlated subqueries are not supported when the FROM clause contains a set
//       returning function" (the outbox's ad-hoc webhook targets, every payment with a callback
//       URL answered 500; the ledger_account_days job filled nothing). Read those rows apart, or
//       join the table pinned to the merchant.
//   (h) cte-in-insert-returning: an INSERT into a merchant-owned table whose RETURNING reads a CTE
//       of its statement: Citus plans the RETURNING without it ("relation … does not exist"; the
//       ledger_account_days job). Read the CTE in a SELECT of the statement's own.
//
// How: the SQL is read from the TypeScript AST (node_modules/typescript): every string or template
// literal whose text starts with with/select/insert/update/delete, `${NAME}` resolved to a const
// of the same file (or a const of that name unique across src), `${cond ? 'a' : ''}` taken as its
// longer branch (so an optional `for update` is checked), anything else as an identifier. The text
// is normalised (lower case, no comments, string literals emptied) and cut into levels (each
// SELECT with its parenthesised subqueries and CTE bodies masked, each of those a level too);
// regexes read each level's FROM, WHERE, GROUP BY and locking clause. Merchant-owned tables come
// from the catalog (a merchant_account_number column, as in citus-catalog.test.ts).
//
// Limits (it is a lint, not a parser):
//   - SQL built at run time beyond the patterns above (arrays of clauses joined, helpers returning
//     fragments, `${expr}` from another module that is not a uniquely named const) is seen with a
//     hole in it; a lock or GROUP BY inside such a hole is not seen.
//   - (b) accepts any `alias.merchant_account_number = $n`/variable/constant as a pin, even under an
//     OR; `= any($1)` and `in (…)` are never pins (they span shards). A lock through a view or a
//     CTE name is not followed (CTE names are not merchant-owned tables).
//   - (c) checks qualified columns (alias.column) of the level's FROM only: an unqualified column
//     in a join is not checked, nor are expressions written differently in SELECT and GROUP BY.
//   - Functions: the body text (prosrc) of SQL and PL/pgSQL functions in schema public, outside
//     extensions; dynamic SQL (EXECUTE) is not seen.
// So it catches the shapes that broke, as written in this codebase; Citus itself remains the judge
// (docs/scaling.md: run on a real cluster).
//
// KNOWN lists the remaining occurrences with a reason and plan, by `class file#owner` (or `class
// function:name`). The test fails on a finding not listed (fix the query, or list it with a reason)
// and on an entry no longer found (it was fixed: delete the entry), as the catalog test does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPool, type Db } from '../../src/db/pool.ts';
import { createTestDatabase } from '../helpers.ts';
import { correlatedSubqueryBesideSrf, cteInInsertReturning, ctidModification, extractSql, groupByFunctionalDependency, insertValuesSubquery, lint, multiShardLocks, nonImmutableUpsertSet, readSources, updateCitusRefuses, type Finding, type SqlText } from './sql-lint.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const KNOWN: Record<string, string> = {
  // Locks by a value that names no merchant: the caller has nothing to pin with until the value
  // carries the merchant or a claims table maps it to one (docs/scaling.md, group C and B).
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

async function merchantOwnedTables(): Promise<Set<string>> {
  const { rows } = await db.query<{ table: string }>(
    `select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attname = 'merchant_account_number' and not a.attisdropped
     where n.nspname = 'public' and c.relkind in ('r', 'p')`,
  );
  return new Set(rows.map((r) => r.table));
}

/** The SQL and PL/pgSQL functions of schema public that no extension owns, as SQL texts. */
async function functionTexts(): Promise<SqlText[]> {
  const { rows } = await db.query<{ name: string; body: string }>(
    `select p.proname as name, p.prosrc as body from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
     where n.nspname = 'public' and l.lanname in ('sql', 'plpgsql')
       and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
     order by 1`,
  );
  // A PL/pgSQL body is many statements; each `;`-separated piece is checked on its own.
  return rows.flatMap((r) => r.body.split(';').map((sql) => ({ file: 'function', owner: r.name, line: 0, sql })));
}

function keyOf(f: Finding): string {
  return `${f.cls} ${f.where.startsWith('function#') ? `function:${f.where.slice('function#'.length)}` : f.where}`;
}

describe('queries: ready to run distributed by merchant (Citus)', () => {
  it('every obstacle in src/ and in the migrations\' functions is on KNOWN, and every entry there is still found', async () => {
    const texts = [...extractSql(readSources(ROOT, 'src')), ...(await functionTexts())];
    expect(texts.length, 'the scanner found almost no SQL: it is broken').toBeGreaterThan(300);
    const findings = lint(texts, await merchantOwnedTables());
    const found = new Map<string, Finding[]>();
    for (const f of findings) found.set(keyOf(f), [...(found.get(keyOf(f)) ?? []), f]);
    const lines = [
      ...[...found].filter(([key]) => !(key in KNOWN)).map(([key, fs]) => `NEW  ${key} (line ${fs[0].line}): ${fs.map((f) => f.message).join('; ')}. Fix the query, or add '${key}' to KNOWN in test/db/citus-queries.test.ts with the reason and the plan.`),
      ...Object.keys(KNOWN).filter((key) => !found.has(key)).map((key) => `GONE ${key} is on KNOWN but no longer found (fixed, renamed or moved): delete its entry from KNOWN in test/db/citus-queries.test.ts.`),
    ];
    expect(lines, `\n${lines.join('\n')}\n`).toEqual([]);
  });

  it('every entry says why', () => {
    expect(Object.entries(KNOWN).filter(([, reason]) => reason.trim().length < 20).map(([key]) => key)).toEqual([]);
  });
});

describe('the SQL lint itself: a reintroduced obstacle of each class fails', () => {
  const owned = new Set(['payouts', 'batches', 'webhook_deliveries', 'merchants', 'ledger_accounts', 'outbox_events']);
  const ts = (text: string) => extractSql(new Map([['src/x.ts', text]]));

  it('(a) finds a subquery inside INSERT … VALUES, not INSERT … SELECT', () => {
    // Migration 0021's shape, as insertCollection had it.
    expect(insertValuesSubquery(`insert into collections (merchant_account_number, request_reference_number)
      values ($1, (select r.reference_number from payment_requests r where r.request_id = $2)) returning collection_id`)).toMatch(/subquery inside INSERT/);
    expect(insertValuesSubquery("insert into t (a, b) values ($1, $2), ($3, exists (select 1 from u))")).toBeDefined();
    expect(insertValuesSubquery('insert into t (a, b) values ($1, $2) on conflict (a) do nothing returning *')).toBeUndefined();
    expect(insertValuesSubquery('insert into t (a, b) select $1, r.b from r where r.a = $1')).toBeUndefined();
    expect(insertValuesSubquery('insert into t (a) select v from (values (1), (2)) as x(v)')).toBeUndefined();
  });

  it('(b) finds a lock that spans merchants, and accepts one pinned to a merchant', () => {
    // The webhook dispatcher's claim as it was, the listener sweep, lockWaitingLines.
    expect(multiShardLocks(`with due as (select delivery_id from webhook_deliveries where status = 'pending' and next_attempt_at <= now()
      order by next_attempt_at limit $1 for update skip locked) update webhook_deliveries d set locked_until = now() from due where d.delivery_id = due.delivery_id`, owned)).toHaveLength(1);
    expect(multiShardLocks('with locked as (select status_code from payouts where batch_number = $1 for update skip locked) select count(*) from locked', owned)).toHaveLength(1);
    expect(multiShardLocks('select 1 from batches where batch_number = any($1::integer[]) order by batch_number for update', owned)).toHaveLength(1);
    expect(multiShardLocks('select * from payouts where merchant_account_number = any($1) for update', owned)).toHaveLength(1);
    expect(multiShardLocks('select p.* from payouts p join batches b on b.batch_number = p.batch_number where b.merchant_account_number = $1 for update of p', owned)).toHaveLength(1);
    // Pinned: directly, unqualified on the only table, through a join on merchant_account_number, or a PL/pgSQL variable.
    expect(multiShardLocks('select payout_id from payouts where merchant_account_number = $1 and status_code = \'T\' order by due_at limit $2 for update skip locked', owned)).toEqual([]);
    expect(multiShardLocks('select p.* from payouts p join merchants m on m.merchant_account_number = p.merchant_account_number where m.merchant_account_number = $2 for update of p', owned)).toEqual([]);
    expect(multiShardLocks('select * from merchants where merchant_account_number = p_merchant for share', owned)).toEqual([]);
    // A table that is not merchant-owned (reference or coordinator-local) may be locked.
    expect(multiShardLocks('select * from console_sign_in_throttle where throttle_key = any($1) for update', owned)).toEqual([]);
    // An optional lock in a template is checked as if taken.
    const [withLock] = ts("const q = (lock: boolean) => db.query(`select * from batches where batch_number = $1${lock ? ' for update' : ''}`);");
    expect(multiShardLocks(withLock.sql, owned)).toHaveLength(1);
  });

  it('(c) finds a GROUP BY that leans on a primary key across a join, not one that groups everything', () => {
    // merchants/accounts/get as it was: m.* grouped by the merchant's key.
    expect(groupByFunctionalDependency(`select m.*, coalesce(sum(la.balance_minor), 0) as total from merchants m
      left join ledger_accounts la on la.merchant_account_number = m.merchant_account_number group by m.merchant_account_number`)).toHaveLength(1);
    expect(groupByFunctionalDependency(`select t.transfer_id, t.reference, sum(e.amount_minor) filter (where e.amount_minor > 0) as total
      from ledger_transfers t join ledger_entries e on e.transfer_id = t.transfer_id group by t.transfer_id`)).toHaveLength(1);
    expect(groupByFunctionalDependency(`select t.transfer_id, t.reference, count(*) from ledger_transfers t
      join ledger_entries e on e.transfer_id = t.transfer_id group by t.transfer_id, t.reference`)).toEqual([]);
    expect(groupByFunctionalDependency(`select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(sum(s.n), 0) as n
      from generate_series($1::date, $2::date, interval '1 day') as d(day) left join stats s on s.day = d.day group by d.day`)).toEqual([]);
    expect(groupByFunctionalDependency('select k.a, k.b, count(*) from k join l on l.a = k.a group by 1, 2')).toEqual([]);
    // One table: nothing to distribute across a join.
    expect(groupByFunctionalDependency('select m.*, count(*) from merchants m group by m.merchant_account_number')).toEqual([]);
    // Composed from a const, as WITH_BALANCES was.
    const [composed] = ts('const BASE = `select m.*, sum(la.balance_minor) as b from merchants m left join ledger_accounts la on la.merchant_account_number = m.merchant_account_number`;\n' +
      'export const find = (q: Q) => q.query(`${BASE} where m.merchant_account_number = $1 group by m.merchant_account_number`);');
    expect(groupByFunctionalDependency(composed.sql)).toHaveLength(1);
  });

  it('(d) finds a non-IMMUTABLE call in ON CONFLICT DO UPDATE SET on a merchant-owned table, not one computed first', () => {
    const owned2 = new Set([...owned, 'idempotency_keys']);
    // store_idempotent_answer as migration 0012 wrote it, and as migration 0035 does.
    expect(nonImmutableUpsertSet(`insert into idempotency_keys (merchant_account_number, idempotency_key, expires_at) values (merchant, key, now() + make_interval(hours => h))
      on conflict (merchant_account_number, idempotency_key) do update set expires_at = excluded.expires_at, created_at = now() where idempotency_keys.expires_at <= now()`, owned2)).toHaveLength(1);
    expect(nonImmutableUpsertSet(`insert into idempotency_keys (merchant_account_number, idempotency_key, expires_at) values (merchant, key, v_expires)
      on conflict (merchant_account_number, idempotency_key) do update set expires_at = excluded.expires_at, created_at = v_now where idempotency_keys.expires_at <= v_now`, owned2)).toEqual([]);
    expect(nonImmutableUpsertSet('insert into payouts as p (merchant_account_number, n) values ($1, 1) on conflict (merchant_account_number) do update set updated_at = now() returning *', owned2)).toHaveLength(1);
    expect(nonImmutableUpsertSet('insert into payouts as p (merchant_account_number, n) values ($1, 1) on conflict (merchant_account_number) do update set n = p.n + excluded.n returning *', owned2)).toEqual([]);
    // Not merchant-owned (reference or local): not checked; now() in VALUES is evaluated by the coordinator.
    expect(nonImmutableUpsertSet('insert into settings (key, at) values ($1, now()) on conflict (key) do update set at = now()', owned2)).toEqual([]);
    expect(nonImmutableUpsertSet('insert into payouts (merchant_account_number, at) values ($1, now()) on conflict do nothing', owned2)).toEqual([]);
  });

  it('(e) finds, in an UPDATE of a merchant-owned table, a non-IMMUTABLE call in RETURNING or in a CASE of SET, and a simple CASE in SET', () => {
    // The shapes issue 28 met on Citus 13.2 (the payout worker, completeBatches, deleteSubscription).
    expect(updateCitusRefuses("update payouts p set status_code = 'S' where p.merchant_account_number = $1 returning p.payout_id, now() as at", owned)).toEqual([expect.stringMatching(/RETURNING calls now\(\)/)]);
    expect(updateCitusRefuses("update batches b set status_code = 'C' where b.merchant_account_number = $1 returning to_char(b.scheduled_date, 'YYYY-MM-DD')", owned)).toEqual([expect.stringMatching(/RETURNING calls to_char\(\)/)]);
    expect(updateCitusRefuses("update webhook_deliveries set completed_at = case when status = 'pending' then now() else completed_at end where merchant_account_number = $1", owned)).toEqual([expect.stringMatching(/CASE calling now\(\)/)]);
    expect(updateCitusRefuses("with d as (select 1) update payouts p set status_code = case d.outcome when 'a' then 'T' else 'F' end from d where p.merchant_account_number = $1", owned)).toEqual([expect.stringMatching(/simple CASE/)]);
    // Behind a parenthesis of the SET (least(…)), and in a COALESCE (the Mojaloop rail's markRetried and setDue).
    expect(updateCitusRefuses("update payouts p set attempts = least(p.attempts + 1, 32767), due_at = case when p.status_code = 'T' then now() else p.due_at end from unnest($1::int[]) u(m) where p.merchant_account_number = u.m", owned)).toEqual([expect.stringMatching(/CASE calling now\(\)/)]);
    expect(updateCitusRefuses("update payouts p set due_at = coalesce($4::timestamptz, now()) + make_interval(secs => $3) from unnest($1::int[]) u(m) where p.merchant_account_number = u.m", owned)).toEqual([expect.stringMatching(/COALESCE calling now\(\)/)]);
    // Passed in, searched CASE, now() outside CASE, or a table that is not merchant-owned: fine.
    expect(updateCitusRefuses("update payouts p set status_code = case when d.outcome = 'a' then 'T' else 'F' end, completed_at = case when d.outcome = 'a' then $2::timestamptz end, transferred_at = now() from d where p.merchant_account_number = $1 returning p.payout_id", owned)).toEqual([]);
    expect(updateCitusRefuses("update settings set at = case when $1 then now() end returning to_char(at, 'YYYY')", owned)).toEqual([]);
  });

  it('(f) finds a DELETE or UPDATE of a merchant-owned table by ctid, not one by key', () => {
    const owned2 = new Set([...owned, 'idempotency_keys']);
    // deleteExpiredKeys as it was: the idempotency_cleanup job failed on the cluster.
    expect(ctidModification('delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= now() limit $1)', owned2)).toHaveLength(1);
    expect(ctidModification('update payouts set status_code = $1 where ctid = any (array(select ctid from payouts limit 10))', owned2)).toHaveLength(1);
    expect(ctidModification(`delete from idempotency_keys k using (select merchant_account_number, idempotency_key from idempotency_keys where expires_at <= now() limit $1) d
      where k.merchant_account_number = d.merchant_account_number and k.idempotency_key = d.idempotency_key`, owned2)).toEqual([]);
    // A table on the coordinator (not merchant-owned) may be cleaned by ctid.
    expect(ctidModification('delete from rate_limit_windows where ctid in (select ctid from rate_limit_windows limit 100)', owned2)).toEqual([]);
  });

  it('(g) finds a correlated subquery on a merchant-owned table beside a set-returning function in FROM, not one read apart', () => {
    const owned2 = new Set([...owned, 'webhook_subscriptions', 'ledger_entries', 'ledger_account_day_marks']);
    // The outbox's ad-hoc targets as they were (the SRF inside a subquery of the FROM).
    expect(correlatedSubqueryBesideSrf(`insert into webhook_deliveries (merchant_account_number, callback_url)
      select $1, t.callback_url from (select distinct on (callback_url) * from unnest($5::text[], $6::text[]) as u(callback_url, signing_secret)) t
       where not exists (select 1 from webhook_subscriptions s where s.merchant_account_number = $1 and s.callback_url = t.callback_url)`, owned2)).toHaveLength(1);
    // The ledger_account_days job as it was (the SRF in the CTE's own FROM, the subquery in its SELECT list).
    expect(correlatedSubqueryBesideSrf(`with start as (select t.account_id, least((select (min(e.created_at) at time zone 'UTC')::date from ledger_entries e where e.account_id = t.account_id) - 1, $3::date) as after
        from unnest($1::integer[], $2::bigint[]) as t(merchant_account_number, account_id)
        left join ledger_account_day_marks k on k.merchant_account_number = t.merchant_account_number and k.account_id = t.account_id)
      select * from start`, owned2)).toHaveLength(1);
    // As they are now: the table in the FROM, pinned; or an uncorrelated subquery; or no SRF at all.
    expect(correlatedSubqueryBesideSrf(`select a.account_id, least((select min(e.created_at) from ledger_entries e where e.merchant_account_number = $1 and e.account_id = a.account_id), $3::date)
      from ledger_accounts a where a.merchant_account_number = $1 and a.account_id = any($2::bigint[])`, owned2)).toEqual([]);
    expect(correlatedSubqueryBesideSrf('insert into webhook_deliveries (merchant_account_number, callback_url) select $1, t.callback_url from unnest($2::text[]) as t(callback_url)', owned2)).toEqual([]);
    expect(correlatedSubqueryBesideSrf('select u.id, (select count(*) from payouts where merchant_account_number = $1) from unnest($2::int[]) u(id)', owned2)).toEqual([]);
    // A subquery on a table that is not merchant-owned (a reference table) is not checked.
    expect(correlatedSubqueryBesideSrf('select d.day, (select name from connectors c where c.connector_id = d.id) from generate_series(1, 3) as d(id)', owned2)).toEqual([]);
  });

  it('(h) finds an INSERT whose RETURNING reads a CTE, not a SELECT of the statement that reads it', () => {
    const owned2 = new Set([...owned, 'ledger_account_day_marks']);
    // The ledger_account_days job as it was.
    expect(cteInInsertReturning(`with days as (insert into ledger_account_days (merchant_account_number, account_id) select $1, 2 returning 1)
      insert into ledger_account_day_marks (merchant_account_number, account_id, filled_through) select $1, 2, $3::date
      on conflict (merchant_account_number, account_id) do update set filled_through = excluded.filled_through
      returning (select count(*) from days)::int as days`, owned2)).toEqual([expect.stringMatching(/RETURNING reads the CTE days/)]);
    // As it is now: the count in a SELECT of its own; and a RETURNING of the inserted row's own columns.
    expect(cteInInsertReturning(`with days as (insert into ledger_account_days (merchant_account_number, account_id) select $1, 2 returning 1),
      marks as (insert into ledger_account_day_marks (merchant_account_number, account_id, filled_through) select $1, 2, $3::date returning account_id)
      select count(*)::int as days from days`, owned2)).toEqual([]);
    expect(cteInInsertReturning('with x as (select $1::int as m) insert into payouts (merchant_account_number) select m from x returning payout_id', owned2)).toEqual([]);
  });

  it('lint() names each finding by file and owner, so KNOWN survives edits that move lines', () => {
    const texts = ts("export async function claim(q: Q) {\n  return q.query('select * from payouts where status_code = $1 for update skip locked', ['T']);\n}");
    expect(lint(texts, owned).map((f) => [f.cls, f.where, f.line])).toEqual([['multi-shard-lock', 'src/x.ts#claim', 2]]);
  });
});

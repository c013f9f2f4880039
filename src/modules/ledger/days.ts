// Each merchant account's ledger totals per closed UTC day (ledger_account_days, migration 0022),
// so that statements over long periods read a few hundred day rows instead of every entry. Filled
// by the worker's hourly `ledger_account_days` job from each account's mark on; reading never
// depends on it (ledger_sums_after reads the entries of any day not filled yet).
import type { Queryable } from '../../db/pool.ts';

export const LEDGER_DAYS_TASK = 'ledger_account_days';

/**
 * A day is closed an hour after it ends. Entries carry their transaction's start time (now()), so
 * a transaction that began before midnight can commit after it; every statement has a 30 s timeout
 * and no transaction of the service waits for a person, so an hour is far past any of them.
 */
const GRACE_MINUTES = 60;
/** Days of an account filled by one statement: a few hundred thousand entries at most. */
const DAYS_PER_STATEMENT = 92;
/** Accounts filled per statement (a round) of the job. */
const ACCOUNTS_PER_ROUND = 100;
/** The job stops after this long and goes on at its next run (the reads are right meanwhile). */
const BUDGET_MS = 20_000;

/**
 * The last closed UTC day at `now`: the earlier of the caller's clock and the database's, so a test
 * clock moved forward cannot close a day the database is still writing entries on.
 */
async function lastClosedDay(db: Queryable, now: Date): Promise<string> {
  const { rows } = await db.query<{ day: string }>(
    `select to_char(((least(now(), $1::timestamptz) - make_interval(mins => $2)) at time zone 'UTC')::date - 1, 'YYYY-MM-DD') as day`,
    [now, GRACE_MINUTES],
  );
  return rows[0].day;
}

/**
 * Fills a round of accounts' days, each after its mark (or from the day before its first entry), at
 * most DAYS_PER_STATEMENT days of each up to `closedDay`, and moves their marks: one statement per
 * merchant of the round (fillMerchantAccounts). Returns the day rows written.
 */
async function fillAccounts(db: Queryable, accounts: Array<{ merchant_account_number: number; account_id: number }>, closedDay: string): Promise<number> {
  const byMerchant = new Map<number, number[]>();
  for (const a of accounts) {
    const ids = byMerchant.get(a.merchant_account_number);
    if (ids) ids.push(a.account_id);
    else byMerchant.set(a.merchant_account_number, [a.account_id]);
  }
  let days = 0;
  for (const [merchantAccountNumber, accountIds] of byMerchant) days += await fillMerchantAccounts(db, merchantAccountNumber, accountIds, closedDay);
  return days;
}

/**
 * One merchant's accounts, in one statement: the days and the marks commit together. A second
 * filler racing on the same account computes the same totals from the same immutable entries; its
 * rows are skipped and a mark only moves forward. Every table is read `where merchant_account_number
 * = $1`, so on Citus the statement runs whole on the merchant's node (a round across merchants, from
 * unnest() with a correlated subquery beside it, was refused there: "correlated subqueries are not
 * supported when the FROM clause contains a set returning function", and every account failed).
 */
async function fillMerchantAccounts(db: Queryable, merchantAccountNumber: number, accountIds: number[], closedDay: string): Promise<number> {
  const { rows } = await db.query<{ days: number }>(
    `with start as (
       select a.account_id,
              coalesce(k.filled_through,
                       -- Never filled: from its first entry's day (with none yet, nothing up to the closed day).
                       least((select (min(e.created_at) at time zone 'UTC')::date from ledger_entries e
                               where e.merchant_account_number = $1 and e.account_id = a.account_id) - 1, $3::date)
                      ) as after
         from ledger_accounts a
         left join ledger_account_day_marks k on k.merchant_account_number = a.merchant_account_number and k.account_id = a.account_id
        where a.merchant_account_number = $1 and a.account_id = any($2::bigint[])
     ),
     span as (
       select account_id, after, least($3::date, after + $4::int) as through from start where after <= $3::date
     ),
     days as (
       insert into ledger_account_days (merchant_account_number, account_id, day, in_minor, out_minor, movements)
       select $1::integer, s.account_id, (e.created_at at time zone 'UTC')::date,
              coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0), coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0), count(*)
         from span s
         join ledger_entries e on e.merchant_account_number = $1 and e.account_id = s.account_id
              and e.created_at >= (s.after + 1)::timestamp at time zone 'UTC' and e.created_at < (s.through + 1)::timestamp at time zone 'UTC'
        group by 1, 2, 3
       on conflict do nothing
       returning 1
     ),
     marks as (
       insert into ledger_account_day_marks (merchant_account_number, account_id, filled_through)
       select $1::integer, account_id, through from span
       on conflict (merchant_account_number, account_id)
         do update set filled_through = greatest(ledger_account_day_marks.filled_through, excluded.filled_through)
     )
     -- Counted in a SELECT of its own: Citus loses the CTE inside an INSERT's RETURNING ("relation days does not exist").
     select count(*)::int as days from days`,
    [merchantAccountNumber, accountIds, closedDay, DAYS_PER_STATEMENT],
  );
  return rows[0]?.days ?? 0;
}

/**
 * The job: every merchant account whose mark is behind the last closed day, least filled first, a
 * round of ACCOUNTS_PER_ROUND per statement, until all are filled or `budgetMs` has passed. Each
 * account's mark moves forward by at least a day per statement, so the loop ends. When a round's
 * statement fails (a statement timeout on a huge history, say), its accounts are filled one by one,
 * and an account that fails alone is named in `failed` and left for the next run, so it never holds
 * the others back. Returns the accounts filled and the day rows written.
 */
export async function fillLedgerAccountDays(
  db: Queryable,
  now: Date,
  budgetMs = BUDGET_MS,
): Promise<{ accounts: number; days: number; closedDay: string; failed: Array<{ accountId: number; error: string }> }> {
  const closedDay = await lastClosedDay(db, now);
  const started = Date.now();
  let accounts = 0;
  let days = 0;
  const failed: Array<{ accountId: number; error: string }> = [];
  for (;;) {
    const { rows } = await db.query<{ merchant_account_number: number; account_id: number }>(
      `select a.merchant_account_number, a.account_id
         from ledger_accounts a
         left join ledger_account_day_marks k on k.merchant_account_number = a.merchant_account_number and k.account_id = a.account_id
        where a.kind in ('collection', 'disbursement')
          and (k.filled_through is null or k.filled_through < $1::date)
          and a.account_id <> all($3::bigint[])
        order by k.filled_through nulls first, a.account_id
        limit $2`,
      [closedDay, ACCOUNTS_PER_ROUND, failed.map((f) => f.accountId)],
    );
    if (rows.length === 0) break;
    try {
      days += await fillAccounts(db, rows, closedDay);
      accounts += rows.length;
    } catch {
      for (const row of rows) {
        try {
          days += await fillAccounts(db, [row], closedDay);
          accounts++;
        } catch (err) {
          failed.push({ accountId: Number(row.account_id), error: (err as Error).message });
        }
      }
    }
    if (Date.now() - started > budgetMs) break;
  }
  return { accounts, days, closedDay, failed };
}

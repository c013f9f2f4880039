// Statements read closed days' totals from ledger_account_days (migration 0022) and the rest from
// the entries: the same figures however far the `ledger_account_days` job has filled (not at all,
// part of the way, up to yesterday), equal to sums over the entries themselves; the day rows equal
// the entries grouped by day; the job fills a long history in steps, writes nothing twice, two
// runs at once agree, and an account whose statement fails holds no other back.
import { parse } from 'csv-parse/sync';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillLedgerAccountDays } from '../../src/modules/ledger/days.ts';
import { statementLines, statementSummary, streamStatementCsv, type StatementLine } from '../../src/modules/ledger/statements.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

const DAY_MS = 86_400_000;
/** The UTC day `days` from today. */
const day = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

let t: TestApp;
let m: TestMerchant;
let long: TestMerchant;

/**
 * Transfers between the merchant's account of `kind` and the funding account, written as ledger_post
 * writes them (a transfer, two entries summing to zero, the running balance) but on past days: for
 * each of the days `fromDaysAgo` … 0 (0 is now), `perDay` of them, alternately in and out.
 */
async function backdated(who: TestMerchant, kind: 'collection' | 'disbursement', fromDaysAgo: number, perDay: number, step = 1) {
  await t.db.query(
    `with funding as (
       -- The merchant's own funding account (migration 0029), created as systemAccountId does.
       insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, 'funding', 'MWK') on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning account_id
     ),
     ids as (
       select (select account_id from funding) as funding,
              (select account_id from ledger_accounts where merchant_account_number = $1 and kind = $2) as account
     ),
     moves as (
       -- A move's instant: d days ago, spread over the day (the last one of today a minute ago).
       select d, k, case when d = 0 then now() - (k + 1) * interval '1 minute'
                         else date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - d * interval '1 day' + (k * 3541 % 86400) * interval '1 second' end as at,
              -- In, then out of less: the balance never goes below zero.
              case when k % 2 = 0 then 10000 + d * 100 + k else -(5000 + k) end as amount
         from generate_series(0, $3::int, $5::int) d, generate_series(0, $4::int - 1) k
     ),
     transfers as (
       insert into ledger_transfers (merchant_account_number, transfer_type, reference, created_at)
       select $1, 'topup', 'T' || d || '-' || k || '-' || $2, at from moves
       returning transfer_id, reference, created_at
     ),
     entries as (
       insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor, created_at)
       select x.transfer_id, e.account_id, $1, e.amount, x.created_at
         from transfers x
         join moves mv on 'T' || mv.d || '-' || mv.k || '-' || $2 = x.reference
         cross join ids, lateral (values (ids.funding, -mv.amount), (ids.account, mv.amount)) as e(account_id, amount)
       returning amount_minor, account_id
     )
     update ledger_accounts set balance_minor = balance_minor + (select sum(amount_minor) from entries where entries.account_id = ledger_accounts.account_id)
      where account_id = (select account from ids)`,
    [who.merchantAccountNumber, kind, fromDaysAgo, perDay, step],
  );
}

/** The summary as the entries alone say it: in, out and count in the period, and the closing balance. */
async function fromEntries(who: TestMerchant, from: string, to: string) {
  const { rows } = await t.db.query<{ kind: string; in_minor: number; out_minor: number; movements: number; closing: number }>(
    `select a.kind,
            coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0 and e.created_at >= $2::date::timestamp at time zone 'UTC' and e.created_at < ($3::date + 1)::timestamp at time zone 'UTC'), 0)::bigint as in_minor,
            coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0 and e.created_at >= $2::date::timestamp at time zone 'UTC' and e.created_at < ($3::date + 1)::timestamp at time zone 'UTC'), 0)::bigint as out_minor,
            count(e.entry_id) filter (where e.created_at >= $2::date::timestamp at time zone 'UTC' and e.created_at < ($3::date + 1)::timestamp at time zone 'UTC')::bigint as movements,
            coalesce(sum(e.amount_minor) filter (where e.created_at < ($3::date + 1)::timestamp at time zone 'UTC'), 0)::bigint as closing
       from ledger_accounts a left join ledger_entries e on e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id
      where a.merchant_account_number = $1 and a.kind in ('collection', 'disbursement')
      group by a.kind order by a.kind`,
    [who.merchantAccountNumber, from, to],
  );
  return rows.map((r) => ({ account: r.kind, inMinor: r.in_minor, outMinor: r.out_minor, movements: r.movements, closingMinor: r.closing, openingMinor: r.closing - (r.in_minor - r.out_minor) }));
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Every period worth asking: single days, spans across filled and unfilled days, one ending in the past, today. */
const PERIODS: Array<[number, number]> = [
  [-12, 0],
  [-12, -12],
  [-9, -3],
  [-6, -6],
  [-5, -1],
  [-3, 0],
  [-1, -1],
  [0, 0],
  [-30, -13],
];

/** Summary, pages of lines and CSV, each against the entries' own sums. */
async function expectStatementsRight(who: TestMerchant) {
  for (const [fromDays, toDays] of PERIODS) {
    const [from, to] = [day(fromDays), day(toDays)];
    const summary = (await statementSummary(t.db, who.merchantAccountNumber, from, to))!;
    const expected = await fromEntries(who, from, to);
    expect(summary.accounts.slice(1), `${from} … ${to}`).toEqual(expected);

    // The lines, page by page: each balance is the one before plus its amount, from the opening on.
    const lines: StatementLine[] = [];
    let after: string | undefined;
    do {
      const page = await statementLines(t.db, who.merchantAccountNumber, from, to, { limit: 7, after });
      lines.push(...page.items);
      after = page.next ?? undefined;
    } while (after);
    const running = Object.fromEntries(expected.map((a) => [a.account, a.openingMinor]));
    let both = summary.accounts[0].openingMinor;
    for (const line of lines) {
      running[line.account] += line.amountMinor;
      both += line.amountMinor;
      expect(line.accountBalanceMinor, `${from} … ${to}: entry ${line.entryId}`).toBe(running[line.account]);
      expect(line.balanceMinor, `${from} … ${to}: entry ${line.entryId}, both accounts`).toBe(both);
    }
    expect(running).toEqual(Object.fromEntries(expected.map((a) => [a.account, a.closingMinor])));
    expect(both).toBe(summary.accounts[0].closingMinor);

    // The CSV: an opening and a closing row around the lines; the last balance of each account is its closing balance.
    const csv = parse(await readAll(streamStatementCsv(t.db, who.merchantAccountNumber, from, to)), { columns: true }) as Array<Record<string, string>>;
    expect(csv).toHaveLength(lines.length + 2);
    expect(Math.round(Number(csv[0].balance) * 100)).toBe(summary.accounts[0].openingMinor);
    expect(Math.round(Number(csv.at(-1)!.balance) * 100)).toBe(summary.accounts[0].closingMinor);
    for (const a of expected) {
      const last = csv.filter((r) => r.account === a.account).at(-1);
      if (last) expect(Math.round(Number(last.account_balance) * 100), `${from} … ${to}: CSV ${a.account}`).toBe(a.closingMinor);
    }
  }
}

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  await backdated(m, 'collection', 12, 5);
  await backdated(m, 'disbursement', 12, 3, 2);
  // A long history: one movement every third day for 300 days.
  long = await newMerchant(t);
  await backdated(long, 'collection', 300, 1, 3);
  await t.db.query('analyze ledger_entries');
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const marks = async (who: TestMerchant) =>
  (
    await t.db.query<{ kind: string; through: string }>(
      `select a.kind, to_char(k.filled_through, 'YYYY-MM-DD') as through from ledger_account_day_marks k join ledger_accounts a using (merchant_account_number, account_id)
        where k.merchant_account_number = $1 order by a.kind`,
      [who.merchantAccountNumber],
    )
  ).rows;

describe('statements over ledger_account_days', () => {
  it('are right before the job has run, after it has filled part of the days, and after it has filled them all', async () => {
    await expectStatementsRight(m);
    expect(await marks(m)).toEqual([]);

    // A clock five days back: the days up to six days ago are closed (seven, in the first hour of a UTC day).
    const past = await fillLedgerAccountDays(t.db, new Date(Date.now() - 5 * DAY_MS));
    expect([day(-6), day(-7)]).toContain(past.closedDay);
    expect((await marks(m)).map((x) => x.through)).toEqual([past.closedDay, past.closedDay]);
    await expectStatementsRight(m);

    // Now: up to yesterday (or the day before, in the first hour of a UTC day).
    const { closedDay } = await fillLedgerAccountDays(t.db, new Date());
    expect([day(-1), day(-2)]).toContain(closedDay);
    expect((await marks(m)).map((x) => x.through)).toEqual([closedDay, closedDay]);
    await expectStatementsRight(m);
  });

  it('holds, per account and closed day, exactly the entries grouped by day', async () => {
    await fillLedgerAccountDays(t.db, new Date());
    const { rows } = await t.db.query<{ mismatches: number; days: number }>(
      `with grouped as (
         select e.merchant_account_number, e.account_id, (e.created_at at time zone 'UTC')::date as day,
                coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0) as in_minor, coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0) as out_minor, count(*) as movements
           from ledger_entries e join ledger_account_day_marks k on k.account_id = e.account_id and k.merchant_account_number = e.merchant_account_number
          where (e.created_at at time zone 'UTC')::date <= k.filled_through
          group by 1, 2, 3
       )
       select count(*) filter (where g.day is null or d.day is null or (g.in_minor, g.out_minor, g.movements) <> (d.in_minor, d.out_minor, d.movements))::int as mismatches,
              count(*)::int as days
         from grouped g full join ledger_account_days d using (merchant_account_number, account_id, day)`,
    );
    expect(rows[0].mismatches).toBe(0);
    expect(rows[0].days).toBeGreaterThan(10);
  });

  it('fills a long history in steps of at most 92 days, writes nothing twice, and two runs at once agree', async () => {
    const before = await fillLedgerAccountDays(t.db, new Date());
    // Everything was filled by the tests above: a second run has nothing to do.
    expect(before.days).toBe(0);
    const rowsOf = async () =>
      (await t.db.query<{ n: number }>(`select count(*)::int as n from ledger_account_days where merchant_account_number = $1`, [long.merchantAccountNumber])).rows[0].n;
    expect(await rowsOf()).toBe(Math.floor(300 / 3)); // one movement every third day, today's excluded: days 300, 297, … 3
    expect((await marks(long)).map((x) => x.through)).toEqual([before.closedDay, before.closedDay]);
    await expectStatementsRight(long);
    const summary = (await statementSummary(t.db, long.merchantAccountNumber, day(-300), day(0)))!;
    expect(summary.accounts[1].movements).toBe(101);

    // From scratch, one statement (a budget of 0 ms stops the job after its first round, which
    // holds both of this merchant's accounts, the only ones behind): an account moves by at most 92
    // days per statement; an account without entries goes straight to the closed day.
    const clear = async () => {
      await t.db.query('delete from ledger_account_days where merchant_account_number = $1', [long.merchantAccountNumber]);
      await t.db.query('delete from ledger_account_day_marks where merchant_account_number = $1', [long.merchantAccountNumber]);
    };
    await clear();
    expect((await fillLedgerAccountDays(t.db, new Date(), 0)).accounts).toBe(2);
    expect(await marks(long)).toEqual([
      { kind: 'collection', through: day(-300 - 1 + 92) },
      { kind: 'disbursement', through: before.closedDay },
    ]);
    await expectStatementsRight(long);

    // From scratch, twice at once: the same rows, no error.
    await clear();
    const runs = await Promise.all([fillLedgerAccountDays(t.db, new Date()), fillLedgerAccountDays(t.db, new Date())]);
    expect(runs.reduce((n, r) => n + r.days, 0)).toBe(100);
    expect(await rowsOf()).toBe(100);
    await expectStatementsRight(long);
  });

  it('leaves an account whose statement fails for the next run, and fills the others', async () => {
    const [stuck, other] = [await newMerchant(t), await newMerchant(t)];
    await backdated(stuck, 'collection', 4, 2);
    await backdated(other, 'collection', 4, 2);
    const { rows } = await t.db.query<{ account_id: number }>(`select account_id from ledger_accounts where merchant_account_number = $1 and kind = 'collection'`, [stuck.merchantAccountNumber]);
    const stuckAccount = Number(rows[0].account_id);
    // A statement that fails for that account alone, as a timeout on a huge history would.
    await t.db.query(`create function fail_stuck() returns trigger language plpgsql as $$ begin
                        if new.account_id = ${stuckAccount} then raise exception 'canceling statement due to statement timeout'; end if; return new; end $$`);
    await t.db.query('create trigger fail_stuck before insert on ledger_account_day_marks for each row execute function fail_stuck()');
    try {
      const run = await fillLedgerAccountDays(t.db, new Date());
      expect(run.failed).toEqual([{ accountId: stuckAccount, error: 'canceling statement due to statement timeout' }]);
      expect((await marks(other)).map((x) => x.through)).toEqual([run.closedDay, run.closedDay]);
      expect((await marks(stuck)).map((x) => x.kind)).toEqual(['disbursement']);
      await expectStatementsRight(stuck);
    } finally {
      await t.db.query('drop trigger fail_stuck on ledger_account_day_marks; drop function fail_stuck()');
    }
    const next = await fillLedgerAccountDays(t.db, new Date());
    expect(next.failed).toEqual([]);
    expect((await marks(stuck)).map((x) => x.kind)).toEqual(['collection', 'disbursement']);
    await expectStatementsRight(stuck);
  });
});

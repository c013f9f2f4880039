// The ledger per merchant (issue 28, migration 0029, docs/scaling.md §4 groups A and D): each
// merchant posts against its own system accounts, so every entry of a transfer is on an account of
// the transfer's merchant; and a database that already holds a ledger with the shared system
// accounts of migrations 0001–0028 is migrated without moving a cent: every transfer keeps its
// entries and amounts, every balance is unchanged, per kind and currency the merchants' system
// accounts sum to what the shared one held, and `ledger verify` passes.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createPool, withTransaction, type Db } from '../../src/db/pool.ts';
import { fillLedgerAccountDays } from '../../src/modules/ledger/days.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../../src/modules/ledger/ledger.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { ADMIN_TOKEN, createTestDatabase, ledgerInvariants, newMerchant, startTestApp, type TestApp } from '../helpers.ts';
import { topup } from '../money-ops.ts';

const PER_MERCHANT_MIGRATION = 29;

/** Every entry with its transfer and its account: the same rows, before and after. */
const ENTRIES = `
  select e.entry_id::int as entry_id, t.transfer_id::int as transfer_id, t.merchant_account_number as transfer_merchant, t.transfer_type, t.reference,
         e.merchant_account_number as entry_merchant, a.merchant_account_number as account_merchant, a.kind, a.currency_code,
         e.amount_minor::bigint::text as amount_minor, e.created_at
    from ledger_entries e join ledger_transfers t on t.transfer_id = e.transfer_id join ledger_accounts a on a.account_id = e.account_id
   order by e.entry_id`;

describe('each merchant posts against its own system accounts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives every merchant its own row per system kind and currency, and keeps every entry of a transfer on its merchant', async () => {
    const m1 = await newMerchant(t, { accountName: 'Shop One' });
    const m2 = await newMerchant(t, { accountName: 'Shop Two' });
    for (const m of [m1, m2]) {
      expect((await topup(t, m, 250_000)).statusCode).toBe(200);
      const funded = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/merchants/${m.merchantAccountNumber}/fundings`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { amount: '10.00', bankReference: `FT-PM-${m.merchantAccountNumber}`, receivedOn: new Date().toISOString().slice(0, 10), recordedBy: 'treasury@onekhusa.example' },
      });
      expect(funded.statusCode, funded.body).toBe(201);
    }
    const ids = await withTransaction(t.db, async (tx) => ({
      m1: await systemAccountId(tx, m1.merchantAccountNumber, 'funding', 'MWK'),
      m1Again: await systemAccountId(tx, m1.merchantAccountNumber, 'funding', 'MWK'),
      m2: await systemAccountId(tx, m2.merchantAccountNumber, 'funding', 'MWK'),
      // A currency seen for the first time: created on demand, for this merchant only.
      m1Usd: await systemAccountId(tx, m1.merchantAccountNumber, 'funding', 'USD'),
    }));
    expect(ids.m1Again).toBe(ids.m1);
    expect(new Set([ids.m1, ids.m2, ids.m1Usd]).size).toBe(3);

    const { rows: accounts } = await t.db.query<{ merchant_account_number: number; kind: string; currency_code: string; is_system: boolean; balance_minor: string | null }>(
      `select merchant_account_number, kind, currency_code, is_system, balance_minor from ledger_accounts where merchant_account_number = any($1) order by 1, 2, 3`,
      [[m1.merchantAccountNumber, m2.merchantAccountNumber]],
    );
    for (const m of [m1, m2]) {
      const own = accounts.filter((a) => a.merchant_account_number === m.merchantAccountNumber);
      expect(own.filter((a) => a.is_system && a.currency_code === 'MWK').map((a) => a.kind)).toEqual(['bank_settlement', 'funding']);
      expect(own.filter((a) => a.is_system).every((a) => a.balance_minor === null)).toBe(true);
      expect(own.filter((a) => !a.is_system).every((a) => a.balance_minor !== null)).toBe(true);
    }
    expect((await t.db.query('select 1 from ledger_accounts where merchant_account_number is null')).rowCount).toBe(0);

    const { rows: entries } = await t.db.query<{ transfer_merchant: number; entry_merchant: number; account_merchant: number }>(ENTRIES);
    expect(entries.length).toBeGreaterThanOrEqual(8);
    expect(entries.filter((e) => e.account_merchant !== e.transfer_merchant || e.entry_merchant !== e.transfer_merchant)).toEqual([]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it("refuses an entry on another merchant's account (the foreign key holds it, not only the code)", async () => {
    const m1 = await newMerchant(t, { accountName: 'Shop Three' });
    const m2 = await newMerchant(t, { accountName: 'Shop Four' });
    await expect(
      withTransaction(t.db, async (tx) =>
        postTransfer(tx, {
          merchantAccountNumber: m1.merchantAccountNumber,
          type: 'topup',
          reference: 'CROSSMERCHANT',
          entries: [
            { accountId: await systemAccountId(tx, m2.merchantAccountNumber, 'funding', 'MWK'), amountMinor: -100 },
            { accountId: await merchantAccountId(tx, m1.merchantAccountNumber, 'disbursement', 'MWK'), amountMinor: 100 },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: '23503', constraint: 'ledger_entries_account_fkey' });
  });
});

describe('migration 0029 on a database with a ledger of shared system accounts', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let emptyName: string;
  let db: Db;

  beforeAll(async () => {
    // An empty database (not the migrated template), brought to the migration before this one.
    database = await createTestDatabase();
    const u = new URL(database.url);
    emptyName = `${u.pathname.slice(1)}_pm`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`create database ${emptyName}`);
    await admin.end();
    u.pathname = `/${emptyName}`;
    db = createPool(u.toString(), 2);
    await migrate(db, readMigrations().slice(0, PER_MERCHANT_MIGRATION - 1));
  });

  afterAll(async () => {
    await db?.end();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`drop database if exists ${emptyName} with (force)`);
    await admin.end();
    await database?.drop();
  });

  /** Activity as releases up to 0028 wrote it: every merchant's transfers against the shared rows. */
  async function writeActivity(): Promise<void> {
    await db.query(`
      insert into organisations (organisation_id, organisation_name) values ('ORG000000029', 'Migration Org');
      insert into merchants (merchant_account_number, organisation_id, account_name, currency_code, payment_account_number, captured_by) values
        (29000001, 'ORG000000029', 'Kwacha One', 'MWK', '2900000100', 'test'),
        (29000002, 'ORG000000029', 'Kwacha Two', 'MWK', '2900000200', 'test'),
        (29000003, 'ORG000000029', 'Dollar Three', 'USD', '2900000300', 'test');
      insert into ledger_accounts (merchant_account_number, kind, currency_code, balance_minor)
      select m.merchant_account_number, k.kind, m.currency_code, 0 from merchants m cross join (values ('collection'), ('disbursement')) k(kind);
      -- A currency first seen after 0001: its shared system row, created on demand as systemAccountId did.
      insert into ledger_accounts (merchant_account_number, kind, currency_code) values (null, 'funding', 'USD'), (null, 'bank_settlement', 'USD');`);
    const acct = async (merchant: number | null, kind: string, currency: string) =>
      (
        await db.query<{ account_id: string }>(
          'select account_id from ledger_accounts where merchant_account_number is not distinct from $1 and kind = $2 and currency_code = $3',
          [merchant, kind, currency],
        )
      ).rows[0].account_id;
    const post = async (merchant: number, type: string, reference: string, entries: Array<[string, number]>) =>
      Number(
        (
          await db.query<{ id: string }>('select ledger_post($1, $2, $3, $4::jsonb, $5::bigint[], $6::bigint[]) as id', [
            merchant,
            type,
            reference,
            '{}',
            entries.map((e) => e[0]),
            entries.map((e) => e[1]),
          ])
        ).rows[0].id,
      );
    for (const [merchant, currency, amount] of [
      [29000001, 'MWK', 500_000],
      [29000002, 'MWK', 70_000],
      [29000003, 'USD', 9_900],
    ] as const) {
      const disbursement = await acct(merchant, 'disbursement', currency);
      const collection = await acct(merchant, 'collection', currency);
      await post(merchant, 'topup', `TU${merchant}`, [[await acct(null, 'funding', currency), -amount], [disbursement, amount]]);
      await post(merchant, 'topup', `TC${merchant}`, [[await acct(null, 'funding', currency), -amount], [collection, amount]]);
      // An operator funding: from the bank_settlement account, with its record.
      const transfer = await post(merchant, 'funding', `FD${merchant}`, [[await acct(null, 'bank_settlement', currency), -1_000], [disbursement, 1_000]]);
      await db.query(
        `insert into merchant_fundings (merchant_account_number, currency_code, amount_minor, bank_reference, received_on, recorded_by, transaction_reference_number, transfer_id)
         values ($1, $2, 1000, $3, current_date, 'treasury@onekhusa.example', $4, $5)`,
        [merchant, currency, `FT-MIG-${merchant}`, `FD${merchant}`.padEnd(12, '0').slice(0, 12), transfer],
      );
    }
    // A top-up three days ago (written as ledger_post writes, at that time), so that closed days exist.
    await db.query(`
      with t as (insert into ledger_transfers (merchant_account_number, transfer_type, reference, created_at)
                 values (29000001, 'topup', 'TUOLD', now() - interval '3 days') returning transfer_id, created_at)
      insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor, created_at)
      select t.transfer_id, x.account_id, 29000001, x.amount, t.created_at from t cross join (values
        ((select account_id from ledger_accounts where merchant_account_number is null and kind = 'funding' and currency_code = 'MWK'), -3000::bigint),
        ((select account_id from ledger_accounts where merchant_account_number = 29000001 and kind = 'disbursement'), 3000::bigint)) x(account_id, amount);
      update ledger_accounts set balance_minor = balance_minor + 3000 where merchant_account_number = 29000001 and kind = 'disbursement';`);
    // Statement days of the closed days, filled before the migration (the job's own SQL of then).
    await db.query(`
      insert into ledger_account_days (merchant_account_number, account_id, day, in_minor, out_minor, movements)
      select e.merchant_account_number, e.account_id, (e.created_at at time zone 'UTC')::date, sum(e.amount_minor) filter (where e.amount_minor > 0), 0, count(*)
        from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
       where a.merchant_account_number is not null and e.created_at < current_date::timestamp at time zone 'UTC'
       group by 1, 2, 3;
      insert into ledger_account_day_marks (merchant_account_number, account_id, filled_through)
      select merchant_account_number, account_id, current_date - 1 from ledger_accounts where merchant_account_number is not null;`);
  }

  it('re-points every shared system entry to its merchant without changing any amount, balance or total', async () => {
    await writeActivity();
    const before = (await db.query(ENTRIES)).rows;
    const balancesBefore = (await db.query('select merchant_account_number, kind, currency_code, balance_minor from ledger_accounts where balance_minor is not null order by 1, 2, 3')).rows;
    const systemBefore = (
      await db.query(`select a.kind, a.currency_code, sum(e.amount_minor)::bigint::text as total from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
                       where a.merchant_account_number is null group by 1, 2 order by 1, 2`)
    ).rows;
    expect(before.filter((e) => e.account_merchant === null).length).toBe(10);

    expect(await migrate(db, readMigrations().slice(0, PER_MERCHANT_MIGRATION))).toEqual([PER_MERCHANT_MIGRATION]);

    const after = (await db.query(ENTRIES)).rows;
    // The same entries of the same transfers, amounts, times, kinds and currencies; only the
    // system entries' account changed, to one of the transfer's merchant.
    expect(after.map((e) => ({ ...e, account_merchant: null }))).toEqual(before.map((e) => ({ ...e, account_merchant: null })));
    expect(after.filter((e) => e.account_merchant !== e.transfer_merchant)).toEqual([]);
    expect((await db.query('select merchant_account_number, kind, currency_code, balance_minor from ledger_accounts where balance_minor is not null order by 1, 2, 3')).rows).toEqual(balancesBefore);
    const systemAfter = (
      await db.query(`select a.kind, a.currency_code, sum(e.amount_minor)::bigint::text as total from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
                       where a.is_system group by 1, 2 order by 1, 2`)
    ).rows;
    expect(systemAfter).toEqual(systemBefore);
    const { rows: shadows } = await db.query<{ merchant_account_number: number; kind: string; currency_code: string }>(
      'select merchant_account_number, kind, currency_code from ledger_accounts where is_system order by 1, 2, 3',
    );
    expect(shadows).toEqual([
      { merchant_account_number: 29000001, kind: 'bank_settlement', currency_code: 'MWK' },
      { merchant_account_number: 29000001, kind: 'funding', currency_code: 'MWK' },
      { merchant_account_number: 29000002, kind: 'bank_settlement', currency_code: 'MWK' },
      { merchant_account_number: 29000002, kind: 'funding', currency_code: 'MWK' },
      { merchant_account_number: 29000003, kind: 'bank_settlement', currency_code: 'USD' },
      { merchant_account_number: 29000003, kind: 'funding', currency_code: 'USD' },
    ]);
    expect(await ledgerInvariants(db)).toEqual({ total: 0, mismatched: 0 });

    // Entries stay immutable after the migration (the trigger is enabled again).
    await expect(db.query('update ledger_entries set amount_minor = amount_minor where entry_id = 1')).rejects.toThrow(/immutable/);

    // The code of this release posts on the migrated shadow accounts, and everything verifies.
    const { funding, again } = await withTransaction(db, async (tx) => {
      const funding = await systemAccountId(tx, 29000001, 'funding', 'MWK');
      await postTransfer(tx, {
        merchantAccountNumber: 29000001,
        type: 'topup',
        reference: 'TUAFTER',
        entries: [
          { accountId: funding, amountMinor: -500 },
          { accountId: await merchantAccountId(tx, 29000001, 'disbursement', 'MWK'), amountMinor: 500 },
        ],
      });
      return { funding, again: await systemAccountId(tx, 29000001, 'funding', 'MWK') };
    });
    expect(again).toBe(funding);
    expect(shadows.length).toBe(6);
    await fillLedgerAccountDays(db, new Date());
    const report = await verifyLedger(db);
    expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
    expect(report.checks.find((c) => c.name === 'statement_days')!.checked).toBeGreaterThan(0);
    expect(report.checks.find((c) => c.name === 'fundings')!.checked).toBe(3);
  });
});

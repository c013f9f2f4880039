// `npm run cli -- ledger verify`, run as a real child process against this file's database: it
// passes on real activity (collections, reversals, single payouts and batches through the API and
// the jobs), and each way of corrupting the money below fails the check that must catch it, with
// exit status 1. Entries are immutable (trigger), so corruptions go through what is mutable, or
// disable the trigger inside one transaction, as a superuser may; each test undoes its corruption.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { fillLedgerAccountDays } from '../../src/modules/ledger/days.ts';
import { CHECK_NAMES, verifyLedger, type LedgerReport } from '../../src/modules/ledger/verify.ts';
import { ADMIN_TOKEN, newMerchant, runCli, startTestApp, type CliResult, type TestApp, type TestMerchant } from '../helpers.ts';
import {
  act,
  collectionReference,
  customPayment,
  payoutLine,
  payTimed,
  readyBatch,
  requestToPay,
  reverseCollection,
  runPayouts,
  singlePayout,
  topup,
  actOnSingle,
  paidSinglePayout,
  REVIEWER,
  type PayoutSpec,
} from '../money-ops.ts';


let t: TestApp;
let m1: TestMerchant;
let m2: TestMerchant;
/** A batch transferred and still in flight (its lines T), and one completed. */
let inFlightBatch: number;
let completedBatch: number;

const wallet = (amountMinor: number, suffix = '4567'): PayoutSpec => ({ amountMinor, channel: 'wallet', suffix });
const bank = (amountMinor: number, suffix = '4567'): PayoutSpec => ({ amountMinor, channel: 'bank', suffix });

function ok(res: { statusCode: number; body: string }): void {
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  m1 = await newMerchant(t, { accountName: 'Level 1 Shop', levelNumber: 1 });
  m2 = await newMerchant(t, { accountName: 'Level 3 Shop', levelNumber: 3 });
  for (const m of [m1, m2]) {
    ok(await topup(t, m, 5_000_000));
    // An operator's record of money the bank received (production's only funding).
    const funded = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.merchantAccountNumber}/fundings`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { amount: '1000.00', bankReference: `FT-LEDGER-${m.merchantAccountNumber}`, receivedOn: new Date().toISOString().slice(0, 10), recordedBy: 'treasury@onekhusa.example' },
    });
    if (funded.statusCode !== 201) throw new Error(`${funded.statusCode} ${funded.body}`);
    ok(await customPayment(t, m, 1_234_567));
    const paid = await customPayment(t, m, 250_000);
    ok(paid);
    ok(await reverseCollection(t, m, collectionReference(paid)));
    ok(await payTimed(t, m, await requestToPay(t, m, 75_050), 75_050));
    // m2 is level 3: each is reviewed and approved before it is debited (paidSinglePayout).
    ok(await paidSinglePayout(t, m, payoutLine(wallet(20_000))));
    ok(await paidSinglePayout(t, m, payoutLine(bank(30_000, '9901'))));
    ok(await paidSinglePayout(t, m, payoutLine(wallet(40_000, '9905'))));
    ok(await paidSinglePayout(t, m, payoutLine(wallet(45_000, '9904'))));
  }
  // Single payouts never debited: one awaiting approval (reviewed), one rejected.
  const waiting = await singlePayout(t, m2, payoutLine(wallet(16_000)));
  ok(waiting);
  ok(await actOnSingle(t, m2, 'review', waiting.json().transactionReferenceNumber, REVIEWER));
  const rejected = await singlePayout(t, m2, payoutLine(bank(17_000)));
  ok(rejected);
  ok(await actOnSingle(t, m2, 'reject', rejected.json().transactionReferenceNumber, REVIEWER));
  const done = await readyBatch(t, m2, [payoutLine(wallet(11_000)), payoutLine(bank(12_000, '9901')), payoutLine(wallet(13_000, '9905')), payoutLine(wallet(500))]);
  ok(await act(t, m2, 'transferFunds', done.batchNumber));
  completedBatch = done.batchNumber;
  await runPayouts(t, m1);
  await runPayouts(t, m2);
  // Still in flight when verified: transferred, not yet processed.
  const flying = await readyBatch(t, m1, [payoutLine(wallet(21_000)), payoutLine(bank(22_000))]);
  ok(await act(t, m1, 'transferFunds', flying.batchNumber));
  inFlightBatch = flying.batchNumber;
  ok(await singlePayout(t, m1, payoutLine(bank(33_000))));
  // Neither transferred nor debited: pending, and cancelled.
  await readyBatch(t, m1, [payoutLine(wallet(14_000))]);
  const cancelled = await readyBatch(t, m2, [payoutLine(wallet(15_000))]);
  ok(await act(t, m2, 'cancel', cancelled.batchNumber));
  // The hourly job of statements: every merchant account marked as filled up to the last closed day
  // (today's entries are not in a closed day, so no day row yet).
  await fillLedgerAccountDays(t.db, new Date());
});
afterAll(() => t.close());


function cli(args: string[], env: Record<string, string | undefined> = { DATABASE_URL: t.deps.config.databaseUrl }): Promise<CliResult> {
  return runCli(args, env);
}

const failedChecks = (report: LedgerReport) => report.checks.filter((c) => c.failed > 0).map((c) => c.name).sort();
const check = (report: LedgerReport, name: string) => report.checks.find((c) => c.name === name)!;

/** Runs the CLI on the corrupted database: exit 1, the report on stdout, the failed checks named on stderr. */
async function expectCaught(expected: string[]): Promise<LedgerReport> {
  const res = await cli(['ledger', 'verify']);
  expect(res.code, res.stderr).toBe(1);
  const report = JSON.parse(res.stdout) as LedgerReport;
  expect(report.ok).toBe(false);
  expect(failedChecks(report)).toEqual([...expected].sort());
  for (const name of expected) expect(res.stderr).toContain(name);
  return report;
}

async function expectClean(): Promise<void> {
  const report = await verifyLedger(t.db);
  expect(failedChecks(report), JSON.stringify(report, null, 2)).toEqual([]);
}

/** The merchant's account of that kind: its own system accounts too (migration 0029). */
async function accountId(merchant: number, kind: string): Promise<number> {
  const { rows } = await t.db.query<{ account_id: number }>('select account_id from ledger_accounts where merchant_account_number = $1 and kind = $2', [merchant, kind]);
  return rows[0].account_id;
}

/** Deletes transfers and their entries (and what they did to merchant balances), as an operator fixing the data would. */
async function removeTransfers(where: string, params: unknown[]): Promise<void> {
  await withTransaction(t.db, async (tx) => {
    await tx.query('alter table ledger_entries disable trigger ledger_entries_no_update');
    await tx.query(
      `update ledger_accounts a set balance_minor = a.balance_minor - d.total
         from (select e.account_id, sum(e.amount_minor) as total from ledger_entries e join ledger_transfers tr using (merchant_account_number, transfer_id) where ${where} group by e.account_id) d
        where a.account_id = d.account_id and not a.is_system`,
      params,
    );
    await tx.query(`delete from ledger_entries e using ledger_transfers tr where e.transfer_id = tr.transfer_id and ${where}`, params);
    await tx.query(`delete from ledger_transfers tr where ${where}`, params);
    await tx.query('alter table ledger_entries enable trigger ledger_entries_no_update');
  });
}

describe('npm run cli -- ledger verify', () => {
  it('passes on real activity: exit 0, every check run over real rows, nothing failed', async () => {
    const res = await cli(['ledger', 'verify']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout) as LedgerReport;
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(CHECK_NAMES);
    for (const c of report.checks) {
      expect(c, c.name).toMatchObject({ failed: 0, examples: [] });
      // Payouts over a real rail need its switch: test/rails/mojaloop-payouts.test.ts runs rail_payouts over real rows.
      if (c.name === 'rail_payouts') continue;
      // Payments over a real rail likewise: test/rails/mojaloop-collections.test.ts runs rail_collections over real rows.
      if (c.name === 'rail_collections') continue;
      // Corrections come from reconciling a real rail: test/rails/mojaloop-reconciliation.test.ts.
      if (c.name === 'rail_corrections') continue;
      expect(c.checked, c.name).toBeGreaterThan(0);
      expect(c.passed).toBe(c.checked);
    }
    // What was looked at: both merchants' two accounts; 6 collections; the batches (4) and single
    // payouts (9 debited, 1 awaiting approval and 1 rejected, neither debited).
    expect(check(report, 'balances_match_entries').checked).toBe(4);
    expect(check(report, 'collection_transfers').checked).toBe(6);
    expect(check(report, 'payout_debits').checked).toBe(4 + 11);
    expect(check(report, 'statement_days').checked).toBe(4);
    // The in-flight batch and single payout are in the snapshot.
    const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from payouts where status_code = 'T'`);
    expect(rows[0].n).toBe(3);
  });

  it('catches a merchant balance that no longer equals its entries', async () => {
    await t.db.query(`update ledger_accounts set balance_minor = balance_minor + 1 where merchant_account_number = $1 and kind = 'collection'`, [m1.merchantAccountNumber]);
    try {
      const report = await expectCaught(['balances_match_entries']);
      expect(check(report, 'balances_match_entries').examples).toEqual([
        expect.objectContaining({ merchantAccountNumber: m1.merchantAccountNumber, kind: 'collection', balanceMinor: expect.any(Number), entriesSumMinor: expect.any(Number) }),
      ]);
      const [example] = check(report, 'balances_match_entries').examples as { balanceMinor: number; entriesSumMinor: number }[];
      expect(example.balanceMinor - example.entriesSumMinor).toBe(1);
    } finally {
      await t.db.query(`update ledger_accounts set balance_minor = balance_minor - 1 where merchant_account_number = $1 and kind = 'collection'`, [m1.merchantAccountNumber]);
    }
    await expectClean();
  });

  it('catches an unbalanced transfer, and money created out of nothing', async () => {
    // Written past ledger_post(), which would refuse it: one entry, crediting fees 5.00.
    await withTransaction(t.db, async (tx) => {
      const { rows } = await tx.query<{ transfer_id: number }>(
        `insert into ledger_transfers (merchant_account_number, transfer_type, reference) values ($1, 'adjustment', 'UNBALANCED1') returning transfer_id`,
        [m1.merchantAccountNumber],
      );
      await tx.query('insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor) values ($1, $2, $3, 500)', [
        rows[0].transfer_id,
        await accountId(m1.merchantAccountNumber, 'fees'),
        m1.merchantAccountNumber,
      ]);
    });
    try {
      const report = await expectCaught(['transfers_balanced', 'ledger_sums_to_zero', 'system_accounts_match_activity']);
      expect(check(report, 'transfers_balanced').examples).toEqual([
        expect.objectContaining({ transferType: 'adjustment', reference: 'UNBALANCED1', entries: 1, sumMinor: 500, merchantAccountNumber: m1.merchantAccountNumber }),
      ]);
      expect(check(report, 'ledger_sums_to_zero').examples).toEqual([expect.objectContaining({ currencyCode: 'MWK', sumMinor: 500 })]);
    } finally {
      await removeTransfers(`tr.reference = $1`, ['UNBALANCED1']);
    }
    await expectClean();
  });

  it("catches a collection whose transfer's entries were deleted", async () => {
    const { rows: found } = await t.db.query<{ transaction_reference_number: string }>(
      `select transaction_reference_number from collections where merchant_account_number = $1 and status_code = 'S' and transaction_code = 'BAM' order by collection_id limit 1`,
      [m2.merchantAccountNumber],
    );
    const reference = found[0].transaction_reference_number;
    const { rows: saved } = await t.db.query<{ entry_id: number; transfer_id: number; account_id: number; merchant_account_number: number; amount_minor: number; created_at: Date }>(
      `select e.* from ledger_entries e join ledger_transfers tr using (merchant_account_number, transfer_id) where tr.reference = $1 and tr.transfer_type = 'payment'`,
      [reference],
    );
    expect(saved).toHaveLength(3);
    await withTransaction(t.db, async (tx) => {
      await tx.query('alter table ledger_entries disable trigger ledger_entries_no_update');
      await tx.query('delete from ledger_entries where entry_id = any($1::bigint[])', [saved.map((e) => e.entry_id)]);
      await tx.query('alter table ledger_entries enable trigger ledger_entries_no_update');
    });
    try {
      // The balance column still holds the payment; its entries, the fee and the customer's side are gone.
      const report = await expectCaught(['transfers_balanced', 'balances_match_entries', 'collection_transfers', 'system_accounts_match_activity']);
      expect(check(report, 'collection_transfers').examples).toEqual([expect.objectContaining({ transactionReferenceNumber: reference, paymentTransfers: 1, creditedMinor: 0 })]);
      expect(check(report, 'transfers_balanced').examples).toEqual([expect.objectContaining({ reference, entries: 0 })]);
    } finally {
      await t.db.query(
        `insert into ledger_entries (entry_id, transfer_id, account_id, merchant_account_number, amount_minor, created_at) overriding system value
         select * from unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::integer[], $5::bigint[], $6::timestamptz[])`,
        [saved.map((e) => e.entry_id), saved.map((e) => e.transfer_id), saved.map((e) => e.account_id), saved.map((e) => e.merchant_account_number), saved.map((e) => e.amount_minor), saved.map((e) => e.created_at)],
      );
    }
    await expectClean();
  });

  it("catches payouts in flight that no longer match the payouts transferring (a payout's status changed)", async () => {
    const { rows } = await t.db.query<{ payout_id: number; due_at: Date; amount_minor: number; fee_minor: number }>(
      `select payout_id, due_at, amount_minor, fee_minor from payouts where batch_number = $1 order by line_number limit 1`,
      [inFlightBatch],
    );
    const payout = rows[0];
    // Marked failed without the worker: no refund, no settlement; the in-flight money is orphaned.
    await t.db.query(`update payouts set status_code = 'F', due_at = null, response_code = 'F101' where payout_id = $1`, [payout.payout_id]);
    try {
      const report = await expectCaught(['payouts_in_flight']);
      const [example] = check(report, 'payouts_in_flight').examples as { merchantAccountNumber: number; inFlightMinor: number; transferringMinor: number }[];
      expect(example.merchantAccountNumber).toBe(m1.merchantAccountNumber);
      expect(example.inFlightMinor - example.transferringMinor).toBe(payout.amount_minor + payout.fee_minor);
    } finally {
      await t.db.query(`update payouts set status_code = 'T', due_at = $2, response_code = 'T100' where payout_id = $1`, [payout.payout_id, payout.due_at]);
    }
    await expectClean();
  });

  it('catches a successful payout marked transferring again (settled twice, in flight once more)', async () => {
    const { rows } = await t.db.query<{ payout_id: number }>(
      `select payout_id from payouts where merchant_account_number = $1 and batch_number is null and status_code = 'S' and reverse_at is null limit 1`,
      [m2.merchantAccountNumber],
    );
    await t.db.query(`update payouts set status_code = 'T', due_at = now() + interval '1 day' where payout_id = $1`, [rows[0].payout_id]);
    try {
      await expectCaught(['payouts_in_flight', 'system_accounts_match_activity']);
    } finally {
      await t.db.query(`update payouts set status_code = 'S', due_at = null where payout_id = $1`, [rows[0].payout_id]);
    }
    await expectClean();
  });

  it('catches money credited as a funding that no operator recorded', async () => {
    await t.db.query(`select ledger_post($1, 'funding', 'NORECORD0001', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [
      m1.merchantAccountNumber,
      [await accountId(m1.merchantAccountNumber, 'bank_settlement'), await accountId(m1.merchantAccountNumber, 'disbursement')],
      [-5_000_000_00, 5_000_000_00],
    ]);
    try {
      const report = await expectCaught(['fundings']);
      expect(check(report, 'fundings').examples).toEqual([expect.objectContaining({ fundingId: null, reference: 'NORECORD0001', merchantAccountNumber: m1.merchantAccountNumber, creditedMinor: 5_000_000_00 })]);
    } finally {
      await removeTransfers(`tr.reference = $1`, ['NORECORD0001']);
    }
    await expectClean();
  });

  it('catches a single payout debited while it still awaits approval, and one debited after its rejection', async () => {
    const { rows } = await t.db.query<{ transaction_reference_number: string; status_code: string; amount_minor: number; fee_minor: number }>(
      `select transaction_reference_number, status_code, amount_minor, fee_minor from payouts
        where merchant_account_number = $1 and batch_number is null and status_code in ('P', 'X') order by status_code`,
      [m2.merchantAccountNumber],
    );
    expect(rows.map((r) => r.status_code)).toEqual(['P', 'X']);
    for (const p of rows) {
      const total = Number(p.amount_minor) + Number(p.fee_minor);
      await t.db.query(`select ledger_post($1, 'payout_debit', $2, '{}'::jsonb, $3::bigint[], $4::bigint[])`, [
        m2.merchantAccountNumber,
        p.transaction_reference_number,
        [await accountId(m2.merchantAccountNumber, 'disbursement'), await accountId(m2.merchantAccountNumber, 'payouts_in_flight')],
        [-total, total],
      ]);
      try {
        const report = await expectCaught(['payout_debits', 'payouts_in_flight']);
        expect(check(report, 'payout_debits').examples).toEqual([
          expect.objectContaining({ reference: p.transaction_reference_number, transactionReferenceNumber: p.transaction_reference_number, statusCode: p.status_code, debitExpected: false, debits: 1 }),
        ]);
      } finally {
        await removeTransfers('tr.reference = $1', [p.transaction_reference_number]);
      }
      await expectClean();
    }
  });

  it('catches a batch debited twice, though every transfer balances', async () => {
    const { rows } = await t.db.query<{ total: number }>(`select sum(amount_minor + fee_minor)::bigint as total from payouts where batch_number = $1 and status_code = 'T'`, [inFlightBatch]);
    // Through ledger_post itself: balanced, within the balance; only the domain checks can see it.
    await t.db.query(`select ledger_post($1, 'payout_debit', $2, '{}'::jsonb, $3::bigint[], $4::bigint[])`, [
      m1.merchantAccountNumber,
      `B${inFlightBatch}`,
      [await accountId(m1.merchantAccountNumber, 'disbursement'), await accountId(m1.merchantAccountNumber, 'payouts_in_flight')],
      [-rows[0].total, rows[0].total],
    ]);
    try {
      const report = await expectCaught(['payout_debits', 'payouts_in_flight']);
      expect(check(report, 'payout_debits').examples).toEqual([
        expect.objectContaining({ reference: `B${inFlightBatch}`, batchNumber: inFlightBatch, statusCode: 'T', debits: 2, expectedDebitMinor: rows[0].total, debitedMinor: 2 * rows[0].total }),
      ]);
    } finally {
      const { rows: second } = await t.db.query<{ transfer_id: number }>(`select max(transfer_id) as transfer_id from ledger_transfers where reference = $1`, [`B${inFlightBatch}`]);
      await removeTransfers('tr.transfer_id = $1', [second[0].transfer_id]);
    }
    await expectClean();
  });

  it('catches a debit for a batch that was never transferred, and a completed batch whose debit is gone', async () => {
    const { rows: pending } = await t.db.query<{ batch_number: number }>(`select batch_number from batches where merchant_account_number = $1 and status_code = 'P'`, [m1.merchantAccountNumber]);
    await t.db.query(`select ledger_post($1, 'payout_debit', $2, '{}'::jsonb, $3::bigint[], $4::bigint[])`, [
      m1.merchantAccountNumber,
      `B${pending[0].batch_number}`,
      [await accountId(m1.merchantAccountNumber, 'disbursement'), await accountId(m1.merchantAccountNumber, 'payouts_in_flight')],
      [-100, 100],
    ]);
    const { rows: saved } = await t.db.query(`select * from ledger_transfers where reference = $1 and transfer_type = 'payout_debit'`, [`B${completedBatch}`]);
    const { rows: savedEntries } = await t.db.query(`select e.* from ledger_entries e where e.transfer_id = $1`, [saved[0].transfer_id]);
    await removeTransfers('tr.transfer_id = $1', [saved[0].transfer_id]);
    try {
      const report = await expectCaught(['payout_debits', 'payouts_in_flight']);
      expect(check(report, 'payout_debits').examples).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ batchNumber: pending[0].batch_number, statusCode: 'P', debitExpected: false, debits: 1 }),
          expect.objectContaining({ batchNumber: completedBatch, statusCode: 'C', debitExpected: true, debits: 0 }),
        ]),
      );
    } finally {
      await removeTransfers('tr.reference = $1', [`B${pending[0].batch_number}`]);
      await withTransaction(t.db, async (tx) => {
        await tx.query(
          `insert into ledger_transfers (transfer_id, merchant_account_number, transfer_type, reference, metadata, created_at) overriding system value values ($1, $2, $3, $4, $5, $6)`,
          [saved[0].transfer_id, saved[0].merchant_account_number, saved[0].transfer_type, saved[0].reference, saved[0].metadata, saved[0].created_at],
        );
        for (const e of savedEntries) {
          await tx.query(`insert into ledger_entries (entry_id, transfer_id, account_id, merchant_account_number, amount_minor, created_at) overriding system value values ($1, $2, $3, $4, $5, $6)`, [
            e.entry_id,
            e.transfer_id,
            e.account_id,
            e.merchant_account_number,
            e.amount_minor,
            e.created_at,
          ]);
          await tx.query('update ledger_accounts set balance_minor = balance_minor + $2 where account_id = $1 and not is_system', [e.account_id, e.amount_minor]);
        }
      });
    }
    await expectClean();
  });

  it('catches a collection paid twice and a reversal without its collection', async () => {
    const { rows } = await t.db.query<{ transaction_reference_number: string; amount_minor: number; fee_minor: number }>(
      `select transaction_reference_number, amount_minor, fee_minor from collections where merchant_account_number = $1 and status_code = 'S' and transaction_code = 'RTP'`,
      [m1.merchantAccountNumber],
    );
    const c = rows[0];
    const accounts = [await accountId(m1.merchantAccountNumber, 'customer_payments'), await accountId(m1.merchantAccountNumber, 'collection'), await accountId(m1.merchantAccountNumber, 'fees')];
    await t.db.query(`select ledger_post($1, 'payrequest', $2, '{}'::jsonb, $3::bigint[], $4::bigint[])`, [m1.merchantAccountNumber, c.transaction_reference_number, accounts, [-c.amount_minor, c.amount_minor - c.fee_minor, c.fee_minor]]);
    await t.db.query(`select ledger_post($1, 'reversal', 'NOSUCHCOLL01', '{}'::jsonb, $2::bigint[], $3::bigint[])`, [m1.merchantAccountNumber, [accounts[0], accounts[1]], [100, -100]]);
    try {
      const report = await expectCaught(['collection_transfers', 'system_accounts_match_activity']);
      expect(check(report, 'collection_transfers').examples).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ transactionReferenceNumber: c.transaction_reference_number, collectionExists: true, paymentTransfers: 2 }),
          expect.objectContaining({ transactionReferenceNumber: 'NOSUCHCOLL01', collectionExists: false, reversalTransfers: 1 }),
        ]),
      );
    } finally {
      await removeTransfers(`(tr.reference = 'NOSUCHCOLL01' or tr.transfer_id = (select max(transfer_id) from ledger_transfers where reference = $1))`, [c.transaction_reference_number]);
    }
    await expectClean();
  });

  it('catches a negative merchant balance', async () => {
    await withTransaction(t.db, async (tx) => {
      await tx.query('alter table ledger_accounts drop constraint ledger_balance_non_negative');
      await tx.query(`update ledger_accounts set balance_minor = -500 where merchant_account_number = $1 and kind = 'disbursement'`, [m2.merchantAccountNumber]);
    });
    try {
      const report = await expectCaught(['no_negative_balances', 'balances_match_entries']);
      expect(check(report, 'no_negative_balances').examples).toEqual([expect.objectContaining({ merchantAccountNumber: m2.merchantAccountNumber, kind: 'disbursement', balanceMinor: -500 })]);
    } finally {
      await withTransaction(t.db, async (tx) => {
        await tx.query(
          `update ledger_accounts a set balance_minor = (select coalesce(sum(amount_minor), 0) from ledger_entries e where e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id)
            where merchant_account_number = $1 and kind = 'disbursement'`,
          [m2.merchantAccountNumber],
        );
        await tx.query('alter table ledger_accounts add constraint ledger_balance_non_negative check (balance_minor >= 0)');
      });
    }
    await expectClean();
  });

  it("catches a closed day's totals that differ from its entries, and a day the entries do not have", async () => {
    const account = await accountId(m1.merchantAccountNumber, 'collection');
    const { rows: marked } = await t.db.query<{ through: string }>(`select filled_through::text as through from ledger_account_day_marks where account_id = $1`, [account]);
    // A day before the mark with no entries, and a real day's totals (today's, once the day is
    // taken as closed) written one movement short.
    await t.db.query(
      `insert into ledger_account_days (merchant_account_number, account_id, day, in_minor, out_minor, movements)
       values ($1, $2, (now() at time zone 'UTC')::date - 3, 100, 0, 1)`,
      [m1.merchantAccountNumber, account],
    );
    try {
      const report = await expectCaught(['statement_days']);
      expect(check(report, 'statement_days').examples).toEqual([
        expect.objectContaining({ merchantAccountNumber: m1.merchantAccountNumber, kind: 'collection', daysDiffering: 1 }),
      ]);
      await t.db.query(`update ledger_account_day_marks set filled_through = (now() at time zone 'UTC')::date where account_id = $1`, [account]);
      await t.db.query(
        `insert into ledger_account_days (merchant_account_number, account_id, day, in_minor, out_minor, movements)
         select $1, $2, (now() at time zone 'UTC')::date, coalesce(sum(amount_minor) filter (where amount_minor > 0), 0),
                coalesce(-sum(amount_minor) filter (where amount_minor < 0), 0), count(*) - 1
           from ledger_entries where account_id = $2`,
        [m1.merchantAccountNumber, account],
      );
      expect((check(await expectCaught(['statement_days']), 'statement_days').examples[0] as { daysDiffering: number }).daysDiffering).toBe(2);
    } finally {
      await t.db.query(`delete from ledger_account_days where account_id = $1`, [account]);
      await t.db.query(`update ledger_account_day_marks set filled_through = $2::date where account_id = $1`, [account, marked[0].through]);
    }
    await expectClean();
  });

  it('exits 2 on bad usage, 1 with one line when the database cannot be reached or does not exist', async () => {
    for (const args of [['ledger'], ['ledger', 'check'], ['ledger', 'verify', '--url', 'http://localhost:8080'], ['ledger', 'verify', 'now']]) {
      const res = await cli(args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^error: /);
    }
    const badUrl = await cli(['ledger', 'verify'], { DATABASE_URL: 'mysql://nope' });
    expect(badUrl.code).toBe(2);

    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (server.address() as net.AddressInfo).port;
        server.close(() => resolve(p));
      });
    });
    const dead = await cli(['ledger', 'verify'], { DATABASE_URL: `postgres://postgres:secret-password@127.0.0.1:${port}/x` });
    expect(dead.code).toBe(1);
    expect(dead.stdout).toBe('');
    expect(dead.stderr.trim().split('\n')).toHaveLength(1);
    expect(dead.stderr).toContain('cannot connect to the database');
    expect(dead.stderr).not.toContain('secret-password');

    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-verify-'));
    try {
      const none = await cli(['ledger', 'verify'], { DATABASE_URL: undefined, DATA_DIR: empty });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('no database to open');
      expect(fs.readdirSync(empty)).toEqual([]);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

// Scheduled batches cannot lock money away (issue 13, item 6): scheduledDate at most
// SCHEDULE_MAX_DAYS ahead (addJson and addFile); a transferred batch still waiting for its day can
// be cancelled with everything refunded (amounts, fees, the daily limit it reserved) in one
// transaction, and never once its day has come or a line was sent, however the cancel and the
// payout worker interleave; the daily limit of a scheduled batch is that of its scheduled day.
// Real app, real database; jobs run directly (taskList), never by a background worker.
import type { JobHelpers } from 'graphile-worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { taskList } from '../../src/composition.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { BASE, clientError, dbState, ledgerInvariants, newMerchant, startTestApp, type InjectResult, type TestApp, type TestMerchant } from '../helpers.ts';
import { APPROVER, BATCH_ACTIONS, BANK_FEE, CAPTURER, NBM, WALLET_FEE, walletLine as wallet, type BatchAction, type Line } from '../money-ops.ts';

let t: TestApp;
let tasks: ReturnType<typeof taskList>;

beforeAll(async () => {
  // PAYOUT_TIMEOUT_SECONDS stays at its default (30 s): a line sent to the connector keeps
  // waiting for its answer for the whole test.
  t = await startTestApp();
  tasks = taskList(t.deps);
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// Helpers

let seq = 0;
const ref = () => `SCH-${Date.now().toString(36)}-${++seq}`;
const key = () => ({ 'x-idempotency-key': `sched-key-${Date.now()}-${++seq}-abcdef` });

const bank = (amount: number | string = 2000, over: Line = {}): Line => ({
  beneficiaryName: 'Thoko Phiri',
  connectorId: NBM,
  beneficiaryAccountNumber: '1001234567',
  transactionDescription: 'Supplier',
  transactionAmount: amount,
  sourceReferenceNumber: ref(),
  ...over,
});

/** YYYY-MM-DD, `offsetDays` from today (UTC, the app's clock). */
const utcDay = (offsetDays = 0) => new Date(t.clock.now().getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);

function send(who: TestMerchant, method: 'POST' | 'PUT', path: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload: payload as object });
}

async function merchant(levelNumber = 1, fundMajor = 0): Promise<TestMerchant> {
  const m = await newMerchant(t, { accountName: `Scheduling Shop ${levelNumber}`, levelNumber });
  if (fundMajor > 0) {
    const res = await send(m, 'POST', '/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: fundMajor, createdBy: CAPTURER });
    expect(res.statusCode, res.body).toBe(200);
  }
  return m;
}

const addJson = (who: TestMerchant, transactions: Line[], header: Record<string, unknown> = {}) =>
  send(who, 'POST', '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER, ...header }, transactions });

const addCsv = (who: TestMerchant, csv: string, header: Record<string, unknown> = {}) =>
  send(who, 'POST', '/disbursements/batch/addFile', {
    merchantAccountNumber: who.merchantAccountNumber,
    isBatchScheduled: false,
    contentType: 'CSV',
    fileContent: Buffer.from(csv, 'utf8').toString('base64'),
    capturedBy: CAPTURER,
    ...header,
  });

const validate = (batchNumber: number) => tasks.validate_batch!({ batchNumber }, {} as JobHelpers);
const runPayouts = (who: TestMerchant) => tasks.process_payouts!({ merchantAccountNumber: who.merchantAccountNumber }, {} as JobHelpers);

/** Submits, validates and (level 2) approves a batch scheduled for `day`: transferFunds is next. */
async function readyScheduled(who: TestMerchant, transactions: Line[], day: string): Promise<number> {
  const res = await addJson(who, transactions, { isBatchScheduled: true, scheduledDate: day });
  expect(res.statusCode, res.body).toBe(200);
  const n: number = res.json().batchNumber;
  await validate(n);
  if (who.levelNumber >= 2) await acted(who, 'approve', n, APPROVER);
  return n;
}

function act(who: TestMerchant, action: BatchAction, batchNumber: number, by = CAPTURER, headers: Record<string, string> = {}) {
  const a = BATCH_ACTIONS[action];
  return send(who, a.method, a.path, { merchantAccountNumber: who.merchantAccountNumber, batchNumber, [a.actor]: by }, headers);
}

async function acted(who: TestMerchant, action: BatchAction, batchNumber: number, by = CAPTURER) {
  const res = await act(who, action, batchNumber, by);
  expect(res.statusCode, `${action}: ${res.body}`).toBe(200);
  return res.json();
}

async function batchOf(who: TestMerchant, batchNumber: number) {
  const res = await send(who, 'POST', '/disbursements/batch/getBatch', { merchantAccountNumber: who.merchantAccountNumber, batchNumber });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function lineStatuses(batchNumber: number): Promise<string[]> {
  const { rows } = await t.db.query<{ status_code: string }>('select status_code from payouts where batch_number = $1 order by line_number', [batchNumber]);
  return rows.map((r) => r.status_code);
}

async function balanceMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ b: number }>(`select balance_minor as b from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`, [who.merchantAccountNumber]);
  return rows[0].b;
}

/** The merchant's payout_daily_totals as {"MMW 2026-05-01": amount}. */
async function dailyTotals(who: TestMerchant): Promise<Record<string, number>> {
  const { rows } = await t.db.query<{ k: string; amount_minor: number }>(
    `select transaction_code || ' ' || to_char(day, 'YYYY-MM-DD') as k, amount_minor from payout_daily_totals where merchant_account_number = $1`,
    [who.merchantAccountNumber],
  );
  return Object.fromEntries(rows.map((r) => [r.k, r.amount_minor]));
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(sql, params);
  return rows[0].n;
}

async function setLimit(who: TestMerchant, code: string, minMinor: number, maxMinor: number, dailyMinor: number): Promise<void> {
  await t.db.query(
    `update merchant_limits set minimum_amount_minor = $3, maximum_amount_minor = $4, daily_limit_minor = $5 where merchant_account_number = $1 and transaction_code = $2`,
    [who.merchantAccountNumber, code, minMinor, maxMinor, dailyMinor],
  );
}

async function expectMoneyConsistent(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
}

/** `action` is refused with `status`/`errorCode` and no table changes. */
async function refusedUnchanged(action: () => Promise<InjectResult>, status: number, errorCode: string) {
  const before = await dbState(t.db);
  const res = await action();
  const p = clientError(res, status);
  expect(p.errorCode, res.body).toBe(errorCode);
  expect(await dbState(t.db)).toEqual(before);
  return p;
}

// ---------------------------------------------------------------------------------------------
// How far ahead

describe('scheduledDate is at most SCHEDULE_MAX_DAYS (365) ahead', () => {
  it('9999-12-31 and today + 366 are refused with 400 E900 naming the latest day, on addJson and addFile; nothing is stored', async () => {
    const m = await merchant(1, 10_000);
    for (const day of ['9999-12-31', utcDay(366)]) {
      const json = await refusedUnchanged(() => addJson(m, [wallet(500)], { isBatchScheduled: true, scheduledDate: day }), 400, 'E900');
      expect(json.detail).toBe(`scheduledDate ${day} is more than 365 days ahead; use ${utcDay(365)} or an earlier day (UTC).`);
      const csv = `beneficiaryName,connectorId,beneficiaryAccountNumber,transactionAmount,sourceReferenceNumber\nChisomo Banda,112400,265991234567,500,${ref()}\n`;
      const file = await refusedUnchanged(() => addCsv(m, csv, { isBatchScheduled: true, scheduledDate: day }), 400, 'E900');
      expect(file.detail).toBe(json.detail);
    }
  });

  it('today + 365 is accepted', async () => {
    const m = await merchant(1, 10_000);
    const n = await readyScheduled(m, [wallet(500)], utcDay(365));
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P', isBatchScheduled: true, scheduledDate: utcDay(365) });
  });

  it('the bound moves with the clock', async () => {
    const m = await merchant(1);
    const far = utcDay(400);
    clientError(await addJson(m, [wallet(500)], { isBatchScheduled: true, scheduledDate: far }), 400);
    t.clock.advance(40 * 86_400_000);
    try {
      // A token of the new time.
      const later = await merchant(1);
      const res = await addJson(later, [wallet(500)], { isBatchScheduled: true, scheduledDate: far });
      expect(res.statusCode, res.body).toBe(200);
    } finally {
      t.clock.advance(-40 * 86_400_000);
    }
  });

  it('SCHEDULE_MAX_DAYS is read from the environment, default 365, a clear error when invalid', () => {
    expect(loadConfig({}).scheduleMaxDays).toBe(365);
    expect(loadConfig({ SCHEDULE_MAX_DAYS: '30' }).scheduleMaxDays).toBe(30);
    expect(() => loadConfig({ SCHEDULE_MAX_DAYS: 'a year' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHEDULE_MAX_DAYS: 'a year' })).toThrow(/SCHEDULE_MAX_DAYS/);
  });
});

describe('SCHEDULE_MAX_DAYS=7', () => {
  let short: TestApp;
  beforeAll(async () => {
    short = await startTestApp({ SCHEDULE_MAX_DAYS: '7' });
  });
  afterAll(() => short.close());

  it('today + 7 is accepted, today + 8 refused', async () => {
    const m = await newMerchant(short, { accountName: 'Short Horizon' });
    const day = (n: number) => new Date(short.clock.now().getTime() + n * 86_400_000).toISOString().slice(0, 10);
    const add = (scheduledDate: string) =>
      short.app.inject({
        method: 'POST',
        url: `${BASE}/disbursements/batch/addJson`,
        headers: m.auth,
        payload: { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: true, scheduledDate, capturedBy: CAPTURER }, transactions: [wallet(500)] },
      });
    expect((await add(day(7))).statusCode).toBe(200);
    const p = clientError(await add(day(8)), 400);
    expect(p.errorCode).toBe('E900');
    expect(p.detail).toContain('more than 7 days ahead');
  });
});

// ---------------------------------------------------------------------------------------------
// Cancelling a transferred batch before its day

describe('cancel of a transferred batch that is not yet due', () => {
  it('T → N, lines C, amounts and fees refunded in one balanced transfer, the daily limit released; the worker sends nothing', async () => {
    const m = await merchant(2, 100_000);
    const before = await balanceMinor(m);
    const day = utcDay(30);
    // Two valid lines and an invalid one (below the minimum), which stays E.
    const n = await readyScheduled(m, [wallet(1000), bank('2500.50'), wallet('99.99')], day);
    await acted(m, 'transferFunds', n, APPROVER);
    const debited = 100_000 + 250_050 + WALLET_FEE + BANK_FEE;
    expect(await balanceMinor(m)).toBe(before - debited);
    expect(await dailyTotals(m)).toEqual({ [`MMW ${day}`]: 100_000, [`MBA ${day}`]: 250_050 });

    const cancelKey = key();
    const res = await act(m, 'cancel', n, APPROVER, cancelKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ MerchantAccountNumber: m.merchantAccountNumber, BatchNumber: n, CurrencyCode: 'MWK', BatchStatusCode: 'N', NumberOfSuccessfulEntries: 0, TotalAmountOfSuccessfulEntries: 0 });

    // Everything back, exactly.
    expect(await balanceMinor(m)).toBe(before);
    expect(await lineStatuses(n)).toEqual(['C', 'C', 'E']);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'N', batchStatusDescription: 'Cancelled', cancelledBy: APPROVER, transferredBy: APPROVER, numberOfSuccessfulEntries: 0, numberOfFailedEntries: 0 });
    expect(await dailyTotals(m)).toEqual({ [`MMW ${day}`]: 0, [`MBA ${day}`]: 0 });
    const { rows: transfers } = await t.db.query<{ transfer_type: string; reference: string; disbursement: number; in_flight: number }>(
      `select t.transfer_type, t.reference,
              sum(e.amount_minor) filter (where a.kind = 'disbursement')::bigint as disbursement,
              sum(e.amount_minor) filter (where a.kind = 'payouts_in_flight')::bigint as in_flight
         from ledger_transfers t join ledger_entries e using (merchant_account_number, transfer_id) join ledger_accounts a using (merchant_account_number, account_id)
        where t.merchant_account_number = $1 and t.transfer_type like 'payout%' group by t.merchant_account_number, t.transfer_id order by t.transfer_id`,
      [m.merchantAccountNumber],
    );
    expect(transfers).toEqual([
      { transfer_type: 'payout_debit', reference: `B${n}`, disbursement: -debited, in_flight: debited },
      { transfer_type: 'payout_cancel', reference: `B${n}`, disbursement: debited, in_flight: -debited },
    ]);
    await expectMoneyConsistent();

    // The same key replays the answer, and refunds nothing twice.
    const replay = await act(m, 'cancel', n, APPROVER, cancelKey);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual(res.json());
    expect(await balanceMinor(m)).toBe(before);
    // A new request finds the batch cancelled.
    await refusedUnchanged(() => act(m, 'cancel', n, APPROVER), 402, 'E916');

    // The day comes: nothing is left to send.
    await t.db.query(`update payouts set due_at = now() where batch_number = $1 and status_code = 'T'`, [n]);
    await runPayouts(m);
    expect(await lineStatuses(n)).toEqual(['C', 'C', 'E']);
    expect(await count(`select count(*)::int as n from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle'`, [m.merchantAccountNumber])).toBe(0);
    expect(await count(`select count(*)::int as n from outbox_events where merchant_account_number = $1 and event_code like 'batch.payout.%'`, [m.merchantAccountNumber])).toBe(0);
    expect(await balanceMinor(m)).toBe(before);
    await expectMoneyConsistent();
  });

  it('at level 1 too, by the capturer (no four eyes on cancel)', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const n = await readyScheduled(m, [wallet(500)], utcDay(1));
    await acted(m, 'transferFunds', n);
    expect(await acted(m, 'cancel', n)).toMatchObject({ BatchStatusCode: 'N' });
    expect(await balanceMinor(m)).toBe(before);
    await expectMoneyConsistent();
  });

  it('refused with 402 E916 once the day has come, and nothing changes', async () => {
    const m = await merchant(1, 10_000);
    const n = await readyScheduled(m, [wallet(500), bank(600)], utcDay(2));
    await acted(m, 'transferFunds', n);
    await t.db.query('update payouts set due_at = now() where batch_number = $1', [n]);
    const p = await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
    expect(p.detail).toBe(`Batch ${n} is transferring funds: it cannot be cancelled now.`);
  });

  it('refused for a batch transferred without a schedule (due at once)', async () => {
    const m = await merchant(1, 10_000);
    const res = await addJson(m, [wallet(500)]);
    const n: number = res.json().batchNumber;
    await validate(n);
    await acted(m, 'transferFunds', n);
    await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
  });

  it('refused once a line was sent to the connector, even while its answer is awaited (line still T, due later)', async () => {
    const m = await merchant(1, 10_000);
    // 9904: the connector does not answer for PAYOUT_TIMEOUT_SECONDS (30 s).
    const n = await readyScheduled(m, [wallet(500, { beneficiaryAccountNumber: '265991239904' })], utcDay(3));
    await acted(m, 'transferFunds', n);
    await t.db.query('update payouts set due_at = now() where batch_number = $1', [n]);
    await runPayouts(m);
    const { rows } = await t.db.query<{ status_code: string; attempts: number; later: boolean }>('select status_code, attempts, due_at > now() as later from payouts where batch_number = $1', [n]);
    expect(rows).toEqual([{ status_code: 'T', attempts: 1, later: true }]);
    await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
  });

  it('refused at once, without waiting, while the payout worker holds the lines (a chunk being sent)', async () => {
    const m = await merchant(1, 10_000);
    const n = await readyScheduled(m, [wallet(500), wallet(700)], utcDay(4));
    await acted(m, 'transferFunds', n);
    // Another connection takes one line as the worker's chunk does, and keeps it.
    const worker = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await worker.connect();
    try {
      await worker.query('begin');
      await worker.query('select payout_id from payouts where merchant_account_number = $1 and batch_number = $2 and line_number = 2 for update skip locked', [m.merchantAccountNumber, n]);
      const started = Date.now();
      await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await worker.query('rollback');
      await worker.end();
    }
    // Released, the batch can be cancelled again.
    expect(await acted(m, 'cancel', n)).toMatchObject({ BatchStatusCode: 'N' });
    await expectMoneyConsistent();
  });

  it('racing the payout worker at the due time: exactly one wins, and the money adds up either way', async () => {
    const m = await merchant(1, 100_000);
    const before = await balanceMinor(m);
    const outcomes: string[] = [];
    for (let round = 0; round < 6; round++) {
      const n = await readyScheduled(m, [wallet(500), bank(600), wallet(700)], utcDay(5));
      await acted(m, 'transferFunds', n);
      // Due a moment from now: the cancel and the worker start around that moment.
      await t.db.query(`update payouts set due_at = now() + interval '40 milliseconds' where batch_number = $1`, [n]);
      await new Promise((r) => setTimeout(r, 25 + round * 5));
      const [cancel] = await Promise.all([act(m, 'cancel', n), runPayouts(m)]);
      await new Promise((r) => setTimeout(r, 50));
      await runPayouts(m);
      const lines = await lineStatuses(n);
      const status = (await batchOf(m, n)).batchStatusCode;
      if (cancel.statusCode === 200) {
        expect([status, lines]).toEqual(['N', ['C', 'C', 'C']]);
        outcomes.push('cancelled');
      } else {
        expect(clientError(cancel, 402).errorCode).toBe('E916');
        expect([status, lines]).toEqual(['C', ['S', 'S', 'S']]);
        outcomes.push('paid');
      }
    }
    const paid = outcomes.filter((o) => o === 'paid').length;
    expect(await balanceMinor(m)).toBe(before - paid * (180_000 + 2 * WALLET_FEE + BANK_FEE));
    await expectMoneyConsistent();
  });
});

// ---------------------------------------------------------------------------------------------
// The daily limit of a scheduled batch

describe('the daily limit of a scheduled batch is that of its scheduled day', () => {
  it("a batch for a later day does not use today's allowance, fills its own day's, and gives it back when cancelled", async () => {
    const m = await merchant(1, 100_000);
    // MMW: 1.00 to 1,000.00 a payout, 1,000.00 a day.
    await setLimit(m, 'MMW', 100, 100_000, 100_000);
    const day = utcDay(10);
    const a = await readyScheduled(m, [wallet(1000)], day);
    await acted(m, 'transferFunds', a);
    expect(await dailyTotals(m)).toEqual({ [`MMW ${day}`]: 100_000 });

    // Today's allowance is untouched: a single payout of the full limit goes out today.
    const single = await send(m, 'POST', '/disbursements/single/add', { merchantAccountNumber: m.merchantAccountNumber, ...wallet(1000), capturedBy: CAPTURER });
    expect(single.statusCode, single.body).toBe(200);
    expect(await dailyTotals(m)).toEqual({ [`MMW ${day}`]: 100_000, [`MMW ${utcDay()}`]: 100_000 });

    // That day is full: another batch for it is refused at transferFunds, with no partial effect.
    const b = await readyScheduled(m, [wallet(1)], day);
    const p = await refusedUnchanged(() => act(m, 'transferFunds', b), 402, 'E912');
    expect(p.detail).toContain('1,000.00');
    // Another day is not.
    const c = await readyScheduled(m, [wallet(1000)], utcDay(11));
    await acted(m, 'transferFunds', c);

    // Cancelling the first gives its day's allowance back.
    await acted(m, 'cancel', a);
    expect(await dailyTotals(m)).toMatchObject({ [`MMW ${day}`]: 0 });
    await acted(m, 'transferFunds', b);
    expect(await dailyTotals(m)).toMatchObject({ [`MMW ${day}`]: 100 });
    await expectMoneyConsistent();
  });

  it("a batch scheduled for today counts against today's total", async () => {
    const m = await merchant(1, 100_000);
    await setLimit(m, 'MMW', 100, 100_000, 100_000);
    const n = await readyScheduled(m, [wallet(600)], utcDay());
    await acted(m, 'transferFunds', n);
    expect(await dailyTotals(m)).toEqual({ [`MMW ${utcDay()}`]: 60_000 });
    const over = await send(m, 'POST', '/disbursements/single/add', { merchantAccountNumber: m.merchantAccountNumber, ...wallet(500), capturedBy: CAPTURER });
    expect(clientError(over, 402).errorCode).toBe('E912');
  });
});

// ---------------------------------------------------------------------------------------------
// Last in this file: it leaves the ledger deliberately wrong.

describe('ledger verify knows cancelled transfers', () => {
  it('a refund booked twice is caught by payout_debits', async () => {
    const m = await merchant(1, 10_000);
    const n = await readyScheduled(m, [wallet(500)], utcDay(6));
    await acted(m, 'transferFunds', n);
    await acted(m, 'cancel', n);
    await expectMoneyConsistent();
    await t.db.query(
      `select ledger_post($1, 'payout_cancel', $2, '{}'::jsonb,
              array[(select account_id from ledger_accounts where merchant_account_number = $1 and kind = 'payouts_in_flight' and currency_code = 'MWK'),
                    (select account_id from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement')]::bigint[],
              array[-60000, 60000]::bigint[])`,
      [m.merchantAccountNumber, `B${n}`],
    );
    const report = await verifyLedger(t.db);
    const debits = report.checks.find((c) => c.name === 'payout_debits')!;
    expect(debits.failed).toBe(1);
    expect(debits.examples).toEqual([expect.objectContaining({ reference: `B${n}`, batchNumber: n, statusCode: 'N', cancels: 2, refundedMinor: 120_000 })]);
  });
});

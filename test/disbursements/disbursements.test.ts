// Disbursements (product.md §9): batches (E8, E3, E4, getBatch, getTransaction), the validation
// job, the approval lifecycle at levels 1–3 with four eyes, transferFunds (balance, daily limits,
// scheduled batches), the payout worker with the sandbox connector's magic suffixes, the events,
// idempotency, concurrency and single payouts, against the real app and database: the ledger, the
// outbox and the job queue. Jobs are run directly (taskList), never by a background worker.
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskList } from '../../src/composition.ts';
import { BATCH_ACTIONS as ACTIONS, walletLine as wallet, type BatchAction as Action, type Line } from '../money-ops.ts';
import { BASE, clientError, dbState, ledgerInvariants, newMerchant, problemOf, startTestApp, type InjectResult, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let tasks: ReturnType<typeof taskList>;

/** Wallet connector: MMW, fee MWK 100.00 flat, minimum 100.00, maximum 10,000,000.00. */
const AIRTEL = 112400;
/** Bank connector: MBA, fee MWK 150.00 flat. */
const NBM = 212188;
/** Centenary Bank: made inactive for this file (no connector is seeded inactive). */
const INACTIVE = 222100;
/** CDH Investment Bank: active, but payouts disallowed for this file. */
const NO_PAYOUTS = 222000;
/** Ecobank: switched off while one test's payouts are in flight. */
const ECOBANK = 221900;
const WALLET_FEE = 10_000;
const BANK_FEE = 15_000;

const CAPTURER = 'capturer@shop.mw';
const REVIEWER = 'reviewer@shop.mw';
const APPROVER = 'approver@shop.mw';

beforeAll(async () => {
  // Time-outs (9904) and reversals (9905) come due at once: the next worker pass resolves them.
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  tasks = taskList(t.deps);
  // This file's own database: the changes stay here.
  await t.db.query('update connectors set is_active = false where connector_id = $1', [INACTIVE]);
  await t.db.query('update connectors set is_disbursement_allowed = false where connector_id = $1', [NO_PAYOUTS]);
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// Helpers

type Method = 'POST' | 'PUT';

function send(who: TestMerchant, method: Method, path: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload: payload as object });
}

let refSeq = 0;
/** A fresh sourceReferenceNumber. */
const ref = () => `SRC-${Date.now().toString(36)}-${++refSeq}`;
let keySeq = 0;
/** A fresh, valid idempotency key. */
const idemKey = () => `disb-key-${Date.now()}-${++keySeq}-abcdef`;


/** A payout to an NBM bank account. */
const bank = (amount: number | string = 2000, over: Line = {}): Line => ({
  beneficiaryName: 'Thoko Phiri',
  connectorId: NBM,
  beneficiaryAccountNumber: '1001234567',
  transactionDescription: 'Supplier',
  transactionAmount: amount,
  sourceReferenceNumber: ref(),
  ...over,
});

/** A wallet / bank account number ending in `suffix` (4 digits). */
const walletEnding = (suffix: string) => `26599123${suffix}`;
const bankEnding = (suffix: string) => `100123${suffix}`;

async function merchant(levelNumber = 1, fundMajor = 0): Promise<TestMerchant> {
  const m = await newMerchant(t, { accountName: `Level ${levelNumber} Shop`, levelNumber });
  if (fundMajor > 0) await topup(m, fundMajor);
  return m;
}

async function topup(who: TestMerchant, amountMajor: number): Promise<void> {
  const res = await send(who, 'POST', '/merchants/accounts/topup', { merchantAccountNumber: who.merchantAccountNumber, connectorId: NBM, topupAmount: amountMajor, createdBy: CAPTURER });
  expect(res.statusCode, res.body).toBe(200);
}

const addJson = (who: TestMerchant, transactions: unknown, header: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  send(who, 'POST', '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER, ...header }, transactions }, headers);

/** Submits a batch (still Q); returns its number. */
async function submitted(who: TestMerchant, transactions: Line[], header: Record<string, unknown> = {}): Promise<number> {
  const res = await addJson(who, transactions, header);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body).toEqual({ merchantAccountNumber: who.merchantAccountNumber, batchNumber: expect.any(Number), BatchStatusCode: 'Q' });
  return body.batchNumber;
}

const validate = (batchNumber: number) => tasks.validate_batch!({ batchNumber }, {} as JobHelpers);
const runPayouts = (who: TestMerchant) => tasks.process_payouts!({ merchantAccountNumber: who.merchantAccountNumber }, {} as JobHelpers);

/** Submits and validates a batch; returns its number. */
async function newBatch(who: TestMerchant, transactions: Line[], header: Record<string, unknown> = {}): Promise<number> {
  const batchNumber = await submitted(who, transactions, header);
  await validate(batchNumber);
  return batchNumber;
}

const getBatch = (who: TestMerchant, batchNumber: number, headers: Record<string, string> = {}) =>
  send(who, 'POST', '/disbursements/batch/getBatch', { merchantAccountNumber: who.merchantAccountNumber, batchNumber }, headers);

async function batchOf(who: TestMerchant, batchNumber: number) {
  const res = await getBatch(who, batchNumber);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

interface PayoutView {
  batchNumber: number | null;
  lineNumber: number | null;
  transactionReferenceNumber: string;
  sourceReferenceNumber: string;
  beneficiaryName: string;
  beneficiaryAccountNumber: string;
  transactionAmount: number;
  transactionFee: number;
  transactionCode: string | null;
  transactionStatusCode: string;
  transactionStatusName: string;
  errorMessage: string | null;
  responseCode: string | null;
  responseMessage: string | null;
  dateReversed: string | null;
}

const getTransactions = (who: TestMerchant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(who, 'POST', '/disbursements/batch/getTransactions', { merchantAccountNumber: who.merchantAccountNumber, ...body }, headers);

/** E3 for one batch (1000 rows: all of a small batch). */
async function linesOf(who: TestMerchant, batchNumber: number, over: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<PayoutView[]> {
  const res = await getTransactions(who, { batchNumber, numberOfReturnedRows: 1000, ...over }, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().message;
}

const ALL_ACTIONS = Object.keys(ACTIONS) as Action[];

function act(who: TestMerchant, action: Action, batchNumber: number, by = CAPTURER, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const a = ACTIONS[action];
  const payload = { merchantAccountNumber: who.merchantAccountNumber, batchNumber, [a.actor]: by, ...(action === 'reject' ? { reasonForRejection: 'Amounts do not match the payroll' } : {}), ...extra };
  return send(who, a.method, a.path, payload, headers);
}

async function acted(who: TestMerchant, action: Action, batchNumber: number, by = CAPTURER) {
  const res = await act(who, action, batchNumber, by);
  expect(res.statusCode, `${action}: ${res.body}`).toBe(200);
  return res.json();
}

const singleAdd = (who: TestMerchant, line: Line, headers: Record<string, string> = {}) =>
  send(who, 'POST', '/disbursements/single/add', { merchantAccountNumber: who.merchantAccountNumber, ...line, capturedBy: CAPTURER }, headers);

async function single(who: TestMerchant, line: Line): Promise<string> {
  const res = await singleAdd(who, line);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().transactionReferenceNumber;
}

const getOne = (who: TestMerchant, kind: 'batch' | 'single', transactionReferenceNumber: string, headers: Record<string, string> = {}) =>
  send(who, 'POST', `/disbursements/${kind}/getTransaction`, { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber }, headers);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(sql, params);
  return rows[0].n;
}

/** The merchant's disbursement balance in tambala, from the ledger. */
async function balanceMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ b: number }>(`select balance_minor as b from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`, [who.merchantAccountNumber]);
  return rows[0].b;
}

/** The balance merchants see (GET /merchants/accounts/get). */
async function apiBalance(who: TestMerchant): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: who.auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().disbursmentBalance;
}

interface EventRow {
  event_code: string;
  payload: any;
}

async function eventsOf(who: TestMerchant, code?: string): Promise<EventRow[]> {
  const { rows } = await t.db.query<EventRow>(
    `select event_code, payload from outbox_events where merchant_account_number = $1 and ($2::text is null or event_code = $2) order by event_id`,
    [who.merchantAccountNumber, code ?? null],
  );
  return rows;
}

/** How many times each transaction reference appears in the merchant's `code` events. */
async function referencesIn(who: TestMerchant, code: string): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (const e of await eventsOf(who, code)) for (const tr of e.payload.transactions) seen.set(tr.transactionReferenceNumber, (seen.get(tr.transactionReferenceNumber) ?? 0) + 1);
  return seen;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the payout worker until nothing is due (time-outs and reversals included). */
async function settle(who: TestMerchant): Promise<void> {
  for (let pass = 0; pass < 5; pass++) {
    await runPayouts(who);
    const due = await count(
      `select count(*)::int as n from payouts where merchant_account_number = $1
          and ((status_code = 'T' and due_at <= now()) or (status_code = 'S' and reverse_at is not null and reverse_at <= now()))`,
      [who.merchantAccountNumber],
    );
    if (due === 0) return;
    await sleep(1100);
  }
  throw new Error('payouts did not settle');
}

async function expectLedgerBalanced(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
}

/** Runs `action` (which must be refused with `status`/`errorCode`) and checks that no table changed. */
async function refusedUnchanged(action: () => Promise<InjectResult>, status: number, errorCode: string) {
  const before = await dbState(t.db);
  const res = await action();
  const p = clientError(res, status);
  expect(p.errorCode, res.body).toBe(errorCode);
  expect(await dbState(t.db)).toEqual(before);
  return p;
}

async function setLimit(who: TestMerchant, code: string, minMinor: number, maxMinor: number, dailyMinor: number): Promise<void> {
  await t.db.query(
    `update merchant_limits set minimum_amount_minor = $3, maximum_amount_minor = $4, daily_limit_minor = $5 where merchant_account_number = $1 and transaction_code = $2`,
    [who.merchantAccountNumber, code, minMinor, maxMinor, dailyMinor],
  );
}

async function payoutDebits(reference: string): Promise<number> {
  return count(`select count(*)::int as n from ledger_transfers where transfer_type = 'payout_debit' and reference = $1`, [reference]);
}

const utcDay = (offsetDays = 0) => new Date(t.clock.now().getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// The lifecycle, end to end

describe('batch lifecycle', () => {
  it('level 1: P (lines D) → transferFunds → T → C, debiting valid amounts plus fees once', async () => {
    const m = await merchant(1, 100_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(1000), bank('2500.50'), wallet('99.99')]);

    const b = await batchOf(m, n);
    expect(b).toMatchObject({
      merchantAccountNumber: m.merchantAccountNumber,
      batchNumber: n,
      batchStatusCode: 'P',
      batchStatusDescription: 'Pending Funds Transfer',
      uploadType: 'JSON',
      currencyCode: 'MWK',
      levelNumber: 1,
      isBatchScheduled: false,
      scheduledDate: null,
      processDate: null,
      capturedBy: CAPTURER,
      numberOfEntries: 3,
      numberOfValidEntries: 2,
      numberOfInvalidEntries: 1,
      numberOfSuccessfulEntries: 0,
      totalAmount: 3500.5,
      totalFees: 250,
      errorMessage: null,
    });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['D', 'D', 'E']);

    const received = await eventsOf(m, 'batch.received');
    expect(received).toHaveLength(1);
    expect(received[0].payload).toEqual({
      eventCode: 'batch.received',
      merchantAccountNumber: m.merchantAccountNumber,
      isBatchScheduled: false,
      scheduledDate: null,
      uploadType: 'JSON',
      capturerEmailAddress: CAPTURER,
      dateCaptured: utcDay(),
      errorMessage: null,
      metaData: { batchNumber: String(n), totalAmount: '3500.50', numberOfTransactions: '2', dateOccurred: expect.any(String) },
    });

    // Level 1: the initiator transfers (no four eyes on transferFunds).
    const res = await acted(m, 'transferFunds', n, CAPTURER);
    expect(res).toEqual({ MerchantAccountNumber: m.merchantAccountNumber, BatchNumber: n, CurrencyCode: 'MWK', BatchStatusCode: 'T', NumberOfSuccessfulEntries: 0, TotalAmountOfSuccessfulEntries: 0 });
    const debited = 100_000 + 250_050 + WALLET_FEE + BANK_FEE;
    expect(await balanceMinor(m)).toBe(before - debited);
    expect(await payoutDebits(`B${n}`)).toBe(1);
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['T', 'T', 'E']);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'T', batchStatusDescription: 'Transferring Funds', transferredBy: CAPTURER, processDate: utcDay() });

    await settle(m);
    const done = await batchOf(m, n);
    expect(done).toMatchObject({
      batchStatusCode: 'C',
      batchStatusDescription: 'Processed',
      numberOfSuccessfulEntries: 2,
      numberOfFailedEntries: 0,
      numberOfReversedEntries: 0,
      totalAmountOfSuccessfulEntries: 3500.5,
      totalAmountOfFailedEntries: 0,
    });
    expect(done.dateCompleted).toEqual(expect.any(String));
    const lines = await linesOf(m, n);
    expect(lines.map((l) => [l.transactionStatusCode, l.responseCode, l.responseMessage])).toEqual([
      ['S', 'S100', 'Transaction successful'],
      ['S', 'S100', 'Transaction successful'],
      ['E', null, null],
    ]);
    expect(await balanceMinor(m)).toBe(before - debited);
    expect(await apiBalance(m)).toBe((before - debited) / 100);
    const success = await eventsOf(m, 'batch.payout.success');
    expect(success).toHaveLength(1);
    expect(success[0].payload).toMatchObject({ eventCode: 'batch.payout.success', merchantAccountNumber: m.merchantAccountNumber, numberOfTransactions: 2 });
    expect(success[0].payload.transactions.map((x: PayoutView) => x.transactionReferenceNumber).sort()).toEqual(lines.slice(0, 2).map((l) => l.transactionReferenceNumber).sort());
    await expectLedgerBalanced();
  });

  it('level 2: P (lines P) → approve → A (lines D) → transferFunds → C', async () => {
    const m = await merchant(2, 100_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(500), bank(700)]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P', batchStatusDescription: 'Pending Approval', levelNumber: 2 });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['P', 'P']);

    // Not before approval.
    await refusedUnchanged(() => act(m, 'transferFunds', n, APPROVER), 402, 'E916');

    expect(await acted(m, 'approve', n, APPROVER)).toMatchObject({ BatchStatusCode: 'A', BatchNumber: n });
    const approved = await batchOf(m, n);
    expect(approved).toMatchObject({ batchStatusCode: 'A', batchStatusDescription: 'Approved', approvedBy: APPROVER, reviewedBy: null });
    expect(approved.dateApproved).toEqual(expect.any(String));
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['D', 'D']);
    expect(await balanceMinor(m)).toBe(before);

    expect(await acted(m, 'transferFunds', n, APPROVER)).toMatchObject({ BatchStatusCode: 'T' });
    const debited = 50_000 + 70_000 + WALLET_FEE + BANK_FEE;
    expect(await balanceMinor(m)).toBe(before - debited);
    await settle(m);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfSuccessfulEntries: 2, totalAmountOfSuccessfulEntries: 1200, transferredBy: APPROVER });
    expect(await balanceMinor(m)).toBe(before - debited);
    await expectLedgerBalanced();
  });

  it('level 3: P → review → R → approve → A → transferFunds → C', async () => {
    const m = await merchant(3, 100_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(800), wallet(900)]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P', batchStatusDescription: 'Pending Review', levelNumber: 3 });

    // Level 3 needs a review before approval, and both before the transfer.
    await refusedUnchanged(() => act(m, 'approve', n, APPROVER), 402, 'E916');
    await refusedUnchanged(() => act(m, 'transferFunds', n, APPROVER), 402, 'E916');

    expect(await acted(m, 'review', n, REVIEWER)).toMatchObject({ BatchStatusCode: 'R' });
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'R', batchStatusDescription: 'Reviewed', reviewedBy: REVIEWER, approvedBy: null });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['P', 'P']);
    await refusedUnchanged(() => act(m, 'review', n, APPROVER), 402, 'E916');
    await refusedUnchanged(() => act(m, 'transferFunds', n, APPROVER), 402, 'E916');

    expect(await acted(m, 'approve', n, APPROVER)).toMatchObject({ BatchStatusCode: 'A' });
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'A', reviewedBy: REVIEWER, approvedBy: APPROVER });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['D', 'D']);

    expect(await acted(m, 'transferFunds', n, CAPTURER)).toMatchObject({ BatchStatusCode: 'T' });
    await settle(m);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfSuccessfulEntries: 2, totalAmountOfSuccessfulEntries: 1700 });
    expect(await balanceMinor(m)).toBe(before - 170_000 - 2 * WALLET_FEE);
    await expectLedgerBalanced();
  });

  it.each([
    [1, [] as Action[]],
    [2, [] as Action[]],
    [3, [] as Action[]],
    [3, ['review'] as Action[]],
  ])('reject at level %i after %j: X with the reason in getBatch, lines X, invalid lines stay E, no money moves', async (level, steps) => {
    const m = await merchant(level, 10_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(500), bank(600), bank(700, { beneficiaryAccountNumber: '12' })]);
    for (const step of steps) await acted(m, step, n, REVIEWER);
    const res = await act(m, 'reject', n, 'Boss@Shop.mw', {}, { reasonForRejection: 'Wrong month' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ MerchantAccountNumber: m.merchantAccountNumber, BatchNumber: n, CurrencyCode: 'MWK', BatchStatusCode: 'X', NumberOfSuccessfulEntries: 0, TotalAmountOfSuccessfulEntries: 0 });
    const b = await batchOf(m, n);
    expect(b).toMatchObject({ batchStatusCode: 'X', batchStatusDescription: 'Rejected', rejectedBy: 'Boss@Shop.mw', rejectionReason: 'Wrong month' });
    expect(b.dateRejected).toEqual(expect.any(String));
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['X', 'X', 'E']);
    expect(await balanceMinor(m)).toBe(before);
    // Final: nothing more can happen to it.
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(m, action, n, 'someone@shop.mw'), 402, 'E916');
  });

  it.each([
    [1, [] as Action[]],
    [2, [] as Action[]],
    [2, ['approve'] as Action[]],
    [3, ['review'] as Action[]],
    [3, ['review', 'approve'] as Action[]],
  ])('cancel at level %i after %j: N, every valid line C, no money moves', async (level, steps) => {
    const m = await merchant(level, 10_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(500), bank(600), wallet(1)]);
    const actors: Record<string, string> = { review: REVIEWER, approve: APPROVER };
    for (const step of steps) await acted(m, step, n, actors[step]);
    expect(await acted(m, 'cancel', n, 'ops@shop.mw')).toMatchObject({ BatchStatusCode: 'N' });
    const b = await batchOf(m, n);
    expect(b).toMatchObject({ batchStatusCode: 'N', batchStatusDescription: 'Cancelled', cancelledBy: 'ops@shop.mw' });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['C', 'C', 'E']);
    expect(await balanceMinor(m)).toBe(before);
    expect(await payoutDebits(`B${n}`)).toBe(0);
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(m, action, n, 'someone@shop.mw'), 402, 'E916');
  });
});

// ---------------------------------------------------------------------------------------------
// Four eyes and wrong states

describe('four eyes', () => {
  it('level 2: the capturer may not approve, whatever the case of the address', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(500)]);
    const p = await refusedUnchanged(() => act(m, 'approve', n, 'CAPTURER@Shop.MW'), 403, 'E902');
    expect(p.detail).toBe(`CAPTURER@Shop.MW already acted on batch ${n} as capturer; another user must approve it.`);
    expect(await acted(m, 'approve', n, APPROVER)).toMatchObject({ BatchStatusCode: 'A' });
  });

  it('level 3: reviewer ≠ capturer; approver ≠ capturer and ≠ reviewer', async () => {
    const m = await merchant(3);
    const n = await newBatch(m, [wallet(500)]);
    await refusedUnchanged(() => act(m, 'review', n, CAPTURER.toUpperCase()), 403, 'E902');
    await acted(m, 'review', n, REVIEWER);
    const asReviewer = await refusedUnchanged(() => act(m, 'approve', n, 'Reviewer@SHOP.mw'), 403, 'E902');
    expect(asReviewer.detail).toContain('as reviewer');
    const asCapturer = await refusedUnchanged(() => act(m, 'approve', n, CAPTURER), 403, 'E902');
    expect(asCapturer.detail).toContain('as capturer');
    expect(await acted(m, 'approve', n, APPROVER)).toMatchObject({ BatchStatusCode: 'A' });
    expect(await batchOf(m, n)).toMatchObject({ capturedBy: CAPTURER, reviewedBy: REVIEWER, approvedBy: APPROVER });
  });

  it('a wrong state is reported before four eyes (E916, not E902)', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(500)]);
    await acted(m, 'cancel', n, CAPTURER);
    await refusedUnchanged(() => act(m, 'approve', n, CAPTURER), 402, 'E916');
  });
});

describe('wrong-state actions answer 402 E916 and change nothing', () => {
  it('approving a cancelled batch', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(500)]);
    await acted(m, 'cancel', n, CAPTURER);
    const p = await refusedUnchanged(() => act(m, 'approve', n, APPROVER), 402, 'E916');
    expect(p.detail).toBe(`Batch ${n} is cancelled: it cannot be approved now.`);
    expect(p.type).toBe('urn:onekhusa-sandbox:problem:invalid-state');
  });

  it('reviewing at level 2, approving or reviewing at level 1', async () => {
    const m2 = await merchant(2);
    const n2 = await newBatch(m2, [wallet(500)]);
    const p = await refusedUnchanged(() => act(m2, 'review', n2, REVIEWER), 402, 'E916');
    expect(p.detail).toBe(`Batch ${n2} is pending: it cannot be reviewed now.`);
    const m1 = await merchant(1);
    const n1 = await newBatch(m1, [wallet(500)]);
    await refusedUnchanged(() => act(m1, 'approve', n1, APPROVER), 402, 'E916');
    await refusedUnchanged(() => act(m1, 'review', n1, REVIEWER), 402, 'E916');
  });

  it('rejecting an approved batch (reject only from P or R)', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(500)]);
    await acted(m, 'approve', n, APPROVER);
    await refusedUnchanged(() => act(m, 'reject', n, APPROVER), 402, 'E916');
  });

  it('cancelling or rejecting a transferring batch, transferring twice, and anything on a completed batch', async () => {
    const m = await merchant(1, 10_000);
    const n = await newBatch(m, [wallet(500), bank(500)]);
    await acted(m, 'transferFunds', n);
    const balance = await balanceMinor(m);
    const p = await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
    expect(p.detail).toBe(`Batch ${n} is transferring funds: it cannot be cancelled now.`);
    await refusedUnchanged(() => act(m, 'reject', n), 402, 'E916');
    await refusedUnchanged(() => act(m, 'transferFunds', n), 402, 'E916');
    expect(await payoutDebits(`B${n}`)).toBe(1);
    await settle(m);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C' });
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(m, action, n, APPROVER), 402, 'E916');
    expect(await balanceMinor(m)).toBe(balance);
    expect(await payoutDebits(`B${n}`)).toBe(1);
  });

  it('every action on a batch in error (no valid line)', async () => {
    const m = await merchant(3, 10_000);
    const n = await newBatch(m, [wallet(1), bank(1)]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'E' });
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(m, action, n, APPROVER), 402, 'E916');
  });

  it.each([
    ['reject without a reason', 'reject', { reasonForRejection: undefined }],
    ['reject with an empty reason', 'reject', { reasonForRejection: '' }],
    ['an actor that is not an e-mail address', 'cancel', { cancelledBy: 'bob' }],
    ['a batch number of 0', 'cancel', { batchNumber: 0 }],
  ] as const)('%s answers 400 E900 and changes nothing', async (_name, action, extra) => {
    const m = await merchant(1);
    const n = await newBatch(m, [wallet(500)]);
    await refusedUnchanged(() => act(m, action, n, CAPTURER, {}, extra), 400, 'E900');
  });

  it('an action on a queued batch answers 409 E906 with Retry-After', async () => {
    const m = await merchant(1, 10_000);
    const n = await submitted(m, [wallet(500)]);
    for (const action of ALL_ACTIONS) {
      const before = await dbState(t.db);
      const res = await act(m, action, n, APPROVER);
      expect(clientError(res, 409).errorCode).toBe('E906');
      expect(res.headers['retry-after']).toBe('1');
      expect(await dbState(t.db)).toEqual(before);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Money rules at transferFunds

describe('transferFunds: balance and daily limit', () => {
  it('insufficient balance (amounts fit, fees do not) → 402 E911, the batch stays A and nothing moves; a top-up then lets it through', async () => {
    const m = await merchant(2, 1000);
    const n = await newBatch(m, [wallet(500), bank(400)]); // 900 + 250 fees > 1000
    await acted(m, 'approve', n, APPROVER);
    const before = await balanceMinor(m);
    const p = await refusedUnchanged(() => act(m, 'transferFunds', n, APPROVER), 402, 'E911');
    expect(p.detail).toBe('The account balance is too low for this transaction.');
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'A', transferredBy: null });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['D', 'D']);
    expect(await balanceMinor(m)).toBe(before);
    expect(await count(`select count(*)::int as n from payout_daily_totals where merchant_account_number = $1`, [m.merchantAccountNumber])).toBe(0);

    await topup(m, 150);
    expect(await acted(m, 'transferFunds', n, APPROVER)).toMatchObject({ BatchStatusCode: 'T' });
    expect(await balanceMinor(m)).toBe(0);
    await settle(m);
    await expectLedgerBalanced();
  });

  it('insufficient balance at level 1 → the batch stays P with lines D', async () => {
    const m = await merchant(1);
    const n = await newBatch(m, [wallet(500)]);
    await refusedUnchanged(() => act(m, 'transferFunds', n), 402, 'E911');
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P' });
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['D']);
  });

  it('the daily limit counts every transfer of the day per transaction code → 402 E912 with no partial effect', async () => {
    const m = await merchant(1, 100_000);
    await setLimit(m, 'MBA', 10_000, 100_000, 150_000); // MBA: 100.00–1,000.00, 1,500.00 a day
    const tooMuch = await newBatch(m, [bank(1000), bank(600)]);
    const p = await refusedUnchanged(() => act(m, 'transferFunds', tooMuch), 402, 'E912');
    expect(p.detail).toBe("This MBA transaction would take today's total to 1,600.00, above the daily limit of 1,500.00.");
    expect(await batchOf(m, tooMuch)).toMatchObject({ batchStatusCode: 'P' });

    const first = await newBatch(m, [bank(1000)]);
    await acted(m, 'transferFunds', first);
    const second = await newBatch(m, [bank(500)]);
    await acted(m, 'transferFunds', second); // exactly 1,500.00
    const third = await newBatch(m, [bank(100)]);
    await refusedUnchanged(() => act(m, 'transferFunds', third), 402, 'E912');
    // Single payouts count against the same total.
    await refusedUnchanged(() => singleAdd(m, bank(100)), 402, 'E912');
    // Another transaction code has its own limit.
    const wallets = await newBatch(m, [wallet(2000)]);
    await acted(m, 'transferFunds', wallets);
    expect(await count(`select count(*)::int as n from payout_daily_totals where merchant_account_number = $1 and transaction_code = 'MBA' and amount_minor = 150000`, [m.merchantAccountNumber])).toBe(1);
    await settle(m);
    await expectLedgerBalanced();
  });
});

// ---------------------------------------------------------------------------------------------
// The validation job

describe('validation', () => {
  it('marks invalid lines E with their reason in en and ny; the first occurrence of a duplicate reference stays valid', async () => {
    const m = await merchant(1);
    const dup = ref();
    const n = await newBatch(m, [
      wallet(1000, { sourceReferenceNumber: dup }), // 1 valid
      wallet(1000, { connectorId: 999999 }), // 2 unknown connector
      bank(1000, { connectorId: INACTIVE }), // 3 inactive connector
      bank(1000, { connectorId: NO_PAYOUTS }), // 4 payouts not allowed
      wallet(1000, { beneficiaryAccountNumber: '0991234567' }), // 5 wallet format
      bank(1000, { beneficiaryAccountNumber: '123456789' }), // 6 bank format (9 digits)
      wallet('99.99'), // 7 below the MMW minimum
      wallet('10000000.01'), // 8 above the MMW maximum
      bank(1000, { sourceReferenceNumber: dup }), // 9 duplicate of line 1
      wallet(100, { beneficiaryAccountNumber: '111100000112' }), // 10 documented test wallet, exactly the minimum
      bank(1000, { beneficiaryAccountNumber: '1234567890123456' }), // 11 16-digit bank account
    ]);
    const en = await linesOf(m, n);
    expect(en.map((l) => [l.lineNumber, l.transactionStatusCode, l.errorMessage])).toEqual([
      [1, 'D', null],
      [2, 'E', 'Connector 999999 does not exist.'],
      [3, 'E', `Connector ${INACTIVE} is inactive.`],
      [4, 'E', `Connector ${NO_PAYOUTS} does not take payouts.`],
      [5, 'E', 'A wallet account must be a 12-digit number starting with 265.'],
      [6, 'E', 'A bank account number must have 10 to 16 digits.'],
      [7, 'E', 'The amount is below the minimum of 100.00 for MMW.'],
      [8, 'E', 'The amount is above the maximum of 10,000,000.00 for MMW.'],
      [9, 'E', 'The sourceReferenceNumber is already used on line 1.'],
      [10, 'D', null],
      [11, 'D', null],
    ]);
    expect(en.map((l) => l.transactionStatusName)).toContain('Error');
    // Invalid lines carry no fee; valid ones their code's fee.
    expect(en.map((l) => l.transactionFee)).toEqual([100, 0, 0, 0, 0, 0, 0, 0, 0, 100, 150]);
    expect(en[1].transactionCode).toBeNull();

    const ny = await linesOf(m, n, {}, { 'accept-language': 'ny' });
    expect(ny.map((l) => l.errorMessage)).toEqual([
      null,
      'Cholumikizira 999999 palibe.',
      `Cholumikizira ${INACTIVE} sichikugwira ntchito.`,
      `Cholumikizira ${NO_PAYOUTS} sichitumiza malipiro.`,
      'Akaunti ya chikwama iyenera kukhala manambala 12 oyamba ndi 265.',
      'Nambala ya akaunti ya banki iyenera kukhala ndi manambala 10 mpaka 16.',
      'Ndalamayi ndi yochepa kuposa 100.00 ya MMW.',
      'Ndalamayi ndi yochuluka kuposa 10,000,000.00 ya MMW.',
      'sourceReferenceNumber yagwiritsidwa kale ntchito pa mzere 1.',
      null,
      null,
    ]);
    const one = await getOne(m, 'batch', en[6].transactionReferenceNumber, { 'accept-language': 'ny' });
    expect(one.json().errorMessage).toBe('Ndalamayi ndi yochepa kuposa 100.00 ya MMW.');

    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P', numberOfEntries: 11, numberOfValidEntries: 3, numberOfInvalidEntries: 8, totalAmount: 2100, totalFees: 350 });
    const [received] = await eventsOf(m, 'batch.received');
    expect(received.payload.metaData).toMatchObject({ batchNumber: String(n), totalAmount: '2100.00', numberOfTransactions: '3' });
  });

  it('accepts property names in any case and amounts as numeric strings (product.md §1)', async () => {
    const m = await merchant(1);
    const res = await send(m, 'POST', '/disbursements/batch/addJson', {
      Header: { MerchantAccountNumber: m.merchantAccountNumber, isbatchscheduled: false, CAPTUREDBY: CAPTURER },
      Transactions: [{ BeneficiaryName: 'Pascal Case', ConnectorId: '112400', BeneficiaryAccountNumber: '265991234567', TransactionAmount: '8375000.00', SourceReferenceNumber: 'PC-1' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const n = res.json().batchNumber;
    await validate(n);
    expect(await linesOf(m, n)).toEqual([
      expect.objectContaining({ beneficiaryName: 'Pascal Case', connectorId: 112400, transactionAmount: 8375000, transactionDescription: '', sourceReferenceNumber: 'PC-1', transactionStatusCode: 'D' }),
    ]);
  });

  it('checks amounts against the merchant limits, not the defaults', async () => {
    const m = await merchant(1);
    await setLimit(m, 'MMW', 50_000, 100_000, 200_000); // 500.00–1,000.00
    const n = await newBatch(m, [wallet(499), wallet(500), wallet(1000), wallet('1000.01')]);
    expect((await linesOf(m, n)).map((l) => l.errorMessage)).toEqual(['The amount is below the minimum of 500.00 for MMW.', null, null, 'The amount is above the maximum of 1,000.00 for MMW.']);
  });

  it('a batch with no valid line ends in E with batch.failed (metaData values as strings)', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(1), bank(5, { connectorId: 999999 })]);
    const b = await batchOf(m, n);
    expect(b).toMatchObject({ batchStatusCode: 'E', batchStatusDescription: 'Error', errorMessage: 'No valid transaction in the batch.', numberOfValidEntries: 0, numberOfInvalidEntries: 2, totalAmount: 0, totalFees: 0 });
    expect(await eventsOf(m, 'batch.received')).toHaveLength(0);
    const failed = await eventsOf(m, 'batch.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload).toMatchObject({
      eventCode: 'batch.failed',
      merchantAccountNumber: m.merchantAccountNumber,
      capturerEmailAddress: CAPTURER,
      errorMessage: 'No valid transaction in the batch.',
      metaData: { batchNumber: String(n), totalAmount: '0.00', numberOfTransactions: '0', dateOccurred: expect.any(String) },
    });
    // E batches are listed by E4 and their lines readable.
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['E', 'E']);
  });

  it('a merchant deactivated before validation: E with the reason, batch.failed, no lines', async () => {
    const m = await merchant(1);
    const n = await submitted(m, [wallet(500), bank(600)]);
    await t.db.query(`update merchants set status_code = 'I' where merchant_account_number = $1`, [m.merchantAccountNumber]);
    await validate(n);
    await t.db.query(`update merchants set status_code = 'A' where merchant_account_number = $1`, [m.merchantAccountNumber]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'E', errorMessage: expect.stringContaining(String(m.merchantAccountNumber)) });
    expect(await count('select count(*)::int as n from payouts where batch_number = $1', [n])).toBe(0);
    const failed = await eventsOf(m, 'batch.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload.metaData.batchNumber).toBe(String(n));
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(m, action, n, APPROVER), 402, 'E916');
  });

  it('running the validation job again does nothing', async () => {
    const m = await merchant(1);
    const n = await newBatch(m, [wallet(500)]);
    const before = await dbState(t.db);
    await validate(n);
    expect(await dbState(t.db)).toEqual(before);
    expect(await eventsOf(m, 'batch.received')).toHaveLength(1);
  });

  it('a queued batch: getBatch shows Q, E3 answers 409 E906, E4 does not list it', async () => {
    const m = await merchant(1);
    const n = await submitted(m, [wallet(500), bank(600)]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'Q', batchStatusDescription: 'Queued', numberOfEntries: 2, numberOfValidEntries: 0, numberOfInvalidEntries: 0, totalAmount: 0 });
    const res = await getTransactions(m, { batchNumber: n });
    expect(clientError(res, 409).errorCode).toBe('E906');
    expect(res.headers['retry-after']).toBe('1');
    const list = await send(m, 'POST', '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber });
    expect(list.json()).toEqual([]);
    // No payout rows exist before validation.
    expect(await count('select count(*)::int as n from payouts where batch_number = $1', [n])).toBe(0);
    await validate(n);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P' });
    expect((await send(m, 'POST', '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber })).json()).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Structural 400s: nothing stored

describe('E8 structural errors answer 400 E900 and store nothing', () => {
  async function refused400(who: TestMerchant, transactions: unknown, header: Record<string, unknown> = {}) {
    const jobsBefore = await count(`select count(*)::int as n from graphile_worker._private_jobs`);
    const p = await refusedUnchanged(() => addJson(who, transactions, header), 400, 'E900');
    expect(await count(`select count(*)::int as n from graphile_worker._private_jobs`)).toBe(jobsBefore);
    return p;
  }

  it('an empty list', async () => {
    const m = await merchant(1);
    const p = await refused400(m, []);
    expect(p.errors).toEqual(['Transactions must have at least 1 items.']);
  });

  it('50,001 lines', async () => {
    const m = await merchant(1);
    const line = wallet(500);
    const p = await refused400(m, Array.from({ length: 50_001 }, () => line));
    expect(p.errors).toContain('Transactions must have at most 50000 items.');
  });

  it('a wrong type on line 123 is named as transactions[123]', async () => {
    const m = await merchant(1);
    const lines = Array.from({ length: 200 }, () => wallet(500));
    lines[123] = { ...lines[123], connectorId: 'airtel' };
    const p = await refused400(m, lines);
    expect(p.errors).toEqual([expect.stringContaining('(transactions[123].connectorId)')]);
  });

  it.each([[0], [-5], ['-5'], ['1.234'], [1.234], ['abc'], [null]])('transactionAmount %j', async (amount) => {
    const m = await merchant(1);
    const p = await refused400(m, [wallet(500), wallet(amount as number)]);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toContain('(transactions[1].transactionAmount)');
  });

  it('a missing line field and a missing header field', async () => {
    const m = await merchant(1);
    const { beneficiaryName: _drop, ...noName } = wallet(500);
    const p = await refused400(m, [noName], { capturedBy: undefined });
    expect(p.errors).toEqual(expect.arrayContaining([expect.stringContaining('transactions[0].beneficiaryName'), expect.stringContaining('Captured By')]));
  });

  it('at most 100 messages for a body with 150 bad lines', async () => {
    const m = await merchant(1);
    const p = await refused400(m, Array.from({ length: 150 }, () => wallet(0)));
    expect(p.errors).toHaveLength(100);
    expect(p.errors[0]).toContain('(transactions[0].transactionAmount)');
    expect(p.errors[99]).toContain('(transactions[99].transactionAmount)');
  });

  it('isBatchScheduled without a scheduledDate, or with a past date', async () => {
    const m = await merchant(1);
    const missing = await refused400(m, [wallet(500)], { isBatchScheduled: true });
    expect(missing.detail).toBe('scheduledDate is required when isBatchScheduled is true.');
    const past = await refused400(m, [wallet(500)], { isBatchScheduled: true, scheduledDate: utcDay(-1) });
    expect(past.detail).toBe(`scheduledDate ${utcDay(-1)} is in the past; use today or a later day (UTC).`);
    await refused400(m, [wallet(500)], { isBatchScheduled: true, scheduledDate: '2026-02-30' });
  });
});

// ---------------------------------------------------------------------------------------------
// Scheduled batches

describe('scheduled batches', () => {
  it('a future date: lines wait in T until that day, then are paid', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const day = utcDay(3);
    const n = await newBatch(m, [wallet(500), bank(600)], { isBatchScheduled: true, scheduledDate: day });
    expect(await batchOf(m, n)).toMatchObject({ isBatchScheduled: true, scheduledDate: day, batchStatusCode: 'P' });
    expect((await eventsOf(m, 'batch.received'))[0].payload).toMatchObject({ isBatchScheduled: true, scheduledDate: day });

    await acted(m, 'transferFunds', n);
    // Debited at once; paid on the day.
    expect(await balanceMinor(m)).toBe(before - 110_000 - WALLET_FEE - BANK_FEE);
    const { rows } = await t.db.query<{ status_code: string; due_at: Date }>('select status_code, due_at from payouts where batch_number = $1 order by line_number', [n]);
    expect(rows.map((r) => [r.status_code, r.due_at.toISOString()])).toEqual([
      ['T', `${day}T00:00:00.000Z`],
      ['T', `${day}T00:00:00.000Z`],
    ]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'T', processDate: day });

    await runPayouts(m);
    expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['T', 'T']);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'T', numberOfSuccessfulEntries: 0 });
    expect(await count(`select count(*)::int as n from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle'`, [m.merchantAccountNumber])).toBe(0);
    expect(await eventsOf(m, 'batch.payout.success')).toHaveLength(0);

    // The day comes. Cancelling is no longer possible: the lines are due (before the day it was,
    // with a refund: test/disbursements/scheduled-batches.test.ts).
    await t.db.query('update payouts set due_at = now() where batch_number = $1', [n]);
    await refusedUnchanged(() => act(m, 'cancel', n), 402, 'E916');
    await settle(m);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfSuccessfulEntries: 2, totalAmountOfSuccessfulEntries: 1100 });
    expect(await balanceMinor(m)).toBe(before - 110_000 - WALLET_FEE - BANK_FEE);
    await expectLedgerBalanced();
  });

  it("today's date is processed at once", async () => {
    const m = await merchant(1, 10_000);
    const n = await newBatch(m, [wallet(500)], { isBatchScheduled: true, scheduledDate: utcDay() });
    await acted(m, 'transferFunds', n);
    await runPayouts(m);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', processDate: utcDay() });
  });

  it('a merchant deactivated before its scheduled batch runs: F, batch.failed, every amount and fee refunded', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [wallet(500), bank(600)], { isBatchScheduled: true, scheduledDate: utcDay(1) });
    await acted(m, 'transferFunds', n);
    await t.db.query(`update merchants set status_code = 'I' where merchant_account_number = $1`, [m.merchantAccountNumber]);
    await t.db.query('update payouts set due_at = now() where batch_number = $1', [n]);
    await runPayouts(m);
    await t.db.query(`update merchants set status_code = 'A' where merchant_account_number = $1`, [m.merchantAccountNumber]);
    const b = await batchOf(m, n);
    expect(b).toMatchObject({ batchStatusCode: 'F', batchStatusDescription: 'Failed', numberOfFailedEntries: 2, numberOfSuccessfulEntries: 0, totalAmountOfFailedEntries: 1100 });
    expect(b.errorMessage).toContain('every amount was refunded');
    expect((await linesOf(m, n)).map((l) => [l.transactionStatusCode, l.responseCode, l.responseMessage])).toEqual([
      ['F', 'F106', 'Merchant account inactive'],
      ['F', 'F106', 'Merchant account inactive'],
    ]);
    expect(await balanceMinor(m)).toBe(before);
    const failed = await eventsOf(m, 'batch.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload.metaData).toMatchObject({ batchNumber: String(n), totalAmount: '1100.00', numberOfTransactions: '2' });
    await expectLedgerBalanced();
  });
});

// ---------------------------------------------------------------------------------------------
// The sandbox connector

describe('sandbox outcomes (magic suffixes)', () => {
  it('fail, time out, reverse: codes in E3 and getTransaction, counters in getBatch, refunds in the ledger, events', async () => {
    const m = await merchant(2, 100_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [
      wallet(1000), // 1 S
      bank(2000, { beneficiaryAccountNumber: bankEnding('9901') }), // 2 F101
      wallet(300, { beneficiaryAccountNumber: walletEnding('9902') }), // 3 F102
      bank(400, { beneficiaryAccountNumber: bankEnding('9903') }), // 4 F103
      wallet(500, { beneficiaryAccountNumber: walletEnding('9904') }), // 5 time-out then F108
      bank(600, { beneficiaryAccountNumber: bankEnding('9905') }), // 6 S then R101
      bank(700, { beneficiaryAccountNumber: '3333888805' }), // 7 documented test account: S
    ]);
    await acted(m, 'approve', n, APPROVER);
    await acted(m, 'transferFunds', n, APPROVER);
    await settle(m);

    const lines = await linesOf(m, n);
    expect(lines.map((l) => [l.lineNumber, l.transactionStatusCode, l.responseCode, l.responseMessage])).toEqual([
      [1, 'S', 'S100', 'Transaction successful'],
      [2, 'F', 'F101', 'Beneficiary account not found'],
      [3, 'F', 'F102', 'Beneficiary account is closed or blocked'],
      [4, 'F', 'F103', 'Amount exceeds the beneficiary account limit'],
      [5, 'F', 'F108', 'Connector did not respond; transfer failed'],
      [6, 'R', 'R101', 'Reversed by the beneficiary institution'],
      [7, 'S', 'S100', 'Transaction successful'],
    ]);
    expect(lines[5].transactionStatusName).toBe('Reversed');
    expect(lines[5].dateReversed).toEqual(expect.any(String));
    for (const line of lines) {
      const one = await getOne(m, 'batch', line.transactionReferenceNumber.toLowerCase());
      expect(one.statusCode, one.body).toBe(200);
      // E3's line, with the documented merchant account and processedDate (issue 27).
      expect(one.json()).toEqual({ ...line, merchantAccountNumber: m.merchantAccountNumber, merchantAccountName: expect.any(String), processedDate: expect.any(String) });
    }

    const b = await batchOf(m, n);
    expect(b).toMatchObject({
      batchStatusCode: 'C',
      numberOfValidEntries: 7,
      numberOfSuccessfulEntries: 2,
      numberOfFailedEntries: 4,
      numberOfReversedEntries: 1,
      totalAmount: 5500,
      totalFees: 4 * 150 + 3 * 100,
      totalAmountOfSuccessfulEntries: 1700,
      totalAmountOfFailedEntries: 3200,
      totalAmountOfReversedEntries: 600,
    });

    // Debit: all amounts and fees. Failures refunded in full (fee included), the reversal its amount only.
    const debit = 550_000 + 4 * BANK_FEE + 3 * WALLET_FEE;
    const failedRefund = 200_000 + BANK_FEE + 30_000 + WALLET_FEE + 40_000 + BANK_FEE + 50_000 + WALLET_FEE;
    expect(await balanceMinor(m)).toBe(before - debit + failedRefund + 60_000);
    expect(await count(`select count(*)::int as n from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_reversal'`, [m.merchantAccountNumber])).toBe(1);
    await expectLedgerBalanced();

    const refs = lines.map((l) => l.transactionReferenceNumber);
    expect([...(await referencesIn(m, 'batch.payout.success')).keys()].sort()).toEqual([refs[0], refs[5], refs[6]].sort());
    expect([...(await referencesIn(m, 'batch.payout.failed')).keys()].sort()).toEqual([refs[1], refs[2], refs[3], refs[4]].sort());
    const reversed = await eventsOf(m, 'batch.payout.reversed');
    expect(reversed).toHaveLength(1);
    expect(reversed[0].payload).toMatchObject({
      eventCode: 'batch.payout.reversed',
      merchantAccountNumber: m.merchantAccountNumber,
      numberOfTransactions: 1,
      transactions: [{ batchNumber: n, transactionReferenceNumber: refs[5], transactionStatusCode: 'R', responseCode: 'R101', transactionAmount: 600, transactionFee: 150 }],
    });
    const failedEvents = await eventsOf(m, 'batch.payout.failed');
    const f101 = failedEvents.flatMap((e) => e.payload.transactions).find((x: PayoutView) => x.transactionReferenceNumber === refs[1]);
    expect(f101).toMatchObject({ transactionStatusCode: 'F', responseCode: 'F101', responseMessage: 'Beneficiary account not found', transactionAmount: 2000, transactionFee: 150 });
    // Each line in exactly one outcome event (the reversed one also in its success event).
    for (const code of ['batch.payout.success', 'batch.payout.failed', 'batch.payout.reversed']) for (const c of (await referencesIn(m, code)).values()) expect(c).toBe(1);
  });

  it('step by step: a time-out waits in T (T101) until it is due, a reversal comes after the batch completed', async () => {
    const config = t.deps.config;
    const saved = { timeout: config.payoutTimeoutSeconds, reversal: config.payoutReversalSeconds };
    config.payoutTimeoutSeconds = 3600;
    config.payoutReversalSeconds = 3600;
    try {
      const m = await merchant(1, 10_000);
      const before = await balanceMinor(m);
      const n = await newBatch(m, [wallet(500, { beneficiaryAccountNumber: walletEnding('9904') }), bank(600, { beneficiaryAccountNumber: bankEnding('9905') })]);
      await acted(m, 'transferFunds', n);
      await runPayouts(m);
      let lines = await linesOf(m, n);
      expect(lines.map((l) => [l.transactionStatusCode, l.responseCode, l.responseMessage])).toEqual([
        ['T', 'T101', 'Awaiting the connector'],
        ['S', 'S100', 'Transaction successful'],
      ]);
      expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'T', numberOfSuccessfulEntries: 1, totalAmountOfSuccessfulEntries: 600 });
      // Nothing is due: another pass changes nothing.
      const quiet = await dbState(t.db);
      await runPayouts(m);
      expect(await dbState(t.db)).toEqual(quiet);

      // The connector's time-out elapses: F108, refunded; the batch completes.
      await t.db.query(`update payouts set due_at = now() where batch_number = $1 and status_code = 'T'`, [n]);
      await runPayouts(m);
      lines = await linesOf(m, n);
      expect(lines.map((l) => [l.transactionStatusCode, l.responseCode])).toEqual([
        ['F', 'F108'],
        ['S', 'S100'],
      ]);
      expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfSuccessfulEntries: 1, numberOfFailedEntries: 1, numberOfReversedEntries: 0 });
      expect(await balanceMinor(m)).toBe(before - 60_000 - BANK_FEE);

      // The reversal arrives later: the completed batch's counters follow, the amount comes back.
      await t.db.query(`update payouts set reverse_at = now() where batch_number = $1 and status_code = 'S'`, [n]);
      await runPayouts(m);
      expect((await linesOf(m, n)).map((l) => l.transactionStatusCode)).toEqual(['F', 'R']);
      expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfSuccessfulEntries: 0, numberOfReversedEntries: 1, totalAmountOfSuccessfulEntries: 0, totalAmountOfReversedEntries: 600 });
      expect(await balanceMinor(m)).toBe(before - BANK_FEE);
      expect((await eventsOf(m)).map((e) => e.event_code).filter((c) => c.startsWith('batch.payout.'))).toEqual(['batch.payout.success', 'batch.payout.failed', 'batch.payout.reversed']);
      await expectLedgerBalanced();
    } finally {
      config.payoutTimeoutSeconds = saved.timeout;
      config.payoutReversalSeconds = saved.reversal;
    }
  });

  it('a connector switched off after the transfer: F105, refunded; the other lines are paid', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const n = await newBatch(m, [bank(500, { connectorId: ECOBANK }), bank(600)]);
    await acted(m, 'transferFunds', n);
    await t.db.query('update connectors set is_active = false where connector_id = $1', [ECOBANK]);
    try {
      await settle(m);
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = $1', [ECOBANK]);
    }
    expect((await linesOf(m, n)).map((l) => [l.transactionStatusCode, l.responseCode, l.responseMessage])).toEqual([
      ['F', 'F105', 'Connector unavailable'],
      ['S', 'S100', 'Transaction successful'],
    ]);
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C', numberOfFailedEntries: 1, numberOfSuccessfulEntries: 1 });
    expect(await balanceMinor(m)).toBe(before - 60_000 - BANK_FEE);
    await expectLedgerBalanced();
  });

  it('batch.payout.* events carry at most 10 transactions: 25 successes → 10/10/5, 12 failures → 10/2', async () => {
    const m = await merchant(1, 100_000);
    const lines = [...Array.from({ length: 25 }, (_, i) => wallet(100 + i)), ...Array.from({ length: 12 }, () => bank(100, { beneficiaryAccountNumber: bankEnding('9901') }))];
    const n = await newBatch(m, lines);
    await acted(m, 'transferFunds', n);
    await settle(m);
    const success = await eventsOf(m, 'batch.payout.success');
    expect(success.map((e) => [e.payload.numberOfTransactions, e.payload.transactions.length])).toEqual([
      [10, 10],
      [10, 10],
      [5, 5],
    ]);
    const failed = await eventsOf(m, 'batch.payout.failed');
    expect(failed.map((e) => e.payload.transactions.length)).toEqual([10, 2]);
    const all = await linesOf(m, n);
    const paid = await referencesIn(m, 'batch.payout.success');
    expect(paid.size).toBe(25);
    expect([...paid.values()].every((c) => c === 1)).toBe(true);
    expect([...paid.keys()].sort()).toEqual(all.filter((l) => l.transactionStatusCode === 'S').map((l) => l.transactionReferenceNumber).sort());
    expect(success.flatMap((e) => e.payload.transactions).every((x: PayoutView & { batchNumber: number }) => x.batchNumber === n && x.transactionStatusCode === 'S')).toBe(true);
    expect(await batchOf(m, n)).toMatchObject({ numberOfSuccessfulEntries: 25, numberOfFailedEntries: 12, totalAmountOfSuccessfulEntries: 25 * 100 + (24 * 25) / 2, totalAmountOfFailedEntries: 1200 });
  });
});

// ---------------------------------------------------------------------------------------------
// Reads: E3, E4, getTransaction

describe('E3 POST /disbursements/batch/getTransactions', () => {
  let m: TestMerchant;
  let n: number;
  let all: PayoutView[];
  const names = (rows: PayoutView[]) => rows.map((r) => r.beneficiaryName);
  const lineNumbers = (rows: PayoutView[]) => rows.map((r) => r.lineNumber);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  beforeAll(async () => {
    m = await merchant(1);
    const lines = Array.from({ length: 120 }, (_, i) => wallet(100 + i, { beneficiaryName: `Beneficiary ${i + 1}`, sourceReferenceNumber: `PAY-${String(i + 1).padStart(4, '0')}` }));
    lines[6].beneficiaryName = '100% Maize_Co';
    lines[7].beneficiaryName = '1000 MaizeXCo';
    lines[8].beneficiaryName = '100 percent maize co';
    for (let i = 110; i < 120; i++) lines[i].beneficiaryAccountNumber = '12345'; // 111–120 invalid
    n = await newBatch(m, lines);
    all = await linesOf(m, n);
  });

  it('pages by pageNumber and numberOfReturnedRows, in line order', async () => {
    expect(lineNumbers(all)).toEqual(range(1, 120));
    const page = async (pageNumber: number, over: Record<string, unknown> = {}) => {
      const res = await getTransactions(m, { batchNumber: n, pageNumber, numberOfReturnedRows: 50, ...over });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().message as PayoutView[];
    };
    expect(lineNumbers(await page(1))).toEqual(range(1, 50));
    expect(lineNumbers(await page(3))).toEqual(range(101, 120));
    expect(await page(4)).toEqual([]);
    expect(lineNumbers(await page(2, { isIncremental: true }))).toEqual(range(1, 100));
    expect(lineNumbers(await page(3, { isIncremental: true }))).toEqual(range(1, 120));
    // The default page size is 50.
    expect((await getTransactions(m, { batchNumber: n })).json().message).toHaveLength(50);
    expect((await page(3))[19]).toEqual(all[119]);
  });

  it('filters by transactionStatusCode, with paging', async () => {
    expect(lineNumbers(await linesOf(m, n, { transactionStatusCode: 'E' }))).toEqual(range(111, 120));
    expect(lineNumbers(await linesOf(m, n, { transactionStatusCode: 'E', pageNumber: 2, numberOfReturnedRows: 4 }))).toEqual(range(115, 118));
    expect(lineNumbers(await linesOf(m, n, { transactionStatusCode: 'D', pageNumber: 3, numberOfReturnedRows: 50 }))).toEqual(range(101, 110));
    expect(await linesOf(m, n, { transactionStatusCode: 'S' })).toEqual([]);
  });

  it('searches by name case-insensitively, with % and _ taken literally', async () => {
    expect(names(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: 'maize_co' }))).toEqual(['100% Maize_Co']);
    expect(names(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: '0% M' }))).toEqual(['100% Maize_Co']);
    expect(names(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: '%' }))).toEqual(['100% Maize_Co']);
    expect(names(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: '_' }))).toEqual(['100% Maize_Co']);
    expect(names(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: 'MAIZE' }))).toEqual(['100% Maize_Co', '1000 MaizeXCo', '100 percent maize co']);
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: 'beneficiary 11' }))).toEqual([11, ...range(110, 119)]);
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: 'beneficiary 11', pageNumber: 2, numberOfReturnedRows: 5 }))).toEqual(range(114, 118));
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'BeneficiaryName', searchText: 'beneficiary 11', transactionStatusCode: 'E' }))).toEqual(range(111, 119));
  });

  it('searches by source reference, transaction reference and account number', async () => {
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'SourceReferenceNumber', searchText: 'pay-0042' }))).toEqual([42]);
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'TransactionReferenceNumber', searchText: all[63].transactionReferenceNumber.toLowerCase() }))).toEqual([64]);
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'BeneficiaryAccountNumber', searchText: '2659912' }))).toEqual(range(1, 110));
    expect(lineNumbers(await linesOf(m, n, { searchBy: 'BeneficiaryAccountNumber', searchText: '12345', transactionStatusCode: 'E' }))).toEqual(range(111, 120));
  });

  it('without batchNumber lists every batch line of the merchant, newest batch first', async () => {
    const newer = await newBatch(m, [wallet(500, { beneficiaryName: 'Newest' })]);
    const res = await getTransactions(m, { numberOfReturnedRows: 3 });
    expect(res.statusCode).toBe(200);
    const rows = res.json().message as PayoutView[];
    expect(rows.map((r) => [r.batchNumber, r.lineNumber])).toEqual([
      [newer, 1],
      [n, 1],
      [n, 2],
    ]);
  });

  it.each([
    [{ numberOfReturnedRows: 0 }],
    [{ numberOfReturnedRows: 1001 }],
    [{ pageNumber: 0 }],
    [{ transactionStatusCode: 'Z' }],
    [{ searchBy: 'Amount', searchText: '5' }],
    [{ batchNumber: 'abc' }],
  ])('refuses %j with 400 E900', async (over) => {
    const res = await getTransactions(m, { batchNumber: n, ...over });
    expect(clientError(res, 400).errorCode).toBe('E900');
  });

  it('an unknown batch number answers 404 E903', async () => {
    const res = await getTransactions(m, { batchNumber: 2_000_000_000 });
    expect(clientError(res, 404).errorCode).toBe('E903');
  });
});

describe('E4 POST /disbursements/batch/getBatches', () => {
  let m: TestMerchant;
  const ids: Record<string, number> = {};
  const list = async (over: Record<string, unknown> = {}) => {
    const res = await send(m, 'POST', '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, ...over });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Array<Record<string, unknown>>;
  };
  const numbers = async (over: Record<string, unknown> = {}) => (await list(over)).map((b) => b.batchNumber);

  beforeAll(async () => {
    m = await merchant(2, 10_000);
    ids.alice = await newBatch(m, [wallet(500)], { capturedBy: 'alice@shop.mw' });
    ids.cancelled = await newBatch(m, [wallet(500), wallet(600)]);
    await acted(m, 'approve', ids.cancelled, APPROVER);
    await acted(m, 'cancel', ids.cancelled, APPROVER);
    ids.queued = await submitted(m, [wallet(500)]);
    ids.error = await newBatch(m, [wallet(1)]);
    ids.bob = await newBatch(m, [wallet(500)], { capturedBy: 'bob@shop.mw' });
  });

  it('lists validated batches newest first, never queued ones', async () => {
    const rows = await list();
    expect(rows.map((b) => b.batchNumber)).toEqual([ids.bob, ids.error, ids.cancelled, ids.alice]);
    expect(rows[2]).toEqual({
      batchNumber: ids.cancelled,
      capturedBy: CAPTURER,
      dateCaptured: utcDay(),
      batchStatusCode: 'N',
      batchStatusDescription: 'Cancelled',
      processDate: null,
      isBatchScheduled: false,
      numberOfTransactions: 2,
    });
    expect(rows[0]).toMatchObject({ batchStatusCode: 'P', batchStatusDescription: 'Pending Approval' });
  });

  it('searches by CapturedBy / ApprovedBy (case-insensitive, contained) and by status code or description', async () => {
    expect(await numbers({ searchBy: 'CapturedBy', searchText: 'ALICE' })).toEqual([ids.alice]);
    expect(await numbers({ searchBy: 'ApprovedBy', searchText: 'approver@' })).toEqual([ids.cancelled]);
    expect(await numbers({ searchBy: 'ReviewedBy', searchText: 'a' })).toEqual([]);
    expect(await numbers({ searchBy: 'BatchStatus', searchText: 'n' })).toEqual([ids.cancelled]);
    expect(await numbers({ searchBy: 'BatchStatus', searchText: 'Q' })).toEqual([]);
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'pending' })).toEqual([ids.bob, ids.alice]);
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'CANCEL' })).toEqual([ids.cancelled]);
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'error' })).toEqual([ids.error]);
    expect(await numbers({ searchBy: 'CapturedBy', searchText: '%' })).toEqual([]);
    // The description depends on the level the batch was captured at: this level-2 merchant's
    // pending batches read "Pending Approval", never "Pending Review" or "Pending Funds Transfer".
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'Pending Approval' })).toEqual([ids.bob, ids.alice]);
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'pending review' })).toEqual([]);
    expect(await numbers({ searchBy: 'BatchStatusDescription', searchText: 'Funds Transfer' })).toEqual([]);
  });

  it('pages, and isIncremental returns every page up to this one', async () => {
    expect(await numbers({ pageNumber: 2, numberOfReturnedRows: 3 })).toEqual([ids.alice]);
    expect(await numbers({ pageNumber: 1, numberOfReturnedRows: 3 })).toEqual([ids.bob, ids.error, ids.cancelled]);
    expect(await numbers({ pageNumber: 2, numberOfReturnedRows: 2, isIncremental: true })).toEqual([ids.bob, ids.error, ids.cancelled, ids.alice]);
    for (const bad of [{ numberOfReturnedRows: 0 }, { numberOfReturnedRows: 1001 }, { searchBy: 'Status', searchText: 'P' }, { batchDate: '2026-13-01' }]) {
      expect(clientError(await send(m, 'POST', '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, ...bad }), 400).errorCode).toBe('E900');
    }
  });

  it('filters by batchDate, the UTC day of capture, whatever the database session time zone', async () => {
    await t.db.query(`update batches set date_captured = '2025-03-10T23:30:00Z' where batch_number = $1`, [ids.alice]);
    await t.db.query(`update batches set date_captured = '2025-03-11T00:30:00Z' where batch_number = $1`, [ids.error]);
    const check = async () => {
      expect(await numbers({ batchDate: '2025-03-10' })).toEqual([ids.alice]);
      expect(await numbers({ batchDate: '2025-03-11' })).toEqual([ids.error]);
      expect(await numbers({ batchDate: utcDay() })).toEqual([ids.bob, ids.cancelled]);
      expect(await numbers({ batchDate: '2025-03-12' })).toEqual([]);
    };
    await check();
    // A server configured for another zone (UTC+14, then UTC−10) must not move the day.
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Honolulu']) {
      await withSessionTimeZone(zone, check);
    }
  });
});

/**
 * Runs `fn` while every pooled connection has session time zone `zone` (as on a server configured
 * for that zone): all the pool's connections are taken at once and set, then reset afterwards.
 */
async function withSessionTimeZone(zone: string, fn: () => Promise<void>): Promise<void> {
  const setAll = async (sql: string) => {
    const clients = await Promise.all(Array.from({ length: t.db.options.max ?? 10 }, () => t.db.connect()));
    try {
      for (const c of clients) await c.query(sql);
    } finally {
      for (const c of clients) c.release();
    }
  };
  await setAll(`set time zone '${zone}'`);
  try {
    await fn();
  } finally {
    await setAll('reset time zone');
  }
}

// ---------------------------------------------------------------------------------------------
// Another merchant's batches and payouts

describe("another merchant's batches and payouts answer 404 E903", () => {
  it('for every read and action, and nothing changes', async () => {
    const owner = await merchant(2, 10_000);
    const intruder = await merchant(2, 10_000);
    const n = await newBatch(owner, [wallet(500)]);
    const [line] = await linesOf(owner, n);
    const singleRef = await single(owner, wallet(300));

    expect(clientError(await getBatch(intruder, n), 404).errorCode).toBe('E903');
    expect(clientError(await getTransactions(intruder, { batchNumber: n }), 404).errorCode).toBe('E903');
    expect(clientError(await getOne(intruder, 'batch', line.transactionReferenceNumber), 404).errorCode).toBe('E903');
    expect(clientError(await getOne(intruder, 'single', singleRef), 404).errorCode).toBe('E903');
    for (const action of ALL_ACTIONS) await refusedUnchanged(() => act(intruder, action, n, APPROVER), 404, 'E903');
    // Listings do not show it.
    expect((await getTransactions(intruder, {})).json().message).toEqual([]);
    expect((await send(intruder, 'POST', '/disbursements/single/getTransactions', { merchantAccountNumber: intruder.merchantAccountNumber })).json()).toEqual([]);
    expect((await send(intruder, 'POST', '/disbursements/batch/getBatches', { merchantAccountNumber: intruder.merchantAccountNumber })).json()).toEqual([]);
    // Naming the owner's account with the intruder's token is refused the same way.
    const named = await send(intruder, 'POST', '/disbursements/batch/getBatch', { merchantAccountNumber: owner.merchantAccountNumber, batchNumber: n });
    expect(clientError(named, 404).errorCode).toBe('E903');
    expect(await batchOf(owner, n)).toMatchObject({ batchStatusCode: 'P', approvedBy: null });
  });
});

// ---------------------------------------------------------------------------------------------
// Idempotency

describe('idempotency', () => {
  it('E8: a replay answers the same batch byte for byte and stores one batch; another body with the key → 409 E907', async () => {
    const m = await merchant(1);
    const key = idemKey();
    const lines = [wallet(500), bank(600)];
    const first = await addJson(m, lines, {}, { 'x-idempotency-key': key });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await addJson(m, lines, {}, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await count('select count(*)::int as n from batches where merchant_account_number = $1', [m.merchantAccountNumber])).toBe(1);

    const other = await refusedUnchanged(() => addJson(m, [wallet(999)], {}, { 'x-idempotency-key': key }), 409, 'E907');
    expect(other.detail).toContain(key);
    // The same key on another route is another request too.
    await refusedUnchanged(() => act(m, 'cancel', first.json().batchNumber, CAPTURER, { 'x-idempotency-key': key }), 409, 'E907');
    // A malformed key is refused before anything happens.
    await refusedUnchanged(() => addJson(m, lines, {}, { 'x-idempotency-key': 'short' }), 400, 'E900');
    await refusedUnchanged(() => addJson(m, lines, {}, { 'x-idempotency-key': 'has spaces in it, 123456' }), 400, 'E900');
  });

  it('actions: a replay answers the first response and does nothing, even after the batch moved on', async () => {
    const m = await merchant(2, 10_000);
    const n = await newBatch(m, [wallet(500)]);
    const approveKey = idemKey();
    const approved = await act(m, 'approve', n, APPROVER, { 'x-idempotency-key': approveKey });
    expect(approved.statusCode).toBe(200);
    const before = await dbState(t.db);
    const replay = await act(m, 'approve', n, APPROVER, { 'x-idempotency-key': approveKey });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(approved.body);
    expect(await dbState(t.db)).toEqual(before);

    const transferKey = idemKey();
    const transferred = await act(m, 'transferFunds', n, APPROVER, { 'x-idempotency-key': transferKey });
    expect(transferred.json()).toMatchObject({ BatchStatusCode: 'T' });
    const balance = await balanceMinor(m);
    await settle(m);
    const late = await act(m, 'transferFunds', n, APPROVER, { 'x-idempotency-key': transferKey });
    expect(late.statusCode).toBe(200);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.body).toBe(transferred.body);
    expect(await payoutDebits(`B${n}`)).toBe(1);
    expect(await balanceMinor(m)).toBe(balance);
    // The approval replay still answers A, though the batch is now C.
    expect((await act(m, 'approve', n, APPROVER, { 'x-idempotency-key': approveKey })).json()).toMatchObject({ BatchStatusCode: 'A' });
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'C' });
  });

  it('E8 under concurrent retries with one key: one batch; the others replay it or answer 409 E907 with Retry-After', async () => {
    const m = await merchant(1);
    const key = idemKey();
    const lines = [wallet(500), bank(600)];
    const results = await Promise.all(Array.from({ length: 6 }, () => addJson(m, lines, {}, { 'x-idempotency-key': key })));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      expect(r.statusCode, r.body).toBe(409);
      expect(problemOf(r).errorCode).toBe('E907');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(await count('select count(*)::int as n from batches where merchant_account_number = $1', [m.merchantAccountNumber])).toBe(1);
  });

  it('a refusal is replayed too; a new key after a top-up goes through', async () => {
    const m = await merchant(1);
    const n = await newBatch(m, [wallet(500)]);
    const key = idemKey();
    const refused = await act(m, 'transferFunds', n, CAPTURER, { 'x-idempotency-key': key });
    expect(clientError(refused, 402).errorCode).toBe('E911');
    await topup(m, 600);
    const replay = await act(m, 'transferFunds', n, CAPTURER, { 'x-idempotency-key': key });
    expect(replay.statusCode).toBe(402);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'P' });
    const fresh = await act(m, 'transferFunds', n, CAPTURER, { 'x-idempotency-key': idemKey() });
    expect(fresh.json()).toMatchObject({ BatchStatusCode: 'T' });
  });
});

// ---------------------------------------------------------------------------------------------
// Concurrency

describe('concurrency', () => {
  it('10 concurrent transferFunds on one batch: exactly one 200 and one debit, the rest 402 E916', async () => {
    const m = await merchant(1, 100_000);
    const n = await newBatch(m, [wallet(1000), bank(2000)]);
    const before = await balanceMinor(m);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => act(m, 'transferFunds', n, CAPTURER, i % 2 === 0 ? { 'x-idempotency-key': idemKey() } : {})),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0].json()).toMatchObject({ BatchStatusCode: 'T' });
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      expect(r.statusCode, r.body).toBe(402);
      expect(problemOf(r).errorCode).toBe('E916');
    }
    expect(await payoutDebits(`B${n}`)).toBe(1);
    expect(await balanceMinor(m)).toBe(before - 300_000 - WALLET_FEE - BANK_FEE);
    expect(await count(`select coalesce(sum(amount_minor), 0)::int as n from payout_daily_totals where merchant_account_number = $1`, [m.merchantAccountNumber])).toBe(300_000);
    await settle(m);
    await expectLedgerBalanced();
  });

  it('concurrent approvals by different users: exactly one wins', async () => {
    const m = await merchant(2);
    const n = await newBatch(m, [wallet(500)]);
    const approvers = Array.from({ length: 6 }, (_, i) => `approver${i}@shop.mw`);
    const results = await Promise.all(approvers.map((who) => act(m, 'approve', n, who)));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) expect(clientError(r, 402).errorCode).toBe('E916');
    const winner = approvers[results.indexOf(ok[0])];
    expect(await batchOf(m, n)).toMatchObject({ batchStatusCode: 'A', approvedBy: winner });
  });

  it('10 concurrent worker runs on one merchant: each payout settled and announced exactly once', async () => {
    const m = await merchant(1, 1_000_000);
    const before = await balanceMinor(m);
    const lines = [
      ...Array.from({ length: 40 }, (_, i) => wallet(100 + i)),
      ...Array.from({ length: 5 }, () => bank(1000, { beneficiaryAccountNumber: bankEnding('9901') })),
      ...Array.from({ length: 5 }, () => wallet(1000, { beneficiaryAccountNumber: walletEnding('9904') })),
      ...Array.from({ length: 5 }, () => bank(1000, { beneficiaryAccountNumber: bankEnding('9905') })),
    ];
    const n1 = await newBatch(m, lines.slice(0, 30));
    const n2 = await newBatch(m, lines.slice(30));
    await acted(m, 'transferFunds', n1);
    await acted(m, 'transferFunds', n2);
    const singles = [await single(m, wallet(400)), await single(m, bank(500, { beneficiaryAccountNumber: bankEnding('9902') }))];

    await Promise.all(Array.from({ length: 10 }, () => runPayouts(m)));
    await settle(m);

    const { rows } = await t.db.query<{ status_code: string; n: number }>(
      `select status_code, count(*)::int as n from payouts where merchant_account_number = $1 group by status_code order by status_code`,
      [m.merchantAccountNumber],
    );
    expect(Object.fromEntries(rows.map((r) => [r.status_code, r.n]))).toEqual({ S: 41, F: 11, R: 5 });
    // Payouts in flight: every debit settled exactly once (the account nets to zero for this merchant).
    const inFlight = await count(
      `select coalesce(sum(e.amount_minor), 0)::int as n from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id)
        where a.kind = 'payouts_in_flight' and e.merchant_account_number = $1`,
      [m.merchantAccountNumber],
    );
    expect(inFlight).toBe(0);
    const amounts = lines.reduce((s, l) => s + Number(l.transactionAmount) * 100, 0) + 40_000 + 50_000;
    const fees = 40 * WALLET_FEE + 5 * BANK_FEE + 5 * WALLET_FEE + 5 * BANK_FEE + WALLET_FEE + BANK_FEE;
    const refunds = 5 * (100_000 + BANK_FEE) + 5 * (100_000 + WALLET_FEE) + (50_000 + BANK_FEE) + 5 * 100_000;
    expect(await balanceMinor(m)).toBe(before - amounts - fees + refunds);

    const announced = new Map<string, number>();
    for (const code of ['batch.payout.success', 'batch.payout.failed', 'payout.success', 'payout.failed']) {
      for (const [reference, c] of await referencesIn(m, code)) announced.set(reference, (announced.get(reference) ?? 0) + c);
    }
    const { rows: refs } = await t.db.query<{ transaction_reference_number: string }>('select transaction_reference_number from payouts where merchant_account_number = $1', [m.merchantAccountNumber]);
    expect(announced.size).toBe(refs.length);
    expect(refs.every((r) => announced.get(r.transaction_reference_number) === 1)).toBe(true);
    expect([...(await referencesIn(m, 'batch.payout.reversed')).values()]).toEqual([1, 1, 1, 1, 1]);
    for (const b of [n1, n2]) expect((await batchOf(m, b)).batchStatusCode).toBe('C');
    expect(await batchOf(m, n1)).toMatchObject({ numberOfSuccessfulEntries: 30 });
    expect(await batchOf(m, n2)).toMatchObject({ numberOfSuccessfulEntries: 10, numberOfFailedEntries: 10, numberOfReversedEntries: 5 });
    expect(singles).toHaveLength(2);
    await expectLedgerBalanced();
  });
});

// ---------------------------------------------------------------------------------------------
// Single payouts

describe('single payouts', () => {
  it('happy path: debited at once, T100, then S100 with a payout.success event', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const res = await singleAdd(m, wallet('300.25', { beneficiaryName: 'Single Person', sourceReferenceNumber: 'INV-77' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({ merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: expect.stringMatching(/^[A-Z0-9]{12}$/), responseCode: 'T100' });
    const reference = body.transactionReferenceNumber as string;
    expect(await balanceMinor(m)).toBe(before - 30_025 - WALLET_FEE);
    expect(await payoutDebits(reference)).toBe(1);

    const pending = await getOne(m, 'single', reference);
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toMatchObject({
      batchNumber: null,
      lineNumber: null,
      transactionReferenceNumber: reference,
      sourceReferenceNumber: 'INV-77',
      beneficiaryName: 'Single Person',
      connectorId: AIRTEL,
      connectorName: 'Airtel Money',
      transactionAmount: 300.25,
      transactionFee: 100,
      transactionCode: 'MMW',
      transactionStatusCode: 'T',
      responseCode: 'T100',
      responseMessage: 'Transfer submitted',
      capturedBy: CAPTURER,
    });

    await settle(m);
    expect((await getOne(m, 'single', reference)).json()).toMatchObject({ transactionStatusCode: 'S', responseCode: 'S100', responseMessage: 'Transaction successful' });
    const events = await eventsOf(m, 'payout.success');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      eventCode: 'payout.success',
      merchantAccountNumber: m.merchantAccountNumber,
      numberOfTransactions: 1,
      transactions: [{ batchNumber: null, transactionReferenceNumber: reference, transactionStatusCode: 'S', responseCode: 'S100', transactionAmount: 300.25, transactionFee: 100, currencyCode: 'MWK' }],
    });
    expect(await balanceMinor(m)).toBe(before - 30_025 - WALLET_FEE);
    await expectLedgerBalanced();
  });

  it('listing and getTransaction keep single payouts and batch lines apart', async () => {
    const m = await merchant(1, 10_000);
    const s1 = await single(m, wallet(200, { beneficiaryName: 'First Single' }));
    const s2 = await single(m, bank(300, { beneficiaryName: 'Second Single' }));
    const n = await newBatch(m, [wallet(500, { beneficiaryName: 'Batch Line' })]);
    const [line] = await linesOf(m, n);

    const list = async (over: Record<string, unknown> = {}) => {
      const res = await send(m, 'POST', '/disbursements/single/getTransactions', { merchantAccountNumber: m.merchantAccountNumber, ...over });
      expect(res.statusCode, res.body).toBe(200);
      // A bare array, as the gateway answers (issue 14).
      return (res.json() as PayoutView[]).map((p) => p.transactionReferenceNumber);
    };
    expect(await list()).toEqual([s2, s1]);
    expect(await list({ numberOfReturnedRows: 1, pageNumber: 2 })).toEqual([s1]);
    expect(await list({ searchBy: 'BeneficiaryName', searchText: 'first' })).toEqual([s1]);
    expect(await list({ transactionStatusCode: 'S' })).toEqual([]);
    expect(await list({ transactionDate: utcDay() })).toEqual([s2, s1]);
    expect(await list({ transactionDate: utcDay(-1) })).toEqual([]);
    // E3 without batchNumber lists batch lines only.
    expect((await getTransactions(m, {})).json().message.map((p: PayoutView) => p.transactionReferenceNumber)).toEqual([line.transactionReferenceNumber]);

    expect(clientError(await getOne(m, 'batch', s1), 404).errorCode).toBe('E903');
    expect(clientError(await getOne(m, 'single', line.transactionReferenceNumber), 404).errorCode).toBe('E903');
    expect((await getOne(m, 'batch', line.transactionReferenceNumber)).statusCode).toBe(200);
    expect((await getOne(m, 'single', s1)).statusCode).toBe(200);
    expect(clientError(await getOne(m, 'single', 'ABCDEFGHIJKL'), 404).errorCode).toBe('E903');
    expect(clientError(await getOne(m, 'single', 'short'), 400).errorCode).toBe('E900');

    await settle(m);
    expect(await list({ transactionStatusCode: 'S' })).toEqual([s2, s1]);
    // The transactionDate filter is a UTC day whatever the session time zone.
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Honolulu']) {
      await withSessionTimeZone(zone, async () => {
        expect(await list({ transactionDate: utcDay() })).toEqual([s2, s1]);
      });
    }
  });

  it.each([
    ['an unknown connector', () => wallet(500, { connectorId: 999999 }), 404, 'E903'],
    ['an inactive connector', () => bank(500, { connectorId: INACTIVE }), 402, 'E913'],
    ['a connector without payouts', () => bank(500, { connectorId: NO_PAYOUTS }), 402, 'E917'],
    ['a malformed wallet', () => wallet(500, { beneficiaryAccountNumber: '0991234567' }), 400, 'E900'],
    ['a malformed bank account', () => bank(500, { beneficiaryAccountNumber: '12345678901234567' }), 400, 'E900'],
    ['an amount below the minimum', () => wallet('99.99'), 402, 'E914'],
    ['an amount above the maximum', () => bank('50000000.01'), 402, 'E914'],
    ['a balance too low for amount + fee', () => wallet(950), 402, 'E911'],
    ['three decimals', () => wallet('100.001'), 400, 'E900'],
    ['amount 0', () => wallet(0), 400, 'E900'],
  ] as const)('refuses %s with nothing debited', async (_name, line, status, code) => {
    const m = await merchant(1, 1000);
    const before = await balanceMinor(m);
    await refusedUnchanged(() => singleAdd(m, line()), status, code);
    expect(await balanceMinor(m)).toBe(before);
  });

  it('reports the account format in the detail', async () => {
    const m = await merchant(1, 1000);
    const p = await refusedUnchanged(() => singleAdd(m, wallet(500, { beneficiaryAccountNumber: '0991234567' })), 400, 'E900');
    expect(p.detail).toBe('Account 0991234567 is not a valid Airtel Money account number.');
  });

  it('the daily limit: 402 E912 with nothing debited', async () => {
    const m = await merchant(1, 10_000);
    await setLimit(m, 'MMW', 10_000, 100_000, 100_000); // 1,000.00 a day
    await single(m, wallet(700));
    const before = await balanceMinor(m);
    await refusedUnchanged(() => singleAdd(m, wallet(301)), 402, 'E912');
    expect(await balanceMinor(m)).toBe(before);
    await single(m, wallet(300));
  });

  it('a magic-suffix failure: F102, amount and fee refunded, payout.failed', async () => {
    const m = await merchant(1, 1000);
    const before = await balanceMinor(m);
    const reference = await single(m, wallet(500, { beneficiaryAccountNumber: walletEnding('9902') }));
    expect(await balanceMinor(m)).toBe(before - 50_000 - WALLET_FEE);
    await settle(m);
    expect((await getOne(m, 'single', reference)).json()).toMatchObject({ transactionStatusCode: 'F', responseCode: 'F102', responseMessage: 'Beneficiary account is closed or blocked' });
    expect(await balanceMinor(m)).toBe(before);
    const failed = await eventsOf(m, 'payout.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].payload.transactions).toEqual([expect.objectContaining({ transactionReferenceNumber: reference, transactionStatusCode: 'F', responseCode: 'F102' })]);
    expect(await eventsOf(m, 'payout.success')).toHaveLength(0);
    await expectLedgerBalanced();
  });

  it('a time-out then failure (F108) and a reversal (R101, the fee kept)', async () => {
    const m = await merchant(1, 10_000);
    const before = await balanceMinor(m);
    const timeout = await single(m, bank(500, { beneficiaryAccountNumber: bankEnding('9904') }));
    const reversal = await single(m, wallet(600, { beneficiaryAccountNumber: walletEnding('9905') }));
    await settle(m);
    expect((await getOne(m, 'single', timeout)).json()).toMatchObject({ transactionStatusCode: 'F', responseCode: 'F108' });
    const reversed = (await getOne(m, 'single', reversal)).json();
    expect(reversed).toMatchObject({ transactionStatusCode: 'R', responseCode: 'R101', responseMessage: 'Reversed by the beneficiary institution', dateReversed: expect.any(String) });
    expect(await balanceMinor(m)).toBe(before - WALLET_FEE);
    expect((await eventsOf(m)).map((e) => e.event_code).filter((c) => c.startsWith('payout.')).sort()).toEqual(['payout.failed', 'payout.reversed', 'payout.success']);
    await expectLedgerBalanced();
  });

  it('is idempotent: a replay answers the same reference and debits once', async () => {
    const m = await merchant(1, 10_000);
    const key = idemKey();
    const line = wallet(500);
    const first = await singleAdd(m, line, { 'x-idempotency-key': key });
    const again = await singleAdd(m, line, { 'x-idempotency-key': key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await count('select count(*)::int as n from payouts where merchant_account_number = $1', [m.merchantAccountNumber])).toBe(1);
    expect(await balanceMinor(m)).toBe(1_000_000 - 50_000 - WALLET_FEE);
    await refusedUnchanged(() => singleAdd(m, wallet(501), { 'x-idempotency-key': key }), 409, 'E907');
  });
});

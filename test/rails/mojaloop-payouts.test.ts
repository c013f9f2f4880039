// Payouts over Mojaloop (issue 24), against the Mojaloop Testing Toolkit playing the switch and the
// beneficiaries' DFSPs (test/ttk/): a real HTTP server of ours receives TTK's callbacks under
// /fspiop, the payout job runs as the worker runs it, and every case ends with its one effect on
// the ledger and `ledger verify` clean, rail_payouts included. TTK is shared by the whole run (one
// file at a time: acquireTtk), its answers chosen per case by rules keyed on what the case controls
// (the beneficiary's number, the amount).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { closeMojaloop } from '../../src/rails/mojaloop/rail.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { ADMIN_TOKEN, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { act, addJson, AIRTEL, apiBalances, batchStatus, idempotencyKey, major, NBM, paidSinglePayout, readyBatch, singlePayout, topup, validateBatch } from '../money-ops.ts';
import { expectLedgerClean, payouts, runJob, settle, transferTypes, untilPhase, wallet } from './mojaloop-kit.ts';
import { OPEN_PER_MERCHANT } from '../../src/rails/mojaloop/payouts.ts';
import { acquireTtk, type AcquiredTtk } from '../ttk/harness.ts';
import {
  PAYEE_FSP,
  partyFound,
  partyNoCallback,
  partyNotFound,
  quoteError,
  quoteFound,
  transferAborted,
  transferError,
  transferNoCallback,
  transferStatusNotFound,
  transferSyncError,
} from '../ttk/rules.ts';

const FSP_ID = 'onekhusadfsp';
const TRANSFER_EXPIRY_SECONDS = 2;
// Short enough for the cases that wait for a transfer's expiry, long enough that a loaded machine's
// slow lookup answer (three asks, 6 s) does not fail a payout the switch would have paid.
const CALLBACK_SECONDS = 2;

let ttk: AcquiredTtk;
let t: TestApp;
let callbackBase: string;

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-payouts' });
  t = await startTestApp({
    MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: `${AIRTEL},${NBM}`,
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: String(TRANSFER_EXPIRY_SECONDS),
    MOJALOOP_CALLBACK_SECONDS: String(CALLBACK_SECONDS),
    MOJALOOP_LOOKUP_ATTEMPTS: '3',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  callbackBase = `http://127.0.0.1:${address.port}/fspiop`;
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackBase });
}, 180_000);

afterAll(async () => {
  await ttk?.release();
  if (t) await closeMojaloop(t.deps);
  await t?.close();
});

async function fundedMerchant(amountMinor = 100_000_000): Promise<TestMerchant> {
  const m = await newMerchant(t, { accountName: 'Lilongwe Payroll', levelNumber: 1 });
  const res = await topup(t, m, amountMinor);
  expect(res.statusCode, res.body).toBe(200);
  return m;
}

async function singleOver(m: TestMerchant, line: Record<string, unknown>): Promise<void> {
  const res = await singlePayout(t, m, line, idempotencyKey());
  expect(res.statusCode, res.body).toBe(200);
}

/** Sends a callback to our /fspiop as the switch would (for duplicates and forgeries). */
async function callback(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const resource = path.split('/')[1];
  const res = await fetch(`${callbackBase}${path}`, {
    method: 'PUT',
    headers: {
      'content-type': `application/vnd.interoperability.${resource}+json;version=1.0`,
      date: new Date().toUTCString(),
      'fspiop-source': PAYEE_FSP,
      'fspiop-destination': FSP_ID,
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

describe('payouts over Mojaloop (TTK as the switch)', () => {
  it('a 20-line batch to wallets and banks: every line paid on COMMITTED, balances exact, events as today, every message kept', async () => {
    await ttk.setRules([]);
    const m = await fundedMerchant();
    const before = await apiBalances(t, m);
    const lines = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? { ...wallet(`26599${String(1000000 + i)}`, 100_000 + i * 1_000, 'Test Party') }
        : { beneficiaryName: 'Test Party', connectorId: NBM, beneficiaryAccountNumber: `1001${String(230000 + i)}`, transactionDescription: 'Salary', transactionAmount: major(250_000 + i), sourceReferenceNumber: `SRC-BANK-${i}` },
    );
    const added = await addJson(t, m, lines);
    expect(added.statusCode, added.body).toBe(200);
    const batchNumber: number = added.json().batchNumber;
    await validateBatch(t, batchNumber);
    const moved = await act(t, m, 'transferFunds', batchNumber);
    expect(moved.statusCode, moved.body).toBe(200);

    const rows = await settle(t, m);
    expect(rows.map((r) => [r.status_code, r.response_code, r.phase])).toEqual(rows.map(() => ['S', 'S100', 'committed']));
    const paid = rows.reduce((s, r) => s + r.amount_minor + r.fee_minor, 0);
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - paid);
    const { rows: batch } = await t.db.query('select status_code, number_of_successful_entries from batches where batch_number = $1', [batchNumber]);
    expect(batch[0]).toEqual({ status_code: 'C', number_of_successful_entries: 20 });
    // Each payout: its rail_send and its rail_settle, and the six FSPIOP messages of its round trip.
    for (const r of rows) expect(await transferTypes(t, r.transaction_reference_number)).toEqual({ rail_send: 1, rail_settle: 1 });
    // Kept with its payout: each request and each answer. A lookup or quote the switch was slow to
    // answer (MOJALOOP_CALLBACK_SECONDS is 2 s here) may have been asked again, and its late second
    // answer refused as not awaited; a transfer is sent once, ever.
    // A callback is kept just after the change it made is committed (routes.ts): wait for the last.
    const kept = async () =>
      (
        await t.db.query<{ payout_id: number; direction: string; method: string; path: string; outcome: string }>(
          `select payout_id, direction, method, split_part(path, '/', 2) as path, outcome from rail_messages where merchant_account_number = $1`,
          [m.merchantAccountNumber],
        )
      ).rows;
    const transferAnswers = (all: { direction: string; method: string; path: string; outcome: string }[]) =>
      all.filter((x) => x.direction === 'in' && x.method === 'PUT' && x.path === 'transfers' && x.outcome === 'accepted').length;
    await until('every transfer answer kept', async () => transferAnswers(await kept()) >= rows.length, 10_000);
    const messages = await kept();
    for (const r of rows) {
      const mine = messages.filter((x) => x.payout_id === r.payout_id && x.outcome === 'accepted');
      const count = (direction: string, method: string, path: string) => mine.filter((x) => x.direction === direction && x.method === method && x.path === path).length;
      expect([count('out', 'POST', 'transfers'), count('in', 'PUT', 'transfers')]).toEqual([1, 1]);
      expect([count('in', 'PUT', 'parties'), count('in', 'PUT', 'quotes')]).toEqual([1, 1]);
      expect(count('out', 'GET', 'parties')).toBeGreaterThanOrEqual(1);
      expect(count('out', 'POST', 'quotes')).toBeGreaterThanOrEqual(1);
    }
    // The switch answers payout by payout, so each success is booked, and announced, as it comes:
    // batch.payout.success events of at most 10 lines (product.md §9), every line in one of them.
    const { rows: events } = await t.db.query<{ event_code: string; payload: { transactions: { transactionReferenceNumber: string; transactionStatusCode: string }[] } }>(
      `select event_code, payload from outbox_events where merchant_account_number = $1 and event_code like 'batch.payout.%'`,
      [m.merchantAccountNumber],
    );
    expect(new Set(events.map((e) => e.event_code))).toEqual(new Set(['batch.payout.success']));
    const announced = events.flatMap((e) => e.payload.transactions);
    expect(events.every((e) => e.payload.transactions.length <= 10)).toBe(true);
    expect(announced.map((l) => l.transactionReferenceNumber).sort()).toEqual(rows.map((r) => r.transaction_reference_number).sort());
    expect(announced.every((l) => l.transactionStatusCode === 'S')).toBe(true);
    await expectLedgerClean(t, m);
    const report = await verifyLedger(t.db);
    expect(report.checks.find((c) => c.name === 'rail_payouts')!.checked).toBeGreaterThanOrEqual(20);
    // The operator's view of one of them: its ids, phase and every message, no signature kept.
    const traffic = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/payouts/${rows[0].transaction_reference_number}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(traffic.statusCode, traffic.body).toBe(200);
    expect(traffic.json()).toMatchObject({ rail: 'mojaloop', phase: 'committed', transferId: rows[0].transfer_id, payeeFsp: PAYEE_FSP, transactionStatusCode: 'S' });
    expect(traffic.json().messages.map((x: { direction: string; method: string }) => `${x.direction} ${x.method}`)).toEqual(expect.arrayContaining(['out GET', 'in PUT', 'out POST']));
    expect(traffic.body).not.toMatch(/fspiop-signature/i);
    const health = await t.app.inject({ method: 'GET', url: '/admin/v1/rails', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(health.json().rails.map((r: { rail: string; connectorIds: unknown }) => [r.rail, r.connectorIds])).toEqual([
      ['mojaloop', [AIRTEL, NBM]],
      ['simulated', 'others'],
    ]);
    expect(health.json().rails[0].successesLastHour).toBeGreaterThanOrEqual(20);
  });

  it('every authorisation level works unchanged over the rail: a level-3 batch (review, approve) and a level-2 single payout (approve)', async () => {
    await ttk.setRules([]);
    const three = await newMerchant(t, { accountName: 'Zomba Payroll', levelNumber: 3 });
    const two = await newMerchant(t, { accountName: 'Mzuzu Payroll', levelNumber: 2 });
    for (const m of [three, two]) expect((await topup(t, m, 50_000_000)).statusCode).toBe(200);
    const { batchNumber, status } = await readyBatch(t, three, [wallet('265990001301', 130_100, 'Test Party'), wallet('265990001302', 130_200, 'Test Party')]);
    expect(status).toBe('A');
    expect((await act(t, three, 'transferFunds', batchNumber)).statusCode).toBe(200);
    const single = await paidSinglePayout(t, two, wallet('265990001401', 140_100, 'Test Party'));
    expect(single.statusCode, single.body).toBe(200);
    for (const m of [three, two]) {
      const rows = await settle(t, m);
      expect(rows.map((r) => [r.status_code, r.phase])).toEqual(rows.map(() => ['S', 'committed']));
      await expectLedgerClean(t, m);
    }
    expect(await batchStatus(t, batchNumber)).toBe('C');
    const { rows: events } = await t.db.query<{ event_code: string }>('select event_code from outbox_events where merchant_account_number = $1 and event_code like $2', [two.merchantAccountNumber, 'payout.%']);
    expect(events.map((e) => e.event_code)).toEqual(['payout.success']);
  });

  it(`at most ${OPEN_PER_MERCHANT} payouts of a merchant are between lookup and outcome at once; the rest start as those end`, async () => {
    await ttk.setRules([partyNoCallback({ idSuffix: '7070' })]);
    const m = await fundedMerchant();
    const lines = Array.from({ length: OPEN_PER_MERCHANT + 2 }, (_, i) => ({ ...wallet(`2659${String(i).padStart(4, '0')}7070`, 10_000 + i) }));
    const added = await addJson(t, m, lines);
    const batchNumber: number = added.json().batchNumber;
    await validateBatch(t, batchNumber);
    expect((await act(t, m, 'transferFunds', batchNumber)).statusCode).toBe(200);
    await runJob(t, m);
    const started = async () => (await t.db.query<{ n: number }>('select count(*)::int as n from rail_payouts where merchant_account_number = $1', [m.merchantAccountNumber])).rows[0].n;
    const open = async () =>
      (await t.db.query<{ n: number }>(`select count(*)::int as n from rail_payouts where merchant_account_number = $1 and phase in ('lookup', 'quote', 'transfer')`, [m.merchantAccountNumber])).rows[0].n;
    // Never more than OPEN_PER_MERCHANT open at once. A run slower than the lookups' time-out (2 s
    // here, on a loaded machine) has already failed some of them and given their places to the
    // last lines, so the count started is 256 or a little more, never 258 open.
    expect(await open()).toBeLessThanOrEqual(OPEN_PER_MERCHANT);
    expect(await started()).toBeGreaterThanOrEqual(OPEN_PER_MERCHANT);
    // Unanswered, the lookups fail (F108, refunded) and free their places for the last two.
    const rows = await settle(t, m, 30_000);
    expect(await started()).toBe(OPEN_PER_MERCHANT + 2);
    expect(new Set(rows.map((r) => `${r.status_code} ${r.response_code}`))).toEqual(new Set(['F F108']));
    await expectLedgerClean(t, m);
  });

  it('party not found: the payout fails with F101 and is refunded in full; no transfer is sent', async () => {
    await ttk.setRules([partyNotFound({ idSuffix: '0404' })]);
    const m = await fundedMerchant();
    const before = await apiBalances(t, m);
    await singleOver(m, wallet('265990000404', 500_000));
    const [row] = await settle(t, m);
    expect(row).toMatchObject({ status_code: 'F', response_code: 'F101', phase: 'failed' });
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor);
    expect(await transferTypes(t, row.transaction_reference_number)).toEqual({ payout_debit: 1 });
    await expectLedgerClean(t, m);
  });

  it('a name that differs at the beneficiary\'s DFSP is paid with a warning naming it', async () => {
    await ttk.setRules([partyFound({ idSuffix: '0505', name: 'Grace Mwale' })]);
    const m = await fundedMerchant();
    await singleOver(m, wallet('265990000505', 500_000, 'Chisomo Banda'));
    const [row] = await settle(t, m);
    expect(row).toMatchObject({ status_code: 'S', response_code: 'S100' });
    expect(row.response_message).toContain('Grace Mwale');
    const { rows } = await t.db.query('select party_name, name_matches from rail_payouts where payout_id = $1', [row.payout_id]);
    expect(rows[0]).toEqual({ party_name: 'Grace Mwale', name_matches: false });
  });

  it('a quote refused by the payee (5101) fails the payout, refunded; a quote for another amount is refused by us (F110)', async () => {
    await ttk.setRules([quoteError({ payeeId: '265990000606' }), quoteFound({ payeeId: '265990000707', transferAmount: '999' })]);
    const m = await fundedMerchant();
    const before = await apiBalances(t, m);
    await singleOver(m, wallet('265990000606', 500_000));
    await singleOver(m, wallet('265990000707', 600_000));
    const rows = await settle(t, m);
    expect(rows.map((r) => [r.status_code, r.response_code])).toEqual([
      ['F', 'F109'],
      ['F', 'F110'],
    ]);
    expect(rows[0].response_message).toContain('5101');
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor);
    await expectLedgerClean(t, m);
  });

  it('a transfer ABORTED or refused by an error callback fails, refunded from rail_in_flight', async () => {
    await ttk.setRules([transferAborted({ amount: '1234.5' }), transferError({ amount: '1234.6' })]);
    const m = await fundedMerchant();
    const before = await apiBalances(t, m);
    await singleOver(m, wallet('265990000801', 123_450));
    await singleOver(m, wallet('265990000802', 123_460));
    const rows = await settle(t, m);
    expect(rows.map((r) => [r.status_code, r.response_code, r.phase])).toEqual([
      ['F', 'F109', 'aborted'],
      ['F', 'F109', 'aborted'],
    ]);
    expect(rows[1].response_message).toContain('5105');
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor);
    for (const r of rows) expect(await transferTypes(t, r.transaction_reference_number)).toEqual({ payout_debit: 1, rail_send: 1, rail_settle: 1 });
    await expectLedgerClean(t, m);
  });

  it('no callback for the transfer: after its expiry the switch is asked (GET /transfers/{id}), never sent to again, and its COMMITTED pays once', async () => {
    await ttk.setRules([transferNoCallback({ amount: '777' })]);
    const m = await fundedMerchant();
    await singleOver(m, wallet('265990000901', 77_700));
    const inFlight = await untilPhase(t, m, 'transfer');
    const [row] = await settle(t, m, 20_000);
    expect(row).toMatchObject({ status_code: 'S', response_code: 'S100', phase: 'committed' });
    const sent = await ttk.requests();
    expect(sent.filter((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === inFlight.transfer_id)).toHaveLength(1);
    expect(sent.some((r) => r.method.toLowerCase() === 'get' && r.path === `/transfers/${inFlight.transfer_id}`)).toBe(true);
    await expectLedgerClean(t, m);
  });

  it('the switch answers POST /transfers with a 500 and knows nothing of it: after expiry, 3208 fails the payout, refunded once', async () => {
    const m = await fundedMerchant();
    const before = await apiBalances(t, m);
    await ttk.setRules([transferSyncError({ amount: '888' })]);
    await singleOver(m, wallet('265990000902', 88_800));
    const inFlight = await untilPhase(t, m, 'transfer');
    await ttk.setRules([transferSyncError({ amount: '888' }), transferStatusNotFound({ transferId: inFlight.transfer_id! })]);
    // Past its expiry and not yet asked about, it is the operator's "unknown" payout.
    const unknown = await until(
      'listed as unknown',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/admin/v1/rails/payouts/unknown', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        return (res.json() as { transferId: string }[]).find((u) => u.transferId === inFlight.transfer_id);
      },
      10_000,
      100,
    );
    expect(unknown).toMatchObject({ rail: 'mojaloop', transactionReferenceNumber: inFlight.transaction_reference_number, amountMinor: 88_800 });
    const [row] = await settle(t, m, 20_000);
    expect(row).toMatchObject({ status_code: 'F', phase: 'aborted' });
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor);
    await expectLedgerClean(t, m);
  });

  it('a switch that does not answer at all: the lookup is asked MOJALOOP_LOOKUP_ATTEMPTS times, then the payout fails with F108, refunded; no transfer was sent', async () => {
    const closedPort = await freePort();
    const down = await startTestApp({ MOJALOOP_SWITCH_URL: `http://127.0.0.1:${closedPort}`, MOJALOOP_FSP_ID: FSP_ID, MOJALOOP_CONNECTOR_IDS: String(AIRTEL), MOJALOOP_CALLBACK_SECONDS: '1', MOJALOOP_LOOKUP_ATTEMPTS: '2' });
    try {
      const m = await newMerchant(down, { accountName: 'Offline Payroll', levelNumber: 1 });
      expect((await topup(down, m, 10_000_000)).statusCode).toBe(200);
      const before = await apiBalances(down, m);
      expect((await singlePayout(down, m, wallet('265990001201', 120_100), idempotencyKey())).statusCode).toBe(200);
      const { taskList } = await import('../../src/composition.ts');
      const run = taskList(down.deps).process_payouts!;
      const row = await until(
        'payout failed',
        async () => {
          await run({ merchantAccountNumber: m.merchantAccountNumber }, {} as never);
          const { rows } = await down.db.query('select p.status_code, p.response_code, r.phase, r.attempts from payouts p join rail_payouts r using (merchant_account_number, payout_id) where p.merchant_account_number = $1', [m.merchantAccountNumber]);
          return rows[0]?.status_code === 'F' ? rows[0] : undefined;
        },
        15_000,
        200,
      );
      expect(row).toEqual({ status_code: 'F', response_code: 'F108', phase: 'failed', attempts: 2 });
      expect((await apiBalances(down, m)).disbursementMinor).toBe(before.disbursementMinor);
      const { rows: sent } = await down.db.query<{ outcome: string }>(`select outcome from rail_messages where merchant_account_number = $1 and direction = 'out'`, [m.merchantAccountNumber]);
      expect(sent.map((x) => x.outcome)).toEqual([expect.stringContaining('no answer'), expect.stringContaining('no answer')]);
      expect((await verifyLedger(down.db)).checks.filter((c) => c.failed > 0)).toEqual([]);
    } finally {
      await closeMojaloop(down.deps);
      await down.close();
    }
  });

  it('duplicate callbacks change nothing; a second, different outcome is refused', async () => {
    await ttk.setRules([]);
    const m = await fundedMerchant();
    await singleOver(m, wallet('265990001001', 100_100));
    const [row] = await settle(t, m);
    expect(row.status_code).toBe('S');
    const balance = await apiBalances(t, m);
    const entries = (await t.db.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0].n;
    const committed = { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() };
    expect((await callback(`/transfers/${row.transfer_id}`, committed)).status).toBe(200);
    const aborted = await callback(`/transfers/${row.transfer_id}`, { transferState: 'ABORTED', completedTimestamp: new Date().toISOString() });
    expect(aborted.status).toBe(400);
    expect(JSON.parse(aborted.body).errorInformation.errorCode).toBe('3100');
    expect(await apiBalances(t, m)).toEqual(balance);
    expect((await t.db.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0].n).toBe(entries);
    expect((await payouts(t, m))[0]).toMatchObject({ status_code: 'S', phase: 'committed' });
  });

  it('forged callbacks are refused, kept for the operator, and change nothing: unknown id, wrong source, bad fulfilment', async () => {
    await ttk.setRules([transferNoCallback({ amount: '1111' })]);
    const m = await fundedMerchant();
    await singleOver(m, wallet('265990001101', 111_100));
    const row = await untilPhase(t, m, 'transfer');
    const unknown = await callback('/transfers/3b0e6a4e-8f6f-4c5e-9a53-2f2b7d0c1a11', { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: 'A'.repeat(43) });
    expect([unknown.status, JSON.parse(unknown.body).errorInformation.errorCode]).toEqual([400, '3208']);
    const wrongSource = await callback(`/transfers/${row.transfer_id}`, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: 'A'.repeat(43) }, { 'fspiop-source': 'mallorydfsp' });
    expect(wrongSource.status).toBe(400);
    const badFulfilment = await callback(`/transfers/${row.transfer_id}`, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: 'A'.repeat(43) });
    expect([badFulfilment.status, JSON.parse(badFulfilment.body).errorInformation.errorCode]).toEqual([400, '3100']);
    expect((await payouts(t, m))[0]).toMatchObject({ status_code: 'T', phase: 'transfer' });
    const { rows: refused } = await t.db.query<{ n: number }>(`select count(*)::int as n from rail_refused_messages where path like '/transfers/3b0e6a4e%'`);
    expect(refused[0].n).toBe(1);
    const { rows: kept } = await t.db.query<{ outcome: string }>(`select outcome from rail_messages where payout_id = $1 and outcome like 'refused%' order by message_id`, [row.payout_id]);
    expect(kept.map((k) => k.outcome)).toEqual([expect.stringContaining('mallorydfsp'), expect.stringContaining('fulfilment')]);
    // The switch's own word settles it: asked after the expiry, COMMITTED.
    const [final] = await settle(t, m, 20_000);
    expect(final).toMatchObject({ status_code: 'S', phase: 'committed' });
    await expectLedgerClean(t, m);
  });

  it('FSPIOP messages that break the API get its errors and change nothing', async () => {
    const body = { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() };
    const id = '3b0e6a4e-8f6f-4c5e-9a53-2f2b7d0c1a12';
    const cases: [string, Promise<{ status: number; body: string }>, number, string][] = [
      ['application/json', callback(`/transfers/${id}`, body, { 'content-type': 'application/json' }), 400, '3101'],
      ['no date', callback(`/transfers/${id}`, body, { date: '' }), 400, '3102'],
      ['no fspiop-source', callback(`/transfers/${id}`, body, { 'fspiop-source': '' }), 400, '3102'],
      ['another destination', callback(`/transfers/${id}`, body, { 'fspiop-destination': 'otherdfsp' }), 400, '3201'],
      ['version 2.0', callback(`/transfers/${id}`, body, { 'content-type': 'application/vnd.interoperability.transfers+json;version=2.0' }), 406, '3001'],
      ['not JSON', callback(`/transfers/${id}`, '{"transferState":'), 400, '3101'],
      ['missing transferState', callback(`/transfers/${id}`, { completedTimestamp: body.completedTimestamp }), 400, '3102'],
      ['bad state', callback(`/transfers/${id}`, { ...body, transferState: 'PAID' }), 400, '3101'],
      ['unknown route', callback(`/nothing/${id}`, body), 404, '3002'],
    ];
    for (const [name, pending, status, code] of cases) {
      const res = await pending;
      expect([name, res.status], res.body).toEqual([name, status]);
      expect(JSON.parse(res.body).errorInformation.errorCode, name).toBe(code);
    }
  });
});

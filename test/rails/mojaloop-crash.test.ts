// A crash between a Mojaloop transfer and its callback (issue 24): the real service
// (`src/server.ts`, API and worker in one process) sends a payout's POST /transfers to the Testing
// Toolkit, is SIGKILLed before the COMMITTED callback comes (TTK sends it 2.5 s later, to a dead
// port), and is started again. The new process finds the payout in flight, asks the switch
// (GET /transfers/{id}) once the transfer's expiry has passed, never sends it again, and books its
// COMMITTED once: one debit, one rail_send, one rail_settle, the balance exact, ledger verify clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lib/free-port.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { ledgerInvariants, newMerchant, startTestApp, until, type TestApp } from '../helpers.ts';
import { serviceProcesses } from './mojaloop-kit.ts';
import { AIRTEL, apiBalances, idempotencyKey, singlePayout, topup } from '../money-ops.ts';
import { acquireTtk, type AcquiredTtk } from '../ttk/harness.ts';
import { transferCommitted } from '../ttk/rules.ts';

const APP_NAME = 'mojaloop-crash-server';

let ttk: AcquiredTtk;
let t: TestApp;
let port: number;
let processes: ReturnType<typeof serviceProcesses>;

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-crash' });
  t = await startTestApp();
  port = await freePort();
  processes = serviceProcesses(t, port, APP_NAME);
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: `http://127.0.0.1:${port}/fspiop` });
}, 180_000);

afterAll(async () => {
  processes?.killAll();
  await ttk?.release();
  await t?.close();
});

function spawnService() {
  return processes.start({
    MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
    MOJALOOP_FSP_ID: 'onekhusadfsp',
    MOJALOOP_CONNECTOR_IDS: String(AIRTEL),
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: '3',
    MOJALOOP_CALLBACK_SECONDS: '1',
  });
}

describe('a crash between a transfer and its callback', () => {
  it('the restarted service asks the switch, never sends again, and books the COMMITTED once', { timeout: 120_000 }, async () => {
    await ttk.setRules([transferCommitted({ amount: '4321', delayMs: 2500 })]);
    const m = await newMerchant(t, { accountName: 'Crash Payroll', levelNumber: 1 });
    expect((await topup(t, m, 10_000_000)).statusCode).toBe(200);
    const first = spawnService();
    await processes.ready(first);
    const before = await apiBalances(t, m);
    const added = await singlePayout(t, m, { beneficiaryName: 'Test Party', connectorId: AIRTEL, beneficiaryAccountNumber: '265990004321', transactionDescription: 'Salary', transactionAmount: 4321, sourceReferenceNumber: 'CRASH-1' }, idempotencyKey());
    expect(added.statusCode, added.body).toBe(200);
    const reference: string = added.json().transactionReferenceNumber;

    // The transfer is sent (its money in rail_in_flight): kill the service before the callback.
    const inFlight = await until(
      'transfer sent',
      async () => {
        const { rows } = await t.db.query<{ transfer_id: string }>(`select r.transfer_id from rail_payouts r where r.merchant_account_number = $1 and r.phase = 'transfer'`, [m.merchantAccountNumber]);
        if (!rows[0]) return undefined;
        const posted = (await ttk.requests()).some((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === rows[0].transfer_id);
        return posted ? rows[0] : undefined;
      },
      20_000,
      20,
      first.output,
    );
    await processes.killHard(first);
    expect((await t.db.query('select status_code from payouts where transaction_reference_number = $1', [reference])).rows[0].status_code).toBe('T');

    // The callback finds nobody; the new process resolves it by asking, after the expiry.
    await new Promise((r) => setTimeout(r, 3000));
    const second = spawnService();
    await processes.ready(second);
    await until(
      'payout final',
      async () => (await t.db.query('select status_code from payouts where transaction_reference_number = $1', [reference])).rows[0].status_code !== 'T',
      30_000,
      100,
      second.output,
    );
    const { rows } = await t.db.query('select p.status_code, p.response_code, r.phase, r.asked_at is not null as asked from payouts p join rail_payouts r using (merchant_account_number, payout_id) where p.transaction_reference_number = $1', [reference]);
    expect(rows[0]).toEqual({ status_code: 'S', response_code: 'S100', phase: 'committed', asked: true });
    const requests = await ttk.requests();
    expect(requests.filter((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === inFlight.transfer_id)).toHaveLength(1);
    expect(requests.some((r) => r.method.toLowerCase() === 'get' && r.path === `/transfers/${inFlight.transfer_id}`)).toBe(true);
    const { rows: moves } = await t.db.query<{ transfer_type: string; n: number }>('select transfer_type, count(*)::int as n from ledger_transfers where reference = $1 group by 1 order by 1', [reference]);
    expect(moves).toEqual([
      { transfer_type: 'payout_debit', n: 1 },
      { transfer_type: 'rail_send', n: 1 },
      { transfer_type: 'rail_settle', n: 1 },
    ]);
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 432_100 - 10_000);
    const report = await verifyLedger(t.db);
    expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
    second.child.kill('SIGTERM');
    await second.exited;
  });
});

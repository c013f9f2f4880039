// Production never uses the simulated payout connector (issue 13, item 1): with APP_MODE=production
// a payout to a connector no real rail carries (src/rails/routing.ts: every connector when none is configured) fails
// at once with F105 "Connector unavailable" and is refunded in full, amount and fee, with the usual
// batch.payout.failed / payout.failed events; the sandbox's magic suffixes do nothing there.
// Real app in production mode, real database; the payout job is run directly (taskList).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { payoutRoutes } from '../../src/rails/routing.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../../src/modules/ledger/ledger.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { ledgerInvariants, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { BANK_FEE, CAPTURER, payoutLine, runPayouts, validateBatch, WALLET_FEE } from '../money-ops.ts';

const LIVE = '/live/v1';

let t: TestApp;

beforeAll(async () => {
  // Time-outs and reversals would come due at once, were anything simulated.
  t = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw', PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
});
afterAll(() => t.close());

/** Credits the disbursement balance straight in the ledger (no sandbox top-up in production). */
async function fund(who: TestMerchant, amountMinor: number): Promise<void> {
  await withTransaction(t.db, async (tx) =>
    postTransfer(tx, {
      merchantAccountNumber: who.merchantAccountNumber,
      type: 'topup',
      reference: `TEST-FUND-${who.merchantAccountNumber}`,
      entries: [
        { accountId: await systemAccountId(tx, who.merchantAccountNumber, 'funding', 'MWK'), amountMinor: -amountMinor },
        { accountId: await merchantAccountId(tx, who.merchantAccountNumber, 'disbursement', 'MWK'), amountMinor },
      ],
    }),
  );
}

let keys = 0;
/** Production requires X-Idempotency-Key on money-moving writes (IDEMPOTENCY_REQUIRED): each write sends a new one. */
function post(who: TestMerchant, path: string, payload: object) {
  return t.app.inject({ method: 'POST', url: `${LIVE}${path}`, headers: { ...who.auth, 'x-idempotency-key': `production-payouts-${Date.now()}-${++keys}` }, payload });
}

async function balanceMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ b: number }>(`select balance_minor as b from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement'`, [who.merchantAccountNumber]);
  return rows[0].b;
}

interface PayoutOutcome {
  transaction_reference_number: string;
  status_code: string;
  response_code: string;
  response_message: string;
}

async function outcomes(where: string, param: number): Promise<PayoutOutcome[]> {
  const { rows } = await t.db.query<PayoutOutcome>(
    `select transaction_reference_number, status_code, response_code, response_message from payouts where ${where} order by payout_id`,
    [param],
  );
  return rows;
}

async function events(who: TestMerchant): Promise<Array<{ event_code: string; payload: any }>> {
  const { rows } = await t.db.query(`select event_code, payload from outbox_events where merchant_account_number = $1 order by event_id`, [who.merchantAccountNumber]);
  return rows;
}

async function expectMoneyConsistent(): Promise<void> {
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
  // Nothing was paid out: the settled-payouts and fees accounts never moved.
  const { rows } = await t.db.query<{ n: number }>(
    `select count(*)::int as n from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id) where a.kind in ('payouts_settled', 'fees')`,
  );
  expect(rows[0].n).toBe(0);
}

const F105 = { status_code: 'F', response_code: 'F105', response_message: 'Connector unavailable' };

describe('production mode: no simulated payouts', () => {
  it('routes every connector to the simulated rail in sandbox mode and to the unavailable one in production when no real rail is configured', () => {
    const routes = (mode: 'sandbox' | 'production') => payoutRoutes({ config: { ...t.deps.config, mode, mojaloop: undefined } } as Deps).map((r) => [r.rail.name, r.connectors]);
    expect(routes('sandbox')).toEqual([['simulated', { except: [] }]]);
    expect(routes('production')).toEqual([['unavailable', { except: [] }]]);
  });

  it('every line of a batch fails at once with F105, magic suffixes included, and the batch is refunded in full', async () => {
    const m = await newMerchant(t, { accountName: 'Live Payroll', levelNumber: 1 });
    await fund(m, 10_000_000);
    const before = await balanceMinor(m);
    const lines = [
      payoutLine({ amountMinor: 100_000, channel: 'wallet', suffix: '4567' }),
      payoutLine({ amountMinor: 250_050, channel: 'bank', suffix: '4567' }),
      // In the sandbox: succeeds then is reversed; times out then fails.
      payoutLine({ amountMinor: 70_000, channel: 'wallet', suffix: '9905' }),
      payoutLine({ amountMinor: 80_000, channel: 'wallet', suffix: '9904' }),
    ];
    const added = await post(m, '/disbursements/batch/addJson', { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: lines });
    expect(added.statusCode, added.body).toBe(200);
    const n: number = added.json().batchNumber;
    await validateBatch(t, n);
    const transferred = await post(m, '/disbursements/batch/transferFunds', { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n, transferredBy: CAPTURER });
    expect(transferred.statusCode, transferred.body).toBe(200);
    expect(await balanceMinor(m)).toBe(before - 500_050 - 3 * WALLET_FEE - BANK_FEE);

    await runPayouts(t, m);

    const rows = await outcomes('batch_number = $1', n);
    expect(rows.map(({ transaction_reference_number: _, ...o }) => o)).toEqual([F105, F105, F105, F105]);
    expect(await balanceMinor(m)).toBe(before);
    const batch = await post(m, '/disbursements/batch/getBatch', { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n });
    expect(batch.json()).toMatchObject({ numberOfSuccessfulEntries: 0, numberOfFailedEntries: 4, numberOfReversedEntries: 0, totalAmountOfFailedEntries: 5000.5 });
    // Every line final: C with per-line outcomes (F is kept for a batch whose merchant was deactivated first).
    expect(batch.json().batchStatusCode).toBe('C');

    const all = await events(m);
    expect(all.map((e) => e.event_code).filter((c) => c.startsWith('batch.payout.'))).toEqual(['batch.payout.failed']);
    const failed = all.find((e) => e.event_code === 'batch.payout.failed')!;
    expect(failed.payload.transactions.map((x: { transactionReferenceNumber: string; responseCode: string; responseMessage: string }) => [x.transactionReferenceNumber, x.responseCode, x.responseMessage])).toEqual(
      rows.map((r) => [r.transaction_reference_number, 'F105', 'Connector unavailable']),
    );
    await expectMoneyConsistent();
  });

  it('a single payout fails at once with F105, is refunded (amount and fee) and raises payout.failed', async () => {
    const m = await newMerchant(t, { accountName: 'Live Shop', levelNumber: 1 });
    await fund(m, 1_000_000);
    const before = await balanceMinor(m);
    const res = await post(m, '/disbursements/single/add', { merchantAccountNumber: m.merchantAccountNumber, ...payoutLine({ amountMinor: 50_000, channel: 'bank', suffix: '4567' }), capturedBy: CAPTURER });
    expect(res.statusCode, res.body).toBe(200);
    const reference: string = res.json().transactionReferenceNumber;
    expect(await balanceMinor(m)).toBe(before - 50_000 - BANK_FEE);

    await runPayouts(t, m);

    expect(await outcomes('merchant_account_number = $1', m.merchantAccountNumber)).toEqual([{ transaction_reference_number: reference, ...F105 }]);
    expect(await balanceMinor(m)).toBe(before);
    const got = await post(m, '/disbursements/single/getTransaction', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reference });
    expect(got.json()).toMatchObject({ transactionStatusCode: 'F', responseCode: 'F105', responseMessage: 'Connector unavailable' });
    const codes = (await events(m)).map((e) => e.event_code);
    expect(codes.filter((c) => c.startsWith('payout.'))).toEqual(['payout.failed']);
    await expectMoneyConsistent();
  });
});

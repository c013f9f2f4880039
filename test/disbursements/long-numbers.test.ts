// Batch numbers and settlement account ids past int4 (migration 0038): numbers a Citus worker would
// draw (2^48 and up), or a long-lived service's. Each travels the whole way: drawn, answered by the
// API, accepted back by it, paid, read back in the console's data and on the statement, whose lines
// find a batch's payouts by the batch number. Before 0038 the insert itself overflowed (integer
// columns); a batch number of more than nine digits was also not read back from its transfer's
// reference (B<digits>) by the statement.
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskList } from '../../src/composition.ts';
import { batchDetail } from '../../src/modules/console/payouts/queries.ts';
import { processMerchantPayouts } from '../../src/modules/disbursements/processing.ts';
import { statementLines } from '../../src/modules/ledger/statements.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

/** Past int4 (2,147,483,647) and past nine digits: 2^48 + 1, the first number a Citus worker draws. */
const LONG = 2 ** 48 + 1;

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  // This file's own database: its next numbers are long ones.
  await t.db.query(`alter table batches alter column batch_number restart with ${LONG}`);
  await t.db.query(`alter table settlement_accounts alter column account_id restart with ${LONG}`);
  m = await newMerchant(t, { accountName: 'Long Numbers' });
});

afterAll(async () => {
  await t?.close();
});

const post = (path: string, payload: object) => t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: m.auth, payload });

describe('numbers past int4', () => {
  it('a batch numbered 2^48 + 1 is accepted, paid, read back and shown on the statement', async () => {
    const account = m.merchantAccountNumber;
    expect((await post('/merchants/accounts/topup', { merchantAccountNumber: account, connectorId: 212188, topupAmount: 10_000, createdBy: 'ops@long.mw' })).statusCode).toBe(200);
    const added = await post('/disbursements/batch/addJson', {
      header: { merchantAccountNumber: account, capturedBy: 'payroll@long.mw' },
      transactions: [
        { beneficiaryName: 'Beneficiary One', beneficiaryAccountNumber: '265888000110', connectorId: 112400, transactionAmount: '100.00', sourceReferenceNumber: 'LONG-1', transactionDescription: 'salary' },
        { beneficiaryName: 'Beneficiary Two', beneficiaryAccountNumber: '265888000210', connectorId: 112400, transactionAmount: '200.00', sourceReferenceNumber: 'LONG-2', transactionDescription: 'salary' },
      ],
    });
    expect(added.statusCode, added.body).toBe(200);
    const { batchNumber } = added.json() as { batchNumber: number };
    expect(batchNumber).toBe(LONG);
    await taskList(t.deps).validate_batch!({ batchNumber, merchantAccountNumber: account }, {} as JobHelpers);
    const transferred = await post('/disbursements/batch/transferFunds', { merchantAccountNumber: account, batchNumber, transferredBy: 'finance@long.mw' });
    expect(transferred.statusCode, transferred.body).toBe(200);
    await processMerchantPayouts(t.deps, account);

    const got = await post('/disbursements/batch/getBatch', { merchantAccountNumber: account, batchNumber });
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json()).toMatchObject({ batchNumber: LONG, batchStatusCode: 'C', numberOfSuccessfulEntries: 2 });
    expect(await batchDetail(t.db, account, batchNumber)).toMatchObject({ batchNumber: LONG });

    const today = new Date().toISOString().slice(0, 10);
    const { items } = await statementLines(t.db, account, today, today, { limit: 100 });
    const payouts = items.filter((l) => l.type === 'payout');
    // Each of the batch's payouts on its own line, found through the batch number (with its beneficiary).
    expect(payouts.map((l) => [l.reference, l.counterparty, l.amountMinor]).sort()).toEqual([
      [`B${LONG}`, 'Beneficiary One', -10_000],
      [`B${LONG}`, 'Beneficiary Two', -20_000],
    ]);
  });

  it('a settlement account numbered 2^48 + 1 is answered and read back by its id', async () => {
    const added = await post('/merchants/bankAccounts/add', {
      merchantAccountNumber: m.merchantAccountNumber,
      accountNumber: '100200300400',
      connectorId: 212188,
      accountName: 'Long Numbers Ltd',
      capturedBy: 'ops@long.mw',
    });
    expect(added.statusCode, added.body).toBe(201);
    const got = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/bankAccounts/get`, headers: m.auth, query: { accountId: String(LONG) } });
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().accountId).toBe(LONG);
  });
});

// Issue 27, the documented fields of three disbursement reads (docs.onekhusa.com):
//   - batch/getBatch: contentType, dataSource, authorisationLevel, errorFileName, actionedBy,
//     dateActioned (example: "Microsoft Excel File", "File", "Initiator -> Reviewer -> Approver", null,
//     the approver, "2024-01-15");
//   - batch/getTransaction: merchantAccountNumber, merchantAccountName, processedDate ("2025-10-30");
//   - single/getTransaction: merchantAccountName, merchantAccountNumber, transactionType
//     ("Disbursement"), processedDate ("2024-01-15").
// Each value is the batch's or payout's own, never a constant standing in for data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { act, APPROVER, CAPTURER, REVIEWER, runPayouts, singlePayout, topup, validateBatch, walletLine } from '../money-ops.ts';

let t: TestApp;
/** Level 2: capture, approve, transfer. */
let m: TestMerchant;
/** Level 1: single payouts are paid at once. */
let one: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'MERCHANT SANDBOX', levelNumber: 2 });
  one = await newMerchant(t, { accountName: 'ABC Company Ltd', levelNumber: 1 });
  other = await newMerchant(t, { accountName: 'Other Shop' });
  expect((await topup(t, m, 10_000_000)).statusCode).toBe(200);
  expect((await topup(t, one, 10_000_000)).statusCode).toBe(200);
});
afterAll(() => t.close());

const post = (who: TestMerchant, path: string, payload: object) => t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: who.auth, payload });
const today = () => new Date().toISOString().slice(0, 10);
const getBatch = (who: TestMerchant, batchNumber: number) => post(who, '/disbursements/batch/getBatch', { merchantAccountNumber: who.merchantAccountNumber, batchNumber });

async function jsonBatch(who: TestMerchant, lines: Record<string, unknown>[]): Promise<number> {
  const res = await post(who, '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: lines });
  expect(res.statusCode, res.body).toBe(200);
  await validateBatch(t, res.json().batchNumber);
  return res.json().batchNumber;
}

describe('POST /disbursements/batch/getBatch: the documented fields', () => {
  it('a JSON batch: its source, the level it follows, its error file, and who acted last and when', async () => {
    const n = await jsonBatch(m, [walletLine(1000), walletLine(2000, { beneficiaryAccountNumber: '12345' })]);
    const pending = (await getBatch(m, n)).json();
    expect(pending).toMatchObject({
      contentType: 'application/json',
      dataSource: 'JSON',
      authorisationLevel: 'Initiator -> Approver',
      // One line is invalid: downloadErrors answers the document of that name.
      errorFileName: 'Batch Disbursement Errors',
      // Nobody has acted on it since it was captured.
      actionedBy: null,
      dateActioned: null,
    });
    expect((await act(t, m, 'approve', n, APPROVER)).statusCode).toBe(200);
    expect((await getBatch(m, n)).json()).toMatchObject({ approvedBy: APPROVER, actionedBy: APPROVER, dateActioned: today() });
    expect((await act(t, m, 'transferFunds', n, CAPTURER)).statusCode).toBe(200);
    expect((await getBatch(m, n)).json()).toMatchObject({ actionedBy: CAPTURER, dateActioned: today() });
    // The documented date format: YYYY-MM-DD.
    expect((await getBatch(m, n)).json().dateActioned).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('a file batch: "Microsoft Excel File" or text/csv from "File"; no invalid line, no error file; a level-3 batch names its three steps', async () => {
    const csv = 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber\nDalitso,112400,265881234567,Salary,150,CSV-OK-1\n';
    const res = await post(m, '/disbursements/batch/addFile', { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, contentType: 'CSV', fileContent: Buffer.from(csv).toString('base64'), capturedBy: CAPTURER });
    expect(res.statusCode, res.body).toBe(200);
    await validateBatch(t, res.json().batchNumber);
    expect((await getBatch(m, res.json().batchNumber)).json()).toMatchObject({ contentType: 'text/csv', dataSource: 'File', errorFileName: null });

    const three = await newMerchant(t, { accountName: 'Six Eyes Shop', levelNumber: 3 });
    const n = await jsonBatch(three, [walletLine(1000)]);
    expect((await act(t, three, 'review', n, REVIEWER)).statusCode).toBe(200);
    expect((await getBatch(three, n)).json()).toMatchObject({ authorisationLevel: 'Initiator -> Reviewer -> Approver', actionedBy: REVIEWER, dateActioned: today() });
  });

  it('a rejected batch names who rejected it', async () => {
    const n = await jsonBatch(m, [walletLine(1000)]);
    expect((await act(t, m, 'reject', n, APPROVER)).statusCode).toBe(200);
    expect((await getBatch(m, n)).json()).toMatchObject({ rejectedBy: APPROVER, actionedBy: APPROVER, dateActioned: today() });
  });
});

describe('POST /disbursements/batch/getTransaction: the documented fields', () => {
  it('names the merchant account and the day the line was processed (null until it is)', async () => {
    const n = await jsonBatch(m, [walletLine(1000)]);
    const { rows } = await t.db.query<{ transaction_reference_number: string }>('select transaction_reference_number from payouts where batch_number = $1', [n]);
    const reference = rows[0].transaction_reference_number;
    const read = () => post(m, '/disbursements/batch/getTransaction', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reference });
    expect((await read()).json()).toMatchObject({ merchantAccountNumber: m.merchantAccountNumber, merchantAccountName: 'MERCHANT SANDBOX', processedDate: null });
    expect((await act(t, m, 'approve', n, APPROVER)).statusCode).toBe(200);
    expect((await act(t, m, 'transferFunds', n, CAPTURER)).statusCode).toBe(200);
    await runPayouts(t, m);
    expect((await read()).json()).toMatchObject({ transactionStatusCode: 'S', merchantAccountNumber: m.merchantAccountNumber, merchantAccountName: 'MERCHANT SANDBOX', processedDate: today() });
    // Another merchant's reference stays invisible.
    expect(problemOf(await post(other, '/disbursements/batch/getTransaction', { merchantAccountNumber: other.merchantAccountNumber, transactionReferenceNumber: reference })).errorCode).toBe('E903');
  });
});

describe('POST /disbursements/single/getTransaction: the documented fields', () => {
  it('names the merchant account, the transaction type and the day it was processed', async () => {
    const added = await singlePayout(t, one, walletLine(1500));
    expect(added.statusCode, added.body).toBe(200);
    const reference: string = added.json().transactionReferenceNumber;
    await runPayouts(t, one);
    const res = await post(one, '/disbursements/single/getTransaction', { merchantAccountNumber: one.merchantAccountNumber, transactionReferenceNumber: reference });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      merchantAccountName: 'ABC Company Ltd',
      merchantAccountNumber: one.merchantAccountNumber,
      transactionType: 'Disbursement',
      transactionStatusCode: 'S',
      processedDate: today(),
    });
  });
});

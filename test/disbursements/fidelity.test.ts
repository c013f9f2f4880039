// Fidelity of the disbursement endpoints to the gateway's documentation (issue 14), with the
// documented example bodies sent as they are (account numbers, connector ids, references and
// dates replaced, so that they name this sandbox's things and days to come):
//   - POST batch/download {merchantAccountNumber, headerId, downloadType "XLSX" | "CSV"} answers a
//     JSON string, the file base64-encoded (the documentation's other copy names the batch
//     batchNumber: both are accepted);
//   - batch/downloadErrors answers an Excel workbook by default, contentType "Microsoft Excel File"
//     (CSV still on downloadType "CSV");
//   - single/getTransactions answers a bare array;
//   - "searchText": "" means no search (E3, E4, single/getTransactions);
//   - date-times are accepted where a date is: E4 batchDate ("…T08:43:21.699084"), E8 and addFile
//     scheduledDate ("…T12:47:31.183Z"), single/getTransactions transactionDate; each is taken as
//     its UTC date.
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDate } from '../../src/http/schemas.ts';
import { BASE, clientError, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, CAPTURER, NBM, topup, validateBatch } from '../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Fidelity Shop', levelNumber: 1 });
  other = await newMerchant(t, { accountName: 'Other Shop' });
  expect((await topup(t, m, 10_000_000)).statusCode).toBe(200);
});
afterAll(() => t.close());

const post = (who: TestMerchant, path: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });

/** YYYY-MM-DD, `days` from today (UTC). */
const utcDay = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`.toUpperCase();

/** The documented E8 line, with a connector and account of this sandbox. */
const documentedLine = (over: Record<string, unknown> = {}) => ({
  beneficiaryName: 'John Phiri',
  connectorId: NBM,
  beneficiaryAccountNumber: '1001234567',
  transactionDescription: 'Salary Payment',
  transactionAmount: 45000,
  sourceReferenceNumber: `QKAHXD${unique()}`,
  ...over,
});

/** A validated batch of `lines` (level 1: P); its number. */
async function batchOf(who: TestMerchant, lines: Record<string, unknown>[]): Promise<number> {
  const res = await post(who, '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: lines });
  expect(res.statusCode, res.body).toBe(200);
  await validateBatch(t, res.json().batchNumber);
  return res.json().batchNumber;
}

async function workbookRows(bytes: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

describe('POST /disbursements/batch/download', () => {
  let batchNumber: number;
  beforeAll(async () => {
    batchNumber = await batchOf(m, [
      documentedLine({ beneficiaryName: 'Valid Bank', sourceReferenceNumber: 'DL-1' }),
      documentedLine({ beneficiaryName: '=HYPERLINK("http://evil")', connectorId: AIRTEL, beneficiaryAccountNumber: '12345', transactionAmount: '300.50', sourceReferenceNumber: 'DL-2' }),
      documentedLine({ beneficiaryName: 'Valid Wallet', connectorId: AIRTEL, beneficiaryAccountNumber: '265991234567', transactionAmount: 1500, sourceReferenceNumber: 'DL-3' }),
    ]);
  });

  it('the documented body (headerId, XLSX) answers a JSON string: the workbook, base64-encoded', async () => {
    const res = await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: batchNumber, downloadType: 'XLSX' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const text = res.json();
    expect(typeof text).toBe('string');
    const bytes = Buffer.from(text, 'base64');
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    const rows = await workbookRows(bytes);
    const { rows: refs } = await t.db.query<{ r: string }>('select transaction_reference_number as r from payouts where batch_number = $1 order by line_number', [batchNumber]);
    expect(rows[0]).toEqual([
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
    ]);
    expect(rows.slice(1).map((r) => r.slice(0, 13))).toEqual([
      [1, refs[0].r, 'Valid Bank', NBM, 'National Bank of Malawi', '1001234567', 'Salary Payment', 45000, 150, 'MWK', 'DL-1', 'D', 'Ready for funds transfer'],
      [2, refs[1].r, '=HYPERLINK("http://evil")', AIRTEL, 'Airtel Money', '12345', 'Salary Payment', 300.5, 0, 'MWK', 'DL-2', 'E', 'Error'],
      [3, refs[2].r, 'Valid Wallet', AIRTEL, 'Airtel Money', '265991234567', 'Salary Payment', 1500, 100, 'MWK', 'DL-3', 'D', 'Ready for funds transfer'],
    ]);
    // The invalid line says why; a text that looks like a formula stays a text.
    expect(rows[2][15]).toBe('A wallet account must be a 12-digit number starting with 265.');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.worksheets[0].getCell('C3').type).toBe(ExcelJS.ValueType.String);
  });

  it('the other documented form (batchNumber, CSV), and XLSX when downloadType is left out', async () => {
    const csv = await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, batchNumber, downloadType: 'CSV' });
    expect(csv.statusCode, csv.body).toBe(200);
    const text = Buffer.from(csv.json(), 'base64').toString('utf8');
    expect(text.startsWith('\uFEFFlineNumber,transactionReferenceNumber,beneficiaryName,')).toBe(true);
    expect(text).toContain(`,"'=HYPERLINK(""http://evil"")",`);
    expect(text.trimEnd().split('\r\n')).toHaveLength(4);
    const byDefault = await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: String(batchNumber) });
    expect(byDefault.statusCode, byDefault.body).toBe(200);
    expect(Buffer.from(byDefault.json(), 'base64').subarray(0, 2).toString('latin1')).toBe('PK');
  });

  it('refuses a body naming no batch or two different ones (400), an unknown type (400)', async () => {
    expect(clientError(await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, downloadType: 'XLSX' }), 400).errors).toEqual(['Batch Number is required.']);
    clientError(await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: batchNumber, batchNumber: batchNumber + 1 }), 400);
    clientError(await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: batchNumber, downloadType: 'PDF' }), 400);
  });

  it("answers 404 for an unknown or another merchant's batch, 409 while it is being validated", async () => {
    expect(clientError(await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: 2_000_000_000 }), 404).errorCode).toBe('E903');
    expect(clientError(await post(other, '/disbursements/batch/download', { merchantAccountNumber: other.merchantAccountNumber, headerId: batchNumber }), 404).detail).toBe(`Batch ${batchNumber} was not found.`);
    clientError(await post(other, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: batchNumber }), 404);
    const queued = await post(m, '/disbursements/batch/addJson', { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: [documentedLine()] });
    const res = await post(m, '/disbursements/batch/download', { merchantAccountNumber: m.merchantAccountNumber, headerId: queued.json().batchNumber });
    clientError(res, 409);
    expect(res.headers['retry-after']).toBe('1');
  });
});

describe('POST /disbursements/batch/downloadErrors: an Excel workbook by default', () => {
  it('the documented body answers {documentName, contentType "Microsoft Excel File", dateCreated, documentBase64}', async () => {
    const n = await batchOf(m, [
      documentedLine({ sourceReferenceNumber: 'ERR-1' }),
      documentedLine({ beneficiaryName: '+line one', connectorId: AIRTEL, beneficiaryAccountNumber: '12345', transactionAmount: '200.00', sourceReferenceNumber: 'ERR-2' }),
      documentedLine({ beneficiaryName: 'Dup', sourceReferenceNumber: 'ERR-1' }),
    ]);
    const res = await post(m, '/disbursements/batch/downloadErrors', { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ documentName: 'Batch Disbursement Errors', contentType: 'Microsoft Excel File', dateCreated: expect.any(String), documentBase64: expect.any(String) });
    expect(Number.isNaN(Date.parse(res.json().dateCreated))).toBe(false);
    const rows = await workbookRows(Buffer.from(res.json().documentBase64, 'base64'));
    expect(rows).toEqual([
      ['lineNumber', 'beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber', 'errorMessage'],
      [2, '+line one', AIRTEL, '12345', 'Salary Payment', 200, 'ERR-2', 'A wallet account must be a 12-digit number starting with 265.'],
      [3, 'Dup', NBM, '1001234567', 'Salary Payment', 45000, 'ERR-1', 'The sourceReferenceNumber is already used on line 1.'],
    ]);
    // The workbook goes back in through addFile as it is: its invalid lines, now fixed.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(res.json().documentBase64, 'base64') as unknown as ArrayBuffer);
    workbook.worksheets[0].getCell('D2').value = '265991234567';
    workbook.worksheets[0].getCell('G3').value = 'ERR-3';
    const fixed = Buffer.from(await workbook.xlsx.writeBuffer());
    const again = await post(m, '/disbursements/batch/addFile', {
      merchantAccountNumber: m.merchantAccountNumber,
      isBatchScheduled: false,
      contentType: 'XLSX',
      capturedBy: 'johndoe@example.com',
      fileContent: fixed.toString('base64'),
    });
    expect(again.statusCode, again.body).toBe(200);
    await validateBatch(t, again.json().batchNumber);
    const { rows: status } = await t.db.query<{ status_code: string; number_of_invalid_entries: number }>('select status_code, number_of_invalid_entries from batches where batch_number = $1', [
      again.json().batchNumber,
    ]);
    expect(status[0]).toEqual({ status_code: 'P', number_of_invalid_entries: 0 });
  });

  it('CSV on downloadType "CSV", as before', async () => {
    const n = await batchOf(m, [documentedLine({ connectorId: AIRTEL, beneficiaryAccountNumber: '12345', sourceReferenceNumber: 'CSV-1' })]);
    const res = await post(m, '/disbursements/batch/downloadErrors', { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n, downloadType: 'CSV' });
    expect(res.json()).toMatchObject({ documentName: `batch-${n}-errors.csv`, contentType: 'text/csv' });
  });
});

describe('POST /disbursements/single/getTransactions: a bare array', () => {
  it('the documented body ("searchText": "") lists the day\'s single payouts, each with its transactionDate', async () => {
    const refs: string[] = [];
    for (const name of ['Grace Banda', 'Jane Chidothi']) {
      const res = await post(m, '/disbursements/single/add', {
        merchantAccountNumber: m.merchantAccountNumber,
        beneficiaryName: name,
        connectorId: NBM,
        beneficiaryAccountNumber: '1234568000',
        transactionDescription: 'Salary Payment',
        transactionAmount: 45000,
        sourceReferenceNumber: 'QKAHXD200923',
        capturedBy: 'johndoe@example.com',
      });
      expect(res.statusCode, res.body).toBe(200);
      refs.push(res.json().transactionReferenceNumber);
    }
    const res = await post(m, '/disbursements/single/getTransactions', {
      merchantAccountNumber: m.merchantAccountNumber,
      transactionDate: utcDay(),
      pageNumber: 1,
      numberOfReturnedRows: 10,
      isIncremental: false,
      searchBy: 'TransactionReferenceNumber',
      searchText: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json();
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((p: { transactionReferenceNumber: string }) => p.transactionReferenceNumber)).toEqual([...refs].reverse());
    expect(list[0]).toMatchObject({
      beneficiaryAccountNumber: '1234568000',
      beneficiaryName: 'Jane Chidothi',
      connectorName: 'National Bank of Malawi',
      transactionAmount: 45000,
      currencyCode: 'MWK',
      transactionStatusCode: 'T',
      transactionStatusName: 'Transferring funds',
      transactionDescription: 'Salary Payment',
      transactionReferenceNumber: refs[1],
      transactionDate: utcDay(),
    });
    // A date-time is its UTC day; nothing matches another day; an empty list is [].
    const at = (transactionDate: string) => post(m, '/disbursements/single/getTransactions', { merchantAccountNumber: m.merchantAccountNumber, transactionDate, searchText: '' });
    expect((await at(`${utcDay()}T08:43:21.699084`)).json()).toHaveLength(2);
    expect((await at(`${utcDay(-1)}T23:30:00-02:00`)).json()).toHaveLength(2);
    expect((await at(`${utcDay(1)}T00:00:00Z`)).json()).toEqual([]);
    expect((await post(other, '/disbursements/single/getTransactions', { merchantAccountNumber: other.merchantAccountNumber })).json()).toEqual([]);
  });
});

describe('"searchText": "" means no search', () => {
  it('on E3 (batch/getTransactions) and E4 (batch/getBatches), as without it', async () => {
    const n = await batchOf(m, [documentedLine(), documentedLine()]);
    const e3 = await post(m, '/disbursements/batch/getTransactions', { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n, searchBy: 'BeneficiaryName', searchText: '' });
    expect(e3.statusCode, e3.body).toBe(200);
    expect(e3.json().message).toHaveLength(2);
    const e4 = await post(m, '/disbursements/batch/getBatches', {
      merchantAccountNumber: m.merchantAccountNumber,
      batchDate: `${utcDay()}T08:43:21.699084`,
      pageNumber: 1,
      numberOfReturnedRows: 20,
      isIncremental: true,
      searchBy: 'CapturedBy',
      searchText: '',
    });
    expect(e4.statusCode, e4.body).toBe(200);
    const all = await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, numberOfReturnedRows: 20 });
    expect(e4.json()).toEqual(all.json());
    expect(e4.json().map((b: { batchNumber: number }) => b.batchNumber)).toContain(n);
    // Still bounded, and a real search still searches.
    clientError(await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, searchBy: 'CapturedBy', searchText: 'x'.repeat(101) }), 400);
    expect((await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, searchBy: 'CapturedBy', searchText: 'nobody-like-this' })).json()).toEqual([]);
  });
});

describe('date-times where a date is asked for, taken as their UTC date', () => {
  it('E4 batchDate: the documented "…T08:43:21.699084", with a zone or an offset; impossible days are 400', async () => {
    const n = await batchOf(m, [documentedLine()]);
    const batches = async (batchDate: string) => {
      const res = await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, batchDate, numberOfReturnedRows: 1000 });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().map((b: { batchNumber: number }) => b.batchNumber);
    };
    expect(await batches(`${utcDay()}T08:43:21.699084`)).toContain(n);
    expect(await batches(`${utcDay()}T23:59:59Z`)).toContain(n);
    // 01:00 at UTC+03:00 is 22:00 UTC the day before.
    expect(await batches(`${utcDay(1)}T01:00:00+03:00`)).toContain(n);
    expect(await batches(`${utcDay()}T22:00:00-03:00`)).not.toContain(n);
    const p = clientError(await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, batchDate: '2026-02-30T10:00:00Z' }), 400);
    expect(p.errors).toEqual(['Batch Date must be a date (YYYY-MM-DD) or a date-time (e.g. 2025-09-19T12:47:31.183Z), taken as its UTC date.']);
    clientError(await post(m, '/disbursements/batch/getBatches', { merchantAccountNumber: m.merchantAccountNumber, batchDate: 'yesterday' }), 400);
  });

  it('E8 (the documented body) and addFile scheduledDate: a date-time is stored as its UTC date', async () => {
    const scheduled = async (batchNumber: number) =>
      (await t.db.query<{ d: string }>(`select to_char(scheduled_date, 'YYYY-MM-DD') as d from batches where batch_number = $1`, [batchNumber])).rows[0].d;
    const e8 = await post(m, '/disbursements/batch/addJson', {
      header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: true, scheduledDate: `${utcDay(3)}T12:47:31.183Z`, capturedBy: 'admin@example.com' },
      transactions: [documentedLine({ sourceReferenceNumber: 'QKAHXD200923' })],
    });
    expect(e8.statusCode, e8.body).toBe(200);
    expect(await scheduled(e8.json().batchNumber)).toBe(utcDay(3));
    const csv = `beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber\r\nJohn Phiri,${NBM},1001234567,Salary Payment,45000,QKAHXD200923\r\n`;
    const file = await post(m, '/disbursements/batch/addFile', {
      merchantAccountNumber: m.merchantAccountNumber,
      isBatchScheduled: true,
      // 01:30 at UTC+02:00 is 23:30 UTC the day before.
      scheduledDate: `${utcDay(4)}T01:30:00+02:00`,
      contentType: 'CSV',
      capturedBy: 'johndoe@example.com',
      fileContent: Buffer.from(csv).toString('base64'),
    });
    expect(file.statusCode, file.body).toBe(200);
    expect(await scheduled(file.json().batchNumber)).toBe(utcDay(3));
    // The same rules as for a date: a day in the past is refused, naming the UTC day.
    const past = clientError(
      await post(m, '/disbursements/batch/addJson', {
        header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: true, scheduledDate: '2025-09-19T12:47:31.183Z', capturedBy: 'admin@example.com' },
        transactions: [documentedLine()],
      }),
      400,
    );
    expect(past.detail).toBe('scheduledDate 2025-09-19 is in the past; use today or a later day (UTC).');
  });

  it('utcDate: dates, date-times with and without a zone, offsets across days, months and years; nonsense refused', () => {
    expect(utcDate('2026-11-24')).toBe('2026-11-24');
    expect(utcDate('2026-11-24T08:43:21.699084')).toBe('2026-11-24');
    expect(utcDate('2025-09-19T12:47:31.183Z')).toBe('2025-09-19');
    expect(utcDate('2025-09-19t12:47z')).toBe('2025-09-19');
    expect(utcDate('2025-09-19 12:47:31')).toBe('2025-09-19');
    expect(utcDate('2025-01-01T01:00:00+02:00')).toBe('2024-12-31');
    expect(utcDate('2024-12-31T22:30:00-0130')).toBe('2025-01-01');
    expect(utcDate('2024-02-28T23:00:00-01')).toBe('2024-02-29');
    expect(utcDate('2023-02-28T23:00:00-01:00')).toBe('2023-03-01');
    expect(utcDate('2000-02-29')).toBe('2000-02-29');
    expect(utcDate('0001-01-01T00:00:00Z')).toBe('0001-01-01');
    for (const bad of ['2026-02-30', '1900-02-29', '2026-13-01', '2026-00-10', '2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z', '2026-01-01T10:00:00+24:00', '0000-01-01T00:00:00+01:00', '26-01-01', '2026-1-1', '', 'today']) {
      expect(utcDate(bad), bad).toBeUndefined();
    }
  });
});

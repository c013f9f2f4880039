// Batch files (batch/addFile, CSV and XLSX) and the invalid-lines report (batch/downloadErrors),
// against the real app and database: the same lines and messages as E8, refusals that store
// nothing, idempotent replays, and a CSV report that is safe to open in a spreadsheet.
import { crc32, deflateRawSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskList } from '../../src/composition.ts';
import { BASE, clientError, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR } from '../routes.ts';

let t: TestApp;
/** The merchant most tests act as. */
let m: TestMerchant;
/** Another merchant, for the scoping cases. */
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Files Shop' });
  other = await newMerchant(t, { accountName: 'Other Shop' });
});
afterAll(() => t.close());

const AIRTEL = 112400;
const NBM = 212188;
const HEADER = 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber';

function post(who: TestMerchant, path: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

const b64 = (data: string | Buffer | ArrayBuffer) => (typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data as Buffer)).toString('base64');

const addFile = (who: TestMerchant, contentType: 'CSV' | 'XLSX', fileContent: string, headers: Record<string, string> = {}) =>
  post(who, '/disbursements/batch/addFile', { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, contentType, fileContent, capturedBy: ACTOR }, headers);

const addCsv = (who: TestMerchant, csv: string, headers: Record<string, string> = {}) => addFile(who, 'CSV', b64(csv), headers);

/** An XLSX workbook whose first worksheet holds `rows` (cells as ExcelJS takes them). */
async function xlsx(rows: ExcelJS.CellValue[][]): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Payouts');
  for (const row of rows) sheet.addRow(row);
  return b64(await workbook.xlsx.writeBuffer());
}

/** A zip of `entries` (deflated), each declaring `declaredSize` when given: a size that lies. */
function zip(entries: Array<{ name: string; data: Buffer; declaredSize?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = deflateRawSync(e.data);
    const size = e.declaredSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(e.data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(e.data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function validate(batchNumber: number): Promise<void> {
  await taskList(t.deps).validate_batch!({ batchNumber }, {} as JobHelpers);
}

async function accepted(res: { statusCode: number; body: string; json(): { batchNumber: number } }): Promise<number> {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().batchNumber;
}

interface Line {
  lineNumber: number;
  beneficiaryName: string;
  connectorId: number;
  beneficiaryAccountNumber: string;
  transactionDescription: string;
  transactionAmount: number;
  sourceReferenceNumber: string;
  transactionStatusCode: string;
  errorMessage: string | null;
}

async function linesOf(who: TestMerchant, batchNumber: number): Promise<Line[]> {
  const res = await post(who, '/disbursements/batch/getTransactions', { merchantAccountNumber: who.merchantAccountNumber, batchNumber });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().message as Line[]).sort((a, b) => a.lineNumber - b.lineNumber);
}

async function batchCount(): Promise<number> {
  return (await t.db.query<{ n: number }>('select count(*)::int as n from batches')).rows[0].n;
}

async function uploadType(batchNumber: number): Promise<string> {
  return (await t.db.query<{ upload_type: string }>('select upload_type from batches where batch_number = $1', [batchNumber])).rows[0].upload_type;
}

// The CSV report (downloadType "CSV"); the default, an Excel workbook, is in test/disbursements/fidelity.test.ts.
const downloadErrors = (who: TestMerchant, batchNumber: number, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(who, '/disbursements/batch/downloadErrors', { merchantAccountNumber: who.merchantAccountNumber, batchNumber, downloadType: 'CSV', ...over }, headers);

/** The report's text and its rows (header first), read back with a CSV parser. */
function report(res: { statusCode: number; body: string; json(): Record<string, string> }): { text: string; rows: string[][] } {
  expect(res.statusCode, res.body).toBe(200);
  const text = Buffer.from(res.json().documentBase64, 'base64').toString('utf8');
  return { text, rows: parseCsv(text, { bom: true }) as string[][] };
}

describe('addFile: CSV', () => {
  it('reads any header case and order, extra columns, quotes, CRLF and a BOM; the job validates the lines', async () => {
    const csv =
      '\uFEFFSourceReferenceNumber, TRANSACTIONAMOUNT ,beneficiaryname,Notes,ConnectorId,BeneficiaryAccountNumber,transactionDescription\r\n' +
      'CSV-1,1500.50,Alice Banda,ignored,112400,265991234567,"Salary, March ""bonus"""\r\n' +
      '\r\n' +
      ',,,a notes row is not a payout,,,\r\n' +
      'CSV-2,2000,Bob Phiri,,212188,3333888801,\r\n' +
      'CSV-3,75,Chikondi,,212188,12,"two\r\nlines"\r\n';
    const res = await addCsv(m, csv);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, batchNumber: expect.any(Number), BatchStatusCode: 'Q' });
    const batchNumber = res.json().batchNumber as number;
    expect(await uploadType(batchNumber)).toBe('CSV');
    await validate(batchNumber);
    const lines = await linesOf(m, batchNumber);
    expect(lines.map((l) => [l.lineNumber, l.sourceReferenceNumber, l.beneficiaryName, l.connectorId, l.beneficiaryAccountNumber, l.transactionAmount, l.transactionDescription])).toEqual([
      [1, 'CSV-1', 'Alice Banda', AIRTEL, '265991234567', 1500.5, 'Salary, March "bonus"'],
      [2, 'CSV-2', 'Bob Phiri', NBM, '3333888801', 2000, ''],
      [3, 'CSV-3', 'Chikondi', NBM, '12', 75, 'two\r\nlines'],
    ]);
    expect(lines.map((l) => l.errorMessage)).toEqual([null, null, 'A bank account number must have 10 to 16 digits.']);
    expect(lines[2].transactionStatusCode).toBe('E');
  });

  it('accepts a file without the optional transactionDescription column', async () => {
    const batchNumber = await accepted(await addCsv(m, 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionAmount,sourceReferenceNumber\nDalitso,112400,265881234567,150,NODESC-1\n'));
    await validate(batchNumber);
    const [line] = await linesOf(m, batchNumber);
    expect(line).toMatchObject({ beneficiaryName: 'Dalitso', transactionDescription: '', transactionAmount: 150, errorMessage: null });
  });
});

describe('addFile: XLSX', () => {
  it('reads numbers, formulas, rich text and hyperlinks as the text they show', async () => {
    const fileContent = await xlsx([
      ['Beneficiary Name ', 'CONNECTORID', 'beneficiaryAccountNumber', 'TransactionAmount', 'sourceReferenceNumber', 'transactionDescription', 'Comment'],
      [{ richText: [{ text: 'Thoko ' }, { text: 'Mwale', font: { bold: true } }] }, AIRTEL, 265991234567, 2500.75, 'XL-1', 'Wages', 'x'],
      ['Chisomo', String(NBM), 1234567890123, { formula: '1000*2', result: 2000 }, 42, { text: 'See link', hyperlink: 'https://example.mw' }, null],
      [],
      [null, null, null, null, null, null, 'notes only: skipped'],
      ['Yamikani', { formula: `${AIRTEL}+0`, result: AIRTEL }, '265771234567', '300', { formula: '"XL-"&3', result: 'XL-3' }, null, null],
    ]);
    const res = await addFile(m, 'XLSX', fileContent);
    const batchNumber = await accepted(res);
    expect(res.json()).toMatchObject({ merchantAccountNumber: m.merchantAccountNumber, BatchStatusCode: 'Q' });
    expect(await uploadType(batchNumber)).toBe('XLSX');
    await validate(batchNumber);
    const lines = await linesOf(m, batchNumber);
    expect(lines.map((l) => [l.lineNumber, l.beneficiaryName, l.connectorId, l.beneficiaryAccountNumber, l.transactionAmount, l.sourceReferenceNumber, l.transactionDescription, l.errorMessage])).toEqual([
      [1, 'Thoko Mwale', AIRTEL, '265991234567', 2500.75, 'XL-1', 'Wages', null],
      [2, 'Chisomo', NBM, '1234567890123', 2000, '42', 'See link', null],
      [3, 'Yamikani', AIRTEL, '265771234567', 300, 'XL-3', '', null],
    ]);
  });

  it('reads only the E8 columns of rows that reach the last column (XFD)', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Wide');
    sheet.addRow(HEADER.split(','));
    for (let i = 0; i < 1000; i++) sheet.addRow(['Wide', AIRTEL, 265991234567, '', 150, `W-${i}`]).getCell(16_384).value = 'far right';
    const batchNumber = await accepted(await addFile(m, 'XLSX', b64(await workbook.xlsx.writeBuffer())));
    const stored = await t.db.query<{ number_of_entries: number }>('select number_of_entries from batches where batch_number = $1', [batchNumber]);
    expect(stored.rows[0].number_of_entries).toBe(1000);
  });
});

describe('addFile: refusals', () => {
  /** Asserts a 400 that stored no batch, and returns the problem. */
  async function refused(send: () => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>, status = 400) {
    const before = await batchCount();
    const problem = clientError(await send(), status);
    expect(await batchCount()).toBe(before);
    return problem;
  }

  it('refuses the whole file for an amount that is not one, as E8 does (only the console keeps such a line, as an invalid one)', async () => {
    for (const amount of ['"12,5x"', 'abc', '', '-3', '1.234']) {
      const csv = [HEADER, 'Good,112400,265991234567,,100,A-0', `Bad amount,112400,265991234567,,${amount},A-1`].join('\n');
      const problem = await refused(() => addCsv(m, csv));
      expect(problem.errors, amount).toEqual([expect.stringMatching(/^Transaction Amount \(transactions\[1\]\.transactionAmount\) (must be an amount|is required)/)]);
    }
  });

  it('names each invalid row as transactions[i].field, with exactly the messages E8 gives', async () => {
    const rows = [
      ['Good', '112400', '265991234567', '', '100', 'S-0'],
      ['Bad amount', '112400', '265991234567', '', 'abc', 'S-1'],
      ['', '112400', '265991234567', '', '100', 'S-2'],
      ['Bad connector', 'x', '265991234567', 'd'.repeat(201), '100.123', ''],
    ];
    const csv = [HEADER, ...rows.map((r) => r.join(','))].join('\n');
    const problem = await refused(() => addCsv(m, csv));
    expect(problem.errorCode).toBe('E900');
    expect(problem.errors).toEqual([
      expect.stringMatching(/^Transaction Amount \(transactions\[1\]\.transactionAmount\) must be an amount/),
      'Beneficiary Name (transactions[2].beneficiaryName) is required.',
      'Source Reference Number (transactions[3].sourceReferenceNumber) is required.',
      'Connector Id (transactions[3].connectorId) must be a whole number.',
      'Transaction Description (transactions[3].transactionDescription) must be at most 200 characters long.',
      expect.stringMatching(/^Transaction Amount \(transactions\[3\]\.transactionAmount\) must be an amount/),
    ]);
    // E8 with the same cells (empty cells left out) says exactly the same, in either language.
    const transactions = rows.map((r) => Object.fromEntries(HEADER.split(',').map((k, i) => [k, r[i]]).filter(([, v]) => v !== '')));
    for (const lang of ['en', 'ny']) {
      const json = clientError(
        await post(m, '/disbursements/batch/addJson', { header: { merchantAccountNumber: m.merchantAccountNumber, capturedBy: ACTOR }, transactions }, { 'accept-language': lang }),
        400,
      );
      const file = clientError(await addCsv(m, csv, { 'accept-language': lang }), 400);
      expect(file.errors).toEqual(json.errors);
    }
  });

  it('names rows of an XLSX file too', async () => {
    const fileContent = await xlsx([HEADER.split(','), ['A', AIRTEL, 265991234567, '', 0, 'X-0'], ['B', AIRTEL, 265991234567, '', 5, 'X-1']]);
    const problem = await refused(() => addFile(m, 'XLSX', fileContent));
    expect(problem.errors).toEqual([expect.stringMatching(/^Transaction Amount \(transactions\[0\]\.transactionAmount\)/)]);
  });

  it('lists at most 100 messages', async () => {
    const csv = [HEADER, ...Array.from({ length: 150 }, (_, i) => `N,112400,265991234567,,zero,M-${i}`)].join('\n');
    const problem = await refused(() => addCsv(m, csv));
    expect(problem.errors).toHaveLength(100);
    expect(problem.errors[99]).toMatch(/transactions\[99\]\.transactionAmount/);
  });

  it('refuses fileContent that is not base64', async () => {
    const problem = await refused(() => addFile(m, 'CSV', 'this is not base64!'));
    expect(problem.errors).toEqual(['File Content must be a valid base64.']);
    await refused(() => addFile(m, 'CSV', 'QUJDR'));
  });

  it('refuses an XLSX that is not a zip, or a zip that is not a workbook', async () => {
    const garbage = await refused(() => addFile(m, 'XLSX', b64('just some text, not a spreadsheet')));
    expect(garbage.detail).toMatch(/^The file could not be read as XLSX: /);
    const notWorkbook = await refused(() => addFile(m, 'XLSX', b64(zip([{ name: 'hello.txt', data: Buffer.from('hi') }]))));
    expect(notWorkbook.detail).toMatch(/^The file could not be read as XLSX: /);
    const damaged = Buffer.from(await new ExcelJS.Workbook().xlsx.writeBuffer()).subarray(0, 200);
    expect((await refused(() => addFile(m, 'XLSX', b64(damaged)))).detail).toMatch(/could not be read as XLSX/);
    // A CSV sent as XLSX, and an XLSX sent as CSV (binary: no header columns).
    await refused(() => addFile(m, 'XLSX', b64(`${HEADER}\nA,112400,265991234567,,1,R`)));
    await refused(() => addFile(m, 'CSV', b64(zip([{ name: 'a.xml', data: Buffer.from('<a/>') }]))));
  });

  it('refuses an XLSX that unpacks to far more than any batch, whatever sizes it declares', async () => {
    const huge = Buffer.alloc(80 * 1024 * 1024);
    for (const declaredSize of [undefined, 100]) {
      const problem = await refused(() => addFile(m, 'XLSX', b64(zip([{ name: 'xl/worksheets/sheet1.xml', data: huge, declaredSize }]))));
      expect(problem.detail).toMatch(/unpacks to more than/);
    }
  });

  it('refuses a CSV with broken quoting', async () => {
    const problem = await refused(() => addCsv(m, `${HEADER}\nA,112400,265991234567,"open,1,R`));
    expect(problem.detail).toMatch(/^The file could not be read as CSV: /);
  });

  it('names the missing required columns', async () => {
    const problem = await refused(() => addCsv(m, 'Beneficiary Name,beneficiaryAccountNumber,sourceReferenceNumber\nA,265991234567,R'));
    expect(problem.detail).toBe('The file lacks the column(s) connectorId, transactionAmount.');
    const ny = clientError(await addCsv(m, 'name,amount\nA,1', { 'accept-language': 'ny' }), 400);
    expect(ny.detail).toMatch(/^Fayilo lilibe mizati beneficiaryName, connectorId/);
    const xl = await refused(async () => addFile(m, 'XLSX', await xlsx([['beneficiary_name', 'Connector-Id', 'transactionAmount', 'sourceReferenceNumber'], ['A', AIRTEL, 1, 'R']])));
    expect(xl.detail).toBe('The file lacks the column(s) beneficiaryAccountNumber.');
  });

  it('refuses an empty file, blank lines, a header alone and an empty worksheet', async () => {
    for (const contentType of ['CSV', 'XLSX'] as const) {
      expect((await refused(() => addFile(m, contentType, ''))).errors).toEqual(['File Content must be at least 1 characters long.']);
    }
    for (const csv of ['\r\n\r\n', '\uFEFF', ' ', `${HEADER}\r\n`, `${HEADER}\n,,,,,\n`]) {
      const problem = await refused(() => addCsv(m, csv));
      expect(problem.errors).toEqual(['Transactions must have at least 1 items.']);
    }
    for (const rows of [[], [HEADER.split(',')]]) {
      const problem = await refused(async () => addFile(m, 'XLSX', await xlsx(rows)));
      expect(problem.errors).toEqual(['Transactions must have at least 1 items.']);
    }
  });

  it('refuses 50,001 rows, and takes 50,000', async () => {
    const rows = Array.from({ length: 50_001 }, (_, i) => `Name ${i},112400,265991234567,,10,BIG-${i}`);
    const problem = await refused(() => addCsv(m, [HEADER, ...rows].join('\n')));
    expect(problem.errors).toEqual(['Transactions must have at most 50000 items.']);
    // Far more (the reader stops at row 50,001: test/disbursements/file-reader.test.ts): the same answer.
    const many = Array.from({ length: 200_000 }, (_, i) => `N${i},112400,265991234567,,10,M-${i}`);
    expect((await refused(() => addCsv(m, [HEADER, ...many].join('\n')))).errors).toEqual(['Transactions must have at most 50000 items.']);
    const res = await addCsv(m, [HEADER, ...rows.slice(0, 50_000)].join('\n'));
    expect(res.statusCode, res.body).toBe(200);
    const stored = await t.db.query<{ number_of_entries: number }>('select number_of_entries from batches where batch_number = $1', [res.json().batchNumber]);
    expect(stored.rows[0].number_of_entries).toBe(50_000);
  }, 60_000);

  it('refuses NUL in a cell, like any JSON body', async () => {
    const problem = await refused(() => addCsv(m, `${HEADER}\nA\u0000B,112400,265991234567,,1,R`));
    expect(problem.errors).toEqual([expect.stringMatching(/^Beneficiary Name contains a character/)]);
  });

  it('refuses a wrong contentType', async () => {
    const problem = await refused(() => addFile(m, 'PDF' as never, b64(HEADER)));
    expect(problem.errors).toEqual(['Content Type must be one of: CSV, XLSX.']);
  });
});

describe('addFile: idempotency', () => {
  it('replays the first answer for the same X-Idempotency-Key and stores one batch', async () => {
    const csv = `${HEADER}\nIdem,112400,265991234567,,10,IDEM-1\n`;
    const headers = { 'x-idempotency-key': `files-idem-${Date.now()}-abcdef` };
    const before = await batchCount();
    const first = await addCsv(m, csv, headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await addCsv(m, csv, headers);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await batchCount()).toBe(before + 1);
    // The same key with another file is a conflict, not a second batch.
    clientError(await addCsv(m, `${csv}Idem,112400,265991234567,,10,IDEM-2\n`, headers), 409);
    expect(await batchCount()).toBe(before + 1);
  });
});

describe('downloadErrors', () => {
  let batchNumber: number;
  beforeAll(async () => {
    const csv = [
      HEADER,
      'Valid,112400,265991234567,,100,E-1',
      'Wrong wallet,112400,12345,"Rent, ""May""",200,E-2',
      '"=HYPERLINK(""http://evil"")",999999,265991234567,"+line one\nline two",300.5,E-3',
      'Dup,212188,3333888801,@sum,400,E-1',
    ].join('\r\n');
    batchNumber = await accepted(await addCsv(m, csv));
    await validate(batchNumber);
  });

  it('lists the invalid lines with their input and the reason, as a CSV safe in spreadsheets', async () => {
    const res = await downloadErrors(m, batchNumber);
    expect(res.json()).toEqual({ documentName: `batch-${batchNumber}-errors.csv`, contentType: 'text/csv', dateCreated: expect.any(String), documentBase64: expect.any(String) });
    expect(Number.isNaN(Date.parse(res.json().dateCreated))).toBe(false);
    const { text, rows } = report(res);
    expect(text.startsWith('\uFEFFlineNumber,beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber,errorMessage\r\n')).toBe(true);
    expect(rows).toEqual([
      ['lineNumber', 'beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber', 'errorMessage'],
      // A file's lines by their row in it (the header is row 1; a quoted line break stays in its row), the row
      // a spreadsheet shows and the console's messages name; the duplicate names the row of the first.
      ['3', 'Wrong wallet', '112400', '12345', 'Rent, "May"', '200.00', 'E-2', 'A wallet account must be a 12-digit number starting with 265.'],
      ['4', `'=HYPERLINK("http://evil")`, '999999', '265991234567', "'+line one\nline two", '300.50', 'E-3', 'Connector 999999 does not exist.'],
      ['5', 'Dup', '212188', '3333888801', "'@sum", '400.00', 'E-1', 'The sourceReferenceNumber is already used on line 2.'],
    ]);
  });

  it('writes the reasons in the language asked for', async () => {
    const { rows } = report(await downloadErrors(m, batchNumber, {}, { 'accept-language': 'ny' }));
    expect(rows.slice(1).map((r) => r[7])).toEqual([
      'Akaunti ya chikwama iyenera kukhala manambala 12 oyamba ndi 265.',
      'Cholumikizira 999999 palibe.',
      'sourceReferenceNumber yagwiritsidwa kale ntchito pa mzere 2.',
    ]);
  });

  it('gives the header row alone for a batch without invalid lines', async () => {
    const clean = await accepted(await addCsv(m, `${HEADER}\nClean,112400,265991234567,,150,CLEAN-1\n`));
    await validate(clean);
    const { rows } = report(await downloadErrors(m, clean));
    expect(rows).toHaveLength(1);
    expect(rows[0][0]).toBe('lineNumber');
  });

  it('answers 409 with retry-after while the batch is still being validated', async () => {
    const queued = await accepted(await addCsv(m, `${HEADER}\nQueued,112400,265991234567,,10,Q-1\n`));
    const res = await downloadErrors(m, queued);
    const problem = clientError(res, 409);
    expect(problem.detail).toBe(`Batch ${queued} is still being validated; try again in a few seconds.`);
    expect(res.headers['retry-after']).toBe('1');
  });

  it("answers 404 for an unknown batch and for another merchant's batch", async () => {
    clientError(await downloadErrors(m, 2_000_000_000), 404);
    // Another merchant's token naming m's account: refused by the token's binding.
    clientError(await downloadErrors(other, batchNumber, { merchantAccountNumber: m.merchantAccountNumber }), 404);
    // Another merchant naming its own account and m's batch number: not its batch.
    const problem = clientError(await downloadErrors(other, batchNumber), 404);
    expect(problem.detail).toBe(`Batch ${batchNumber} was not found.`);
  });
});

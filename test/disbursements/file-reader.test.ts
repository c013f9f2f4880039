// Reading batch files (issue 13, item 3: no merchant can stall another). A CSV upload is parsed
// in a reader thread, as a workbook is, never on the event loop that serves every merchant; and
// the parse ends at the first data row past MAX_BATCH_LINES, so a file of 200,000 short rows
// costs what one of 50,001 does. The timing this buys is the bench's to show (BENCH_ONLY=files);
// here: where the parse runs, and how much of the file it reads.
import ExcelJS from 'exceljs';
import { describe, expect, it, vi } from 'vitest';
import { MAX_ROW_CELLS, readFileContents } from '../../src/modules/disbursements/file-reader.ts';
import { FileValidationError, readBatchFile } from '../../src/modules/disbursements/files.ts';
import { MAX_BATCH_LINES } from '../../src/modules/disbursements/schemas.ts';

// Every thread the code under test starts, with the file type it was given (a pass-through spy:
// the threads are node's).
const threads = vi.hoisted(() => ({ started: [] as Array<{ script: string; contentType: unknown }> }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  class Worker extends actual.Worker {
    constructor(script: string | URL, options?: import('node:worker_threads').WorkerOptions) {
      threads.started.push({ script: String(script), contentType: (options?.workerData as { contentType?: unknown } | undefined)?.contentType });
      super(script, options);
    }
  }
  return { ...actual, default: { ...actual, Worker }, Worker };
});

const HEADER = 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber';
/** The batch body limit's default: the most bytes a file may decode to. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const csvOf = (rows: number) => Buffer.from([HEADER, ...Array.from({ length: rows }, (_, i) => `N${i},112400,265991234567,,10,R${i}`)].join('\n'));

describe('reading stops at the first row past the limit', () => {
  it('reads 50,001 data rows of a 200,000-row CSV, and keeps the first 50,000', async () => {
    const contents = await readFileContents('CSV', csvOf(200_000), MAX_BATCH_LINES);
    expect(contents.rows).toBe(MAX_BATCH_LINES + 1);
    expect(contents.lines).toHaveLength(MAX_BATCH_LINES);
    expect(contents.lines.at(-1)).toMatchObject({ beneficiaryName: `N${MAX_BATCH_LINES - 1}`, sourceReferenceNumber: `R${MAX_BATCH_LINES - 1}` });
    expect(contents.missing).toEqual([]);
  });

  it('ends a read early without reading what follows: broken quoting past the limit is never seen', async () => {
    const bytes = Buffer.concat([csvOf(12), Buffer.from('\nA,112400,265991234567,"never closed,1,R')]);
    expect((await readFileContents('CSV', bytes, 10)).rows).toBe(11);
    // Within the limit the same file is refused for its quoting.
    await expect(readFileContents('CSV', bytes, 100)).rejects.toThrow(/quote/i);
  });

  it('stops a workbook the same way', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Payouts');
    sheet.addRow(HEADER.split(','));
    for (let i = 0; i < 30; i++) sheet.addRow([`N${i}`, 112400, '265991234567', '', 10, `R${i}`]);
    const contents = await readFileContents('XLSX', Buffer.from(await workbook.xlsx.writeBuffer()), 10);
    expect(contents.rows).toBe(11);
    expect(contents.lines).toHaveLength(10);
  });
});

describe('a row is at most as wide as a spreadsheet', () => {
  it(`reads a row of ${MAX_ROW_CELLS} cells, and refuses one more`, async () => {
    const row = (cells: number) => `N,112400,265991234567,,10,R${','.repeat(cells - 6)}`;
    expect((await readFileContents('CSV', Buffer.from(`${HEADER}\n${row(MAX_ROW_CELLS)}`), MAX_BATCH_LINES)).rows).toBe(1);
    await expect(readFileContents('CSV', Buffer.from(`${HEADER}\n${row(MAX_ROW_CELLS + 1)}`), MAX_BATCH_LINES)).rejects.toThrow(`a row has more than ${MAX_ROW_CELLS} cells`);
  });

  it('refuses a row of 24 million empty cells for its width, before it outgrows the reader thread', async () => {
    // Read whole, its one array of cells outgrew the thread's heap, and V8 may then abort the whole
    // process rather than the thread (nodejs/node#47224; it did, in the service under tsx).
    const bomb = Buffer.from(`${HEADER}\n${','.repeat(24_000_000)}`).toString('base64');
    await expect(readBatchFile('CSV', bomb, MAX_FILE_BYTES, { malformedAmounts: 'refuse-file' })).rejects.toMatchObject({ params: { contentType: 'CSV', reason: `a row has more than ${MAX_ROW_CELLS} cells` } });
  }, 30_000);
});

describe('a CSV is parsed off the event loop', () => {
  it('reads an 11 MB CSV in a reader thread while the event loop keeps turning, and refuses its 290,000 rows', async () => {
    const bytes = csvOf(290_000);
    expect(bytes.length).toBeGreaterThan(11_000_000);
    threads.started.length = 0;
    // Parsed on the event loop, the read was one synchronous stretch: no timer could fire in it.
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    let refusal: unknown;
    try {
      await readBatchFile('CSV', bytes.toString('base64'), MAX_FILE_BYTES, { malformedAmounts: 'refuse-file' });
    } catch (err) {
      refusal = err;
    } finally {
      clearInterval(ticker);
    }
    expect(refusal).toBeInstanceOf(FileValidationError);
    expect((refusal as FileValidationError).validation).toEqual([expect.objectContaining({ keyword: 'maxItems', params: { limit: MAX_BATCH_LINES } })]);
    expect(threads.started).toEqual([{ script: expect.stringMatching(/\/file-worker\.ts$/), contentType: 'CSV' }]);
    expect(turns).toBeGreaterThan(0);
  });

  it('a small CSV goes through a reader thread too, and its lines come back checked', async () => {
    threads.started.length = 0;
    const lines = await readBatchFile('CSV', csvOf(3).toString('base64'), MAX_FILE_BYTES, { malformedAmounts: 'refuse-file' });
    expect(lines).toEqual([0, 1, 2].map((i) => ({ beneficiaryName: `N${i}`, connectorId: 112400, beneficiaryAccountNumber: '265991234567', transactionDescription: '', transactionAmount: '10', sourceReferenceNumber: `R${i}`, fileRow: i + 2 })));
    expect(threads.started.map((s) => s.contentType)).toEqual(['CSV']);
  });

  it('a row whose amount alone is wrong refuses the file, or is kept with the amount as written (malformedAmounts)', async () => {
    const csv = Buffer.from([HEADER, 'A,112400,265991234567,,10,R0', 'B,112400,265991234567,,"12,5x",R1', '', 'C,112400,265991234567,,,R2', `D,112400,265991234567,,${'9'.repeat(60)}x,R3`].join('\n')).toString('base64');
    const refusal = await readBatchFile('CSV', csv, MAX_FILE_BYTES, { malformedAmounts: 'refuse-file' }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(FileValidationError);
    expect((refusal as FileValidationError).validation.map((e) => e.instancePath)).toEqual(['/transactions/1/transactionAmount', '/transactions/2', '/transactions/3/transactionAmount']);
    const lines = await readBatchFile('CSV', csv, MAX_FILE_BYTES, { malformedAmounts: 'fail-line' });
    expect(lines.map((l) => [l.fileRow, l.transactionAmount, l.amountAsWritten])).toEqual([
      [2, '10', undefined],
      [3, '12,5x', '12,5x'],
      [5, '', ''],
      [6, `${'9'.repeat(39)}…`, `${'9'.repeat(39)}…`],
    ]);
  });
});

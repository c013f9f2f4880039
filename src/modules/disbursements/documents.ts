// Documents merchants download (batch/download, batch/downloadErrors): a table as an Excel
// workbook, the gateway's default ("Microsoft Excel File"), or as CSV when asked for
// (downloadType "CSV", the option batch/download documents). Both are at most a batch's lines
// (MAX_BATCH_LINES rows, and the header).
//
// The workbook is written by ExcelJS's streaming writer, a slice of rows per event-loop turn: a
// 50,000-row workbook of 16 columns costs ~0.5 s of work (measured), which must not stall every
// other request for that long; a slice is 20–40 ms, and the deflating runs in libuv's thread pool
// meanwhile. ExcelJS is loaded on first use (~0.2 s once per process), not at every start. At most MAX_AT_ONCE documents are
// built at once (each holds its rows and the finished file in memory, ~2 MB per 50,000 rows):
// beyond that the answer is 503 E952 with Retry-After, as for batch files being read (files.ts).
import { PassThrough } from 'node:stream';
import { AppError } from '../../http/errors.ts';
import { csvDocument } from './files.ts';

export type DownloadType = 'XLSX' | 'CSV';

/** What a document's contentType says: the gateway's words for a workbook, the media type for CSV. */
export const CONTENT_TYPES: Record<DownloadType, string> = { XLSX: 'Microsoft Excel File', CSV: 'text/csv' };
/** The invalid lines' workbook, by the name batch/downloadErrors gives it (and getBatch's errorFileName). */
export const ERRORS_DOCUMENT_NAME = 'Batch Disbursement Errors';

/** A cell: text, a whole number, or an amount in minor units (written as major, two decimals). */
export type Cell = string | number | { minor: number } | null | undefined;

const MAX_AT_ONCE = 2;
/** Rows written per event-loop turn (~20 ms of work for 16 columns). */
const SLICE_ROWS = 1_000;
let building = 0;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Minor units as plain major text ("1500.50"): no grouping, so the file can be uploaded again. */
export const plainMajor = (minor: number) => `${minor < 0 ? '-' : ''}${Math.trunc(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, '0')}`;

/**
 * Characters XML 1.0 cannot hold (control characters other than tab and line ends, lone
 * surrogates, U+FFFE/U+FFFF): a workbook with one of them does not open. They are dropped.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function xlsxValue(cell: Cell): string | number | null {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'object') return cell.minor / 100;
  // A text is a text cell, never a formula, whatever it starts with (= + - @).
  return typeof cell === 'string' ? cell.replace(NOT_XML, '') : cell;
}

async function xlsxDocument(sheetName: string, header: readonly string[], rows: readonly Cell[][]): Promise<Buffer> {
  const { default: Excel } = await import('exceljs');
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    out.once('end', resolve);
    out.once('error', reject);
  });
  // No styles: with them ExcelJS takes three times as long (1.4 s instead of 0.5 s for 50,000 rows
  // of 16 columns, measured), and amounts read the same as plain numbers.
  const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = header.map((name) => ({ key: name, width: Math.min(40, Math.max(12, name.length + 2)) }));
  sheet.addRow([...header]).commit();
  for (let from = 0; from < rows.length; from += SLICE_ROWS) {
    if (from > 0) await nextTurn();
    for (const row of rows.slice(from, from + SLICE_ROWS)) sheet.addRow(row.map(xlsxValue)).commit();
  }
  sheet.commit();
  await workbook.commit();
  await ended;
  return Buffer.concat(chunks);
}

/** The table as `type`, bounded by MAX_AT_ONCE builds at once (503 E952 beyond). */
export async function tableDocument(type: DownloadType, sheetName: string, header: readonly string[], rows: readonly Cell[][]): Promise<Buffer> {
  if (type === 'CSV') return csvDocument(header, rows.map((row) => row.map((cell) => (cell !== null && typeof cell === 'object' ? plainMajor(cell.minor) : cell))));
  if (building >= MAX_AT_ONCE) throw new AppError('unavailable', 'detail.documentsBusy', {}, { headers: { 'retry-after': '5' } });
  building++;
  try {
    return await xlsxDocument(sheetName, header, rows);
  } finally {
    building--;
  }
}

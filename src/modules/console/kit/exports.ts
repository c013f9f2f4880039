// The console's downloads of a list (collections, batches, a batch's lines, single payouts; a
// statement can use it too): the rows as CSV or as an Excel workbook, streamed as they are read.
// An area gives typed columns and an async iterable of row arrays (its queries.ts reads them with a
// server-side cursor, db/cursor.ts); nothing holds the rows, so a file of 1,000,000 rows costs the
// memory of a few thousand (test/console/exports-million.test.ts measures it).
//
// Formula safety (OWASP "CSV injection"): what a customer or a merchant typed must not run when a
// finance person opens the file. In CSV a text cell beginning with = + - @, a tab or a carriage
// return gets a leading apostrophe; in the workbook a text is always a string cell, never a
// formula, whatever it begins with. Numbers (amounts, counts) are written as numbers.
//
// Backpressure: a row is read from the database only when the previous ones have been taken by
// the socket (CSV: Readable.from pulls; workbook: the writer waits for 'drain'). A client that goes
// away destroys the stream: the row iterator is returned, which ends its transaction and gives its
// pooled connection back.
import { PassThrough, Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../../http/errors.ts';

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * text: anything, written as text (formula-safe); amount: minor units (an integer), written as
 * major units (CSV "1500.50", the workbook a number); integer: a whole number; date: a Date (UTC,
 * ISO 8601 "2026-01-15T14:03:05Z": unambiguous, and it sorts as text) or a YYYY-MM-DD text.
 */
export type ColumnKind = 'text' | 'amount' | 'integer' | 'date';

export interface ExportColumn {
  header: string;
  kind: ColumnKind;
}

export interface ExportSpec {
  format: ExportFormat;
  /** Without its extension; ASCII (exportFileName). */
  fileName: string;
  /** The workbook's sheet name (≤ 31 characters). */
  sheetName?: string;
  columns: readonly ExportColumn[];
  rows: AsyncIterable<readonly unknown[]>;
}

/**
 * Exports at once in this process: each holds a pooled connection for its whole length, and the
 * pool is shared with every page and API request. Beyond it: 503 with Retry-After.
 */
export const MAX_EXPORTS_AT_ONCE = 4;
/** CSV text gathered before it is handed to the socket: fewer, larger writes. */
const CSV_CHUNK_CHARS = 64 * 1024;
/** Workbook rows written between checks of the socket's backpressure. */
const XLSX_SLICE_ROWS = 500;

let running = 0;

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** A spreadsheet would run these as a formula (or, for tab and CR, shift the cell). */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * Characters XML 1.0 cannot hold (control characters other than tab and line ends, lone
 * surrogates, U+FFFE/U+FFFF): a workbook with one of them does not open. They are dropped.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Minor units as plain major text ("-1500.05"): no grouping, so a spreadsheet reads a number. */
function majorText(minor: number): string {
  const abs = Math.abs(minor);
  return `${minor < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function dateText(value: unknown): string {
  if (value instanceof Date) return `${value.toISOString().slice(0, 19)}Z`;
  return value === null || value === undefined ? '' : String(value);
}

/** One CSV field (RFC 4180), formula-safe. */
export function csvField(kind: ColumnKind, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (kind === 'amount') return majorText(Number(value));
  if (kind === 'integer') return String(value);
  let text = kind === 'date' ? dateText(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One workbook cell's value: a text is a string (a string cell is never a formula). */
function xlsxValue(kind: ColumnKind, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (kind === 'amount') return Number(value) / 100;
  if (kind === 'integer') return Number(value);
  return (kind === 'date' ? dateText(value) : String(value)).replace(NOT_XML, '');
}

/** The file as CSV: UTF-8 with a byte-order mark (so Excel reads the text right), CRLF line ends. */
async function* csvChunks(columns: readonly ExportColumn[], rows: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  let chunk = `\uFEFF${columns.map((c) => csvField('text', c.header)).join(',')}\r\n`;
  for await (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) line += (i > 0 ? ',' : '') + csvField(columns[i].kind, row[i]);
    chunk += `${line}\r\n`;
    if (chunk.length >= CSV_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}

/**
 * The file as a workbook, written into `out` by ExcelJS's streaming writer: each row committed as
 * it is written (nothing kept), no shared strings (they would hold every text until the end) and no
 * styles (with them ExcelJS takes about three times as long: disbursements/documents.ts measured it).
 */
async function writeXlsx(out: PassThrough, spec: ExportSpec, rows: AsyncIterator<readonly unknown[]>): Promise<void> {
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(spec.sheetName ?? 'Export', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = spec.columns.map((c) => ({ key: c.header, width: Math.min(40, Math.max(12, c.header.length + 2)) }));
  sheet.addRow(spec.columns.map((c) => xlsxValue('text', c.header))).commit();
  for (let written = 0; ; written++) {
    if (written % XLSX_SLICE_ROWS === 0 && written > 0) {
      // The socket's pace: wait while the bytes already written wait for it; else let the
      // compression (libuv's thread pool) and other requests have a turn.
      if (out.writableNeedDrain) await drainedOrClosed(out);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // The client went away: nothing more is written (the rows were returned by xlsxStream).
    if (out.destroyed) return;
    const next = await rows.next();
    if (next.done) break;
    if (out.destroyed) return;
    sheet.addRow(spec.columns.map((c, i) => xlsxValue(c.kind, next.value[i]))).commit();
  }
  sheet.commit();
  await workbook.commit();
}

/** Resolves when `out` drains or closes (a client gone), with no listener left behind either way. */
function drainedOrClosed(out: PassThrough): Promise<void> {
  return new Promise<void>((resolve) => {
    const settle = () => {
      out.off('drain', settle);
      out.off('close', settle);
      resolve();
    };
    out.on('drain', settle);
    out.on('close', settle);
  });
}

/** The workbook's bytes as a stream; the writing stops (and the rows are returned) when the stream is destroyed. */
function xlsxStream(spec: ExportSpec, rows: AsyncIterator<readonly unknown[]>, done: () => void): PassThrough {
  const out = new PassThrough();
  const stop = () => void rows.return?.().catch(() => undefined);
  out.once('close', stop);
  writeXlsx(out, spec, rows).then(
    () => done(),
    (err: Error) => {
      done();
      stop();
      out.destroy(err);
    },
  );
  return out;
}

/** The rows with the first one already read: a failure to start (a refused filter, no connection) is thrown before any byte is sent. */
async function primed(rows: AsyncIterable<readonly unknown[]>): Promise<AsyncIterator<readonly unknown[]>> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  let given = false;
  return {
    next: () => {
      if (given) return iterator.next();
      given = true;
      return Promise.resolve(first);
    },
    return: async () => (iterator.return ? iterator.return() : { done: true, value: undefined }),
  };
}

/**
 * Answers the export as an attachment. Throws (before sending anything) what reading the first
 * row throws: a refused filter is the route's 400, as on the list page.
 */
export async function sendExport(reply: FastifyReply, spec: ExportSpec): Promise<FastifyReply> {
  if (running >= MAX_EXPORTS_AT_ONCE) throw new AppError('unavailable', 'detail.documentsBusy', {}, { headers: { 'retry-after': '5' } });
  running++;
  let finished = false;
  const done = () => {
    if (!finished) running--;
    finished = true;
  };
  let rows: AsyncIterator<readonly unknown[]>;
  try {
    rows = await primed(spec.rows);
  } catch (err) {
    done();
    throw err;
  }
  const iterable = { [Symbol.asyncIterator]: () => rows };
  const body = spec.format === 'csv' ? Readable.from(csvChunks(spec.columns, iterable), { objectMode: false }) : xlsxStream(spec, rows, done);
  body.once('close', done);
  return reply
    .code(200)
    .header('content-type', CONTENT_TYPES[spec.format])
    .header('content-disposition', `attachment; filename="${spec.fileName}.${spec.format}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

/** "collections-12345678-chikondi-stores-2026-11-25": ASCII only, nothing to quote (as statements' file names). */
export function exportFileName(what: string, merchantAccountNumber: number, merchantName: string, day: Date): string {
  return `${what}-${merchantFilePart(merchantAccountNumber, merchantName)}-${day.toISOString().slice(0, 10)}`;
}

/** "12345678-chikondi-stores": the merchant in a file name, ASCII only, nothing to quote. */
export function merchantFilePart(merchantAccountNumber: number, merchantName: string): string {
  const slug = merchantName
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${merchantAccountNumber}${slug ? `-${slug}` : ''}`;
}

// Batch files: reading the CSV and XLSX uploads of batch/addFile into E8 lines, and writing the
// CSV of a batch's invalid lines (batch/downloadErrors). A file is a header row naming the E8
// columns (any case and order, extra columns ignored) and one payout per row; every row is checked
// by the same schema as an E8 line, so a file and a JSON body are refused for the same reasons,
// with the same messages. Whatever the bytes, reading ends in lines or a 400: never a 500.
import { Worker } from 'node:worker_threads';
import { inflateRawSync } from 'node:zlib';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { AppError } from '../../http/errors.ts';
import { fieldLabel } from '../../http/i18n.ts';
import { checkInput } from '../../http/input-guard.ts';
import { AJV_OPTIONS, ajvPlugins, MAX_FIELD_ERRORS } from '../../http/validation.ts';
import { MAX_BATCH_LINES, PayoutInput } from './schemas.ts';
import type { PayoutInput as Line } from './service.ts';

export type FileType = 'CSV' | 'XLSX';

/** The E8 line fields, in E8's order: the columns a file names in its header row. */
export const FILE_COLUMNS = ['beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber'] as const;
type Column = (typeof FILE_COLUMNS)[number];
const OPTIONAL_COLUMNS: readonly Column[] = ['transactionDescription'];

/**
 * An XLSX is a zip of XML: a few megabytes can unpack to gigabytes. 50,000 lines of the longest
 * fields unpack to under 40 MiB; ExcelJS reads about 12 MiB a second into roughly three times
 * its size in memory (measured: 200 MiB took 18 s and 500 MB), so more than this is refused unread.
 */
export const MAX_XLSX_UNPACKED_BYTES = 64 * 1024 * 1024;
/** The XLSX reader thread's heap (ExcelJS holds about three times the unpacked size) and time. */
const XLSX_WORKER_HEAP_MB = 512;
const XLSX_WORKER_TIMEOUT_MS = 30_000;
/** Reader threads at once per process: beyond it, 503 with Retry-After (memory stays bounded). */
const MAX_XLSX_READERS = 2;
let xlsxReaders = 0;
/** A workbook has a dozen or two parts; an archive with more is not one we read. */
export const MAX_XLSX_ENTRIES = 1000;
/** The longest reason quoted from a parser's error. */
const MAX_REASON_LENGTH = 200;

// The E8 line schema, compiled once with the options and keywords of the route validator
// (AJV_OPTIONS covers every option of Fastify's defaults that matters here), so amounts,
// coercion and defaults behave identically.
const validateLine = ajvPlugins(new Ajv(AJV_OPTIONS)).compile(PayoutInput);

/**
 * A schema failure in the shape Fastify gives a route's validation error: the error handler turns
 * `validation` into one localised message per field (fieldMessages), exactly as for E8.
 */
export class FileValidationError extends Error {
  readonly validation: ErrorObject[];
  readonly statusCode = 400;
  constructor(validation: ErrorObject[]) {
    super('the file is not a valid batch');
    this.validation = validation;
  }
}

/** The line count is outside 1–MAX_BATCH_LINES: the message E8 gives for its transactions array. */
function countError(keyword: 'minItems' | 'maxItems', limit: number): FileValidationError {
  return new FileValidationError([{ keyword, instancePath: '/transactions', schemaPath: `#/properties/transactions/${keyword}`, params: { limit }, message: '' }]);
}

function badFile(contentType: FileType, reason: string): AppError {
  return new AppError('validation', 'detail.badFile', { contentType, reason: reason.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON_LENGTH) });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;

/** Base64 (standard or URL-safe alphabet, line breaks allowed) to bytes; a 400 for anything else. */
export function decodeBase64(text: string, maxBytes: number): Buffer {
  const compact = text.replace(/[\r\n\t ]+/g, '');
  // Buffer.from skips characters outside the alphabet silently: check first.
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    throw new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.format', params: { field: fieldLabel('fileContent'), format: 'base64' } }] });
  }
  if (Math.floor((compact.length * 3) / 4) > maxBytes + 2) throw new AppError('tooLarge', 'detail.tooLarge', { limit: maxBytes });
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > maxBytes) throw new AppError('tooLarge', 'detail.tooLarge', { limit: maxBytes });
  return bytes;
}

/** Header names compare without case, spaces, hyphens or underscores: "Beneficiary Name" is beneficiaryName. */
const normalise = (name: string) => name.replace(/[\s_-]+/g, '').toLowerCase();

/**
 * Collects a file's rows as E8 lines, reading only the cells of the E8 columns: a row may reach
 * column 16,384, and copying every cell of 50,000 such rows would exhaust the memory. The first
 * row seen is the header; a row with none of the six fields filled is skipped (a blank or notes
 * row, not a payout); rows past the limit are counted, not kept.
 */
class LineCollector {
  header: Array<string | undefined> | undefined;
  private readonly columns = new Map<Column, number>();
  readonly lines: Array<Record<string, string>> = [];
  /** Data rows seen, kept or not. */
  rows = 0;

  /** `cell(i)` is the trimmed text of the row's cell i (from 0), '' when empty. */
  add(width: number, cell: (i: number) => string): void {
    if (!this.header) {
      this.header = Array.from({ length: width }, (_, i) => cell(i));
      this.header.forEach((name, i) => {
        const column = FILE_COLUMNS.find((c) => c.toLowerCase() === normalise(name ?? ''));
        // A repeated name counts once: the first.
        if (column && !this.columns.has(column)) this.columns.set(column, i);
      });
      return;
    }
    const line: Record<string, string> = {};
    let filled = false;
    for (const [column, i] of this.columns) {
      const text = i < width ? cell(i) : '';
      // An empty cell is a missing field: "… is required", or the default description.
      if (text !== '') {
        line[column] = text;
        filled = true;
      }
    }
    if (!filled) return;
    this.rows++;
    if (this.rows <= MAX_BATCH_LINES) this.lines.push(line);
  }

  /** The required columns the header lacks. */
  missing(): Column[] {
    return FILE_COLUMNS.filter((c) => !this.columns.has(c) && !OPTIONAL_COLUMNS.includes(c));
  }
}

function readCsv(bytes: Buffer, into: LineCollector): void {
  try {
    parseCsv(bytes, {
      bom: true,
      // A row shorter or longer than the header is read as it is; missing cells are missing fields.
      relax_column_count: true,
      // `5" screen` inside an unquoted description is text, not a syntax error.
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      // Each record goes to the collector and is dropped here, so the parser keeps nothing.
      on_record: (record: string[]) => {
        // Rows of empty cells before the header are not the header (their width is paid for in bytes).
        if (into.header || record.some((c) => c !== '')) into.add(record.length, (i) => record[i] ?? '');
        return null;
      },
    });
  } catch (err) {
    throw badFile('CSV', err instanceof Error ? err.message : String(err));
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/**
 * Walks the zip's central directory and inflates every entry against a shrinking budget before
 * ExcelJS sees the archive: the sizes a zip declares can lie, the bytes it inflates to cannot.
 * Returns why the archive is refused, or undefined. Only plain archives as spreadsheet programs
 * write them pass: no ZIP64, no encryption, no bytes before the first entry.
 */
export function zipProblem(zip: Buffer, maxUnpackedBytes = MAX_XLSX_UNPACKED_BYTES, maxEntries = MAX_XLSX_ENTRIES): string | undefined {
  if (zip.length < 22) return 'not a zip archive (an XLSX file is one)';
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return 'not a zip archive (an XLSX file is one)';
  const entries = zip.readUInt16LE(eocd + 10);
  const directorySize = zip.readUInt32LE(eocd + 12);
  const directoryOffset = zip.readUInt32LE(eocd + 16);
  if (entries === 0xffff || directoryOffset === 0xffffffff) return 'ZIP64 archives are not supported';
  if (entries > maxEntries) return `more than ${maxEntries} parts in the archive`;
  if (directoryOffset + directorySize !== eocd) return 'the zip directory is damaged';
  let budget = maxUnpackedBytes;
  let p = directoryOffset;
  for (let n = 0; n < entries; n++) {
    if (p + 46 > eocd || zip.readUInt32LE(p) !== CENTRAL_SIGNATURE) return 'the zip directory is damaged';
    const flags = zip.readUInt16LE(p + 8);
    const method = zip.readUInt16LE(p + 10);
    const packed = zip.readUInt32LE(p + 20);
    const declared = zip.readUInt32LE(p + 24);
    const local = zip.readUInt32LE(p + 42);
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
    if (flags & 1) return 'the archive is encrypted';
    if (declared > budget) return `the file unpacks to more than ${maxUnpackedBytes} bytes`;
    if (local + 30 > directoryOffset || zip.readUInt32LE(local) !== LOCAL_SIGNATURE) return 'a zip entry is damaged';
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + packed > directoryOffset) return 'a zip entry is damaged';
    if (method === 0) {
      budget -= packed;
    } else if (method === 8) {
      try {
        budget -= inflateRawSync(zip.subarray(start, start + packed), { maxOutputLength: Math.max(budget, 1) }).length;
      } catch (err) {
        return (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? `the file unpacks to more than ${maxUnpackedBytes} bytes` : 'a zip entry is damaged';
      }
    } else {
      return `zip compression method ${method} is not supported`;
    }
    if (budget < 0) return `the file unpacks to more than ${maxUnpackedBytes} bytes`;
  }
  return undefined;
}

/** Integers as their digits (account numbers typed as numbers: 265991234567, never 2.65e11). */
function numberText(value: number): string {
  return Number.isInteger(value) ? BigInt(value).toString() : String(value);
}

/** What the cell shows: a formula's result, rich text's text, a hyperlink's text. */
function cellText(cell: ExcelJS.Cell): string {
  let value: unknown = cell.value;
  if (value && typeof value === 'object' && 'result' in value) value = (value as { result: unknown }).result;
  if (typeof value === 'number') return numberText(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (value && typeof value === 'object' && 'error' in value) return String((value as { error: unknown }).error);
  if (value === null || value === undefined) return '';
  try {
    return String(cell.text ?? '');
  } catch {
    return '';
  }
}

/** What reading a file found: the header, the kept lines, how many data rows there were. */
export interface FileContents {
  header: Array<string | undefined> | undefined;
  missing: Column[];
  lines: Array<Record<string, string>>;
  rows: number;
}

function contentsOf(collector: LineCollector): FileContents {
  return { header: collector.header, missing: collector.header ? collector.missing() : [], lines: collector.lines, rows: collector.rows };
}

/** Runs in the XLSX worker thread (xlsx-worker.ts): the whole read, off the event loop. */
export async function readXlsxContents(bytes: Buffer): Promise<FileContents> {
  const collector = new LineCollector();
  await readXlsx(bytes, collector);
  return contentsOf(collector);
}

/**
 * Reading a 50,000-row workbook takes ExcelJS 2–5 s of CPU: done on the event loop it would stall
 * every other request of the process for that long. A worker thread per upload does it instead,
 * with its own heap limit (a hostile workbook exhausts the worker, not the service) and a time
 * limit.
 */
async function readXlsxInWorker(bytes: Buffer): Promise<FileContents> {
  if (xlsxReaders >= MAX_XLSX_READERS) throw new AppError('unavailable', 'detail.filesBusy', {}, { headers: { 'retry-after': '5' } });
  xlsxReaders++;
  try {
    return await readInWorker(bytes);
  } finally {
    xlsxReaders--;
  }
}

async function readInWorker(bytes: Buffer): Promise<FileContents> {
  const worker = new Worker(new URL('./xlsx-worker.ts', import.meta.url), {
    workerData: bytes,
    resourceLimits: { maxOldGenerationSizeMb: XLSX_WORKER_HEAP_MB },
  });
  const timer = setTimeout(() => void worker.terminate(), XLSX_WORKER_TIMEOUT_MS);
  try {
    const answer = await new Promise<{ contents?: FileContents; reason?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => resolve({ reason: code === 1 ? 'the workbook could not be read within the time and memory allowed' : `the reader stopped (${code})` }));
    });
    if (answer.contents) return answer.contents;
    throw badFile('XLSX', answer.reason ?? 'unreadable');
  } catch (err) {
    if (err instanceof AppError) throw err;
    // ERR_WORKER_OUT_OF_MEMORY and the like: the file's fault, not the service's.
    throw badFile('XLSX', 'the workbook could not be read within the time and memory allowed');
  } finally {
    clearTimeout(timer);
    void worker.terminate();
  }
}

async function readXlsx(bytes: Buffer, into: LineCollector): Promise<void> {
  const problem = zipProblem(bytes);
  if (problem) throw badFile('XLSX', problem);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw badFile('XLSX', err instanceof Error ? err.message : String(err));
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw badFile('XLSX', 'the workbook has no worksheet');
  try {
    // Rows with at least one value, in order; findCell reads a cell without creating it.
    sheet.eachRow({ includeEmpty: false }, (row) => {
      into.add(row.cellCount, (i) => {
        const cell = row.findCell(i + 1);
        return cell ? cellText(cell).trim() : '';
      });
    });
  } catch (err) {
    throw badFile('XLSX', err instanceof Error ? err.message : String(err));
  }
}

/**
 * Reads an uploaded batch file into E8 lines, each checked like an E8 line (coerced, defaults
 * applied). Refusals: a 400 naming the rows as transactions[i].field (i counts data rows from 0,
 * so line number i + 1 later), at most MAX_FIELD_ERRORS messages.
 */
export async function readBatchFile(contentType: FileType, bytes: Buffer): Promise<Line[]> {
  let contents: FileContents;
  if (contentType === 'CSV') {
    const collector = new LineCollector();
    readCsv(bytes, collector);
    contents = contentsOf(collector);
  } else {
    contents = await readXlsxInWorker(bytes);
  }
  if (!contents.header) throw countError('minItems', 1);
  if (contents.missing.length > 0) throw new AppError('validation', 'detail.noHeaderColumns', { columns: contents.missing.join(', ') });
  if (contents.rows === 0) throw countError('minItems', 1);
  if (contents.rows > MAX_BATCH_LINES) throw countError('maxItems', MAX_BATCH_LINES);
  const lines = contents.lines;
  // NUL and the like, which PostgreSQL cannot store: the check every JSON body gets.
  checkInput(lines, 'transactions');
  const errors: ErrorObject[] = [];
  let invalidRows = 0;
  for (let i = 0; i < lines.length && invalidRows < MAX_FIELD_ERRORS; i++) {
    if (validateLine(lines[i])) continue;
    invalidRows++;
    for (const err of validateLine.errors ?? []) errors.push({ ...err, instancePath: `/transactions/${i}${err.instancePath}` });
  }
  if (errors.length > 0) throw new FileValidationError(errors);
  return lines as unknown as Line[];
}

// ---------------------------------------------------------------------------------------------
// Writing CSV

/**
 * One CSV cell (RFC 4180), safe to open in a spreadsheet: a text beginning with = + - @ (or a
 * tab or carriage return) would run as a formula there, so it gets a leading apostrophe.
 */
export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV document: UTF-8 with a byte-order mark (so spreadsheet programs read the text right), CRLF. */
export function csvDocument(header: readonly string[], rows: Array<Array<string | number | null | undefined>>): Buffer {
  const lines = [header.map(csvCell).join(','), ...rows.map((r) => r.map(csvCell).join(','))];
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8');
}

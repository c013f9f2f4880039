// Reading an uploaded batch file (CSV or XLSX) into rows of E8 fields: the part of batch/addFile
// that runs in a reader thread (file-worker.ts, started by files.ts), off the event loop. It
// imports the parsers and nothing of the service, so that a thread starts quickly (measured under
// tsx: ~100 ms with csv-parse alone; importing files.ts, with Ajv, the messages and ExcelJS, took
// ~400), and it decides nothing about E8: files.ts checks the lines it finds, and words the
// refusals. ExcelJS is loaded only by the threads that read a workbook.
import { inflateRawSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';

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
/** A workbook has a dozen or two parts; an archive with more is not one we read. */
export const MAX_XLSX_ENTRIES = 1000;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Base64 (standard or URL-safe alphabet, line breaks allowed) to bytes, or why not. Decoded in
 * the reader thread: the checks run over the whole text (~20 ms of 15 MB), which the event loop
 * is spared.
 */
export function base64Bytes(text: string, maxBytes: number): Buffer | 'notBase64' | 'tooLarge' {
  const compact = text.replace(/[\r\n\t ]+/g, '');
  // Buffer.from skips characters outside the alphabet silently: check first.
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) return 'notBase64';
  if (Math.floor((compact.length * 3) / 4) > maxBytes + 2) return 'tooLarge';
  const bytes = Buffer.from(compact, 'base64');
  return bytes.length > maxBytes ? 'tooLarge' : bytes;
}

/**
 * The most cells a CSV row may have: a spreadsheet's last column (XFD). csv-parse gathers a row's
 * cells in one array before the collector sees it, and a row of 24 million commas grew it past
 * the reader thread's heap; an array that outgrows a worker's heap aborts the whole process
 * (nodejs/node#47224), not just the thread.
 */
export const MAX_ROW_CELLS = 16_384;

/** Thrown by the collector to end a read early: not an error of the file. */
class EnoughRows extends Error {}

/** Header names compare without case, spaces, hyphens or underscores: "Beneficiary Name" is beneficiaryName. */
const normalise = (name: string) => name.replace(/[\s_-]+/g, '').toLowerCase();

/**
 * Collects a file's rows as E8 lines, reading only the cells of the E8 columns: a row may reach
 * column 16,384, and copying every cell of 50,000 such rows would exhaust the memory. The first
 * row seen is the header; a row with none of the six fields filled is skipped (a blank or notes
 * row, not a payout). The first data row past the limit is counted, not kept, and ends the read
 * (the reader sees EnoughRows): nothing after it can make the file acceptable.
 */
class LineCollector {
  header: Array<string | undefined> | undefined;
  private readonly columns = new Map<Column, number>();
  readonly lines: Array<Record<string, string>> = [];
  /** The row of the file each kept line is, as a spreadsheet numbers it (the header is usually 1): what people are told to fix. */
  readonly rowNumbers: number[] = [];
  /** Data rows seen, kept or not: at most maxLines + 1. */
  rows = 0;

  // Not a parameter property: reader threads load this file with Node's type stripping, which has none.
  private readonly maxLines: number;
  constructor(maxLines: number) {
    this.maxLines = maxLines;
  }

  /** `cell(i)` is the trimmed text of the row's cell i (from 0), '' when empty; `rowNumber` the row's in the file, from 1. */
  add(width: number, cell: (i: number) => string, rowNumber: number): void {
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
    if (this.rows > this.maxLines) throw new EnoughRows();
    this.lines.push(line);
    this.rowNumbers.push(rowNumber);
  }

  /** The required columns the header lacks. */
  missing(): Column[] {
    return FILE_COLUMNS.filter((c) => !this.columns.has(c) && !OPTIONAL_COLUMNS.includes(c));
  }
}

function readCsv(bytes: Buffer, into: LineCollector): void {
  // Records counted from 1, blank ones too: the row a spreadsheet shows it in (a text editor's line
  // as well, unless a quoted cell holds a line break).
  let rowNumber = 0;
  try {
    parseCsv(bytes, {
      bom: true,
      // A row shorter or longer than the header is read as it is; missing cells are missing fields.
      relax_column_count: true,
      // `5" screen` inside an unquoted description is text, not a syntax error.
      relax_quotes: true,
      // Blank lines come through as one empty cell (the collector skips them), so that they are counted.
      skip_empty_lines: false,
      trim: true,
      // Called for each cell as it is added to its row: where the row's width is known in time.
      cast: (value: string, context: { column: number | string }) => {
        if (Number(context.column) >= MAX_ROW_CELLS) throw new FileReadError(`a row has more than ${MAX_ROW_CELLS} cells`);
        return value;
      },
      // Each record goes to the collector and is dropped here, so the parser keeps nothing.
      on_record: (record: string[]) => {
        rowNumber++;
        // Rows of empty cells before the header are not the header (their width is paid for in bytes).
        if (into.header || record.some((c) => c !== '')) into.add(record.length, (i) => record[i] ?? '', rowNumber);
        return null;
      },
    });
  } catch (err) {
    // csv-parse hands back what on_record and cast throw, unwrapped.
    if (err instanceof EnoughRows) return;
    throw new FileReadError(err instanceof Error ? err.message : String(err));
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
  /** The file's row of each line (rowNumbers[i] is lines[i]'s). */
  rowNumbers: number[];
  rows: number;
}

function contentsOf(collector: LineCollector): FileContents {
  return { header: collector.header, missing: collector.header ? collector.missing() : [], lines: collector.lines, rowNumbers: collector.rowNumbers, rows: collector.rows };
}

async function readXlsx(bytes: Buffer, into: LineCollector): Promise<void> {
  const problem = zipProblem(bytes);
  if (problem) throw new FileReadError(problem);
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new FileReadError(err instanceof Error ? err.message : String(err));
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new FileReadError('the workbook has no worksheet');
  try {
    // Rows with at least one value, in order; findCell reads a cell without creating it.
    sheet.eachRow({ includeEmpty: false }, (row) => {
      into.add(
        row.cellCount,
        (i) => {
          const cell = row.findCell(i + 1);
          return cell ? cellText(cell).trim() : '';
        },
        row.number,
      );
    });
  } catch (err) {
    if (err instanceof EnoughRows) return;
    throw new FileReadError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * What a reader thread posts (file-worker.ts): the lines in messages of at most
 * LINES_PER_MESSAGE, each answered by the main thread (`more`) before the next is sent, then the
 * rest of the contents; or why the file was refused before it was read, or could not be read.
 * Each message is turned back into objects on the event loop: in small ones, other requests are
 * served in between (a structured clone of 50,000 lines took 35–50 ms, there and back).
 */
export type ReaderMessage =
  | { lines: FileContents['lines']; rowNumbers: FileContents['rowNumbers'] }
  | { done: Omit<FileContents, 'lines' | 'rowNumbers'> }
  | { refused: 'notBase64' | 'tooLarge' }
  | { unreadable: string };
export const LINES_PER_MESSAGE = 5_000;

/** The file cannot be read as its type: `message` says why (the parser's words, or ours). */
export class FileReadError extends Error {}

/**
 * Reads `bytes` as a file of `contentType`, keeping at most `maxLines` lines and reading at most
 * one data row more (enough to tell that the file has too many): a file of 300,000 short rows
 * costs what one of 50,001 does.
 */
export async function readFileContents(contentType: FileType, bytes: Buffer, maxLines: number): Promise<FileContents> {
  const collector = new LineCollector(maxLines);
  if (contentType === 'CSV') readCsv(bytes, collector);
  else await readXlsx(bytes, collector);
  return contentsOf(collector);
}

// Batch files: reading the CSV and XLSX uploads of batch/addFile into E8 lines, and writing the
// CSV of a batch's invalid lines (batch/downloadErrors). A file is a header row naming the E8
// columns (any case and order, extra columns ignored) and one payout per row; every row is checked
// by the same schema as an E8 line, so a file and a JSON body are refused for the same reasons,
// with the same messages. Whatever the bytes, reading ends in lines or a 400: never a 500.
// The parse itself (file-reader.ts) runs in a thread of its own, off the event loop.
import { Worker } from 'node:worker_threads';
import { Ajv, type ErrorObject } from 'ajv';
import { AppError } from '../../http/errors.ts';
import { fieldLabel } from '../../http/i18n.ts';
import { checkInput } from '../../http/input-guard.ts';
import { AJV_OPTIONS, ajvPlugins, MAX_FIELD_ERRORS } from '../../http/validation.ts';
import { MAX_BATCH_LINES, PayoutInput } from './schemas.ts';
import { FILE_COLUMNS, type FileContents, type FileType, type ReaderMessage } from './file-reader.ts';
import type { BatchLine } from './upload.ts';

export { FILE_COLUMNS, type FileType };

/**
 * Each read gets a thread of its own, with a heap limit (a hostile file exhausts the thread, not
 * the service) and a time limit; readers at once are capped per type, beyond which the upload is
 * answered 503 with Retry-After, so that memory stays bounded. ExcelJS holds about three times a
 * workbook's unpacked size (at most MAX_XLSX_UNPACKED_BYTES); a CSV's lines a few times the
 * file's size (at most the batch body limit; a row is at most MAX_ROW_CELLS wide). A CSV read is
 * a fraction of a second (~0.35 s for 11 MB on the 2-core machine), so more of them may run at once.
 */
const READERS: Record<FileType, { heapMb: number; timeoutMs: number; maxAtOnce: number }> = {
  CSV: { heapMb: 256, timeoutMs: 30_000, maxAtOnce: 4 },
  XLSX: { heapMb: 512, timeoutMs: 30_000, maxAtOnce: 2 },
};
const readersRunning: Record<FileType, number> = { CSV: 0, XLSX: 0 };
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
  /**
   * The file's row of transactions[i] (as a spreadsheet numbers it), for those who name rows to the
   * person who fixes the file (the console); the API names transactions[i], as for E8.
   */
  readonly rowNumbers: readonly number[];
  constructor(validation: ErrorObject[], rowNumbers: readonly number[] = []) {
    super('the file is not a valid batch');
    this.validation = validation;
    this.rowNumbers = rowNumbers;
  }
}

/** The line count is outside 1–MAX_BATCH_LINES: the message E8 gives for its transactions array. */
function countError(keyword: 'minItems' | 'maxItems', limit: number): FileValidationError {
  return new FileValidationError([{ keyword, instancePath: '/transactions', schemaPath: `#/properties/transactions/${keyword}`, params: { limit }, message: '' }]);
}

function badFile(contentType: FileType, reason: string): AppError {
  return new AppError('validation', 'detail.badFile', { contentType, reason: reason.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON_LENGTH) });
}

/** fileContent is not base64 (file-reader.ts base64Bytes), or decodes to more than `maxBytes`. */
function base64Refusal(why: 'notBase64' | 'tooLarge', maxBytes: number): AppError {
  if (why === 'tooLarge') return new AppError('tooLarge', 'detail.tooLarge', { limit: maxBytes });
  return new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.format', params: { field: fieldLabel('fileContent'), format: 'base64' } }] });
}

/** Lines checked per event-loop turn (a few milliseconds of work): other requests go in between. */
const CHECK_SLICE_LINES = 5_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Parsing holds the thread that does it: a 50,000-line CSV took ~0.2 s, an 11 MB one of short
 * rows ~0.35 s (1–2 s on a loaded machine), a 50,000-row workbook ExcelJS 2–5 s. Done on the
 * event loop, that stalled every other merchant's requests for as long. A reader thread decodes
 * the base64 and parses instead, and answers the lines: the main thread then only checks them.
 */
async function readInWorker(contentType: FileType, fileContent: string, maxBytes: number): Promise<FileContents> {
  const limits = READERS[contentType];
  if (readersRunning[contentType] >= limits.maxAtOnce) throw new AppError('unavailable', 'detail.filesBusy', {}, { headers: { 'retry-after': '5' } });
  const unreadable = contentType === 'XLSX' ? 'the workbook could not be read within the time and memory allowed' : 'the file could not be read within the time and memory allowed';
  readersRunning[contentType]++;
  let worker: Worker | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    worker = new Worker(new URL('./file-worker.ts', import.meta.url), {
      workerData: { contentType, fileContent, maxBytes, maxLines: MAX_BATCH_LINES },
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    });
    const running = worker;
    timer = setTimeout(() => void running.terminate(), limits.timeoutMs);
    const lines: FileContents['lines'] = [];
    const rowNumbers: FileContents['rowNumbers'] = [];
    const answer = await new Promise<Exclude<ReaderMessage, { lines: unknown }>>((resolve, reject) => {
      running.on('message', (message: ReaderMessage) => {
        if (!('lines' in message)) return resolve(message);
        for (const line of message.lines) lines.push(line);
        for (const row of message.rowNumbers) rowNumbers.push(row);
        running.postMessage('more');
      });
      running.once('error', reject);
      running.once('exit', (code) => resolve({ unreadable: code === 1 ? unreadable : `the reader stopped (${code})` }));
    });
    if ('done' in answer) return { ...answer.done, lines, rowNumbers };
    if ('refused' in answer) throw base64Refusal(answer.refused, maxBytes);
    throw badFile(contentType, answer.unreadable);
  } catch (err) {
    if (err instanceof AppError) throw err;
    // ERR_WORKER_OUT_OF_MEMORY and the like: the file's fault, not the service's.
    throw badFile(contentType, unreadable);
  } finally {
    clearTimeout(timer);
    void worker?.terminate();
    readersRunning[contentType]--;
  }
}

/**
 * What a row whose amount is not an amount (and whose other cells are fine) does to its file:
 * 'refuse-file', the API's batch/addFile, refuses the file as E8 refuses such a body (product.md
 * §9: the same result as E8); 'fail-line', the console's upload, keeps the row as a line that
 * validation makes invalid (amountFormat, the text as written), listed with its row while the other
 * lines go on. A row with any other schema error refuses the file either way (the batch has no
 * place for a connector id that is not a number, or a name too long), its amount named too.
 */
export type MalformedAmounts = 'refuse-file' | 'fail-line';
export interface ReadOptions {
  malformedAmounts: MalformedAmounts;
}

/** The most characters of an amount that is not one kept to show it (a cell may hold anything). */
const MAX_AMOUNT_TEXT = 40;

/** An error of the line's amount alone: not an amount within the schema's bounds, or missing. */
const aboutAmount = (e: ErrorObject) =>
  e.instancePath === '/transactionAmount' || (e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'transactionAmount');

/**
 * Reads an uploaded batch file into E8 lines, each checked like an E8 line (coerced, defaults
 * applied) and carrying its row in the file. Refusals: a 400 naming the rows as
 * transactions[i].field (i counts data rows from 0; FileValidationError.rowNumbers has their rows
 * in the file), at most MAX_FIELD_ERRORS rows; rows whose amount alone is wrong as `options` says.
 */
export async function readBatchFile(contentType: FileType, fileContent: string, maxBytes: number, options: ReadOptions): Promise<BatchLine[]> {
  const contents = await readInWorker(contentType, fileContent, maxBytes);
  if (!contents.header) throw countError('minItems', 1);
  if (contents.missing.length > 0) throw new AppError('validation', 'detail.noHeaderColumns', { columns: contents.missing.join(', ') });
  if (contents.rows === 0) throw countError('minItems', 1);
  if (contents.rows > MAX_BATCH_LINES) throw countError('maxItems', MAX_BATCH_LINES);
  const lines = contents.lines;
  // NUL and the like, which PostgreSQL cannot store: the check every JSON body gets, over every
  // line before any is validated (the refusal it gives comes first, as for E8).
  for (let from = 0; from < lines.length; from += CHECK_SLICE_LINES) {
    if (from > 0) await nextTurn();
    checkInput(lines.slice(from, from + CHECK_SLICE_LINES), 'transactions');
  }
  const checked = await checkLines(lines, options.malformedAmounts);
  if (checked.errors.length > 0) throw new FileValidationError(checked.errors, contents.rowNumbers);
  const batchLines = lines as unknown as BatchLine[];
  for (const i of checked.badAmounts) {
    const text = String(batchLines[i].transactionAmount ?? '');
    batchLines[i].amountAsWritten = text.length > MAX_AMOUNT_TEXT ? `${text.slice(0, MAX_AMOUNT_TEXT - 1)}…` : text;
    batchLines[i].transactionAmount = batchLines[i].amountAsWritten!;
  }
  batchLines.forEach((line, i) => (line.fileRow = contents.rowNumbers[i]));
  return batchLines;
}

/**
 * Every line against the line schema: the errors that refuse the file (at most MAX_FIELD_ERRORS
 * rows'; none when it is accepted), and under 'fail-line' the lines kept although their amount is
 * not one. Scanning goes on past the limit only while no row refuses the file yet.
 */
async function checkLines(lines: Array<Record<string, string>>, malformedAmounts: MalformedAmounts): Promise<{ errors: ErrorObject[]; badAmounts: number[] }> {
  const errors: ErrorObject[] = [];
  const badAmounts: number[] = [];
  let invalidRows = 0;
  let refused = false;
  for (let i = 0; i < lines.length && !(refused && invalidRows >= MAX_FIELD_ERRORS); i++) {
    if (i > 0 && i % CHECK_SLICE_LINES === 0) await nextTurn();
    if (validateLine(lines[i])) continue;
    const found = validateLine.errors ?? [];
    if (malformedAmounts === 'fail-line' && found.every(aboutAmount)) badAmounts.push(i);
    else refused = true;
    if (invalidRows >= MAX_FIELD_ERRORS) continue;
    invalidRows++;
    for (const err of found) errors.push({ ...err, instancePath: `/transactions/${i}${err.instancePath}` });
  }
  return refused ? { errors, badAmounts: [] } : { errors: [], badAmounts };
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

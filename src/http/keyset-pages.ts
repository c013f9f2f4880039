// What the console's lists share: keyset cursors, page sizes and the checks of the values a page's
// query string carries. A cursor is opaque to the browser (base64url of a small JSON array) and
// names the list it came from: its kind and a fingerprint of the merchant and the filters, so a
// cursor copied from another list, another merchant or another filter is refused instead of
// silently paging through something else. It is not signed: it only positions a read of the
// merchant's own rows (every query also filters on the merchant), so a forged one shows nothing
// the merchant could not see anyway. Every refusal is a 400 (AppError 'validation'), never a 500.
import { createHash } from 'node:crypto';
import { AppError } from './errors.ts';

/** Rows per page when the page does not say. */
export const DEFAULT_PAGE_ROWS = 25;
/** The most rows one page may ask for. */
export const MAX_PAGE_ROWS = 100;
/** Longer than any cursor this file writes (a few keys and a 16-character fingerprint). */
const MAX_CURSOR_CHARS = 300;
/** Cursor format version: a cursor of another version is refused (and the list restarts). */
const CURSOR_VERSION = 1;

/** One page of a keyset list: its rows and the cursor of the next page (null on the last one). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** A cursor key part: a timestamp as text (microseconds, exact), an integer or a UUID (the audit log's id). */
export type KeyPart = string | number;

/** PostgreSQL's timestamptz with its microseconds, in UTC, as the queries select it (keysetTime). */
const KEY_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const KEY_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The SQL expression of a timestamp as a cursor key: microseconds kept (a JavaScript Date has only
 * milliseconds, and two rows a few microseconds apart would otherwise collide or be skipped).
 */
export function keysetTime(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** A short, stable fingerprint of what a list shows: its kind, the merchant and its filters. */
export function listScope(kind: string, merchantAccountNumber: number, filters: object): string {
  return createHash('sha256').update(JSON.stringify([kind, merchantAccountNumber, filters])).digest('base64url').slice(0, 16);
}

export function encodeCursor(scope: string, key: readonly KeyPart[]): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, scope, ...key])).toString('base64url');
}

function cursorRefused(): AppError {
  return new AppError('validation', 'detail.cursorInvalid', { field: 'after' });
}

/**
 * The key of a cursor written by encodeCursor for this scope, with `shape` giving each part's type
 * ('time' for a keysetTime text, 'int' for a safe integer, 'uuid' for a UUID in lower case);
 * undefined without a cursor.
 */
export function decodeCursor(cursor: string | undefined, scope: string, shape: ReadonlyArray<'time' | 'int' | 'uuid'>): KeyPart[] | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw cursorRefused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw cursorRefused();
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length + 2 || parsed[0] !== CURSOR_VERSION || parsed[1] !== scope) throw cursorRefused();
  const key = parsed.slice(2) as unknown[];
  const valid = key.every((part, i) =>
    shape[i] === 'time'
      ? typeof part === 'string' && KEY_TIME.test(part) && !Number.isNaN(Date.parse(part))
      : shape[i] === 'uuid'
        ? typeof part === 'string' && KEY_UUID.test(part)
        : Number.isSafeInteger(part),
  );
  if (!valid) throw cursorRefused();
  return key as KeyPart[];
}

function invalid(field: string, value: unknown): AppError {
  return new AppError('validation', 'detail.valueInvalid', { field, value: String(value).slice(0, 40) });
}

/** The page size asked for: a whole number from 1 to MAX_PAGE_ROWS, DEFAULT_PAGE_ROWS when absent. */
export function pageRows(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_ROWS;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_ROWS) throw invalid('limit', limit);
  return limit;
}

/** A calendar day, YYYY-MM-DD, that exists (2025-02-30 does not); undefined stays undefined. */
export function checkDay(field: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < '0001-01-01') throw invalid(field, value);
  const parsed = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) throw invalid(field, value);
  return value;
}

/** fromDate ≤ toDate when both are given. */
export function checkOrder(fromDate: string | undefined, toDate: string | undefined): void {
  if (fromDate !== undefined && toDate !== undefined && fromDate > toDate) throw new AppError('validation', 'detail.rangeReversed', { fromDate, toDate });
}

/** One of `allowed`, or undefined when absent. */
export function checkOneOf<T extends string>(field: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw invalid(field, value);
  return value as T;
}

/** A positive whole number (an id from a query string), or undefined when absent. */
export function checkId(field: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647) throw invalid(field, value);
  return value;
}

/** The longest search text: longer than any reference or name it can match. */
export const MAX_SEARCH_CHARS = 100;

/** Search text trimmed, undefined when empty; refused when longer than MAX_SEARCH_CHARS. */
export function checkSearch(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (text.length > MAX_SEARCH_CHARS) throw invalid('search', `${text.slice(0, 20)}…`);
  return text;
}

/**
 * Splits a page read with `limit + 1` rows into the page and the next cursor, made from the last
 * row shown by `keyOf`.
 */
export function pageOf<R, T>(rows: R[], limit: number, scope: string, keyOf: (row: R) => KeyPart[], view: (row: R) => T): Page<T> {
  const shown = rows.slice(0, limit);
  const next = rows.length > limit && shown.length > 0 ? encodeCursor(scope, keyOf(shown[shown.length - 1])) : null;
  return { items: shown.map(view), next };
}

// Large E8 bodies go to the database while they are still arriving (migration 0006): the route's
// preParsing hook opens a transaction on a pooled client and COPYs every chunk the socket delivers
// into batch_upload_chunks, while Fastify reads, parses and validates the same bytes as usual.
// The handler then inserts the batch and its job in that transaction and commits: accepting
// 50,000 lines waits for neither a re-serialisation of them nor a 7 MB insert after the parse.
// Anything else (a 400, a 404, an idempotent replay, a client that goes away) drops the
// connection, and the transaction with it: nothing is left behind.
// The validation job reads the upload back and gets the same lines the route validated
// (stagedLinesOfUpload): the same normaliser, schema, coercions and defaults.
import { randomUUID } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type pg from 'pg';
import { from as copyFrom, type CopyStreamQuery } from 'pg-copy-streams';
import type { Config } from '../../config.ts';
import { beginSql, commit, discardAtCommit, type Db } from '../../db/pool.ts';
import { compileNormalizer } from '../../http/case-insensitive.ts';
import { EXAMPLE } from '../../http/docs.ts';
import { checkInput } from '../../http/input-guard.ts';
import { AJV_OPTIONS, ajvPlugins } from '../../http/validation.ts';
import { toMinor } from '../../lib/money.ts';
import { BatchHeader, MAX_BATCH_LINES, PayoutInput as PayoutInputSchema } from './schemas.ts';
import type { PayoutInput } from './schemas.ts';
import { EXAMPLE_PAYOUTS } from './docs.ts';

export const BatchLines = Type.Array(PayoutInputSchema, { minItems: 1, maxItems: MAX_BATCH_LINES, description: `1–${MAX_BATCH_LINES} payouts.` });
/** E8's body. */
export const BatchJsonBody = Type.Object(
  { header: BatchHeader, transactions: BatchLines },
  { examples: [{ header: { merchantAccountNumber: EXAMPLE.merchantAccountNumber, isBatchScheduled: false, capturedBy: EXAMPLE.actor }, transactions: EXAMPLE_PAYOUTS }] },
);

/**
 * A batch line as submitted: an E8 line, or a file's, with the row of the file it was read from
 * (fileRow); and, from a console upload only (files.ts, malformedAmounts 'fail-line'), a line
 * whose amount is not one, with the text as written (amountAsWritten): validation makes it invalid
 * (amountFormat) and it never gets an amount.
 */
export type BatchLine = PayoutInput & { fileRow?: number; amountAsWritten?: string };

/**
 * The compact form the validation SQL expands (repository.expandBatch): one array per line, a
 * fifth smaller than the objects and quicker to serialise. [name, connector, account, description,
 * amount, source reference] and, for a file's line, its row. The amount is minor units (a JSON
 * number), or the text as written when it is not an amount (a JSON string), so that the one slot
 * can never be read as money by mistake.
 */
export function compactLines(lines: readonly BatchLine[]): string {
  return JSON.stringify(
    lines.map((l) => {
      const amount = l.amountAsWritten ?? toMinor(l.transactionAmount);
      const line: Array<string | number> = [l.beneficiaryName, l.connectorId, l.beneficiaryAccountNumber, l.transactionDescription ?? '', amount, l.sourceReferenceNumber];
      if (l.fileRow !== undefined) line.push(l.fileRow);
      return line;
    }),
  );
}

// The route's validation, rebuilt for the job: the same normaliser (names in any case) and the
// same line schema compiled with the route validator's options and keywords (see files.ts).
const normalizeBody = compileNormalizer(Type.Object({ transactions: BatchLines }) as never)!;
const validateLines = ajvPlugins(new Ajv(AJV_OPTIONS)).compile(BatchLines);

/**
 * The compact lines of an upload, or undefined when its bytes are not (any longer) a valid E8
 * body: impossible for an upload the route accepted, unless the schema changed in between.
 */
export function stagedLinesOfUpload(bytes: Buffer): string | undefined {
  let body: unknown;
  try {
    // A leading byte-order mark, as Fastify's JSON parser allows.
    const text = bytes.toString('utf8');
    body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  normalizeBody(body);
  const lines = (body as { transactions?: unknown }).transactions;
  try {
    checkInput(lines, 'transactions');
  } catch {
    return undefined;
  }
  return validateLines(lines) ? compactLines(lines as PayoutInput[]) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Copying an upload while it arrives

/** Uploads copied at once per process: each holds a connection while its body arrives. */
export function uploadCopySlots(config: Pick<Config, 'dbPoolSize'>): number {
  return Math.max(1, Math.floor(config.dbPoolSize / 5));
}

/** PostgreSQL's binary COPY framing (the COPY command's "Binary Format"). */
const COPY_SIGNATURE = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const COPY_TRAILER = Buffer.from([0xff, 0xff]);
/**
 * The most bytes one batch_upload_chunks row holds, stored plain (see 0006): four rows fill a
 * page, and a row (2,032 bytes with its header and its merchant_account_number, migration 0030)
 * is the largest PostgreSQL stores without trying to TOAST it. Not one row a page: a binary COPY holds 1,000 rows in memory before it writes
 * them (its byte limit counts the text line, which a binary row lacks), so 8,000-byte rows left
 * the last 1,000 (up to 8 MB) to be written only once the copy ended, after the parse: ~10 ms
 * more for every large E8, on the 2-core machine (seen with strace). With 1,984-byte rows at
 * most 2 MB is left then (~4 ms), and the copy as a whole is as fast.
 */
export const CHUNK_ROW_BYTES = 1976;

/** Bytes of a tuple before its data: field count, the merchant, the upload id, the row's number, the data's length. */
const TUPLE_HEAD_BYTES = 2 + 4 + 4 + 4 + 16 + 4 + 4 + 4;

/**
 * The COPY tuples of one arriving chunk, in one buffer: rows of at most CHUNK_ROW_BYTES each.
 * One write per chunk, not two per row: over TCP each write was a system call of its own, and
 * 13 MB took thousands of them.
 */
function tuples(merchantAccountNumber: number, uploadId: Buffer, firstSeq: number, chunk: Buffer): Buffer {
  const rows = Math.ceil(chunk.length / CHUNK_ROW_BYTES);
  const out = Buffer.allocUnsafe(chunk.length + rows * TUPLE_HEAD_BYTES);
  let at = 0;
  for (let row = 0; row < rows; row++) {
    const data = chunk.subarray(row * CHUNK_ROW_BYTES, (row + 1) * CHUNK_ROW_BYTES);
    at = out.writeInt16BE(4, at);
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(merchantAccountNumber, at);
    at = out.writeInt32BE(16, at);
    at += uploadId.copy(out, at);
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(firstSeq + row, at);
    at = out.writeInt32BE(data.length, at);
    at += data.copy(out, at);
  }
  return out;
}

/**
 * One upload being copied: a pooled client inside an open transaction, running COPY. A failing
 * copy never fails the request: the upload is marked failed, and the route stores the parsed
 * lines itself instead.
 */
export class UploadCopy {
  readonly uploadId = randomUUID();
  private readonly uploadIdBytes = Buffer.from(this.uploadId.replaceAll('-', ''), 'hex');
  private seq = 0;
  private failed = false;
  /** Committed, abandoned, or being committed: whoever set it owns the connection. */
  private settled = false;
  private readonly done: Promise<void>;
  private copyEnded!: () => void;

  private constructor(
    private readonly merchantAccountNumber: number,
    private readonly client: pg.PoolClient,
    private readonly copy: CopyStreamQuery,
    private readonly onSettled: () => void,
  ) {
    this.done = new Promise<void>((resolve) => {
      this.copyEnded = resolve;
      copy.on('finish', resolve);
      copy.on('error', () => {
        this.failed = true;
        resolve();
      });
    });
    copy.write(COPY_SIGNATURE);
  }

  /**
   * Starts a copy (a round trip for BEGIN; COPY starts with it); undefined if the database cannot.
   * The chunks carry the merchant (the token's, which the batch's must be: the route's scope check).
   */
  static async begin(db: Db, merchantAccountNumber: number, onSettled: () => void): Promise<UploadCopy | undefined> {
    let client: pg.PoolClient | undefined;
    try {
      client = await db.connect();
      await client.query(beginSql(db));
      return new UploadCopy(
        merchantAccountNumber,
        client,
        client.query(copyFrom('copy batch_upload_chunks (merchant_account_number, upload_id, seq, bytes) from stdin (format binary)')),
        onSettled,
      );
    } catch {
      client?.release(true);
      onSettled();
      return undefined;
    }
  }

  /**
   * Queues one chunk for the copy (memory stays within twice the body limit Fastify enforces).
   * The upload is not slowed to the database's pace: the parse and validation run meanwhile, and
   * the handler waits for the copy only at the end.
   */
  write(chunk: Buffer): void {
    if (this.failed || this.settled || chunk.length === 0) return;
    this.copy.write(tuples(this.merchantAccountNumber, this.uploadIdBytes, this.seq, chunk));
    this.seq += Math.ceil(chunk.length / CHUNK_ROW_BYTES);
  }

  /**
   * Ends the copy and runs `fn` in its transaction, then commits. Undefined (and the connection
   * dropped) when the copy failed: the caller stores the lines another way.
   */
  async commitWith<T>(fn: (tx: pg.PoolClient, uploadId: string) => Promise<T>): Promise<{ result: T } | undefined> {
    if (this.settled) return undefined;
    this.settled = true;
    try {
      if (!this.failed) {
        this.copy.end(COPY_TRAILER);
        await this.done;
      }
      if (this.failed) {
        this.client.release(true);
        return undefined;
      }
      let result: T;
      try {
        result = await fn(this.client, this.uploadId);
        await commit(this.client);
      } catch (err) {
        discardAtCommit(this.client);
        // Dropping the connection rolls back whatever state the transaction is in.
        this.client.release(true);
        throw err;
      }
      this.client.release();
      return { result };
    } finally {
      this.onSettled();
    }
  }

  /** Drops the connection, and with it the transaction and everything copied; safe to call twice. */
  abandon(): void {
    if (this.settled) return;
    this.settled = true;
    this.failed = true;
    this.copy.destroy();
    this.client.release(true);
    this.copyEnded();
    this.onSettled();
  }
}

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/**
 * The stream Fastify reads the body from: every chunk passes through unchanged, and is handed to
 * the copy (which keeps a reference, not a copy, until the database has it: memory stays within
 * the body limit Fastify enforces). `receivedEncodedLength` tells Fastify how much came in (its
 * body-limit and content-length checks). On the way it notes whether the text has a \u escape
 * (see checkInput's `textKnownStorable`): `onEnd(false)` when it had none.
 */
export class CopyingStream extends Transform {
  receivedEncodedLength = 0;
  private sawEscape = false;
  private endedWithBackslash = false;

  constructor(
    private readonly upload: UploadCopy,
    private readonly onEnd: (sawEscape: boolean) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    if (!this.sawEscape && chunk.length > 0) {
      this.sawEscape = (this.endedWithBackslash && chunk[0] === LETTER_U) || chunk.indexOf('\\u') !== -1;
      this.endedWithBackslash = chunk[chunk.length - 1] === BACKSLASH;
    }
    this.upload.write(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.onEnd(this.sawEscape);
    callback();
  }
}

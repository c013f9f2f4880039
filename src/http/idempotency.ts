// X-Idempotency-Key (product.md §4). A keyed write's record is written, completed with its
// answer, in the effect's own transaction and in the same round trip as its COMMIT
// (`storeResponse`, db/pool.ts sendWithCommit), or inside the very statement that makes the effect
// (batched E12s, collections/repository.ts). There is no separate claim: the record's primary key
// is the arbiter. A second request with the same key waits on the first's uncommitted row, then
// fails to store its own (store_idempotent_answer raises unique_violation), which rolls its effect
// back, and the error handler answers it from the first's record: a replay, or 409 E907 when the
// request differs. A crash before the commit leaves neither effect nor record. A refusal (4xx) is
// stored after it is sent, and replayed like a success; a server error, a conflict or a rate limit
// stores nothing, so the client can retry.
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { sendWithCommit, type Db } from '../db/pool.ts';
import type { IdempotencyContext } from './types.ts';
import { isViolation } from '../db/errors.ts';

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9-]{15,80}$/;
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What the record holding a key says about a request that could not store its own. */
export type HeldKey =
  | { kind: 'replay'; status: number; body: string; contentType: string }
  | { kind: 'mismatch' }
  | { kind: 'inProgress' }
  /** No live record: the request failed for a reason of its own. */
  | { kind: 'free' };

function keysSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}

/**
 * JSON with sorted keys: the same request always gives the same fingerprint. Native
 * JSON.stringify with a replacer that re-orders only objects whose keys are out of order.
 * (Integer-like keys come out in numeric order, as JavaScript keeps them; what matters is that
 * the order never depends on the client's.) canonicalJson gives the same text, faster.
 */
export function canonicalJsonBySorting(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const keys = Object.keys(v);
      if (keysSorted(keys)) return v;
      const sorted: Record<string, unknown> = {};
      for (const k of keys.sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }) ?? 'null'
  );
}

/**
 * Beyond this many distinct keys canonicalJson sorts object by object: JSON.stringify with a key
 * list looks up every listed key in every object.
 */
const MAX_KEY_LIST = 64;

/** An array index as a property key: JavaScript orders these first, numerically. */
function isIndexKey(key: string): boolean {
  return String(Number(key) >>> 0) === key && key !== '4294967295';
}

/**
 * Every key of every object in `value`, or undefined when the key list cannot reproduce
 * canonicalJsonBySorting: too many keys, an object that is not plain (it could inherit a listed
 * key), or a key that Object.prototype has (JSON.stringify would find it inherited).
 */
function distinctKeys(value: unknown): Set<string> | undefined {
  const keys = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) stack.push(item);
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return undefined;
    for (const key in v) {
      keys.add(key);
      const item = (v as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
    if (keys.size > MAX_KEY_LIST) return undefined;
  }
  for (const key of keys) if (key in Object.prototype) return undefined;
  return keys;
}

/**
 * The text of canonicalJsonBySorting, made by JSON.stringify alone: given a list of keys, it
 * writes each object's properties in the list's order. With every key of the body listed, integer
 * keys first and in numeric order (as an object keeps them), the rest sorted, that is the sorted
 * text, without a replacer call per value or a sorted copy per object: 37 ms instead of 60–110
 * for a 50,000-line E8 batch, whose lines' keys are never in sorted order.
 */
export function canonicalJson(value: unknown): string {
  const keys = distinctKeys(value);
  if (!keys) return canonicalJsonBySorting(value);
  const all = [...keys];
  const indexKeys = all.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  const otherKeys = all.filter((key) => !isIndexKey(key)).sort();
  return JSON.stringify(value, [...indexKeys, ...otherKeys]) ?? 'null';
}

export function fingerprint(method: string, route: string, query: unknown, body: unknown): string {
  return createHash('sha256').update(`${method} ${route}\n${canonicalJson(query ?? {})}\n${canonicalJson(body ?? null)}`).digest('hex');
}

/**
 * The fingerprint of a request whose body is compared byte for byte: a large E8 batch, whose
 * canonical form would cost more than the rest of the request (37 ms of 108 for 50,000 lines).
 * A client retries such a body with the bytes it sent; one that re-encodes it differently gets
 * 409 E907, never a second batch. Never equal to a canonical fingerprint (the `bytes:` prefix).
 */
export function fingerprintOfBytes(method: string, route: string, query: unknown, bodySha256: string): string {
  return createHash('sha256').update(`${method} ${route}\n${canonicalJson(query ?? {})}\nbytes:${bodySha256}`).digest('hex');
}

/**
 * Hashes a body while it arrives, for fingerprintOfBytes. Keeps Fastify's count of the bytes
 * received (receivedEncodedLength), which it checks against Content-Length.
 */
export class BodyHasher extends Transform {
  receivedEncodedLength = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly onEnd: (sha256: string) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.onEnd(this.hash.digest('hex'));
    callback();
  }
}

interface Row {
  request_fingerprint: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
}

/**
 * The record holding this request's key, if it is live. In-progress records only remain from
 * before records were written at commit (migration 0012), until their lock lapses.
 */
export async function heldKey(db: Db, context: IdempotencyContext): Promise<HeldKey> {
  const { rows } = await db.query<Row>(
    `select request_fingerprint, state, response_status, response_body, response_content_type
       from idempotency_keys
      where merchant_account_number = $1 and idempotency_key = $2 and expires_at > now()
        and (state = 'completed' or locked_until > now() or request_fingerprint <> $3)`,
    [context.merchantAccountNumber, context.key, context.fingerprint],
  );
  const row = rows[0];
  if (!row) return { kind: 'free' };
  if (row.request_fingerprint !== context.fingerprint) return { kind: 'mismatch' };
  if (row.state === 'completed') {
    return { kind: 'replay', status: row.response_status ?? 200, body: row.response_body ?? '', contentType: row.response_content_type ?? JSON_CONTENT_TYPE };
  }
  return { kind: 'inProgress' };
}

/**
 * Thrown where a request learns, without a failed insert, that its key is already held (the
 * batched E12 statement sees the record): the error handler answers from the record.
 */
export class KeyHeldError extends Error {
  constructor() {
    super('idempotency key held by an earlier request');
  }
}

/** A failure that means "the key is held": the error handler answers from the holder's record. */
export function isKeyHeld(err: unknown): boolean {
  if (err instanceof KeyHeldError) return true;
  if (isViolation(err, '23505', 'idempotency_keys_pkey')) return true;
  // The holder did not commit within STORE_LOCK_TIMEOUT (storeStatement; no other statement sets
  // a lock timeout or locks with NOWAIT).
  return (err as { code?: unknown } | null)?.code === '55P03';
}

/**
 * How long a store waits for another request's uncommitted record of the same key. Such a record
 * is written by its holder's last statement, so the wait is one commit and ends in the holder's
 * answer (replayed). Past it, the request gets 409 E907 with Retry-After, as while a request runs.
 */
const STORE_LOCK_TIMEOUT = '5s';

/**
 * The statement that stores an answer: store_idempotent_answer with literal arguments, so it can
 * travel with the COMMIT. `whenKeyHeld: 'raise'`: the effect must roll back if another request holds the key.
 */
function storeStatement(
  tx: pg.PoolClient,
  context: IdempotencyContext,
  answer: { status: number; body: string; contentType: string },
  options: { whenKeyHeld: 'raise' },
): string {
  const args = [
    String(context.merchantAccountNumber),
    tx.escapeLiteral(context.key),
    tx.escapeLiteral(context.fingerprint),
    String(answer.status),
    tx.escapeLiteral(answer.body),
    tx.escapeLiteral(answer.contentType),
    String(context.retentionHours),
    String(options.whenKeyHeld === 'raise'),
  ];
  // SET LOCAL lasts until the COMMIT this statement travels with.
  return `set local lock_timeout = '${STORE_LOCK_TIMEOUT}';\nselect store_idempotent_answer(${args.join(', ')})`;
}

/**
 * Serialises `payload` with the route's response schema for `status` and, when the request
 * carries an idempotency key, queues its record to be written with `tx`'s COMMIT. Send the returned
 * string with `sendSerialized`.
 */
export async function storeResponse(tx: pg.PoolClient, request: FastifyRequest, reply: FastifyReply, status: number, payload: unknown): Promise<string> {
  reply.code(status);
  return storeSerialized(tx, request, String(reply.serialize(payload)), status);
}

/** storeResponse for an answer already serialised. */
export function storeSerialized(tx: pg.PoolClient, request: FastifyRequest, body: string, status = 200): string {
  const context = request.idempotency;
  if (context) {
    sendWithCommit(tx, storeStatement(tx, context, { status, body, contentType: JSON_CONTENT_TYPE }, { whenKeyHeld: 'raise' }));
    context.completed = true;
  }
  return body;
}

/** Stores a refusal sent outside any effect's transaction; loses quietly to a record already there. */
export async function storeRefusal(db: Db, context: IdempotencyContext, status: number, body: string, contentType: string): Promise<void> {
  await db.query('select store_idempotent_answer($1, $2, $3, $4, $5, $6, $7, false)', [
    context.merchantAccountNumber,
    context.key,
    context.fingerprint,
    status,
    body,
    contentType,
    context.retentionHours,
  ]);
}

export function sendSerialized(reply: FastifyReply, body: string): FastifyReply {
  return reply.type(JSON_CONTENT_TYPE).send(body);
}

/** Deletes records past their retention; run by the `idempotency_cleanup` job. */
export async function deleteExpiredKeys(db: Db, batchSize = 10_000): Promise<number> {
  let total = 0;
  // In bounded batches, so a large backlog never holds one long transaction.
  for (;;) {
    const { rowCount } = await db.query(
      // By key, not ctid: Citus plans the limited subquery first and refuses a ctid from it.
      `delete from idempotency_keys k
        using (select merchant_account_number, idempotency_key from idempotency_keys where expires_at <= now() limit $1) d
        where k.merchant_account_number = d.merchant_account_number and k.idempotency_key = d.idempotency_key`,
      [batchSize],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) return total;
  }
}

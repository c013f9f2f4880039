// FSPIOP identifiers (quoteId, transactionId, transferId) are CorrelationIds: lower-case RFC 4122
// UUIDs of version 1 to 5. We derive ours from our own records (RFC 4122 §4.3, version 5: SHA-1
// of a namespace and a name), so a worker that crashes after sending POST /transfers and before
// storing the id sends the same transferId again: the switch treats it as a resend (§3.2.5), not
// as a second transfer.
import { createHash, randomUUID } from 'node:crypto';

export const CORRELATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * This service's namespace for derivedId. Never change it: every id derived before would
 * change, and a payout in flight would be sent again under a new transferId.
 */
export const ID_NAMESPACE = 'b7399833-9474-4f16-8fbd-a1c26e155903';

export function isCorrelationId(value: unknown): value is string {
  return typeof value === 'string' && CORRELATION_ID_PATTERN.test(value);
}

function uuidBytes(uuid: string): Buffer {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** RFC 4122 §4.3 name-based UUID, version 5 (SHA-1); the name is hashed as UTF-8. */
export function uuidV5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant: 10xx
  return formatUuid(bytes);
}

/**
 * The id of one FSPIOP object of ours: derivedId('transfer', fspId, payoutReference). `kind`
 * keeps a quote's and a transfer's ids of one payout apart; a retry that must be a new object
 * (a new quote after an expired one) adds its attempt number as a part. The parts are hashed as
 * a JSON array, so ('a|b', 'c') and ('a', 'b|c') are different names.
 */
export function derivedId(kind: string, ...parts: string[]): string {
  return uuidV5(ID_NAMESPACE, JSON.stringify([kind, ...parts]));
}

/** A fresh random (version 4) CorrelationId, for objects not tied to a record of ours. */
export function randomCorrelationId(): string {
  return randomUUID();
}

// The Interledger parts of FSPIOP (API Definition v1.1 §4, §6.5.2.3). The Payee FSP answers a
// quote with an ILP packet, whose data is the Transaction (base64url of its JSON), and a
// condition, the SHA-256 of a fulfilment it can compute again later: HMAC-SHA256 of the packet
// with a local secret. The payer's transfer carries both; the payee's PUT /transfers carries the
// fulfilment, which must hash to the condition.
//
// Packet formats: FSPIOP 1.x defines the ILPv1 payment packet (type 1: amount, account, data;
// Listing 6), and that is what the Testing Toolkit and the SDK build for FSPIOP bodies. FSPIOP 2.0
// and ISO 20022 carry an ILPv4 prepare packet (type 12: amount, expiry, condition, destination
// "g.mojaloop", data). We read both and build version 1. Both are OER-encoded, by hand here
// with node:buffer: a type byte, then length-prefixed contents.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { moneyMinor, type Money } from './amount.ts';

const TYPE_ILPV1_PAYMENT = 1;
const TYPE_ILPV4_PREPARE = 12;
/** YYYYMMDDHHmmssSSS, UTC: an ILPv4 expiry. */
const INTERLEDGER_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})$/;
/** ILP addresses (RFC 15) as ilp-packet checks an ILPv4 destination. */
const ILP_ADDRESS = /^(g|private|example|peer|self|test[1-3]?|local)([.][a-zA-Z0-9_~-]+)+$/;

export class IlpPacketError extends Error {}

export interface PartyIdInfo {
  partyIdType: string;
  partyIdentifier: string;
  partySubIdOrType?: string;
  fspId?: string;
  [key: string]: unknown;
}

/** The Transaction data model (§7.4.17), the end-to-end data inside the packet. */
export interface IlpTransaction {
  transactionId: string;
  quoteId: string;
  payee: { partyIdInfo: PartyIdInfo; [key: string]: unknown };
  payer: { partyIdInfo: PartyIdInfo; [key: string]: unknown };
  amount: Money;
  transactionType: { scenario: string; initiator: string; initiatorType: string; [key: string]: unknown };
  note?: string;
  [key: string]: unknown;
}

export interface DecodedIlpPacket {
  format: 'ilpv1-payment' | 'ilpv4-prepare';
  /**
   * The packet's UInt64 as decimal text: the amount in minor units of the currency's exponent
   * (§6.5.2.3: USD 99 is 9900), as the packet says, which need not be the Transaction's amount.
   */
  amount: string;
  /** ILPv1's account ("g.payeefsp.msisdn.265991234567"), ILPv4's destination ("g.mojaloop"). */
  destination: string;
  /** ILPv4 only. */
  expiresAt?: Date;
  /** ILPv4 only: the condition, base64url. */
  executionCondition?: string;
  transaction: IlpTransaction;
}

export interface IlpTerms {
  ilpPacket: string;
  condition: string;
  fulfilment: string;
}

/** 32 bytes from exactly 43 canonical base64url characters (IlpCondition, IlpFulfilment); else undefined. */
function bytes32(text: unknown): Buffer | undefined {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // The 43rd character holds 2 spare bits: only one spelling of the 32 bytes is accepted.
  return bytes.length === 32 && bytes.toString('base64url') === text ? bytes : undefined;
}

/** The condition of a fulfilment: SHA-256 of its 32 bytes, base64url. Throws for anything else. */
export function conditionFor(fulfilment: string): string {
  const preimage = bytes32(fulfilment);
  if (!preimage) throw new IlpPacketError('a fulfilment is 32 bytes in 43 base64url characters');
  return createHash('sha256').update(preimage).digest('base64url');
}

/** Whether SHA-256 of the fulfilment's 32 bytes is the condition; false for anything malformed. */
export function fulfilmentMatches(fulfilment: unknown, condition: unknown): boolean {
  const preimage = bytes32(fulfilment);
  const expected = bytes32(condition);
  if (!preimage || !expected) return false;
  return timingSafeEqual(createHash('sha256').update(preimage).digest(), expected);
}

/**
 * The fulfilment for a packet we built: HMAC-SHA256 over the packet's base64url text, keyed as
 * Mojaloop's reference keys it (IlpV1.calculateFulfil): with the base64 text of the secret, not
 * its bytes. Computed again from the packet a POST /transfers carries, it is the one we promised.
 */
export function fulfilmentFor(ilpPacket: string, secret: string | Uint8Array): string {
  const key = Buffer.from(Buffer.from(secret).toString('base64'), 'ascii');
  return createHmac('sha256', key).update(Buffer.from(ilpPacket, 'ascii')).digest('base64url');
}

/** A Money object as the packet's amount: exact minor units of the currency's exponent. */
export function ilpAmount(money: Money): string {
  const minor = moneyMinor(money);
  if (minor === undefined) throw new IlpPacketError(`amount ${JSON.stringify(money.amount)} ${money.currency} has no exact minor units`);
  return String(minor);
}

/** The ILPv1 account of a party, as the reference (IlpV1._getIlpAddress) writes it: g.<fspId>.<type>.<id>[.<subId>]. */
export function ilpAddress(partyIdInfo: PartyIdInfo): string {
  if (!partyIdInfo.fspId) throw new IlpPacketError('an ILP address needs the party fspId');
  const parts = ['g', partyIdInfo.fspId, partyIdInfo.partyIdType.toLowerCase(), partyIdInfo.partyIdentifier.toLowerCase()];
  if (partyIdInfo.partySubIdOrType) parts.push(partyIdInfo.partySubIdOrType.toLowerCase());
  return parts.join('.');
}

function lengthPrefix(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const digits: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
  return Buffer.from([0x80 | digits.length, ...digits]);
}

function varOctets(bytes: Buffer): Buffer {
  return Buffer.concat([lengthPrefix(bytes.length), bytes]);
}

/**
 * Payee side: the ILPv1 packet for a Transaction, with its condition and fulfilment. The
 * amount is the Transaction's, in exact minor units; `destination` is the payee's ILP address
 * (ilpAddress). The transaction is serialised in its own key order, as the reference does.
 */
export function buildIlpPacket(input: { transaction: IlpTransaction; destination: string; secret: string | Uint8Array }): IlpTerms {
  if (!/^[\x21-\x7e]{1,1023}$/.test(input.destination)) throw new IlpPacketError('an ILP address is 1 to 1023 printable ASCII characters');
  const amount = Buffer.alloc(8);
  amount.writeBigUInt64BE(BigInt(ilpAmount(input.transaction.amount)));
  const data = Buffer.from(Buffer.from(JSON.stringify(input.transaction), 'utf8').toString('base64url'), 'ascii');
  // The trailing 0: ASN.1 extensibility, an empty extension list.
  const contents = Buffer.concat([amount, varOctets(Buffer.from(input.destination, 'ascii')), varOctets(data), Buffer.from([0])]);
  const ilpPacket = Buffer.concat([Buffer.from([TYPE_ILPV1_PAYMENT]), varOctets(contents)]).toString('base64url');
  const fulfilment = fulfilmentFor(ilpPacket, input.secret);
  return { ilpPacket, condition: conditionFor(fulfilment), fulfilment };
}

interface Reader {
  bytes: Buffer;
  at: number;
}

function read(reader: Reader, count: number, what: string): Buffer {
  if (reader.at + count > reader.bytes.length) throw new IlpPacketError(`ilpPacket ends inside its ${what}`);
  const out = reader.bytes.subarray(reader.at, reader.at + count);
  reader.at += count;
  return out;
}

/** An OER length: one byte below 128, else 0x80|n and n big-endian bytes, in its shortest form. */
function readLength(reader: Reader, what: string): number {
  const first = read(reader, 1, what)[0];
  if (first < 0x80) return first;
  const count = first & 0x7f;
  if (count === 0 || count > 4) throw new IlpPacketError(`ilpPacket has a malformed length of its ${what}`);
  const digits = read(reader, count, what);
  const length = digits.reduce((sum, byte) => sum * 256 + byte, 0);
  if (length < 0x80 || digits[0] === 0) throw new IlpPacketError(`ilpPacket has a non-canonical length of its ${what}`);
  return length;
}

function readVarOctets(reader: Reader, what: string): Buffer {
  return read(reader, readLength(reader, what), what);
}

function readAscii(reader: Reader, what: string): string {
  const text = readVarOctets(reader, what).toString('latin1');
  if (!/^[\x21-\x7e]+$/.test(text)) throw new IlpPacketError(`ilpPacket ${what} is not printable ASCII`);
  return text;
}

function readExpiry(reader: Reader): Date {
  const text = read(reader, 17, 'expiry').toString('latin1');
  const match = INTERLEDGER_TIME.exec(text);
  const [y, mo, d, h, mi, s, ms] = (match ?? []).slice(1).map(Number);
  const at = match ? new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms)) : undefined;
  // Date.UTC rolls 31 February over into March: a real instant gives its own digits back.
  if (!at || at.getUTCFullYear() < 1000 || at.toISOString().replace(/\D/g, '') !== text) throw new IlpPacketError('ilpPacket expiry is not an Interledger time');
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first required element of a Transaction that is missing or of the wrong kind. */
function transactionProblem(tx: Record<string, unknown>): string | undefined {
  const strings: Array<[string, unknown]> = [
    ['transactionId', tx.transactionId],
    ['quoteId', tx.quoteId],
    ['amount.amount', isObject(tx.amount) ? tx.amount.amount : undefined],
    ['amount.currency', isObject(tx.amount) ? tx.amount.currency : undefined],
  ];
  for (const [name, value] of strings) if (typeof value !== 'string') return name;
  for (const party of ['payee', 'payer'] as const) {
    const info = isObject(tx[party]) ? (tx[party] as Record<string, unknown>).partyIdInfo : undefined;
    if (!isObject(info)) return `${party}.partyIdInfo`;
  }
  return isObject(tx.transactionType) ? undefined : 'transactionType';
}

/** The packet's data: the ASCII of base64url(JSON of the Transaction). */
function readTransaction(data: Buffer): IlpTransaction {
  const text = data.toString('latin1');
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) throw new IlpPacketError('ilpPacket data is not base64url text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64url')));
  } catch {
    throw new IlpPacketError('ilpPacket data is not the JSON of a Transaction');
  }
  if (!isObject(parsed)) throw new IlpPacketError('ilpPacket data is not a JSON object');
  const missing = transactionProblem(parsed);
  if (missing) throw new IlpPacketError(`ilpPacket Transaction has no valid ${missing}`);
  return parsed as IlpTransaction;
}

function readPayment(reader: Reader): DecodedIlpPacket {
  const amount = read(reader, 8, 'amount').readBigUInt64BE().toString();
  const destination = readAscii(reader, 'account');
  const transaction = readTransaction(readVarOctets(reader, 'data'));
  // What follows is the ASN.1 extension list, which nobody fills.
  return { format: 'ilpv1-payment', amount, destination, transaction };
}

function readPrepare(reader: Reader): DecodedIlpPacket {
  const amount = read(reader, 8, 'amount').readBigUInt64BE().toString();
  const expiresAt = readExpiry(reader);
  const executionCondition = read(reader, 32, 'execution condition').toString('base64url');
  const destination = readAscii(reader, 'destination');
  if (destination.length > 1023 || !ILP_ADDRESS.test(destination)) throw new IlpPacketError('ilpPacket destination is not an ILP address');
  const transaction = readTransaction(readVarOctets(reader, 'data'));
  return { format: 'ilpv4-prepare', amount, destination, expiresAt, executionCondition, transaction };
}

/**
 * Reads an FSPIOP ilpPacket (base64url as the spec has it, or base64) of either format. Throws
 * IlpPacketError naming what is wrong: not base64, truncated, another packet type, trailing
 * bytes, data that is not a Transaction.
 */
export function decodeIlpPacket(ilpPacket: unknown): DecodedIlpPacket {
  if (typeof ilpPacket !== 'string' || !/^[A-Za-z0-9_+/-]+={0,2}$/.test(ilpPacket)) throw new IlpPacketError('ilpPacket is not base64url text');
  const bytes = Buffer.from(ilpPacket, 'base64');
  const envelope: Reader = { bytes, at: 0 };
  const type = read(envelope, 1, 'type')[0];
  const contents: Reader = { bytes: readVarOctets(envelope, 'contents'), at: 0 };
  if (envelope.at !== bytes.length) throw new IlpPacketError(`ilpPacket has ${bytes.length - envelope.at} bytes after its contents`);
  if (type === TYPE_ILPV1_PAYMENT) return readPayment(contents);
  if (type === TYPE_ILPV4_PREPARE) return readPrepare(contents);
  throw new IlpPacketError(`ilpPacket type ${type} is neither an ILPv1 payment (1) nor an ILPv4 prepare (12)`);
}

// FSPIOP's request signature (the Signature document, v1.1): the FSPIOP-Signature header is the
// JSON {"signature", "protectedHeader"}; protectedHeader is base64url of a JWS header naming the
// algorithm and, protected with the body, FSPIOP-URI, FSPIOP-HTTP-Method, FSPIOP-Source,
// FSPIOP-Destination (when known) and Date; the signature is RS256 over
// `${protectedHeader}.${base64url(body)}`, a detached JWS.
//
// We sign and verify the body's bytes as they go over the wire. Mojaloop's reference verifier
// (sdk-standard-components JwsValidator) checks the signature against JSON.stringify of the
// parsed body instead (insertion order, not sorted keys), so a body that is not in that form
// (spaces, "\u00e9", 1.0, integer-like keys not first) fails there though its signature is
// valid; we do not repeat that. A body sent as JSON.stringify wrote it verifies there too.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { fspiopUri, headerValue } from './headers.ts';

type HeaderBag = Record<string, string | string[] | undefined>;
type Key = string | KeyObject;

/** What the Signature document allows (§3.3 3a); we sign with RS256, the reference's choice. */
const HASH_OF: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };
/** What every protected header must hold (§3.3 3c–3e). */
const REQUIRED_PARAMS = ['FSPIOP-URI', 'FSPIOP-HTTP-Method', 'FSPIOP-Source'];
/** Registered JWS parameters that name no HTTP header; `crit` and `b64` are refused (we implement no extension). */
const JOSE_PARAMS = new Set(['alg', 'typ', 'cty', 'kid', 'jku', 'jwk', 'x5u', 'x5c', 'x5t', 'x5t#S256']);
const MIN_RSA_BITS = 2048;

export interface SignInput {
  method: string;
  /** The request URL or path; FSPIOP-URI is its path and query from the service on. */
  uri: string;
  /** The headers we send: FSPIOP-Source and Date are signed, FSPIOP-Destination when present. */
  headers: HeaderBag;
  /** The exact bytes (or text, sent as UTF-8) of the body we send. */
  body: string | Uint8Array;
  privateKeyPem: Key;
}

function b64url(data: string | Uint8Array): string {
  return (typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data)).toString('base64url');
}

function signingInput(protectedHeader: string, body: string | Uint8Array): Buffer {
  return Buffer.from(`${protectedHeader}.${b64url(body)}`, 'ascii');
}

/** The JWS protected header of a request we send, in the reference's parameter order. */
function protectedHeaderOf(input: SignInput): Record<string, string> {
  const uri = fspiopUri(input.uri);
  if (!uri) throw new Error(`no FSPIOP resource in the URI ${input.uri}`);
  const source = headerValue(input.headers, 'fspiop-source');
  const date = headerValue(input.headers, 'date');
  if (!source || !date) throw new Error('a signed request needs its FSPIOP-Source and Date headers');
  const header: Record<string, string> = { alg: 'RS256', 'FSPIOP-URI': uri, 'FSPIOP-HTTP-Method': input.method.toUpperCase(), 'FSPIOP-Source': source };
  const destination = headerValue(input.headers, 'fspiop-destination');
  if (destination) header['FSPIOP-Destination'] = destination;
  header.Date = date;
  return header;
}

/** The FSPIOP-Signature header value for a request we send. Throws for a key that is not RSA of 2048 bits or more. */
export function signRequest(input: SignInput): string {
  const key = typeof input.privateKeyPem === 'string' ? createPrivateKey(input.privateKeyPem) : input.privateKeyPem;
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    throw new Error(`FSPIOP signatures need an RSA key of ${MIN_RSA_BITS} bits or more`);
  }
  const protectedHeader = b64url(JSON.stringify(protectedHeaderOf(input)));
  const signature = sign('sha256', signingInput(protectedHeader, input.body), key).toString('base64url');
  return JSON.stringify({ signature, protectedHeader });
}

/**
 * The three headers a signed request carries. The reference verifier (and so the switch's
 * SDK-based peers) wants FSPIOP-URI and FSPIOP-HTTP-Method as HTTP headers too, beside the signature.
 */
export function signatureHeaders(input: SignInput): Record<string, string> {
  return {
    'fspiop-uri': fspiopUri(input.uri) ?? '',
    'fspiop-http-method': input.method.toUpperCase(),
    'fspiop-signature': signRequest(input),
  };
}

export interface VerifyInput {
  method: string;
  /** The request's URL as received (req.url): path and query, our mount point included or not. */
  uri: string;
  headers: HeaderBag;
  /** The body's bytes as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** Senders' public keys (PEM or KeyObject) by fspId; or publicKeyPem, the key the caller chose for FSPIOP-Source. */
  publicKeys?: Record<string, Key | undefined> | ((fspId: string) => Key | undefined);
  publicKeyPem?: Key;
}

export type VerifyResult = { ok: true; source: string } | { ok: false; errorCode: '3102' | '3105'; reason: string };

const refuse = (reason: string, errorCode: '3102' | '3105' = '3105'): VerifyResult => ({ ok: false, errorCode, reason });

interface SignatureParts {
  protectedHeader: string;
  signature: string;
  params: Record<string, unknown>;
}

/** FSPIOP-Signature's JSON and the protected header it carries; a reason when malformed. */
function parseSignature(value: string): SignatureParts | string {
  let outer: unknown;
  try {
    outer = JSON.parse(value);
  } catch {
    return 'FSPIOP-Signature is not JSON';
  }
  const { protectedHeader, signature } = (typeof outer === 'object' && outer !== null ? outer : {}) as Record<string, unknown>;
  if (typeof protectedHeader !== 'string' || !/^[A-Za-z0-9_-]{1,32768}$/.test(protectedHeader)) return 'FSPIOP-Signature has no base64url protectedHeader';
  if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{1,512}$/.test(signature)) return 'FSPIOP-Signature has no base64url signature';
  let params: unknown;
  try {
    params = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(protectedHeader, 'base64url')));
  } catch {
    return 'the protected header is not base64url of UTF-8 JSON';
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'the protected header is not a JSON object';
  return { protectedHeader, signature, params: params as Record<string, unknown> };
}

function publicKeyFor(input: VerifyInput, fspId: string): KeyObject | undefined {
  const keys = input.publicKeys ?? {};
  const key = input.publicKeyPem ?? (typeof keys === 'function' ? keys(fspId) : Object.hasOwn(keys, fspId) ? keys[fspId] : undefined);
  if (key === undefined) return undefined;
  return typeof key === 'string' ? createPublicKey(key) : key;
}

/** Each protected element against the request (§3.3 3c–3g); the first mismatch. */
function mismatch(params: Record<string, unknown>, input: VerifyInput): string | undefined {
  const uri = fspiopUri(input.uri);
  if (params['FSPIOP-URI'] !== uri) return `FSPIOP-URI ${JSON.stringify(params['FSPIOP-URI'])} is not the request's ${JSON.stringify(uri)}`;
  if (params['FSPIOP-HTTP-Method'] !== input.method.toUpperCase()) return `FSPIOP-HTTP-Method ${JSON.stringify(params['FSPIOP-HTTP-Method'])} is not the request's ${input.method.toUpperCase()}`;
  for (const [name, value] of Object.entries(params)) {
    if (JOSE_PARAMS.has(name)) continue;
    if (name === 'crit' || name === 'b64') return `the protected header uses "${name}", which we do not implement`;
    const actual = headerValue(input.headers, name);
    // FSPIOP-URI and FSPIOP-HTTP-Method were checked against the request itself; their HTTP headers are optional.
    if (actual === undefined && (name === 'FSPIOP-URI' || name === 'FSPIOP-HTTP-Method')) continue;
    if (typeof value !== 'string' || actual !== value) return `${name} ${JSON.stringify(value)} in the protected header is not the request's ${JSON.stringify(actual ?? null)}`;
  }
  return undefined;
}

/**
 * Verifies an inbound request's FSPIOP-Signature over its raw body: the algorithm, the sender's
 * key (by FSPIOP-Source), the signature, then every protected element against the request.
 * FSPIOP-Destination and Date are compared when protected, as the document says: a switch may
 * set FSPIOP-Destination on the way.
 */
export function verifyRequest(input: VerifyInput): VerifyResult {
  const value = headerValue(input.headers, 'fspiop-signature');
  // 3105, not 3102: where signatures are required, an unsigned message is one whose signature
  // fails (the switch's and Mojaloop's SDK answer it so).
  if (!value) return refuse('FSPIOP-Signature header is missing');
  const parts = parseSignature(value);
  if (typeof parts === 'string') return refuse(parts);
  const alg = parts.params.alg;
  const hash = typeof alg === 'string' && Object.hasOwn(HASH_OF, alg) ? HASH_OF[alg] : undefined;
  if (!hash) return refuse('alg must be RS256, RS384 or RS512');
  const source = headerValue(input.headers, 'fspiop-source');
  if (!source) return refuse('FSPIOP-Source header is missing', '3102');
  for (const name of REQUIRED_PARAMS) if (parts.params[name] === undefined) return refuse(`the protected header has no ${name}`);
  let key: KeyObject | undefined;
  try {
    key = publicKeyFor(input, source);
  } catch {
    return refuse(`the public key of ${source} is not a usable key`);
  }
  if (!key) return refuse(`no public key for FSPIOP-Source ${source}`);
  if (key.asymmetricKeyType !== 'rsa') return refuse(`the public key of ${source} is not an RSA key`);
  const valid = verify(hash, signingInput(parts.protectedHeader, input.rawBody), key, Buffer.from(parts.signature, 'base64url'));
  if (!valid) return refuse(`the signature does not verify with the key of ${source}`);
  const problem = mismatch(parts.params, input);
  return problem ? refuse(problem) : { ok: true, source };
}

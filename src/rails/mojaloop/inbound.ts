// The gate every FSPIOP message passes before it may move money: a request's Accept names a
// version we speak (its callback's), the content type names the route's resource in a version we speak; date and fspiop-source are there; fspiop-destination,
// when present, is us; with senders' keys configured, the JWS signature over the raw bytes is the
// sender's; the body is JSON that the API's schema accepts. Each failure has the spec's error code
// (errors.ts) and changes nothing.
import type { IncomingHttpHeaders } from 'node:http';
import sjson from 'secure-json-parse';
import { acceptedVersion, parseContentType, type FspiopVersion, type Resource } from './headers.ts';
import { verifyRequest } from './jws.ts';
import type { MojaloopContext } from './types.ts';
import { validate, type BodyKind } from './schemas.ts';

/** The body's kind; 'none' for a GET, which has none. */
export type InboundKind = BodyKind | 'none';

export interface InboundMessage {
  ctx: MojaloopContext;
  method: string;
  /** The path below /fspiop, as the sender signed it. */
  path: string;
  resource: Resource;
  kind: InboundKind;
  headers: IncomingHttpHeaders;
  rawBody: unknown;
}

export type Checked =
  /** version: the one to call back in (a request's Accept; a callback's own Content-Type). */
  | { ok: true; source: string; body: unknown; version: FspiopVersion }
  | { ok: false; httpStatus: number; errorCode: string; description: string; body?: unknown };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function refuse(errorCode: string, description: string, httpStatus = 400, body?: unknown): Checked {
  return { ok: false, httpStatus, errorCode, description, body };
}

export function checkInbound(message: InboundMessage): Checked {
  const { ctx, headers } = message;
  // A request (GET, POST) is answered by a callback in the version its Accept asks for (§3.3.4).
  const isRequest = message.method === 'GET' || message.method === 'POST';
  const accept = isRequest ? acceptedVersion(header(headers, 'accept'), message.resource) : undefined;
  if (accept && !accept.ok) return refuse(accept.errorCode, accept.reason, accept.errorCode === '3001' ? 406 : 400);
  // FSPIOP's API definition requires Content-Type on every request, a GET's too.
  const contentType = parseContentType(header(headers, 'content-type'), message.resource);
  if (!contentType.ok) return refuse(contentType.errorCode, contentType.reason, contentType.errorCode === '3001' ? 406 : 400);
  const version = accept?.ok ? accept.version : contentType.version;
  const date = header(headers, 'date');
  if (!date) return refuse('3102', 'the date header is missing');
  if (Number.isNaN(Date.parse(date))) return refuse('3101', 'the date header is not an RFC 1123 date');
  const source = header(headers, 'fspiop-source');
  if (!source) return refuse('3102', 'the fspiop-source header is missing');
  const destination = header(headers, 'fspiop-destination');
  if (destination !== undefined && destination !== ctx.config.fspId) return refuse('3201', `fspiop-destination ${destination.slice(0, 40)} is not this DFSP`);
  if (message.kind === 'none') return { ok: true, source, body: undefined, version };
  const raw = Buffer.isBuffer(message.rawBody) ? message.rawBody : Buffer.alloc(0);
  if (ctx.config.jwsPublicKeys) {
    const key = ctx.config.jwsPublicKeys.get(source);
    if (!key) return refuse('3105', `no public key is configured for ${source.slice(0, 40)}`);
    const verdict = verifyRequest({ method: message.method, uri: message.path, headers, rawBody: raw, publicKeyPem: key });
    if (!verdict.ok) return refuse(verdict.errorCode, `invalid signature: ${verdict.reason}`);
  }
  const text = raw.toString('utf8');
  // JSON can carry NUL only escaped; no FSPIOP value holds one, and PostgreSQL's text cannot.
  if (/\\u0000/i.test(text)) return refuse('3101', 'Malformed syntax - the body holds a NUL character');
  let body: unknown;
  try {
    body = sjson.parse(text);
  } catch {
    return refuse('3101', 'the body is not JSON');
  }
  const invalid = validate(message.kind, body, contentType.version);
  if (invalid) return refuse(invalid.errorCode, invalid.description, 400, body);
  return { ok: true, source, body, version };
}

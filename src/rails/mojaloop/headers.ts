// FSPIOP's HTTP headers (API Definition v1.1 §3.2.1, §3.3.4). Every resource has its own media
// type, the API version is a parameter of it: `application/vnd.interoperability.quotes+json;version=1.0`.
// Content-Type names the exact major.minor of the body; Accept (requests only, not callbacks)
// names the versions the client can take back, a major alone meaning "any minor of it".
// The switch (central-services-shared's header validation) wants Content-Type and an RFC 1123
// Date on every request, a GET included, and Accept on every GET.

/** The resources of FSPIOP 1.x: the first path segment of every service. */
export const FSPIOP_RESOURCES = [
  'participants',
  'parties',
  'quotes',
  'transactionRequests',
  'authorizations',
  'transfers',
  'transactions',
  'bulkQuotes',
  'bulkTransfers',
] as const;
export type Resource = (typeof FSPIOP_RESOURCES)[number];

/** The versions we send and accept; 1.1 is backwards-compatible with 1.0 (§3.3.2). */
export const FSPIOP_VERSIONS = ['1.0', '1.1'] as const;
export type FspiopVersion = (typeof FSPIOP_VERSIONS)[number];
const LATEST_VERSION: FspiopVersion = '1.1';

/** What a 406 / 3001 answer lists (Listing 5): the major version as key, the minor as value. */
export const SUPPORTED_VERSION_EXTENSIONS = FSPIOP_VERSIONS.map((v) => ({ key: v.split('.')[0], value: v.split('.')[1] }));

type HeaderBag = Record<string, string | string[] | undefined>;

/** A refusal as the synchronous FSPIOP answer would carry it (errors.ts gives the HTTP status). */
export interface HeaderProblem {
  ok: false;
  errorCode: '3001' | '3101' | '3102';
  reason: string;
}

export function isResource(value: string): value is Resource {
  return (FSPIOP_RESOURCES as readonly string[]).includes(value);
}

function mediaType(resource: Resource): string {
  return `application/vnd.interoperability.${resource}+json`;
}

export function contentType(resource: Resource, version: FspiopVersion = '1.0'): string {
  return `${mediaType(resource)};version=${version}`;
}

/** `version=1` (the default) asks for any 1.x, as §3.3.4.1 recommends; a minor pins it. */
export function accept(resource: Resource, version: '1' | FspiopVersion = '1'): string {
  return `${mediaType(resource)};version=${version}`;
}

/** RFC 1123 (IMF-fixdate), what Date carries: "Tue, 15 Nov 1994 08:12:31 GMT". */
export function httpDate(at: Date): string {
  return at.toUTCString();
}

export interface OutboundHeaderInput {
  resource: Resource;
  /** Our fspId. */
  source: string;
  /** The peer's fspId; left out when unknown (GET /parties), as §3.2.1.1 says. */
  destination?: string;
  date: Date;
  /** The version of the body we send (MOJALOOP_API_VERSION). */
  version?: FspiopVersion;
  /** Requests carry Accept; callbacks (PUT …, PUT …/error) do not (Table 1). */
  kind?: 'request' | 'callback';
}

/** The FSPIOP headers of a request or callback we send, lower-cased as Node reads them. */
export function outboundHeaders(input: OutboundHeaderInput): Record<string, string> {
  const version = input.version ?? '1.0';
  const headers: Record<string, string> = {
    'content-type': contentType(input.resource, version),
    date: httpDate(input.date),
    'fspiop-source': input.source,
  };
  // Any 1.x back: the peer answers in the minor it speaks, and we read both.
  if ((input.kind ?? 'request') === 'request') headers.accept = accept(input.resource);
  if (input.destination) headers['fspiop-destination'] = input.destination;
  return headers;
}

/** A header by name in any case; repeated values joined with ", " as Node joins them. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

interface MediaRange {
  resource: string;
  params: Map<string, string>;
}

/** `application/vnd.interoperability.<resource>+json` and its parameters; undefined for any other type. */
function parseMediaRange(text: string): MediaRange | undefined {
  const [type, ...rawParams] = text.split(';');
  const match = /^application\/vnd\.interoperability\.([A-Za-z]+)\+json$/i.exec(type.trim());
  if (!match) return undefined;
  const params = new Map<string, string>();
  for (const raw of rawParams) {
    const at = raw.indexOf('=');
    if (at < 0) return undefined;
    params.set(raw.slice(0, at).trim().toLowerCase(), raw.slice(at + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  // Media subtypes are case-insensitive (RFC 9110 §8.3.1): `bulkquotes` is bulkQuotes.
  const resource = FSPIOP_RESOURCES.find((r) => r.toLowerCase() === match[1].toLowerCase()) ?? match[1];
  return { resource, params };
}

export type ParsedContentType = { ok: true; resource: Resource; version: FspiopVersion } | HeaderProblem;

/**
 * The resource and version of an inbound body. application/json and other types are not
 * FSPIOP (3101); a well-formed FSPIOP type of a version we do not speak is 3001 (406), as the
 * switch answers it. `expected` is the resource of the request's path.
 */
export function parseContentType(value: string | undefined, expected?: Resource): ParsedContentType {
  if (value === undefined || value.trim() === '') return { ok: false, errorCode: '3102', reason: 'Missing mandatory element - the content-type header' };
  const range = parseMediaRange(value);
  if (!range || !isResource(range.resource)) return { ok: false, errorCode: '3101', reason: `Malformed syntax - the content-type header "${value.slice(0, 80)}" is not an FSPIOP media type` };
  if (expected && range.resource !== expected) return { ok: false, errorCode: '3101', reason: `Malformed syntax - the content-type header names ${range.resource}, the path ${expected}` };
  const version = range.params.get('version');
  if (version === undefined || !/^\d+\.\d+$/.test(version)) return { ok: false, errorCode: '3101', reason: 'Malformed syntax - the content-type header needs version=<major>.<minor>' };
  if (!(FSPIOP_VERSIONS as readonly string[]).includes(version)) return { ok: false, errorCode: '3001', reason: `version ${version} is not supported` };
  return { ok: true, resource: range.resource, version: version as FspiopVersion };
}

export type AcceptedVersion = { ok: true; version: FspiopVersion } | HeaderProblem;

/** A version we speak for one Accept entry's version parameter; absent means "the latest you have". */
function versionFor(requested: string | undefined): FspiopVersion | undefined {
  if (requested === undefined) return LATEST_VERSION;
  if (/^1$/.test(requested)) return LATEST_VERSION;
  return (FSPIOP_VERSIONS as readonly string[]).includes(requested) ? (requested as FspiopVersion) : undefined;
}

/**
 * The version to answer an inbound request's callback in (§3.3.4): the first entry of Accept,
 * in the client's order, that we speak. None is 3001 (406, with SUPPORTED_VERSION_EXTENSIONS).
 */
export function acceptedVersion(value: string | undefined, resource: Resource): AcceptedVersion {
  if (value === undefined || value.trim() === '') return { ok: false, errorCode: '3102', reason: 'Missing mandatory element - the accept header' };
  let sawOurType = false;
  for (const entry of value.split(',')) {
    const range = parseMediaRange(entry);
    if (!range || range.resource !== resource) continue;
    sawOurType = true;
    const version = versionFor(range.params.get('version'));
    if (version) return { ok: true, version };
  }
  if (!sawOurType) return { ok: false, errorCode: '3101', reason: `Malformed syntax - the accept header does not name ${mediaType(resource)}` };
  return { ok: false, errorCode: '3001', reason: 'Unacceptable version requested - none of the versions in the accept header is supported' };
}

/** The first path segments of the services: where FSPIOP-URI starts (Table 1). */
const RESOURCE_SEGMENT = new RegExp(`/(?:${FSPIOP_RESOURCES.join('|')})(?=[/?]|$)`);

/**
 * FSPIOP-URI for a request URL or path: its path and query from the service on (Table 1: for
 * `http://host/payerfsp/participants/MSISDN/123` it is `/participants/MSISDN/123`; the
 * Signature document: "the URI path and query parameters"). Our own mount point (`/fspiop`) or
 * the switch's base path is dropped. Undefined when no FSPIOP resource is in the path.
 */
export function fspiopUri(urlOrPath: string): string | undefined {
  // The text as it is, not re-encoded through URL: the signer hashed the characters it sent.
  const pathAndQuery = urlOrPath.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/#.*$/s, '');
  const path = pathAndQuery.split('?')[0];
  // The first resource segment, not the last: a party called "quotes" stays in the path.
  const match = RESOURCE_SEGMENT.exec(path);
  return match ? pathAndQuery.slice(match.index) : undefined;
}

// multipart/form-data for the console's one upload form (payouts/routes/uploads.ts): the console's scope
// parses urlencoded forms only, and this reads the one route that takes a file. A plain <form
// enctype="multipart/form-data"> posts it without JavaScript; the upload script sends the same
// form through XMLHttpRequest (FormData), so both arrive here alike.
//
// The body is read into memory up to a limit (the API's own for a batch file: the bytes are then
// handed to the API's reader, files.ts readBatchFile), as Fastify's parsers do for the API's JSON.
// A body over the limit is not refused half-read: browsers show "connection reset" rather than
// the answer when the server stops reading an upload, so the rest is read and dropped (up to a
// second bound, beyond which the connection is closed) and the route answers a page that says
// the file is too large. The parts before the file (the CSRF token and the form key come first in
// the form) are kept either way.
import type { Readable } from 'node:stream';

export interface UploadedFile {
  /** The form field's name. */
  field: string;
  /** As the browser sent it (path dropped), at most MAX_FILENAME_LENGTH characters. */
  filename: string;
  contentType: string;
  /** A view of the body: no copy. */
  bytes: Buffer;
}

export interface MultipartBody {
  /** The text fields (the first of each name). */
  fields: Record<string, string>;
  file?: UploadedFile;
  /** The body was over the limit: the file (and anything after it) was dropped. */
  tooLarge: boolean;
}

export interface MultipartLimits {
  /** Bytes of body kept; more is read and dropped. */
  keepBytes: number;
  /** Bytes read at most; past this the request fails (413) and the connection is closed. */
  drainBytes: number;
}

/** Parts in one form: the upload form has five. */
const MAX_PARTS = 20;
/** One text field (a CSRF token, a form key, a date): far less. */
const MAX_FIELD_BYTES = 4096;
const MAX_HEADER_BYTES = 8192;
const MAX_FILENAME_LENGTH = 255;

/** A malformed body: 400, as Fastify answers a body its parser refuses. */
export class MultipartError extends Error {
  readonly statusCode: number;
  constructor(message: string, statusCode = 400) {
    super(message);
    this.statusCode = statusCode;
  }
}

/** The boundary of a multipart/form-data content type (RFC 2046: 1–70 characters). */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;,"]{1,70}))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]) : undefined;
}

/** A Content-Disposition parameter; browsers escape " and line ends in names as %22, %0D, %0A (HTML's form encoding). */
function parameter(disposition: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(disposition);
  return match?.[1].replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
}

function headersOf(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/**
 * Parses a multipart/form-data body. `truncated`: the body was cut at the keep limit, so the last
 * part may be incomplete (it is dropped, with everything after it). At most one file part.
 */
export function parseMultipart(body: Buffer, boundary: string, truncated = false): MultipartBody {
  const dashes = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let file: UploadedFile | undefined;
  let tooLarge = truncated;

  // The first boundary starts the body, or follows a preamble and its line end.
  let at: number;
  if (body.subarray(0, dashes.length).equals(dashes)) at = dashes.length;
  else {
    const first = body.indexOf(delimiter);
    if (first === -1) throw new MultipartError('not a multipart body: no boundary');
    at = first + delimiter.length;
  }
  for (let parts = 0; ; parts++) {
    // After a boundary: "--" ends the body; else (transport padding) CRLF, then a part.
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break;
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (at >= body.length) {
      if (truncated) break;
      throw new MultipartError('the multipart body ends without its closing boundary');
    }
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) throw new MultipartError('a multipart boundary is not followed by a line end');
    at += 2;
    if (parts >= MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} parts`);
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd === -1 || headerEnd - at > MAX_HEADER_BYTES) {
      if (truncated && headerEnd === -1) break;
      throw new MultipartError('a part has no end to its headers');
    }
    const headers = headersOf(body.subarray(at, headerEnd).toString('utf8'));
    const start = headerEnd + 4;
    const next = body.indexOf(delimiter, start);
    const disposition = headers.get('content-disposition') ?? '';
    const name = parameter(disposition, 'name');
    if (!/^form-data\b/i.test(disposition) || name === undefined) throw new MultipartError('a part is not a form field');
    const filename = parameter(disposition, 'filename');
    if (next === -1) {
      // The last part was cut at the keep limit (or the closing boundary is missing).
      if (!truncated) throw new MultipartError('the multipart body ends without its closing boundary');
      if (filename !== undefined) tooLarge = true;
      break;
    }
    const content = body.subarray(start, next);
    if (filename !== undefined) {
      if (file) throw new MultipartError('more than one file');
      file = {
        field: name,
        filename: (filename.split(/[/\\]/).pop() ?? '').slice(0, MAX_FILENAME_LENGTH),
        contentType: headers.get('content-type') ?? 'application/octet-stream',
        bytes: content,
      };
    } else {
      if (content.length > MAX_FIELD_BYTES) throw new MultipartError(`the field ${name.slice(0, 40)} is too long`);
      if (!(name in fields)) fields[name] = content.toString('utf8');
    }
    at = next + delimiter.length;
  }
  // Text fields as a plain object (formField reads it like a parsed urlencoded form).
  return { fields: Object.fromEntries(Object.entries(fields)), file: tooLarge ? undefined : file, tooLarge };
}

/**
 * Reads the request body stream under `limits` and parses it. Declared larger than drainBytes:
 * refused at once (413), before anything is read.
 */
export async function readMultipart(payload: Readable, contentType: string | undefined, contentLength: string | undefined, limits: MultipartLimits): Promise<MultipartBody> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new MultipartError('multipart/form-data without a boundary');
  const declared = Number(contentLength);
  if (Number.isFinite(declared) && declared > limits.drainBytes) throw new MultipartError('the body is too large', 413);
  const chunks: Buffer[] = [];
  let kept = 0;
  let received = 0;
  for await (const chunk of payload as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limits.drainBytes) {
      payload.destroy();
      throw new MultipartError('the body is too large', 413);
    }
    if (kept < limits.keepBytes) {
      const part = chunk.length <= limits.keepBytes - kept ? chunk : chunk.subarray(0, limits.keepBytes - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  return parseMultipart(Buffer.concat(chunks, kept), boundary, received > kept);
}

// The JSON body parser: Fastify's own, with a fast path. Fastify parses with secure-json-parse,
// which refuses (400) a body with a "__proto__" key, or a "constructor" key holding "prototype".
// After JSON.parse it scans the whole text with two regular expressions that try every quote
// mark: 13 ms of a 13 MB E8 batch, as long as the parse itself. A text that cannot hold either
// key gets the same answer from JSON.parse alone (see plainJson). Any other text, or one
// JSON.parse refuses, goes to Fastify's parser, which answers exactly as before.
import type { FastifyRequest } from 'fastify';
import type { App } from './types.ts';

/**
 * True when secure-json-parse's checks cannot refuse `text`. They refuse an object with an own
 * "__proto__" key, or with a "constructor" key whose value has an own "prototype" key. Without a
 * \u escape, JSON spells a key only literally, so a text with no `\u`, no `__proto__` and no
 * `prototype"` can hold neither. Each search starts from a character that is rare in JSON (\, _,
 * y): 3 ms in all on a 13 MB batch, where searching for the quoted keys took 17 (a quote mark or
 * a "c" is found everywhere, and each one found is tried).
 */
export function plainJson(text: string): boolean {
  return text.length > 0 && !text.includes('\\u') && !text.includes('__proto__') && !hasPrototypeKey(text);
}

function hasPrototypeKey(text: string): boolean {
  for (let at = text.indexOf('ype"'); at !== -1; at = text.indexOf('ype"', at + 4)) {
    if (text.startsWith('prototype"', at - 6)) return true;
  }
  return false;
}

/** Bodies at least this long are parsed one event-loop turn after they arrive. */
const DEFER_PARSE_CHARS = 1 << 20;

export function registerJsonParser(app: App): void {
  const standard = app.getDefaultJsonParser('error', 'error');
  const parse = (request: FastifyRequest, text: string, done: (err: Error | null, body?: unknown) => void) => {
    if (!plainJson(text)) return standard(request, text, done);
    let value: unknown;
    try {
      // A leading byte-order mark, as secure-json-parse allows.
      value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      return standard(request, text, done);
    }
    done(null, value);
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Parsing holds the event loop (a 13 MB E8 batch: ~25 ms). Writes queued while the body
    // arrived (its copy into the database, upload.ts) go out first, so that the database takes
    // them in during the parse rather than after it.
    if (text.length >= DEFER_PARSE_CHARS) setImmediate(parse, request, text, done);
    else parse(request, text, done);
  });
}

// Fastify never parses a body on GET. A few gateway operations document their input as a JSON
// body on a GET (E2), so such routes read it here: bounded, parsed safely, and merged into the
// query, where the route's query schema validates it like any query parameter.
import type { FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from './errors.ts';

const MAX_GET_BODY_BYTES = 4096;

async function readBody(request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > MAX_GET_BODY_BYTES) throw new AppError('tooLarge', 'detail.tooLarge', { limit: MAX_GET_BODY_BYTES });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** preValidation hook: body fields fill in query parameters the query does not already have. */
export async function mergeGetBodyIntoQuery(request: FastifyRequest): Promise<void> {
  const length = Number(request.headers['content-length'] ?? 0);
  if (!(length > 0) && request.headers['transfer-encoding'] === undefined) return;
  const text = (await readBody(request)).trim();
  if (text === '') return;
  let body: unknown;
  try {
    body = sjson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch {
    throw new AppError('validation', 'detail.badJson');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('validation', 'detail.badJson');
  const query = request.query as Record<string, unknown>;
  const present = new Set(Object.keys(query).map((k) => k.toLowerCase()));
  for (const [key, value] of Object.entries(body)) {
    if (!present.has(key.toLowerCase()) && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')) query[key] = value;
  }
  request.routeOptions.config.normalize?.query?.(query);
}

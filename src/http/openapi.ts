// The OpenAPI document as generators and linters want it (issue 30), made from the routes' own
// schemas by @fastify/swagger's two hooks. Only the document changes here; what a route validates
// and serialises at run time stays its own schema (pipeline.ts describeRoute).
//   documentRoute   each operation: its error statuses one by one, each with a problem+json
//                   example and a $ref to the one Problem schema (at run time a route answers
//                   them through its 4xx/5xx schemas); X-Idempotency-Key with its pattern.
//   finishDocument  the whole document: an operationId on every operation, the tags declared,
//                   servers and contact.
import type { FastifySchema, RouteOptions } from 'fastify';
import { createHash } from 'node:crypto';
import { errorStatuses, exampleProblem, PROBLEM_INTRO, TAGS, type ErrorStatus, type RouteTraits } from './docs.ts';
import { ERRORS } from './errors.ts';
import { exampleOf } from './example-values.ts';
import { ProblemSchema } from './schemas.ts';
import type { AuthMode } from './types.ts';

/** The key's rule (product.md §4), which the pipeline checks with its own message. */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9-]{15,80}$';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };


interface TransformInput {
  schema: FastifySchema & { response?: Record<string, unknown>; headers?: unknown; hide?: boolean };
  url: string;
  route?: RouteOptions;
}

/** @fastify/swagger's per-route transform: the document's view of one operation. */
export function documentRoute({ schema, url, route }: TransformInput): { schema: FastifySchema; url: string } {
  if (!route || schema.hide) return { schema, url };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const traits: RouteTraits = {
    method: String(methods[0]).toUpperCase(),
    auth: (route.config as { auth?: AuthMode } | undefined)?.auth ?? 'none',
    idempotent: (route.config as { idempotent?: boolean } | undefined)?.idempotent === true,
    body: schema.body !== undefined,
    merchantApi: url.startsWith('/sandbox/') || url.startsWith('/live/'),
    url,
  };
  const response: Record<string, unknown> = {};
  for (const [status, value] of Object.entries(schema.response ?? {})) if (status !== '4xx' && status !== '5xx') response[status] = value;
  // One entry per status (errorStatuses lists each once); a route's own response for it stays.
  for (const e of errorStatuses(traits)) response[String(e.status)] ??= { $ref: `#/components/responses/${sharedResponse(e)}` };
  return {
    schema: {
      ...schema,
      ...(schema.body ? { body: oneOfFields(defaultedOptional(schema.body), { asAnyOf: true }) } : {}),
      // Query parameters are listed one by one in the document: no anyOf there (the description says it).
      ...(schema.querystring ? { querystring: oneOfFields(defaultedOptional(schema.querystring), { asAnyOf: false }) } : {}),
      response,
      ...(traits.idempotent ? { headers: withKeyPattern(schema.headers) } : {}),
    },
    url,
  };
}

/**
 * The error responses, each said once in components.responses and referred to by every operation
 * that can answer it: Status<code>, and where a status says something else on some routes (an
 * operator route's 401 and 404), the other wording gets a hash of itself. Filled while the routes
 * are described, read by finishDocument.
 */
const sharedResponses = new Map<string, { description: string; content: object }>();

function sharedResponse(e: ErrorStatus): string {
  const description = `${PROBLEM_INTRO}\n\n${e.line}`;
  const existing = [...sharedResponses].find(([, r]) => r.description === description);
  if (existing) return existing[0];
  const plain = `Status${e.status}`;
  const name = sharedResponses.has(plain) ? `${plain}_${createHash('sha256').update(e.line).digest('hex').slice(0, 6)}` : plain;
  sharedResponses.set(name, { description, content: { 'application/problem+json': { schema: PROBLEM_REF, example: exampleProblem(e.kind, '/sandbox/v1/…') } } });
  return name;
}

/**
 * A request's fields that the server fills when absent (a `default`: pageNumber,
 * numberOfReturnedRows, isIncremental…) are optional for the caller, whatever the route's schema
 * requires after defaults are applied: a generated client must not demand them.
 */
function defaultedOptional(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(defaultedOptional);
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' || typeof v === 'object' ? defaultedOptional(v) : v]));
  if (s.properties && Array.isArray(s.required)) {
    const required = s.required.filter((name) => s.properties![name]?.default === undefined);
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  return copy;
}

/**
 * A body that takes one of several fields (`x-one-of-fields`: webhookId or eventCode, headerId or
 * batchNumber), as anyOf of each field required, so that a generated client's types ask for one.
 */
function oneOfFields(schema: unknown, options: { asAnyOf: boolean }): unknown {
  const s = schema as Record<string, unknown> | undefined;
  const fields = s?.['x-one-of-fields'] as string[] | undefined;
  if (!s || !fields) return schema;
  const { 'x-one-of-fields': _marker, ...rest } = s;
  return options.asAnyOf ? { ...rest, anyOf: fields.map((field) => ({ required: [field] })) } : rest;
}

function withKeyPattern(headers: unknown): unknown {
  const h = headers as { properties?: Record<string, object> } | undefined;
  const key = h?.properties?.['x-idempotency-key'];
  if (!key) return headers;
  return { ...h, properties: { ...h.properties, 'x-idempotency-key': { ...key, pattern: IDEMPOTENCY_KEY_PATTERN, minLength: 15, maxLength: 80 } } };
}

type OperationResponse = { $ref?: string; content?: Record<string, { schema?: unknown }> };
type Media = { schema?: unknown; example?: unknown; examples?: unknown };
type Operation = { operationId?: string; requestBody?: { content: Record<string, Media> }; responses?: Record<string, OperationResponse> };
type OpenApiDocument = { paths?: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown>; headers?: Record<string, unknown> }; [key: string]: unknown };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * An operation's id from its path, stable while the path stays: the segments after the API's
 * prefix in camel case (`/sandbox/v1/disbursements/batch/getBatches` → disbursementsBatchGetBatches;
 * /live/v1 and /admin/v1 lead with live and admin; a path parameter reads By<Name>). Where one
 * path takes several methods, POST (the gateway's usual one) keeps the name and the others add
 * theirs (merchantsWebhooksGet, merchantsWebhooksGetByGet).
 */
export function operationIdFor(path: string, method: string, methodsOnPath: readonly string[]): string {
  const prefix = /^\/(sandbox|live|admin)\/v1(?=\/|$)/.exec(path);
  const rest = prefix ? path.slice(prefix[0].length) : path;
  const words = [prefix && prefix[1] !== 'sandbox' ? prefix[1] : undefined, ...rest.split('/').filter(Boolean).map((s) => (/^\{.+\}$/.test(s) ? `By${capital(s.slice(1, -1))}` : s))]
    .filter((w): w is string => w !== undefined)
    .map((w) => w.replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase()));
  const base = words.map((w, i) => (i === 0 ? w[0].toLowerCase() + w.slice(1) : capital(w))).join('');
  const keeper = methodsOnPath.includes('post') ? 'post' : methodsOnPath[0];
  return methodsOnPath.length > 1 && method !== keeper ? `${base}By${capital(method)}` : base;
}

const capital = (w: string) => w[0].toUpperCase() + w.slice(1);

/**
 * @fastify/swagger reads every response a route declares as a schema, so a shared response's
 * $ref arrives wrapped as a JSON body's schema: unwrapped here into the response's own $ref.
 */
function unwrapSharedResponses(responses: Operation['responses']): Operation['responses'] {
  if (!responses) return responses;
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const ref = (response.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref;
      return [status, ref?.startsWith('#/components/responses/') ? { $ref: ref } : { ...response, content: problemByRef(response.content) }];
    }),
  );
}

const PROBLEM_KEYS = Object.keys(ProblemSchema.properties).sort().join();

/** A route's own problem response (the operator-only 403s) names the one Problem schema too; its example stays. */
function problemByRef(content: OperationResponse['content']): OperationResponse['content'] {
  if (!content) return content;
  return Object.fromEntries(
    Object.entries(content).map(([type, media]) => {
      const schema = media.schema as { properties?: object; examples?: unknown[] } | undefined;
      if (!schema?.properties || Object.keys(schema.properties).sort().join() !== PROBLEM_KEYS) return [type, media];
      return [type, { ...media, schema: PROBLEM_REF, ...(schema.examples?.length ? { example: schema.examples[0] } : {}) }];
    }),
  );
}

/** A JSON request body without an example of its route's gets one assembled from its schema. */
function withRequestExample(op: Operation): Pick<Operation, 'requestBody'> {
  const media = op.requestBody?.content['application/json'];
  if (!op.requestBody || !media || media.example !== undefined || media.examples || (media.schema as { examples?: unknown[] } | undefined)?.examples?.length) return {};
  const example = exampleOf(media.schema as never);
  return example === undefined ? {} : { requestBody: { ...op.requestBody, content: { ...op.requestBody.content, 'application/json': { ...media, example } } } };
}

/** Each success's JSON body gets an example where its route gave none (http/example-values.ts). */
function withSuccessExamples(responses: Operation['responses']): Operation['responses'] {
  if (!responses) return responses;
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if (!status.startsWith('2')) return [status, response];
      const headers = sharedHeaders((response as { headers?: Record<string, unknown> }).headers);
      if (!response.content) return [status, { ...response, ...(headers ? { headers } : {}) }];
      const content = Object.fromEntries(
        Object.entries(response.content).map(([type, media]) => {
          const m = media as { schema?: { examples?: unknown[] }; example?: unknown };
          if (m.example !== undefined || m.schema?.examples?.length) return [type, media];
          const example = exampleOf(m.schema as never);
          return [type, example === undefined ? media : { ...media, example }];
        }),
      );
      return [status, { ...response, ...(headers ? { headers } : {}), content }];
    }),
  );
}

/**
 * The headers every success carries (x-request-id, the rate limit's, idempotent-replayed: http/docs.ts
 * successResponseHeaders), said once in components.headers and referred to by $ref.
 */
const SHARED_HEADERS: Record<string, string> = { 'x-request-id': 'RequestId', 'x-ratelimit-limit': 'RateLimitLimit', 'x-ratelimit-remaining': 'RateLimitRemaining', 'x-ratelimit-reset': 'RateLimitReset', 'idempotent-replayed': 'IdempotentReplayed' };
const sharedHeaderDefinitions = new Map<string, unknown>();

function sharedHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  return Object.fromEntries(
    Object.entries(headers).map(([name, header]) => {
      const shared = SHARED_HEADERS[name.toLowerCase()];
      if (!shared) return [name, header];
      sharedHeaderDefinitions.set(shared, header);
      return [name, { $ref: `#/components/headers/${shared}` }];
    }),
  );
}

/**
 * Every object schema with a title (http/schemas.ts named) said once in components.schemas and
 * referred to by $ref wherever it appears. A title met again with other content (a copy changed
 * by a route) stays where it is, inline.
 */
function hoistNamedSchemas(doc: OpenApiDocument): { paths: OpenApiDocument['paths']; schemas: Record<string, unknown> } {
  const schemas: Record<string, unknown> = {};
  const texts = new Map<string, string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const copy = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    const title = (node as { title?: unknown; properties?: unknown }).title;
    if (typeof title !== 'string' || !(node as { properties?: unknown }).properties) return copy;
    const text = JSON.stringify(copy);
    const seen = texts.get(title);
    if (seen === undefined) {
      texts.set(title, text);
      schemas[title] = copy;
    } else if (seen !== text) return copy;
    return { $ref: `#/components/schemas/${title}` };
  };
  return { paths: walk(doc.paths) as OpenApiDocument['paths'], schemas };
}

/** @fastify/swagger's transformObject: what only the whole document can say. */
export function finishDocument(options: {
  servers: Array<{ url: string; description: string }>;
  /** The `webhooks` section: one entry per event a subscription can receive (modules/webhooks/event-schemas.ts). */
  webhooks?: Record<string, object>;
  /** Named schemas the webhooks section refers to. */
  schemas?: Record<string, object>;
}) {
  return ({ openapiObject }: { openapiObject: Partial<OpenApiDocument> }): Partial<OpenApiDocument> => {
    const doc = openapiObject as OpenApiDocument;
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const methods = Object.keys(item).filter((m) => HTTP_METHODS.includes(m));
      // A copy each: a route taking several methods shares one operation object between them.
      for (const method of methods) item[method] = { ...item[method], operationId: item[method].operationId ?? operationIdFor(path, method, methods), responses: withSuccessExamples(unwrapSharedResponses(item[method].responses)), ...withRequestExample(item[method]) };
    }
    const named = hoistNamedSchemas(doc);
    const { $id: _id, ...problem } = ProblemSchema;
    // Every code an error can carry, listed (at run time the field is any string the registry holds).
    const problemSchema = { ...problem, properties: { ...problem.properties, errorCode: { ...problem.properties.errorCode, enum: [...new Set(Object.values(ERRORS).map((e) => e.errorCode))].sort() } } };
    return {
      ...doc,
      components: { ...doc.components, schemas: { ...doc.components?.schemas, ...options.schemas, ...named.schemas, Problem: problemSchema }, responses: Object.fromEntries([...sharedResponses].sort(([a], [b]) => a.localeCompare(b))), headers: Object.fromEntries([...sharedHeaderDefinitions].sort(([a], [b]) => a.localeCompare(b))) },
      paths: named.paths,
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      // No licence: the project has not chosen one, and the document does not make one up (.redocly.yaml).
      info: { ...(doc.info as object), contact: { name: 'The operator of this server' } },
      servers: options.servers,
      tags: TAGS.map((tag) => ({ ...tag })),
    };
  };
}

// What a call can fail with: an answer that is not 2xx (OneKhusaError, from its problem+json), or
// no answer at all (OneKhusaConnectionError); and the Result type of client.safe.
import type { Problem } from './types.js';

/** The longest piece of a non-problem body kept as the error's detail (an HTML error page, say). */
const DETAIL_LIMIT_CHARS = 500;

/** The document's codes, or any other a newer server (or a proxy's page: '') may answer. */
export type ErrorCode = Problem['errorCode'] | (string & {});

type ProblemFields = Omit<Problem, 'errorCode'> & { errorCode: ErrorCode };

/** A non-2xx answer. Its fields are the RFC 9457 problem's; `problem` is the body as received. */
export class OneKhusaError extends Error {
  override readonly name = 'OneKhusaError';
  readonly status: number;
  /** The gateway's code, e.g. E900 validation, E901 credentials, E907 idempotency, E905 rate limit. */
  readonly errorCode: ErrorCode;
  /** One message per invalid field. */
  readonly errors: string[];
  /** Quote it when asking about the request (also the X-Request-Id header). */
  readonly requestId: string;
  readonly detail: string;
  readonly type: string;
  readonly title: string;
  readonly instance: string;
  /** The parsed problem+json body; undefined when the answer was not one (e.g. a proxy's page). */
  readonly problem: Problem | undefined;
  /** The answer's Retry-After in milliseconds, when it had one. */
  readonly retryAfterMs: number | undefined;

  constructor(options: { status: number; problem: Problem | undefined; fallback: ProblemFields; retryAfterMs?: number }) {
    const fields: ProblemFields = options.problem ?? options.fallback;
    super(`${options.status} ${fields.errorCode || fields.title}: ${fields.detail}${fields.requestId ? ` (requestId ${fields.requestId})` : ''}`);
    this.status = options.status;
    this.errorCode = fields.errorCode;
    this.errors = Array.isArray(fields.errors) ? fields.errors : [];
    this.requestId = fields.requestId;
    this.detail = fields.detail;
    this.type = fields.type;
    this.title = fields.title;
    this.instance = fields.instance;
    this.problem = options.problem;
    this.retryAfterMs = options.retryAfterMs;
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).status === 'number' && typeof (value as Problem).errorCode === 'string';
}

/** The error for a non-2xx answer whose body has already been read as text. */
export function errorFromAnswer(options: { response: Response; text: string; retryAfterMs: number | undefined }): OneKhusaError {
  const { response, text } = options;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const requestId = response.headers.get('x-request-id') ?? '';
  const fallback: ProblemFields = {
    type: 'about:blank',
    title: response.statusText || `HTTP ${response.status}`,
    status: response.status,
    errorCode: '',
    detail: text.slice(0, DETAIL_LIMIT_CHARS),
    instance: new URL(response.url || 'http://unknown/').pathname,
    errors: [],
    requestId,
  };
  return new OneKhusaError({ status: response.status, problem: isProblem(parsed) ? parsed : undefined, fallback, retryAfterMs: options.retryAfterMs });
}

/** No answer: the server could not be reached, the connection broke or an attempt timed out, after every retry. */
export class OneKhusaConnectionError extends Error {
  override readonly name = 'OneKhusaConnectionError';
  /** Requests sent (or tried) for the call. */
  readonly attempts: number;

  constructor(options: { message: string; attempts: number; cause: unknown }) {
    super(options.message, { cause: options.cause });
    this.attempts = options.attempts;
  }
}

/** client.safe's answers: a value, or the error that would have been thrown. */
export type Result<T, E = OneKhusaError | OneKhusaConnectionError> = { ok: true; value: T } | { ok: false; error: E };

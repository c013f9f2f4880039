// The one error registry: every error the API can return, its HTTP status, its errorCode and its
// title. Services throw `new AppError('insufficientBalance', {...})`; the error handler turns it
// into RFC 9457 problem+json. No other place decides a status code for an error.
import { t, type Lang, type MessageKey } from './i18n.ts';

interface ErrorKind {
  status: number;
  errorCode: string;
  title: MessageKey;
  /** The slug in the problem `type` URI. */
  slug: string;
}

export const ERRORS = {
  validation: { status: 400, errorCode: 'E900', title: 'title.validation', slug: 'validation-failed' },
  unsupportedMediaType: { status: 415, errorCode: 'E900', title: 'title.unsupportedMediaType', slug: 'unsupported-media-type' },
  unauthorized: { status: 401, errorCode: 'E901', title: 'title.unauthorized', slug: 'unauthorized' },
  forbidden: { status: 403, errorCode: 'E902', title: 'title.forbidden', slug: 'forbidden' },
  notFound: { status: 404, errorCode: 'E903', title: 'title.notFound', slug: 'not-found' },
  rateLimited: { status: 429, errorCode: 'E905', title: 'title.rateLimited', slug: 'rate-limited' },
  // A resource with the same natural key already exists (ours: the gateway does not document it).
  conflict: { status: 409, errorCode: 'E906', title: 'title.conflict', slug: 'conflict' },
  idempotencyMismatch: { status: 409, errorCode: 'E907', title: 'title.idempotency', slug: 'idempotency-key-reused' },
  idempotencyInProgress: { status: 409, errorCode: 'E907', title: 'title.idempotency', slug: 'idempotency-key-in-progress' },
  tooLarge: { status: 413, errorCode: 'E908', title: 'title.tooLarge', slug: 'payload-too-large' },
  // Business rules: 402, one code per rule (E910–E949).
  merchantInactive: { status: 402, errorCode: 'E910', title: 'title.businessRule', slug: 'merchant-inactive' },
  insufficientBalance: { status: 402, errorCode: 'E911', title: 'title.businessRule', slug: 'insufficient-balance' },
  limitExceeded: { status: 402, errorCode: 'E912', title: 'title.businessRule', slug: 'limit-exceeded' },
  connectorInactive: { status: 402, errorCode: 'E913', title: 'title.businessRule', slug: 'connector-inactive' },
  amountOutOfRange: { status: 402, errorCode: 'E914', title: 'title.businessRule', slug: 'amount-out-of-range' },
  balanceTooLarge: { status: 402, errorCode: 'E915', title: 'title.businessRule', slug: 'balance-too-large' },
  invalidState: { status: 402, errorCode: 'E916', title: 'title.businessRule', slug: 'invalid-state' },
  connectorNotAllowed: { status: 402, errorCode: 'E917', title: 'title.businessRule', slug: 'connector-not-allowed' },
  timedAccountExpired: { status: 402, errorCode: 'E920', title: 'title.businessRule', slug: 'timed-account-expired' },
  timedAccountPaid: { status: 402, errorCode: 'E921', title: 'title.businessRule', slug: 'timed-account-already-paid' },
  amountMismatch: { status: 402, errorCode: 'E922', title: 'title.businessRule', slug: 'amount-mismatch' },
  currencyMismatch: { status: 402, errorCode: 'E923', title: 'title.businessRule', slug: 'currency-mismatch' },
  alreadyReversed: { status: 402, errorCode: 'E924', title: 'title.businessRule', slug: 'already-reversed' },
  // The same user may not capture and approve (or review and approve) a batch: product.md §3's
  // own example of 403, with a type URI of its own.
  fourEyes: { status: 403, errorCode: 'E902', title: 'title.forbidden', slug: 'four-eyes' },
  // An operation of the gateway's merchant API that this service gives the operator (creating
  // merchant accounts, their level and status: docs/integrators-guide.md): served at its
  // documented path and refused for a merchant's token, naming the operator's path.
  operatorOnly: { status: 403, errorCode: 'E902', title: 'title.forbidden', slug: 'operator-only' },
  // Another settlement account of the merchant is active (one at a time).
  settlementAccountActive: { status: 402, errorCode: 'E926', title: 'title.businessRule', slug: 'settlement-account-active' },
  // E6: the user has already set a password; there is nothing to invite them to.
  passwordAlreadySet: { status: 402, errorCode: 'E927', title: 'title.businessRule', slug: 'password-already-set' },
  connectorFailed: { status: 424, errorCode: 'E960', title: 'title.connector', slug: 'connector-failed' },
  internal: { status: 500, errorCode: 'E950', title: 'title.internal', slug: 'internal-error' },
  unavailable: { status: 503, errorCode: 'E952', title: 'title.unavailable', slug: 'service-unavailable' },
} as const satisfies Record<string, ErrorKind>;

export type ErrorName = keyof typeof ERRORS;

export const PROBLEM_TYPE_BASE = 'urn:onekhusa-sandbox:problem:';

/** A parameter that is itself a message: rendered in the reader's language with the detail. */
export interface Localized {
  key: MessageKey;
}
export type ErrorParams = Record<string, string | number | Localized>;

export class AppError extends Error {
  readonly kind: ErrorName;
  readonly detailKey: MessageKey | undefined;
  readonly params: ErrorParams;
  /** Field messages, already keyed for translation. */
  readonly fieldErrors: Array<{ key: MessageKey; params: Record<string, string | number> }>;
  readonly headers: Record<string, string>;

  constructor(
    kind: ErrorName,
    detailKey?: MessageKey,
    params: ErrorParams = {},
    options: { fieldErrors?: AppError['fieldErrors']; headers?: Record<string, string> } = {},
  ) {
    super(`${kind}${detailKey ? `: ${detailKey}` : ''}`);
    this.kind = kind;
    this.detailKey = detailKey;
    this.params = params;
    this.fieldErrors = options.fieldErrors ?? [];
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERRORS[this.kind].status;
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  errorCode: string;
  detail: string;
  instance: string;
  errors: string[];
  requestId: string;
}

export function problem(kind: ErrorName, lang: Lang, detail: string, errors: string[], instance: string, requestId: string): Problem {
  const def = ERRORS[kind];
  return {
    type: PROBLEM_TYPE_BASE + def.slug,
    title: t(lang, def.title),
    status: def.status,
    errorCode: def.errorCode,
    detail,
    instance,
    errors,
    requestId,
  };
}

export function problemFromAppError(err: AppError, lang: Lang, instance: string, requestId: string): Problem {
  const params: Record<string, string | number> = { requestId };
  for (const [name, value] of Object.entries(err.params)) params[name] = typeof value === 'object' ? t(lang, value.key) : value;
  const detail = err.detailKey ? t(lang, err.detailKey, params) : t(lang, ERRORS[err.kind].title);
  const errors = err.fieldErrors.map((f) => t(lang, f.key, f.params));
  return problem(err.kind, lang, detail, errors.length ? errors : [detail], instance, requestId);
}

// Every operation's input, answer and options, derived from the generated `operations` type, so
// that a call with the wrong body is a compile error and a new operation needs no code here.
import type { components, operations } from './generated/openapi.js';
import type { operationMeta } from './generated/operations.js';

type Meta = typeof operationMeta;

/** The operationId of every merchant operation, e.g. 'collectionsRequestToPayInitiate'. */
export type OperationId = keyof Meta & keyof operations;

/** Operations that page with pageNumber and numberOfReturnedRows: client.paginate takes them. */
export type PagedOperationId = { [K in OperationId]: Meta[K]['paged'] extends null ? never : K }[OperationId];

/** RFC 9457 problem details, as every non-2xx answer carries them. */
export type Problem = components['schemas']['Problem'];

/** `{}` for what an operation does not have (`never` or an optional `never` in the generated types). */
type Present<T> = [NonNullable<T>] extends [never] ? {} : NonNullable<T>;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

type Parameters<K extends OperationId> = operations[K]['parameters'];

/** One object per call: the JSON body's properties and the query and path parameters together. */
export type Input<K extends OperationId> = Present<JsonContent<NonNullable<operations[K]['requestBody']>>> &
  Present<Parameters<K>['query']> &
  Present<Parameters<K>['path']>;

type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus = 200 | 201 | 202 | 203 | 204;

/** The JSON of the operation's success answer (undefined when it has none). */
export type Output<K extends OperationId> = {
  [S in Extract<keyof Responses<K>, SuccessStatus>]: Responses<K>[S] extends { content: { 'application/json': infer Body } } ? Body : undefined;
}[Extract<keyof Responses<K>, SuccessStatus>];

/** True when the document declares X-Idempotency-Key on the operation. */
export type AcceptsIdempotencyKey<K extends OperationId> = 'x-idempotency-key' extends keyof Present<Parameters<K>['header']> ? true : false;

export interface BaseCallOptions {
  /** Aborts the call, its retries and its waits. */
  signal?: AbortSignal;
  /** Extra request headers; they win over the client's own. */
  headers?: Record<string, string>;
}

export type CallOptions<K extends OperationId> = BaseCallOptions &
  (AcceptsIdempotencyKey<K> extends true
    ? {
        /** 15–80 characters of [A-Za-z0-9-]; one is generated when absent. The same key goes with every retry. */
        idempotencyKey?: string;
      }
    : { idempotencyKey?: never });

/** A call's arguments: the input may be left out when nothing in it is required. */
export type CallArgs<K extends OperationId> = {} extends Input<K> ? [input?: Input<K>, options?: CallOptions<K>] : [input: Input<K>, options?: CallOptions<K>];

type PagingKeys = 'pageNumber' | 'numberOfReturnedRows' | 'isIncremental';

/** A paged list's input: the client sets the page, its size and isIncremental (false) itself. */
export type PageInput<K extends PagedOperationId> = Omit<Input<K>, PagingKeys> & {
  /** The first page to read (default 1). */
  pageNumber?: number;
  /** Items per request (default: the operation's default page size). */
  numberOfReturnedRows?: number;
};

type ItemsKey<K extends PagedOperationId> = Meta[K]['paged'] extends { itemsKey: infer Key extends string } ? Key : never;

/** One item of a paged list's page. */
export type PageItem<K extends PagedOperationId> =
  Output<K> extends readonly (infer Item)[] ? Item : Output<K> extends { [P in ItemsKey<K>]: readonly (infer Item)[] } ? Item : never;

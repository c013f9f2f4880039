// The shape of the generated run-time facts per operation (src/generated/operations.ts).

export interface OperationMeta {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';
  /** Relative to the environment's prefix (/sandbox/v1 or /live/v1). */
  path: string;
  /** false: sent without an access token (getAccessToken itself, the hosted checkout's initiate). */
  auth: boolean;
  /** The operation takes X-Idempotency-Key. */
  idempotent: boolean;
  /** Repeating it changes nothing: GET, the gateway's POST reads (getX) and paged lists. */
  readOnly: boolean;
  /** The operation takes a JSON body. */
  body: boolean;
  /** Input keys sent in the query string and in the path; the rest of the input is the JSON body. */
  query: readonly string[];
  pathParams: readonly string[];
  /** Header parameters besides X-Idempotency-Key (the client fills the account number's). */
  headers: readonly string[];
  /**
   * Paged lists: where a page's items are (null: the answer is the array), the default page size,
   * and whether the list takes isIncremental (true returns every page up to this one).
   */
  paged: { itemsKey: string | null; pageSizeDefault: number; incremental: boolean } | null;
}

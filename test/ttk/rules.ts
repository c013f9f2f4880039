// Deterministic rules for the Mojaloop Testing Toolkit (TTK) playing the switch and the payee DFSP
// for our payer flow. Install them with `ttk.setRules([...])` (test/ttk/harness.ts): the rules a
// test gives come first (the first rule that matches wins), then defaultRules() (a happy path).
//
// How TTK uses them (ml-testing-toolkit 18.13 src/lib/mocking/openApiMockHandler.js and
// openApiRulesEngine.js; conditions are json-rules-engine's):
// - 'response' rules decide the synchronous answer to our request (default: 202 Accepted, no
//   body). A non-2xx answer sends no callback.
// - 'validation' rules are evaluated next: a FIXED_ERROR_CALLBACK sends PUT .../error (the error
//   path of the resource) with the rule's body and headers; NO_CALLBACK sends nothing.
// - otherwise the first matching 'callback' rule: FIXED_CALLBACK sends PUT to the success path
//   with exactly the rule's headers and body (after replacing {$request...}, {$config...},
//   {$environment...}, {$function.generic...}); NO_CALLBACK sends nothing. (Rules may also run
//   scripts; these use none: TTK builds a new vm context for each run, ~4 ms a callback.) No matching rule: no
//   callback at all.
// - On a PUT /quotes/{ID} answering POST /quotes, TTK adds ilpPacket and condition (ILP v1, from
//   the quote request, the callback's transferAmount and expiration, and ILP_SECRET) unless the
//   rule's body has one. On a PUT /transfers/{ID} answering POST /transfers it adds the
//   fulfilment computed from the request's ilpPacket (HMAC-SHA256 keyed with ILP_SECRET, whose
//   SHA-256 is the quote's condition) unless the rule's body has one; answering GET
//   /transfers/{ID} it removes any fulfilment.
//
// Facts a condition can use: method ('get', 'post'), operationPath ('/parties/{Type}/{ID}'),
// path (the real path), pathParams (Type, ID), body (path like 'amount.amount'), headers (lower
// case names), queryParams. Operators: json-rules-engine's (equal, notEqual, in...), TTK's
// (numericEqual, includesString...), and endsWithString (added by test/ttk/preload.cjs, with the
// function {$function.generic.isoInSeconds_<n>}).
// Conditions must be under `all` (TTK reads only that).

export type RuleKind = 'callback' | 'validation' | 'response';

export interface TtkCondition {
  fact: 'method' | 'operationPath' | 'path' | 'pathParams' | 'body' | 'headers' | 'queryParams';
  operator: string;
  value: unknown;
  path?: string;
}

export type TtkEventType = 'FIXED_CALLBACK' | 'MOCK_CALLBACK' | 'NO_CALLBACK' | 'FIXED_ERROR_CALLBACK' | 'MOCK_ERROR_CALLBACK' | 'FIXED_RESPONSE' | 'MOCK_RESPONSE';

export interface TtkRule {
  type: RuleKind;
  version: 1;
  ruleId?: number;
  priority?: number;
  description: string;
  conditions: { all: TtkCondition[] };
  event: {
    method: string | null;
    path: string | null;
    type: TtkEventType;
    params: {
      headers?: Record<string, string>;
      body?: unknown;
      /** FIXED_RESPONSE only: the HTTP status, as a string. */
      statusCode?: string;
      /** Milliseconds TTK waits before sending the callback (or the response). */
      delay?: number;
      scripts?: { exec: string[]; scriptingEngine: 'javascript' | 'postman' };
    };
  };
}

/** What every builder accepts: a delay before TTK sends its answer. */
export interface Timing {
  /** Milliseconds between our request and TTK's callback. */
  delayMs?: number;
}

/** The FSP id of the simulated payee DFSP, in party lookups' answers. */
export const PAYEE_FSP = 'payeefsp';
/** FSPIOP-Source of the errors the switch itself raises (party not found, transfer not found). */
export const SWITCH_FSP = 'switch';

// ---- helpers ----

function rule(type: RuleKind, description: string, all: TtkCondition[], event: TtkRule['event']): TtkRule {
  return { type, version: 1, description, conditions: { all }, event };
}

function operation(method: 'get' | 'post' | 'put', operationPath: string): TtkCondition[] {
  return [
    { fact: 'method', operator: 'equal', value: method },
    { fact: 'operationPath', operator: 'equal', value: operationPath },
  ];
}

/** The callback's headers: the version negotiated for our request, a fresh RFC 1123 date. */
function callbackHeaders(source: string): Record<string, string> {
  return {
    'Content-Type': '{$session.negotiatedContentType}',
    Date: '{$function.generic.curDate}',
    'FSPIOP-Source': source,
    'FSPIOP-Destination': '{$request.headers.fspiop-source}',
  };
}

function delay(timing: Timing | undefined): { delay?: number } {
  return timing?.delayMs ? { delay: timing.delayMs } : {};
}

function errorBody(errorCode: string, errorDescription: string) {
  return { errorInformation: { errorCode, errorDescription } };
}

function errorCallback(description: string, all: TtkCondition[], path: string, source: string, errorCode: string, errorDescription: string, timing?: Timing): TtkRule {
  return rule('validation', description, all, {
    method: 'put',
    path,
    type: 'FIXED_ERROR_CALLBACK',
    params: { headers: callbackHeaders(source), body: errorBody(errorCode, errorDescription), ...delay(timing) },
  });
}

function noCallback(description: string, all: TtkCondition[], path: string): TtkRule {
  return rule('callback', description, all, { method: 'put', path, type: 'NO_CALLBACK', params: {} });
}

/** Now + seconds (ISO 8601) when TTK sends the callback: a function test/ttk/preload.cjs adds.
 * (Not a rule script: TTK builds a new vm context, websocket and event listeners for each script
 * run, about 4 ms more per callback.) */
function isoInSeconds(seconds: number): string {
  return `{$function.generic.isoInSeconds_${Math.round(seconds)}}`;
}

// ---- GET /parties/{Type}/{ID} ----

/** Which lookups a parties rule answers; none given: every lookup. */
export interface PartySelector {
  /** The party identifier, exactly. */
  id?: string;
  /** The end of the party identifier (e.g. '0404' for every MSISDN ending in 0404). */
  idSuffix?: string;
  /** The party identifier type (MSISDN, ACCOUNT_ID...). */
  type?: string;
}

function partyConditions(selector: PartySelector): TtkCondition[] {
  const all = operation('get', '/parties/{Type}/{ID}');
  if (selector.id !== undefined) all.push({ fact: 'pathParams', operator: 'equal', value: selector.id, path: 'ID' });
  if (selector.idSuffix !== undefined) all.push({ fact: 'pathParams', operator: 'endsWithString', value: selector.idSuffix, path: 'ID' });
  if (selector.type !== undefined) all.push({ fact: 'pathParams', operator: 'equal', value: selector.type, path: 'Type' });
  return all;
}

function selected(selector: object): string {
  const parts = Object.entries(selector).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? ` (${parts.join(', ')})` : ' (any)';
}

export interface PartyFoundOptions extends PartySelector, Timing {
  /** party.name; also split into personalInfo.complexName (first word, middle, last word) unless given. */
  name: string;
  firstName?: string;
  middleName?: string;
  lastName?: string;
  /** partyIdInfo.fspId and the callback's FSPIOP-Source (default 'payeefsp'). Give each scenario its
   * own to steer POST /transfers (see TransferSelector.payeeFsp). */
  fspId?: string;
  dateOfBirth?: string;
}

/** GET /parties/{Type}/{ID} → PUT /parties/{Type}/{ID} with party { partyIdInfo { partyIdType,
 * partyIdentifier (the requested ones), fspId }, name, personalInfo.complexName }. */
export function partyFound(options: PartyFoundOptions): TtkRule {
  const { name, fspId = PAYEE_FSP } = options;
  const words = name.trim().split(/\s+/);
  const complexName: Record<string, string> = {};
  const firstName = options.firstName ?? words[0];
  const lastName = options.lastName ?? (words.length > 1 ? words[words.length - 1] : undefined);
  const middleName = options.middleName ?? (words.length > 2 ? words.slice(1, -1).join(' ') : undefined);
  if (firstName) complexName.firstName = firstName;
  if (middleName) complexName.middleName = middleName;
  if (lastName) complexName.lastName = lastName;
  const personalInfo: Record<string, unknown> = { complexName };
  if (options.dateOfBirth) personalInfo.dateOfBirth = options.dateOfBirth;
  return rule('callback', `party found${selected({ id: options.id, idSuffix: options.idSuffix, type: options.type })}: ${name}`, partyConditions(options), {
    method: 'put',
    path: '/parties/{Type}/{ID}',
    type: 'FIXED_CALLBACK',
    params: {
      headers: callbackHeaders(fspId),
      body: {
        party: {
          partyIdInfo: { partyIdType: '{$request.params.Type}', partyIdentifier: '{$request.params.ID}', fspId },
          name,
          personalInfo,
        },
      },
      ...delay(options),
    },
  });
}

export interface PartyErrorOptions extends PartySelector, Timing {
  errorCode?: string;
  errorDescription?: string;
  /** FSPIOP-Source of the error callback (default 'switch': the account lookup service). */
  source?: string;
}

/** GET /parties/{Type}/{ID} → PUT /parties/{Type}/{ID}/error, by default 3204 "Party not found". */
export function partyNotFound(options: PartyErrorOptions = {}): TtkRule {
  const { errorCode = '3204', errorDescription = 'Party not found', source = SWITCH_FSP } = options;
  return errorCallback(`party error ${errorCode}${selected({ id: options.id, idSuffix: options.idSuffix, type: options.type })}`, partyConditions(options), '/parties/{Type}/{ID}/error', source, errorCode, errorDescription, options);
}

/** GET /parties/{Type}/{ID} → no callback at all (our lookup times out). */
export function partyNoCallback(selector: PartySelector = {}): TtkRule {
  return noCallback(`party: no callback${selected(selector)}`, partyConditions(selector), '/parties/{Type}/{ID}');
}

// ---- POST /quotes ----

/** Which quote requests a quotes rule answers; none given: every quote. */
export interface QuoteSelector {
  /** body.payee.partyIdInfo.partyIdentifier, exactly. */
  payeeId?: string;
  /** body.amount.amount, compared as a number ('50' matches '50.00'). */
  amount?: string;
  /** body.amount.currency. */
  currency?: string;
}

function quoteConditions(selector: QuoteSelector): TtkCondition[] {
  const all = operation('post', '/quotes');
  if (selector.payeeId !== undefined) all.push({ fact: 'body', operator: 'equal', value: selector.payeeId, path: 'payee.partyIdInfo.partyIdentifier' });
  if (selector.amount !== undefined) all.push({ fact: 'body', operator: 'numericEqual', value: selector.amount, path: 'amount.amount' });
  if (selector.currency !== undefined) all.push({ fact: 'body', operator: 'equal', value: selector.currency, path: 'amount.currency' });
  return all;
}

export interface QuoteFoundOptions extends QuoteSelector, Timing {
  /** transferAmount.amount (default: the request's amount.amount). The currency is the request's. */
  transferAmount?: string;
  payeeReceiveAmount?: string;
  payeeFspFee?: string;
  payeeFspCommission?: string;
  /** Seconds from now to the quote's expiration (default 60). */
  expiresInSeconds?: number;
  /** A fixed expiration (ISO 8601) instead, e.g. one in the past. */
  expiration?: string;
}

/** POST /quotes → PUT /quotes/{quoteId} with transferAmount (= the request's amount unless given),
 * expiration (now + 60 s), and the ilpPacket and condition TTK generates (ILP v1). The
 * callback's FSPIOP-Source is the request's FSPIOP-Destination (the payee FSP we addressed). */
export function quoteFound(options: QuoteFoundOptions = {}): TtkRule {
  const amount = (value: string) => ({ currency: '{$request.body.amount.currency}', amount: value });
  const body: Record<string, unknown> = { transferAmount: amount(options.transferAmount ?? '{$request.body.amount.amount}') };
  if (options.payeeReceiveAmount !== undefined) body.payeeReceiveAmount = amount(options.payeeReceiveAmount);
  if (options.payeeFspFee !== undefined) body.payeeFspFee = amount(options.payeeFspFee);
  if (options.payeeFspCommission !== undefined) body.payeeFspCommission = amount(options.payeeFspCommission);
  body.expiration = options.expiration ?? isoInSeconds(options.expiresInSeconds ?? 60);
  return rule('callback', `quote${selected({ payeeId: options.payeeId, amount: options.amount, currency: options.currency })}`, quoteConditions(options), {
    method: 'put',
    path: '/quotes/{ID}',
    type: 'FIXED_CALLBACK',
    params: { headers: callbackHeaders('{$request.headers.fspiop-destination}'), body, ...delay(options) },
  });
}

export interface QuoteErrorOptions extends QuoteSelector, Timing {
  errorCode?: string;
  errorDescription?: string;
  /** FSPIOP-Source of the error (default: the request's FSPIOP-Destination, the payee FSP). */
  source?: string;
}

/** POST /quotes → PUT /quotes/{quoteId}/error, by default 5101 "Payee rejected quote". */
export function quoteError(options: QuoteErrorOptions = {}): TtkRule {
  const { errorCode = '5101', errorDescription = 'Payee rejected quote', source = '{$request.headers.fspiop-destination}' } = options;
  return errorCallback(`quote error ${errorCode}${selected({ payeeId: options.payeeId, amount: options.amount, currency: options.currency })}`, quoteConditions(options), '/quotes/{ID}/error', source, errorCode, errorDescription, options);
}

/** POST /quotes → no callback at all. */
export function quoteNoCallback(selector: QuoteSelector = {}): TtkRule {
  return noCallback(`quote: no callback${selected(selector)}`, quoteConditions(selector), '/quotes/{ID}');
}

// ---- POST /transfers ----

/** Which transfers a transfers rule answers; none given: every transfer. The POST /transfers body
 * does not carry the payee's identifier, so a test steers it by what it carries: the amount (the
 * test chooses it) or payeeFsp (the fspId that partyFound({ fspId }) gave that payee). */
export interface TransferSelector {
  /** body.amount.amount, compared as a number. */
  amount?: string;
  currency?: string;
  /** body.payeeFsp. */
  payeeFsp?: string;
}

function transferConditions(selector: TransferSelector): TtkCondition[] {
  const all = operation('post', '/transfers');
  if (selector.amount !== undefined) all.push({ fact: 'body', operator: 'numericEqual', value: selector.amount, path: 'amount.amount' });
  if (selector.currency !== undefined) all.push({ fact: 'body', operator: 'equal', value: selector.currency, path: 'amount.currency' });
  if (selector.payeeFsp !== undefined) all.push({ fact: 'body', operator: 'equal', value: selector.payeeFsp, path: 'payeeFsp' });
  return all;
}

function transferState(description: string, all: TtkCondition[], state: string, source: string, fulfilment: string | undefined, timing: Timing | undefined): TtkRule {
  const body: Record<string, unknown> = { transferState: state, completedTimestamp: '{$function.generic.curDateISO}' };
  if (fulfilment !== undefined) body.fulfilment = fulfilment;
  return rule('callback', description, all, {
    method: 'put',
    path: '/transfers/{ID}',
    type: 'FIXED_CALLBACK',
    params: { headers: callbackHeaders(source), body, ...delay(timing) },
  });
}

export interface TransferCommittedOptions extends TransferSelector, Timing {
  /** A fixed fulfilment instead of the right one (to test that we check it against the condition). */
  fulfilment?: string;
}

/** POST /transfers → PUT /transfers/{transferId} { transferState COMMITTED, completedTimestamp,
 * fulfilment } where TTK computes the fulfilment from the request's ilpPacket: its SHA-256
 * (base64url) is the condition of the quote TTK gave. FSPIOP-Source: the request's payeeFsp. */
export function transferCommitted(options: TransferCommittedOptions = {}): TtkRule {
  return transferState(`transfer COMMITTED${selected({ amount: options.amount, currency: options.currency, payeeFsp: options.payeeFsp })}`, transferConditions(options), 'COMMITTED', '{$request.body.payeeFsp}', options.fulfilment, options);
}

/** POST /transfers → PUT /transfers/{transferId} { transferState ABORTED, completedTimestamp }.
 * TTK cannot be stopped from adding a fulfilment to a PUT answering POST /transfers: it adds the
 * valid one, so our service must go by transferState, not by the presence of a fulfilment. */
export function transferAborted(options: TransferSelector & Timing = {}): TtkRule {
  return transferState(`transfer ABORTED${selected({ amount: options.amount, currency: options.currency, payeeFsp: options.payeeFsp })}`, transferConditions(options), 'ABORTED', '{$request.body.payeeFsp}', undefined, options);
}

export interface TransferErrorOptions extends TransferSelector, Timing {
  errorCode?: string;
  errorDescription?: string;
  /** FSPIOP-Source of the error (default: the request's payeeFsp; use 'switch' for 4001). */
  source?: string;
}

/** POST /transfers → PUT /transfers/{transferId}/error, by default 5105 "Payee FSP rejected
 * transaction" (4001 "Payer FSP insufficient liquidity" comes from the switch: source 'switch'). */
export function transferError(options: TransferErrorOptions = {}): TtkRule {
  const { errorCode = '5105', errorDescription = 'Payee FSP rejected transaction', source = '{$request.body.payeeFsp}' } = options;
  return errorCallback(`transfer error ${errorCode}${selected({ amount: options.amount, currency: options.currency, payeeFsp: options.payeeFsp })}`, transferConditions(options), '/transfers/{ID}/error', source, errorCode, errorDescription, options);
}

/** POST /transfers → no callback at all (the transfer's outcome stays unknown to us). */
export function transferNoCallback(selector: TransferSelector = {}): TtkRule {
  return noCallback(`transfer: no callback${selected(selector)}`, transferConditions(selector), '/transfers/{ID}');
}

export interface SyncErrorOptions {
  /** HTTP status of the switch's answer (default 500). */
  status?: number;
  errorCode?: string;
  errorDescription?: string;
  delayMs?: number;
}

/** POST /transfers → the switch answers at once with an HTTP error (default 500, errorInformation
 * 2001 "Internal server error"; 503 gives 2003 "Service currently unavailable"). No callback. */
export function transferSyncError(options: TransferSelector & SyncErrorOptions = {}): TtkRule {
  return syncError({ method: 'post', operationPath: '/transfers', where: transferConditions(options).slice(2), ...options });
}

/** Any request → the switch answers at once with an HTTP error; `where` adds conditions. */
export function syncError(options: SyncErrorOptions & { method: 'get' | 'post' | 'put'; operationPath: string; where?: TtkCondition[] }): TtkRule {
  const status = options.status ?? 500;
  const errorCode = options.errorCode ?? (status === 503 ? '2003' : status === 400 ? '3100' : '2001');
  const errorDescription = options.errorDescription ?? (status === 503 ? 'Service currently unavailable' : status === 400 ? 'Generic validation error' : 'Internal server error');
  return rule('response', `${options.method} ${options.operationPath}: HTTP ${status}`, [...operation(options.method, options.operationPath), ...(options.where ?? [])], {
    method: null,
    path: null,
    type: 'FIXED_RESPONSE',
    params: { body: errorBody(errorCode, errorDescription), statusCode: String(status), ...(options.delayMs ? { delay: options.delayMs } : {}) },
  });
}

// ---- GET /transfers/{ID} ----

export interface TransferStatusOptions extends Timing {
  /** The transfer ID (none: every GET /transfers/{ID}). */
  transferId?: string;
  /** Default COMMITTED. */
  state?: 'COMMITTED' | 'ABORTED' | 'RESERVED' | 'RECEIVED';
}

function transferStatusConditions(transferId: string | undefined): TtkCondition[] {
  const all = operation('get', '/transfers/{ID}');
  if (transferId !== undefined) all.push({ fact: 'pathParams', operator: 'equal', value: transferId, path: 'ID' });
  return all;
}

/** GET /transfers/{ID} → PUT /transfers/{ID} { transferState (COMMITTED), completedTimestamp }, no
 * fulfilment (TTK removes it on answers to GET). FSPIOP-Source: 'switch'. */
export function transferStatus(options: TransferStatusOptions = {}): TtkRule {
  const state = options.state ?? 'COMMITTED';
  return transferState(`transfer status ${state}${selected({ transferId: options.transferId })}`, transferStatusConditions(options.transferId), state, SWITCH_FSP, undefined, options);
}

export interface TransferStatusErrorOptions extends Timing {
  transferId?: string;
  errorCode?: string;
  errorDescription?: string;
}

/** GET /transfers/{ID} → PUT /transfers/{ID}/error, by default 3208 "Transfer ID not found". */
export function transferStatusNotFound(options: TransferStatusErrorOptions = {}): TtkRule {
  const { errorCode = '3208', errorDescription = 'Transfer ID not found' } = options;
  return errorCallback(`transfer status error ${errorCode}${selected({ transferId: options.transferId })}`, transferStatusConditions(options.transferId), '/transfers/{ID}/error', SWITCH_FSP, errorCode, errorDescription, options);
}

/** GET /transfers/{ID} → no callback at all. */
export function transferStatusNoCallback(transferId?: string): TtkRule {
  return noCallback(`transfer status: no callback${selected({ transferId })}`, transferStatusConditions(transferId), '/transfers/{ID}');
}

// ---- defaults ----

/** The happy path, after a test's own rules: every party is found ('Test Party', fspId
 * 'payeefsp'), every quote is accepted at the requested amount, every transfer is COMMITTED with
 * the right fulfilment, every GET /transfers/{ID} answers COMMITTED. Nothing else is answered
 * (TTK's own default rules, random and slow, are not used). */
export function defaultRules(): TtkRule[] {
  return [partyFound({ name: 'Test Party' }), quoteFound(), transferCommitted(), transferStatus()];
}

// FSPIOP error codes (API Definition v1.1 §7.6, Tables 110–117): four digits, the first the
// high-level category (1 communication, 2 server, 3 client, 4 payer, 5 payee), the second the
// low-level one, the last two the error; xx00 is the category's generic error, xx40–xx99 are
// the scheme's own and read as their xx00 (§7.6). The names are the spec's, word for word.

export const FSPIOP_ERRORS = {
  '1000': 'Communication error',
  '1001': 'Destination communication error',
  '2000': 'Generic server error',
  '2001': 'Internal server error',
  '2002': 'Not implemented',
  '2003': 'Service currently unavailable',
  '2004': 'Server timed out',
  '2005': 'Server busy',
  '3000': 'Generic client error',
  '3001': 'Unacceptable version requested',
  '3002': 'Unknown URI',
  '3003': 'Add Party information error',
  '3100': 'Generic validation error',
  '3101': 'Malformed syntax',
  '3102': 'Missing mandatory element',
  '3103': 'Too many elements',
  '3104': 'Too large payload',
  '3105': 'Invalid signature',
  '3106': 'Modified request',
  '3107': 'Missing mandatory extension parameter',
  '3200': 'Generic ID not found',
  '3201': 'Destination FSP Error',
  '3202': 'Payer FSP ID not found',
  '3203': 'Payee FSP ID not found',
  '3204': 'Party not found',
  '3205': 'Quote ID not found',
  '3206': 'Transaction request ID not found',
  '3207': 'Transaction ID not found',
  '3208': 'Transfer ID not found',
  '3209': 'Bulk quote ID not found',
  '3210': 'Bulk transfer ID not found',
  '3300': 'Generic expired error',
  '3301': 'Transaction request expired',
  '3302': 'Quote expired',
  '3303': 'Transfer expired',
  '4000': 'Generic Payer error',
  '4001': 'Payer FSP insufficient liquidity',
  '4100': 'Generic Payer rejection',
  '4101': 'Payer rejected transaction request',
  '4102': 'Payer FSP unsupported transaction type',
  '4103': 'Payer unsupported currency',
  '4200': 'Payer limit error',
  '4300': 'Payer permission error',
  '4400': 'Generic Payer blocked error',
  '5000': 'Generic Payee error',
  '5001': 'Payee FSP insufficient liquidity',
  '5100': 'Generic Payee rejection',
  '5101': 'Payee rejected quote',
  '5102': 'Payee FSP unsupported transaction type',
  '5103': 'Payee FSP rejected quote',
  '5104': 'Payee rejected transaction',
  '5105': 'Payee FSP rejected transaction',
  '5106': 'Payee unsupported currency',
  '5200': 'Payee limit error',
  '5300': 'Payee permission error',
  '5400': 'Generic Payee blocked error',
} as const;

export type FspiopErrorCode = keyof typeof FSPIOP_ERRORS;

const ERROR_CODE = /^[1-9]\d{3}$/;
const MAX_DESCRIPTION = 128;
const MAX_EXTENSIONS = 16;

export function isFspiopErrorCode(code: string): code is FspiopErrorCode {
  return Object.hasOwn(FSPIOP_ERRORS, code);
}

/** The code a scheme-specific one (xx40–xx99) stands for: its category's xx00 (§7.6). */
export function genericCode(code: string): string {
  return ERROR_CODE.test(code) && Number(code.slice(2)) >= 40 ? `${code.slice(0, 2)}00` : code;
}

/** The spec's name of a code, or of the generic code a scheme-specific one reads as. */
export function errorName(code: string): string | undefined {
  const known = genericCode(code);
  return isFspiopErrorCode(known) ? FSPIOP_ERRORS[known] : undefined;
}

export interface Extension {
  key: string;
  value: string;
}

export interface ErrorInformationObject {
  errorInformation: {
    errorCode: string;
    errorDescription: string;
    extensionList?: { extension: Extension[] };
  };
}

/** At most `limit` code points: ErrorDescription and ExtensionValue count characters, not UTF-16 units. */
function clip(text: string, limit: number): string {
  const points = Array.from(text);
  return points.length <= limit ? text : points.slice(0, limit).join('');
}

/**
 * The ErrorInformationObject body of an error callback or a synchronous error answer. The
 * description defaults to the code's name and is cut to the spec's 128 characters; extensions
 * (at most 16, keys 1–32 characters) are taken as they are and their values cut to 128.
 */
export function errorInformation(code: FspiopErrorCode | string, description?: string, extensions?: Extension[] | Record<string, string>): ErrorInformationObject {
  if (!ERROR_CODE.test(code)) throw new RangeError(`not an FSPIOP error code: ${code}`);
  const text = description?.trim() || errorName(code) || 'Error';
  const body: ErrorInformationObject = { errorInformation: { errorCode: code, errorDescription: clip(text, MAX_DESCRIPTION) } };
  const list = Array.isArray(extensions) ? extensions : Object.entries(extensions ?? {}).map(([key, value]) => ({ key, value }));
  if (list.length > MAX_EXTENSIONS) throw new RangeError(`at most ${MAX_EXTENSIONS} extensions, got ${list.length}`);
  for (const { key, value } of list) {
    if (Array.from(key).length < 1 || Array.from(key).length > 32 || value === '') throw new RangeError(`extension ${JSON.stringify(key)} does not fit the ExtensionList model`);
  }
  if (list.length) body.errorInformation.extensionList = { extension: list.map(({ key, value }) => ({ key, value: clip(value, MAX_DESCRIPTION) })) };
  return body;
}

/**
 * The HTTP status of a synchronous error answer (Table 3). Most errors travel in error
 * callbacks after a 202; what is answered at once is the request itself being wrong: 400 for
 * the 3xxx codes, 404 for an unknown URI, 406 for a version we do not speak, 501 and 503 for
 * 2002 and 2003, 500 for the other server and communication errors.
 */
export function httpStatusFor(code: string): number {
  const known = genericCode(code);
  if (known === '3001') return 406;
  if (known === '3002') return 404;
  if (known === '2002') return 501;
  if (known === '2003' || known === '2005') return 503;
  if (/^[12]/.test(known)) return 500;
  return 400;
}

export interface PayoutResponse {
  responseCode: 'F101' | 'F103' | 'F108' | 'F109';
  responseMessage: string;
}

/** Identifier errors that say the beneficiary cannot be found: the payee's FSP, or the party itself. */
const PAYEE_NOT_FOUND = new Set(['3201', '3203', '3204']);

/**
 * Our payout's response for an FSPIOP error from the switch or the payee FSP. `stage` is where
 * it came back: a 3200 Generic ID not found from a party lookup is the beneficiary; from a quote
 * or transfer it is an id of ours, which the switch rejects (F109).
 */
export function payoutResponseFor(errorCode: string, stage?: 'parties' | 'quotes' | 'transfers'): PayoutResponse {
  const code = genericCode(errorCode);
  if (PAYEE_NOT_FOUND.has(code) || (code === '3200' && stage === 'parties')) {
    return { responseCode: 'F101', responseMessage: 'Beneficiary account not found' };
  }
  if (/^52\d\d$/.test(code)) return { responseCode: 'F103', responseMessage: 'Amount exceeds the beneficiary account limit' };
  if (/^33\d\d$/.test(code)) return { responseCode: 'F108', responseMessage: 'Connector did not respond; transfer failed' };
  return { responseCode: 'F109', responseMessage: `Rejected by the payment switch (${describeCode(errorCode)})` };
}

/** "5101 Payee rejected quote"; a scheme code names the generic one it reads as; never more than 80 characters. */
function describeCode(errorCode: string): string {
  if (!ERROR_CODE.test(errorCode)) return 'no valid error code';
  const name = errorName(errorCode);
  if (!name) return errorCode;
  return genericCode(errorCode) === errorCode ? `${errorCode} ${name}` : `${errorCode}, scheme error read as ${genericCode(errorCode)} ${name}`;
}

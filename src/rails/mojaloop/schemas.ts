// JSON schemas of the FSPIOP bodies we receive, from the fspiop_1.1 OpenAPI definition (the
// Testing Toolkit's api_spec.yaml, components/schemas) with its $refs resolved and its
// descriptions and examples left out. 1.1 adds optional elements to 1.0 (extensionList in
// PartyIdInfo), PATCH /transfers, and a pattern for PartyName; a 1.0 body is read with 1.0's
// PartyName, the rest is the same. No schema closes its properties: the spec does not, and
// §3.3.2 lets a minor version add optional elements.
//
// One change: PartySubIdOrType is oneOf(PersonalIdentifierType, PartyIdentifier) in the spec, and
// every PersonalIdentifierType ("PASSPORT") is also a PartyIdentifier (1–128 characters), so
// oneOf refuses exactly the values it names. It is read as the PartyIdentifier it always is.
//
// validate() answers as the spec's validation errors (Table 113) do: 3102 for a missing
// mandatory element, 3101 for one of the wrong type or format ("amount set to 5.ABC"), 3103 for
// too many array elements, 3100 for the rest; the description names the element. Unlike the
// service's own API (src/http/validation.ts) nothing is coerced, defaulted or removed: an amount
// sent as a number is the peer's error, and the body stays the one that was signed.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { CURRENCIES } from './amount.ts';
import type { FspiopVersion } from './headers.ts';

const DATE = String.raw`(?:[1-9]\d{3}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|(?:[1-9]\d(?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[13579][26])00)-02-29)`;
const NAME = String.raw`^(?!\s*$)[\p{L}\p{gc=Mark}\p{digit}\p{gc=Connector_Punctuation}\p{Join_Control} .,'-]{1,128}$`;

// Element types (§7.2, §7.3). `title` names the type in validate()'s descriptions.
const Amount = { title: 'Amount', type: 'string', pattern: '^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$' };
const AmountType = { title: 'AmountType', type: 'string', enum: ['SEND', 'RECEIVE'] };
const BalanceOfPayments = { title: 'BalanceOfPayments', type: 'string', pattern: String.raw`^[1-9]\d{2}$` };
const CorrelationId = { title: 'CorrelationId', type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' };
const Currency = { title: 'Currency', type: 'string', minLength: 3, maxLength: 3, enum: [...CURRENCIES] };
const DateOfBirth = { title: 'DateOfBirth', type: 'string', pattern: `^${DATE}$` };
// The milliseconds are mandatory: "2016-05-24T08:38:08Z" is not a DateTime.
const DateTime = { title: 'DateTime', type: 'string', pattern: String.raw`^${DATE}T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:(\.\d{3}))(?:Z|[+-][01]\d:[0-5]\d)$` };
const ErrorCode = { title: 'ErrorCode', type: 'string', pattern: String.raw`^[1-9]\d{3}$` };
const ErrorDescription = { title: 'ErrorDescription', type: 'string', minLength: 1, maxLength: 128 };
const ExtensionKey = { title: 'ExtensionKey', type: 'string', minLength: 1, maxLength: 32 };
const ExtensionValue = { title: 'ExtensionValue', type: 'string', minLength: 1, maxLength: 128 };
const FirstName = { title: 'FirstName', type: 'string', minLength: 1, maxLength: 128, pattern: NAME };
const FspId = { title: 'FspId', type: 'string', minLength: 1, maxLength: 32 };
const IlpCondition = { title: 'IlpCondition', type: 'string', pattern: '^[A-Za-z0-9-_]{43}$', maxLength: 48 };
const IlpFulfilment = { title: 'IlpFulfilment', type: 'string', pattern: '^[A-Za-z0-9-_]{43}$', maxLength: 48 };
const IlpPacket = { title: 'IlpPacket', type: 'string', pattern: '^[A-Za-z0-9-_]+[=]{0,2}$', minLength: 1, maxLength: 32768 };
const LastName = { title: 'LastName', type: 'string', minLength: 1, maxLength: 128, pattern: NAME };
const Latitude = { title: 'Latitude', type: 'string', pattern: String.raw`^(\+|-)?(?:90(?:(?:\.0{1,6})?)|(?:[0-9]|[1-8][0-9])(?:(?:\.[0-9]{1,6})?))$` };
const Longitude = { title: 'Longitude', type: 'string', pattern: String.raw`^(\+|-)?(?:180(?:(?:\.0{1,6})?)|(?:[0-9]|[1-9][0-9]|1[0-7][0-9])(?:(?:\.[0-9]{1,6})?))$` };
const MerchantClassificationCode = { title: 'MerchantClassificationCode', type: 'string', pattern: String.raw`^[\d]{1,4}$` };
const MiddleName = { title: 'MiddleName', type: 'string', minLength: 1, maxLength: 128, pattern: NAME };
const Note = { title: 'Note', type: 'string', minLength: 1, maxLength: 128 };
const PartyIdentifier = { title: 'PartyIdentifier', type: 'string', minLength: 1, maxLength: 128 };
const PartyIdType = { title: 'PartyIdType', type: 'string', enum: ['MSISDN', 'EMAIL', 'PERSONAL_ID', 'BUSINESS', 'DEVICE', 'ACCOUNT_ID', 'IBAN', 'ALIAS'] };
const PartyName = { title: 'PartyName', type: 'string', pattern: NAME };
// 1.0's PartyName is any 1–128 characters: 1.1 added the Name pattern, which refuses "Banda & Sons".
const PartyName10 = { title: 'PartyName', type: 'string', minLength: 1, maxLength: 128 };
const PartySubIdOrType = { ...PartyIdentifier, title: 'PartySubIdOrType' };
const RefundReason = { title: 'RefundReason', type: 'string', minLength: 1, maxLength: 128 };
const TransactionInitiator = { title: 'TransactionInitiator', type: 'string', enum: ['PAYER', 'PAYEE'] };
const TransactionInitiatorType = { title: 'TransactionInitiatorType', type: 'string', enum: ['CONSUMER', 'AGENT', 'BUSINESS', 'DEVICE'] };
const TransactionScenario = { title: 'TransactionScenario', type: 'string', enum: ['DEPOSIT', 'WITHDRAWAL', 'TRANSFER', 'PAYMENT', 'REFUND'] };
const TransactionSubScenario = { title: 'TransactionSubScenario', type: 'string', pattern: '^[A-Z_]{1,32}$' };
const TransferState = { title: 'TransferState', type: 'string', enum: ['RECEIVED', 'RESERVED', 'COMMITTED', 'ABORTED'] };

// Complex types (§7.4).
const Extension = { type: 'object', properties: { key: ExtensionKey, value: ExtensionValue }, required: ['key', 'value'] };
const ExtensionList = { type: 'object', properties: { extension: { type: 'array', items: Extension, minItems: 1, maxItems: 16 } }, required: ['extension'] };
const ErrorInformation = {
  type: 'object',
  properties: { errorCode: ErrorCode, errorDescription: ErrorDescription, extensionList: ExtensionList },
  required: ['errorCode', 'errorDescription'],
};
const GeoCode = { type: 'object', properties: { latitude: Latitude, longitude: Longitude }, required: ['latitude', 'longitude'] };
const Money = { type: 'object', properties: { currency: Currency, amount: Amount }, required: ['currency', 'amount'] };
const PartyIdInfo = {
  type: 'object',
  properties: { partyIdType: PartyIdType, partyIdentifier: PartyIdentifier, partySubIdOrType: PartySubIdOrType, fspId: FspId, extensionList: ExtensionList },
  required: ['partyIdType', 'partyIdentifier'],
};
const PartyComplexName = { type: 'object', properties: { firstName: FirstName, middleName: MiddleName, lastName: LastName } };
const PartyPersonalInfo = { type: 'object', properties: { complexName: PartyComplexName, dateOfBirth: DateOfBirth } };
function partyWith(name: typeof PartyName | typeof PartyName10) {
  return {
    type: 'object',
    properties: { partyIdInfo: PartyIdInfo, merchantClassificationCode: MerchantClassificationCode, name, personalInfo: PartyPersonalInfo },
    required: ['partyIdInfo'],
  };
}
const Refund = { type: 'object', properties: { originalTransactionId: CorrelationId, refundReason: RefundReason }, required: ['originalTransactionId'] };
const TransactionType = {
  type: 'object',
  properties: {
    scenario: TransactionScenario,
    subScenario: TransactionSubScenario,
    initiator: TransactionInitiator,
    initiatorType: TransactionInitiatorType,
    refundInfo: Refund,
    balanceOfPayments: BalanceOfPayments,
  },
  required: ['scenario', 'initiator', 'initiatorType'],
};

/** The bodies by the message that carries them, with a version's Party; the comments give the spec's schema names. */
const bodies = (Party: ReturnType<typeof partyWith>) => ({
  /** PUT /parties/{Type}/{ID}[/{SubId}]: PartiesTypeIDPutResponse */
  partiesPut: { type: 'object', properties: { party: Party }, required: ['party'] },
  /** PUT /quotes/{ID}: QuotesIDPutResponse */
  quotesPut: {
    type: 'object',
    properties: {
      transferAmount: Money,
      payeeReceiveAmount: Money,
      payeeFspFee: Money,
      payeeFspCommission: Money,
      expiration: DateTime,
      geoCode: GeoCode,
      ilpPacket: IlpPacket,
      condition: IlpCondition,
      extensionList: ExtensionList,
    },
    required: ['transferAmount', 'expiration', 'ilpPacket', 'condition'],
  },
  /** PUT /transfers/{ID}: TransfersIDPutResponse */
  transfersPut: {
    type: 'object',
    properties: { fulfilment: IlpFulfilment, completedTimestamp: DateTime, transferState: TransferState, extensionList: ExtensionList },
    required: ['transferState'],
  },
  /** PUT /{resource}/{ID}/error, and the body of a synchronous error answer: ErrorInformationObject */
  error: { type: 'object', properties: { errorInformation: ErrorInformation }, required: ['errorInformation'] },
  /** POST /quotes (payee side): QuotesPostRequest */
  quotesPost: {
    type: 'object',
    properties: {
      quoteId: CorrelationId,
      transactionId: CorrelationId,
      transactionRequestId: CorrelationId,
      payee: Party,
      payer: Party,
      amountType: AmountType,
      amount: Money,
      fees: Money,
      transactionType: TransactionType,
      geoCode: GeoCode,
      note: Note,
      expiration: DateTime,
      extensionList: ExtensionList,
    },
    required: ['quoteId', 'transactionId', 'payee', 'payer', 'amountType', 'amount', 'transactionType'],
  },
  /** POST /transfers (payee side): TransfersPostRequest */
  transfersPost: {
    type: 'object',
    properties: {
      transferId: CorrelationId,
      payeeFsp: FspId,
      payerFsp: FspId,
      amount: Money,
      ilpPacket: IlpPacket,
      condition: IlpCondition,
      expiration: DateTime,
      extensionList: ExtensionList,
    },
    required: ['transferId', 'payeeFsp', 'payerFsp', 'amount', 'ilpPacket', 'condition', 'expiration'],
  },
  /** PATCH /transfers/{ID} (payee side, 1.1: the switch's final state of a RESERVED transfer): TransfersIDPatchResponse */
  transfersPatch: {
    type: 'object',
    properties: { completedTimestamp: DateTime, transferState: TransferState, extensionList: ExtensionList },
    required: ['completedTimestamp', 'transferState'],
  },
});

/** The 1.1 bodies, which read 1.0 ones but for PartyName's pattern. */
export const FSPIOP_SCHEMAS = bodies(partyWith(PartyName));
const FSPIOP_1_0_SCHEMAS = bodies(partyWith(PartyName10));

export type BodyKind = keyof typeof FSPIOP_SCHEMAS;

export interface ValidationProblem {
  errorCode: '3100' | '3101' | '3102' | '3103';
  /** Fits ErrorDescription (128 characters) and names the element: "Missing mandatory element - party.partyIdInfo.partyIdentifier". */
  description: string;
}

// `verbose` gives each error its parentSchema, whose title names the type; the first error is
// enough for an error callback, and stopping there bounds the work on a hostile body.
const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, coerceTypes: false, useDefaults: false, removeAdditional: false });
const compileAll = (schemas: typeof FSPIOP_SCHEMAS) => Object.fromEntries(Object.entries(schemas).map(([kind, schema]) => [kind, ajv.compile(schema)])) as Record<BodyKind, ValidateFunction>;
const validators = { '1.0': compileAll(FSPIOP_1_0_SCHEMAS), '1.1': compileAll(FSPIOP_SCHEMAS) };

/** "party.partyIdInfo.fspId", "extensionList.extension[2].key"; "body" for the body itself. */
function elementName(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
  const name = segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
  return name || 'body';
}

function problemFor(error: ErrorObject): ValidationProblem {
  const element = elementName(error);
  const schema = (error.parentSchema ?? {}) as { title?: string; enum?: readonly string[] };
  const params = error.params as Record<string, unknown>;
  const problem = (errorCode: ValidationProblem['errorCode'], text: string): ValidationProblem => ({ errorCode, description: Array.from(text).slice(0, 128).join('') });
  switch (error.keyword) {
    case 'required':
      return problem('3102', `Missing mandatory element - ${element}`);
    case 'maxItems':
      return problem('3103', `Too many elements - ${element} has more than ${String(params.limit)}`);
    case 'type':
      return problem('3101', `Malformed syntax - ${element} must be ${String(params.type)}`);
    case 'pattern':
      return problem('3101', `Malformed syntax - ${element} is not a valid ${schema.title ?? 'value'}`);
    case 'enum': {
      const values = schema.enum && schema.enum.length <= 8 ? `: ${schema.enum.join(', ')}` : '';
      return problem('3101', `Malformed syntax - ${element} is not an allowed ${schema.title ?? 'value'}${values}`);
    }
    case 'minLength':
    case 'maxLength':
      return problem('3101', `Malformed syntax - ${element} must have ${error.keyword === 'minLength' ? 'at least' : 'at most'} ${String(params.limit)} character${params.limit === 1 ? '' : 's'}`);
    default:
      return problem('3100', `Generic validation error - ${element} ${error.message ?? 'is invalid'}`);
  }
}

/** null when `body` is a valid `kind` of the Content-Type's version, else the error callback's code and description. */
export function validate(kind: BodyKind, body: unknown, version: FspiopVersion = '1.1'): ValidationProblem | null {
  const check = validators[version][kind];
  if (check(body)) return null;
  return problemFor((check.errors ?? [])[0] ?? { keyword: 'false', instancePath: '', schemaPath: '', params: {}, message: 'is invalid' });
}

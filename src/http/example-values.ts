// Examples for the OpenAPI document's success responses (issue 30: generators show them, and a
// reader sees an answer's shape at a glance), assembled from each schema: a field's own example,
// default, const or first enum value; otherwise a value of the example set (http/docs.ts EXAMPLE)
// chosen by the field's name; otherwise one that fits its type and format. Assembled, not
// recorded from a run: test/http/openapi-lint.test.ts validates every one against its schema.
import { EXAMPLE } from './docs.ts';

type Schema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  example?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  minLength?: number;
  pattern?: string;
};

/** The one moment the document's assembled and fixed examples name. */
export const EXAMPLE_DATE_TIME = '2026-01-15T09:30:00.000Z';
const EXAMPLE_DATE = '2026-01-15';

/** Values by field name (case-insensitive), for fields without an example of their own. */
const BY_NAME: Record<string, unknown> = {
  merchantaccountnumber: EXAMPLE.merchantAccountNumber,
  organisationid: EXAMPLE.organisationId,
  paymentaccountnumber: EXAMPLE.paymentAccountNumber,
  // A documented test wallet (modules/disbursements/sandbox.ts TEST_WALLETS).
  beneficiaryaccountnumber: '111100000112',
  beneficiaryname: EXAMPLE.wallet.accountName,
  accountname: EXAMPLE.settlementBank.accountName,
  accountnumber: EXAMPLE.settlementBank.accountNumber,
  connectorid: EXAMPLE.wallet.connectorId,
  connectorname: EXAMPLE.wallet.connectorName,
  currencycode: 'MWK',
  capturedby: EXAMPLE.actor,
  createdby: EXAMPLE.actor,
  modifiedby: EXAMPLE.actor,
  reviewedby: EXAMPLE.actor,
  approvedby: EXAMPLE.actor,
  actionedby: EXAMPLE.actor,
  emailaddress: EXAMPLE.actor,
  capturer: EXAMPLE.actor,
  firstname: 'Chikondi',
  lastname: 'Banda',
  phonenumber: '265991234567',
  batchnumber: 100001,
  transactionreferencenumber: 'K7Q2M9X4C1PA',
  sourcereferencenumber: 'PAY0001234',
  referencenumber: 'ORDER1001',
  timedaccountnumber: '12345678',
  transactiondescription: 'Order 1001',
  transactionamount: 1500,
  transactionfee: 15,
  totalamount: 125000,
  numberoftransactions: 2,
  callbackurl: EXAMPLE.callbackUrl,
  eventcode: 'payment.success',
  responsecode: 'S100',
  responsemessage: 'Transaction successful',
  message: 'Done',
  clientid: 23,
  clientkey: EXAMPLE.apiKey,
  apikey: EXAMPLE.apiKey,
  accesstoken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIyMyJ9.c2lnbmF0dXJl',
  expiryinminutes: 15,
};

const MAX_DEPTH = 8;

/** An example of `schema`, or undefined where none can be assembled (a pattern no name value meets). */
export function exampleOf(schema: Schema | undefined, name = '', depth = 0): unknown {
  if (!schema || depth > MAX_DEPTH) return undefined;
  const own = schema.examples?.[0] ?? schema.example ?? schema.default ?? schema.const ?? schema.enum?.[0];
  if (own !== undefined) return own;
  // An object with anyOf of required fields (one of several): its properties make the example.
  if (schema.properties) return objectExample(schema, depth);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const nonNull = branches.find((b) => b.type !== 'null') ?? branches[0];
    return exampleOf(nonNull, name, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? schema.type[0]) : schema.type;
  if (type === 'object' || schema.properties) return objectExample(schema, depth);
  if (type === 'array') {
    const item = exampleOf(schema.items, name, depth + 1);
    return item === undefined ? [] : [item];
  }
  const named = BY_NAME[name.toLowerCase()];
  if (named !== undefined && typeof named === (type === 'integer' ? 'number' : type)) return named;
  return scalarExample(schema, type, name);
}

function objectExample(schema: Schema, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const value = exampleOf(property, key, depth + 1);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function scalarExample(schema: Schema, type: string | undefined, name: string): unknown {
  switch (type) {
    case 'integer':
      return Math.max(schema.minimum ?? 1, 1);
    case 'number':
      return Math.max(schema.minimum ?? 1500, 0);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      if (schema.format === 'date') return EXAMPLE_DATE;
      if (schema.format === 'date-time' || /date$/i.test(name)) return EXAMPLE_DATE_TIME;
      if (schema.format === 'uri') return EXAMPLE.callbackUrl;
      if (schema.pattern) return undefined;
      return humanised(name).padEnd(schema.minLength ?? 0, '0');
    default:
      return undefined;
  }
}

/** `batchStatusDescription` → "Batch status description": a placeholder that says what the field is. */
function humanised(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : 'Text';
}

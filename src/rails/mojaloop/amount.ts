// FSPIOP amounts (API Definition v1.1 §7.2.13): a JSON string in canonical form, no trailing
// zero, at most 4 decimals and 18 integer digits ("5000", "123.4", "0.05"). Inside, amounts are
// integer minor units of the currency's ISO 4217 exponent (MWK 2: 12345 is "123.45"). Both ways
// go through the decimal text, never through float arithmetic: Mojaloop's reference scales with
// Number(amount) * 10^exponent and gets 434.99999999999994 for "4.35".

export const AMOUNT_PATTERN = /^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$/;

/** The pattern allows 4 decimals: a currency with more cannot show every minor unit. */
const MAX_DECIMALS = 4;

/** The Currency enum of the fspiop_1.1 definition (ISO 4217 as of 2017, with GGP, IMP, JEP, SPL, TVD). */
export const CURRENCIES: readonly string[] = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BHD',
  'BIF', 'BMD', 'BND', 'BOB', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHF', 'CLP', 'CNY',
  'COP', 'CRC', 'CUC', 'CUP', 'CVE', 'CZK', 'DJF', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD',
  'FKP', 'GBP', 'GEL', 'GGP', 'GHS', 'GIP', 'GMD', 'GNF', 'GTQ', 'GYD', 'HKD', 'HNL', 'HRK', 'HTG', 'HUF',
  'IDR', 'ILS', 'IMP', 'INR', 'IQD', 'IRR', 'ISK', 'JEP', 'JMD', 'JOD', 'JPY', 'KES', 'KGS', 'KHR', 'KMF',
  'KPW', 'KRW', 'KWD', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'LYD', 'MAD', 'MDL', 'MGA', 'MKD',
  'MMK', 'MNT', 'MOP', 'MRO', 'MUR', 'MVR', 'MWK', 'MXN', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR',
  'NZD', 'OMR', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'PYG', 'QAR', 'RON', 'RSD', 'RUB', 'RWF', 'SAR',
  'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLL', 'SOS', 'SPL', 'SRD', 'STD', 'SVC', 'SYP', 'SZL', 'THB',
  'TJS', 'TMT', 'TND', 'TOP', 'TRY', 'TTD', 'TVD', 'TWD', 'TZS', 'UAH', 'UGX', 'USD', 'UYU', 'UZS', 'VEF',
  'VND', 'VUV', 'WST', 'XAF', 'XCD', 'XDR', 'XOF', 'XPF', 'XTS', 'XXX', 'YER', 'ZAR', 'ZMW', 'ZWD',
];

/**
 * ISO 4217 exponents that are not 2, for the currencies of the FSPIOP Currency enum (the values of
 * Mojaloop's reference currency.json). XTS and XXX carry 4 there, so we keep 4; XDR has no
 * minor unit in ISO 4217 and is left out.
 */
const EXPONENT_NOT_2: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  XTS: 4, XXX: 4,
};
const NO_EXPONENT = new Set(['XDR']);
const KNOWN = new Set(CURRENCIES);

/** The currency's exponent; undefined for a code outside the FSPIOP enum, or without minor units. */
export function currencyExponent(currency: string): number | undefined {
  if (!KNOWN.has(currency) || NO_EXPONENT.has(currency)) return undefined;
  return EXPONENT_NOT_2[currency] ?? 2;
}

/** A currency's exponent, or the exponent itself. */
function exponentOf(currencyOrExponent: string | number): number | undefined {
  const exponent = typeof currencyOrExponent === 'number' ? currencyOrExponent : currencyExponent(currencyOrExponent);
  if (exponent !== undefined && (!Number.isInteger(exponent) || exponent < 0 || exponent > 18)) throw new RangeError(`not a currency exponent: ${exponent}`);
  return exponent;
}

/**
 * 500000 → "5000", 12340 → "123.4", 5 → "0.05" (MWK, or exponent 2). Throws for a negative or
 * unsafe integer, an unknown currency, or more decimals than FSPIOP's 4.
 */
export function toFspiopAmount(amountMinor: number, currencyOrExponent: string | number): string {
  const exponent = exponentOf(currencyOrExponent);
  if (exponent === undefined) throw new RangeError(`no exponent known for currency ${String(currencyOrExponent)}`);
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError(`not an amount in minor units: ${amountMinor}`);
  const digits = String(amountMinor).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent).replace(/0+$/, '');
  if (fraction.length > MAX_DECIMALS) throw new RangeError(`${amountMinor} minor units need ${fraction.length} decimals; FSPIOP amounts carry ${MAX_DECIMALS}`);
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * "123.45" → 12345 (MWK, or exponent 2). Undefined for anything the Amount pattern refuses
 * ("1.50", "01", "-1", " 1", 1 as a number), for more decimals than the currency has ("1.005"
 * in MWK), for more minor units than a safe integer holds, and for an unknown currency.
 */
export function fromFspiopAmount(amount: unknown, currencyOrExponent: string | number): number | undefined {
  const exponent = exponentOf(currencyOrExponent);
  if (exponent === undefined || typeof amount !== 'string' || !AMOUNT_PATTERN.test(amount)) return undefined;
  const [whole, fraction = ''] = amount.split('.');
  if (fraction.length > exponent) return undefined;
  const minor = Number(`${whole}${fraction.padEnd(exponent, '0')}`);
  return Number.isSafeInteger(minor) ? minor : undefined;
}

export interface Money {
  currency: string;
  amount: string;
}

/** The FSPIOP Money object for an amount in the currency's minor units. */
export function toMoney(amountMinor: number, currency: string): Money {
  return { currency, amount: toFspiopAmount(amountMinor, currency) };
}

/** A Money object's amount in minor units; undefined for an unknown currency or a non-canonical amount. */
export function moneyMinor(money: Money): number | undefined {
  return fromFspiopAmount(money.amount, money.currency);
}

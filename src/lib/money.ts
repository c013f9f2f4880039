// Amounts cross the API as decimal numbers or strings and live inside as integer minor units
// (tambala, 1/100 MWK). Conversion is done on the decimal text, never with float arithmetic.

const DECIMAL = /^(\d{1,15})(?:\.(\d{1,2}))?$/;

/** Parses "1500", "1500.5", 1500.25 → minor units; undefined when not a valid 2-decimal amount. */
export function parseMinor(value: number | string): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    // Fast path, exact: r / 100 === value holds exactly when value's shortest decimal form has at
    // most 2 decimals (0.29 → 29; 1.005 → neither 100 nor 101 gives it back). Below 10^13 the
    // products are exact integers. A 50,000-line batch parses 50,000 amounts.
    if (value < 1e13) {
      const minor = Math.round(value * 100);
      return minor / 100 === value ? minor : undefined;
    }
    // The shortest decimal that round-trips to this double: 0.1 → "0.1", 1e21 → "1e+21" (refused).
    text = String(value);
  } else {
    text = value.trim();
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  const minor = whole * 100 + fraction;
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** Like parseMinor, for values the schema already checked. */
export function toMinor(value: number | string): number {
  const minor = parseMinor(value);
  if (minor === undefined) throw new Error(`not an amount: ${String(value)}`);
  return minor;
}

/** Minor units → the JSON number shown to clients (12345 → 123.45). Display only. */
export function toMajor(minor: number): number {
  return minor / 100;
}

/** Minor units → "1,234.50" for messages. */
export function formatMajor(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}${whole}.${String(abs % 100).padStart(2, '0')}`;
}

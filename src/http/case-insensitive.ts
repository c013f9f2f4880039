// Request property names match case-insensitively (product.md §1): the gateway is ASP.NET and
// real clients send `callbackURL` or `MerchantAccountNumber`. For each route we compile, from its
// schema, a function that renames keys to the schema's casing before validation runs. A body that
// spells one property twice (`topupAmount` and `TopupAmount`) is refused: which one the client
// meant is a guess, and a guess about an amount or an account number is not ours to make.
import { AppError } from './errors.ts';
import { fieldLabel } from './i18n.ts';

type Normalizer = (value: unknown) => void;

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 400 E900 naming both spellings (the first one found may itself be a renamed one). */
function spelledTwice(name: string, key: string, value: Record<string, unknown>): AppError {
  const spellings = Object.keys(value).filter((k) => k.toLowerCase() === name.toLowerCase() && k !== name);
  const shown = [...new Set([name, key, ...spellings])].map((k) => `"${k.slice(0, 60)}"`).join(', ');
  return new AppError('validation', 'detail.validation', {}, { fieldErrors: [{ key: 'field.spelledTwice', params: { field: fieldLabel(name), spellings: shown } }] });
}

export function compileNormalizer(schema: JsonSchemaLike | undefined): Normalizer | undefined {
  if (!schema) return undefined;
  if (schema.properties) {
    const canonical = new Map<string, string>();
    const exact = new Set(Object.keys(schema.properties));
    const children = new Map<string, Normalizer>();
    for (const [name, child] of Object.entries(schema.properties)) {
      canonical.set(name.toLowerCase(), name);
      const nested = compileNormalizer(child);
      if (nested) children.set(name, nested);
    }
    const nestedList = [...children];
    const renameKeys = (value: Record<string, unknown>) => {
      for (const key of Object.keys(value)) {
        if (exact.has(key)) continue;
        const name = canonical.get(key.toLowerCase());
        if (name !== undefined && name !== key) {
          if (Object.prototype.hasOwnProperty.call(value, name)) throw spelledTwice(name, key, value);
          value[name] = value[key];
          delete value[key];
        }
      }
    };
    return (value) => {
      if (!isPlainObject(value)) return;
      // Nearly every key is already spelled as in the schema: a look at each (no array of keys
      // made) finds that, and only an object with another spelling is renamed.
      for (const key in value) {
        if (!exact.has(key)) {
          renameKeys(value);
          break;
        }
      }
      for (const [name, nested] of nestedList) nested(value[name]);
    };
  }
  if (schema.items) {
    const item = compileNormalizer(schema.items);
    if (!item) return undefined;
    return (value) => {
      if (Array.isArray(value)) for (const element of value) item(element);
    };
  }
  return undefined;
}

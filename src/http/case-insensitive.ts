// Request property names match case-insensitively (product.md §1): the gateway is ASP.NET and
// real clients send `callbackURL` or `MerchantAccountNumber`. For each route we compile, from its
// schema, a function that renames keys to the schema's casing before validation runs.

type Normalizer = (value: unknown) => void;

interface JsonSchemaLike {
  type?: string | string[];
  properties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
          if (!Object.prototype.hasOwnProperty.call(value, name)) {
            value[name] = value[key];
            delete value[key];
          } else if (value[name] === value[key]) {
            delete value[key];
          }
          // Two spellings with different values: both stay, so the merchant-scoping check sees
          // the second one too (a foreign account number answers 404 however it is spelled).
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

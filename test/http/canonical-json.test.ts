// The idempotency fingerprint's canonical JSON (src/http/idempotency.ts): the fast form (one
// JSON.stringify with the body's sorted key list) must give exactly the text of the sorting form,
// which fingerprints stored before it were made with, for every value a request can carry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonBySorting } from '../../src/http/idempotency.ts';

// Keys that change an order or a lookup: array indices (ordered first, numerically), near-indices,
// names Object.prototype has, and ordinary ones.
const key = fc.oneof(
  fc.constantFrom('0', '1', '2', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'constructor', 'toString', 'valueOf', 'a', 'B', 'b', 'é', ''),
  fc.string({ maxLength: 6 }),
);

/** Objects as JSON.parse builds them (an own "__proto__" included), or with a null prototype as a query parser's. */
function objectOf(entries: Array<[string, unknown]>, nullPrototype: boolean): Record<string, unknown> {
  const object: Record<string, unknown> = nullPrototype ? Object.create(null) : {};
  for (const [k, v] of entries) Object.defineProperty(object, k, { value: v, enumerable: true, writable: true, configurable: true });
  return object;
}

const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    fc.tuple(fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }), fc.boolean()).map(([entries, nullPrototype]) => objectOf(entries, nullPrototype)),
    fc.array(tie('node'), { maxLength: 4 }),
  ),
})).node;

describe('canonicalJson', () => {
  it('gives the text of the sorting form for generated values', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(canonicalJsonBySorting(v));
      }),
      { seed: 20261122, numRuns: 2000 },
    );
  });

  it('sorts keys, indices first in numeric order, whatever order they came in', () => {
    const text = canonicalJson(JSON.parse('{"b":1,"10":2,"a":[{"z":1,"y":2}],"2":3,"-1":4}'));
    expect(text).toBe('{"2":3,"10":2,"-1":4,"a":[{"y":2,"z":1}],"b":1}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe(canonicalJsonBySorting(JSON.parse('{"__proto__":{"x":1},"a":1}')));
  });

  it('gives the same text where the key list cannot be used: many keys, objects not plain', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${99 - i}`, i]));
    expect(canonicalJson({ many, list: [many] })).toBe(canonicalJsonBySorting({ many, list: [many] }));
    const withDate = { b: new Date(0), a: { d: 1, c: 2 } };
    expect(canonicalJson(withDate)).toBe(canonicalJsonBySorting(withDate));
    class Inherits {
      own = 1;
    }
    Object.defineProperty(Inherits.prototype, 'inherited', { value: 'x', enumerable: false });
    const mixed = { z: new Inherits(), y: { inherited: 2 } };
    expect(canonicalJson(mixed)).toBe(canonicalJsonBySorting(mixed));
  });
});

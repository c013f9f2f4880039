// Our minLength and maxLength keywords (src/http/validation.ts) replace Ajv's own for speed; they
// must accept, refuse and report exactly as Ajv's do: code points counted, an unpaired surrogate
// one character, the same error objects (verbose, every error), the same coercions around them.
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AJV_OPTIONS, ajvPlugins, codePointLength } from '../../src/http/validation.ts';

const oursAjv = ajvPlugins(new Ajv(AJV_OPTIONS));
const reference = new Ajv(AJV_OPTIONS);
const compiled = new Map<string, { ours: ReturnType<Ajv['compile']>; ajvs: ReturnType<Ajv['compile']> }>();

function compileBoth(schema: object) {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) compiled.set(key, { ours: oursAjv.compile(schema), ajvs: reference.compile(schema) });
  return compiled.get(key)!;
}

// Text made of the units that change a count: ASCII, a BMP letter, astral pairs, lone halves.
const units = fc.constantFrom('a', 'é', '😀', '𝔸', '\ud800', '\udbff', '\udc00', '\udfff');
const text = fc.array(units, { maxLength: 12 }).map((parts) => parts.join(''));

describe('string length keywords', () => {
  it('count code points as Ajv does, lone surrogates included', () => {
    const ajvsMax = Array.from({ length: 14 }, (_, limit) => reference.compile({ type: 'string', maxLength: limit }));
    fc.assert(
      fc.property(text, (value) => {
        for (let limit = 0; limit <= 13; limit++) {
          expect(ajvsMax[limit]!(value)).toBe(codePointLength(value) <= limit);
        }
      }),
      { seed: 20261122, numRuns: 300 },
    );
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800\ud800')).toBe(2);
    expect(codePointLength('\udc00\ud800')).toBe(2);
  });

  it('accept, refuse and report exactly as Ajv’s own keywords', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 8 }),
        fc.nat({ max: 8 }),
        fc.oneof(text, fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null)),
        fc.oneof(text, fc.integer({ min: 0, max: 99999 })),
        (min, extra, a, b) => {
          const schema = {
            type: 'object',
            properties: {
              a: { type: 'string', minLength: min, maxLength: min + extra },
              b: { type: ['string', 'number'], maxLength: extra },
            },
          };
          const { ours, ajvs } = compileBoth(schema);
          const mine = { a, b };
          const theirs = { a, b };
          expect(ours(mine)).toBe(ajvs(theirs));
          expect(ours.errors ?? null).toEqual(ajvs.errors ?? null);
          expect(mine).toEqual(theirs);
        },
      ),
      { seed: 20261122, numRuns: 500 },
    );
  });

  it('give the same field messages through the API’s schema', () => {
    const { ours, ajvs } = compileBoth({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 3 }, items: { type: 'array', items: { type: 'string', maxLength: 2 } } },
    });
    for (const body of [{ name: '' }, { name: '😀😀😀😀' }, { name: 'abcd' }, { name: '😀😀😀', items: ['abc', '😀😀', '😀😀😀'] }]) {
      const a = structuredClone(body);
      const b = structuredClone(body);
      expect(ours(a)).toBe(ajvs(b));
      expect(ours.errors).toEqual(ajvs.errors);
    }
  });
});

// The canonical form of actor e-mail addresses and the refusal of look-alikes (src/lib/actor.ts):
// examples, then properties over generated addresses and arbitrary Unicode text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actorProblem, canonicalActor, sameActor } from '../../src/lib/actor.ts';

describe('canonicalActor', () => {
  it.each([
    ['boss@x.com', 'boss@x.com'],
    ['BOSS@X.COM', 'boss@x.com'],
    ['\uff42oss@x.com', 'boss@x.com'],
    ['\uff42\uff4f\uff53\uff53\uff20\uff58.\uff43\uff4f\uff4d', 'boss@x.com'],
    ['\u{1d41b}oss@x.com', 'boss@x.com'],
    ['boss@x.com.', 'boss@x.com'],
    ['boss@x.com...', 'boss@x.com'],
    ['"boss"@x.com', 'boss@x.com'],
    ['"bo\\"ss"@x.com', 'bo"ss@x.com'],
    ['"\\"boss\\""@x.com', 'boss@x.com'],
    ['boss+1@x.com', 'boss@x.com'],
    ['boss+a+b@x.com', 'boss@x.com'],
    ['"Boss+approvals"@X.Com.', 'boss@x.com'],
    ['"boss"+1@x.com', 'boss@x.com'],
    ['boss\u200b@x.com', 'boss@x.com'],
    ['bo\u00adss@x.com', 'boss@x.com'],
    ['boss@b\u00fccher.de', 'boss@xn--bcher-kva.de'],
    ['boss@B\u00dcCHER.de.', 'boss@xn--bcher-kva.de'],
    ['\u1d2c@x.com', 'a@x.com'],
    // Kept: a +tag with nothing before it, and what is not an address at all.
    ['+tag@x.com', '+tag@x.com'],
    ['Not An Address', 'not an address'],
  ])('%j → %j', (input, canonical) => {
    expect(canonicalActor(input)).toBe(canonical);
  });

  it('tells different people apart', () => {
    expect(sameActor('boss@x.com', 'boss@y.com')).toBe(false);
    expect(sameActor('boss@x.com', 'bos@x.com')).toBe(false);
    expect(sameActor('b.oss@x.com', 'boss@x.com')).toBe(false);
    expect(sameActor('b\u03bfss@x.com', 'boss@x.com')).toBe(false);
  });
});

describe('actorProblem', () => {
  it.each([
    ['boss\u200b@x.com', 'invisible'],
    ['bo\u2060ss@x.com', 'invisible'],
    ['bo\u00adss@x.com', 'invisible'],
    ['boss@x\u200c.com', 'invisible'],
    ['\ufeffboss@x.com', 'invisible'],
    ['boss\u0007@x.com', 'invisible'],
    ['boss\ue000@x.com', 'invisible'],
    ['boss\u{e0041}@x.com', 'invisible'],
    ['boss\ufe0f@x.com', 'invisible'],
    ['boss\u3164@x.com', 'invisible'],
    ['b\u03bfss@x.com', 'mixedScripts'],
    ['b\u043ess@x.com', 'mixedScripts'],
    ['\u0430dmin@x.com', 'mixedScripts'],
    // Mathematical omicron is Common, but NFKC makes it Greek.
    ['b\u{1d6d0}ss@x.com', 'mixedScripts'],
    ['\u0570ello@x.com', 'mixedScripts'],
  ])('%j: %s', (input, problem) => {
    expect(actorProblem(input)).toBe(problem);
  });

  it.each([
    'boss@x.com',
    '\uff42oss@x.com',
    '"boss"@x.com',
    'boss+1@x.com',
    'o\u2019brien@x.com',
    '\u03c0\u03b1\u03cd\u03bb\u03bf\u03c2.2_1-0@x.com',
    '\u0438\u0432\u0430\u043d@x.ru',
    'jos\u00e9@x.com',
    'jose\u0301@x.com',
    '\u5c71\u7530\u305f\u308d\u3046@x.jp',
    '\u5f20\u4f1f@x.cn',
    'boss@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444',
    'boss@b\u00fccher.de',
  ])('%j is accepted', (input) => {
    expect(actorProblem(input)).toBeUndefined();
  });
});

// Generated addresses: ASCII local parts, tags and domains, where every variant below is known to
// be the same mailbox.
const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-'), minLength: 1, maxLength: 12 });
const letters = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 1, maxLength: 8 });
const address = fc.record({ local: letters.chain((head) => word.map((rest) => head + rest)), domain: fc.array(letters, { minLength: 2, maxLength: 3 }).map((labels) => labels.join('.')) });
/** ASCII → its fullwidth form (U+FF01–U+FF5E). */
const fullwidth = (text: string) => text.replace(/[!-~]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));
const invisible = fc.constantFrom('\u200b', '\u200c', '\u200d', '\u2060', '\u00ad', '\ufeff', '\u200e', '\u202e', '\u2066', '\u180e');

describe('properties', () => {
  it('idempotent, and never throws, on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const once = canonicalActor(text);
        expect(canonicalActor(once)).toBe(once);
        actorProblem(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('idempotent on text built from the characters that matter', () => {
    const tricky = fc.constantFrom(...'aA"\\+@.ß\u03a3\u03c2\u1d2c\u212a\u0130\ufb03\uff20\uff02\uff0b\u200b\u00ad\u0301\u3164\u1160');
    fc.assert(
      fc.property(fc.string({ unit: tricky, maxLength: 20 }), (text) => {
        const once = canonicalActor(text);
        expect(canonicalActor(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });

  it('invariant under case, NFKC/NFKD, fullwidth forms, quotes, +tags and a trailing dot', () => {
    fc.assert(
      fc.property(address, letters, invisible, ({ local, domain }, tag, hidden) => {
        const plain = `${local}@${domain}`;
        const c = canonicalActor(plain);
        expect(c).toBe(`${local.toLowerCase()}@${domain.toLowerCase()}`);
        for (const variant of [
          plain.toUpperCase(),
          plain.normalize('NFKD'),
          fullwidth(plain),
          `"${local}"@${domain}`,
          `${local}+${tag}@${domain}`,
          `"${local}+${tag}"@${domain.toUpperCase()}.`,
          `${local}@${domain}.`,
          `${local.slice(0, 1)}${hidden}${local.slice(1)}@${domain}`,
        ]) {
          expect(canonicalActor(variant), variant).toBe(c);
        }
      }),
    );
  });

  it('NFKC does not change the canonical form of any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), (text) => {
        expect(canonicalActor(text.normalize('NFKC'))).toBe(canonicalActor(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('an invisible character anywhere is refused; a Greek or Cyrillic letter among Latin ones is refused', () => {
    const confusable = fc.constantFrom('\u03bf', '\u03b1', '\u03b5', '\u03c1', '\u043e', '\u0430', '\u0435', '\u0440', '\u0441', '\u0445', '\u0456');
    fc.assert(
      fc.property(address, invisible, confusable, fc.nat(), ({ local, domain }, hidden, letter, at) => {
        const plain = `${local}@${domain}`;
        expect(actorProblem(plain)).toBeUndefined();
        const i = at % (plain.length + 1);
        expect(actorProblem(plain.slice(0, i) + hidden + plain.slice(i))).toBe('invisible');
        // The local part starts with a Latin letter: a confusable inserted anywhere in it mixes.
        const j = at % (local.length + 1);
        expect(actorProblem(`${local.slice(0, j)}${letter}${local.slice(j)}@${domain}`)).toBe('mixedScripts');
      }),
    );
  });
});

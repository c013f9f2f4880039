// The JSON body parser (src/http/json-body.ts) must answer every body exactly as Fastify's own
// parser (secure-json-parse, proto and constructor poisoning refused) does: the same value, or the
// same error. Checked on hand-picked bodies and on generated ones, through a bare Fastify
// instance with each parser; plus the route-level behaviour through the real app.
import Fastify from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainJson, registerJsonParser } from '../../src/http/json-body.ts';
import type { App } from '../../src/http/types.ts';

type Outcome = { status: number; body: string };

function echoServer(withOurs: boolean) {
  // Room for the bodies parsed one event-loop turn later (1 MiB and more).
  const app = Fastify({ bodyLimit: 4 << 20 });
  if (withOurs) registerJsonParser(app as unknown as App);
  app.post('/', async (request) => ({ value: request.body }));
  return app;
}

const ours = echoServer(true);
const fastifys = echoServer(false);

beforeAll(async () => {
  await Promise.all([ours.ready(), fastifys.ready()]);
});
afterAll(async () => {
  await Promise.all([ours.close(), fastifys.close()]);
});

async function outcome(app: ReturnType<typeof echoServer>, payload: string): Promise<Outcome> {
  const res = await app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload });
  return { status: res.statusCode, body: res.body };
}

async function expectSame(payload: string): Promise<Outcome> {
  const [a, b] = await Promise.all([outcome(ours, payload), outcome(fastifys, payload)]);
  expect(a, payload.slice(0, 200)).toEqual(b);
  return a;
}

describe('the JSON body parser', () => {
  it.each([
    ['an object', '{"a":1,"b":[true,null,"x"]}'],
    ['a byte-order mark first', '\uFEFF{"a":1}'],
    ['__proto__ at the top', '{"__proto__":{"polluted":"yes"},"a":1}'],
    ['__proto__ nested', '{"x":{"__proto__":{"polluted":"yes"}}}'],
    ['__proto__ escaped', '{"\\u005f_proto__":{"polluted":"yes"}}'],
    ['__proto__ escaped differently', '{"_\\u005Fproto\\u005F_":{"polluted":"yes"}}'],
    ['__proto__ with a space before the colon', '{"__proto__" :{"polluted":"yes"}}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":"yes"}}}'],
    ['constructor escaped', '{"\\u0063onstructor":{"prototype":{"polluted":"yes"}}}'],
    ['constructor without prototype', '{"constructor":{"name":"ok"}}'],
    ['the words as values', '{"a":"__proto__","b":"constructor","c":"proto"}'],
    ['an escaped character elsewhere', '{"name":"Chis\\u00f3mo"}'],
    ['an escaped NUL', '{"name":"a\\u0000b"}'],
    ['empty', ''],
    ['whitespace', '   '],
    ['not JSON', '{"a":'],
    ['a bare number', '42'],
    ['a bare string', '"x"'],
    ['null', 'null'],
    ['an array', '[1,2,3]'],
  ])('%s: answered as Fastify answers it', async (_what, payload) => {
    await expectSame(payload);
  });

  it('answers large bodies (parsed a turn later) exactly as Fastify does', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => ({ beneficiaryName: `Name ${i}`, transactionAmount: i + 0.5 }));
    const large = JSON.stringify({ transactions: lines });
    expect(large.length).toBeGreaterThan(1 << 20);
    const answer = await expectSame(large);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { value: { transactions: unknown[] } }).value.transactions).toHaveLength(20_000);
    // Refused at the very end of the text, and not JSON at all.
    for (const payload of [`${large.slice(0, -1)},"x":{"__proto__":{"polluted":"yes"}}}`, `${large.slice(0, -1)},"constructor":{"prototype":{}}}`, large.slice(0, -1)]) {
      expect((await expectSame(payload)).status).toBe(400);
    }
  });

  it('refuses the poisoned bodies (400), not only the same way', async () => {
    for (const payload of ['{"__proto__":{"x":1}}', '{"\\u005f_proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
      expect((await outcome(ours, payload)).status).toBe(400);
    }
  });

  it('takes the fast path only for text without escapes and without the two keys', () => {
    expect(plainJson('{"a":"b"}')).toBe(true);
    expect(plainJson('')).toBe(false);
    expect(plainJson('{"a":"\\u0041"}')).toBe(false);
    expect(plainJson('{"__proto__":1}')).toBe(false);
    expect(plainJson('{"x":{"__proto__" :1}}')).toBe(false);
    expect(plainJson('{"constructor":{"prototype":1}}')).toBe(false);
    expect(plainJson('{"prototype" : 1}')).toBe(false);
    // A constructor key without a prototype key cannot be refused.
    expect(plainJson('{"constructor":{"name":"x"}}')).toBe(true);
    expect(plainJson('{"a":"proto","b":"constructor","c":"type"}')).toBe(true);
  });

  it('answers generated bodies exactly as Fastify does', async () => {
    const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype', '_\\u005fproto__'));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.dictionary(key, tie('node'), { maxKeys: 4 }), fc.array(tie('node'), { maxLength: 3 })),
    })).node;
    const text = fc.oneof(
      value.map((v) => JSON.stringify(v) ?? 'null'),
      // Raw edits of valid JSON: keys spelled with escapes, truncations, stray characters.
      fc.tuple(value, fc.nat(), fc.constantFrom('', '\\u005f', '"__proto__":', '{', '}', ',', '\uFEFF')).map(([v, at, insert]) => {
        const s = JSON.stringify(v) ?? 'null';
        const i = at % (s.length + 1);
        return s.slice(0, i) + insert + s.slice(i);
      }),
    );
    await fc.assert(
      fc.asyncProperty(text, async (payload) => {
        await expectSame(payload);
      }),
      { numRuns: 400, seed: 20261122 },
    );
  });
});

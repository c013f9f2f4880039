// A console request refused by the scope (no session: redirect to sign-in; a role that may not see
// the section: 403) is answered once, and nothing runs after the answer. The scope's hook awaited
// the refusal and tested what came back: a Fastify reply is a thenable, so awaiting it gave
// undefined once the answer was sent, and the hook went on (the CSRF check answered a second time:
// "Reply was already sent" at level 40).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../../src/app.ts';
import { appLoggingTo, startTestApp, type TestApp } from '../../helpers.ts';

let t: TestApp;
let logged: BuiltApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  logged = await appLoggingTo(t, lines);
});
afterAll(async () => {
  await logged?.app.close();
  await t?.close();
});

const warningsSince = (from: number) => lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => Number(l.level) >= 40);
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('a refused console request', () => {
  it.each([
    ['GET a page', 'GET', '/console/payouts'],
    ['POST an action', 'POST', '/console/payouts/single'],
    ['GET by htmx', 'GET', '/console/collections'],
  ])('without a session (%s): sent to sign in once, nothing logged', async (_name, method, url) => {
    const from = lines.length;
    const res = await logged.app.inject({ method: method as 'GET' | 'POST', url, headers: url === '/console/collections' ? { 'hx-request': 'true' } : {}, payload: method === 'POST' ? 'a=b' : undefined });
    expect([200, 303]).toContain(res.statusCode);
    await settle();
    expect(warningsSince(from)).toEqual([]);
  });
});

// Date pickers and their hints agree (issue 27): a native <input type="date"> shows the browser's
// own format (mm/dd/yyyy in en-US, dd/mm/yyyy elsewhere), so a hint beside it saying "YYYY-MM-DD"
// tells the person to type something the control does not show. Every date input of the console,
// in both languages: the texts that describe it (aria-describedby) name no format. What the
// browser submits is still YYYY-MM-DD, which the routes parse (their own tests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, textOf } from '../client.ts';
import { startTestApp, type TestApp } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';

let t: TestApp;
let c: ConsoleClient;

/** Every page with a native date input (an administrator sees them all). */
const PAGES = ['/console/collections', '/console/analytics', '/console/statements', '/console/team/audit', '/console/developers/api-keys', '/console/developers/webhooks/deliveries', '/console/payouts/upload'];

beforeAll(async () => {
  t = await startTestApp();
  const { admin } = await merchantsAndAdmin(t);
  c = new ConsoleClient(t);
  expect((await c.signIn(admin.email, admin.password)).statusCode).toBe(303);
});
afterAll(async () => {
  await t?.close();
});

/** The date inputs of `html` with the texts their aria-describedby names. */
function dateInputs(html: string): Array<{ id: string; described: string[] }> {
  return [...html.matchAll(/<input\b[^>]*\btype="date"[^>]*>/g)].map(([tag]) => ({
    id: /\sid="([^"]+)"/.exec(tag)?.[1] ?? '?',
    described: (/\saria-describedby="([^"]+)"/.exec(tag)?.[1] ?? '').split(/\s+/).filter(Boolean).map((ref) => textOf(html, ref) ?? ''),
  }));
}

describe('date inputs', () => {
  for (const lang of ['en', 'ny'] as const) {
    it(`are never described with a typed format (${lang})`, async () => {
      let seen = 0;
      for (const path of PAGES) {
        const res = await c.get(`${path}?lang=${lang}`);
        expect(res.statusCode, path).toBe(200);
        for (const input of dateInputs(res.body)) {
          seen += 1;
          for (const text of input.described) expect(text, `${path} #${input.id}`).not.toMatch(/YYYY|MM-DD|DD\/MM|MM\/DD/i);
        }
        // A format named anywhere on a page whose date fields are native is the same mismatch.
        if (dateInputs(res.body).length > 0) expect(res.body, path).not.toMatch(/YYYY-MM-DD\s*\(UTC\)|as YYYY-MM-DD|ngati YYYY-MM-DD/);
      }
      expect(seen).toBeGreaterThanOrEqual(8);
    });
  }
});

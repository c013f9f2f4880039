// The console's request schemas (src/modules/console/kit/schemas.ts, checked by kit/http.ts
// consoleScope): checked only after the session and the CSRF token, as the pages checked by hand
// before they had schemas; then a path that names nothing answers the 404 page and a query or form
// that is not one of ours the 400 page. Fields are read as before: a query field given twice is
// absent, a POST without a body an empty form. No console route is in the API's OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, type Page } from '../client.ts';
import { merchantsAndAdmin, type MerchantsAndAdmin } from '../fixtures.ts';
import { startTestApp, type TestApp } from '../../helpers.ts';

let t: TestApp;
let cast: MerchantsAndAdmin;
let c: ConsoleClient;

const title = (page: Page) => /<title>([^<]*)<\/title>/.exec(page.body)?.[1] ?? '';

beforeAll(async () => {
  t = await startTestApp();
  cast = await merchantsAndAdmin(t);
  c = new ConsoleClient(t);
  expect((await c.signIn(cast.admin.email, cast.admin.password)).statusCode).toBe(303);
});

afterAll(async () => {
  await t?.close();
});

describe('console schemas', () => {
  it('answer a path param its schema refuses with the 404 page, as a batch that is not there', async () => {
    const notANumber = await c.get('/console/payouts/batches/abc');
    const absent = await c.get('/console/payouts/batches/999999');
    expect(notANumber.statusCode).toBe(404);
    expect(absent.statusCode).toBe(404);
    expect(title(notANumber)).toBe(title(absent));
    expect(notANumber.headers['content-type']).toMatch(/^text\/html/);
  });

  it('check nothing before the session: a signed-out visitor is sent to sign in, whatever the path', async () => {
    const stranger = new ConsoleClient(t);
    const page = await stranger.get('/console/payouts/batches/abc');
    expect(page.statusCode).toBe(303);
    expect(String(page.headers.location)).toMatch(/^\/console\/sign-in\?/);
  });

  it('check nothing before the CSRF token: a forged form is refused as forged, not as unreadable', async () => {
    const forged = await c.post('/console/payouts/batches/abc/review', { _csrf: 'not-the-token' });
    expect(forged.statusCode).toBe(403);
  });

  it('read a query field given twice as absent, as the pages always did', async () => {
    const once = await c.get('/console/payouts');
    const twice = await c.get('/console/payouts?status=C&status=X');
    expect(twice.statusCode).toBe(200);
    // The same page but for the addresses that carry the query (the language links).
    const page = (p: Page) => p.body.replace(/name="_csrf" value="[^"]+"/g, '').replace(/nonce="[^"]+"/g, '').replace(/href="[^"]*lang=[^"]*"/g, '');
    expect(page(twice)).toBe(page(once));
  });

  it('refuse a query value its page cannot read with the 400 page', async () => {
    const page = await c.get('/console/payouts?status=Z');
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('read a POST without a body as an empty form (its CSRF token in the header)', async () => {
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/get-paid/requests',
      headers: { cookie, origin: 'http://localhost:80', 'x-csrf-token': c.csrf },
    });
    // The form shown again with its fields refused, not the 400 page of an unreadable request.
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('form-problem');
  });

  it('keep every console route out of the API reference', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});

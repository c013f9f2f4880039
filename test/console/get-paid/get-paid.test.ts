// Getting paid in the console at the HTTP level (app.inject, real database): a request to pay made
// with E12's own service and the signed-in user as its capturer, its page with the timed account and
// the time left (the expiry the database holds); bad input shown back with a message per field in
// English and Chichewa, nothing created; the open ones, newest first, keyset paged (with htmx too),
// an expired one no longer among them; a checkout link made with the checkout service, whose link
// opens the hosted page; a double submit making one request; a viewer refused (page and forged
// POST); another merchant's request the 404 page; every action in the audit log with its user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ct } from '../../../src/modules/console/get-paid/texts.ts';
import { ConsoleClient, consoleUser, freshAuth, textOf, type Page } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let c: ConsoleClient;
let email: string;
let userId: string;

const GET_PAID = '/console/get-paid';

/** The hidden form key of the form with this id on the page. */
function formKeyOf(html: string, formId: string): string {
  const start = html.indexOf(`id="${formId}"`);
  expect(start, `form ${formId}`).toBeGreaterThan(0);
  const key = /name="_form" value="([0-9a-f-]{36})"/.exec(html.slice(start))?.[1];
  if (!key) throw new Error(`no form key in ${formId}`);
  return key;
}

/** The request id a 303 after creating one points at. */
function createdId(res: Page): number {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
  const match = /^\/console\/get-paid\/requests\/(\d+)\?notice=notice\.getPaid\.(requestCreated|checkoutCreated)$/.exec(String(res.headers.location));
  if (!match) throw new Error(`unexpected location ${String(res.headers.location)}`);
  return Number(match[1]);
}

async function signedIn(role: string, who: TestMerchant = m): Promise<{ client: ConsoleClient; email: string; userId: string }> {
  const user = await consoleUser(t, who, { role });
  const client = new ConsoleClient(t);
  const res = await client.signIn(user.email, user.password);
  expect(res.statusCode, res.body).toBe(303);
  return { client, email: user.email, userId: user.userId };
}

/** Posts the request-to-pay form from a fresh page. */
async function createRequest(client: ConsoleClient, fields: Record<string, string>, lang: 'en' | 'ny' = 'en'): Promise<Page> {
  // The language chosen is kept in a cookie: each form is opened in the language it is tested in.
  const form = await client.get(`${GET_PAID}?lang=${lang}`);
  expect(form.statusCode).toBe(200);
  return client.post(`${GET_PAID}/requests`, { _form: formKeyOf(form.body, 'rtp-form'), ...fields });
}

async function createCheckout(client: ConsoleClient, fields: Record<string, string>): Promise<Page> {
  const form = await client.get(GET_PAID);
  return client.post(`${GET_PAID}/checkouts`, { _form: formKeyOf(form.body, 'checkout-form'), ...fields });
}

let refSeq = 0;
const newReference = () => `CONS${Date.now().toString(36).toUpperCase()}${++refSeq}`;

/** E12 through the API, as a merchant's server makes it; its timed account number. */
async function apiRequest(who: TestMerchant, amount: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/collections/requestToPay/initiate`,
    headers: await freshAuth(t, who),
    payload: { merchantAccountNumber: who.merchantAccountNumber, transactionAmount: amount, transactionDescription: 'Order', referenceNumber: newReference(), capturedBy: 'till@shop.mw' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().timedAccountNumber;
}

/** The open list's rows on a page: request ids in order. */
const openIds = (html: string) => [...html.matchAll(/<tr id="open-(\d+)"/g)].map((x) => Number(x[1]));
const requestCount = async (who: TestMerchant) => (await t.db.query<{ n: number }>('select count(*)::int as n from payment_requests where merchant_account_number = $1', [who.merchantAccountNumber])).rows[0].n;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Mphatso Hardware' });
  other = await newMerchant(t, { accountName: 'Another Shop' });
  ({ client: c, email, userId } = await signedIn('MERC_INITIATOR'));
});

afterAll(async () => {
  await t?.close();
});

describe('a request to pay', () => {
  it('is made by E12’s service with the signed-in user as capturer, and its page shows the timed account, the amount and the time left', async () => {
    const reference = newReference();
    const res = await createRequest(c, { amount: '2,500.50', description: 'School shoes, size 5', reference });
    const id = createdId(res);
    const { rows } = await t.db.query(
      `select merchant_account_number, timed_account_number, amount_minor::int as amount_minor, transaction_description, reference_number, captured_by, status_code,
              expires_at, extract(epoch from expires_at - created_at)::int as lifetime_s from payment_requests where request_id = $1`,
      [id],
    );
    expect(rows[0]).toMatchObject({ merchant_account_number: m.merchantAccountNumber, amount_minor: 250050, transaction_description: 'School shoes, size 5', reference_number: reference, captured_by: email, status_code: 'O' });
    expect(rows[0].lifetime_s).toBe(t.deps.config.timedAccountMinutes * 60);
    expect(rows[0].timed_account_number).toMatch(/^1\d{7}$/);

    const shown = await c.get(String(res.headers.location));
    expect(shown.statusCode).toBe(200);
    expect(textOf(shown.body, 'notice')).toBe(ct('en', 'notice.getPaid.requestCreated'));
    expect(textOf(shown.body, 'timed-account')).toBe(rows[0].timed_account_number);
    expect(textOf(shown.body, 'pay-amount')).toBe('MWK 2,500.50');
    // The expiry the database holds, in UTC as text, and for the script (with the seconds left by the database clock).
    const expiresAt = (rows[0].expires_at as Date).toISOString();
    expect(shown.body).toContain(`data-expires-at="${expiresAt}"`);
    expect(textOf(shown.body, 'expiry-text')).toContain(`${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 16)} UTC`);
    const secondsLeft = Number(/data-seconds-left="(\d+)"/.exec(shown.body)?.[1]);
    expect(secondsLeft).toBeGreaterThan(t.deps.config.timedAccountMinutes * 60 - 60);
    expect(secondsLeft).toBeLessThanOrEqual(t.deps.config.timedAccountMinutes * 60);
    // The clock and the live region: the clock hidden until the script runs, the region empty.
    expect(shown.body).toMatch(/<p class="countdown-clock" data-countdown-clock hidden>/);
    expect(shown.body).toMatch(/<p class="visually-hidden" aria-live="polite" aria-atomic="true" id="countdown-live" data-countdown-live><\/p>/);
    // Sandbox mode: a way to pay it as a test customer.
    expect(shown.body).toContain(`href="/console/sandbox?timedAccount=${rows[0].timed_account_number}"`);

    const audit = await t.db.query('select user_id, action, detail from console_audit_log where merchant_account_number = $1 and action = $2', [m.merchantAccountNumber, 'payment_request.create']);
    expect(audit.rows).toEqual([{ user_id: userId, action: 'payment_request.create', detail: { requestId: id, referenceNumber: reference, timedAccountNumber: rows[0].timed_account_number, amountMinor: 250050 } }]);
  });

  it('is paid through the API like one the API made (the same table, the same rules)', async () => {
    const id = createdId(await createRequest(c, { amount: '300', description: 'Paid by API', reference: newReference() }));
    const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where request_id = $1', [id]);
    const paid = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/requestToPay/addFakeTransaction`,
      headers: await freshAuth(t, m),
      payload: { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: '300.00', connectorId: 112400, timedAccountNumber: rows[0].timed_account_number, currencyCode: 'MWK', capturedBy: 'till@shop.mw' },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    const page = await c.get(`${GET_PAID}/requests/${id}`);
    expect(textOf(page.body, 'request-status')).toBe('Paid');
    const reference = paid.json().transaction.transactionReferenceNumber;
    expect(page.body).toContain(`href="/console/collections/${reference}"`);
    expect(openIds((await c.get(GET_PAID)).body)).not.toContain(id);
  });

  it('refuses bad input with a message per field, in English and in Chichewa, shows the input back, and makes nothing', async () => {
    const before = await requestCount(m);
    for (const lang of ['en', 'ny'] as const) {
      const res = await createRequest(c, { amount: '12,5x', description: '', reference: 'AB-1' }, lang);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-language']).toBe(lang);
      expect(textOf(res.body, 'rtp-amount-error')).toBe(ct(lang, 'form.error.amountFormat'));
      expect(textOf(res.body, 'rtp-description-error')).toBe(ct(lang, 'form.error.required'));
      expect(textOf(res.body, 'rtp-reference-error')).toBe(ct(lang, 'getPaid.error.reference', { min: 5, max: 25 }));
      for (const field of ['amount', 'description', 'reference']) expect(res.body).toMatch(new RegExp(`id="rtp-${field}" name="${field}"[^>]*aria-invalid="true"[^>]*aria-describedby="rtp-${field}-hint rtp-${field}-error"`));
      expect(res.body).toContain('value="12,5x"');
      expect(res.body).toContain('value="AB-1"');
      expect(textOf(res.body, 'rtp-problem')).toContain(ct(lang, 'form.fixFields'));
    }
    // Out of the merchant's request-to-pay limit (MWK 100.00 to 10,000,000.00, within E12's own
    // 0.01 to 50,000,000.00), and a description longer than E12 takes.
    const range = await createRequest(c, { amount: '10000000.01', description: 'x'.repeat(201), reference: newReference() });
    expect(range.statusCode).toBe(400);
    expect(textOf(range.body, 'rtp-amount-error')).toBe(ct('en', 'form.error.amountRange', { min: '100.00', max: '10,000,000.00' }));
    expect(textOf(range.body, 'rtp-description-error')).toBe(ct('en', 'form.error.tooLong', { max: 200 }));
    expect(await requestCount(m)).toBe(before);
  });

  it('states and checks the merchant’s own limit on the amount, and shows the service’s refusals on their field', async () => {
    const before = await requestCount(m);
    // The hint reads the limits rather than restating E12's schema (0.01 to 50,000,000.00).
    const form = await c.get('/console/get-paid');
    expect(textOf(form.body, 'rtp-amount-hint')).toBe(ct('en', 'form.amountHint', { min: '100.00', max: '10,000,000.00' }));
    // Within E12's range but under the merchant's minimum: refused on its field, by the same range.
    const small = await createRequest(c, { amount: '5', description: 'Sweets', reference: newReference() });
    expect(small.statusCode).toBe(400);
    expect(textOf(small.body, 'rtp-amount-error')).toBe(ct('en', 'form.error.amountRange', { min: '100.00', max: '10,000,000.00' }));
    expect(small.body).toContain('value="5"');
    // A limit the operator lowers after the page was shown: the form's range follows it at once.
    await t.db.query(`update merchant_limits set maximum_amount_minor = 20000 where merchant_account_number = $1 and transaction_code = 'RTP'`, [m.merchantAccountNumber]);
    try {
      const over = await createRequest(c, { amount: '250', description: 'Lowered', reference: newReference() });
      expect(over.statusCode).toBe(400);
      expect(textOf(over.body, 'rtp-amount-error')).toBe(ct('en', 'form.error.amountRange', { min: '100.00', max: '200.00' }));
    } finally {
      await t.db.query(`update merchant_limits set maximum_amount_minor = 1000000000 where merchant_account_number = $1 and transaction_code = 'RTP'`, [m.merchantAccountNumber]);
    }
    const reference = newReference();
    createdId(await createRequest(c, { amount: '150', description: 'First', reference }));
    const again = await createRequest(c, { amount: '150', description: 'Second', reference });
    expect(again.statusCode).toBe(409);
    expect(textOf(again.body, 'rtp-reference-error')).toContain(reference);
    expect(await requestCount(m)).toBe(before + 1);
  });

  it('is made once when the same form is sent twice (a double click or a resubmitted page)', async () => {
    const form = await c.get(GET_PAID);
    const fields = { _form: formKeyOf(form.body, 'rtp-form'), amount: '720', description: 'Double click', reference: newReference() };
    const before = await requestCount(m);
    const [first, second] = await Promise.all([c.post(`${GET_PAID}/requests`, fields), c.post(`${GET_PAID}/requests`, fields)]);
    expect(createdId(first)).toBe(createdId(second));
    const third = await c.post(`${GET_PAID}/requests`, fields);
    expect(createdId(third)).toBe(createdId(first));
    expect(await requestCount(m)).toBe(before + 1);
  });
});

describe('the open ones', () => {
  it('lists open requests and links, newest first, a page at a time, with and without htmx; an expired one is not open', async () => {
    // Requests of every origin are listed: the API's too.
    for (let i = 0; i < 27; i++) await apiRequest(m, `${200 + i}.00`);
    const newest = createdId(await createRequest(c, { amount: '999', description: 'Newest', reference: newReference() }));
    const { rows } = await t.db.query<{ request_id: string }>(
      `select request_id from payment_requests where merchant_account_number = $1 and status_code = 'O' and expires_at > now() order by created_at desc, request_id desc`,
      [m.merchantAccountNumber],
    );
    const expected = rows.map((r) => Number(r.request_id));
    expect(expected[0]).toBe(newest);
    expect(expected.length).toBeGreaterThan(25);

    const first = await c.get(GET_PAID);
    expect(openIds(first.body)).toEqual(expected.slice(0, 25));
    const next = /href="([^"]+)"[^>]*id="open-requests-next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/console\/get-paid\?after=/);
    const second = await c.get(next!);
    expect(openIds(second.body)).toEqual(expected.slice(25));
    // htmx asks for the list alone.
    const region = await c.get(next!, { 'hx-request': 'true', 'hx-target': 'open-requests' });
    expect(region.body.startsWith('<section class="results" id="open-requests"')).toBe(true);
    expect(openIds(region.body)).toEqual(expected.slice(25));
    // A forged cursor is a 400 page, not a 500.
    expect((await c.get(`${GET_PAID}?after=AAAA`)).statusCode).toBe(400);

    // Expiry is judged by the database clock, as payTimedAccount judges it (moving the
    // application's clock expires nothing): the request's lifetime is moved into the past.
    await t.db.query(`update payment_requests set created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' where request_id = $1`, [newest]);
    const listed: number[] = [];
    for (let url: string | undefined = GET_PAID; url; ) {
      const shown = await c.get(url);
      listed.push(...openIds(shown.body));
      url = /href="([^"]+)"[^>]*id="open-requests-next"/.exec(shown.body)?.[1]?.replace(/&amp;/g, '&');
    }
    expect(listed).toEqual(expected.slice(1));
    const page = await c.get(`${GET_PAID}/requests/${newest}`);
    expect(textOf(page.body, 'request-status')).toBe('Expired');
    expect(page.body).not.toContain('data-expires-at');
  });
});

describe('a checkout link', () => {
  it('is made by the checkout service for the signed-in user, and its link opens the hosted page', async () => {
    const res = await createCheckout(c, { amount: '1500', description: 'Mattress <queen>', sourceReference: 'INV-2026-0042', successUrl: 'https://shop.example.mw/paid', failureUrl: 'https://shop.example.mw/failed' });
    const id = createdId(res);
    const { rows } = await t.db.query(
      'select payment_transaction_id, source_reference_number, success_redirect_url, failure_redirect_url, callback_api_url, captured_by, amount_minor::int as amount_minor from payment_requests where request_id = $1',
      [id],
    );
    expect(rows[0]).toMatchObject({ source_reference_number: 'INV-2026-0042', success_redirect_url: 'https://shop.example.mw/paid', failure_redirect_url: 'https://shop.example.mw/failed', callback_api_url: null, captured_by: email, amount_minor: 150000 });
    const page = await c.get(String(res.headers.location));
    expect(textOf(page.body, 'notice')).toBe(ct('en', 'notice.getPaid.checkoutCreated'));
    const link = /id="checkout-url" value="([^"]+)"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    expect(link).toBe(`http://localhost:80/checkout/pay?ptid=${rows[0].payment_transaction_id}`);
    // The copy button waits for the script; the description is text.
    expect(page.body).toMatch(/<button class="link-button copy-button" type="button" data-copy-from="checkout-url"[^>]*hidden>/);
    expect(page.body).toContain('Mattress &lt;queen&gt;');
    const opened = await t.app.inject({ method: 'GET', url: new URL(link!).pathname + new URL(link!).search });
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('1,500.00');
    expect(opened.body).toContain('Mattress &lt;queen&gt;');
    expect(openIds((await c.get(GET_PAID)).body)).toContain(id);

    const audit = await t.db.query<{ detail: Record<string, unknown> }>('select detail from console_audit_log where merchant_account_number = $1 and action = $2', [m.merchantAccountNumber, 'checkout.create']);
    expect(audit.rows.map((r) => r.detail.requestId)).toEqual([id]);
    // The link's id guards the page: it is not in the log.
    expect(JSON.stringify(audit.rows)).not.toContain(rows[0].payment_transaction_id);
  });

  it('refuses bad addresses and references field by field, the service’s refusal of an address included', async () => {
    const before = await requestCount(m);
    const bad = await createCheckout(c, { amount: '10', description: '', sourceReference: '-bad ref', successUrl: 'javascript:alert(1)', failureUrl: '' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'checkout-description-error')).toBe(ct('en', 'form.error.required'));
    expect(textOf(bad.body, 'checkout-sourceReference-error')).toBe(ct('en', 'getPaid.error.sourceReference', { max: 50 }));
    expect(textOf(bad.body, 'checkout-successUrl-error')).toBe(ct('en', 'getPaid.error.url', { max: 2048 }));
    expect(textOf(bad.body, 'checkout-failureUrl-error')).toBe(ct('en', 'form.error.required'));
    expect(bad.body).toContain('value="javascript:alert(1)"');
    // The request-to-pay form on the same page is untouched.
    expect(bad.body).not.toContain('id="rtp-amount-error"');
    // Credentials in the address: the checkout service's own refusal, placed on its field.
    const credentials = await createCheckout(c, { amount: '150', description: 'Soap', sourceReference: 'ORD-1', successUrl: 'https://shop.example.mw/ok', failureUrl: 'https://user:secret@shop.example.mw/no' });
    expect(credentials.statusCode).toBe(400);
    expect(textOf(credentials.body, 'checkout-failureUrl-error')).toBe(ct('en', 'getPaid.error.url', { max: 2048 }));
    expect(textOf(credentials.body, 'checkout-successUrl-error')).toBeUndefined();
    expect(await requestCount(m)).toBe(before);
  });

  it('is made once for a form sent twice', async () => {
    const form = await c.get(GET_PAID);
    const fields = { _form: formKeyOf(form.body, 'checkout-form'), amount: '640', description: 'Twice', sourceReference: 'ORD-TWICE', successUrl: 'https://shop.example.mw/ok', failureUrl: 'https://shop.example.mw/no' };
    const before = await requestCount(m);
    const [a, b] = await Promise.all([c.post(`${GET_PAID}/checkouts`, fields), c.post(`${GET_PAID}/checkouts`, fields)]);
    expect(createdId(a)).toBe(createdId(b));
    expect(await requestCount(m)).toBe(before + 1);
  });
});

describe('who may', () => {
  it('refuses a viewer the page and a forged POST, and shows no link to it', async () => {
    const viewer = await signedIn('MERC_VIEWER');
    const home = await viewer.client.get('/console');
    expect(home.body).not.toContain('href="/console/get-paid"');
    expect((await viewer.client.get(GET_PAID)).statusCode).toBe(403);
    const before = await requestCount(m);
    const forged = await viewer.client.post(`${GET_PAID}/requests`, { _form: crypto.randomUUID(), amount: '500', description: 'Forged', reference: newReference() });
    expect(forged.statusCode).toBe(403);
    const forgedCheckout = await viewer.client.post(`${GET_PAID}/checkouts`, { _form: crypto.randomUUID(), amount: '500', description: 'Forged', sourceReference: 'X1', successUrl: 'https://a.mw', failureUrl: 'https://a.mw' });
    expect(forgedCheckout.statusCode).toBe(403);
    expect(await requestCount(m)).toBe(before);
  });

  it('answers another merchant’s request, and an id that is none, with the 404 page', async () => {
    await apiRequest(other, '250.00');
    const { rows } = await t.db.query<{ request_id: string }>('select request_id from payment_requests where merchant_account_number = $1 limit 1', [other.merchantAccountNumber]);
    const foreign = await c.get(`${GET_PAID}/requests/${rows[0].request_id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('Another Shop');
    expect((await c.get(`${GET_PAID}/requests/abc`)).statusCode).toBe(404);
    expect((await c.get(`${GET_PAID}/requests/99999999999999999999`)).statusCode).toBe(404);
    // Nor is it among this merchant's open ones.
    expect(openIds((await c.get(GET_PAID)).body)).not.toContain(Number(rows[0].request_id));
  });
});

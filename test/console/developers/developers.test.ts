// The console's developers pages at the HTTP level (app.inject against a real database, the real
// webhook dispatcher and a real receiver on 127.0.0.1):
//   - API keys: the list as the API lists it, never a secret; generate → the secret shown once
//     (no-store, in no address, audit entry, stored outcome) and the new key gets a token and calls
//     the API; a double submission makes one key; deactivate → no token, and its tokens stop;
//     activate again; delete behind its confirmation form; refusals re-shown per field; a stale
//     page (already inactive) gets a message; another merchant's key is the 404 page;
//   - webhooks: add (per-field refusals, a duplicate event), a failing receiver's delivery with its
//     attempts in the log and on its page (headers with the signatures masked, the response body
//     escaped), the receiver fixed, redelivered from the console with the same webhook-id; a test
//     event; change, verify a signature, redeliver every failed one of a period, delete;
//   - every role but the administrator gets the 403 page, also for a forged POST.
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../../src/modules/webhooks/dispatcher.ts';
import { ConsoleClient, consoleUser, textOf, type Page } from '../client.ts';
import { BASE, startTestApp, until, type TestApp, type TestMerchant } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';
import { customPayment } from '../../money-ops.ts';

const KEYS = '/console/developers/api-keys';
const WEBHOOKS = '/console/developers/webhooks';
const DELIVERIES = '/console/developers/webhooks/deliveries';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let admin: ConsoleClient;
let dispatcher: WebhookDispatcher;

// ---------------------------------------------------------------------------------------------
// A real receiver

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

class Receiver {
  readonly requests: Received[] = [];
  status = 500;
  body = '<b>boom</b> & "more"';
  private server: http.Server | undefined;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/onekhusa`;
  }

  async listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(this.status, { 'content-type': 'text/plain' });
        res.end(this.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const receiver = new Receiver();

beforeAll(async () => {
  // Two attempts per round, 50 ms apart: a failing receiver fails a delivery quickly.
  t = await startTestApp({}, { webhookRetryScheduleMs: [0, 50], webhookTimeoutMs: 2000, webhookLeaseMs: 5000 });
  const cast = await merchantsAndAdmin(t, { merchant: { accountName: 'Developers Shop' } });
  ({ m, other } = cast);
  const user = cast.admin;
  admin = new ConsoleClient(t, '10.9.0.1');
  expect((await admin.signIn(user.email, user.password)).statusCode).toBe(303);
  await receiver.listen();
  dispatcher = new WebhookDispatcher(t.deps);
  await dispatcher.start();
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver.close();
  await t?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers

const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The form key of the form posting to `action` on `html`. */
function formKey(html: string, action: string): string {
  const at = html.indexOf(`action="${action}"`);
  if (at < 0) throw new Error(`no form posting to ${action}`);
  const key = /name="_form" value="([^"]+)"/.exec(html.slice(at))?.[1];
  if (!key) throw new Error(`no form key after ${action}`);
  return key;
}

async function post(c: ConsoleClient, pageUrl: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
  const form = await c.get(pageUrl);
  expect(form.statusCode, form.body).toBe(200);
  return c.post(action, { _form: formKey(form.body, action), ...fields });
}

async function tokenFor(key: string, secret: string, who: TestMerchant = m) {
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/account/getAccessToken`,
    payload: { apiKey: key, apiSecret: secret, organisationId: who.organisationId, merchantAccountNumber: who.merchantAccountNumber },
  });
}

async function listKeysOverApi(authorization: string) {
  return t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { authorization } });
}

async function keyRows(merchant: TestMerchant = m) {
  const { rows } = await t.db.query<{ client_id: number; client_key: string; status_code: string; date_deleted: Date | null }>(
    'select client_id, client_key, status_code, date_deleted from api_keys where merchant_account_number = $1 order by client_id',
    [merchant.merchantAccountNumber],
  );
  return rows.map((r) => ({ ...r, client_id: Number(r.client_id) }));
}

/** Generates a key through the console; its key, secret and id. */
async function generateKey(fields: Record<string, string> = {}): Promise<{ key: string; secret: string; clientId: number; page: Page }> {
  const res = await post(admin, KEYS, `${KEYS}/generate`, fields);
  expect(res.statusCode, res.body).toBe(200);
  const key = textOf(res.body, 'new-key')!;
  const secret = textOf(res.body, 'new-secret')!;
  const row = (await keyRows()).find((r) => r.client_key === key);
  expect(row, key).toBeDefined();
  return { key, secret, clientId: row!.client_id, page: res };
}

async function auditOf(action: string) {
  const { rows } = await t.db.query<{ detail: Record<string, unknown>; user_id: string | null }>(
    'select detail, user_id from console_audit_log where merchant_account_number = $1 and action = $2 order by at, audit_id',
    [m.merchantAccountNumber, action],
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------
// API keys

describe('console API keys', () => {
  it('lists the keys as the API lists them, never a secret', async () => {
    const page = await admin.get(KEYS);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    const api = await listKeysOverApi(m.auth.authorization);
    expect(api.statusCode, api.body).toBe(200);
    const keys = api.json() as Array<{ clientKey: string; clientId: number }>;
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(textOf(page.body, `key-${k.clientId}`)).toBe(k.clientKey);
      expect(page.body).toContain(`id="key-row-${k.clientId}"`);
    }
    // The merchant's first key's secret exists only with the test (createMerchant answered it once).
    expect(page.body).not.toContain(m.apiSecret);
    expect(textOf(page.body, 'organisation-id')).toBe(m.organisationId);
    // The overview links here.
    const overview = await admin.get('/console/developers');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain(`href="${KEYS}"`);
    expect(textOf(overview.body, 'summary-keys')).toBe(`Active keys: ${keys.length}. Inactive keys: 0.`);
    // In Chichewa too (the choice is kept in a cookie: back to English after).
    const ny = await admin.get(`${KEYS}?lang=ny`);
    expect(ny.body).toContain('<h1>Makiyi a API</h1>');
    expect((await admin.get(`${KEYS}?lang=en`)).body).toContain('<h1>API keys</h1>');
  });

  it('generates a key: the secret is shown once, kept nowhere, and the new key works over the API', async () => {
    const before = (await keyRows()).length;
    const { key, secret, clientId, page } = await generateKey();
    expect((await keyRows()).length).toBe(before + 1);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers.location).toBeUndefined();
    expect(secret).toMatch(/^[A-Za-z0-9]{45}$/);
    expect(textOf(page.body, 'secret-warning')).toContain('it will not be shown again');
    // The copy button is there, hidden until the script shows it; the secret is plain text.
    expect(page.body).toMatch(/<button[^>]*id="copy-secret"[^>]*hidden[^>]*data-copy="#new-secret"/);

    // The key works: a token, then an API call with it.
    const token = await tokenFor(key, secret);
    expect(token.statusCode, token.body).toBe(200);
    const listed = await listKeysOverApi(`Bearer ${token.json().accessToken as string}`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect((listed.json() as Array<{ clientKey: string; clientSecret: null }>).find((k) => k.clientKey === key)?.clientSecret).toBeNull();

    // The list shows it, without its secret; nothing stored holds the secret.
    const list = await admin.get(KEYS);
    expect(textOf(list.body, `key-${clientId}`)).toBe(key);
    expect(list.body).not.toContain(secret);
    const audit = await auditOf('api_key.generate');
    expect(audit.at(-1)?.detail).toEqual({ clientId, clientKey: key, expiryDate: null });
    const { rows: everything } = await t.db.query<{ text: string }>(
      `select coalesce(string_agg(a::text, ' '), '') as text from console_audit_log a
       union all select coalesce(string_agg(f::text, ' '), '') from console_form_submissions f`,
    );
    for (const r of everything) expect(r.text).not.toContain(secret);
    const { rows: outcomes } = await t.db.query<{ outcome: { location: string } }>("select outcome from console_form_submissions where action = 'api_key.generate'");
    expect(outcomes.length).toBeGreaterThan(0);
    for (const o of outcomes) expect(o.outcome.location).toBe('/console/developers/api-keys?notice=notice.developers.keyGeneratedEarlier');
  });

  it('makes one key for a form sent twice, one after the other or racing', async () => {
    const before = (await keyRows()).length;
    const form = await admin.get(KEYS);
    const key = formKey(form.body, `${KEYS}/generate`);
    const first = await admin.post(`${KEYS}/generate`, { _form: key });
    expect(first.statusCode).toBe(200);
    const again = await admin.post(`${KEYS}/generate`, { _form: key });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/console/developers/api-keys?notice=notice.developers.keyGeneratedEarlier');
    expect(again.body).not.toContain(textOf(first.body, 'new-secret')!);
    const shown = await admin.get(String(again.headers.location));
    expect(textOf(shown.body, 'notice')).toContain('This form had already been sent');
    expect((await keyRows()).length).toBe(before + 1);

    const racing = formKey((await admin.get(KEYS)).body, `${KEYS}/generate`);
    const both = await Promise.all([admin.post(`${KEYS}/generate`, { _form: racing }), admin.post(`${KEYS}/generate`, { _form: racing })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 303]);
    expect((await keyRows()).length).toBe(before + 2);
  });

  it('re-shows a refused expiry with its message, and takes a good one', async () => {
    const before = (await keyRows()).length;
    const bad = await post(admin, KEYS, `${KEYS}/generate`, { expiry: '2026-02-30' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'expiry-error')).toBe('This is not a date: write it as YYYY-MM-DD.');
    expect(bad.body).toMatch(/<input id="expiry" name="expiry" type="date" value="2026-02-30" aria-invalid="true"/);
    expect(textOf(bad.body, 'generate-error')).toBe('Nothing was changed: check the marked fields.');
    const past = await post(admin, KEYS, `${KEYS}/generate`, { expiry: '2020-01-01' });
    expect(past.statusCode).toBe(400);
    expect(textOf(past.body, 'expiry-error')).toBe('2020-01-01 is over: choose today or a later day.');
    expect((await keyRows()).length).toBe(before);

    const day = new Date(t.clock.now().getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
    const { clientId } = await generateKey({ expiry: day });
    const { rows } = await t.db.query<{ expiry_date: Date }>('select expiry_date from api_keys where client_id = $1', [clientId]);
    // Works through that day (UTC): stops at the start of the next.
    expect(rows[0].expiry_date.toISOString()).toBe(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString());
  });

  it('deactivates (no token, its tokens stop), refuses a stale second deactivation, activates again, deletes after confirming', async () => {
    const { key, secret, clientId } = await generateKey();
    const token = `Bearer ${(await tokenFor(key, secret)).json().accessToken as string}`;
    expect((await listKeysOverApi(token)).statusCode).toBe(200);

    const off = await post(admin, KEYS, `${KEYS}/${clientId}/deactivate`);
    expect(off.statusCode, off.body).toBe(303);
    expect(off.headers.location).toBe(`${KEYS}?notice=notice.developers.keyDeactivated`);
    expect((await tokenFor(key, secret)).statusCode).toBe(401);
    expect((await listKeysOverApi(token)).statusCode).toBe(401);
    expect(await auditOf('api_key.deactivate')).toContainEqual(expect.objectContaining({ detail: { clientId, clientKey: key } }));

    // A page shown before the change, with its Deactivate form: a clear message, nothing changed.
    const stalePage = await admin.get(KEYS);
    const staleKey = formKey(stalePage.body, `${KEYS}/${clientId}/activate`);
    const stale = await admin.post(`${KEYS}/${clientId}/deactivate`, { _form: staleKey });
    expect(stale.statusCode).toBe(409);
    expect(textOf(stale.body, 'form-error')).toBe(`Key ${key} is already inactive: nothing was changed.`);

    const on = await post(admin, KEYS, `${KEYS}/${clientId}/activate`);
    expect(on.statusCode).toBe(303);
    expect((await tokenFor(key, secret)).statusCode).toBe(200);

    // Delete: the confirmation is a second form inside a <details>.
    const list = await admin.get(KEYS);
    expect(list.body).toMatch(new RegExp(`<details class="confirm" id="delete-${clientId}-details"><summary[^>]*>Delete…</summary><form method="post" action="${KEYS}/${clientId}/delete"`));
    const gone = await post(admin, KEYS, `${KEYS}/${clientId}/delete`);
    expect(gone.statusCode).toBe(303);
    expect((await keyRows()).find((r) => r.client_id === clientId)?.date_deleted).not.toBeNull();
    expect((await tokenFor(key, secret)).statusCode).toBe(401);
    expect((await admin.get(KEYS)).body).not.toContain(`id="key-row-${clientId}"`);
    // Deleted: its address is the 404 page.
    const again = await admin.post(`${KEYS}/${clientId}/activate`, { _form: crypto.randomUUID() });
    expect(again.statusCode).toBe(404);
  });

  it('answers another merchant\'s key, an unknown id and a malformed one with the 404 page, changing nothing', async () => {
    const theirs = (await keyRows(other))[0];
    for (const verb of ['activate', 'deactivate', 'delete']) {
      const res = await admin.post(`${KEYS}/${theirs.client_id}/${verb}`, { _form: crypto.randomUUID() });
      expect(res.statusCode, verb).toBe(404);
      expect(textOf(res.body, 'message-title')).toBe('Page not found');
    }
    expect(await keyRows(other)).toEqual([theirs]);
    expect((await admin.post(`${KEYS}/999999999/deactivate`, { _form: crypto.randomUUID() })).statusCode).toBe(404);
    expect((await admin.post(`${KEYS}/abc/deactivate`, { _form: crypto.randomUUID() })).statusCode).toBe(404);
    // Ids are bigint: one past int4 is looked up (none such), one past the safe integers or of 17 digits names nothing.
    for (const id of ['99999999999', '9999999999999999', '12345678901234567', '0', '01']) {
      expect((await admin.post(`${KEYS}/${id}/deactivate`, { _form: crypto.randomUUID() })).statusCode, id).toBe(404);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Roles

describe('console developers: roles', () => {
  it('refuses every role but the administrator, pages and forged POSTs alike', async () => {
    const before = (await keyRows()).length;
    for (const role of ['MERC_VIEWER', 'MERC_INITIATOR', 'MERC_REVIEWER', 'MERC_APPROVER']) {
      const user = await consoleUser(t, m, { role });
      const c = new ConsoleClient(t, `10.9.1.${role.length}`);
      expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
      const home = await c.get('/console');
      expect(home.body, role).not.toContain('href="/console/developers"');
      for (const url of ['/console/developers', KEYS, WEBHOOKS, DELIVERIES]) {
        const res = await c.get(url);
        expect(res.statusCode, `${role} ${url}`).toBe(403);
      }
      // With this user's own CSRF token (from the home page) and a well-formed form key.
      const forged = await c.post(`${KEYS}/generate`, { _form: crypto.randomUUID() });
      expect(forged.statusCode, role).toBe(403);
      const forgedAdd = await c.post(`${WEBHOOKS}/add`, { _form: crypto.randomUUID(), event: 'payment.success', url: 'https://example.com/x' });
      expect(forgedAdd.statusCode, role).toBe(403);
    }
    expect((await keyRows()).length).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Webhooks

async function subscriptionId(eventCode: string): Promise<number | undefined> {
  const { rows } = await t.db.query<{ webhook_id: string }>('select webhook_id from webhook_subscriptions where merchant_account_number = $1 and event_code = $2', [m.merchantAccountNumber, eventCode]);
  return rows[0] ? Number(rows[0].webhook_id) : undefined;
}

async function deliveryState(deliveryId: number) {
  const { rows } = await t.db.query<{ status: string; total_attempts: number; message_id: string }>('select status, total_attempts, message_id from webhook_deliveries where delivery_id = $1', [deliveryId]);
  return rows[0];
}

describe('console webhooks', () => {
  it('refuses a bad subscription per field, with the input shown again', async () => {
    const empty = await post(admin, WEBHOOKS, `${WEBHOOKS}/add`, { event: '', url: '' });
    expect(empty.statusCode).toBe(400);
    expect(textOf(empty.body, 'add-event-error')).toBe('Choose an event.');
    expect(textOf(empty.body, 'add-url-error')).toBe('Enter the address that receives the events.');
    const unknown = await post(admin, WEBHOOKS, `${WEBHOOKS}/add`, { event: 'payment.sucess', url: 'ftp://shop.example.mw/x' });
    expect(unknown.statusCode).toBe(400);
    expect(textOf(unknown.body, 'add-event-error')).toBe('payment.sucess is not an event OneKhusa sends: choose one of the list.');
    // The URL's refusal is the service's own (the API's message).
    const badUrl = await post(admin, WEBHOOKS, `${WEBHOOKS}/add`, { event: 'payout.failed', url: 'ftp://shop.example.mw/<x>' });
    expect(badUrl.statusCode).toBe(400);
    expect(textOf(badUrl.body, 'add-url-error')).toBe('Callback URL must be an absolute http(s) URL without credentials.');
    expect(badUrl.body).toContain('value="ftp://shop.example.mw/&lt;x&gt;"');
    expect(await subscriptionId('payout.failed')).toBeUndefined();
  });

  it('a failing receiver: the failed delivery with its attempts, redelivered from the console once the receiver is fixed', async () => {
    receiver.status = 500;
    const added = await post(admin, WEBHOOKS, `${WEBHOOKS}/add`, { event: 'payment.success', url: receiver.url });
    expect(added.statusCode, added.body).toBe(303);
    const webhookId = (await subscriptionId('payment.success'))!;
    expect(added.headers.location).toBe(`${WEBHOOKS}/${webhookId}?notice=notice.developers.webhookAdded`);
    expect(await auditOf('webhook.add')).toContainEqual(expect.objectContaining({ detail: { webhookId, eventCode: 'payment.success', host: `127.0.0.1:${receiver.port}` } }));

    // The same event again: refused on its field, with the API's message.
    const duplicate = await post(admin, WEBHOOKS, `${WEBHOOKS}/add`, { event: 'payment.success', url: receiver.url });
    expect(duplicate.statusCode).toBe(409);
    expect(textOf(duplicate.body, 'add-event-error')).toBe('A webhook for event payment.success already exists; update it instead.');

    // A customer pays (through the API): the event goes to the receiver, which fails twice.
    const paid = await customPayment(t, m, 12_345);
    expect(paid.statusCode, paid.body).toBe(200);
    const deliveryId = await until('the delivery fails', async () => {
      const { rows } = await t.db.query<{ delivery_id: string; status: string }>(
        "select delivery_id, status from webhook_deliveries where merchant_account_number = $1 and event_code = 'payment.success' and not is_test order by delivery_id desc limit 1",
        [m.merchantAccountNumber],
      );
      return rows[0]?.status === 'failed' ? Number(rows[0].delivery_id) : undefined;
    }, 15_000, 25);
    const firstId = (await deliveryState(deliveryId)).message_id;
    expect(receiver.requests.length).toBe(2);

    // The log: newest first, the failed delivery with its attempts summed up and a Redeliver button.
    const log = await admin.get(`${DELIVERIES}?status=failed`);
    expect(log.statusCode).toBe(200);
    expect(log.body).toContain(`<tr id="delivery-${deliveryId}" data-status="failed">`);
    expect(textOf(log.body, `delivery-${deliveryId}`)).toContain('Attempts: 2');
    expect(textOf(log.body, `delivery-${deliveryId}`)).toContain('Last: HTTP 500');
    expect(log.body).toContain(`action="${DELIVERIES}/${deliveryId}/redeliver"`);
    const succeededOnly = await admin.get(`${DELIVERIES}?status=succeeded`);
    expect(succeededOnly.body).not.toContain(`id="delivery-${deliveryId}"`);

    // Its page: the request's headers (signatures masked), its body, each attempt with the response escaped.
    const detail = await admin.get(`${DELIVERIES}/${deliveryId}`);
    expect(detail.statusCode).toBe(200);
    const sent = receiver.requests[0];
    expect(detail.body).toContain('x-onekhusa-webhook-signature');
    expect(detail.body).not.toContain(String(sent.headers['x-onekhusa-webhook-signature']));
    expect(detail.body).not.toContain(String(sent.headers['webhook-signature']).slice(3));
    expect(detail.body).toContain(`<code>${firstId}</code>`);
    expect(decode(textOf(detail.body, 'request-body')!)).toBe(sent.body);
    expect(detail.body).toContain('&lt;b&gt;boom&lt;/b&gt; &amp; &quot;more&quot;');
    expect(detail.body).not.toContain('<b>boom</b>');
    expect(textOf(detail.body, 'attempt-1')).toContain('HTTP 500');
    expect(textOf(detail.body, 'attempt-2')).toContain('HTTP 500');
    expect(textOf(detail.body, 'delivery-status')).toBe('Failed');

    // The receiver is fixed; redeliver from the console.
    receiver.status = 200;
    receiver.body = '{"received":true}';
    const again = await post(admin, `${DELIVERIES}/${deliveryId}`, `${DELIVERIES}/${deliveryId}/redeliver`);
    expect(again.statusCode, again.body).toBe(303);
    expect(again.headers.location).toBe(`${DELIVERIES}/${deliveryId}?notice=notice.developers.redelivered`);
    await until('the redelivery succeeds', async () => (await deliveryState(deliveryId)).status === 'succeeded', 15_000, 25);
    expect(receiver.requests.length).toBe(3);
    expect(receiver.requests[2].headers['webhook-id']).toBe(firstId);
    const done = await admin.get(`${DELIVERIES}/${deliveryId}`);
    expect(textOf(done.body, 'delivery-status')).toBe('Delivered');
    expect(textOf(done.body, 'attempt-3')).toContain('HTTP 200');
    expect(await auditOf('webhook.redeliver')).toContainEqual(expect.objectContaining({ detail: { deliveryId, eventCode: 'payment.success' } }));

    // A stale page's second redelivery while it is pending: refused with a message.
    await t.db.query("update webhook_deliveries set status = 'pending', next_attempt_at = now() + interval '1 hour' where delivery_id = $1", [deliveryId]);
    const stale = await admin.post(`${DELIVERIES}/${deliveryId}/redeliver`, { _form: crypto.randomUUID() });
    expect(stale.statusCode).toBe(409);
    expect(textOf(stale.body, 'form-error')).toBe(`Delivery ${deliveryId} is already waiting for its next attempt: nothing was changed.`);
    await t.db.query("update webhook_deliveries set status = 'succeeded', completed_at = now() where delivery_id = $1", [deliveryId]);
  });

  it('sends a test event to the receiver and shows it in the log', async () => {
    receiver.status = 200;
    const webhookId = (await subscriptionId('payment.success'))!;
    const before = receiver.requests.length;
    const sent = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/test`);
    expect(sent.statusCode, sent.body).toBe(303);
    const deliveryId = Number(/\/deliveries\/(\d+)\?notice=notice\.developers\.testSent$/.exec(String(sent.headers.location))?.[1]);
    expect(deliveryId).toBeGreaterThan(0);
    await until('the test event arrives', async () => receiver.requests.length > before, 15_000, 25);
    expect(receiver.requests.at(-1)?.headers['x-onekhusa-webhook-test']).toBe('true');
    expect(JSON.parse(receiver.requests.at(-1)!.body).isTest).toBe(true);
    await until('the test delivery succeeds', async () => (await deliveryState(deliveryId)).status === 'succeeded', 15_000, 25);
    const page = await admin.get(String(sent.headers.location));
    expect(textOf(page.body, 'notice')).toBe('A test event was queued: follow its attempts here.');
    expect(textOf(page.body, 'delivery-status')).toBe('Delivered Test');
  });

  it('changes a subscription, checks signatures, and keeps the signature out of the audit log', async () => {
    const webhookId = (await subscriptionId('payment.success'))!;
    const { rows } = await t.db.query<{ webhook_signature: string }>('select webhook_signature from webhook_subscriptions where webhook_id = $1', [webhookId]);
    const signature = rows[0].webhook_signature;
    const page = await admin.get(`${WEBHOOKS}/${webhookId}`);
    // The secrets are on the subscription's page, behind a disclosure.
    expect(page.body).toMatch(/<details class="secrets" id="secrets-details">/);
    expect(textOf(page.body, 'webhook-signature')).toBe(signature);

    const valid = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/verify`, { signature });
    expect(valid.statusCode).toBe(303);
    expect(valid.headers.location).toBe(`${WEBHOOKS}/${webhookId}?notice=notice.developers.signatureValid`);
    expect(textOf((await admin.get(String(valid.headers.location))).body, 'notice')).toBe('Valid: this is the signature of this subscription.');
    const wrong = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/verify`, { signature: 'X'.repeat(52) });
    expect(String(wrong.headers.location)).toContain('notice=notice.developers.signatureInvalid');
    const empty = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/verify`, { signature: ' ' });
    expect(empty.statusCode).toBe(400);
    expect(textOf(empty.body, 'verify-signature-error')).toBe('Paste the signature to check.');
    const audit = await auditOf('webhook.verify');
    expect(audit.map((a) => a.detail.isSignatureValid)).toEqual([true, false]);
    expect(JSON.stringify(audit)).not.toContain(signature);

    const changed = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/edit`, { event: 'payment.success', url: `${receiver.url}?v=2` });
    expect(changed.statusCode, changed.body).toBe(303);
    const { rows: after } = await t.db.query<{ callback_url: string; modified_by: string }>('select callback_url, modified_by from webhook_subscriptions where webhook_id = $1', [webhookId]);
    expect(after[0].callback_url).toBe(`${receiver.url}?v=2`);
    const refused = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/edit`, { event: 'payment.success', url: 'nonsense' });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'edit-url-error')).toBe('Callback URL must be an absolute http(s) URL without credentials.');
  });

  it('redelivers every failed delivery of a period, bounded, and refuses a bad period per field', async () => {
    receiver.status = 503;
    const paid = await customPayment(t, m, 50_000);
    expect(paid.statusCode, paid.body).toBe(200);
    await until('a failed delivery', async () => {
      const { rows } = await t.db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and status = 'failed'", [m.merchantAccountNumber]);
      return rows[0].n > 0;
    }, 15_000, 25);
    receiver.status = 200;
    const today = t.clock.now().toISOString().slice(0, 10);
    const reversed = await post(admin, DELIVERIES, `${DELIVERIES}/redeliver-failed`, { from: today, to: '2020-01-01' });
    expect(reversed.statusCode).toBe(400);
    expect(textOf(reversed.body, 'redeliver-from-error')).toBe(`The first day (${today}) is after the last day (2020-01-01).`);
    const tooLong = await post(admin, DELIVERIES, `${DELIVERIES}/redeliver-failed`, { from: '2020-01-01', to: '2020-03-01' });
    expect(tooLong.statusCode).toBe(400);
    expect(textOf(tooLong.body, 'redeliver-from-error')).toBe('The period covers 61 days; at most 31 are allowed.');
    const notDay = await post(admin, DELIVERIES, `${DELIVERIES}/redeliver-failed`, { from: 'yesterday', to: today });
    expect(textOf(notDay.body, 'redeliver-from-error')).toBe('This is not a date: write it as YYYY-MM-DD.');
    expect(notDay.body).toContain('value="yesterday"');

    const { rows: failed } = await t.db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and status = 'failed'", [m.merchantAccountNumber]);
    const res = await post(admin, DELIVERIES, `${DELIVERIES}/redeliver-failed`, { from: today, to: today });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`${DELIVERIES}?queued=${failed[0].n}&notice=notice.developers.redeliveredFailed`);
    const shown = await admin.get(String(res.headers.location));
    expect(textOf(shown.body, 'notice')).toBe(`The failed deliveries of that period were queued again. Deliveries queued again: ${failed[0].n}.`);
    // A count that is not a number is not shown (the notice's text is ours), and the page still answers.
    const notCount = await admin.get(`${DELIVERIES}?queued=many&notice=notice.developers.redeliveredFailed`);
    expect(notCount.statusCode).toBe(200);
    expect(textOf(notCount.body, 'notice')).toBe('The failed deliveries of that period were queued again.');
    await until('no failed delivery left', async () => {
      const { rows } = await t.db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where merchant_account_number = $1 and status <> 'succeeded'", [m.merchantAccountNumber]);
      return rows[0].n === 0;
    }, 15_000, 25);
  });

  it('pages the log newest first, follows a filter by event, and answers a forged cursor with a message', async () => {
    const page = await admin.get(`${DELIVERIES}?event=payment.success`);
    const ids = [...page.body.matchAll(/<tr id="delivery-(\d+)"/g)].map((x) => Number(x[1]));
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const none = await admin.get(`${DELIVERIES}?event=payout.failed`);
    expect(textOf(none.body, 'deliveries-empty')).toBe('No delivery matches these filters.');
    const forged = await admin.get(`${DELIVERIES}?after=bm9wZQ`);
    expect(forged.statusCode).toBe(400);
    expect(textOf(forged.body, 'deliveries-problem')).toBe('These filters could not be read: choose them again.');
    // htmx asks for the region alone.
    const region = await admin.get(`${DELIVERIES}?status=succeeded`, { 'hx-request': 'true', 'hx-target': 'delivery-results' });
    expect(region.statusCode).toBe(200);
    expect(region.body.startsWith('<section class="results" id="delivery-results"')).toBe(true);
  });

  it('answers another merchant\'s subscription and delivery with the 404 page, and deletes a subscription after confirming', async () => {
    const { rows } = await t.db.query<{ webhook_id: string }>(
      `insert into webhook_subscriptions (merchant_account_number, event_code, callback_url, webhook_signature, signing_secret, created_by)
       values ($1, 'payment.success', 'https://other.example.mw/h', $2, $3, 'x@other.mw') returning webhook_id`,
      [other.merchantAccountNumber, 'A'.repeat(52), `whsec_${Buffer.alloc(32).toString('base64')}`],
    );
    const theirs = Number(rows[0].webhook_id);
    expect((await admin.get(`${WEBHOOKS}/${theirs}`)).statusCode).toBe(404);
    expect((await admin.get(`${WEBHOOKS}/x${theirs}`)).statusCode).toBe(404);
    for (const verb of ['edit', 'delete', 'verify', 'test']) {
      expect((await admin.post(`${WEBHOOKS}/${theirs}/${verb}`, { _form: crypto.randomUUID(), event: 'payment.success', url: 'https://x.example/y', signature: 'x' })).statusCode, verb).toBe(404);
    }
    const { rows: delivered } = await t.db.query<{ delivery_id: string }>('select delivery_id from webhook_deliveries where merchant_account_number = $1 limit 1', [m.merchantAccountNumber]);
    const mine = Number(delivered[0].delivery_id);
    const c2user = await consoleUser(t, other, { role: 'MERC_ADMIN' });
    const c2 = new ConsoleClient(t, '10.9.2.1');
    expect((await c2.signIn(c2user.email, c2user.password)).statusCode).toBe(303);
    expect((await c2.get(`${DELIVERIES}/${mine}`)).statusCode).toBe(404);
    await c2.get(DELIVERIES);
    expect((await c2.post(`${DELIVERIES}/${mine}/redeliver`, { _form: crypto.randomUUID() })).statusCode).toBe(404);
    expect((await c2.get(`${DELIVERIES}?event=payment.success`)).body).not.toContain(`id="delivery-${mine}"`);

    const webhookId = (await subscriptionId('payment.success'))!;
    const page = await admin.get(`${WEBHOOKS}/${webhookId}`);
    expect(page.body).toContain(`<details class="confirm" id="delete-webhook-details">`);
    const gone = await post(admin, `${WEBHOOKS}/${webhookId}`, `${WEBHOOKS}/${webhookId}/delete`);
    expect(gone.statusCode).toBe(303);
    expect(gone.headers.location).toBe(`${WEBHOOKS}?notice=notice.developers.webhookDeleted`);
    expect(await subscriptionId('payment.success')).toBeUndefined();
    expect((await admin.get(`${WEBHOOKS}/${webhookId}`)).statusCode).toBe(404);
    // Its deliveries stay in the log, without a Redeliver button (nothing could sign them).
    const log = await admin.get(`${DELIVERIES}/${mine}`);
    expect(log.statusCode).toBe(200);
    expect(log.body).not.toContain(`action="${DELIVERIES}/${mine}/redeliver"`);
    expect(textOf(log.body, 'delivery-facts-title')).toBe('Delivery');
    expect(await auditOf('webhook.delete')).toContainEqual(expect.objectContaining({ detail: { webhookId, eventCode: 'payment.success' } }));
  });
});

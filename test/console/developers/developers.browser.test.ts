// The console's developers pages in a real browser: Debian's headless Chromium driven by
// playwright-core, against the real app on a real port under its real CSP, with the real webhook
// dispatcher and a real receiver on 127.0.0.1. An administrator generates an API key (a double
// click makes one key), copies its secret with the copy button (the clipboard holds it, "Copied" is
// announced), and the key gets a token and calls the API; deletes a key after its confirmation
// step; subscribes a failing receiver, sees the failed delivery with its attempts, fixes the
// receiver and redelivers from the console; sends a test event. axe-core on every page (no serious
// or critical violation), screenshots at 375 and 1440 px of the keys page, the new secret's page,
// the delivery log and a delivery's page. Skipped with a notice where the browser is missing.
import http from 'node:http';
import type net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../../src/modules/webhooks/dispatcher.ts';
import { axePage, BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, shoot, signedInPage, warnIfSkipped, watchCsp, clickSection } from '../../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from '../client.ts';
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../../helpers.ts';
import { customPayment } from '../../money-ops.ts';

warnIfSkipped('the console developers browser test');
const WAIT_MS = 15_000;

let t: TestApp;
let m: TestMerchant;
let origin: string;
let browser: Browser;
let admin: ConsoleUserInfo;
let dispatcher: WebhookDispatcher;

/** A real receiver: answers `status` with `body`; counts what it got. */
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let receiverStatus = 500;
let receiverServer: http.Server;
let receiverUrl = '';

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp({}, { webhookRetryScheduleMs: [0, 50], webhookTimeoutMs: 2000, webhookLeaseMs: 5000 });
  origin = await listen(t);
  m = await newMerchant(t, { accountName: 'Kamuzu Hardware' });
  admin = await consoleUser(t, m, { role: 'MERC_ADMIN', firstName: 'Chisomo' });
  receiverServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(receiverStatus, { 'content-type': 'text/plain' });
      res.end(receiverStatus === 200 ? 'ok' : '<h1>Internal error</h1> stack: Error at handler (server.js:42)');
    });
  });
  await new Promise<void>((resolve) => receiverServer.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiverServer.address() as net.AddressInfo).port}/hooks/onekhusa`;
  dispatcher = new WebhookDispatcher(t.deps);
  await dispatcher.start();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await dispatcher?.stop();
  if (receiverServer) {
    receiverServer.closeAllConnections();
    await new Promise<void>((resolve) => receiverServer.close(() => resolve()));
  }
  await t?.close();
});

const text = async (page: Page, selector: string) => (await page.textContent(selector))?.replace(/\s+/g, ' ').trim();

async function keyCount(): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from api_keys where merchant_account_number = $1 and date_deleted is null', [m.merchantAccountNumber]);
  return rows[0].n;
}

describe.skipIf(!BROWSER_PRESENT)('console developers in a browser', () => {
  it('generates a key (a double click makes one), copies its secret to the clipboard, and the key works over the API', async () => {
    const { context, page } = await signedInPage(browser, origin, admin);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const problems: string[] = [];
    watchCsp(page, problems);

    // Through the navigation: Developers, then API keys.
    await Promise.all([page.waitForURL(`${origin}/console/developers`), clickSection(page, '/console/developers')]);
    await axePage(page, 'developers overview');
    await Promise.all([page.waitForURL(`${origin}/console/developers/api-keys`), page.click('#link-keys')]);
    await axePage(page, 'api keys');
    await page.setViewportSize(DESKTOP);
    await axePage(page, 'api keys at 1440 px');
    await page.setViewportSize(PHONE);

    // A refused expiry: the message by its field, the value kept.
    await page.fill('#expiry', '2020-01-01');
    await Promise.all([page.waitForLoadState('load'), page.click('#generate-submit')]);
    expect(await text(page, '#expiry-error')).toBe('2020-01-01 is over: choose today or a later day.');
    expect(await page.inputValue('#expiry')).toBe('2020-01-01');
    expect(await page.getAttribute('#expiry', 'aria-invalid')).toBe('true');
    await axePage(page, 'api keys with a refused expiry');
    await page.fill('#expiry', '');

    // A double click sends the form once (developers.js); the answer is the new secret's page.
    const before = await keyCount();
    await Promise.all([page.waitForURL(`${origin}/console/developers/api-keys/generate`), page.dblclick('#generate-submit')]);
    await page.waitForSelector('#new-secret');
    expect(await keyCount()).toBe(before + 1);
    const key = (await text(page, '#new-key'))!;
    const secret = (await text(page, '#new-secret'))!;
    expect(secret).toMatch(/^[A-Za-z0-9]{45}$/);
    expect(page.url()).not.toContain(secret);
    expect(await text(page, '#secret-warning')).toContain('it will not be shown again');

    // The copy button (shown by the script) puts the secret in the clipboard and says so.
    await expect.poll(() => page.isVisible('#copy-secret')).toBe(true);
    await page.click('#copy-secret');
    await page.waitForFunction(() => document.querySelector('#copy-secret-status')?.textContent === 'Copied');
    expect(await page.getAttribute('#copy-secret-status', 'aria-live')).toBe('polite');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await axePage(page, 'new key');
    await shoot(page, 'developers-new-key');

    // The key gets a token, and the token calls the API.
    const token = await fetch(`${origin}${BASE}/account/getAccessToken`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: key, apiSecret: secret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }),
    });
    expect(token.status).toBe(200);
    const accessToken = ((await token.json()) as { accessToken: string }).accessToken;
    const keys = await fetch(`${origin}${BASE}/security/apiKeys/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as Array<{ clientKey: string }>).map((k) => k.clientKey)).toContain(key);

    // Back to the list: the key is there, its secret is not.
    await Promise.all([page.waitForURL(`${origin}/console/developers/api-keys`), page.click('#new-key-done')]);
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('tr', { has: page.locator('code.client-key', { hasText: key }) });
    await expect.poll(() => row.count()).toBe(1);
    await shoot(page, 'developers-keys');

    // Delete it: the confirmation opens, then its own button.
    const clientId = (await row.getAttribute('id'))!.replace('key-row-', '');
    await page.click(`#delete-${clientId}-details > summary`);
    await page.waitForSelector(`#delete-${clientId}`, { state: 'visible' });
    await axePage(page, 'api keys with a delete confirmation open');
    await Promise.all([page.waitForURL(/notice=notice\.developers\.keyDeleted/), page.click(`#delete-${clientId}`)]);
    expect(await text(page, '#notice')).toBe('The key was deleted.');
    expect(await page.locator(`#key-row-${clientId}`).count()).toBe(0);
    const refused = await fetch(`${origin}${BASE}/account/getAccessToken`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: key, apiSecret: secret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }),
    });
    expect(refused.status).toBe(401);

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('a failing webhook receiver: its failed delivery in the log, redelivered from the console once fixed; a test event', async () => {
    const { context, page } = await signedInPage(browser, origin, admin);
    const problems: string[] = [];
    watchCsp(page, problems);
    receiverStatus = 500;

    await page.goto(`${origin}/console/developers/webhooks`);
    await axePage(page, 'webhooks');
    await page.selectOption('#add-event', 'payment.success');
    await page.fill('#add-url', receiverUrl);
    await Promise.all([page.waitForURL(/\/console\/developers\/webhooks\/\d+\?notice=notice\.developers\.webhookAdded$/), page.click('#add-submit')]);
    expect(await text(page, '#webhook-url')).toBe(receiverUrl);
    await page.click('#secrets-details > summary');
    await page.waitForSelector('#signing-secret', { state: 'visible' });
    await axePage(page, 'a subscription with its secrets shown');
    await shoot(page, 'developers-webhook');

    // A customer pays (through the API): the receiver fails every attempt of the round.
    const paid = await customPayment(t, m, 45_000);
    expect(paid.statusCode, paid.body).toBe(200);
    const deliveryId = await until('the delivery fails', async () => {
      const { rows } = await t.db.query<{ delivery_id: string; status: string }>(
        "select delivery_id, status from webhook_deliveries where merchant_account_number = $1 and not is_test order by delivery_id desc limit 1",
        [m.merchantAccountNumber],
      );
      return rows[0]?.status === 'failed' ? Number(rows[0].delivery_id) : undefined;
    }, WAIT_MS, 25);

    await page.goto(`${origin}/console/developers/webhooks/deliveries`);
    await page.waitForSelector(`#delivery-${deliveryId}[data-status="failed"]`);
    expect(await text(page, `#delivery-${deliveryId}`)).toContain('Last: HTTP 500');
    await axePage(page, 'delivery log');
    await page.setViewportSize(DESKTOP);
    await axePage(page, 'delivery log at 1440 px');
    await page.setViewportSize(PHONE);
    await shoot(page, 'developers-deliveries');

    // The filter through htmx: failed only, the address pushed.
    await page.selectOption('#filter-status', 'succeeded');
    await Promise.all([page.waitForURL(/status=succeeded/), page.click('#deliveries-filter-submit')]);
    await page.waitForSelector('#deliveries-empty');
    await page.selectOption('#filter-status', 'failed');
    await Promise.all([page.waitForURL(/status=failed/), page.click('#deliveries-filter-submit')]);
    await page.waitForSelector(`#delivery-${deliveryId}`);

    // Its page: the attempts, the response escaped, the signatures masked.
    await Promise.all([page.waitForURL(`${origin}/console/developers/webhooks/deliveries/${deliveryId}`), page.click(`#open-delivery-${deliveryId}`)]);
    expect(await text(page, '#attempt-1')).toContain('HTTP 500');
    expect(await text(page, '#attempt-1')).toContain('<h1>Internal error</h1>');
    expect(await page.locator('#attempt-1 h1').count()).toBe(0);
    expect(await page.content()).not.toContain(String(received[0].headers['x-onekhusa-webhook-signature']));
    await axePage(page, 'a failed delivery');
    await shoot(page, 'developers-delivery');

    // The receiver is fixed: redeliver from the console.
    receiverStatus = 200;
    const before = received.length;
    await Promise.all([page.waitForURL(/notice=notice\.developers\.redelivered/), page.click('#redeliver')]);
    expect(await text(page, '#notice')).toBe('The delivery was queued again, with the same webhook-id.');
    await until('the redelivery arrives', async () => received.length > before, WAIT_MS, 25);
    expect(received.at(-1)?.headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    await until('the delivery succeeds', async () => {
      const { rows } = await t.db.query<{ status: string }>('select status from webhook_deliveries where delivery_id = $1', [deliveryId]);
      return rows[0].status === 'succeeded';
    }, WAIT_MS, 25);
    await page.reload();
    expect(await text(page, '#delivery-status')).toBe('Delivered');
    await axePage(page, 'a redelivered delivery');

    // A test event from the subscription's page.
    await page.goto(`${origin}/console/developers/webhooks`);
    await shoot(page, 'developers-webhooks');
    const manage = page.locator('a[id^="manage-webhook-"]').first();
    await Promise.all([page.waitForURL(/\/console\/developers\/webhooks\/\d+$/), manage.click()]);
    const testBefore = received.length;
    await Promise.all([page.waitForURL(/notice=notice\.developers\.testSent/), page.click('#test-webhook')]);
    await until('the test event arrives', async () => received.length > testBefore, WAIT_MS, 25);
    expect(received.at(-1)?.headers['x-onekhusa-webhook-test']).toBe('true');
    await axePage(page, 'a test delivery');

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});

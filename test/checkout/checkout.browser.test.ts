// The hosted checkout end to end, as a customer on a phone does it: the real app on a real port,
// the real worker (graphile-worker + webhook dispatcher) in process, a real HTTP receiver standing
// in for the merchant's shop (its callbackApiUrl and its success and failure pages), and Debian's
// headless Chromium driven by playwright-core at a 375×740 viewport. Nothing is mocked.
// CI installs the browser (.ci/run: apt-get install chromium).
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { startWorker, type Worker } from '../../src/jobs/queue.ts';
import { workerPlan } from '../../src/composition.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { payTimedAccount } from '../../src/modules/collections/service.ts';
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
// Debian's chromium is installed by .ci/run. Elsewhere (a fresh developer machine without it) this
// file is skipped with a notice rather than failing `npm test`; in CI a missing browser fails.
const RUN = fs.existsSync(CHROMIUM) || process.env.CI === 'true';
if (!RUN) console.warn(`skipping the checkout browser test: ${CHROMIUM} is missing (apt-get install chromium)`);
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PHONE = { width: 375, height: 740 };
const WALLET_NAME = 'Airtel Money';
const WAIT_MS = 15_000;

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The merchant's side: a callback endpoint and the two pages the customer is sent back to. */
class Shop {
  readonly received: Received[] = [];
  private server: http.Server | undefined;
  origin = '';

  async listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (req.method === 'POST') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
          return;
        }
        const paid = (req.url ?? '').startsWith('/shop/paid');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${paid ? 'Paid' : 'Failed'}</title><h1>${paid ? 'Thank you' : 'Payment failed'}</h1>`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  callbacks(): Received[] {
    return this.received.filter((r) => r.method === 'POST');
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let t: TestApp;
let worker: Worker;
let shop: Shop;
let browser: Browser;
let m: TestMerchant;
let appOrigin: string;

beforeAll(async () => {
  if (!RUN) return;
  // Fast retries: a callback that lost a race with the receiver's start is tried again at once.
  t = await startTestApp({}, { webhookRetryScheduleMs: [0, 200, 200, 200] });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  appOrigin = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  worker = await startWorker(t.deps, 2, workerPlan(t.deps));
  shop = new Shop();
  await shop.listen();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  m = await newMerchant(t, { accountName: 'Chikondi General Store' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await shop?.close();
  await t?.close();
});

let counter = 0;

/** Initiates a checkout over real HTTP (so the link names the real port), as a merchant's server does. */
async function initiate(amount = '2500.00', description = 'School shoes, size 5') {
  counter += 1;
  const res = await fetch(`${appOrigin}${BASE}/checkout/rtp/initiate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      authentication: { apiKey: m.apiKey, apiSecret: m.apiSecret },
      merchant: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
      payment: { sourceReferenceNumber: `ORD-${counter}-${Date.now()}`, description, amount },
      route: { successRedirectionUrl: `${shop.origin}/shop/paid`, failureRedirectionUrl: `${shop.origin}/shop/failed`, callbackApiUrl: `${shop.origin}/hooks/checkout` },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { sourceReferenceNumber: string; paymentTransactionId: string; checkoutUrl: string; callbackSigningSecret: string; callbackWebhookSignature: string };
}

async function collectionBalance(): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().collectionBalance as number;
}

/** A phone-sized page that records every request it makes and every error it logs (a CSP violation among them). */
async function phonePage(locale = 'en-GB'): Promise<{ page: Page; requests: Array<{ url: string; method: string }>; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale });
  const page = await context.newPage();
  const requests: Array<{ url: string; method: string }> = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push({ url: r.url(), method: r.method() }));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { page, requests, errors, close: () => context.close() };
}

describe.skipIf(!RUN)('hosted checkout in a browser', () => {
  it('pays on a phone: success URL, signed callback, merchant credited amount − fee', async () => {
    const before = await collectionBalance();
    const out = await initiate();
    const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    const timedAccount = rows[0].timed_account_number;
    const { page, requests, errors, close } = await phonePage();
    try {
      await page.goto(out.checkoutUrl);
      // What the customer must see.
      await expect.poll(() => page.locator('#merchant').textContent()).toBe('Chikondi General Store');
      expect(await page.locator('#amount').isVisible()).toBe(true);
      expect(await page.locator('#amount').textContent()).toBe('MWK 2,500.00');
      expect(await page.getByText('School shoes, size 5').isVisible()).toBe(true);
      expect(await page.locator('#timed-account').isVisible()).toBe(true);
      expect(await page.locator('#timed-account').textContent()).toBe(timedAccount);
      const countdown = page.locator('#countdown');
      expect(await countdown.isVisible()).toBe(true);
      const first = (await countdown.textContent()) ?? '';
      expect(first).toMatch(/^1[45]:\d\d$/);
      // It counts down, live.
      await expect.poll(() => countdown.textContent(), { timeout: 5000 }).not.toBe(first);
      // Laid out for the phone: nothing wider than the screen, the Pay button in full width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      const payBox = await page.locator('#pay').boundingBox();
      expect(payBox!.width).toBeGreaterThan(300);
      expect(await page.locator('#pay').textContent()).toBe('Pay MWK 2,500.00');

      await page.locator('#connector').selectOption({ label: WALLET_NAME });
      await page.screenshot({ path: '/tmp/checkout.png', fullPage: true });

      // Only the app was asked for anything while the page was shown.
      expect(requests.length).toBeGreaterThan(0);
      for (const r of requests) expect(new URL(r.url).origin, r.url).toBe(appOrigin);
      const shown = requests.length;

      await Promise.all([page.waitForURL(`${shop.origin}/shop/paid**`), page.locator('#pay').click()]);
      const landed = new URL(page.url());
      expect(landed.origin + landed.pathname).toBe(`${shop.origin}/shop/paid`);
      expect(landed.searchParams.get('sourceReferenceNumber')).toBe(out.sourceReferenceNumber);
      const reference = landed.searchParams.get('transactionReferenceNumber');
      expect(reference).toMatch(/^[A-Z0-9]{12}$/);
      expect(await page.getByText('Thank you').isVisible()).toBe(true);
      // After Pay: the form's POST to the app, then the shop's success page, and nothing else
      // (but the page's own polls of its status).
      const after = requests.slice(shown).filter((r) => new URL(r.url).pathname !== '/checkout/status');
      expect(after.map((r) => `${r.method} ${new URL(r.url).origin}${new URL(r.url).pathname}`)).toEqual([`POST ${appOrigin}/checkout/pay`, `GET ${shop.origin}/shop/paid`]);
      expect(errors).toEqual([]);

      // The callback: payrequest.success, flat, signed with the secrets the initiate answer gave.
      const callback = await until('the callback', async () => shop.callbacks().find((c) => JSON.parse(c.body).transactionReferenceNumber === reference), WAIT_MS, 50);
      expect(callback.path).toBe('/hooks/checkout');
      expect(callback.headers['x-onekhusa-webhook-event']).toBe('payrequest.success');
      expect(callback.headers['x-onekhusa-webhook-signature']).toBe(out.callbackWebhookSignature);
      const verified = new Webhook(out.callbackSigningSecret).verify(callback.body, {
        'webhook-id': String(callback.headers['webhook-id']),
        'webhook-timestamp': String(callback.headers['webhook-timestamp']),
        'webhook-signature': String(callback.headers['webhook-signature']),
      }) as Record<string, unknown>;
      expect(verified).toMatchObject({
        eventCode: 'payrequest.success',
        merchantAccountNumber: m.merchantAccountNumber,
        connectorName: WALLET_NAME,
        sourceReferenceNumber: out.sourceReferenceNumber,
        beneficiaryAccountNumber: timedAccount,
        transactionReferenceNumber: reference,
        transactionAmount: 2500,
        transactionFee: 25,
        currencyCode: 'MWK',
        transactionStatusCode: 'S',
        responseCode: 'S100',
        metaData: { timedAccountNumber: timedAccount },
      });
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(callback.body, callback.headers as Record<string, string>)).toThrow();

      // amount − fee (1 %): 2,500.00 − 25.00.
      expect(await collectionBalance()).toBe(before + 2475);

      // Back to the checkout link: the customer lands on the success page again, no second payment.
      await page.goto(out.checkoutUrl);
      expect(new URL(page.url()).searchParams.get('transactionReferenceNumber')).toBe(reference);
      expect(await collectionBalance()).toBe(before + 2475);
    } finally {
      await close();
    }
  }, 60_000);

  it('an expired request ends on the failure URL', async () => {
    const before = await collectionBalance();
    const out = await initiate('300.00', 'Airtime bundle');
    const { page, errors, close } = await phonePage();
    try {
      await page.goto(out.checkoutUrl);
      expect(await page.locator('#amount').textContent()).toBe('MWK 300.00');
      await page.locator('#connector').selectOption({ label: 'National Bank of Malawi' });
      // The timed account runs out while the customer looks at the page.
      await t.db.query(`update payment_requests set created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' where payment_transaction_id = $1`, [out.paymentTransactionId]);
      await Promise.all([page.waitForURL(`${shop.origin}/shop/failed**`), page.locator('#pay').click()]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('reason')).toBe('timed-account-expired');
      expect(landed.searchParams.get('sourceReferenceNumber')).toBe(out.sourceReferenceNumber);
      expect(await page.getByText('Payment failed').isVisible()).toBe(true);
      expect(errors).toEqual([]);
      expect(await collectionBalance()).toBe(before);
      // Opening the link again goes straight to the failure URL.
      await page.goto(out.checkoutUrl);
      expect(new URL(page.url()).pathname).toBe('/shop/failed');
    } finally {
      await close();
    }
  }, 60_000);

  it('the countdown reaching zero disables Pay', async () => {
    const out = await initiate('150.00', 'Bread');
    await t.db.query(`update payment_requests set expires_at = now() + interval '2 seconds' where payment_transaction_id = $1`, [out.paymentTransactionId]);
    const { page, close } = await phonePage();
    try {
      await page.goto(out.checkoutUrl);
      await expect.poll(() => page.locator('#countdown').textContent(), { timeout: 8000 }).toBe('0:00');
      expect(await page.locator('#pay').isDisabled()).toBe(true);
      expect(await page.getByText('This payment request has expired.').isVisible()).toBe(true);
      expect(await page.locator('#cancel').textContent()).toBe('Return to Chikondi General Store');
    } finally {
      await close();
    }
  }, 60_000);

  it('leaves for the success URL by itself once the timed account is paid another way (addFakeTransaction)', async () => {
    const out = await initiate('700.00', 'Exercise books');
    const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    const { page, errors, close } = await phonePage();
    try {
      await page.goto(out.checkoutUrl);
      expect(await page.locator('#timed-account').textContent()).toBe(rows[0].timed_account_number);
      // The documented way to simulate the customer paying the timed account from elsewhere.
      const paid = await t.app.inject({
        method: 'POST',
        url: `${BASE}/collections/requestToPay/addFakeTransaction`,
        headers: m.auth,
        payload: { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: '700.00', connectorId: 112400, timedAccountNumber: rows[0].timed_account_number, currencyCode: 'MWK', capturedBy: 'tester@shop.mw' },
      });
      expect(paid.statusCode, paid.body).toBe(200);
      // Nobody touches the page: it moves on by itself.
      await page.waitForURL(`${shop.origin}/shop/paid**`, { timeout: WAIT_MS });
      expect(new URL(page.url()).searchParams.get('transactionReferenceNumber')).toMatch(/^[A-Z0-9]{12}$/);
      expect(await page.getByText('Thank you').isVisible()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('speaks Chichewa with ?lang=ny', async () => {
    const out = await initiate('1000.00', 'Sopo');
    const { page, errors, close } = await phonePage();
    try {
      await page.goto(`${out.checkoutUrl}&lang=ny`);
      expect(await page.locator('html').getAttribute('lang')).toBe('ny');
      expect(await page.locator('#pay').textContent()).toBe('Lipirani MWK 1,000.00');
      expect(await page.getByText('Akaunti yanthawi').isVisible()).toBe(true);
      expect(await page.getByText('Itha pakadutsa').isVisible()).toBe(true);
      expect(await page.locator('#connector option').first().textContent()).toBe('Sankhani chikwama kapena banki');
      expect(await page.getByText('Timed account').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});

// Production mode: no simulated Pay. The customer pays from their own bank or wallet app; the page
// shows the timed account and waits, then moves on by itself when the payment arrives.
describe.skipIf(!RUN)('hosted checkout in a browser, production mode', () => {
  let prod: TestApp;
  let prodOrigin: string;
  let merchant: TestMerchant;

  beforeAll(async () => {
    const port = await freePort();
    prodOrigin = `http://127.0.0.1:${port}`;
    prod = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: prodOrigin });
    await prod.app.listen({ port, host: '127.0.0.1' });
    merchant = await newMerchant(prod, { accountName: 'Blantyre Pharmacy' });
  }, 60_000);
  afterAll(() => prod?.close());

  it('shows the timed account and waits; a real payment sends the customer on to the success URL', async () => {
    const res = await fetch(`${prodOrigin}${BASE}/checkout/rtp/initiate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        authentication: { apiKey: merchant.apiKey, apiSecret: merchant.apiSecret },
        merchant: { organisationId: merchant.organisationId, merchantAccountNumber: merchant.merchantAccountNumber },
        payment: { sourceReferenceNumber: 'RX-2026-0042', description: 'Prescription 42', amount: '12500.00' },
        route: { successRedirectionUrl: `${shop.origin}/shop/paid`, failureRedirectionUrl: `${shop.origin}/shop/failed`, callbackApiUrl: null },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const out = (await res.json()) as { paymentTransactionId: string; checkoutUrl: string };
    expect(out.checkoutUrl.startsWith(`${prodOrigin}/checkout/pay?ptid=`)).toBe(true);
    const { rows } = await prod.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    const timedAccount = rows[0].timed_account_number;

    const { page, errors, close } = await phonePage();
    try {
      await page.goto(out.checkoutUrl);
      expect(await page.locator('#timed-account').textContent()).toBe(timedAccount);
      expect(await page.locator('#amount').textContent()).toBe('MWK 12,500.00');
      expect(await page.locator('#countdown').textContent()).toMatch(/^1[45]:\d\d$/);
      expect(await page.locator('#waiting').isVisible()).toBe(true);
      expect(await page.getByText('Send exactly MWK 12,500.00 to this account number').isVisible()).toBe(true);
      // Nothing on the page can pay.
      expect(await page.locator('#pay').count()).toBe(0);
      expect(await page.locator('#connector').count()).toBe(0);
      expect(await page.getByText('Sandbox').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: '/tmp/checkout-production-375.png', fullPage: true });
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.screenshot({ path: '/tmp/checkout-production-1440.png', fullPage: true });

      // The money arrives at the timed account (as a connector would report it).
      await withTransaction(prod.db, (tx) =>
        payTimedAccount(tx, { merchantAccountNumber: merchant.merchantAccountNumber, amountMinor: 1_250_000, connectorId: 112400, timedAccountNumber: timedAccount, currencyCode: 'MWK', capturedBy: 'connector' }),
      );
      await page.waitForURL(`${shop.origin}/shop/paid**`, { timeout: WAIT_MS });
      expect(new URL(page.url()).searchParams.get('sourceReferenceNumber')).toBe('RX-2026-0042');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});

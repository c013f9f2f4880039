// The API reference at /docs in a real browser (Debian's Chromium driven by playwright-core, as
// test/checkout/checkout.browser.test.ts does): it renders every operation of /openapi.json under this
// project's name, logs no console error and no Content-Security-Policy violation at a phone's and
// a desktop's width, and its "Try it" sends X-Idempotency-Key with a prefilled body that works.
// Screenshots: /tmp/docs-375.png and /tmp/docs-1440.png.
import fs from 'node:fs';
import type net from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_TITLE, EXAMPLE, PROJECT_NAME } from '../../src/http/docs.ts';
import { EXAMPLE_ACCOUNTS } from '../../src/modules/disbursements/docs.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
// As the checkout browser test: skipped with a notice where the browser is missing, except in CI.
const RUN = fs.existsSync(CHROMIUM) || process.env.CI === 'true';
if (!RUN) console.warn(`skipping the docs browser test: ${CHROMIUM} is missing (apt-get install chromium)`);
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WAIT_MS = 20_000;

let t: TestApp;
let m: TestMerchant;
let browser: Browser;
let origin: string;
let operationCount: number;

beforeAll(async () => {
  if (!RUN) return;
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  m = await newMerchant(t, { accountName: 'Docs Browser Shop' });
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
  // The page draws the document's 3.0 view (http/docs-view.ts), which has no webhooks section.
  operationCount = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A page that records console errors, page errors and CSP violations (reported by the page itself). */
async function docsPage(width: number, height: number): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, isMobile: width < 600, hasTouch: width < 600 });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
    if (msg.text().startsWith('CSP violation')) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.warn(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
  return { page, errors, close: () => context.close() };
}

async function openDocs(page: Page): Promise<void> {
  const res = await page.goto(`${origin}/`);
  // GET / leads to the docs.
  expect(new URL(page.url()).pathname).toMatch(/^\/docs\/?$/);
  expect(res?.status()).toBe(200);
  // The first tag opens by itself (http/docs.ts afterLoad); the others are opened one by one, as a reader does.
  await page.waitForSelector('.opblock', { timeout: WAIT_MS });
  const closed = page.locator('h3.opblock-tag[data-is-open="false"]');
  for (let opened = 0; (await closed.count()) > 0 && opened < 50; opened++) await closed.first().click();
  await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, operationCount, { timeout: WAIT_MS });
  // Let late requests (fonts, icons) and their errors arrive.
  await page.waitForLoadState('networkidle');
}

describe.runIf(RUN)('the docs page in a browser', () => {
  it.each([
    [375, 740],
    [1440, 900],
  ])('renders every operation under our name at %i px, with no console error or CSP violation', async (width, height) => {
    const { page, errors, close } = await docsPage(width, height);
    try {
      await openDocs(page);
      expect(await page.locator('.opblock').count()).toBe(operationCount);
      expect(await page.title()).toBe(DOCS_TITLE);
      // Our name in the top bar, in place of the framework's logo (no image, no stock SVG).
      await expect.poll(() => page.locator('.topbar .okx-brand-name').textContent()).toBe(PROJECT_NAME);
      expect(await page.locator('.topbar a.link img, .topbar a.link svg').count()).toBe(0);
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toContain('theme/favicon.svg');
      // Nothing wider than the screen, also with an operation open (its sandbox table, its parameters and responses).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `/tmp/docs-${width}.png` });
      const op = page.locator('.opblock').filter({ has: page.locator(`[data-path="${BASE}/disbursements/batch/addJson"]`) });
      await op.locator('.opblock-summary').first().click();
      await expect.poll(() => op.locator('.responses-table').count()).toBeGreaterThan(0);
      expect(await op.locator('.opblock-description-wrapper table').count()).toBe(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('"Try it" on E8 sends X-Idempotency-Key with the prefilled body, and the batch is accepted', async () => {
    const { page, errors, close } = await docsPage(1440, 900);
    try {
      await openDocs(page);
      const token = (await t.app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber } })).json().accessToken as string;

      // Authorize with the token.
      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(token);
      await page.locator('.auth-btn-wrapper button.authorize').first().click();
      await page.locator('.auth-btn-wrapper button.btn-done').first().click();

      const op = page.locator('.opblock').filter({ has: page.locator(`[data-path="${BASE}/disbursements/batch/addJson"]`) });
      await op.locator('.opblock-summary').first().click();
      await op.locator('.try-out__btn').click();
      const keyInput = op.locator('tr[data-param-name="x-idempotency-key"] input');
      await expect.poll(() => keyInput.count()).toBe(1);
      await keyInput.fill('docs-try-it-e8-000001');
      // The body is prefilled with the example; as a reader does, put in the merchant's own number.
      const body = op.locator('textarea.body-param__text');
      const prefilled = await body.inputValue();
      expect(prefilled).toContain(EXAMPLE_ACCOUNTS.bank);
      expect(prefilled).toContain(EXAMPLE_ACCOUNTS.wallet);
      await body.fill(prefilled.replaceAll(String(EXAMPLE.merchantAccountNumber), String(m.merchantAccountNumber)));

      const sent = page.waitForRequest((r) => r.url().endsWith('/disbursements/batch/addJson') && r.method() === 'POST');
      await op.locator('button.execute').click();
      const request = await sent;
      expect(request.headers()['x-idempotency-key']).toBe('docs-try-it-e8-000001');
      expect(request.headers().authorization).toBe(`Bearer ${token}`);
      const response = await request.response();
      expect(response?.status(), await response?.text()).toBe(200);
      expect((await response?.json()).BatchStatusCode).toBe('Q');
      await expect.poll(() => op.locator('.live-responses-table tbody .response-col_status').first().textContent()).toContain('200');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});

// The statement page in a real browser (Debian's headless Chromium driven by playwright-core, the
// real app on a real port, under its real CSP): the totals, one line per movement with its
// counterparty, the pager swapping the lines with htmx, nothing wider than a 375 px phone, no serious
// axe-core violation. Photographed at 375 and 1440 px into /tmp/shots-statement/ for a person to
// look at. Skipped with a notice where the browser is missing.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, signedInPage, warnIfSkipped } from '../../browser-kit.ts';
import { consoleUser } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, addJson, customPayment, payoutLine, runPayouts, topup, validateBatch } from '../../money-ops.ts';

warnIfSkipped('the console statements browser test');
const SHOTS = '/tmp/shots-statement';

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;
let today: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  origin = await listen(t);
  browser = await launchBrowser();
  today = new Date().toISOString().slice(0, 10);
  m = await newMerchant(t, { accountName: 'Blantyre Building Supplies' });
  expect((await topup(t, m, 500_000_00)).statusCode).toBe(200);
  for (const amount of [12_500_00, 3_999_99, 48_000_00, 7_450_00, 22_000_00, 1_000_00]) expect((await customPayment(t, m, amount)).statusCode).toBe(200);
  const names = ['Tiyamike Phiri', 'Chisomo Banda', 'Kondwani Mwale (fails)', 'Thokozani Nkhoma-Chirwa', 'Mphatso Gondwe', 'Grace Kaunda'];
  const batch = await addJson(t, m, names.map((name, i) => ({ ...payoutLine({ amountMinor: 10_000_00 + i * 1_250_50, channel: i % 2 ? 'bank' : 'wallet', suffix: i === 2 ? '9901' : String(3000 + i) }), beneficiaryName: name })));
  expect(batch.statusCode, batch.body).toBe(200);
  await validateBatch(t, batch.json().batchNumber);
  expect((await act(t, m, 'transferFunds', batch.json().batchNumber)).statusCode).toBe(200);
  await runPayouts(t, m);
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** How far the page is wider than its viewport (0: nothing sticks out). */
const overflowPx = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!BROWSER_PRESENT)('the statement page in a browser', () => {
  it('shows totals and one line per movement, pages with htmx, fits a phone and a desktop', async () => {
    const user = await consoleUser(t, m, { role: 'MERC_VIEWER' });
    const csp: string[] = [];
    const { context, page } = await signedInPage(browser, origin, user, { csp });
    await page.goto(`${origin}/console/statements?from=${today}&to=${today}`);
    await expect.poll(() => page.locator('#statement-totals').isVisible()).toBe(true);
    expect(await page.locator('#total-opening').getAttribute('data-minor')).toBe('0');
    // The batch's payees by name, each fee on a line of its own.
    const table = page.locator('#movements-table');
    await expect.poll(() => table.locator('tr[data-type="payout"]').count()).toBeGreaterThan(0);
    expect(await table.textContent()).toContain('Tiyamike Phiri');
    expect(await table.locator('tr[data-type="payout_fee"]').count()).toBe(await table.locator('tr[data-type="payout"]').count());
    expect(await overflowPx(page), 'wider than a 375 px phone').toBeLessThanOrEqual(0);
    await axePage(page, 'statements at 375 px');
    await page.screenshot({ path: path.join(SHOTS, 'statement-375.png'), fullPage: true });
    await page.setViewportSize(DESKTOP);
    expect(await overflowPx(page), 'wider than 1440 px').toBeLessThanOrEqual(0);
    await axePage(page, 'statements at 1440 px');
    await page.screenshot({ path: path.join(SHOTS, 'statement-1440.png'), fullPage: true });

    // The next page swaps the lines in place (htmx), its balances going on from the first page's last.
    const firstBalances = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [Number(r.getAttribute('data-amount-minor')), Number(r.getAttribute('data-balance-minor'))]));
    const url = page.url();
    await page.click('#movement-results-next');
    await expect.poll(() => page.url()).not.toBe(url);
    await expect.poll(() => page.locator('#movement-results-first').isVisible()).toBe(true);
    const next = await page.locator('#movements-table tbody tr').evaluateAll((rows) => rows.map((r) => [Number(r.getAttribute('data-amount-minor')), Number(r.getAttribute('data-balance-minor'))]));
    expect(next[0][1]).toBe(firstBalances.at(-1)![1] + next[0][0]);
    await page.setViewportSize(PHONE);
    expect(await overflowPx(page), 'second page wider than a 375 px phone').toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(SHOTS, 'statement-page2-375.png'), fullPage: true });
    expect(csp).toEqual([]);
    await context.close();
  }, 60_000);
});

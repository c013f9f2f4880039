// The lists' download links in a real browser (Debian's Chromium through playwright-core, the real
// app on a real port under its CSP): they show at 375 and 1440 px, follow a filter changed with htmx
// (the results region is swapped, the links inside it carry the new filter), and a click downloads
// the file of exactly the filtered rows. Screenshots at both widths go to /tmp/shots-exports/ for a
// person to look at. Skipped with a notice where the browser is missing.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, signedInPage, warnIfSkipped } from '../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from './client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { collectionReference, customPayment, reverseCollection } from '../money-ops.ts';

warnIfSkipped('the console exports browser test');
const SHOTS = '/tmp/shots-exports';

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;
let user: ConsoleUserInfo;
let reversed: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Chikondi General Store' });
  const references: string[] = [];
  for (let i = 0; i < 5; i++) references.push(collectionReference(await customPayment(t, m, 20_000 + i * 100)));
  reversed = references[1];
  expect((await reverseCollection(t, m, reversed)).statusCode).toBe(200);
  user = await consoleUser(t, m, { role: 'MERC_VIEWER' });
  origin = await listen(t);
  browser = await launchBrowser();
  fs.mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

it.skipIf(!BROWSER_PRESENT)('shows the download links at both widths; after an htmx filter change they download the filtered rows', async () => {
  const csp: string[] = [];
  const { context, page } = await signedInPage(browser, origin, user, { csp, acceptDownloads: true });
  await page.goto(`${origin}/console/collections`);
  for (const [label, viewport] of [
    ['375', PHONE],
    ['1440', DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    for (const id of ['#collections-export-csv', '#collections-export-xlsx']) {
      const box = await page.locator(id).boundingBox();
      expect(box, `${id} at ${label} px`).not.toBeNull();
      // Within the viewport's width: nothing to scroll sideways for.
      expect(box!.x + box!.width, `${id} at ${label} px`).toBeLessThanOrEqual(viewport.width);
    }
    await page.screenshot({ path: path.join(SHOTS, `collections-${label}.png`), fullPage: false });
  }

  // The status filter changed: htmx swaps the results in and pushes the address.
  await page.selectOption('#filter-status', 'R');
  await page.waitForURL(/status=R/);
  await expect.poll(() => page.getAttribute('#collections-export-csv', 'href')).toBe('/console/collections.csv?status=R');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#collections-export-csv')]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^collections-${m.merchantAccountNumber}-chikondi-general-store-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const file = fs.readFileSync((await download.path())!, 'utf8');
  const lines = file.trim().split('\r\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(reversed);

  const [workbook] = await Promise.all([page.waitForEvent('download'), page.click('#collections-export-xlsx')]);
  expect(workbook.suggestedFilename()).toMatch(/\.xlsx$/);
  expect(fs.statSync((await workbook.path())!).size).toBeGreaterThan(1000);

  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(SHOTS, 'collections-filtered-375.png'), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, 'collections-filtered-1440.png'), fullPage: true });
  expect(csp).toEqual([]);
  await context.close();
}, 60_000);

// The console's collections, analytics and home figures in a real browser: Debian's headless Chromium
// driven by playwright-core, against the real app on a real port, under its real CSP. Data made
// through the API over HTTP; a merchant user signs in through the form; the collections list equals
// the API's; filters and paging swap the results region with htmx (no page load, the address pushed)
// and work from the keyboard; a collection's page opens from the list; analytics draws its charts.
// Every page is checked with axe-core (no serious or critical violation) and photographed at 375 and
// 1440 px into test-artifacts/ (git-ignored), which a person looks at. Skipped with a notice where
// the browser is missing (CI installs it: .ci/run).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, shoot, warnIfSkipped, watchCsp } from '../../browser-kit.ts';
import { formatMajor } from '../../../src/lib/money.ts';
import { consoleUser } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, runPayouts, validateBatch } from '../../money-ops.ts';

warnIfSkipped('the console collections browser test');
const HOSTILE = '<img src=x onerror=alert(1)>';
const PAYMENTS = 30;

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chikondi General Store', levelNumber: 2 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** An API call over real HTTP, as a merchant's server makes it. */
async function api(method: string, url: string, body?: unknown) {
  const res = await fetch(`${origin}${BASE}${url}`, { method, headers: { 'content-type': 'application/json', ...m.auth }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBeLessThan(300);
  return JSON.parse(text);
}

const amount = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

/** A batch of wallet payouts (a 9901 account fails), validated: its number. */
async function batchOf(amountsMajor: number[], failing = false): Promise<number> {
  const batch = await api('POST', '/disbursements/batch/addJson', {
    header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: 'capturer@shop.mw' },
    transactions: amountsMajor.map((value, i) => ({
      beneficiaryName: 'Chisomo Banda',
      connectorId: 112400,
      beneficiaryAccountNumber: failing && i === 0 ? '265991239901' : '265991234567',
      transactionDescription: 'Salary',
      transactionAmount: value,
      sourceReferenceNumber: `SRC-${Date.now()}-${i}`,
    })),
  });
  await validateBatch(t, batch.batchNumber);
  return batch.batchNumber;
}

/**
 * Collections (E11 and E12, one reversed), a funded account, a batch approved by `approver` and
 * paid (one line failing), and a batch waiting for approval.
 */
async function makeMoney(approver: string): Promise<{ hostileReference: string; reversedReference: string; batchNumber: number }> {
  for (let i = 0; i < PAYMENTS; i++) {
    await api('POST', '/collections/addFakeCustomPayment', { beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: i % 3 === 0 ? 112400 : 212188, transactionAmount: amount(10_000 + i * 2_345), createdBy: 'till@shop.mw' });
  }
  const initiated = await api('POST', '/collections/requestToPay/initiate', {
    merchantAccountNumber: m.merchantAccountNumber,
    transactionAmount: '420.00',
    transactionDescription: HOSTILE,
    referenceNumber: `ORDER${Date.now()}`,
    capturedBy: 'till@shop.mw',
  });
  const paid = await api('POST', '/collections/requestToPay/addFakeTransaction', {
    merchantAccountNumber: m.merchantAccountNumber,
    transactionAmount: '420.00',
    connectorId: 112500,
    timedAccountNumber: initiated.timedAccountNumber,
    currencyCode: 'MWK',
    capturedBy: 'till@shop.mw',
  });
  const hostileReference: string = paid.transaction.transactionReferenceNumber;
  const list = await api('POST', '/collections/getTransactions', { merchantAccountNumber: m.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 100 });
  const reversedReference: string = list[3].transactionReferenceNumber;
  await api('POST', '/collections/reverse', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reversedReference, reason: 'Returned goods' });
  await api('POST', '/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: 212188, topupAmount: '25000.00', createdBy: 'ops@shop.mw' });
  const paidBatch = await batchOf([1500, 2500, 900], true);
  for (const action of ['approve', 'transferFunds'] as const) {
    const res = await act(t, m, action, paidBatch, approver);
    expect(res.statusCode, res.body).toBe(200);
  }
  await runPayouts(t, m);
  const batchNumber = await batchOf([1000, 2000, 3000]);
  return { hostileReference, reversedReference, batchNumber };
}




/** The references listed on the page, in order. */
const listed = (page: Page) => page.$$eval('#collections-table tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent?.trim() ?? ''));

/** Marks the document: a full page load loses the mark, an htmx swap keeps it. */
const mark = (page: Page) => page.evaluate(() => document.documentElement.setAttribute('data-test-mark', 'kept'));
const marked = (page: Page) => page.evaluate(() => document.documentElement.getAttribute('data-test-mark'));

describe.skipIf(!BROWSER_PRESENT)('collections, analytics and home in a browser', () => {
  it('sign in → collections equal the API\'s → filter and page with htmx, by keyboard → a collection → analytics charts → home figures; every page accessible', async () => {
    const user = await consoleUser(t, m, { role: 'MERC_APPROVER', firstName: 'Thoko' });
    const { hostileReference, reversedReference, batchNumber } = await makeMoney(user.email);

    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    watchCsp(page, problems);
    await page.goto(`${origin}/console/collections`);
    expect(page.url()).toContain('/console/sign-in');
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(`${origin}/console/collections`), page.click('#submit')]);

    // The list: the API's first 25, in its order.
    const fromApi = await api('POST', '/collections/getTransactions', { merchantAccountNumber: m.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 100 });
    expect(fromApi).toHaveLength(PAYMENTS + 1);
    expect(await listed(page)).toEqual(fromApi.slice(0, 25).map((c: { transactionReferenceNumber: string }) => c.transactionReferenceNumber));
    const firstAmount = await page.textContent('#collections-table tbody tr:first-child td:nth-child(5)');
    expect(firstAmount?.replace(/\s+/g, ' ').trim()).toBe(`MWK ${formatMajor(Math.round(fromApi[0].transactionAmount * 100))}`);
    // The hostile description's collection: its customer's name and description are text.
    expect(await page.locator('img').count()).toBe(0);
    await shoot(page, 'collections');

    // Filter with htmx: choosing a status swaps the results, no page load, the address follows.
    await mark(page);
    await Promise.all([page.waitForURL(/status=R/), page.selectOption('#filter-status', 'R')]);
    await expect.poll(() => listed(page)).toEqual([reversedReference]);
    expect(await marked(page)).toBe('kept');
    expect(await page.textContent('#collections-summary')).toBe('1 collection shown.');
    await shoot(page, 'collections-filtered');
    // The pushed address is shareable: opened by itself it shows the same.
    const shared = page.url();

    // From the keyboard: clear the status, search by the connector's customers, page with "Next page".
    await page.goto(`${origin}/console/collections`);
    await mark(page);
    await page.focus('#filter-search');
    await page.keyboard.type(fromApi[7].transactionReferenceNumber.slice(0, 4));
    await Promise.all([page.waitForURL(/search=/), page.keyboard.press('Enter')]);
    await expect.poll(async () => (await listed(page)).includes(fromApi[7].transactionReferenceNumber)).toBe(true);
    expect(await marked(page)).toBe('kept');
    await page.goto(`${origin}/console/collections`);
    await mark(page);
    await page.focus('#collections-next');
    await Promise.all([page.waitForURL(/after=/), page.keyboard.press('Enter')]);
    await expect.poll(() => listed(page)).toEqual(fromApi.slice(25).map((c: { transactionReferenceNumber: string }) => c.transactionReferenceNumber));
    expect(await marked(page)).toBe('kept');
    expect(await page.isVisible('#collections-first')).toBe(true);
    await shoot(page, 'collections-page-2');
    // Back: the first page again (htmx restores the history entry from the server).
    await page.goBack();
    await expect.poll(() => listed(page)).toHaveLength(25);

    await page.goto(shared);
    expect(await listed(page)).toEqual([reversedReference]);
    expect(await page.inputValue('#filter-status')).toBe('R');

    // A refused filter: the page again with the message, the value as typed.
    const refused = await page.goto(`${origin}/console/collections?from=2026-02-30`);
    expect(refused?.status()).toBe(400);
    expect(await page.textContent('#filter-problem')).toContain('"2026-02-30" is not a day');
    expect(await page.inputValue('#filter-from')).toBe('2026-02-30');
    await shoot(page, 'collections-refused');

    // A collection, opened from the list.
    await page.goto(`${origin}/console/collections?search=${hostileReference}`);
    await Promise.all([page.waitForURL(`${origin}/console/collections/${hostileReference}`), page.click(`a:text("${hostileReference}")`)]);
    expect(await page.textContent('#collection-title')).toBe(`Collection ${hostileReference}`);
    expect(await page.textContent('#collection-description')).toBe(HOSTILE);
    expect(await page.locator('#ledger-lines tbody tr').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('#collection-events tbody tr').count()).toBe(1);
    await shoot(page, 'collection');
    await page.goto(`${origin}/console/collections/${reversedReference}`);
    expect(await page.textContent('#collection-status')).toBe('Reversed');
    await shoot(page, 'collection-reversed');

    // Analytics: a chart per figure, each an image named by its title, with the table of its figures.
    await page.goto(`${origin}/console/analytics`);
    expect(await page.locator('svg.chart[role="img"]').count()).toBe(4);
    expect(await page.locator('#collections-count-chart-title').count()).toBe(1);
    expect(await page.locator('#collections-count-chart-title').textContent()).toBe('Collections: transactions by connector');
    expect(await page.locator('#collections-table caption').textContent()).toMatch(/^Collections by connector, from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
    const bars = await page.locator('#analytics-collections svg[aria-labelledby="collections-count-chart-title"] rect.chart-bar-value').count();
    expect(bars).toBe(3);
    // Payouts: the paid batch's three lines, one failed, all through Airtel.
    expect(await page.locator('#analytics-payouts svg[aria-labelledby="payouts-count-chart-title"] rect.chart-bar-value').count()).toBe(1);
    const airtel = page.locator('#payouts-table tbody tr', { hasText: 'Airtel Money' });
    expect((await airtel.locator('td').allTextContents()).slice(0, 3)).toEqual(['2', '1', '3']);
    await shoot(page, 'analytics');

    // Home: the day's figures as charts with their tables, and the batch waiting for this approver.
    await page.goto(`${origin}/console`);
    expect(await page.locator('svg.chart[role="img"]').count()).toBe(2);
    expect(await page.textContent('#flow-collections-today td:nth-child(2)')).toBe(String(PAYMENTS + 1));
    expect(await page.textContent('#flow-payouts-today td:nth-child(2)')).toBe('3');
    expect(await page.textContent('#flow-payouts-today td:nth-child(7)')).toBe('66.67 %');
    expect(await page.textContent('#attention-batches a')).toBe(`Batch ${batchNumber}`);
    expect(await page.getAttribute('#attention-batches a', 'href')).toBe(`/console/payouts/batches/${batchNumber}`);
    await page.click('#flow-collections summary');
    expect(await page.isVisible('#flow-collections-days')).toBe(true);
    await shoot(page, 'home-figures');
    await page.goto(`${origin}/console/analytics?lang=ny`);
    await shoot(page, 'analytics-ny');
    await page.goto(`${origin}/console/collections?lang=ny`);
    await shoot(page, 'collections-ny');
    await page.goto(`${origin}/console?lang=en`);

    // axe-core on every page, at both widths.
    const checking = await browser.newContext({ viewport: PHONE, bypassCSP: true, storageState: await context.storageState() });
    const pages = [
      '/console',
      '/console/collections',
      '/console/collections?status=R',
      '/console/collections?from=2026-02-30',
      `/console/collections/${hostileReference}`,
      `/console/collections/${reversedReference}`,
      '/console/collections/ABCDEFGHIJKL',
      '/console/analytics',
      '/console/analytics?from=2026-02-01&to=2026-01-01',
      '/console/collections?lang=ny',
      '/console/analytics?lang=ny',
      '/console?lang=ny',
    ];
    for (const url of pages) {
      await axe(checking, `${origin}${url}`);
      await axe(checking, `${origin}${url}`, DESKTOP);
    }
    await checking.close();

    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});

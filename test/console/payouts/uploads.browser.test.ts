// Uploading a payout file in a real browser (Debian's headless Chromium through playwright-core, the
// real app on a real port under its real CSP): an initiator picks an XLSX of 2,000 payouts, three
// of them bad (one with an amount that is not one), on a connection slowed to a crawl so that the
// upload takes a while; the page shows the upload's progress, then that the file is being read;
// the batch page opens while the batch is still queued and follows it live (no reload): when the
// validation job runs, the invalid lines appear with their reasons, with the error workbook, which
// downloads with those three lines, each by its row in the file. A file
// of the wrong type is refused in place. axe-core on each state (no serious or critical
// violation), screenshots at 375 and 1440 px for a person to look at; nothing the CSP refuses.
// Skipped with a notice where the browser is missing (CI installs it).
import ExcelJS from 'exceljs';
import fs from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, PHONE, shoot, signIn, warnIfSkipped, watchCsp } from '../../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { AIRTEL, topup, validateBatch } from '../../money-ops.ts';

warnIfSkipped('the console uploads browser test');

const HEADER = ['beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber'];
const LINES = 2_000;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let m: TestMerchant;
let origin: string;
let initiator: ConsoleUserInfo;
const cspMessages: string[] = [];

/** 2,000 payouts; lines 2, 3 and 4 (rows 3, 4 and 5) are bad: an unknown connector, a wallet number too short, an amount that is not one. */
async function payroll(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('March payroll');
  sheet.addRow(HEADER);
  const stamp = Date.now().toString(36).toUpperCase();
  for (let i = 1; i <= LINES; i++) {
    const connector = i === 2 ? 999999 : AIRTEL;
    const account = i === 3 ? 12345 : 265991000000 + i;
    const amount = i === 4 ? '12,5x' : 1000 + i;
    sheet.addRow([`Employee ${i}`, connector, account, 'March salary', amount, `PAY-${stamp}-${i}`]);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chikondi Payroll', levelNumber: 2 });
  expect((await topup(t, m, 500_000_00)).statusCode).toBe(200);
  initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR', firstName: 'Chimwemwe' });
  context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, acceptDownloads: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await t?.close();
});

describe.skipIf(!BROWSER_PRESENT)('uploading a payout file in a browser', () => {
  it('shows the upload progress, then the batch live: its invalid lines with their reasons and the error workbook', async () => {
    const page = await context.newPage();
    watchCsp(page, cspMessages);
    await signIn(page, origin, initiator);
    await page.goto(`${origin}/console/payouts`);
    await Promise.all([page.waitForURL(`${origin}/console/payouts/upload`), page.click('#upload-link')]);
    await axePage(page, 'the upload form');
    await shoot(page, 'upload');

    // A file of the wrong type: refused in place (the script shows the server's page), with its message.
    await page.setInputFiles('#upload-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.click('#upload-submit');
    await page.waitForSelector('#upload-file-error');
    expect(await page.textContent('#upload-file-error')).toContain('notes.txt');
    expect(page.url()).toBe(`${origin}/console/payouts/upload`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('upload-errors');
    await axePage(page, 'the upload form, refused');
    await shoot(page, 'upload-refused');

    // Rows the line schema refuses: named by the row the spreadsheet shows (the header is row 1, a blank row counts).
    const badRows = [HEADER.join(','), `Good Line,${AIRTEL},265991234567,Salary,100,ROW-1`, '', `,${AIRTEL},265991234567,Salary,100,ROW-2`, `Negative,${AIRTEL},265991234567,Salary,-5,ROW-3`];
    await page.setInputFiles('#upload-file', { name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(badRows.join('\r\n')) });
    await page.click('#upload-submit');
    await page.waitForSelector('#line-problems');
    expect(await page.$$eval('#line-problems li', (lis) => lis.map((li) => li.textContent?.slice(0, 6)))).toEqual(['Row 4:', 'Row 5:']);
    await axePage(page, 'the upload form, rows refused');
    await shoot(page, 'upload-row-problems');

    // The payroll, on a slow line: the upload takes a while, and the page says how far it is.
    const file = await payroll();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: Math.ceil(file.length / 2) });
    const statuses: string[] = [];
    await page.exposeFunction('uploadStatusChanged', (text: string) => statuses.push(text));
    await page.evaluate(() => {
      const status = document.getElementById('upload-status')!;
      new MutationObserver(() => (window as unknown as { uploadStatusChanged: (t: string) => void }).uploadStatusChanged(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.setInputFiles('#upload-file', { name: 'march-payroll.xlsx', mimeType: XLSX_TYPE, buffer: file });
    await page.click('#upload-submit');
    await page.waitForSelector('#upload-progress:not([hidden])');
    expect(await page.isDisabled('#upload-submit')).toBe(true);
    await page.waitForURL(/\/console\/payouts\/batches\/\d+\?notice=/, { timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    // Progress in steps, then the reading of the file: in that order.
    const uploading = statuses.filter((s) => s.startsWith('Uploading'));
    expect(uploading.length, statuses.join(' | ')).toBeGreaterThanOrEqual(3);
    expect(uploading[0]).toBe('Uploading: 0 %');
    expect(statuses.at(-1)).toBe('Uploaded. Reading the file and creating the batch…');
    expect(statuses.indexOf('Uploading: 50 %')).toBeGreaterThan(0);

    // The batch page, queued: being checked, live.
    const batchNumber = Number(/batches\/(\d+)/.exec(page.url())![1]);
    expect(await page.textContent('#notice')).toMatch(/uploaded/);
    expect(await page.textContent('#live-summary')).toBe(`Checking ${LINES} lines…`);
    await page.waitForSelector('#live-batch[data-live-state="open"]');
    expect(await page.textContent('#live-note')).toBe('This page updates by itself.');
    await axePage(page, 'the batch page, queued');
    await shoot(page, 'upload-validating');

    // The validation job runs: the page follows without a reload.
    await page.evaluate(() => ((window as unknown as { liveMark: number }).liveMark = 1));
    await validateBatch(t, batchNumber);
    await page.waitForSelector('#batch-errors', { timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { liveMark?: number }).liveMark)).toBe(1);
    expect(await page.textContent('#batch-errors-title')).toBe('Invalid lines: 3');
    expect(await page.textContent('#live-summary')).toBe(`${LINES - 3} valid lines, 3 invalid`);
    expect(await page.textContent('#live-announce')).toMatch(new RegExp(`^Batch ${batchNumber}: Pending Approval\\. ${LINES - 3} valid lines, 3 invalid`));
    // The lines list, redrawn: the invalid ones with their reasons.
    await page.waitForSelector('#line-2 .error-text');
    expect(await page.textContent('#line-2 .error-text')).toBe('Connector 999999 does not exist.');
    expect(await page.textContent('#line-3 .error-text')).toBe('A wallet account must be a 12-digit number starting with 265.');
    // The amount that is not one: an invalid line like the others (a console upload keeps it), without an amount.
    expect(await page.textContent('#line-4 .error-text')).toBe('The amount "12,5x" is not a number of MWK from 0.01 to 1,000,000,000 with at most 2 decimals.');
    await axePage(page, 'the batch page, validated');
    await shoot(page, 'upload-validated');

    // The error workbook: the two lines, with their reasons.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#error-workbook')]);
    expect(download.suggestedFilename()).toBe(`batch-${batchNumber}-errors.xlsx`);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(fs.readFileSync((await download.path())!) as never);
    const rows = (workbook.worksheets[0].getSheetValues().filter(Boolean) as unknown[][]).map((r) => r.slice(1));
    // Each by its row in the workbook (the header is row 1), the amount as it was written.
    expect(rows.map((r) => [r[0], r[5], r[7]])).toEqual([
      ['lineNumber', 'transactionAmount', 'errorMessage'],
      [3, 1002, 'Connector 999999 does not exist.'],
      [4, 1003, 'A wallet account must be a 12-digit number starting with 265.'],
      [5, '12,5x', 'The amount "12,5x" is not a number of MWK from 0.01 to 1,000,000,000 with at most 2 decimals.'],
    ]);

    // Only the invalid lines, from the link beside the workbook.
    await Promise.all([page.waitForURL(/status=E/), page.click('#show-invalid-lines')]);
    expect(await page.$$eval('#lines-table tbody tr', (trs) => trs.map((tr) => tr.id))).toEqual(['line-2', 'line-3', 'line-4']);
    await axePage(page, 'the batch page, invalid lines only');
    await shoot(page, 'upload-invalid-lines');
    expect(cspMessages).toEqual([]);
    await page.close();
  }, 90_000);
});

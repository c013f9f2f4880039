// The payroll journey in real browsers (Debian's headless Chromium through playwright-core,
// the real app on a real port under its real CSP), on a level-3 merchant: each person in a browser
// of their own, their batch pages open and live (server-sent events) all along, none reloaded
// unless its user acts.
//   - the initiator uploads an XLSX of 20 payouts, two of them bad; everyone watching sees the batch
//     validated: its two invalid lines with their reasons, the error workbook;
//   - the initiator may not review their own batch (no button, a note why; a forged POST refused by
//     the service: four eyes by identity); a viewer sees no actions at all;
//   - the reviewer reviews; the approver's open page offers Approve without a reload; the reviewer
//     may not approve what they reviewed (no button, a note; a forged POST refused); the reviewer's
//     other tab, without JavaScript and so still showing Review, gets a clear 409 message;
//   - the approver approves and transfers the funds; the payouts are paid (the payout job run
//     directly, as everywhere in the tests); every open page shows the batch completed, live.
// The initiator and the reviewer are administrators: their role would let them review and
// approve, so what stops them is the four-eyes rule on who they are, not their role.
// axe-core on the pages along the way; screenshots at 375 and 1440 px. Skipped with a notice where
// the browser is missing (CI installs it).
import ExcelJS from 'exceljs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, shoot, signedInPage, warnIfSkipped } from '../../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { AIRTEL, runPayouts, topup, validateBatch } from '../../money-ops.ts';

warnIfSkipped('the console payroll journey browser test');

type Who = 'initiator' | 'reviewer' | 'approver' | 'viewer';
const ROLES: Record<Who, string> = { initiator: 'MERC_ADMIN', reviewer: 'MERC_ADMIN', approver: 'MERC_APPROVER', viewer: 'MERC_VIEWER' };
const NAMES: Record<Who, string> = { initiator: 'Thoko', reviewer: 'Kondwani', approver: 'Tadala', viewer: 'Mercy' };
const LINES = 20;
const BAD = [4, 9];
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const WAIT_MS = 15_000;

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;
const users = {} as Record<Who, ConsoleUserInfo>;
const contexts: BrowserContext[] = [];
const cspMessages: string[] = [];

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Nyasa Tea Estates', levelNumber: 3 });
  expect((await topup(t, m, 5_000_000_00)).statusCode).toBe(200);
  for (const who of Object.keys(ROLES) as Who[]) users[who] = await consoleUser(t, m, { role: ROLES[who], firstName: NAMES[who] });
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await t?.close();
});

async function payroll(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Payroll');
  sheet.addRow(['Beneficiary Name', 'Connector Id', 'Beneficiary Account Number', 'Transaction Description', 'Transaction Amount', 'Source Reference Number']);
  const stamp = Date.now().toString(36).toUpperCase();
  for (let i = 1; i <= LINES; i++) {
    sheet.addRow([`Picker ${i}`, i === BAD[0] ? 424242 : AIRTEL, i === BAD[1] ? 26599 : 265991100000 + i, 'Tea picking, March', 25_000 + i * 100, `TEA-${stamp}-${i}`]);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A browser of `who`'s own (with or without JavaScript), signed in. */
async function signedIn(who: Who, javaScriptEnabled = true): Promise<Page> {
  const { context, page } = await signedInPage(browser, origin, users[who], { javaScriptEnabled, csp: cspMessages });
  contexts.push(context);
  return page;
}

/** Opens the batch page and waits until its event stream is open. */
async function watch(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('#live-batch[data-live-state="open"]', { timeout: WAIT_MS });
  await mark(page);
}

/** A mark on the document: it survives the live updates, not a reload. */
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { journeyMark: number }).journeyMark = 1));
const marked = (page: Page) => page.evaluate(() => (window as unknown as { journeyMark?: number }).journeyMark === 1);

const liveStatus = (page: Page, status: string) => page.waitForSelector(`#live-batch[data-live-status="${status}"]`, { timeout: WAIT_MS });
const actionButtons = (page: Page) => page.$$eval('#actions button[type="submit"]', (els) => els.map((e) => e.id).sort());

/** A POST the page's own buttons would not offer, with the page's CSRF token and a fresh form key. */
async function forge(page: Page, path: string): Promise<{ status: number; text: string }> {
  const csrf = await page.getAttribute('input[name="_csrf"]', 'value');
  const res = await page.request.post(`${origin}${path}`, { form: { _csrf: csrf ?? '', _form: crypto.randomUUID() }, headers: { origin }, maxRedirects: 0 });
  const html = await res.text();
  return { status: res.status(), text: /<div class="alert alert-error" role="alert" id="actions-error">([\s\S]*?)<\/div>/.exec(html)?.[1].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim() ?? html.slice(0, 300) };
}

describe.skipIf(!BROWSER_PRESENT)('the payroll journey', () => {
  it('initiator uploads, reviewer reviews, approver approves and transfers; every open page follows live; every refusal on the way', async () => {
    const initiator = await signedIn('initiator');
    const reviewer = await signedIn('reviewer');
    const approver = await signedIn('approver');
    const viewer = await signedIn('viewer');

    // The initiator uploads the payroll.
    await initiator.goto(`${origin}/console/payouts`);
    await Promise.all([initiator.waitForURL(`${origin}/console/payouts/upload`), initiator.click('#upload-link')]);
    await initiator.setInputFiles('#upload-file', { name: 'payroll-march.xlsx', mimeType: XLSX_TYPE, buffer: await payroll() });
    await Promise.all([initiator.waitForURL(/\/console\/payouts\/batches\/\d+\?notice=/, { timeout: WAIT_MS }), initiator.click('#upload-submit')]);
    const batchNumber = Number(/batches\/(\d+)/.exec(initiator.url())![1]);
    const batchPath = `/console/payouts/batches/${batchNumber}`;
    const batchUrl = `${origin}${batchPath}`;
    await initiator.waitForSelector('#live-batch[data-live-state="open"]', { timeout: WAIT_MS });
    await mark(initiator);
    expect(await initiator.textContent('#batch-captured dd')).toContain(users.initiator.email);

    // Everyone opens it while it is being checked.
    for (const page of [reviewer, approver, viewer]) await watch(page, batchUrl);
    for (const page of [initiator, reviewer, approver, viewer]) expect(await page.textContent('#live-summary')).toBe(`Checking ${LINES} lines…`);

    // Validated: every open page shows the two invalid lines with their reasons, and the workbook.
    await validateBatch(t, batchNumber);
    for (const page of [initiator, reviewer, approver, viewer]) {
      await liveStatus(page, 'P');
      await page.waitForSelector('#batch-errors', { timeout: WAIT_MS });
      expect(await page.textContent('#batch-errors-title')).toBe('Invalid lines: 2');
      expect(await page.getAttribute('#error-workbook', 'href')).toBe(`${batchPath}/errors.xlsx`);
      await page.waitForSelector(`#line-${BAD[0]} .error-text`, { timeout: WAIT_MS });
      expect(await page.textContent(`#line-${BAD[0]} .error-text`)).toBe('Connector 424242 does not exist.');
      expect(await page.textContent(`#line-${BAD[1]} .error-text`)).toBe('A wallet account must be a 12-digit number starting with 265.');
      expect(await marked(page)).toBe(true);
    }
    expect(await reviewer.textContent('#live-announce')).toBe(`Batch ${batchNumber}: Pending Review. ${LINES - 2} valid lines, 2 invalid`);

    // The initiator may not review their own batch: no button, a note why, and the service refuses a forged one.
    await initiator.waitForSelector('#note-review');
    expect(await actionButtons(initiator)).not.toContain('action-review');
    const ownReview = await forge(initiator, `${batchPath}/review`);
    expect(ownReview.status).toBe(403);
    expect(ownReview.text).toContain(`${users.initiator.email} already acted on batch ${batchNumber}`);
    // A viewer sees no actions.
    expect(await viewer.$('#actions')).toBeNull();
    expect((await forge(viewer, `${batchPath}/review`)).status).toBe(403);
    // The reviewer's other tab, without JavaScript: it will not follow what happens next.
    const staleTab = await signedIn('reviewer', false);
    await staleTab.goto(batchUrl);
    expect(await staleTab.$('#action-review')).not.toBeNull();
    await axePage(reviewer, 'the batch, validated, as reviewer');

    // The reviewer reviews.
    expect(await actionButtons(reviewer)).toEqual(['action-cancel', 'action-reject', 'action-review']);
    await Promise.all([reviewer.waitForURL(`${batchUrl}?notice=notice.payoutActions.review`), reviewer.click('#action-review')]);
    await reviewer.waitForSelector('#live-batch[data-live-state="open"]', { timeout: WAIT_MS });
    await mark(reviewer);
    // The approver's open page offers Approve, without a reload; the others follow.
    await liveStatus(approver, 'R');
    await approver.waitForSelector('#action-approve', { timeout: WAIT_MS });
    expect(await marked(approver)).toBe(true);
    for (const page of [initiator, viewer]) {
      await liveStatus(page, 'R');
      await page.waitForSelector('#batch-reviewed', { timeout: WAIT_MS });
      expect(await page.textContent('#batch-reviewed dd')).toContain(users.reviewer.email);
      expect(await marked(page)).toBe(true);
    }
    // The reviewer may not approve what they reviewed: no button, a note, a forged one refused.
    expect(await actionButtons(reviewer)).not.toContain('action-approve');
    expect(await reviewer.$('#note-approve')).not.toBeNull();
    const ownApproval = await forge(reviewer, `${batchPath}/approve`);
    expect(ownApproval.status).toBe(403);
    expect(ownApproval.text).toContain(`${users.reviewer.email} already acted on batch ${batchNumber}`);
    // The stale tab reviews again: a clear message, nothing changed, the batch as it is now.
    await Promise.all([staleTab.waitForLoadState('domcontentloaded'), staleTab.click('#action-review')]);
    await staleTab.waitForSelector('#actions-error');
    expect(await staleTab.$$eval('#actions-error p', (ps) => ps.map((p) => p.textContent))).toEqual([`Batch ${batchNumber} is reviewed: it cannot be reviewed now.`, 'Nothing was changed.']);
    expect(await staleTab.textContent('#batch-status dd')).toContain('Reviewed');
    await axePage(approver, 'the batch, reviewed, as approver (live)');

    // The approver approves, then transfers the funds.
    await Promise.all([approver.waitForURL(`${batchUrl}?notice=notice.payoutActions.approve`), approver.click('#action-approve')]);
    for (const page of [initiator, reviewer, viewer]) await liveStatus(page, 'A');
    await approver.click('#open-transferFunds');
    await Promise.all([approver.waitForURL(`${batchUrl}?notice=notice.payoutActions.transferFunds`), approver.click('#action-transferFunds')]);
    await approver.waitForSelector('#live-batch[data-live-state="open"]', { timeout: WAIT_MS });
    await mark(approver);
    for (const page of [initiator, reviewer, viewer]) await liveStatus(page, 'T');

    // The payouts are paid: every open page shows the batch completed, without a reload.
    await runPayouts(t, m);
    for (const page of [initiator, reviewer, approver, viewer]) {
      await page.waitForSelector('#live-batch[data-live-state="ended"][data-live-end="final"]', { timeout: WAIT_MS });
      expect(await page.textContent('#live-status')).toBe('Status: Processed');
      expect(await page.textContent('#live-progress')).toMatch(new RegExp(`^${LINES - 2} of ${LINES - 2} lines final \\(100 %\\): ${LINES - 2} paid, 0 failed\\.`));
      expect(await page.textContent('#live-note')).toBe('This batch is final: its figures no longer change.');
      await page.waitForFunction(() => document.querySelector('#batch-status dd')?.textContent?.includes('Processed'), undefined, { timeout: WAIT_MS });
      expect(await page.$('#actions')).toBeNull();
      expect(await marked(page)).toBe(true);
    }
    await axePage(initiator, 'the batch, completed, as initiator (live)');
    await shoot(initiator, 'payroll-complete');
    expect(cspMessages).toEqual([]);
  }, 120_000);
});

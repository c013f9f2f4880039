// Payout actions in a real browser (Debian's headless Chromium through playwright-core, the real app
// on a real port under its real CSP), on a level-3 merchant with three users, each in a browser of
// their own: the initiator creates a single payout from the form (first with errors, shown per
// field), the reviewer reviews it and a batch the initiator captured (through the API, capturedBy the
// initiator's address), the approver approves both and transfers the batch's funds; the batch
// completes. Each step that moves money asks first, with the amount, the fee and the balance after
// (issue 27): the new payout's form, the transfer, the payout's approval. axe-core on each page state (no serious or critical violation), screenshots at 375 and
// 1440 px of the batch page with its actions card and of the form with its errors, for a person to
// look at. Skipped with a notice where the browser is missing (CI installs it).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, shoot, signedInPage, warnIfSkipped } from '../../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { AIRTEL, runPayouts, topup, validateBatch, walletLine } from '../../money-ops.ts';

warnIfSkipped('the console payout actions browser test');

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;
const users = {} as Record<'initiator' | 'reviewer' | 'approver', ConsoleUserInfo>;
const contexts: BrowserContext[] = [];
const cspMessages: string[] = [];

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chikondi Payroll', levelNumber: 3 });
  expect((await topup(t, m, 500_000_00)).statusCode).toBe(200);
  users.initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR', firstName: 'Chimwemwe' });
  users.reviewer = await consoleUser(t, m, { role: 'MERC_REVIEWER', firstName: 'Kondwani' });
  users.approver = await consoleUser(t, m, { role: 'MERC_APPROVER', firstName: 'Tadala' });
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await t?.close();
});

/** A browser of `who`'s own, signed in, on the home page. */
async function signedIn(who: keyof typeof users): Promise<Page> {
  const { context, page } = await signedInPage(browser, origin, users[who], { csp: cspMessages });
  contexts.push(context);
  return page;
}

/** Clicks a submit button and waits for the page its form leads to. */
async function submit(page: Page, selector: string, url: string | RegExp): Promise<void> {
  await Promise.all([page.waitForURL(url), page.click(selector)]);
}

const buttons = (page: Page) => page.$$eval('#actions button[type="submit"]', (els) => els.map((e) => e.id).sort());

describe.skipIf(!BROWSER_PRESENT)('payout actions in a browser', () => {
  it('initiator creates, reviewer reviews, approver approves and transfers; every state accessible', async () => {
    // The batch the initiator captured (the upload is another page's: here it comes through the API).
    const added = await t.app.inject({
      method: 'POST',
      url: `${BASE}/disbursements/batch/addJson`,
      headers: m.auth,
      payload: {
        header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: users.initiator.email },
        transactions: [walletLine('12500.00'), walletLine('8000.00'), walletLine('4300.75')],
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    const batchNumber: number = added.json().batchNumber;
    await validateBatch(t, batchNumber);
    const batchUrl = `${origin}/console/payouts/batches/${batchNumber}`;

    // Initiator: the single-payout form, sent with mistakes, then right.
    const initiator = await signedIn('initiator');
    await Promise.all([initiator.waitForURL(`${origin}/console/payouts/single`), initiator.goto(`${origin}/console/payouts/single`)]);
    await Promise.all([initiator.waitForURL(`${origin}/console/payouts/single/new`), initiator.click('#new-single')]);
    await axePage(initiator, 'single-payout form');
    await initiator.fill('#beneficiaryName', 'Chisomo Banda');
    await initiator.fill('#transactionAmount', '12.345');
    await submit(initiator, '#create-single', `${origin}/console/payouts/single/new`);
    expect(await initiator.textContent('#connectorId-error')).toBe('Choose the bank or wallet that holds the account.');
    expect(await initiator.textContent('#transactionAmount-error')).toBe('Enter an amount such as 1500 or 1500.50 (at most 2 decimals).');
    expect(await initiator.inputValue('#beneficiaryName')).toBe('Chisomo Banda');
    expect(await initiator.getAttribute('#transactionAmount', 'aria-invalid')).toBe('true');
    // The summary's links lead to the fields.
    await initiator.click('#form-error a[href="#transactionAmount"]');
    await expect.poll(() => initiator.evaluate(() => document.activeElement?.id)).toBe('transactionAmount');
    await axePage(initiator, 'single-payout form with errors');
    await shoot(initiator, 'payout-actions-single-form-errors');
    await initiator.selectOption('#connectorId', String(AIRTEL));
    await initiator.fill('#beneficiaryAccountNumber', '265991234567');
    await initiator.fill('#transactionAmount', '2,500.50');
    await initiator.fill('#sourceReferenceNumber', 'REFUND-77');
    // First what it would cost: the confirmation, open under the form; nothing is saved yet.
    await submit(initiator, '#create-single', `${origin}/console/payouts/single/new`);
    expect(await initiator.isVisible('#action-create')).toBe(true);
    expect(await initiator.textContent('#debit-fee dd')).toContain('MWK 100.00');
    expect(await initiator.textContent('#action-create')).toContain('Save the payout');
    await axePage(initiator, 'single-payout form, confirming');
    await shoot(initiator, 'payout-actions-single-confirm');
    await submit(initiator, '#action-create', /\/console\/payouts\/single\/[A-Z0-9]{12}\?notice=/);
    const payoutUrl = initiator.url().split('?')[0];
    expect(await initiator.textContent('#notice')).toBe('The payout is saved: it now waits for approval.');
    expect(await initiator.$('#actions')).toBeNull();
    await axePage(initiator, 'single payout, as its capturer');
    // The batch, as its capturer: only withdrawing it.
    await initiator.goto(batchUrl);
    expect(await buttons(initiator)).toEqual(['action-cancel']);

    // Reviewer: the batch, then the payout.
    const reviewer = await signedIn('reviewer');
    await reviewer.goto(batchUrl);
    expect(await buttons(reviewer)).toEqual(['action-reject', 'action-review']);
    // Rejecting asks first: the reason and its button open by keyboard, and close again.
    expect(await reviewer.isVisible('#reason')).toBe(false);
    await reviewer.focus('#open-reject');
    await reviewer.keyboard.press('Enter');
    expect(await reviewer.isVisible('#reason')).toBe(true);
    await axePage(reviewer, 'batch, reject open');
    await shoot(reviewer, 'payout-actions-batch-reject');
    await reviewer.keyboard.press('Enter');
    expect(await reviewer.isVisible('#reason')).toBe(false);
    await submit(reviewer, '#action-review', `${batchUrl}?notice=notice.payoutActions.review`);
    expect(await reviewer.textContent('#notice')).toBe('The batch is reviewed: it now waits for approval.');
    expect(await buttons(reviewer)).toEqual(['action-reject']);
    await axePage(reviewer, 'batch, reviewed');
    await reviewer.goto(payoutUrl);
    await submit(reviewer, '#action-review', /notice=notice\.payoutActions\.singleReview/);

    // Approver: approves and transfers the batch, approves the payout.
    const approver = await signedIn('approver');
    await approver.goto(batchUrl);
    expect(await buttons(approver)).toEqual(['action-approve', 'action-cancel', 'action-reject']);
    await axePage(approver, 'batch, reviewed, as approver');
    await submit(approver, '#action-approve', `${batchUrl}?notice=notice.payoutActions.approve`);
    expect(await buttons(approver)).toEqual(['action-cancel', 'action-transferFunds']);
    expect(await approver.textContent('#transfer-hint')).toContain('MWK 25,100.75');
    await axePage(approver, 'batch, approved');
    await shoot(approver, 'payout-actions-batch');
    // Transferring asks first: the amount, the fees and the balance after.
    expect(await approver.isVisible('#action-transferFunds')).toBe(false);
    await approver.click('#open-transferFunds');
    expect(await approver.textContent('#debit-amount dd')).toContain('MWK 24,800.75');
    expect(await approver.textContent('#debit-fee dd')).toContain('MWK 300.00');
    expect(await approver.textContent('#debit-after dd')).toContain('MWK 474,899.25');
    await axePage(approver, 'batch, transfer confirming');
    await shoot(approver, 'payout-actions-transfer-confirm');
    await submit(approver, '#action-transferFunds', `${batchUrl}?notice=notice.payoutActions.transferFunds`);
    expect(await approver.textContent('#notice')).toBe('Funds transferred: the payouts are on their way.');
    expect(await approver.$('#actions')).toBeNull();
    await axePage(approver, 'batch, transferring');
    await approver.goto(payoutUrl);
    await approver.click('#open-approve');
    expect(await approver.textContent('#debit-total dd')).toContain('MWK 2,600.50');
    await axePage(approver, 'single payout, approve confirming');
    await shoot(approver, 'payout-actions-approve-confirm');
    await submit(approver, '#action-approve', /notice=notice\.payoutActions\.singleApprove/);
    await axePage(approver, 'single payout, approved');

    // Paid: the batch completes, the payout succeeds.
    await runPayouts(t, m);
    await approver.goto(batchUrl);
    expect((await approver.textContent('#batch-status dd'))?.trim()).toBe('Processed');
    await approver.goto(payoutUrl);
    expect(await approver.textContent('#payout-status dd')).toContain('Successful');
    expect(await approver.textContent('#payout-approved dd')).toContain(users.approver.email);
    expect(cspMessages).toEqual([]);
  }, 90_000); // a long journey through a real browser: bounded, generously, for a loaded 2-core machine
});

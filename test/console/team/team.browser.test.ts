// The team pages, the audit log and the settlement accounts in a real browser (Debian's Chromium
// through playwright-core, the real app on a real port under its real CSP): an administrator opens
// Team from the navigation, sends the invitation form with mistakes and sees each one beside its
// field, sends it right, changes the new user's role, closes them, and finds the three actions in
// the audit log filtered by that user (an htmx swap with the address pushed); then adds two
// settlement accounts, activates one and is refused the second with the service's message. axe-core
// on every page (no serious or critical violation); screenshots at 375 and 1440 px of the team
// page, the invitation form with its errors, the audit log and the settlement accounts.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, shoot, signedInPage, warnIfSkipped, clickSection } from '../../browser-kit.ts';
import { consoleUser, newEmail } from '../client.ts';
import { newMerchant, startTestApp, type TestApp } from '../../helpers.ts';

warnIfSkipped('the console team and settlement browser test');

let t: TestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Clicks what submits a form or follows a link, and waits for the page it leads to. */
async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}

describe.skipIf(!BROWSER_PRESENT)('team and settlement accounts in a browser', () => {
  it('invites, changes a role, closes, finds it in the audit log; adds settlement accounts and meets the one-active rule', async () => {
    const m = await newMerchant(t, { accountName: 'Likuni Builders' });
    const admin = await consoleUser(t, m, { role: 'MERC_ADMIN', firstName: 'Tamanda' });
    const csp: string[] = [];
    const { context, page } = await signedInPage(browser, origin, admin, { csp });

    // Team, from the navigation.
    await Promise.all([page.waitForURL(`${origin}/console/team`), clickSection(page, '/console/team')]);
    expect(await page.locator('#team-table tbody tr').count()).toBe(1);
    await Promise.all([page.waitForURL(`${origin}/console/team/invite`), page.click('#invite-link')]);
    await axePage(page, 'invite form');

    // Mistakes first: each is said beside its field, and what was typed stays.
    await page.fill('#invite-first-name', 'Chisomo');
    await page.fill('#invite-email', 'chisomo at likuni');
    await page.fill('#invite-phone', '12345');
    await submit(page, '#send-invitation');
    expect(await page.textContent('#invite-last-name-error')).toBe('Enter the last name.');
    expect(await page.textContent('#invite-email-error')).toBe('Enter an e-mail address such as name@example.mw.');
    expect(await page.textContent('#invite-phone-error')).toMatch(/^Enter a Malawian mobile number/);
    expect(await page.textContent('#invite-role-error')).toBe('Choose a role.');
    expect(await page.inputValue('#invite-first-name')).toBe('Chisomo');
    expect(await page.inputValue('#invite-email')).toBe('chisomo at likuni');
    expect(await page.locator('#invite-problems li').count()).toBe(4);
    await axePage(page, 'invite form with errors');
    await shoot(page, 'team-invite-errors');

    // The summary's links lead to their fields.
    await page.click('#invite-problems a[href="#invite-email"]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('invite-email');

    const email = newEmail('chisomo');
    await page.fill('#invite-last-name', 'Mbewe');
    await page.fill('#invite-email', email);
    await page.fill('#invite-phone', '0999 123 456');
    await page.selectOption('#invite-role', 'MERC_INITIATOR');
    await submit(page, '#send-invitation');
    // No SMTP_URL here: the notice says the e-mail was held, and where to read it.
    expect(page.url()).toMatch(/\/console\/team\/users\/[0-9a-f-]{36}\?notice=notice\.team\.invitedHeld$/);
    const userId = /users\/([0-9a-f-]{36})/.exec(page.url())![1];
    expect(await page.textContent('#notice')).toContain('the invitation e-mail was not sent');
    expect(await page.getAttribute('#notice-link', 'href')).toBe('/console/sandbox/outbox');
    expect(await page.textContent('#user-role dd')).toBe('Merchant Initiator');
    expect(await page.textContent('#user-password dd')).toContain('Invitation pending');
    await axePage(page, 'user page');
    await shoot(page, 'team-user');

    // Change the role, then close them.
    await page.selectOption('#role-select', 'MERC_APPROVER');
    await submit(page, '#change-role');
    expect(await page.textContent('#notice')).toContain('The role was changed');
    expect(await page.textContent('#user-role dd')).toBe('Merchant Approver');
    await submit(page, '#close-user');
    expect(await page.textContent('#notice')).toBe('The user is closed and has been signed out.');
    expect(await page.textContent('#user-status dd')).toBe('Closed');
    expect(await page.locator('#activate-form').count()).toBe(1);

    // The team page shows them closed.
    await Promise.all([page.waitForURL(`${origin}/console/team`), page.click('nav.breadcrumbs a[href="/console/team"]')]);
    expect(await page.textContent(`#user-${userId}`)).toContain('Closed');
    await axePage(page, 'team page');
    await shoot(page, 'team');

    // The audit log, filtered by that user: the filter swaps the results in (htmx) and keeps the address.
    await Promise.all([page.waitForURL(`${origin}/console/team/audit`), page.click('#audit-link')]);
    await page.selectOption('#audit-user', userId);
    await Promise.all([page.waitForURL(/\/console\/team\/audit\?user=/), page.click('#audit-filter-submit')]);
    await page.waitForSelector('#audit-results tbody tr');
    const actions = await page.locator('#audit-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
    expect(actions).toEqual(['user.close', 'user.change_role', 'user.invite']);
    const whats = (await page.locator('#audit-table .audit-action').allTextContents()).map((s) => s.trim());
    expect(whats).toEqual(['User closed', "User's role changed", 'User invited']);
    expect(await page.locator('#audit-table tbody tr').first().textContent()).toContain(admin.email);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('audit-results-title');
    await axePage(page, 'audit log');
    await shoot(page, 'team-audit');

    // Settlement accounts: two added, one active, the second refused while the first is.
    await Promise.all([page.waitForURL(`${origin}/console/settlement-accounts`), clickSection(page, '/console/settlement-accounts')]);
    await axePage(page, 'settlement accounts (none)');
    for (const [bank, number, name] of [
      ['221500', '1005638723', 'Likuni Builders Ltd'],
      ['212188', '2000000002', 'Likuni Builders Payroll'],
    ]) {
      await page.selectOption('#add-bank', bank);
      await page.fill('#add-number', number);
      await page.fill('#add-name', name);
      await submit(page, '#add-submit');
      expect(await page.textContent('#notice')).toContain('The settlement account was added');
    }
    const ids = await page.locator('#accounts-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-account-id')));
    expect(ids).toHaveLength(2);
    await submit(page, `#activate-${ids[0]} button`);
    expect(await page.textContent('#notice')).toContain('The settlement account is active');
    await submit(page, `#activate-${ids[1]} button`);
    expect(await page.textContent('#error')).toBe(`Settlement account ${ids[0]} (1005638723) is already active; deactivate it first.`);
    expect(await page.getAttribute(`#account-${ids[1]}`, 'data-status')).toBe('I');
    await axePage(page, 'settlement accounts (refusal)');
    await shoot(page, 'settlement');

    // The active one's change form, with a mistake shown beside its field.
    await Promise.all([page.waitForURL(`${origin}/console/settlement-accounts/${ids[0]}/edit`), page.click(`#edit-${ids[0]}`)]);
    expect(await page.inputValue('#edit-number')).toBe('1005638723');
    await page.fill('#edit-number', '1005-638');
    await submit(page, '#edit-submit');
    expect(await page.textContent('#edit-number-error')).toBe('An account number is 10 to 16 digits, nothing else.');
    expect(await page.inputValue('#edit-number')).toBe('1005-638');
    await axePage(page, 'settlement account change form with an error');

    expect(csp).toEqual([]);
    await context.close();
  }, 120_000);
});

// The merchant console in a real browser: Debian's headless Chromium driven by playwright-core,
// against the real app on a real port, under its real CSP. A merchant user is invited through the
// API, sets a password from the e-mailed link, signs in (a wrong password first), sees on the home
// page the balances the API reports, and signs out. Every page is checked with axe-core (no serious
// or critical violation) and photographed at 375 and 1440 px into test-artifacts/ (git-ignored),
// which a person looks at before the work is called done. Skipped with a notice where the browser
// is missing (CI installs it: .ci/run).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, shoot, warnIfSkipped, watchCsp } from '../../browser-kit.ts';
import { formatMajor } from '../../../src/lib/money.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';

warnIfSkipped('the console browser test');
const PASSWORD = 'Nyanja ya Malawi ndi yaikulu 2026';

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chikondi General Store' });
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




describe.skipIf(!BROWSER_PRESENT)('the merchant console in a browser', () => {
  it('invite → set password → sign in (after a wrong password) → home shows the API\'s balances → sign out; every page accessible', async () => {
    await api('POST', '/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: 212188, topupAmount: '98765.43', createdBy: 'ops@shop.mw' });
    const email = `thoko.banda.${Date.now()}@shop.mw`;
    await api('POST', '/security/merchantUsers/add', {
      organisationId: m.organisationId,
      merchantAccountNumber: m.merchantAccountNumber,
      firstName: 'Thoko',
      lastName: 'Banda',
      emailAddress: email,
      phoneNumber: '0991234567',
      roleId: 'MERC_APPROVER',
      capturedBy: 'admin@shop.mw',
    });
    const { rows } = await t.db.query<{ body_text: string }>('select body_text from email_outbox where recipient = $1', [email]);
    const link = /(http:\/\/\S+\/users\/set-password\?token=[A-Za-z0-9_-]{43})/.exec(rows[0].body_text)![1];
    expect(link.startsWith(origin)).toBe(true);

    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const cspMessages: string[] = [];
    watchCsp(page, cspMessages);

    // The invitation link: set the password; the page ends with a link to sign in.
    await page.goto(link);
    await page.fill('#password', PASSWORD);
    await page.fill('#confirmation', PASSWORD);
    await Promise.all([page.waitForURL(/\/users\/set-password$/), page.click('#submit')]);
    await expect.poll(() => page.textContent('h1')).toBe('Your password is set');
    await shoot(page, 'set-password-done');
    await Promise.all([page.waitForURL(/\/console\/sign-in$/), page.click('#next')]);

    // A wrong password first: the same message as for an unknown address.
    await shoot(page, 'sign-in');
    await page.fill('#email', email);
    await page.fill('#password', 'not my password at all');
    await Promise.all([page.waitForLoadState('load'), page.click('#submit')]);
    expect((await page.textContent('#error'))?.trim()).toBe('The e-mail address or the password is wrong.');
    expect(await page.inputValue('#email')).toBe(email);
    await shoot(page, 'sign-in-wrong');

    // Signed in: the home page shows what the API reports.
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/console`), page.click('#submit')]);
    const account = await api('GET', `/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`);
    const shown = async (id: string) => (await page.textContent(`#balance-${id} .balance-amount`))?.replace(/\s+/g, ' ').trim();
    const major = (n: number) => formatMajor(Math.round(n * 100));
    expect(await shown('account')).toBe(`${account.currencyCode} ${major(account.accountBalance)}`);
    expect(await shown('collection')).toBe(`${account.currencyCode} ${major(account.collectionBalance)}`);
    expect(await shown('disbursement')).toBe(`${account.currencyCode} ${major(account.disbursmentBalance)}`);
    expect(account.disbursmentBalance).toBe(98765.43);
    expect(await page.textContent('#merchant-name')).toBe('Chikondi General Store');
    expect(await page.textContent('#signed-in-user')).toBe('Signed in as Thoko Banda (Merchant Approver)');
    expect(await page.isVisible('#sandbox-badge')).toBe(true);
    await shoot(page, 'home');

    // Keyboard: the first Tab reaches the skip link, which is then visible and leads to main.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip');
    expect(await page.isVisible('.skip')).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');

    // Chichewa, from the language switch.
    await Promise.all([page.waitForLoadState('load'), page.click('a[hreflang="ny"]')]);
    expect(await page.getAttribute('html', 'lang')).toBe('ny');
    expect(await page.textContent('#signed-in-user')).toContain('Mwalowa ngati Thoko Banda');
    await shoot(page, 'home-ny');
    await Promise.all([page.waitForLoadState('load'), page.click('a[hreflang="en"]')]);
    // A page that does not exist, in the signed-in frame.
    expect((await page.goto(`${origin}/console/no-such-page`))?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Page not found');
    await shoot(page, 'not-found');
    await page.goto(`${origin}/console`);

    // axe-core on every page, signed in (with this browser's cookies) and not.
    const checking = await browser.newContext({ viewport: PHONE, bypassCSP: true, storageState: await context.storageState() });
    await axe(checking, `${origin}/console`);
    await axe(checking, `${origin}/console`, DESKTOP);
    await axe(checking, `${origin}/console?lang=ny`);
    await axe(checking, `${origin}/console/no-such-page`);
    const stranger = await browser.newContext({ viewport: PHONE, bypassCSP: true });
    for (const url of ['/console/sign-in', '/console/sign-in?expired=1', '/console/forgot-password', '/console/reset-password?m=12345678&token=nope', '/console/sign-in?lang=ny']) await axe(stranger, `${origin}${url}`);
    await axe(stranger, `${origin}/console/sign-in`, DESKTOP);
    await checking.close();
    await stranger.close();

    // Sign out: back at sign-in, and the console is closed to this browser.
    await Promise.all([page.waitForURL(/\/console\/sign-in\?signedOut=1$/), page.click('#sign-out')]);
    expect((await page.textContent('#notice'))?.trim()).toBe('You have signed out.');
    await page.goto(`${origin}/console`);
    expect(page.url()).toContain('/console/sign-in?from=console');

    // The forgot-password page, for the record.
    await page.goto(`${origin}/console/forgot-password`);
    await shoot(page, 'forgot-password');

    expect(cspMessages).toEqual([]);
    await context.close();
  }, 120_000);
});

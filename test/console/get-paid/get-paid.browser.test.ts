// Getting paid and the sandbox tools in a real browser (Debian's headless Chromium through
// playwright-core, the real app on a real port, under its real CSP): a refused form shows its
// messages; a request to pay shows its timed account and a clock that ticks (and the live region
// says nothing until a milestone: the end is announced once, when it comes); a checkout link is
// copied with its button and opens the hosted page; the timed account is paid from the sandbox
// tools and its collection is there. axe-core on every page (no serious or critical violation);
// screenshots at 375 and 1440 px in test-artifacts/ for a person to look at.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ct } from '../../../src/modules/console/get-paid/texts.ts';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, PHONE, shoot, warnIfSkipped, watchCsp } from '../../browser-kit.ts';
import { consoleUser } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';

warnIfSkipped('the console getting-paid browser test');

let t: TestApp;
let browser: Browser;
let m: TestMerchant;
let origin: string;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chisomo Bakery' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Photographs the page and checks that nothing makes a phone's page scroll sideways. */
async function shootFitting(page: Page, name: string): Promise<void> {
  await shoot(page, name);
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${PHONE.width} px`).toBeLessThanOrEqual(PHONE.width);
}

describe.skipIf(!BROWSER_PRESENT)('getting paid and the sandbox tools in a browser', () => {
  it('request to pay with a ticking clock → checkout link copied → timed account paid from the sandbox tools → its collection; every page accessible', async () => {
    const user = await consoleUser(t, m, { role: 'MERC_INITIATOR', firstName: 'Chisomo' });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    const csp: string[] = [];
    watchCsp(page, csp);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    await page.goto(`${origin}/console/get-paid`);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(`${origin}/console/get-paid`), page.click('#submit')]);
    expect(await page.textContent('h1')).toBe('Get paid');
    await axePage(page, 'get paid');
    await shootFitting(page, 'get-paid');

    // A refused form: its messages by the fields, the input kept.
    await page.fill('#rtp-amount', '25.5.0');
    await Promise.all([page.waitForURL(`${origin}/console/get-paid/requests`), page.click('#rtp-submit')]);
    expect(await page.textContent('#rtp-amount-error')).toBe(ct('en', 'form.error.amountFormat'));
    expect(await page.inputValue('#rtp-amount')).toBe('25.5.0');
    expect(await page.getAttribute('#rtp-amount', 'aria-invalid')).toBe('true');
    await axePage(page, 'refused request to pay');
    await shootFitting(page, 'get-paid-refused');

    // A request to pay: its timed account, and a clock that ticks by itself.
    await page.fill('#rtp-amount', '2,500');
    await page.fill('#rtp-description', 'Wedding cake, 3 tiers');
    await Promise.all([page.waitForURL(/\/console\/get-paid\/requests\/\d+\?notice=/), page.click('#rtp-submit')]);
    const requestUrl = page.url();
    const timedAccount = (await page.textContent('#timed-account'))?.trim() ?? '';
    expect(timedAccount).toMatch(/^1\d{7}$/);
    expect(await page.isVisible('#countdown-value')).toBe(true);
    const shown = (await page.textContent('#countdown-value'))?.trim() ?? '';
    expect(shown).toMatch(/^1[45]:\d{2}$/);
    await expect.poll(async () => (await page.textContent('#countdown-value'))?.trim(), { timeout: 5_000 }).not.toBe(shown);
    // No milestone yet: the live region has said nothing.
    expect((await page.textContent('#countdown-live'))?.trim()).toBe('');
    await axePage(page, 'request to pay');
    await shootFitting(page, 'get-paid-request');

    // The end of the time, announced once when it comes (its expiry moved two seconds ahead).
    await t.db.query(`update payment_requests set expires_at = now() + interval '2 seconds' where timed_account_number = $1 and status_code = 'O'`, [timedAccount]);
    const other = await context.newPage();
    await other.goto(requestUrl);
    expect((await other.textContent('#countdown-live'))?.trim()).toBe('');
    await expect.poll(async () => (await other.textContent('#countdown-live'))?.trim(), { timeout: 10_000 }).toBe(ct('en', 'getPaid.sayExpired'));
    expect((await other.textContent('#countdown-value'))?.trim()).toBe(ct('en', 'getPaid.status.expired'));
    await other.close();

    // A checkout link, copied with its button; the link opens the hosted page.
    await page.goto(`${origin}/console/get-paid`);
    await page.fill('#checkout-amount', '1800');
    await page.fill('#checkout-description', 'Birthday cake');
    await page.fill('#checkout-successUrl', 'https://shop.example.mw/thanks');
    await page.fill('#checkout-failureUrl', 'https://shop.example.mw/sorry');
    await Promise.all([page.waitForURL(/\/console\/get-paid\/requests\/\d+\?notice=/), page.click('#checkout-submit')]);
    const link = await page.inputValue('#checkout-url');
    expect(link).toMatch(new RegExp(`^${origin}/checkout/pay\\?ptid=[A-Za-z0-9_-]{32}$`));
    expect(await page.isVisible('#checkout-url-copy')).toBe(true);
    await page.click('#checkout-url-copy');
    await expect.poll(() => page.textContent('#checkout-url-status')).toBe(ct('en', 'getPaid.copied'));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await axePage(page, 'checkout link');
    await shootFitting(page, 'get-paid-checkout');
    const hosted = await context.newPage();
    const opened = await hosted.goto(link);
    expect(opened?.status()).toBe(200);
    expect(await hosted.content()).toContain('Birthday cake');
    await hosted.close();
    // Both are among the open ones (the first one's expiry given back).
    await t.db.query(`update payment_requests set expires_at = created_at + interval '15 minutes' where timed_account_number = $1 and status_code = 'O'`, [timedAccount]);
    await page.goto(`${origin}/console/get-paid`);
    expect(await page.locator('#open-table tbody tr').count()).toBe(2);
    await axePage(page, 'get paid with open ones');
    await shootFitting(page, 'get-paid-open');

    // Back to the first request, paid from the sandbox tools.
    await page.goto(requestUrl);
    await Promise.all([page.waitForURL(`${origin}/console/sandbox?timedAccount=${timedAccount}`), page.click('#pay-in-sandbox')]);
    expect(await page.isChecked(`#pay-ta-${timedAccount}`)).toBe(true);
    await axePage(page, 'sandbox tools');
    await shootFitting(page, 'sandbox-tools');
    await page.selectOption('#pay-connector', '112400');
    await Promise.all([page.waitForURL(/\/console\/sandbox\/payments\/[A-Z0-9]{12}\?notice=/), page.click('#pay-submit')]);
    const reference = (await page.textContent('#result-reference'))?.trim() ?? '';
    expect(reference).toMatch(/^[A-Z0-9]{12}$/);
    expect(await page.textContent('#result-amount')).toContain('2,500.00');
    await axePage(page, 'sandbox payment');
    await shootFitting(page, 'sandbox-paid');
    await Promise.all([page.waitForURL(`${origin}/console/collections/${reference}`), page.click('#see-collection')]);
    expect(await page.textContent('#collection-title')).toBe(`Collection ${reference}`);

    // The request is paid, and no longer open.
    await page.goto(requestUrl);
    expect(await page.textContent('#request-status')).toBe('Paid');
    await page.goto(`${origin}/console/get-paid`);
    expect(await page.locator(`a[href="${new URL(requestUrl).pathname}"]`).count()).toBe(0);

    // A simulated customer payment, from the keyboard's point of view just a form.
    await page.goto(`${origin}/console/sandbox`);
    await page.fill('#simulate-amount', '950');
    await page.selectOption('#simulate-connector', '212188');
    await Promise.all([page.waitForURL(/\/console\/sandbox\/payments\/[A-Z0-9]{12}\?notice=/), page.click('#simulate-submit')]);
    expect(await page.textContent('#result-credited')).toContain('940.50');

    expect(csp).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});

// The console's frame at a desk and on a phone (issue 27), in Debian's Chromium: at 1440 px the
// sections fit on one row (they wrapped, leaving two alone on a second); at 375 px they collapse
// behind a menu button (they took four rows, ~190 px) that says where you are, opens with a click
// or the keyboard (aria-expanded, aria-controls) and closes with Escape; without JavaScript they
// are one row that scrolls sideways, every link reachable. Long e-mail addresses and references
// wrap at their seams and never widen a page (scrollWidth ≤ innerWidth) on the pages that show
// them. Screenshots of home, team, collections and the outbox at both widths (test-artifacts/).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, shoot, signedInPage, warnIfSkipped } from '../../browser-kit.ts';
import { consoleUser, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { customPayment } from '../../money-ops.ts';

warnIfSkipped('the console layout browser test');

/** 114 characters: as long as an address gets (the API takes 120). */
const LONG_EMAIL = `tiyamike.chisomo-banda_procurement.${Date.now().toString(36)}@accounts-payable.very-long-company-domain-name.example.mw`;

let t: TestApp;
let browser: Browser;
let origin: string;
let m: TestMerchant;
let admin: ConsoleUserInfo;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  t = await startTestApp();
  origin = await listen(t);
  browser = await launchBrowser();
  m = await newMerchant(t, { accountName: 'Chikondi Wholesale and Distribution Company Limited' });
  admin = await consoleUser(t, m, { role: 'MERC_ADMIN', firstName: 'Tamanda' });
  // Team members and held e-mails with long addresses; a collection for the collections list.
  await consoleUser(t, m, { role: 'MERC_VIEWER', email: LONG_EMAIL });
  expect((await customPayment(t, m, 250_000)).statusCode).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The sections' links that are shown, and on how many rows (distinct tops). */
async function shownLinks(page: Page): Promise<{ count: number; rows: number; navHeight: number }> {
  return page.evaluate(() => {
    const links = [...document.querySelectorAll<HTMLAnchorElement>('nav.sections ul a')].filter((a) => a.getClientRects().length > 0);
    const nav = document.querySelector('nav.sections')!.getBoundingClientRect();
    return { count: links.length, rows: new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size, navHeight: Math.round(nav.height) };
  });
}

const overflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe.skipIf(!BROWSER_PRESENT)('the console frame', () => {
  it('shows every section on one row at 1440 px, in both languages', async () => {
    const { context, page } = await signedInPage(browser, origin, admin, { viewport: DESKTOP });
    for (const lang of ['en', 'ny']) {
      await page.goto(`${origin}/console/team?lang=${lang}`);
      const shown = await shownLinks(page);
      expect(shown.count, lang).toBe(10);
      expect(shown.rows, lang).toBe(1);
      expect(shown.navHeight, lang).toBeLessThanOrEqual(56);
      expect(await page.isVisible('#menu-button'), lang).toBe(false);
      expect(await page.getAttribute('nav.sections a[aria-current="page"]', 'href')).toBe('/console/team');
    }
    await context.close();
  });

  it('collapses behind a menu button at 375 px that opens by mouse and keyboard and says where you are', async () => {
    const { context, page } = await signedInPage(browser, origin, admin, { viewport: PHONE });
    await page.goto(`${origin}/console/team`);
    const closed = await shownLinks(page);
    expect(closed.count).toBe(0);
    expect(closed.navHeight).toBeLessThanOrEqual(56);
    const button = page.locator('#menu-button');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await page.isVisible(`#${await button.getAttribute('aria-controls')}`)).toBe(false);
    expect(await button.textContent()).toContain('Team');

    await button.click();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect((await shownLinks(page)).count).toBe(10);
    expect(await page.isVisible('nav.sections a[aria-current="page"][href="/console/team"]')).toBe(true);
    await page.keyboard.press('Escape');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('menu-button');

    // The keyboard: Enter opens it, Tab reaches the first link, Enter follows it.
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe('/console');
    await Promise.all([page.waitForURL(`${origin}/console`), page.keyboard.press('Enter')]);
    expect(await page.getAttribute('#menu-button', 'aria-expanded')).toBe('false');
    await context.close();
  });

  it('keeps every section reachable without JavaScript: one row that scrolls sideways', async () => {
    const { context, page } = await signedInPage(browser, origin, admin, { viewport: PHONE, javaScriptEnabled: false });
    await page.goto(`${origin}/console/team`);
    const shown = await shownLinks(page);
    expect(shown.count).toBe(10);
    expect(shown.rows).toBe(1);
    expect(shown.navHeight).toBeLessThanOrEqual(56);
    expect(await overflows(page)).toBeLessThanOrEqual(0);
    await page.locator('nav.sections a[href="/console/sandbox"]').scrollIntoViewIfNeeded();
    await Promise.all([page.waitForURL(`${origin}/console/sandbox`), page.click('nav.sections a[href="/console/sandbox"]')]);
    await context.close();
  });

  it('wraps long addresses and references without widening any page at 375 px', async () => {
    const { context, page } = await signedInPage(browser, origin, admin, { viewport: PHONE });
    const { rows } = await t.db.query<{ user_id: string }>('select user_id from merchant_users where lower(email_address) = lower($1)', [LONG_EMAIL]);
    const { rows: mails } = await t.db.query<{ email_id: string }>('select email_id from email_outbox where lower(recipient) = lower($1)', [LONG_EMAIL]);
    const pages = ['/console', '/console/team', `/console/team/users/${rows[0].user_id}`, '/console/collections', '/console/sandbox/outbox', `/console/sandbox/outbox/${mails[0].email_id}`, '/console/team/audit'];
    for (const path of pages) {
      await page.goto(`${origin}${path}`);
      expect(await overflows(page), path).toBeLessThanOrEqual(0);
    }
    // The address breaks at its seams: a <wbr> after its @ and dots.
    await page.goto(`${origin}/console/team`);
    expect(await page.locator('#team-table wbr').count()).toBeGreaterThan(3);
    for (const [name, path] of [
      ['firsthour-home', '/console'],
      ['firsthour-team', '/console/team'],
      ['firsthour-collections', '/console/collections'],
      ['firsthour-outbox', '/console/sandbox/outbox'],
      ['firsthour-outbox-email', `/console/sandbox/outbox/${mails[0].email_id}`],
    ] as const) {
      await page.goto(`${origin}${path}`);
      await shoot(page, name);
    }
    await page.goto(`${origin}/console/team`);
    await page.click('#menu-button');
    await page.screenshot({ path: 'test-artifacts/console-firsthour-menu-open-375.png', fullPage: false });
    await context.close();
  });
});

// Two-factor sign-in in a real browser: an approver signs in with the password, opens Security from
// the header, sets up an authenticator (a QR code drawn at a size a camera reads, and the key to
// type), proves it with a code, sees the recovery codes, signs out, and
// signs in again with the password and then a code; then once more with a recovery code. axe-core
// on each page; screenshots at 375 and 1440 px.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep, TOTP_STEP_SECONDS } from '../../../src/lib/totp.ts';
import { axePage, BROWSER_PRESENT, launchBrowser, listen, shoot, warnIfSkipped, watchCsp } from '../../browser-kit.ts';
import { consoleUser } from '../client.ts';
import { newMerchant, startTestApp, type TestApp } from '../../helpers.ts';

warnIfSkipped('the console two-factor browser test');

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

const codeNow = (secret: string) => hotp(base32Decode(secret)!, totpStep(t.clock.now().getTime()));

describe.skipIf(!BROWSER_PRESENT)('two-factor sign-in in a browser', () => {
  it('enrols from the security page, then signs in with a code and with a recovery code', async () => {
    const m = await newMerchant(t, { accountName: 'Mphatso Hardware' });
    const user = await consoleUser(t, m, { role: 'MERC_APPROVER', firstName: 'Mphatso' });
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    const csp: string[] = [];
    watchCsp(page, csp);

    const signInWithPassword = async () => {
      await page.goto(`${origin}/console/sign-in`);
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await Promise.all([page.waitForLoadState('load'), page.click('#submit')]);
    };

    await signInWithPassword();
    await page.waitForURL(`${origin}/console`);
    await Promise.all([page.waitForURL(`${origin}/console/security`), page.click('#security-link')]);
    expect(await page.textContent('#two-factor-status')).toMatch(/^Off/);
    await axePage(page, 'security (off)');
    await shoot(page, 'security-off');

    await Promise.all([page.waitForLoadState('load'), page.click('#begin')]);
    const secret = (await page.textContent('#secret code'))!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // The QR code is drawn (a square image of a size a phone camera reads) and labelled for screen readers.
    const box = (await page.locator('svg.qr').boundingBox())!;
    expect(Math.round(box.width)).toBe(Math.round(box.height));
    expect(box.width).toBeGreaterThanOrEqual(150);
    expect(await page.getAttribute('svg.qr', 'aria-label')).toBe('QR code for your authenticator app');
    await axePage(page, 'enrol');
    await shoot(page, 'security-enrol');

    // A wrong code first: the same key is shown again.
    await page.fill('#confirm-code', codeNow(secret) === '000000' ? '111111' : '000000');
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm')]);
    expect((await page.textContent('#error'))?.trim()).toMatch(/^That code is not right/);
    expect((await page.textContent('#secret code'))!.replace(/\s/g, '')).toBe(secret);

    await page.fill('#confirm-code', codeNow(secret));
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm')]);
    const recovery = (await page.locator('#recovery-codes code').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await axePage(page, 'recovery codes');
    await shoot(page, 'security-recovery-codes');
    await Promise.all([page.waitForURL(`${origin}/console`), page.click('#continue')]);

    await Promise.all([page.waitForURL(/\/console\/sign-in\?signedOut=1$/), page.click('#sign-out')]);

    // The password alone is not enough any more.
    t.clock.advance(TOTP_STEP_SECONDS * 1000);
    await signInWithPassword();
    expect(page.url()).toBe(`${origin}/console/sign-in`);
    expect(await page.textContent('h1')).toBe('Enter your code');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('code');
    await axePage(page, 'code step');
    await shoot(page, 'sign-in-code');
    await page.fill('#code', codeNow(secret));
    await Promise.all([page.waitForURL(`${origin}/console`), page.click('#submit-code')]);
    expect(await page.textContent('#signed-in-user')).toContain('Mphatso');

    // Lost phone: a recovery code, once.
    await Promise.all([page.waitForURL(/signedOut=1$/), page.click('#sign-out')]);
    await signInWithPassword();
    await page.fill('#code', recovery[3]);
    await Promise.all([page.waitForURL(`${origin}/console`), page.click('#submit-code')]);
    await page.goto(`${origin}/console/security`);
    expect(await page.textContent('#two-factor-status')).toMatch(/Recovery codes left: 9\./);

    expect(csp).toEqual([]);
    await context.close();
  });
});

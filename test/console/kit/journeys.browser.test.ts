// Journeys through the merchant console (issue 18) in a real browser: Debian's headless Chromium
// driven by playwright-core, against the real app on a real port under its real CSP. Users are
// invited through the API and set their password from the e-mailed link (test/console/client.ts), then:
//   - type a wrong password until the account backs off and then locks (the app's test clock waits
//     out each back-off), and find even the right password refused, with the e-mail and audit row;
//   - sit idle past CONSOLE_IDLE_MINUTES (the test clock again), click a link, are sent to sign in
//     with the "session ended" notice and come back to that page after signing in;
//   - submit the sign-out form with its CSRF field removed or altered in the DOM: 403, the session
//     untouched;
//   - go sign-in → collections → a collection → statements → sign-out with the keyboard alone,
//     the focus visible at every stop and a skip link first on every signed-in page;
//   - see the sections roles.ts grants their role, and the 403 page for the others.
// Every page state reached is checked with axe-core (no serious or critical violation); the locked
// and the session-ended sign-in pages are photographed at 375 and 1440 px into test-artifacts/
// (git-ignored) for a person to look at. Skipped with a notice where the browser is missing.
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axePage, BROWSER_PRESENT, DESKTOP, launchBrowser, listen, PHONE, shoot, signIn, warnIfSkipped, watchCsp, clickSection } from '../../browser-kit.ts';
import { SECTION_PATHS } from '../../../src/modules/console/kit/paths.ts';
import { sectionsFor } from '../../../src/modules/console/kit/roles.ts';
import { BACKOFF_AFTER_FAILURES, backoffSeconds, LOCK_AFTER_FAILURES, LOCK_MINUTES } from '../../../src/modules/console/kit/throttle.ts';
import { consoleUser } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { collectionReference, customPayment } from '../../money-ops.ts';

warnIfSkipped('the console journeys browser test');
const MINUTE = 60_000;

const WRONG = 'The e-mail address or the password is wrong.';
const BACKOFF = /^Too many failed attempts\. Try again in (\d+) seconds\.$/;
// No SMTP_URL in tests: the lock's e-mail is held, and the message does not claim it was sent (kit/mail.ts).
const LOCKED = `Too many failed attempts: signing in to this account is paused for ${LOCK_MINUTES} minutes. If the address belongs to a user, an e-mail about it was written for them, but it was not sent: no mail server is configured.`;
const EXPIRED = 'Your session has ended. Please sign in again.';
const CSRF_TITLE = 'This form could not be accepted';
const FORBIDDEN_TITLE = 'Not open to your role';

/** The app on a real port, and a merchant of it. */
interface Console {
  t: TestApp;
  origin: string;
  m: TestMerchant;
}

async function startConsole(accountName: string): Promise<Console> {
  const t = await startTestApp();
  const origin = await listen(t);
  return { t, origin, m: await newMerchant(t, { accountName }) };
}

let browser: Browser;

beforeAll(async () => {
  if (!BROWSER_PRESENT) return;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** A page under the real CSP, collecting what the browser logs about it and any script error (none is expected). */
async function newPage(viewport = PHONE): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  watchCsp(page, problems);
  return { context, page, problems };
}



/**
 * Runs `action` (a click or key press that submits a form or follows a link) and waits for the
 * new document to load; returns the answer to the request to `pathname` (a POST's own status,
 * not that of a page it redirects to).
 */
async function navigate(page: Page, pathname: string, method: 'GET' | 'POST', action: () => Promise<void>): Promise<Response> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === pathname && r.request().isNavigationRequest()),
    page.waitForEvent('load'),
    action(),
  ]);
  return response;
}

const text = async (page: Page, selector: string) => (await page.textContent(selector))?.replace(/\s+/g, ' ').trim();

/** The links of the page to addresses starting with one of `prefixes`, but for the language switch's. */
const linksTo = (page: Page, prefixes: string[]) =>
  page.$$eval('a', (links, p) => links.filter((a) => !a.closest('nav.languages') && p.some((prefix) => (a.getAttribute('href') ?? '').startsWith(prefix))).map((a) => a.outerHTML), prefixes);

/** The addresses of the navigation's links, in order. */
const navLinks = (page: Page) => page.$$eval('nav.sections a', (links) => links.map((a) => a.getAttribute('href') ?? ''));

async function sessionsOf(t: TestApp, userId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from console_sessions where user_id = $1', [userId]);
  return rows[0].n;
}

async function auditActions(t: TestApp, userId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ action: string }>('select action from console_audit_log where user_id = $1 order by at, audit_id', [userId]);
  return rows.map((r) => r.action);
}

/** The element that has the focus, and whether a sighted keyboard user can see where it is. */
interface Focus {
  tag: string;
  id: string;
  className: string;
  href: string;
  text: string;
  /** :focus-visible, drawn (an outline of some width, or a box-shadow), and on screen. */
  visible: boolean;
  /**
   * The focus is on a part inside a form control's user-agent shadow tree: the calendar button of
   * a date input is a Tab stop of its own in Chromium, where the input matches :focus-within but
   * no longer :focus or :focus-visible. The console's stylesheet draws the ring on :focus-within
   * for inputs, so the field keeps the page's own ring there.
   */
  insideControl: boolean;
  outline: string;
  boxShadow: string;
}

function focusOf(page: Page): Promise<Focus | undefined> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body || el === document.documentElement) return undefined;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    const drawn = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
    const onScreen = rect.width > 0 && rect.height > 0 && rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth;
    const withParts = el instanceof HTMLInputElement && ['date', 'time', 'datetime-local', 'month', 'week'].includes(el.type);
    const insideControl = withParts && el.matches(':focus-within') && !el.matches(':focus');
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      className: typeof el.className === 'string' ? el.className : '',
      href: el.getAttribute('href') ?? '',
      text: (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60),
      visible: (el.matches(':focus-visible') || insideControl) && drawn && onScreen,
      insideControl,
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      boxShadow: style.boxShadow,
    };
  });
}

const describeFocus = (f: Focus | undefined) => (f ? `${f.tag}${f.id ? `#${f.id}` : ''}${f.className ? `.${f.className.split(' ').join('.')}` : ''}${f.href ? `[href=${f.href}]` : ''} "${f.text}" (outline ${f.outline}, box-shadow ${f.boxShadow})` : 'nothing');

/** Asserts that something has the focus and that it is visibly marked; returns it. */
async function visibleFocus(page: Page, where: string): Promise<Focus> {
  // A page's autofocus lands after its load event, in a later frame: on a loaded machine the check
  // could come first (seen once in a full run: "signed out, autofocus: nothing has the focus").
  await page.waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body, null, { timeout: 5_000 }).catch(() => undefined);
  const focus = await focusOf(page);
  expect(focus, `${where}: nothing has the focus`).toBeDefined();
  expect(focus!.visible, `${where}: focus not visible on ${describeFocus(focus)}`).toBe(true);
  return focus!;
}

/**
 * Presses Tab (or Shift+Tab) until the focus is on what `wanted` accepts, asserting at every stop
 * that the focus is visible; fails after `max` presses with the stops it passed.
 */
async function tabTo(page: Page, what: string, wanted: (f: Focus) => boolean, { back = false, max = 60 } = {}): Promise<Focus> {
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const where = `${page.url()}, tabbing to ${what} (stops so far: ${stops.join(' → ')})`;
    const focus = await visibleFocus(page, where);
    stops.push(`${describeFocus(focus)}${focus.insideControl ? ' [a part inside the field]' : ''}`);
    if (!focus.insideControl && wanted(focus)) return focus;
  }
  throw new Error(`${what} not reached in ${max} presses of ${back ? 'Shift+Tab' : 'Tab'}: ${stops.join(' → ')}`);
}

const isSkipLink = (f: Focus) => f.tag === 'a' && f.className === 'skip' && f.href === '#main';

/** On a page just loaded: the first Tab reaches the skip link, shown on screen. */
async function firstTabIsSkipLink(page: Page): Promise<void> {
  const first = await tabTo(page, 'the skip link', () => true, { max: 1 });
  expect(isSkipLink(first), `first Tab stop on ${page.url()}: ${describeFocus(first)}`).toBe(true);
  expect(first.text).toBe('Skip to the main content');
}

describe.skipIf(!BROWSER_PRESENT)('console journeys in a browser', () => {
  describe('an account under attack', () => {
    // Its own app and database: the failures back off the browser's address (127.0.0.1) too, and
    // the clock is moved by a quarter of an hour; neither may reach the other journeys.
    let c: Console;
    beforeAll(async () => {
      c = await startConsole('Likuni Hardware');
    }, 60_000);
    afterAll(async () => {
      await c?.t.close();
    });

    it('wrong passwords typed in the form back off after 5 and lock after 10: then even the right one is refused, the user is e-mailed and it is audited', async () => {
      const { t, origin, m } = c;
      const user = await consoleUser(t, m, { role: 'MERC_APPROVER', firstName: 'Kondwani' });
      const { context, page, problems } = await newPage();
      await page.goto(`${origin}/console/sign-in`);

      const attempt = async (password: string) => {
        await page.fill('#email', user.email);
        await page.fill('#password', password);
        const res = await navigate(page, '/console/sign-in', 'POST', () => page.click('#submit'));
        // Whatever happened, the address typed is shown back and nobody is signed in.
        expect(await page.inputValue('#email')).toBe(user.email);
        expect(page.url()).toBe(`${origin}/console/sign-in`);
        return { status: res.status(), retryAfter: (await res.allHeaders())['retry-after'], error: await text(page, '#error') };
      };

      for (let failure = 1; failure < BACKOFF_AFTER_FAILURES; failure++) {
        expect(await attempt(`wrong password number ${failure}`), `failure ${failure}`).toEqual({ status: 401, retryAfter: undefined, error: WRONG });
      }
      await axePage(page, 'sign-in, wrong password');

      // The 5th failure starts the back-off; the form says so.
      const fifth = await attempt(`wrong password number ${BACKOFF_AFTER_FAILURES}`);
      expect(fifth).toEqual({ status: 401, retryAfter: String(backoffSeconds(BACKOFF_AFTER_FAILURES)), error: `${WRONG} Too many failed attempts. Try again in ${backoffSeconds(BACKOFF_AFTER_FAILURES)} seconds.` });
      await axePage(page, 'sign-in, back-off started');

      // During the back-off even the right password is not checked: "try again in N seconds".
      const during = await attempt(user.password);
      expect(during.status).toBe(429);
      const seconds = Number(BACKOFF.exec(during.error ?? '')?.[1]);
      expect(seconds, during.error).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(backoffSeconds(BACKOFF_AFTER_FAILURES));
      expect(during.retryAfter).toBe(String(seconds));
      expect(await sessionsOf(t, user.userId)).toBe(0);
      await axePage(page, 'sign-in, backing off');

      // Each back-off waited out on the app's clock (failures count until 15 quiet minutes, and
      // every wait is shorter), so the failures add up to the lock.
      for (let failure = BACKOFF_AFTER_FAILURES + 1; failure <= LOCK_AFTER_FAILURES; failure++) {
        t.clock.advance(backoffSeconds(failure - 1) * 1000 + 1000);
        const res = await attempt(`wrong password number ${failure}`);
        if (failure < LOCK_AFTER_FAILURES) {
          expect(res, `failure ${failure}`).toEqual({ status: 401, retryAfter: String(backoffSeconds(failure)), error: `${WRONG} Too many failed attempts. Try again in ${backoffSeconds(failure)} seconds.` });
        } else {
          expect(res, `failure ${failure}`).toEqual({ status: 429, retryAfter: String(LOCK_MINUTES * 60), error: LOCKED });
        }
      }
      await axePage(page, 'sign-in, locked');

      // Locked: the right password is refused with the same message, and signs nobody in.
      const right = await attempt(user.password);
      expect(right.status).toBe(429);
      expect(right.error).toBe(LOCKED);
      expect(Number(right.retryAfter)).toBeGreaterThan((LOCK_MINUTES - 1) * 60);
      expect(Number(right.retryAfter)).toBeLessThanOrEqual(LOCK_MINUTES * 60);
      expect(await sessionsOf(t, user.userId)).toBe(0);
      expect(await page.locator('#error[role="alert"]').count()).toBe(1);
      await axePage(page, 'sign-in, locked, right password');
      await shoot(page, 'journeys-locked');

      // One e-mail to the user, in the outbox, whatever was tried after the lock.
      const { rows: mails } = await t.db.query<{ subject: string; body_text: string }>(
        `select subject, body_text from email_outbox where lower(recipient) = lower($1) and subject like 'Signing in to%' order by email_id`,
        [user.email],
      );
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe('Signing in to Likuni Hardware is paused · Kulowa ku Likuni Hardware kwaimitsidwa kaye');
      expect(mails[0].body_text).toContain('Hello Kondwani,');
      expect(mails[0].body_text).toContain(`${LOCK_AFTER_FAILURES} times`);
      expect(mails[0].body_text).toContain(`${origin}/console/forgot-password`);

      // The audit log: every failure, the back-offs, and one account_locked row for the 10th.
      const actions = await auditActions(t, user.userId);
      expect(actions.filter((a) => a === 'sign_in_failed')).toHaveLength(LOCK_AFTER_FAILURES);
      expect(actions.filter((a) => a === 'sign_in_backoff')).toHaveLength(LOCK_AFTER_FAILURES - BACKOFF_AFTER_FAILURES);
      expect(actions).not.toContain('sign_in');
      const { rows: locked } = await t.db.query<{ detail: { failures: number; until: string }; email_tried: string }>(
        `select detail, email_tried from console_audit_log where user_id = $1 and action = 'account_locked'`,
        [user.userId],
      );
      expect(locked).toHaveLength(1);
      expect(locked[0].detail.failures).toBe(LOCK_AFTER_FAILURES);
      expect(locked[0].email_tried).toBe(user.email);

      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  });

  describe('a signed-in user', () => {
    let c: Console;
    /** A collection of the merchant's, for the keyboard journey to open. */
    let reference: string;
    beforeAll(async () => {
      c = await startConsole('Chikondi General Store');
      const paid = await customPayment(c.t, c.m, 4_321_00);
      expect(paid.statusCode, paid.body).toBe(200);
      reference = collectionReference(paid);
    }, 60_000);
    afterAll(async () => {
      await c?.t.close();
    });

    it('idle past CONSOLE_IDLE_MINUTES: a click leads to sign-in with the notice and a way back, and signing in returns to that page', async () => {
      const { t, origin, m } = c;
      const user = await consoleUser(t, m, { firstName: 'Tiyamike' });
      const { context, page, problems } = await newPage();
      await signIn(page, origin, user);
      await Promise.all([page.waitForURL(`${origin}/console/collections`), clickSection(page, '/console/collections')]);
      expect(await sessionsOf(t, user.userId)).toBe(1);

      // Idle for one minute longer than the console allows, on the app's clock.
      t.clock.advance((t.deps.config.consoleIdleMinutes + 1) * MINUTE);
      const res = await navigate(page, '/console/sign-in', 'GET', () => clickSection(page, '/console/payouts'));
      expect(res.status()).toBe(200);
      expect(page.url()).toBe(`${origin}/console/sign-in?expired=1&next=%2Fconsole%2Fpayouts`);
      expect(await text(page, '#notice')).toBe(EXPIRED);
      expect(await page.getAttribute('#notice', 'role')).toBe('status');
      expect(await page.inputValue('#sign-in input[name="next"]')).toBe('/console/payouts');
      // The session is gone on both sides: its row, and the browser's cookie.
      expect(await sessionsOf(t, user.userId)).toBe(0);
      expect((await context.cookies()).map((k) => k.name)).not.toContain('console_session');
      await axePage(page, 'sign-in, session ended');
      await shoot(page, 'journeys-expired');

      // Signing in again goes back to the page the click asked for.
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await Promise.all([page.waitForURL(`${origin}/console/payouts`), page.click('#submit')]);
      expect(await text(page, 'h1')).toBe('Payouts');
      expect(await page.getAttribute('nav.sections a[aria-current="page"]', 'href')).toBe('/console/payouts');
      expect(await sessionsOf(t, user.userId)).toBe(1);
      await axePage(page, 'payouts after signing in again');

      expect(problems).toEqual([]);
      await context.close();
    }, 60_000);

    it('a sign-out form whose CSRF field was removed or altered in the page is refused with 403, and the session goes on', async () => {
      const { t, origin, m } = c;
      const user = await consoleUser(t, m, { firstName: 'Mphatso' });
      const { context, page, problems } = await newPage();
      await signIn(page, origin, user);
      const field = 'form[action="/console/sign-out"] input[name="_csrf"]';
      const token = await page.inputValue(field);
      expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);

      const tampered: Array<[string, (page: Page) => Promise<void>]> = [
        ['removed', (p) => p.evaluate((selector) => document.querySelector(selector)!.remove(), field)],
        // The same length and alphabet, one character different: only the value is wrong.
        [
          'altered',
          (p) =>
            p.evaluate(
              ([selector, value]) => {
                (document.querySelector(selector) as HTMLInputElement).value = value;
              },
              [field, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')] as const,
            ),
        ],
      ];
      for (const [how, tamper] of tampered) {
        await tamper(page);
        const res = await navigate(page, '/console/sign-out', 'POST', () => page.click('#sign-out'));
        expect(res.status(), how).toBe(403);
        expect(await text(page, '#message-title'), how).toBe(CSRF_TITLE);
        expect(await text(page, '#message-text'), how).toContain('Nothing was changed.');
        // Still signed in: the refusal is shown in the signed-in frame.
        expect(await text(page, '#signed-in-user'), how).toBe('Signed in as Mphatso Phiri (Merchant Administrator)');
        await axePage(page, `CSRF refusal (${how})`);
        expect(await sessionsOf(t, user.userId), how).toBe(1);
        expect(await auditActions(t, user.userId), how).toEqual(['sign_in']);
        // The error page's link leads back into the console, which still opens.
        const home = await navigate(page, '/console', 'GET', () => page.click('#message-title ~ p a'));
        expect(home.status(), how).toBe(200);
        expect(page.url()).toBe(`${origin}/console`);
      }

      // The form as served signs out: the refusals were about the token, nothing else.
      await Promise.all([page.waitForURL(`${origin}/console/sign-in?signedOut=1`), page.click('#sign-out')]);
      expect(await text(page, '#notice')).toBe('You have signed out.');
      expect(await sessionsOf(t, user.userId)).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    }, 60_000);

    it('keyboard only: sign in → collections → a collection → statements → sign out, the focus visible at every stop', async () => {
      const { t, origin, m } = c;
      const user = await consoleUser(t, m, { firstName: 'Chimwemwe' });
      const { context, page, problems } = await newPage(DESKTOP);
      // The only address typed; from here on, keys only.
      await page.goto(`${origin}/console/sign-in`);

      // The form puts the focus in the e-mail field (autofocus), visibly.
      await page.waitForFunction(() => document.activeElement?.id === 'email');
      await visibleFocus(page, 'sign-in, autofocus');
      await axePage(page, 'sign-in');
      // The skip link is the page's first stop: the autofocus starts past it, so it is reached
      // backwards, and it leads to the main content, whose first field is the e-mail again.
      await tabTo(page, 'the skip link', isSkipLink, { back: true, max: 2 });
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      await tabTo(page, 'the e-mail field', (f) => f.id === 'email', { max: 1 });
      await page.keyboard.type(user.email);
      await tabTo(page, 'the password field', (f) => f.id === 'password', { max: 1 });
      await page.keyboard.type(user.password);
      await Promise.all([page.waitForURL(`${origin}/console`), page.keyboard.press('Enter')]);

      // Home → Collections through the navigation.
      await firstTabIsSkipLink(page);
      await axePage(page, 'home');
      await tabTo(page, 'Collections in the navigation', (f) => f.href === '/console/collections' && f.text === 'Collections');
      await Promise.all([page.waitForURL(`${origin}/console/collections`), page.keyboard.press('Enter')]);
      expect(await text(page, 'h1')).toBe('Collections');

      // Collections → the collection, from its row.
      await firstTabIsSkipLink(page);
      await axePage(page, 'collections');
      await tabTo(page, `the collection ${reference}`, (f) => f.text === reference && f.href === `/console/collections/${reference}`);
      await Promise.all([page.waitForURL(`${origin}/console/collections/${reference}`), page.keyboard.press('Enter')]);
      expect(await text(page, '#collection-title')).toBe(`Collection ${reference}`);

      // The collection → Statements through the navigation.
      await firstTabIsSkipLink(page);
      await axePage(page, 'a collection');
      await tabTo(page, 'Statements in the navigation', (f) => f.href === '/console/statements' && f.text === 'Statements');
      await Promise.all([page.waitForURL(`${origin}/console/statements`), page.keyboard.press('Enter')]);
      expect(await text(page, 'h1')).toBe('Statements');

      // Statements → sign out, the button in the header.
      await firstTabIsSkipLink(page);
      await axePage(page, 'statements');
      await tabTo(page, 'the sign-out button', (f) => f.id === 'sign-out');
      await Promise.all([page.waitForURL(`${origin}/console/sign-in?signedOut=1`), page.keyboard.press('Enter')]);
      expect(await text(page, '#notice')).toBe('You have signed out.');
      await visibleFocus(page, 'signed out, autofocus');
      await axePage(page, 'signed out');
      expect(await sessionsOf(t, user.userId)).toBe(0);
      expect(await auditActions(t, user.userId)).toEqual(['sign_in', 'sign_out']);

      expect(problems).toEqual([]);
      await context.close();
    }, 90_000);

    it('roles: a viewer sees and opens every section roles.ts grants; an initiator gets no statements link and the 403 page at its address', async () => {
      const { t, origin, m } = c;

      // A viewer: the sections of roles.ts, each opening for them.
      const viewer = await consoleUser(t, m, { role: 'MERC_VIEWER', firstName: 'Madalitso' });
      const asViewer = await newPage();
      await signIn(asViewer.page, origin, viewer);
      const viewerSections = sectionsFor('MERC_VIEWER', true).map((s) => SECTION_PATHS[s]);
      // What roles.ts says today, written out: a change to the table shows here as well.
      expect(viewerSections).toEqual(['/console', '/console/collections', '/console/payouts', '/console/statements', '/console/analytics']);
      expect(await navLinks(asViewer.page)).toEqual(viewerSections);
      expect(await text(asViewer.page, '#signed-in-user')).toBe('Signed in as Madalitso Phiri (Merchant Viewer)');
      for (const href of viewerSections) {
        const res = await navigate(asViewer.page, href, 'GET', () => clickSection(asViewer.page, href));
        expect(res.status(), href).toBe(200);
        expect(await asViewer.page.getAttribute('nav.sections a[aria-current="page"]', 'href'), href).toBe(href);
        expect(await asViewer.page.locator('#message-title').count(), href).toBe(0);
        await axePage(asViewer.page, `viewer at ${href}`);
      }
      // The API keys page typed into the address bar (developers: administrators only): the 403 page, and no Developers link.
      const keys = await asViewer.page.goto(`${origin}/console/developers/api-keys`);
      expect(keys?.status()).toBe(403);
      expect(await text(asViewer.page, '#message-title')).toBe(FORBIDDEN_TITLE);
      expect(await text(asViewer.page, '#message-text')).toBe('Your role (Merchant Viewer) does not include this page.');
      expect(await linksTo(asViewer.page, ['/console/developers'])).toEqual([]);
      await axePage(asViewer.page, 'viewer at /console/developers/api-keys');
      expect(asViewer.problems).toEqual([]);
      await asViewer.context.close();

      // An initiator: no statements or analytics in the navigation, and the 403 page at their addresses.
      const initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR', firstName: 'Yamikani' });
      const asInitiator = await newPage();
      await signIn(asInitiator.page, origin, initiator);
      expect(await navLinks(asInitiator.page)).toEqual(sectionsFor('MERC_INITIATOR', true).map((s) => SECTION_PATHS[s]));
      expect(await navLinks(asInitiator.page)).toEqual(['/console', '/console/collections', '/console/payouts', '/console/get-paid', '/console/sandbox']);
      for (const address of ['/console/statements', '/console/analytics', '/console/statements.csv']) {
        // Typed into the address bar.
        const res = await asInitiator.page.goto(`${origin}${address}`);
        expect(res?.status(), address).toBe(403);
        expect(await text(asInitiator.page, '#message-title'), address).toBe(FORBIDDEN_TITLE);
        expect(await text(asInitiator.page, '#message-text'), address).toBe('Your role (Merchant Initiator) does not include this page.');
        // No link to either (the language switch links to this same page in the other language).
        expect(await linksTo(asInitiator.page, ['/console/statements', '/console/analytics']), address).toEqual([]);
        await axePage(asInitiator.page, `initiator at ${address}`);
      }
      // Still signed in, and the sections they have open.
      const payouts = await asInitiator.page.goto(`${origin}/console/payouts`);
      expect(payouts?.status()).toBe(200);
      expect(asInitiator.problems).toEqual([]);
      await asInitiator.context.close();
    }, 90_000);
  });
});

// What the console's browser tests share: Debian's Chromium through playwright-core (skipped with a
// notice where it is missing; CI installs it), axe-core injected into a page (no serious or critical
// violation), screenshots at 375 and 1440 px into test-artifacts/ (git-ignored) for a person to look
// at, a watch on messages about the Content-Security-Policy, and a user signed in through the form.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT, type TestApp } from './helpers.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** Whether the browser tests run here: CI always runs them (a missing browser then fails them). */
export const BROWSER_PRESENT = fs.existsSync(CHROMIUM) || process.env.CI === 'true';
/** As the machine's probe starts it: without the background-networking flags the closed network refuses its calls. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');
export const PHONE = { width: 375, height: 740 };
export const DESKTOP = { width: 1440, height: 900 };
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function warnIfSkipped(what: string): void {
  if (!BROWSER_PRESENT) console.warn(`skipping ${what}: ${CHROMIUM} is missing (apt-get install chromium)`);
}

export async function launchBrowser(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Starts `t` on a real port of loopback; answers its origin. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
}

/** Collects what the browser logs about the Content-Security-Policy, and script errors (none is expected). */
export function watchCsp(page: Page, into: string[]): void {
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) into.push(msg.text());
  });
  page.on('pageerror', (err) => into.push(`page error: ${err.message}`));
}

/** Signs `user` in through the console's sign-in form (by mouse) and waits for the console's home. */
export async function signIn(page: Page, origin: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${origin}/console/sign-in`);
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await Promise.all([page.waitForURL(`${origin}/console`), page.click('#submit')]);
}

/**
 * A browser of its own for `user` (a context at a phone's width unless `options` says otherwise)
 * with a page signed in through the form; `csp`, when given, collects what the page logs about the
 * Content-Security-Policy and its script errors (watchCsp) from its first request on.
 */
export async function signedInPage(
  browser: Browser,
  origin: string,
  user: { email: string; password: string },
  { csp, ...options }: BrowserContextOptions & { csp?: string[] } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, ...options });
  const page = await context.newPage();
  if (csp) watchCsp(page, csp);
  await signIn(page, origin, user);
  return { context, page };
}

/** axe-core on `url`, opened in a new page of `context` (answering `status`, when given). */
export async function axe(context: BrowserContext, url: string, viewport = PHONE, status?: number): Promise<void> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const res = await page.goto(url);
  if (status === undefined) expect(res?.status(), url).toBeLessThan(500);
  else expect(res?.status(), url).toBe(status);
  await axePage(page, `${url} at ${viewport.width} px`);
  await page.close();
}

/**
 * axe-core on the page as it is now (also one reached by a POST, which `axe` cannot open by
 * address). Evaluated through the DevTools protocol, which the page's CSP does not govern, so the
 * page keeps its real policy.
 */
export async function axePage(page: Page, label: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run;
    return run(document, { resultTypes: ['violations'] });
  });
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), label).toEqual([]);
}

/** test-artifacts/console-<name>-375.png and -1440.png, full page; the page is left at the size it had. */
export async function shoot(page: Page, name: string): Promise<void> {
  const before = page.viewportSize() ?? PHONE;
  for (const [label, viewport] of [
    ['375', PHONE],
    ['1440', DESKTOP],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(before);
}

/**
 * Follows the navigation's link to `href` as a person does: on a phone the sections are behind the
 * menu button (kit/layout.tsx), opened first; at a desk the link is on the row.
 */
export async function clickSection(page: Page, href: string): Promise<void> {
  // After a viewport change (shoot) the page measures its menu again on 'resize', which the browser
  // fires before the next frame: wait for it, so the link is not clicked while the row collapses.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
  if (await page.isVisible('#menu-button')) {
    if ((await page.getAttribute('#menu-button', 'aria-expanded')) !== 'true') await page.click('#menu-button');
  }
  await page.click(`nav.sections a[href="${href}"]`);
}

// Full-page screenshots of every console page at 375 and 1440 px, to compare the console before and
// after a change, by eye or byte for byte:
//   node --import tsx bench/console-screenshots.ts <outDir>           writes <slug>-<width>.png
//   node --import tsx bench/console-screenshots.ts --compare <a> <b>  prints {identical, differ, missing}
// The real app runs in this process on a fresh database (DATABASE_URL's server, else an embedded one
// under .test-data/), seeded with one small fixed data set through the public API; Debian's Chromium
// signs in through the form and opens each page by its address. Nothing of the console module is
// imported (addresses and what pages show only), so the script runs unchanged on a restructured one.
// Same data → same pixels: account numbers, references, customers and secrets are random and rows
// carry the real time, so before each shot every random value the seeding learnt from the API's
// answers becomes a stand-in of the same length, and every date and time one fixed instant. Dates are
// replaced rather than the clock fixed: TestClock only offsets the real time, and PostgreSQL's now()
// stamps most rows whatever the app's clock says. A countdown that ticks, and QR codes, are masked.
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { JobHelpers } from 'graphile-worker';
import type { BrowserContext } from 'playwright-core';
import { pino } from 'pino';
import { buildApp } from '../src/app.ts';
import { taskList } from '../src/composition.ts';
import { loadConfig } from '../src/config.ts';
import { removeDataDir, startEmbeddedPostgres, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool, withTransaction } from '../src/db/pool.ts';
import type { Deps } from '../src/http/types.ts';
import { migrateQueue } from '../src/jobs/queue.ts';
import { addUserWithPassword } from '../src/modules/users/service.ts';
import { WebhookDispatcher } from '../src/modules/webhooks/dispatcher.ts';
import { DESKTOP, launchBrowser, listen, PHONE } from '../test/browser-kit.ts';
import { ADMIN_TOKEN, BASE, newMerchant, ROOT, TestClock, type TestApp } from '../test/helpers.ts';

const WIDTHS = [PHONE, DESKTOP];
const PASSWORD = 'Nkhalango ya Dzalanyama 2026';
const ADMIN = 'tamanda.admin@chikondi.mw';
/** Level 2: a batch and a single payout need a second person's approval. */
const APPROVER = 'kondwani.approver@chikondi.mw';
const NBM = 212188;
const AIRTEL = 112400;
/** What dates and times become, in each format the pages use. */
const FIXED = { iso: '2026-01-15T09:30:00.000Z', second: '2026-01-15 09:30:00', minute: '2026-01-15 09:30', day: '2026-01-15', chartDay: '01-15', unix: '1768469400', ms: '10 ms' };

const log = (message: string) => process.stderr.write(`${message}\n`);

/** --compare: bytes, since the same data gives the same PNG bytes. */
function compare(a: string, b: string): void {
  const [left, right] = [a, b].map((dir) => new Set(fs.readdirSync(dir).filter((f) => f.endsWith('.png'))));
  const result = { identical: [] as string[], differ: [] as string[], missing: [] as string[] };
  for (const name of [...new Set([...left, ...right])].sort()) {
    if (!left.has(name) || !right.has(name)) result.missing.push(name);
    else if (fs.readFileSync(path.join(a, name)).equals(fs.readFileSync(path.join(b, name)))) result.identical.push(name);
    else result.differ.push(name);
  }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

/** The app on a fresh database, shaped as test/helpers.ts's TestApp (startTestApp itself needs vitest's inject). */
async function startApp(): Promise<{ t: TestApp; stop: () => Promise<void> }> {
  let embedded: EmbeddedServer | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    fs.mkdirSync(path.join(ROOT, '.test-data'), { recursive: true });
    dataDir = fs.mkdtempSync(path.join(ROOT, '.test-data', 'console-shots-'));
    embedded = await startEmbeddedPostgres(dataDir);
    adminUrl = embedded.connectionString;
  }
  const name = `onekhusa_shots_${Date.now()}`;
  const admin = createPool(adminUrl, 1);
  await admin.query(`create database ${name}`);
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` });
  const db = createPool(url.toString(), 10);
  await migrate(db);
  await migrateQueue(db);
  const config = loadConfig({ DATABASE_URL: url.toString(), ADMIN_TOKEN, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'console-shots-jwt-secret-0123456789abcdef', PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  const clock = new TestClock();
  const deps: Deps = { db, config, clock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };
  const built = await buildApp(deps);
  await built.app.ready();
  const stop = async () => {
    await built.app.close();
    await db.end();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
    await embedded?.stop();
    if (dataDir) removeDataDir(dataDir);
  };
  return { t: { built, app: built.app, db, deps, clock, close: stop }, stop };
}

/** Random values seen, each with its stand-in: digits for digits, X for the rest, the same length. */
class Volatile {
  readonly pairs: Array<[string, string]> = [];
  /** Counts every call, so that a value seen twice (two customers of one name) shifts no later stand-in. */
  private calls = 0;
  learn(value: unknown, standIn?: string): void {
    const text = String(value ?? '');
    const n = String(this.calls++ % 100).padStart(2, '0');
    if (text.length < 4 || this.pairs.some(([v]) => v === text)) return;
    const shape = /^\d+$/.test(text) ? text.replace(/\d/g, n[1]) : text.replace(/[0-9A-Za-z]/g, /[a-z]/.test(text) ? 'x' : 'X');
    this.pairs.push([text, standIn ?? shape.slice(0, -2) + n]);
    // Longest first: a merchant's number inside its payment account's is replaced with the latter.
    this.pairs.sort((a, b) => b[0].length - a[0].length);
  }
}

/**
 * One level-2 merchant with an administrator and an approver; a top-up; three customer payments (the
 * last reversed) and an open request to pay; a paid batch of four lines (one failing) and a second
 * batch awaiting approval; a paid single payout; a webhook with its deliveries; a settlement account;
 * an invited user. Answers the addresses of the pages about them.
 */
async function seed(t: TestApp, origin: string, v: Volatile): Promise<Record<string, string>> {
  const m = await newMerchant(t, { accountName: 'Chikondi General Store', levelNumber: 2 }); // its first API key is the keys page's
  [m.merchantAccountNumber, m.paymentAccountNumber, m.organisationId, m.apiKey].forEach((x) => v.learn(x));
  const merchant = { merchantAccountNumber: m.merchantAccountNumber };
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: object) => {
    const res = await fetch(`${origin}${BASE}${url}`, { method, headers: { ...m.auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return { json: (text ? JSON.parse(text) : undefined) as any, headers: res.headers };
  };
  const tasks = taskList(t.deps);
  const user = (firstName: string, lastName: string, emailAddress: string, roleId: string) =>
    withTransaction(t.db, (tx) => addUserWithPassword(tx, { organisationId: m.organisationId, ...merchant, firstName, lastName, emailAddress, phoneNumber: '265991234567', roleId, capturedBy: 'operator' }, PASSWORD));
  await user('Tamanda', 'Banda', ADMIN, 'MERC_ADMIN');
  await user('Kondwani', 'Mbewe', APPROVER, 'MERC_APPROVER');

  // A webhook on payment.success to a receiver on loopback that answers 200.
  const receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hooks/onekhusa`;
  v.learn(hookUrl, 'http://127.0.0.1:40000/hooks/onekhusa');
  await api('POST', '/merchants/webhooks/add', { ...merchant, eventCode: 'payment.success', callbackUrl: hookUrl, capturedBy: ADMIN });

  // Money in. The service picks each customer at random from a list of names: all become one.
  v.learn((await api('POST', '/merchants/accounts/topup', { ...merchant, connectorId: NBM, topupAmount: '900000.00', createdBy: ADMIN })).json.transactionReferenceNumber);
  const collections: string[] = [];
  for (const amount of ['25000.00', '12500.50', '1234.00']) {
    const { source, transaction } = (await api('POST', '/collections/addFakeCustomPayment', { beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: NBM, transactionAmount: amount, createdBy: ADMIN })).json;
    collections.push(transaction.transactionReferenceNumber);
    [transaction.transactionReferenceNumber, transaction.bridgeReferenceNumber, source.accountNumber, source.sourceReferenceNumber].forEach((x) => v.learn(x));
    v.learn(source.customerName, 'Customer Name');
  }
  await api('POST', '/collections/reverse', { ...merchant, transactionReferenceNumber: collections[2], reason: 'Customer refund' });
  v.learn((await api('POST', '/collections/requestToPay/initiate', { ...merchant, transactionAmount: '2500.00', transactionDescription: 'Wedding cake, 3 tiers', referenceNumber: 'CAKE0001', capturedBy: ADMIN })).json.timedAccountNumber);

  // Money out: a batch approved, funded and paid (the 9901 account fails), another left awaiting approval.
  const line = (name: string, account: string, amount: string, i: number) => ({ beneficiaryName: name, connectorId: AIRTEL, beneficiaryAccountNumber: account, transactionDescription: 'Salary, January', transactionAmount: amount, sourceReferenceNumber: `PAYROLL-JAN-${i}` });
  const addBatch = async (lines: object[]) => {
    const { batchNumber } = (await api('POST', '/disbursements/batch/addJson', { header: { ...merchant, isBatchScheduled: false, capturedBy: ADMIN }, transactions: lines })).json;
    await tasks.validate_batch!({ batchNumber }, {} as JobHelpers);
    return batchNumber as number;
  };
  const paid = await addBatch([line('Alinafe Tembo', '265991230001', '2500.00', 1), line('Dalitso Mbewe', '265991230002', '3100.00', 2), line('Pemphero Zimba', '265991239901', '1800.00', 3), line('Takondwa Lungu', '265991230004', '4250.75', 4)]);
  await api('PUT', '/disbursements/batch/approve', { ...merchant, batchNumber: paid, actionedBy: APPROVER });
  await api('POST', '/disbursements/batch/transferFunds', { ...merchant, batchNumber: paid, transferredBy: ADMIN });
  const waiting = await addBatch([line('Mercy Chisale', '265991230005', '990.00', 5)]);
  const single = (await api('POST', '/disbursements/single/add', { ...merchant, ...line('Tadala Kumwenda', '265991230006', '700.00', 6), capturedBy: ADMIN })).json.transactionReferenceNumber as string;
  await api('PUT', '/disbursements/single/approve', { ...merchant, transactionReferenceNumber: single, actionedBy: APPROVER });
  for (let pass = 0; pass < 5; pass++) await tasks.process_payouts!(merchant, {} as JobHelpers);
  v.learn(single);
  for (const batchNumber of [paid, waiting]) {
    for (const p of (await api('POST', '/disbursements/batch/getTransactions', { ...merchant, batchNumber, pageNumber: 1, numberOfReturnedRows: 50 })).json.message) v.learn(p.transactionReferenceNumber);
  }

  const account = await api('POST', '/merchants/bankAccounts/add', { ...merchant, accountNumber: '1005638723', connectorId: NBM, accountName: 'Chikondi General Store Ltd', capturedBy: ADMIN });
  const invited = await api('POST', '/security/merchantUsers/add', { organisationId: m.organisationId, ...merchant, firstName: 'Chisomo', lastName: 'Phiri', emailAddress: 'chisomo.viewer@chikondi.mw', phoneNumber: '0991234567', roleId: 'MERC_VIEWER', capturedBy: ADMIN });

  // The three payments' deliveries, sent now and waited for. The dispatcher is stopped whatever
  // happens: one left running holds a pool connection, and closing the pool then never returns.
  const dispatcher = new WebhookDispatcher(t.deps);
  await dispatcher.start();
  let deliveries: Array<{ deliveryId: number; status: string; webhookMessageId: string }> = [];
  try {
    for (const deadline = Date.now() + 15_000; !(deliveries.length === 3 && deliveries.every((d) => d.status === 'succeeded')); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > deadline) throw new Error(`webhook deliveries not all answered in 15 s: ${JSON.stringify(deliveries)}`);
      deliveries = (await api('POST', '/merchants/webhooks/deliveries', merchant)).json;
    }
  } finally {
    await dispatcher.stop();
    receiver.close();
  }
  deliveries.sort((a, b) => a.deliveryId - b.deliveryId).forEach((d) => v.learn(d.webhookMessageId));
  const [webhook] = (await api('GET', `/merchants/webhooks/getAll?merchantAccountNumber=${m.merchantAccountNumber}`)).json;
  [webhook.webhookSignature, webhook.signingSecret].forEach((x) => v.learn(x));

  return {
    collection: `/console/collections/${collections[0]}`, sandboxPayment: `/console/sandbox/payments/${collections[1]}`,
    batch: `/console/payouts/batches/${paid}`, liveBatch: `/console/payouts/batches/${waiting}`, single: `/console/payouts/single/${single}`,
    webhook: `/console/developers/webhooks/${webhook.webhookId}`, delivery: `/console/developers/webhooks/deliveries/${deliveries[0].deliveryId}`,
    settlementEdit: `/console/settlement-accounts/${account.headers.get('x-account-id')}/edit`, teamUser: `/console/team/users/${invited.headers.get('x-user-id')}`,
  };
}

/** In the page: the volatile values, dates and times replaced in every text node and form field. */
function normalise({ pairs, fixed }: { pairs: Array<[string, string]>; fixed: typeof FIXED }): void {
  const rules: Array<[RegExp, string]> = [
    [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, fixed.iso],
    [/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/g, fixed.second],
    [/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g, fixed.minute],
    [/\d{4}-\d{2}-\d{2}/g, fixed.day],
    [/^\d{2}-\d{2}$/, fixed.chartDay], // a chart's axis label (MM-DD), alone in its node
    [/\b1[789]\d{8}\b/g, fixed.unix], // webhook-timestamp, in seconds
    [/\b\d+ ms\b/g, fixed.ms], // a delivery's latency
    [/about \d+ minutes? left/g, 'about 14 minutes left'], // an open request's time to pay
    [/\bINV[0-9A-Z]{9}\b/g, 'INV000000000'], // the get-paid forms' suggested references, new on each load
    [/\bORDER-[0-9A-Z]{8}\b/g, 'ORDER-00000000'],
  ];
  const fix = (text: string) => {
    let out = text;
    for (const [value, standIn] of pairs) out = out.split(value).join(standIn);
    for (const [re, to] of rules) out = out.replace(re, to);
    return out;
  };
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue ?? '';
    if (fix(text) !== text) node.nodeValue = fix(text);
  }
  for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')) {
    if (fix(field.value) !== field.value) field.value = fix(field.value);
  }
}

/** Opens `url` afresh at each width, normalises it and saves <slug>-<width>.png; answers the HTTP status. */
async function shoot(context: BrowserContext, origin: string, outDir: string, slug: string, url: string, pairs: Array<[string, string]>, waitFor?: string): Promise<number> {
  const page = await context.newPage();
  let status = 0;
  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    status = (await page.goto(`${origin}${url}`, { waitUntil: 'load' }))?.status() ?? 0;
    // A page that never gets there is still shot, with a warning: a missing marker should not stop the run.
    if (waitFor) await page.waitForSelector(waitFor, { timeout: 15_000 }).catch(() => log(`${slug}: ${waitFor} not reached in 15 s`));
    await page.evaluate(() => document.fonts.ready);
    await page.evaluate(normalise, { pairs, fixed: FIXED });
    const mask = [page.locator('#countdown-value'), page.locator('img[src^="data:"], svg.qr, .qr')];
    await page.screenshot({ path: path.join(outDir, `${slug}-${viewport.width}.png`), fullPage: true, animations: 'disabled', caret: 'hide', mask });
  }
  await page.close();
  return status;
}

async function main(outDir: string): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const { t, stop } = await startApp();
  const browser = await launchBrowser();
  try {
    const origin = await listen(t);
    log('seeding');
    const v = new Volatile();
    const urls = await seed(t, origin, v);
    const newContext = async () => {
      const context = await browser.newContext({ deviceScaleFactor: 1, locale: 'en-GB', timezoneId: 'UTC', reducedMotion: 'reduce' });
      // tsx compiles `normalise` with esbuild's keepNames, whose __name helper the page lacks.
      await context.addInitScript('window.__name = (f) => f;');
      return context;
    };
    const captured: Array<{ slug: string; url: string; status: number }> = [];
    const visit = async (context: BrowserContext, slug: string, url: string | null | undefined, waitFor?: string) => {
      if (!url) return log(`${slug}: no address found, skipped`);
      log(`${slug}: ${url}`);
      captured.push({ slug, url, status: await shoot(context, origin, outDir, slug, url, v.pairs, waitFor) });
    };

    // Signed out. The reset link is the one the forgot-password form e-mails.
    const visitor = await newContext();
    await visit(visitor, 'sign-in', '/console/sign-in');
    await visit(visitor, 'forgot-password', '/console/forgot-password');
    const forgot = await visitor.newPage();
    await forgot.goto(`${origin}/console/forgot-password`);
    await forgot.fill('input[type="email"]', ADMIN, { timeout: 5_000 }).catch(() => log('forgot-password: no e-mail field'));
    await Promise.all([forgot.waitForEvent('load'), forgot.click('button[type="submit"]')]).catch(() => log('forgot-password: not sent'));
    const outbox = await fetch(`${origin}/admin/v1/emails?recipient=${encodeURIComponent(ADMIN)}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const emails = (await outbox.json()) as Array<{ bodyText: string }>;
    const resetLink = /\/console\/reset-password\?[^\s"<>]+/.exec(emails[0]?.bodyText ?? '')?.[0];
    v.learn(new URL(resetLink ?? '/', origin).searchParams.get('token'));
    await visit(visitor, 'reset-password', resetLink);
    await visit(visitor, 'reset-password-invalid', '/console/reset-password');
    await visitor.close();

    // Signed in as the administrator, through the form; the open request's address from its list.
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/console/sign-in`);
    await page.fill('#email', ADMIN);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/console`), page.click('#submit')]);
    await page.goto(`${origin}/console/get-paid`);
    const requestUrl = await page.getAttribute('a[href^="/console/get-paid/requests/"]', 'href', { timeout: 5_000 }).catch(() => null);
    await page.close();
    const today = new Date().toISOString().slice(0, 10);
    // Every GET page of the console (downloads, assets, the live batch's event stream and htmx fragments left out).
    const pages: Array<[string, string | null, string?]> = [
      ['home', '/console'], ['collections', '/console/collections'], ['collection', urls.collection],
      ['payouts', '/console/payouts'], ['payouts-batch', urls.batch], ['payouts-batch-live', urls.liveBatch, '[data-live-state="open"]'],
      ['payouts-single', '/console/payouts/single'], ['payouts-single-payout', urls.single], ['payouts-single-new', '/console/payouts/single/new'],
      ['payouts-upload', '/console/payouts/upload'], ['statements', '/console/statements'], ['statements-day', `/console/statements?from=${today}&to=${today}`],
      ['analytics', '/console/analytics'], ['get-paid', '/console/get-paid'], ['get-paid-request', requestUrl],
      ['developers', '/console/developers'], ['developers-api-keys', '/console/developers/api-keys'], ['developers-webhooks', '/console/developers/webhooks'],
      ['developers-webhook', urls.webhook], ['developers-deliveries', '/console/developers/webhooks/deliveries'], ['developers-delivery', urls.delivery],
      ['team', '/console/team'], ['team-invite', '/console/team/invite'], ['team-user', urls.teamUser], ['team-audit', '/console/team/audit'],
      ['security', '/console/security'], ['settlement-accounts', '/console/settlement-accounts'], ['settlement-account-edit', urls.settlementEdit],
      ['sandbox', '/console/sandbox'], ['sandbox-payment', urls.sandboxPayment], ['not-found', '/console/collections/NO-SUCH-COLLECTION'],
    ];
    for (const [slug, url, waitFor] of pages) await visit(context, slug, url, waitFor);
    await context.close();
    process.stdout.write(JSON.stringify({ outDir, count: captured.length, files: captured.length * WIDTHS.length, pages: captured }, null, 2) + '\n');
  } finally {
    await browser.close();
    await stop();
  }
}

const args = process.argv.slice(2);
if (args[0] === '--compare' && args.length === 3) compare(args[1], args[2]);
else if (args.length === 1 && !args[0].startsWith('--')) {
  // Exits by itself: the pools and the embedded server's watchdog timer would keep the process alive.
  main(path.resolve(args[0])).then(() => process.exit(0), (err: unknown) => (log(`failed: ${(err as Error).stack ?? String(err)}`), process.exit(1)));
} else {
  log('usage: node --import tsx bench/console-screenshots.ts <outDir> | --compare <dirA> <dirB>');
  process.exit(2);
}

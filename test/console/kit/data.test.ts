// The console's data functions (src/modules/console/<area>/queries.ts) against the API's own answers, on data
// made through the API and the real jobs (test/money-ops.ts): balances, collections, payouts,
// statements (on screen and as CSV) and analytics, for two merchants that must never see each
// other's rows; keyset pages without gaps or repeats; filters; refused cursors and values (a 400
// AppError, never a 500); and what waits for each role of a level-3 merchant (four eyes included).
import { parse } from 'csv-parse/sync';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/http/errors.ts';
import { analyticsOverview } from '../../../src/modules/console/analytics/queries.ts';
import { collectionDetail, listCollections, listCollectionsQuery, type CollectionItem } from '../../../src/modules/console/collections/queries.ts';
import { attention, homeSummary } from '../../../src/modules/console/home/queries.ts';
import type { Page } from '../../../src/http/keyset-pages.ts';
import { batchDetail, batchLines, batchesPage, listSinglePayouts } from '../../../src/modules/console/payouts/queries.ts';
import { STATEMENT_COLUMNS, statementLines, statementSummary, streamStatementCsv, type StatementLine } from '../../../src/modules/ledger/statements.ts';

const CSV_COLUMNS = STATEMENT_COLUMNS.map((c) => c.key);
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../../helpers.ts';
import {
  act,
  addMerchantUser,
  AIRTEL,
  apiBalances,
  APPROVER,
  CAPTURER,
  collectionReference,
  customPayment,
  payoutLine,
  payTimed,
  readyBatch,
  requestToPay,
  REVIEWER,
  runPayouts,
  singlePayout,
  topup,
  validateBatch,
  walletLine,
} from '../../money-ops.ts';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
/** Level 3, with a user of every role. */
let c: TestMerchant;
let today: string;
const users: Record<'admin' | 'initiator' | 'reviewer' | 'approver' | 'viewer', { userId: string; roleId: number; emailAddress: string }> = {} as never;
const ADMIN = 'admin@shop.mw';
const VIEWER = 'viewer@shop.mw';
/** A reversal reason a spreadsheet would run as a formula. */
const FORMULA = '=HYPERLINK("http://evil.example","click")';

const batchesOfA: number[] = [];
let batchOfB: number;
/** Level-3 batches of C, by what they wait for. */
const cBatches = {} as Record<'pendingByCapturer' | 'pendingByAdmin' | 'approved' | 'reviewedByReviewer' | 'reviewedByAdmin', number>;
let singleOfC: string;
let reversedReference: string;

function send(who: TestMerchant, method: 'POST' | 'PUT', path: string, payload: object, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

async function ok<T>(who: TestMerchant, path: string, payload: object): Promise<T> {
  const res = await send(who, 'POST', path, payload);
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}

async function addBatch(who: TestMerchant, lines: Record<string, unknown>[], capturedBy = CAPTURER): Promise<number> {
  const res = await send(who, 'POST', '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy }, transactions: lines });
  if (res.statusCode !== 200) throw new Error(`addJson: ${res.statusCode} ${res.body}`);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  return batchNumber;
}

function expectOk(res: { statusCode: number; body: string }, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
}

/** Every page of a keyset list, following `next`; fails on a repeated row. */
async function allPages<T>(read: (after: string | undefined) => Promise<Page<T> | undefined>, key: (item: T) => string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  const seen = new Set<string>();
  let after: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await read(after);
    if (!page) throw new Error('no page');
    pages++;
    for (const item of page.items) {
      expect(seen.has(key(item)), `repeated ${key(item)}`).toBe(false);
      seen.add(key(item));
      items.push(item);
    }
    if (page.next === null) return { items, pages };
    expect(page.items.length).toBeGreaterThan(0);
    after = page.next;
    if (pages > 1000) throw new Error('too many pages');
  }
}

async function refusedAsValidation(promise: Promise<unknown> | (() => unknown)) {
  const run = typeof promise === 'function' ? Promise.resolve().then(promise) : promise;
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).kind).toBe('validation');
  expect((err as AppError).status).toBe(400);
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Clients of the pool in use (checked out): 0 once every export has given its connection back. */
const busyClients = () => t.db.totalCount - t.db.idleCount;

beforeAll(async () => {
  // Payout time-outs and reversals come due at once: runPayouts takes every payout to its end.
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  a = await newMerchant(t, { accountName: 'Alpha Shop' });
  b = await newMerchant(t, { accountName: 'Beta Shop' });
  c = await newMerchant(t, { accountName: 'Gamma Shop', levelNumber: 3 });
  today = (await t.db.query<{ d: string }>(`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD') as d`)).rows[0].d;

  // Alpha: a top-up, four E11 payments (one reversed, with a formula for a reason), two paid
  // requests to pay, a batch through transfer (successes, a failure, a reversal, an invalid line),
  // another left pending its transfer, and two single payouts (one fails).
  expectOk(await topup(t, a, 10_000_000));
  const e11 = [];
  for (const amount of [15_000, 250_000, 1_234_567, 50_000]) {
    const res = await customPayment(t, a, amount);
    expectOk(res);
    e11.push(collectionReference(res));
  }
  reversedReference = e11[1];
  expectOk(await send(a, 'POST', '/collections/reverse', { merchantAccountNumber: a.merchantAccountNumber, transactionReferenceNumber: reversedReference, reason: FORMULA }));
  for (const amount of [30_000, 77_700]) {
    const timed = await requestToPay(t, a, amount);
    expectOk(await payTimed(t, a, timed, amount));
  }
  const lines = [
    payoutLine({ amountMinor: 20_000, channel: 'wallet', suffix: '0001' }),
    payoutLine({ amountMinor: 30_000, channel: 'wallet', suffix: '0002' }),
    payoutLine({ amountMinor: 40_000, channel: 'bank', suffix: '0003' }),
    { ...payoutLine({ amountMinor: 50_000, channel: 'wallet', suffix: '9901' }), beneficiaryName: 'Mphatso <b>Failing</b>' },
    payoutLine({ amountMinor: 60_000, channel: 'bank', suffix: '9905' }),
    { ...payoutLine({ amountMinor: 70_000, channel: 'wallet', suffix: '0004' }), connectorId: 999_999 },
  ];
  const transferred = await readyBatch(t, a, lines);
  expectOk(await act(t, a, 'transferFunds', transferred.batchNumber));
  await runPayouts(t, a);
  batchesOfA.push(transferred.batchNumber);
  batchesOfA.push(await addBatch(a, [walletLine(500), walletLine(600)]));
  expectOk(await singlePayout(t, a, payoutLine({ amountMinor: 25_000, channel: 'wallet', suffix: '0005' })));
  expectOk(await singlePayout(t, a, payoutLine({ amountMinor: 35_000, channel: 'bank', suffix: '9901' })));
  await runPayouts(t, a);

  // Beta: its own money and a batch, which Alpha must never see.
  expectOk(await topup(t, b, 5_000_000));
  for (const amount of [11_100, 22_200]) expectOk(await customPayment(t, b, amount));
  batchOfB = await addBatch(b, [walletLine(700)]);

  // Gamma, level 3: a user of each role; batches waiting for review, approval and transfer.
  users.initiator = { userId: await addMerchantUser(t, c, CAPTURER, 2), roleId: 2, emailAddress: CAPTURER };
  users.reviewer = { userId: await addMerchantUser(t, c, REVIEWER, 3), roleId: 3, emailAddress: REVIEWER };
  users.approver = { userId: await addMerchantUser(t, c, APPROVER, 4), roleId: 4, emailAddress: APPROVER };
  users.admin = { userId: await addMerchantUser(t, c, ADMIN, 1), roleId: 1, emailAddress: ADMIN };
  users.viewer = { userId: await addMerchantUser(t, c, VIEWER, 5), roleId: 5, emailAddress: VIEWER };
  expectOk(await topup(t, c, 1_000_000));
  cBatches.pendingByCapturer = await addBatch(c, [walletLine(1000)]);
  cBatches.pendingByAdmin = await addBatch(c, [walletLine(1100)], ADMIN);
  cBatches.approved = (await readyBatch(t, c, [walletLine(1200)])).batchNumber;
  cBatches.reviewedByReviewer = await addBatch(c, [walletLine(1300)]);
  expectOk(await act(t, c, 'review', cBatches.reviewedByReviewer, REVIEWER));
  cBatches.reviewedByAdmin = await addBatch(c, [walletLine(1400)]);
  expectOk(await act(t, c, 'review', cBatches.reviewedByAdmin, ADMIN));
  const single = await singlePayout(t, c, payoutLine({ amountMinor: 45_000, channel: 'wallet', suffix: '0006' }));
  expectOk(single);
  singleOfC = single.json().transactionReferenceNumber;
  // A failed webhook delivery: a subscription's pending delivery ends failed when it is deleted.
  expectOk(await send(c, 'POST', '/merchants/webhooks/add', { merchantAccountNumber: c.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: 'http://127.0.0.1:9/hooks', capturedBy: ADMIN }), 201);
  expectOk(await customPayment(t, c, 12_300));
  expectOk(await send(c, 'POST', '/merchants/webhooks/delete', { merchantAccountNumber: c.merchantAccountNumber, eventCode: 'payment.success', deletedBy: ADMIN }, { merchantaccountnumber: String(c.merchantAccountNumber) }));
}, 120_000);

afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------

describe('homeSummary', () => {
  it('shows the balances GET /merchants/accounts/get answers, for each merchant', async () => {
    for (const who of [a, b, c]) {
      const home = (await homeSummary(t.db, who.merchantAccountNumber, new Date()))!;
      const api = await apiBalances(t, who);
      expect(home.balances).toEqual({ currencyCode: 'MWK', accountMinor: api.collectionMinor + api.disbursementMinor, collectionMinor: api.collectionMinor, disbursementMinor: api.disbursementMinor });
    }
  });

  it("counts today's collections and payouts as the transactions themselves, with a success rate", async () => {
    const home = (await homeSummary(t.db, a.merchantAccountNumber, new Date()))!;
    expect(home.toDate).toBe(today);
    expect(home.collections.days).toHaveLength(30);
    expect(home.collections.days[29].day).toBe(today);
    const listed = await ok<Array<{ transactionStatusCode: string; transactionAmount: number }>>(a, '/collections/getTransactions', { merchantAccountNumber: a.merchantAccountNumber, numberOfReturnedRows: 1000 });
    const successful = listed.filter((x) => x.transactionStatusCode === 'S');
    expect(home.collections.today).toMatchObject({
      successfulCount: successful.length,
      reversedCount: 1,
      failedCount: 0,
      finalCount: listed.length,
      successfulMinor: successful.reduce((s, x) => s + Math.round(x.transactionAmount * 100), 0),
      reversedMinor: 250_000,
      successRatePercent: Math.round((successful.length * 10_000) / listed.length) / 100,
    });
    expect(home.collections.total).toMatchObject({ successfulCount: successful.length, reversedCount: 1 });
    // Payouts: the batch's and the single payouts' final lines.
    const { rows } = await t.db.query<{ status_code: string; n: number; minor: number }>(
      `select status_code, count(*)::int as n, sum(amount_minor)::bigint as minor from payouts
        where merchant_account_number = $1 and status_code in ('S', 'F', 'R') group by status_code`,
      [a.merchantAccountNumber],
    );
    const by = (s: string) => rows.find((r) => r.status_code === s) ?? { n: 0, minor: 0 };
    expect(home.payouts.today).toMatchObject({
      successfulCount: by('S').n,
      failedCount: by('F').n,
      reversedCount: by('R').n,
      successfulMinor: by('S').minor,
      failedMinor: by('F').minor,
      reversedMinor: by('R').minor,
    });
    expect(by('F').n).toBe(2);
    expect(by('R').n).toBe(1);
    expect(home.payouts.today.successRatePercent).toBe(Math.round((by('S').n * 10_000) / (by('S').n + by('F').n + by('R').n)) / 100);
    // The same as the API's own daily series (GetDisbursementMetrics).
    const metrics = await ok<{ dailyTrend: Array<{ date: string; numberOfTransactions: number; numberOfSuccessfulTransactions: number }> }>(a, '/core/MerchantAnalytics/GetDisbursementMetrics', {
      merchantAccountNumber: a.merchantAccountNumber,
    });
    const todays = metrics.dailyTrend.find((d) => d.date === today)!;
    expect(todays.numberOfTransactions).toBe(home.payouts.today.finalCount);
    expect(todays.numberOfSuccessfulTransactions).toBe(home.payouts.today.successfulCount);
  });

  it('has no rate for a day without final transactions, and nothing for an unknown merchant', async () => {
    const home = (await homeSummary(t.db, a.merchantAccountNumber, new Date()))!;
    expect(home.collections.days[0]).toMatchObject({ finalCount: 0, successRatePercent: null });
    expect(await homeSummary(t.db, 10_000_001, new Date())).toBeUndefined();
  });
});

describe('attention', () => {
  const waiting = async (who: keyof typeof users, merchant = c) => {
    const found = await attention(t.db, merchant.merchantAccountNumber, users[who]);
    return {
      batches: found.batches.items.map((x) => `${x.batchNumber}:${x.action}`).sort(),
      singles: found.singlePayouts.items.map((x) => `${x.transactionReferenceNumber}:${x.action}`),
      failed: found.failedDeliveries,
      counts: [found.batches.count, found.singlePayouts.count],
    };
  };

  it('lists, per role, the batches and single payouts it may move on, never one its user captured or reviewed', async () => {
    const reviewer = await waiting('reviewer');
    expect(reviewer.batches).toEqual([`${cBatches.pendingByCapturer}:review`, `${cBatches.pendingByAdmin}:review`].sort());
    expect(reviewer.singles).toEqual([`${singleOfC}:review`]);
    const approver = await waiting('approver');
    expect(approver.batches).toEqual([`${cBatches.approved}:transferFunds`, `${cBatches.reviewedByReviewer}:approve`, `${cBatches.reviewedByAdmin}:approve`].sort());
    expect(approver.singles).toEqual([]);
    // The administrator may do all of it, but not review the batch they captured nor approve the one they reviewed.
    const admin = await waiting('admin');
    expect(admin.batches).toEqual([`${cBatches.pendingByCapturer}:review`, `${cBatches.approved}:transferFunds`, `${cBatches.reviewedByReviewer}:approve`].sort());
    expect(admin.singles).toEqual([`${singleOfC}:review`]);
    expect(admin.counts).toEqual([3, 1]);
    for (const role of ['initiator', 'viewer'] as const) {
      const none = await waiting(role);
      expect(none.batches).toEqual([]);
      expect(none.singles).toEqual([]);
    }
  });

  it('describes each waiting batch as E4 does', async () => {
    const found = await attention(t.db, c.merchantAccountNumber, users.reviewer);
    const item = found.batches.items.find((x) => x.batchNumber === cBatches.pendingByCapturer)!;
    const api = await ok<{ batchStatusDescription: string; totalAmount: number; numberOfValidEntries: number }>(c, '/disbursements/batch/getBatch', { merchantAccountNumber: c.merchantAccountNumber, batchNumber: cBatches.pendingByCapturer });
    expect(item).toMatchObject({ statusCode: 'P', levelNumber: 3, capturedBy: CAPTURER, statusDescription: api.batchStatusDescription, numberOfValidEntries: api.numberOfValidEntries, totalAmountMinor: Math.round(api.totalAmount * 100) });
  });

  it('counts failed webhook deliveries and lists the last ones', async () => {
    const { failed } = await waiting('viewer');
    expect(failed.count).toBe(1);
    expect(failed.items).toHaveLength(1);
    expect(failed.items[0]).toMatchObject({ eventCode: 'payment.success', callbackUrl: 'http://127.0.0.1:9/hooks', totalAttempts: 0, lastHttpStatus: null });
    expect((await attention(t.db, a.merchantAccountNumber, users.viewer)).failedDeliveries.count).toBe(0);
  });

  it("waits for nothing from another merchant's user, and refuses an id that is no user id", async () => {
    const other = await attention(t.db, a.merchantAccountNumber, users.admin);
    expect(other.batches.items).toEqual([]);
    expect(other.singlePayouts.items).toEqual([]);
    await refusedAsValidation(attention(t.db, c.merchantAccountNumber, { ...users.admin, userId: "1' or '1'='1" }));
  });
});

describe('listCollections', () => {
  interface ApiCollection {
    transactionReferenceNumber: string;
    transactionAmount: number;
    transactionFee: number;
    sourceCustomerName: string;
    sourceReferenceNumber: string;
    transactionStatusCode: string;
    connectorId: number;
    connectorName: string;
    metaData?: { referenceNumber: string };
  }
  const apiList = (who: TestMerchant) => ok<ApiCollection[]>(who, '/collections/getTransactions', { merchantAccountNumber: who.merchantAccountNumber, numberOfReturnedRows: 1000 });
  const every = (who: TestMerchant, filter: Parameters<typeof listCollections>[2] = {}, limit = 2) =>
    allPages((after) => listCollections(t.db, who.merchantAccountNumber, { ...filter, after, limit }), (x: CollectionItem) => x.transactionReferenceNumber);

  it('pages through exactly the collections the API lists, newest first, without gaps or repeats', async () => {
    for (const who of [a, b]) {
      const api = await apiList(who);
      const { items, pages } = await every(who);
      expect(pages).toBe(Math.ceil(api.length / 2));
      expect(items.map((x) => x.transactionReferenceNumber)).toEqual(api.map((x) => x.transactionReferenceNumber));
      for (const [i, x] of items.entries()) {
        const y = api[i];
        expect(x).toMatchObject({
          amountMinor: Math.round(y.transactionAmount * 100),
          feeMinor: Math.round(y.transactionFee * 100),
          netMinor: Math.round(y.transactionAmount * 100) - Math.round(y.transactionFee * 100),
          customerName: y.sourceCustomerName,
          sourceReferenceNumber: y.sourceReferenceNumber,
          statusCode: y.transactionStatusCode,
          connectorId: y.connectorId,
          connectorName: y.connectorName,
          requestReferenceNumber: y.metaData?.referenceNumber ?? null,
        });
      }
      const keys = items.map((x) => x.transactionDate.getTime());
      expect([...keys].sort((p, q) => q - p)).toEqual(keys);
    }
  });

  it('never shows another merchant\'s collections', async () => {
    const ofA = new Set((await every(a)).items.map((x) => x.transactionReferenceNumber));
    const ofB = (await every(b)).items.map((x) => x.transactionReferenceNumber);
    expect(ofB.length).toBe(2);
    expect(ofB.filter((r) => ofA.has(r))).toEqual([]);
    // B's reference searched from A's list finds nothing.
    expect((await listCollections(t.db, a.merchantAccountNumber, { search: ofB[0] })).items).toEqual([]);
  });

  it('filters by status, connector (an alias finds its institution), date range and search', async () => {
    const all = (await every(a)).items;
    expect((await every(a, { status: 'R' })).items.map((x) => x.transactionReferenceNumber)).toEqual([reversedReference]);
    expect((await every(a, { status: 'S' })).items).toHaveLength(all.length - 1);
    const airtel = all.filter((x) => x.connectorId === AIRTEL);
    expect(airtel).toHaveLength(2);
    expect((await every(a, { connectorId: AIRTEL })).items).toEqual(airtel);
    // 769375 is the gateway's documentation id for Airtel Money (connectors.alias_of).
    expect((await every(a, { connectorId: 769_375 })).items).toEqual(airtel);
    expect((await every(a, { fromDate: today, toDate: today })).items).toEqual(all);
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect((await every(a, { toDate: yesterday })).items).toEqual([]);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect((await every(a, { fromDate: tomorrow })).items).toEqual([]);
    // Search: a piece of a reference in lower case; a source reference; a request's reference; a customer's name.
    const target = all[3];
    expect((await every(a, { search: target.transactionReferenceNumber.slice(2, 9).toLowerCase() })).items.map((x) => x.transactionReferenceNumber)).toContain(target.transactionReferenceNumber);
    expect((await every(a, { search: target.sourceReferenceNumber })).items.map((x) => x.transactionReferenceNumber)).toEqual([target.transactionReferenceNumber]);
    const rtp = all.find((x) => x.requestReferenceNumber !== null)!;
    expect((await every(a, { search: rtp.requestReferenceNumber!.toLowerCase() })).items.map((x) => x.transactionReferenceNumber)).toEqual([rtp.transactionReferenceNumber]);
    const name = all[0].customerName;
    const byName = (await every(a, { search: `  ${name.split(' ')[1].toUpperCase()} ` })).items;
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((x) => x.customerName === name || x.customerName.toLowerCase().includes(name.split(' ')[1].toLowerCase()))).toBe(true);
    // LIKE's wildcards are plain characters here.
    expect((await every(a, { search: '%' })).items).toEqual([]);
    expect((await every(a, { search: '_' })).items).toEqual([]);
    // Filters combine.
    expect((await every(a, { status: 'R', connectorId: AIRTEL })).items).toEqual([]);
  });

  it('refuses a cursor of another list, merchant or filter, garbage, and bad values: a 400, never a 500', async () => {
    const first = await listCollections(t.db, a.merchantAccountNumber, { limit: 1 });
    expect(first.next).not.toBeNull();
    const filtered = await listCollections(t.db, a.merchantAccountNumber, { status: 'S', limit: 1 });
    const ofB = await listCollections(t.db, b.merchantAccountNumber, { limit: 1 });
    const batches = await batchesPage(t.db, a.merchantAccountNumber, { limit: 1 });
    for (const after of [
      filtered.next!,
      ofB.next!,
      batches.next!,
      'garbage',
      '!!!!',
      'x'.repeat(5000),
      Buffer.from('[1,"abc",1,2]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
      Buffer.from('not json').toString('base64url'),
      // The right scope with keys of the wrong shape.
      Buffer.from(JSON.stringify([1, JSON.parse(Buffer.from(first.next!, 'base64url').toString())[1], "2025-01-01'; drop table collections; --", 1])).toString('base64url'),
      Buffer.from(JSON.stringify([1, JSON.parse(Buffer.from(first.next!, 'base64url').toString())[1], '2025-01-01T00:00:00.000000Z', 1.5])).toString('base64url'),
    ]) {
      await refusedAsValidation(listCollections(t.db, a.merchantAccountNumber, { after }));
    }
    await refusedAsValidation(listCollections(t.db, a.merchantAccountNumber, { status: 'S', after: first.next! }));
    for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { fromDate: '2025-02-30' }, { toDate: 'yesterday' }, { fromDate: today, toDate: '2000-01-01' }, { status: 'X' }, { connectorId: -1 }, { search: 'x'.repeat(101) }]) {
      await refusedAsValidation(listCollections(t.db, a.merchantAccountNumber, bad));
    }
    // The right cursor still works.
    expect((await listCollections(t.db, a.merchantAccountNumber, { limit: 1, after: first.next! })).items).toHaveLength(1);
  });
});

describe('listCollections search at scale', () => {
  // Collections written straight into the table (the list reads only the table, and thousands made
  // through the API would take minutes): every 5th customer is a Zqxwe, every 7th collection pays a
  // request whose reference holds ZQXWE, and one collection in all carries a rare source reference.
  const COUNT = 30_000;
  let d: TestMerchant;
  const zqx = (i: number) => i % 5 === 0 || i % 7 === 0;

  beforeAll(async () => {
    d = await newMerchant(t);
    await t.db.query(
      `with requests as (
         insert into payment_requests (merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description,
                                       reference_number, captured_by, status_code, created_at, expires_at, paid_at)
         select $1, (13000000 + g)::text, 100000, 'MWK', 'Order', 'ORDERZQXWE' || g, 'a@b.mw', 'P', now() - interval '2 days', now() - interval '1 day', now() - interval '1 day'
           from generate_series(7, $2::int, 7) g
         returning request_id, reference_number)
       insert into collections (merchant_account_number, transaction_reference_number, transaction_code, request_id, request_reference_number, connector_id, source_account_number,
                                source_account_name, source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code,
                                transaction_description, bridge_reference_number, created_by, transaction_date, value_date)
       select $1, 'S' || lpad(g::text, 11, '0'), case when r.request_id is null then 'BAM' else 'RTP' end, r.request_id, r.reference_number, $3, '265991' || lpad(g::text, 6, '0'),
              case when g % 5 = 0 then 'Zqxwe Banda' else 'Chisomo Phiri' end, case when g = 24242 then 'RARE4242REF' else 'SRC' || lpad(g::text, 9, '0') end,
              $4, 100000, 1000, 'MWK', 'Customer payment', 'BR' || g, 'test', now() - g * interval '1 minute', now() - g * interval '1 minute'
         from generate_series(1, $2::int) g
         left join requests r on r.reference_number = 'ORDERZQXWE' || g`,
      [d.merchantAccountNumber, COUNT, AIRTEL, d.paymentAccountNumber],
    );
    // As autovacuum leaves a table in use: statistics read, GIN's pending list merged.
    await t.db.query('vacuum analyze collections');
  });

  it('pages through matches of the collection and of its request\'s reference, newest first, without gaps or repeats', async () => {
    const { items, pages } = await allPages((after) => listCollections(t.db, d.merchantAccountNumber, { search: 'zqXWE', limit: 50, after }), (x) => x.transactionReferenceNumber);
    const expected = Array.from({ length: COUNT }, (_, k) => k + 1).filter(zqx);
    expect(items.map((x) => Number(x.transactionReferenceNumber.slice(1)))).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 50));
    // A match by the request's reference shows it; one by both is listed once.
    const both = items.find((x) => x.transactionReferenceNumber === `S${'35'.padStart(11, '0')}`)!;
    expect([both.customerName, both.requestReferenceNumber]).toEqual(['Zqxwe Banda', 'ORDERZQXWE35']);
    // Filters still apply to both branches, and other merchants see none of it.
    expect((await listCollections(t.db, d.merchantAccountNumber, { search: 'zqxwe', status: 'R' })).items).toEqual([]);
    expect((await listCollections(t.db, a.merchantAccountNumber, { search: 'zqxwe' })).items).toEqual([]);
    expect((await listCollections(t.db, d.merchantAccountNumber, { search: 'rare4242' })).items.map((x) => x.transactionReferenceNumber)).toEqual([`S${'24242'.padStart(11, '0')}`]);
  });

  it('finds a rare reference through the trigram indexes instead of walking every collection', async () => {
    const plan = async (search: string) => {
      const { text, values } = listCollectionsQuery(d.merchantAccountNumber, { search });
      const client = await t.db.connect();
      try {
        // Thirty thousand rows are a few hundred pages, which the planner rightly reads whole;
        // with sequential scans off, what is left is the choice that matters at a million rows:
        // walking the merchant's date index until a page matched, or the trigram indexes.
        await client.query('begin');
        await client.query('set local enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.query('rollback');
        client.release();
      }
    };
    const rare = await plan('RARE4242REF');
    expect(rare).toMatch(/Bitmap Index Scan on collections_search_idx/);
    expect(rare).not.toMatch(/collections_merchant_date_idx/);
  });
});

describe('collectionDetail', () => {
  it('shows the collection, its balanced ledger lines and the events it raised', async () => {
    const detail = (await collectionDetail(t.db, a.merchantAccountNumber, reversedReference.toLowerCase()))!;
    const api = await ok<{ transaction: { transactionReferenceNumber: string; transactionFee: number; transactionStatusCode: string }; source: { amountSent: number } }>(a, '/collections/getTransaction', {
      merchantAccountNumber: a.merchantAccountNumber,
      transactionReferenceNumber: reversedReference,
    });
    expect(detail.collection.transaction_reference_number).toBe(api.transaction.transactionReferenceNumber);
    expect(detail.collection.status_code).toBe('R');
    expect(detail.collection.amount_minor).toBe(Math.round(api.source.amountSent * 100));
    // Two transfers (the payment and its reversal), each summing to zero.
    const transfers = [...new Set(detail.ledgerLines.map((l) => l.transferType))];
    expect(transfers).toEqual(['payment', 'reversal']);
    for (const type of transfers) expect(detail.ledgerLines.filter((l) => l.transferType === type).reduce((s, l) => s + l.amountMinor, 0)).toBe(0);
    const fee = Math.round(api.transaction.transactionFee * 100);
    const own = detail.ledgerLines.filter((l) => l.isMerchantAccount);
    expect(own.map((l) => [l.transferType, l.accountKind, l.amountMinor])).toEqual([
      ['payment', 'collection', 250_000 - fee],
      ['reversal', 'collection', -(250_000 - fee)],
    ]);
    expect(detail.ledgerLines.find((l) => l.transferType === 'reversal')!.metadata).toEqual({ reason: FORMULA });
    expect(detail.events.map((e) => e.eventCode)).toEqual(['payment.success', 'payment.reversed']);
    expect((detail.events[0].payload as { transactionReferenceNumber: string }).transactionReferenceNumber).toBe(reversedReference);
    expect(detail.events[0].deliveries).toEqual({ pending: 0, succeeded: 0, failed: 0 });
  });

  it("answers undefined for another merchant's reference, an unknown one or garbage", async () => {
    const ofB = (await listCollections(t.db, b.merchantAccountNumber, {})).items[0].transactionReferenceNumber;
    expect(await collectionDetail(t.db, a.merchantAccountNumber, ofB)).toBeUndefined();
    expect(await collectionDetail(t.db, b.merchantAccountNumber, ofB)).toBeDefined();
    expect(await collectionDetail(t.db, a.merchantAccountNumber, 'ZZZZZZZZZZZZ')).toBeUndefined();
    expect(await collectionDetail(t.db, a.merchantAccountNumber, "'; select 1 --")).toBeUndefined();
  });

  it('shows the deliveries of each event', async () => {
    const ref = (await listCollections(t.db, c.merchantAccountNumber, {})).items[0].transactionReferenceNumber;
    const detail = (await collectionDetail(t.db, c.merchantAccountNumber, ref))!;
    expect(detail.events.map((e) => [e.eventCode, e.deliveries])).toEqual([['payment.success', { pending: 0, succeeded: 0, failed: 1 }]]);
  });
});

describe('payouts', () => {
  interface ApiBatch {
    batchNumber: number;
    batchStatusCode: string;
    batchStatusDescription: string;
    numberOfTransactions: number;
  }

  it('lists batches as E4 does, with progress and totals as getBatch counts them, newest first', async () => {
    const { items, pages } = await allPages((after) => batchesPage(t.db, a.merchantAccountNumber, { after, limit: 1 }), (x) => String(x.batchNumber));
    expect(pages).toBe(2);
    const api = await ok<ApiBatch[]>(a, '/disbursements/batch/getBatches', { merchantAccountNumber: a.merchantAccountNumber });
    expect(items.map((x) => [x.batchNumber, x.statusCode, x.statusDescription, x.progress.entries])).toEqual(api.map((x) => [x.batchNumber, x.batchStatusCode, x.batchStatusDescription, x.numberOfTransactions]));
    expect(items.map((x) => x.batchNumber)).toEqual([...batchesOfA].reverse());
    const done = items.find((x) => x.batchNumber === batchesOfA[0])!;
    const record = await ok<Record<string, number>>(a, '/disbursements/batch/getBatch', { merchantAccountNumber: a.merchantAccountNumber, batchNumber: batchesOfA[0] });
    expect(done.progress).toEqual({
      entries: 6,
      invalid: 1,
      valid: 5,
      successful: record.numberOfSuccessfulEntries,
      failed: record.numberOfFailedEntries,
      reversed: record.numberOfReversedEntries,
      notFinal: 0,
      finalPercent: 100,
    });
    expect(done.progress).toMatchObject({ successful: 3, failed: 1, reversed: 1 });
    expect(done.totals).toEqual({
      amountMinor: Math.round(record.totalAmount * 100),
      feeMinor: Math.round(record.totalFees * 100),
      successfulMinor: Math.round(record.totalAmountOfSuccessfulEntries * 100),
      failedMinor: Math.round(record.totalAmountOfFailedEntries * 100),
      reversedMinor: Math.round(record.totalAmountOfReversedEntries * 100),
    });
    const pending = items.find((x) => x.batchNumber === batchesOfA[1])!;
    expect(pending).toMatchObject({ statusCode: 'P', statusDescription: 'Pending Funds Transfer', progress: { valid: 2, notFinal: 2, finalPercent: 0 } });
  });

  it('filters batches by status, keeps merchants apart and refuses bad values', async () => {
    expect((await batchesPage(t.db, a.merchantAccountNumber, { status: 'C' })).items.map((x) => x.batchNumber)).toEqual([batchesOfA[0]]);
    expect((await batchesPage(t.db, a.merchantAccountNumber, { status: 'X' })).items).toEqual([]);
    expect((await batchesPage(t.db, b.merchantAccountNumber, {})).items.map((x) => x.batchNumber)).toEqual([batchOfB]);
    await refusedAsValidation(batchesPage(t.db, a.merchantAccountNumber, { status: 'Z' }));
    const page = await batchesPage(t.db, a.merchantAccountNumber, { limit: 1 });
    await refusedAsValidation(batchesPage(t.db, b.merchantAccountNumber, { after: page.next! }));
    await refusedAsValidation(batchesPage(t.db, a.merchantAccountNumber, { after: page.next!, status: 'C' }));
  });

  it('shows one batch with its lines counted per status; another merchant\'s is undefined', async () => {
    const detail = (await batchDetail(t.db, a.merchantAccountNumber, batchesOfA[0]))!;
    expect(detail.lineStatuses.map((s) => [s.statusCode, s.lines])).toEqual([
      ['E', 1],
      ['F', 1],
      ['R', 1],
      ['S', 3],
    ]);
    expect(detail.lineStatuses.reduce((s, x) => s + x.lines, 0)).toBe(detail.progress.entries);
    expect(detail.lineStatuses.find((s) => s.statusCode === 'S')!.amountMinor).toBe(detail.totals.successfulMinor);
    expect(await batchDetail(t.db, a.merchantAccountNumber, batchOfB)).toBeUndefined();
    expect(await batchDetail(t.db, a.merchantAccountNumber, -5)).toBeUndefined();
  });

  it("pages a batch's lines as E3 lists them, with errors and outcomes, searchable", async () => {
    const { items } = await allPages((after) => batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { after, limit: 4 }), (x) => String(x.lineNumber));
    const { message: api } = await ok<{ message: Array<{ lineNumber: number; transactionReferenceNumber: string; transactionStatusCode: string; errorMessage: string | null; responseCode: string | null; transactionAmount: number; beneficiaryName: string }> }>(
      a,
      '/disbursements/batch/getTransactions',
      { merchantAccountNumber: a.merchantAccountNumber, batchNumber: batchesOfA[0] },
    );
    expect(items.map((x) => [x.lineNumber, x.transactionReferenceNumber, x.statusCode, x.responseCode, x.amountMinor, x.beneficiaryName])).toEqual(
      api.map((x) => [x.lineNumber, x.transactionReferenceNumber, x.transactionStatusCode, x.responseCode, Math.round(x.transactionAmount * 100), x.beneficiaryName]),
    );
    const invalid = items.find((x) => x.statusCode === 'E')!;
    expect(invalid).toMatchObject({ lineNumber: 6, errorCode: 'connectorUnknown', errorParams: { connectorId: 999_999 } });
    expect(api.find((x) => x.lineNumber === 6)!.errorMessage).toBeTruthy();
    expect(items.find((x) => x.statusCode === 'F')!.responseMessage).toBeTruthy();
    // Search (the name as typed, markup and all; any case), and status.
    expect((await batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { search: '<B>FAILING' }))!.items.map((x) => x.lineNumber)).toEqual([4]);
    expect((await batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { status: 'S' }))!.items.map((x) => x.lineNumber)).toEqual([1, 2, 3]);
    expect((await batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { search: items[2].sourceReferenceNumber.toLowerCase() }))!.items.map((x) => x.lineNumber)).toEqual([3]);
    // Another merchant's batch: undefined; its cursor on another batch: refused.
    expect(await batchLines(t.db, a.merchantAccountNumber, batchOfB)).toBeUndefined();
    const page = (await batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { limit: 2 }))!;
    await refusedAsValidation(batchLines(t.db, a.merchantAccountNumber, batchesOfA[1], { after: page.next! }));
    await refusedAsValidation(batchLines(t.db, a.merchantAccountNumber, batchesOfA[0], { status: 'Q' }));
  });

  it('lists single payouts as single/getTransactions does, newest first', async () => {
    const { items } = await allPages((after) => listSinglePayouts(t.db, a.merchantAccountNumber, { after, limit: 1 }), (x) => x.transactionReferenceNumber);
    const api = await ok<Array<{ transactionReferenceNumber: string; transactionStatusCode: string; transactionAmount: number; transactionFee: number; levelNumber: number }>>(a, '/disbursements/single/getTransactions', {
      merchantAccountNumber: a.merchantAccountNumber,
    });
    expect(items.map((x) => [x.transactionReferenceNumber, x.statusCode, x.amountMinor, x.feeMinor, x.levelNumber])).toEqual(
      api.map((x) => [x.transactionReferenceNumber, x.transactionStatusCode, Math.round(x.transactionAmount * 100), Math.round(x.transactionFee * 100), x.levelNumber]),
    );
    expect(items.map((x) => x.statusCode).sort()).toEqual(['F', 'S']);
    expect(items.every((x) => x.stage === 'final')).toBe(true);
    const ofC = (await listSinglePayouts(t.db, c.merchantAccountNumber, {})).items;
    expect(ofC.map((x) => [x.transactionReferenceNumber, x.stage, x.levelNumber])).toEqual([[singleOfC, 'pending', 3]]);
    expect((await listSinglePayouts(t.db, a.merchantAccountNumber, { status: 'F' })).items).toHaveLength(1);
    expect((await listSinglePayouts(t.db, b.merchantAccountNumber, {})).items).toEqual([]);
  });
});

describe('statements', () => {
  const ledgerBalances = async (who: TestMerchant) => {
    const { rows } = await t.db.query<{ kind: string; sum: number }>(
      `select a.kind, coalesce(sum(e.amount_minor), 0)::bigint as sum from ledger_accounts a left join ledger_entries e on e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id
        where a.merchant_account_number = $1 group by a.kind`,
      [who.merchantAccountNumber],
    );
    return Object.fromEntries(rows.map((r) => [r.kind, r.sum]));
  };

  it("opens at zero for a merchant created today and closes at the API's balances; closing − opening = in − out", async () => {
    for (const who of [a, b, c]) {
      const summary = (await statementSummary(t.db, who.merchantAccountNumber, today, today))!;
      const api = await apiBalances(t, who);
      const ledger = await ledgerBalances(who);
      const by = Object.fromEntries(summary.accounts.map((x) => [x.account, x]));
      expect(summary.accounts.map((x) => x.account)).toEqual(['account', 'collection', 'disbursement']);
      expect(by.collection).toMatchObject({ openingMinor: 0, closingMinor: api.collectionMinor });
      expect(by.disbursement).toMatchObject({ openingMinor: 0, closingMinor: api.disbursementMinor });
      expect(by.collection.closingMinor).toBe(ledger.collection);
      expect(by.disbursement.closingMinor).toBe(ledger.disbursement);
      expect(by.account.closingMinor).toBe(api.collectionMinor + api.disbursementMinor);
      for (const x of summary.accounts) expect(x.closingMinor - x.openingMinor).toBe(x.inMinor - x.outMinor);
    }
  });

  it('before the first movement and after the last, nothing moves: opening = closing', async () => {
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const longAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 300 * 86_400_000).toISOString().slice(0, 10);
    const before = (await statementSummary(t.db, a.merchantAccountNumber, longAgo, yesterday))!;
    expect(before.accounts.every((x) => x.openingMinor === 0 && x.closingMinor === 0 && x.movements === 0)).toBe(true);
    const after = (await statementSummary(t.db, a.merchantAccountNumber, tomorrow, tomorrow))!;
    const api = await apiBalances(t, a);
    expect(after.accounts.find((x) => x.account === 'collection')).toMatchObject({ openingMinor: api.collectionMinor, closingMinor: api.collectionMinor, inMinor: 0, outMinor: 0, movements: 0 });
  });

  it('lists the movements page by page, each with its account\'s running balance ending at the closing balance', async () => {
    const summary = (await statementSummary(t.db, a.merchantAccountNumber, today, today))!;
    const { items } = await allPages((after) => statementLines(t.db, a.merchantAccountNumber, today, today, { after, limit: 3 }), (x: StatementLine) => `${x.entryId}-${x.seq}`);
    const whole = await statementLines(t.db, a.merchantAccountNumber, today, today, { limit: 100 });
    expect(whole.next).toBeNull();
    expect(items).toEqual(whole.items);
    // Each entry is one line or more (a collection and its fee, each payee of a batch: ledger/statement-lines.ts).
    expect(new Set(items.map((x) => x.entryId)).size).toBe(summary.accounts[0].movements);
    for (const account of ['collection', 'disbursement'] as const) {
      const lines = items.filter((x) => x.account === account);
      const s = summary.accounts.find((x) => x.account === account)!;
      let balance = s.openingMinor;
      for (const line of lines) {
        balance += line.amountMinor;
        expect(line.accountBalanceMinor).toBe(balance);
      }
      expect(balance).toBe(s.closingMinor);
    }
    const types = new Set(items.map((x) => x.transferType));
    for (const type of ['topup', 'payment', 'payrequest', 'reversal', 'payout_debit', 'payout_settle', 'payout_reversal']) expect(types).toContain(type);
    expect(items.find((x) => x.transferType === 'reversal')!.note).toBe(FORMULA);
    // Order: by time, then entry.
    const order = items.map((x) => [x.date.getTime(), x.entryId]);
    expect([...order].sort((p, q) => p[0] - q[0] || p[1] - q[1])).toEqual(order);
    // Isolation: Beta's lines are Beta's.
    const ofB = (await statementLines(t.db, b.merchantAccountNumber, today, today, { limit: 100 })).items;
    expect(ofB.map((x) => x.entryId).filter((id) => items.some((y) => y.entryId === id))).toEqual([]);
    const page = await statementLines(t.db, a.merchantAccountNumber, today, today, { limit: 1 });
    await refusedAsValidation(statementLines(t.db, b.merchantAccountNumber, today, today, { after: page.next! }));
    await refusedAsValidation(statementLines(t.db, a.merchantAccountNumber, '2020-01-01', today, { after: page.next! }));
  });

  it('refuses bad periods with a 400', async () => {
    for (const [from, to] of [
      ['2025-01-02', '2025-01-01'],
      ['2025-13-01', '2025-12-31'],
      ['', today],
      ['2020-01-01', '2021-06-01'],
      ["2025-01-01'; --", today],
    ]) {
      await refusedAsValidation(statementSummary(t.db, a.merchantAccountNumber, from, to));
      await refusedAsValidation(() => streamStatementCsv(t.db, a.merchantAccountNumber, from, to));
    }
  });

  it('streams the CSV: header, one line per movement, amounts summing to the balance change, formulas defused', async () => {
    const summary = (await statementSummary(t.db, a.merchantAccountNumber, today, today))!;
    const text = await readAll(streamStatementCsv(t.db, a.merchantAccountNumber, today, today));
    await until('export connection released', async () => busyClients() === 0, 5000, 20);
    const rows = parse(text, { columns: false }) as string[][];
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const records = rows.slice(1).map((r) => Object.fromEntries(CSV_COLUMNS.map((col, i) => [col, r[i]])));
    const lines = (await statementLines(t.db, a.merchantAccountNumber, today, today, { limit: 100 })).items;
    // An opening and a closing balance row around the lines.
    expect(records).toHaveLength(lines.length + 2);
    expect([records[0].type_code, records.at(-1)!.type_code]).toEqual(['opening_balance', 'closing_balance']);
    expect(Number(records.at(-1)!.balance.replace('.', ''))).toBe(summary.accounts[0].closingMinor);
    records.splice(0, 1);
    records.splice(-1, 1);
    expect(records.map((r) => [r.reference.replace(/^'/, ''), r.account, r.amount, r.balance, r.account_balance])).toEqual(
      lines.map((l) => [l.reference, l.account, (l.amountMinor / 100).toFixed(2), (l.balanceMinor / 100).toFixed(2), (l.accountBalanceMinor / 100).toFixed(2)]),
    );
    for (const account of ['collection', 'disbursement'] as const) {
      const s = summary.accounts.find((x) => x.account === account)!;
      const mine = records.filter((r) => r.account === account);
      // Numbers parse back exactly: minor units from the text, no float sums.
      const sum = mine.reduce((acc, r) => acc + Number(r.amount.replace('.', '')), 0);
      expect(sum).toBe(s.closingMinor - s.openingMinor);
      expect(Number(mine[mine.length - 1].account_balance.replace('.', ''))).toBe(s.closingMinor);
      for (const r of mine) {
        expect(r.amount).toMatch(/^-?\d+\.\d{2}$/);
        expect(r.account_balance).toMatch(/^\d+\.\d{2}$/);
        expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }
    }
    // CSV injection: the reversal's reason starts with "=", so its cell starts with a quote.
    const reversal = records.find((r) => r.transfer_type === 'reversal')!;
    expect(reversal.note).toBe(`'${FORMULA}`);
    expect(records.filter((r) => /^[=+\-@]/.test(r.note) || /^[=+\-@]/.test(r.reference) || /^[=+\-@]/.test(r.type))).toEqual([]);
    // Beta's CSV has only Beta's references.
    const ofB = parse(await readAll(streamStatementCsv(t.db, b.merchantAccountNumber, today, today)), { columns: true }) as Array<{ reference: string }>;
    expect(ofB.length).toBe((await statementLines(t.db, b.merchantAccountNumber, today, today, { limit: 100 })).items.length + 2);
    expect(ofB.filter((r) => records.some((x) => x.reference === r.reference))).toEqual([]);
  });

  it('a period without movements is the header and its opening and closing balance', async () => {
    const text = await readAll(streamStatementCsv(t.db, a.merchantAccountNumber, '2020-01-01', '2020-01-31'));
    expect(text).toBe(`${CSV_COLUMNS.join(',')}\n2020-01-01T00:00:00Z,opening_balance,opening_balance,,,,,,,,,,0.00,\n2020-02-01T00:00:00Z,closing_balance,closing_balance,,,,,,,,,,0.00,\n`);
  });

  it('gives its connection back when the reader goes away mid-stream', async () => {
    const stream = streamStatementCsv(t.db, a.merchantAccountNumber, today, today);
    await new Promise<void>((resolve, reject) => {
      stream.once('data', () => resolve());
      stream.once('error', reject);
    });
    stream.destroy();
    await until('export connection released', async () => busyClients() === 0, 5000, 20);
    // The pool still works.
    expect((await statementSummary(t.db, a.merchantAccountNumber, today, today))!.accounts).toHaveLength(3);
  });
});

describe('analyticsOverview', () => {
  it("shows E5's counts and sums per connector and the daily series, as the API answers them", async () => {
    const overview = await analyticsOverview(t.db, a.merchantAccountNumber, {}, new Date());
    const body = { merchantAccountNumber: a.merchantAccountNumber, fromDate: overview.fromDate, toDate: overview.toDate };
    const counts = await ok<Array<{ summaryType: string; connectorName: string; successfulTransactions: number; failedTransactions: number; totalTransactions: number }>>(a, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', body);
    const sums = await ok<Array<{ summaryType: string; connectorName: string; successfulTransactions: number; failedTransactions: number; totalTransactions: number }>>(a, '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', body);
    expect(overview.connectors.map((x) => [x.summaryType, x.connectorName, x.successfulCount, x.failedCount, x.totalCount])).toEqual(
      counts.map((x) => [x.summaryType, x.connectorName, x.successfulTransactions, x.failedTransactions, x.totalTransactions]),
    );
    expect(overview.connectors.map((x) => [x.successfulMinor, x.failedMinor, x.totalMinor])).toEqual(
      sums.map((x) => [Math.round(x.successfulTransactions * 100), Math.round(x.failedTransactions * 100), Math.round(x.totalTransactions * 100)]),
    );
    const airtelC = overview.connectors.find((x) => x.summaryType === 'C' && x.connectorName === 'Airtel Money')!;
    expect(airtelC).toMatchObject({ successfulCount: 2, successfulMinor: 107_700 });
    expect(overview.collections.daily).toHaveLength(30);
    expect(overview.collections.daily.at(-1)).toMatchObject({ date: today, count: 6 });
    const metrics = await ok<{ successRate: number }>(a, '/core/MerchantAnalytics/GetDisbursementMetrics', body);
    expect(overview.payouts.successRate).toBe(metrics.successRate);
  });

  it('refuses a reversed or too long range, and keeps merchants apart', async () => {
    await refusedAsValidation(analyticsOverview(t.db, a.merchantAccountNumber, { fromDate: today, toDate: '2000-01-01' }, new Date()));
    await refusedAsValidation(analyticsOverview(t.db, a.merchantAccountNumber, { fromDate: '2000-01-01', toDate: today }, new Date()));
    await refusedAsValidation(analyticsOverview(t.db, a.merchantAccountNumber, { fromDate: '2000-02-31' }, new Date()));
    const ofB = await analyticsOverview(t.db, b.merchantAccountNumber, {}, new Date());
    expect(ofB.collections.daily.at(-1)).toMatchObject({ count: 2 });
    expect(ofB.connectors.filter((x) => x.summaryType === 'D').every((x) => x.totalCount === 0)).toBe(true);
  });
});

// The console's collections, analytics and home figures at the HTTP level (app.inject, real database):
// data made through the API (test/money-ops.ts), then the pages compared with what the API answers.
// The list equals POST /collections/getTransactions; every filter narrows it as it says; keyset pages
// follow each other without gap or repeat, with and without htmx; a refused filter is a 400 page (an
// htmx region with the message) that shows the value back, never a 500; a collection's page shows its
// ledger lines and events; another merchant's reference is the console's 404; what customers and
// merchants typed is escaped; analytics matches E5; home shows the day's figures and the batches
// waiting for this user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMajor } from '../../../src/lib/money.ts';
import { ConsoleClient, consoleUser, freshAuth, textOf } from '../client.ts';
import { BASE, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';
import { act, AIRTEL, collectionFee, collectionReference, customPayment, major, NBM, payTimed, reverseCollection, validateBatch, walletLine, addJson } from '../../money-ops.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';
const ESCAPED = '&lt;img src=x onerror=alert(1)&gt;';
const DIRECT_PAYMENTS = 26;

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let admin: ConsoleClient;
let adminEmail: string;
let otherReference: string;
let reversedReference: string;
let rtpReferences: string[];
let hostileReference: string;

interface ApiCollection {
  transactionReferenceNumber: string;
  sourceCustomerName: string;
  connectorName: string;
  transactionAmount: number;
  transactionFee: number;
  currencyCode: string;
  transactionStatusCode: string;
  transactionDate: string;
}

async function api(who: TestMerchant, path: string, payload: object) {
  const res = await t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: await freshAuth(t, who), payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function apiCollections(who: TestMerchant): Promise<ApiCollection[]> {
  return api(who, '/collections/getTransactions', { merchantAccountNumber: who.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 1000 });
}

const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const cellText = (html: string) => decode(html.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ').trim();

/** The body rows of the table with this id, each as its cells' texts. */
function rowsOf(html: string, tableId: string): string[][] {
  const start = html.indexOf(`id="${tableId}"`);
  if (start < 0) return [];
  const body = html.slice(html.indexOf('<tbody>', start), html.indexOf('</tbody>', start));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1].matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) => cellText(cell[1])));
}

/** The listed references, in order. */
const referencesOf = (html: string) => rowsOf(html, 'collections-table').map((cells) => cells[1]);

/** The address of the element with this id's href (decoded), if there is one. */
function hrefOf(html: string, id: string): string | undefined {
  const tag = new RegExp(`<a[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0];
  const href = tag && /\shref="([^"]+)"/.exec(tag)?.[1];
  return href ? decode(href) : undefined;
}

const HTMX = { 'hx-request': 'true', 'hx-target': 'collections-results', 'hx-current-url': 'http://localhost/console/collections' };

/** Every page of the list from `url`, following "Next page": its references and the number of pages. */
async function allPages(c: ConsoleClient, url: string, headers: Record<string, string> = {}): Promise<{ references: string[]; pages: number }> {
  const references: string[] = [];
  let next: string | undefined = url;
  let pages = 0;
  while (next) {
    const res = await c.get(next, headers);
    expect(res.statusCode, res.body).toBe(200);
    references.push(...referencesOf(res.body));
    next = hrefOf(res.body, 'collections-next');
    pages += 1;
    expect(pages).toBeLessThan(50);
  }
  return { references, pages };
}

/** A request to pay (E12) with this description, paid from an Airtel wallet: its transaction reference. */
async function paidRequest(amountMinor: number, description: string): Promise<string> {
  const initiated = await api(m, '/collections/requestToPay/initiate', {
    merchantAccountNumber: m.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    transactionDescription: description,
    referenceNumber: `ORDER${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`,
    capturedBy: 'capturer@shop.mw',
  });
  const paid = await payTimed(t, { ...m, auth: await freshAuth(t, m) }, initiated.timedAccountNumber, amountMinor);
  expect(paid.statusCode, paid.body).toBe(200);
  return collectionReference(paid);
}

beforeAll(async () => {
  t = await startTestApp();
  const cast = await merchantsAndAdmin(t, { merchant: { accountName: 'Chikondi Stores', levelNumber: 2 } });
  ({ m, other } = cast);
  for (let i = 0; i < DIRECT_PAYMENTS; i++) {
    const res = await customPayment(t, m, 10_000 + i * 137);
    expect(res.statusCode, res.body).toBe(200);
  }
  rtpReferences = [await paidRequest(25_000, 'School shoes, size 5'), await paidRequest(17_500, 'Exercise books')];
  hostileReference = await paidRequest(13_300, HOSTILE);
  rtpReferences.push(hostileReference);
  const list = await apiCollections(m);
  reversedReference = list[5].transactionReferenceNumber;
  const reversed = await reverseCollection(t, m, reversedReference);
  expect(reversed.statusCode, reversed.body).toBe(200);
  // The simulated connector names the customer; a real one passes on whatever the payer's bank
  // says, so a name is as untrusted as a description: one is set to markup here.
  await t.db.query('update collections set source_account_name = $2 where transaction_reference_number = $1', [hostileReference, HOSTILE]);
  const foreign = await customPayment(t, other, 55_500);
  expect(foreign.statusCode, foreign.body).toBe(200);
  otherReference = collectionReference(foreign);
  const user = cast.admin;
  adminEmail = user.email;
  admin = new ConsoleClient(t, '10.9.0.1');
  expect((await admin.signIn(user.email, user.password)).statusCode).toBe(303);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the collections list', () => {
  it('shows the first page as the API lists it: reference, customer, connector, amount, fee and status, newest first', async () => {
    const res = await admin.get('/console/collections');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('<h1>Collections</h1>');
    expect(res.body).toContain('aria-current="page">Collections</a>');
    const fromApi = (await apiCollections(m)).slice(0, 25);
    const rows = rowsOf(res.body, 'collections-table');
    expect(rows).toHaveLength(25);
    expect(rows.map((r) => r.slice(1))).toEqual(
      fromApi.map((c) => [
        c.transactionReferenceNumber,
        c.sourceCustomerName,
        c.connectorName,
        `${c.currencyCode} ${formatMajor(Math.round(c.transactionAmount * 100))}`,
        `${c.currencyCode} ${formatMajor(Math.round(c.transactionFee * 100))}`,
        c.transactionStatusCode === 'S' ? 'Successful' : 'Reversed',
      ]),
    );
    // Dates in UTC to the minute, with the exact instant for machines.
    expect(rows[0][0]).toBe(fromApi[0].transactionDate.slice(0, 16).replace('T', ' '));
    expect(textOf(res.body, 'collections-summary')).toBe('25 collections shown, newest first; more on the next page.');
    expect(hrefOf(res.body, `collections-first`)).toBeUndefined();
    // Fees are what the fee schedule says (1 %).
    const first = fromApi[fromApi.length - 1];
    expect(Math.round(first.transactionFee * 100)).toBe(collectionFee(Math.round(first.transactionAmount * 100)));
  });

  it('pages through every collection without gap or repeat, as pages and as htmx regions', async () => {
    const all = (await apiCollections(m)).map((c) => c.transactionReferenceNumber);
    expect(all).toHaveLength(DIRECT_PAYMENTS + 3);
    const plain = await allPages(admin, '/console/collections?limit=7');
    expect(plain.pages).toBe(Math.ceil(all.length / 7));
    expect(plain.references).toEqual(all);
    const htmx = await allPages(admin, '/console/collections?limit=10', HTMX);
    expect(htmx.references).toEqual(all);
    expect(htmx.pages).toBe(3);
    // The next page's address keeps the filters and carries the cursor; its first-page link drops it.
    const second = await admin.get(hrefOf((await admin.get('/console/collections?limit=7&connector=212188')).body, 'collections-next')!);
    expect(second.statusCode).toBe(200);
    expect(hrefOf(second.body, 'collections-first')).toBe('/console/collections?connector=212188&limit=7');
    expect(hrefOf(second.body, 'collections-next')).toMatch(/^\/console\/collections\?connector=212188&limit=7&after=[A-Za-z0-9_-]+$/);
  });

  it('answers htmx with the results region alone, and the whole page to a history restore', async () => {
    const region = await admin.get('/console/collections?status=R', HTMX);
    expect(region.statusCode).toBe(200);
    expect(region.headers.vary).toContain('HX-Request');
    expect(region.body).not.toContain('<html');
    expect(region.body).toMatch(/^<div><p class="results-summary" role="status" id="collections-summary">/);
    expect(referencesOf(region.body)).toEqual([reversedReference]);
    const restore = await admin.get('/console/collections?status=R', { ...HTMX, 'hx-history-restore-request': 'true' });
    expect(restore.body).toContain('<html');
    // The form that asks for it: a GET form with htmx attributes, which works without them.
    const page = await admin.get('/console/collections');
    const form = /<form[^>]*id="collections-filters"[^>]*>/.exec(page.body)![0];
    for (const attribute of ['method="get"', 'action="/console/collections"', 'hx-get="/console/collections"', 'hx-target="#collections-results"', 'hx-push-url="true"', 'hx-trigger="submit, change"']) {
      expect(form).toContain(attribute);
    }
  });

  it('filters by status, connector, search (reference, customer name) and UTC days', async () => {
    const all = await apiCollections(m);
    const list = async (query: string) => {
      const res = await admin.get(`/console/collections?${query}&limit=100`);
      expect(res.statusCode, res.body).toBe(200);
      return referencesOf(res.body);
    };
    expect(await list('status=R')).toEqual([reversedReference]);
    expect(await list('status=S')).toEqual(all.filter((c) => c.transactionReferenceNumber !== reversedReference).map((c) => c.transactionReferenceNumber));
    expect(await list(`connector=${AIRTEL}`)).toEqual([...rtpReferences].reverse());
    expect(await list(`connector=${NBM}`)).toHaveLength(DIRECT_PAYMENTS);
    // An alias of an institution (550044: NBM) finds its collections too.
    expect(await list('connector=550044')).toHaveLength(DIRECT_PAYMENTS);
    const target = all[10];
    expect(await list(`search=${target.transactionReferenceNumber.slice(2, 10).toLowerCase()}`)).toEqual([target.transactionReferenceNumber]);
    expect(await list(`search=${encodeURIComponent(HOSTILE.slice(0, 8))}`)).toEqual([hostileReference]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await list(`from=${today}&to=${today}`)).toHaveLength(all.length);
    expect(await list(`from=${tomorrow}`)).toEqual([]);
    expect(await list(`to=${yesterday}`)).toEqual([]);
    // The form shows the filters back, the chosen options selected.
    const res = await admin.get(`/console/collections?status=R&connector=${NBM}&search=abc&from=${today}`);
    expect(res.body).toContain('<option value="R" selected>Reversed</option>');
    expect(res.body).toContain(`<option value="${NBM}" selected>National Bank of Malawi</option>`);
    expect(res.body).toMatch(/<input type="search" id="filter-search" name="search" value="abc"/);
    expect(res.body).toContain(`<input type="date" id="filter-from" name="from" value="${today}"`);
    expect(textOf(res.body, 'collections-summary')).toBe('No collections match these filters.');
  });

  it('answers a refused filter with a 400 page that shows the value back with the message; htmx gets the message as the region', async () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['from=2025-02-30', 'From (UTC day): "2025-02-30" is not a day (YYYY-MM-DD).', 'from'],
      ['to=yesterday', 'To (UTC day): "yesterday" is not a day (YYYY-MM-DD).', 'to'],
      ['from=2026-03-02&to=2026-03-01', 'The first day (2026-03-02) is after the last day (2026-03-01).', 'from'],
      ['status=X', 'Status: "X" is not valid.', 'status'],
      ['connector=abc', 'Connector: "abc" is not valid.', 'connector'],
      [`search=${'a'.repeat(101)}`, `Reference or customer name: "${'a'.repeat(40)}…" is not valid.`, 'search'],
      ['limit=1000', 'Rows per page: "1000" is not valid.', undefined],
      ['after=not-a-cursor', 'This page position does not belong to these filters: start again from the first page.', undefined],
    ];
    for (const [query, message, field] of cases) {
      const res = await admin.get(`/console/collections?${query}`);
      expect(res.statusCode, `${query}: ${res.body.slice(0, 200)}`).toBe(400);
      expect(textOf(res.body, 'filter-problem'), query).toBe(`Check the filters: ${message}`);
      expect(res.body).not.toContain('id="collections-table"');
      if (field) expect(new RegExp(`<(input|select)[^>]*name="${field}"[^>]*aria-invalid="true"`).test(res.body), query).toBe(true);
      const region = await admin.get(`/console/collections?${query}`, HTMX);
      expect(region.statusCode, query).toBe(200);
      expect(textOf(region.body, 'filter-problem'), query).toBe(`Check the filters: ${message}`);
    }
    // Shown back as typed: a day that is not one stays in a text field.
    const res = await admin.get('/console/collections?from=2025-02-30');
    expect(res.body).toContain('<input type="text" id="filter-from" name="from" value="2025-02-30" placeholder="YYYY-MM-DD" aria-invalid="true" aria-describedby="filter-problem">');
    // A cursor of another filter is refused, not followed.
    const next = hrefOf((await admin.get('/console/collections?status=S&limit=5')).body, 'collections-next')!;
    const moved = await admin.get(next.replace('status=S', 'status=R'));
    expect(moved.statusCode).toBe(400);
    // In Chichewa too.
    const ny = await admin.get('/console/collections?from=2026-03-02&to=2026-03-01&lang=ny');
    expect(ny.statusCode).toBe(400);
    expect(textOf(ny.body, 'filter-problem')).toBe('Onaninso zosankha: Tsiku loyamba (2026-03-02) lili pambuyo pa tsiku lomaliza (2026-03-01).');
    await admin.get('/console/collections?lang=en');
  });

  it('escapes what customers and merchants typed, in the list, the detail and the filter shown back', async () => {
    const list = await admin.get(`/console/collections?search=${encodeURIComponent(HOSTILE)}`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(HOSTILE);
    expect(list.body).toContain(`value="${ESCAPED}"`);
    expect(list.body).toContain(`<td data-label="Customer" class="wrap">${ESCAPED}</td>`);
    const detail = await admin.get(`/console/collections/${hostileReference}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain(HOSTILE);
    expect(textOf(detail.body, 'collection-description')).toBe(HOSTILE);
    expect(detail.body).toContain(`<dd id="collection-description">${ESCAPED}</dd>`);
    expect(detail.body).toContain(`<dd id="collection-customer">${ESCAPED}</dd>`);
  });

  it('is in Chichewa when asked', async () => {
    const res = await admin.get('/console/collections?lang=ny');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="ny">');
    expect(res.body).toContain('<h1>Zolandiridwa</h1>');
    expect(res.body).toContain('Tsamba lotsatira');
    await admin.get('/console/collections?lang=en');
  });
});

describe('a collection', () => {
  it('shows the collection as the API answers it, its balanced ledger lines and the events it raised', async () => {
    const one = await api(m, '/collections/getTransaction', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reversedReference });
    const res = await admin.get(`/console/collections/${reversedReference}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(textOf(res.body, 'collection-title')).toBe(`Collection ${reversedReference}`);
    expect(textOf(res.body, 'collection-status')).toBe('Reversed');
    const amount = Math.round(one.source.amountSent * 100);
    const fee = Math.round(one.transaction.transactionFee * 100);
    expect(textOf(res.body, 'collection-amount')).toBe(`MWK ${formatMajor(amount)}`);
    expect(textOf(res.body, 'collection-fee')).toBe(`MWK ${formatMajor(fee)}`);
    expect(textOf(res.body, 'collection-net')).toBe(`MWK ${formatMajor(amount - fee)}`);
    expect(textOf(res.body, 'collection-customer')).toBe(one.source.customerName);
    expect(textOf(res.body, 'collection-connector')).toBe('National Bank of Malawi');
    expect(textOf(res.body, 'collection-reversal-reason')).toBe('Customer refund');
    // The payment and its reversal, each balanced (double entry), the merchant's own account marked.
    const lines = rowsOf(res.body, 'ledger-lines');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const byTransfer = new Map<string, number>();
    for (const [, transfer, , shown] of lines) {
      const minor = Math.round(Number(shown.replace(/^MWK /, '').replace(/,/g, '')) * 100);
      byTransfer.set(transfer, (byTransfer.get(transfer) ?? 0) + minor);
    }
    expect([...byTransfer.keys()].map((k) => k.replace(/ #\d+$/, ''))).toEqual(['Payment', 'Reversal']);
    expect([...byTransfer.values()]).toEqual([0, 0]);
    expect(lines.filter((l) => l[2] === 'Collection yours').map((l) => l[3])).toEqual([`MWK ${formatMajor(amount - fee)}`, `MWK -${formatMajor(amount - fee)}`]);
    const events = rowsOf(res.body, 'collection-events');
    expect(events.map((e) => e[1])).toEqual(['payment.success', 'payment.reversed']);
  });

  it('answers another merchant\'s reference, an unknown one and a malformed one with the console\'s 404 page', async () => {
    for (const reference of [otherReference, 'ABCDEFGHIJKL', 'not-a-reference', `${reversedReference}X`]) {
      const res = await admin.get(`/console/collections/${encodeURIComponent(reference)}`);
      expect(res.statusCode, reference).toBe(404);
      expect(textOf(res.body, 'message-title')).toBe('Page not found');
      expect(res.body).not.toContain('55,500');
    }
    // The other merchant's collection is in no list of this one either.
    expect((await allPages(admin, '/console/collections?limit=100')).references).not.toContain(otherReference);
  });
});

describe('analytics', () => {
  it('shows E5\'s counts and sums by connector, as charts with the figures\' tables', async () => {
    const counts = await api(m, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', { merchantAccountNumber: m.merchantAccountNumber, summaryType: 'C' });
    const sums = await api(m, '/core/MerchantAnalytics/GetConnectorSummarySumMetrics', { merchantAccountNumber: m.merchantAccountNumber, summaryType: 'C' });
    const res = await admin.get('/console/analytics');
    expect(res.statusCode, res.body).toBe(200);
    // A row per connector with transactions, as E5 counts and sums them; the idle ones named below.
    type Metric = { connectorName: string; successfulTransactions: number; failedTransactions: number; totalTransactions: number };
    const active = (counts as Metric[]).map((c, i) => ({ c, sum: (sums as Metric[])[i] })).filter(({ c }) => c.totalTransactions > 0);
    const rows = rowsOf(res.body, 'collections-table');
    expect(rows).toEqual(
      active.map(({ c, sum }) => [
        c.connectorName,
        String(c.successfulTransactions),
        String(c.failedTransactions),
        String(c.totalTransactions),
        ...[sum.successfulTransactions, sum.failedTransactions, sum.totalTransactions].map((major) => `MWK ${formatMajor(Math.round(major * 100))}`),
      ]),
    );
    expect(rows.map((r) => r[0])).toEqual(['Airtel Money', 'National Bank of Malawi']);
    expect(rows[1].slice(1, 4)).toEqual([String(DIRECT_PAYMENTS - 1), '0', String(DIRECT_PAYMENTS)]);
    const idle = (counts as Metric[]).filter((c) => c.totalTransactions === 0).map((c) => c.connectorName);
    expect(textOf(res.body, 'collections-idle')).toBe(`Without transactions in this range: ${idle.join(', ')}.`);
    // The charts: SVG images named by their titles, one bar per connector with transactions.
    const chart = /<svg[^>]*aria-labelledby="collections-count-chart-title"[\s\S]*?<\/svg>/.exec(res.body)![0];
    expect(chart).toContain('role="img"');
    expect(chart.match(/<rect class="chart-bar-value"/g)).toHaveLength(2);
    expect(res.body).toContain('id="collections-sum-chart-MWK-title"');
    // No payouts in the range: a sentence instead of empty charts, and the table of zeros.
    expect(textOf(res.body, 'payouts-none')).toBe('No transactions in this range');
    expect(res.body).not.toContain('id="payouts-table"');
    expect(textOf(res.body, 'payouts-idle')).toContain('Airtel Money');
    expect(textOf(res.body, 'collections-table-caption')).toMatch(/^Collections by connector, from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
  });

  it('answers a refused range with a 400 page and the message; a viewer may open it, an initiator may not', async () => {
    const res = await admin.get('/console/analytics?from=2026-01-01&to=2025-01-01');
    expect(res.statusCode).toBe(400);
    expect(textOf(res.body, 'filter-problem')).toBe('Check the filters: The first day (2026-01-01) is after the last day (2025-01-01).');
    const long = await admin.get('/console/analytics?from=2020-01-01&to=2025-01-01');
    expect(long.statusCode).toBe(400);
    expect(textOf(long.body, 'filter-problem')).toContain('at most 366 are allowed');
    const initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR' });
    const c = new ConsoleClient(t, '10.9.0.2');
    await c.signIn(initiator.email, initiator.password);
    expect((await c.get('/console/analytics')).statusCode).toBe(403);
    expect((await c.get('/console/collections')).statusCode).toBe(200);
  });
});

describe('home', () => {
  it('shows today\'s and the last 30 days\' collections as the ledger has them, with a chart and the days behind it', async () => {
    const all = await apiCollections(m);
    const successful = all.filter((c) => c.transactionStatusCode === 'S');
    const res = await admin.get('/console');
    expect(res.statusCode, res.body).toBe(200);
    const [today, total] = rowsOf(res.body, 'flow-collections-table');
    const amount = successful.reduce((sum, c) => sum + Math.round(c.transactionAmount * 100), 0);
    const rate = `${Math.round((successful.length * 10_000) / all.length) / 100} %`;
    expect(today).toEqual(['Today', String(all.length), String(successful.length), '0', '1', `MWK ${formatMajor(amount)}`, rate]);
    expect(total).toEqual(['Last 30 days', ...today.slice(1)]);
    expect(rowsOf(res.body, 'flow-payouts-table')[0]).toEqual(['Today', '0', '0', '0', '0', 'MWK 0.00', 'none final']);
    expect(res.body).toContain('aria-labelledby="flow-collections-chart-title"');
    const days = rowsOf(res.body, 'flow-collections-days');
    expect(days).toHaveLength(30);
    expect(days[29][0]).toBe(new Date().toISOString().slice(0, 10));
  });

  it('lists the batches waiting for this user\'s approval, linking to their pages, and nothing for a viewer', async () => {
    const funded = await api(m, '/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: '5000.00', createdBy: 'ops@shop.mw' });
    expect(funded).toBeDefined();
    const batch = await addJson(t, { ...m, auth: await freshAuth(t, m) }, [walletLine(100), walletLine(250)]);
    expect(batch.statusCode, batch.body).toBe(200);
    const batchNumber: number = batch.json().batchNumber;
    await validateBatch(t, batchNumber);
    const res = await admin.get('/console');
    expect(textOf(res.body, 'attention-batches-title')).toBe('Batches waiting for you (1)');
    expect(res.body).toContain(`<a href="/console/payouts/batches/${batchNumber}">Batch ${batchNumber}</a>`);
    expect(textOf(res.body, 'attention-batches')).toContain('to approve');
    expect(textOf(res.body, 'attention-batches')).toContain('MWK 350.00');
    const viewer = await consoleUser(t, m, { role: 'MERC_VIEWER' });
    const c = new ConsoleClient(t, '10.9.0.3');
    await c.signIn(viewer.email, viewer.password);
    const seen = await c.get('/console');
    expect(seen.statusCode).toBe(200);
    expect(textOf(seen.body, 'attention-nothing')).toBe('Nothing is waiting for you.');
    // Approved (by this administrator), it waits for their funds transfer next.
    const approved = await act(t, { ...m, auth: await freshAuth(t, m) }, 'approve', batchNumber, adminEmail);
    expect(approved.statusCode, approved.body).toBe(200);
    const after = await admin.get('/console');
    expect(textOf(after.body, 'attention-batches')).toContain('to transfer the funds');
    expect(textOf(after.body, 'attention-batches')).not.toContain('to approve');
  });
});

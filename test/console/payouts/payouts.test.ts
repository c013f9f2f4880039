// The console's payouts pages at the HTTP level (app.inject against a real database), on data made
// through the API and the real jobs (test/money-ops.ts): the batches list against the API's E4
// answer, a batch's header against getBatch and its lines against E3, search, keyset paging followed
// link by link without gaps or repeats, htmx swaps of the results region, another merchant's batch
// as the console's 404 page, the single payouts against single/getTransactions, and a beneficiary
// named like markup rendered as text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser, type Page } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, APPROVER, addJson, CAPTURER, paidSinglePayout, payoutLine, REVIEWER, runPayouts, topup, validateBatch, walletLine } from '../../money-ops.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';

let t: TestApp;
/** Level 3: batches are reviewed, then approved. */
let a: TestMerchant;
let b: TestMerchant;
let c: ConsoleClient;
let bigBatch: number;
let batchOfB: number;
const smallBatches: number[] = [];

// ---------------------------------------------------------------------------------------------
// Reading pages

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e])
    .replace(/\s+/g, ' ')
    .trim();

interface Row {
  id: string;
  /** Cell text by column name (data-label). */
  cells: Record<string, string>;
  html: string;
}

/** The rows of the table `tableId` whose <tr> ids start with `prefix`. */
function rows(html: string, tableId: string, prefix: string): Row[] {
  const start = html.indexOf(`id="${tableId}"`);
  if (start < 0) return [];
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(new RegExp(`<tr id="${prefix}([^"]+)"[^>]*>([\\s\\S]*?)</tr>`, 'g'))].map((m) => ({
    id: m[1],
    html: m[2],
    cells: Object.fromEntries([...m[2].matchAll(/<(td|th)[^>]*data-label="([^"]*)"[^>]*>([\s\S]*?)<\/\1>/g)].map((cell) => [cell[2], text(cell[3])])),
  }));
}

/** The next page's address in the pager of region `region`, decoded. */
function nextOf(html: string, region: string): string | undefined {
  const href = new RegExp(`<a class="link-button" href="([^"]+)"[^>]*id="${region}-next"`).exec(html)?.[1];
  return href?.replace(/&amp;/g, '&');
}

/** Every page of a list from `url` on, following its next links; the pages and their rows. */
async function allPages(url: string, tableId: string, prefix: string, region: string): Promise<{ rows: Row[]; pages: number }> {
  const found: Row[] = [];
  let next: string | undefined = url;
  let pages = 0;
  while (next) {
    const res: Page = await c.get(next);
    expect(res.statusCode, res.body).toBe(200);
    found.push(...rows(res.body, tableId, prefix));
    next = nextOf(res.body, region);
    pages++;
    expect(pages).toBeLessThan(50);
  }
  return { rows: found, pages };
}

async function api<T>(who: TestMerchant, path: string, payload: object): Promise<T> {
  const res = await t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: who.auth, payload: { merchantAccountNumber: who.merchantAccountNumber, ...payload } });
  expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
  return res.json() as T;
}

const money = (n: number) => `MWK ${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

async function submitted(who: TestMerchant, lines: Record<string, unknown>[]): Promise<number> {
  const res = await addJson(t, who, lines);
  expect(res.statusCode, res.body).toBe(200);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  return batchNumber;
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  a = await newMerchant(t, { accountName: 'Chikondi Stores', levelNumber: 3 });
  b = await newMerchant(t, { accountName: 'Mzuzu Coffee' });
  expect((await topup(t, a, 500_000_00)).statusCode).toBe(200);
  expect((await topup(t, b, 10_000_00)).statusCode).toBe(200);

  // 27 one-line batches: more than a page of 25.
  for (let i = 0; i < 27; i++) smallBatches.push(await submitted(a, [walletLine(100 + i)]));
  expect((await act(t, a, 'reject', smallBatches[0], REVIEWER)).statusCode).toBe(200);
  expect((await act(t, a, 'review', smallBatches[1], REVIEWER)).statusCode).toBe(200);

  // One batch of 60 lines: 3 invalid, one beneficiary named like markup; reviewed, approved, paid:
  // a failure (9901) and a reversal (9905) among them.
  const lines: Record<string, unknown>[] = [];
  for (let i = 1; i <= 60; i++) {
    const suffix = i === 7 ? '9901' : i === 9 ? '9905' : String(1000 + i);
    const line = payoutLine({ amountMinor: 1000_00 + i * 100, channel: i % 4 === 0 ? 'bank' : 'wallet', suffix });
    if (i === 5) line.beneficiaryName = HOSTILE;
    if (i === 11) line.beneficiaryName = 'Tiwonge Nyirenda';
    if (i === 20 || i === 40 || i === 59) line.beneficiaryAccountNumber = '12345';
    lines.push(line);
  }
  bigBatch = await submitted(a, lines);
  expect((await act(t, a, 'review', bigBatch, REVIEWER)).statusCode).toBe(200);
  expect((await act(t, a, 'approve', bigBatch, APPROVER)).statusCode).toBe(200);
  const transfer = await act(t, a, 'transferFunds', bigBatch, CAPTURER);
  expect(transfer.statusCode, transfer.body).toBe(200);
  await runPayouts(t, a);

  // Single payouts: level 3, so reviewed and approved; one named like markup.
  for (let i = 0; i < 4; i++) {
    const line = payoutLine({ amountMinor: 500_00 + i, channel: 'wallet', suffix: String(2000 + i) });
    if (i === 2) line.beneficiaryName = HOSTILE;
    const res = await paidSinglePayout(t, a, line);
    expect(res.statusCode, res.body).toBe(200);
  }
  await runPayouts(t, a);

  batchOfB = await submitted(b, [walletLine(1500)]);

  const user = await consoleUser(t, a, { role: 'MERC_VIEWER' });
  c = new ConsoleClient(t, '10.9.0.1');
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the batches list', () => {
  it("shows E4's batches, newest first, page by page without gaps or repeats", async () => {
    const shown = await allPages('/console/payouts', 'batches-table', 'batch-', 'batch-results');
    expect(shown.pages).toBe(2);
    const e4 = await api<Array<{ batchNumber: number; batchStatusDescription: string; capturedBy: string; numberOfTransactions: number }>>(a, '/disbursements/batch/getBatches', {
      pageNumber: 1,
      numberOfReturnedRows: 100,
    });
    expect(e4).toHaveLength(28);
    expect(shown.rows.map((r) => Number(r.id))).toEqual(e4.map((x) => x.batchNumber));
    for (const [i, row] of shown.rows.entries()) {
      expect(row.cells.Status).toBe(e4[i].batchStatusDescription);
      expect(row.cells.Batch).toBe(`Batch ${e4[i].batchNumber}`);
      expect(row.cells.Captured).toContain(`by ${e4[i].capturedBy}`);
      expect(row.cells.Level).toBe('3');
    }
    // The batch's own totals and progress, as getBatch reports them.
    const big = shown.rows.find((r) => Number(r.id) === bigBatch)!;
    const record = await api<{ totalAmount: number; totalFees: number; numberOfSuccessfulEntries: number; numberOfFailedEntries: number; numberOfReversedEntries: number; numberOfInvalidEntries: number; numberOfValidEntries: number }>(
      a,
      '/disbursements/batch/getBatch',
      { batchNumber: bigBatch },
    );
    expect(big.cells.Amount).toBe(money(record.totalAmount));
    expect(big.cells.Fees).toBe(money(record.totalFees));
    expect(record.numberOfFailedEntries).toBe(1);
    expect(record.numberOfReversedEntries).toBe(1);
    expect(big.cells.Progress).toContain(`${record.numberOfValidEntries} of ${record.numberOfValidEntries} valid lines final (100 %)`);
    expect(big.cells.Progress).toContain(`${record.numberOfSuccessfulEntries} successful`);
    expect(big.cells.Progress).toContain('1 failed');
    expect(big.cells.Progress).toContain('1 reversed');
    expect(big.cells.Progress).toContain('3 invalid');
    expect(big.html).toContain('<svg class="status-bar"');
  });

  it('filters by status, the filter kept by the pager', async () => {
    const rejected = await c.get('/console/payouts?status=X');
    expect(rows(rejected.body, 'batches-table', 'batch-').map((r) => Number(r.id))).toEqual([smallBatches[0]]);
    expect(rejected.body).toMatch(/<option value="X" selected>Rejected<\/option>/);
    const pending = await allPages('/console/payouts?status=P', 'batches-table', 'batch-', 'batch-results');
    expect(pending.rows).toHaveLength(25);
    expect(pending.rows.every((r) => r.cells.Status === 'Pending Review')).toBe(true);
    const none = await c.get('/console/payouts?status=F');
    expect(none.body).toContain('id="batches-empty"');
  });

  it('answers an htmx swap with the results region alone, focused; Back (history restore) gets the page', async () => {
    const first = await c.get('/console/payouts');
    const next = nextOf(first.body, 'batch-results')!;
    expect(first.body).toContain(`hx-get="${next.replace(/&/g, '&amp;')}"`);
    expect(first.body).toContain('hx-target="#batch-results"');
    expect(first.body).toContain('hx-push-url="true"');
    const region = await c.get(next, { 'hx-request': 'true', 'hx-target': 'batch-results' });
    expect(region.statusCode).toBe(200);
    expect(region.body.startsWith('<section class="results" id="batch-results"')).toBe(true);
    expect(region.body).not.toContain('<html');
    expect(region.body).toContain('<h2 id="batch-results-title" tabindex="-1" autofocus>');
    expect(region.headers.vary).toContain('HX-Target');
    expect(rows(region.body, 'batches-table', 'batch-')).toHaveLength(3);
    expect(region.body).toContain('id="batch-results-first"');
    const restored = await c.get(next, { 'hx-request': 'true', 'hx-history-restore-request': 'true' });
    expect(restored.body.startsWith('<!doctype html>')).toBe(true);
    // Another region's name gets the page, not a fragment of the wrong list.
    expect((await c.get(next, { 'hx-request': 'true', 'hx-target': 'elsewhere' })).body.startsWith('<!doctype html>')).toBe(true);
  });

  it('refuses a bad filter or cursor with a 400 page, never a 500', async () => {
    for (const url of ['/console/payouts?status=ZZ', '/console/payouts?after=nonsense', `/console/payouts?after=${'A'.repeat(400)}`]) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.body).toContain('The request could not be read');
    }
    // A cursor of the unfiltered list does not page the filtered one.
    const next = new URL(nextOf((await c.get('/console/payouts')).body, 'batch-results')!, 'http://x').searchParams.get('after')!;
    expect((await c.get(`/console/payouts?status=P&after=${next}`)).statusCode).toBe(400);
  });

  it('is in Chichewa too', async () => {
    const res = await c.get('/console/payouts?lang=ny');
    expect(res.body).toContain('<html lang="ny">');
    expect(res.body).toContain('<h1>Zotumizidwa</h1>');
    expect(res.body).toContain('Ikudikira kuwunikidwa');
    await c.get('/console/payouts?lang=en');
  });
});

describe('a batch page', () => {
  it('shows its header: status, level, who captured, reviewed and approved it and when, totals and lines by status', async () => {
    const res = await c.get(`/console/payouts/batches/${bigBatch}`);
    expect(res.statusCode, res.body).toBe(200);
    const record = await api<Record<string, string | number | null>>(a, '/disbursements/batch/getBatch', { batchNumber: bigBatch });
    const fact = (id: string) => text(new RegExp(`<div class="fact" id="batch-${id}">([\\s\\S]*?)</div>`).exec(res.body)?.[1] ?? '');
    expect(fact('status')).toBe(`Status ${record.batchStatusDescription}`);
    expect(fact('level')).toContain('Level 3');
    const instant = (iso: unknown) => `${String(iso).slice(0, 10)} ${String(iso).slice(11, 16)} UTC`;
    expect(fact('captured')).toBe(`Captured ${CAPTURER} ${instant(record.dateCaptured)}`);
    expect(fact('reviewed')).toBe(`Reviewed ${REVIEWER} ${instant(record.dateReviewed)}`);
    expect(fact('approved')).toBe(`Approved ${APPROVER} ${instant(record.dateApproved)}`);
    expect(fact('transferred')).toContain(CAPTURER);
    expect(res.body).not.toContain('id="batch-rejected"');
    expect(fact('total-amount')).toBe(`Valid lines ${money(record.totalAmount as number)}`);
    expect(fact('total-fees')).toBe(`Fees ${money(record.totalFees as number)}`);
    expect(fact('total-failed')).toBe(`Failed ${money(record.totalAmountOfFailedEntries as number)}`);
    const byStatus = rows(res.body, 'line-statuses', 'line-status-');
    expect(Object.fromEntries(byStatus.map((r) => [r.id, Number(r.cells.Lines)]))).toEqual({ E: 3, F: 1, R: 1, S: 55 });
  });

  it("lists its lines as E3 does, page by page, with errors and outcomes", async () => {
    const shown = await allPages(`/console/payouts/batches/${bigBatch}`, 'lines-table', 'line-', 'line-results');
    expect(shown.pages).toBe(3);
    const e3 = (
      await api<{
        message: Array<{ lineNumber: number; transactionReferenceNumber: string; beneficiaryName: string; transactionAmount: number; transactionFee: number; transactionStatusName: string; errorMessage: string | null; responseMessage: string | null; connectorName: string }>;
      }>(a, '/disbursements/batch/getTransactions', { batchNumber: bigBatch, pageNumber: 1, numberOfReturnedRows: 100 })
    ).message.sort((x, y) => x.lineNumber - y.lineNumber);
    expect(shown.rows.map((r) => Number(r.id))).toEqual(e3.map((l) => l.lineNumber));
    for (const [i, row] of shown.rows.entries()) {
      const line = e3[i];
      expect(row.cells.Reference).toContain(line.transactionReferenceNumber);
      expect(row.cells.Beneficiary).toContain(line.beneficiaryName);
      expect(row.cells.Amount).toBe(money(line.transactionAmount));
      expect(row.cells.Fee).toBe(money(line.transactionFee));
      expect(row.cells.Status).toBe(line.transactionStatusName);
      expect(row.cells.Connector).toBe(line.connectorName);
      if (line.errorMessage) expect(row.cells.Outcome).toBe(line.errorMessage);
      else if (line.responseMessage) expect(row.cells.Outcome).toContain(line.responseMessage);
    }
    expect(shown.rows.find((r) => r.id === '20')!.cells.Outcome).toBe('A bank account number must have 10 to 16 digits.');
    expect(shown.rows.find((r) => r.id === '59')!.cells.Outcome).toBe('A wallet account must be a 12-digit number starting with 265.');
    expect(shown.rows.find((r) => r.id === '7')!.cells.Status).toBe('Transfer failed');
    expect(shown.rows.find((r) => r.id === '9')!.cells.Status).toBe('Reversed');
  });

  it('searches its lines by beneficiary name, account and reference, and filters by status', async () => {
    const byName = await c.get(`/console/payouts/batches/${bigBatch}?search=nyirenda`);
    expect(rows(byName.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['11']);
    expect(byName.body).toContain('value="nyirenda"');
    const byAccount = await c.get(`/console/payouts/batches/${bigBatch}?search=12345`);
    expect(rows(byAccount.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['20', '40', '59']);
    const reference = rows(byName.body, 'lines-table', 'line-')[0].html.match(/data-reference="([^"]+)"/)?.[1] ?? /<span class="reference">([^<]+)</.exec(byName.body)![1];
    const byReference = await c.get(`/console/payouts/batches/${bigBatch}?search=${encodeURIComponent(reference)}`);
    expect(rows(byReference.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['11']);
    const failed = await c.get(`/console/payouts/batches/${bigBatch}?status=E`);
    expect(rows(failed.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['20', '40', '59']);
    const nothing = await c.get(`/console/payouts/batches/${bigBatch}?search=nobody-by-this-name`);
    expect(nothing.body).toContain('No lines match.');
    // Searching through htmx: the lines region alone, the header not read again.
    const region = await c.get(`/console/payouts/batches/${bigBatch}?search=nyirenda`, { 'hx-request': 'true', 'hx-target': 'line-results' });
    expect(region.body.startsWith('<section class="results" id="line-results"')).toBe(true);
    expect(rows(region.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['11']);
    expect(region.body).not.toContain('batch-facts-title');
  });

  it("answers another merchant's batch, and addresses that are no batch, with the console's 404 page", async () => {
    for (const url of [`/console/payouts/batches/${batchOfB}`, '/console/payouts/batches/99999999', '/console/payouts/batches/abc', '/console/payouts/batches/0', '/console/payouts/batches/99999999999', `/console/payouts/batches/${batchOfB}?search=x`]) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toContain('<h1 id="message-title">Page not found</h1>');
      expect(res.body).toContain('id="signed-in-user"');
    }
    const htmx = await c.get(`/console/payouts/batches/${batchOfB}`, { 'hx-request': 'true', 'hx-target': 'line-results' });
    expect(htmx.statusCode).toBe(404);
  });

  it('shows a batch waiting for review with no reviewer yet', async () => {
    const res = await c.get(`/console/payouts/batches/${smallBatches[5]}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Pending Review');
    expect(res.body).not.toContain('id="batch-reviewed"');
    const rejected = await c.get(`/console/payouts/batches/${smallBatches[0]}`);
    expect(text(/<div class="fact" id="batch-rejected">([\s\S]*?)<\/div>/.exec(rejected.body)![1])).toContain('Reason: Amounts do not match the payroll');
  });
});

describe('single payouts', () => {
  it('lists them as single/getTransactions does, newest first', async () => {
    const shown = await allPages('/console/payouts/single', 'single-table', 'single-', 'single-results');
    const api4 = await api<Array<{ transactionReferenceNumber: string; beneficiaryName: string; transactionAmount: number; transactionFee: number; transactionStatusName: string; dateCreated: string; connectorName: string }>>(
      a,
      '/disbursements/single/getTransactions',
      { pageNumber: 1, numberOfReturnedRows: 100 },
    );
    expect(api4).toHaveLength(4);
    expect(shown.rows.map((r) => r.id)).toEqual(api4.map((p) => p.transactionReferenceNumber));
    for (const [i, row] of shown.rows.entries()) {
      const p = api4[i];
      expect(row.cells.Date).toBe(`${p.dateCreated.slice(0, 10)} ${p.dateCreated.slice(11, 16)} UTC`);
      expect(row.cells.Beneficiary).toContain(p.beneficiaryName);
      expect(row.cells.Amount).toBe(money(p.transactionAmount));
      expect(row.cells.Fee).toBe(money(p.transactionFee));
      expect(row.cells.Status).toContain(p.transactionStatusName);
      expect(row.cells.Connector).toBe(p.connectorName);
    }
    const tab = await c.get('/console/payouts/single');
    expect(tab.body).toMatch(/<a href="\/console\/payouts\/single" aria-current="page" id="tab-single">/);
  });
});

describe('what merchants and their customers typed', () => {
  it('renders a beneficiary named like markup as text on every list', async () => {
    for (const url of [`/console/payouts/batches/${bigBatch}`, `/console/payouts/batches/${bigBatch}?search=${encodeURIComponent('<img')}`, '/console/payouts/single']) {
      const res = await c.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(res.body, url).not.toContain(HOSTILE);
      expect(res.body, url).not.toMatch(/<img/i);
    }
    const searched = await c.get(`/console/payouts/batches/${bigBatch}?search=${encodeURIComponent(HOSTILE)}`);
    expect(searched.body).toContain(`value="&lt;img src=x onerror=alert(1)&gt;"`);
    expect(rows(searched.body, 'lines-table', 'line-').map((r) => r.id)).toEqual(['5']);
  });
});

describe('who may see payouts', () => {
  it('sends a stranger to sign in, keeping the address to come back to', async () => {
    const stranger = new ConsoleClient(t, '10.9.0.2');
    const res = await stranger.get(`/console/payouts/batches/${bigBatch}`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/console/sign-in?from=console&next=${encodeURIComponent(`/console/payouts/batches/${bigBatch}`)}`);
  });

  it('shows the payouts to an initiator', async () => {
    const user = await consoleUser(t, a, { role: 'MERC_INITIATOR' });
    const initiator = new ConsoleClient(t, '10.9.0.3');
    await initiator.signIn(user.email, user.password);
    expect((await initiator.get('/console/payouts')).statusCode).toBe(200);
  });
});

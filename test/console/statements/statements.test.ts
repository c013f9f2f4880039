// The console's statements page and CSV download at the HTTP level, on money moved through the API
// and the real jobs (test/money-ops.ts): the summary against sums over the ledger's own entries and
// the API's balances, the movements paged without gaps, the CSV downloaded through
// /console/statements.csv summing to the balance change, formula cells defused, a 20,000-line
// statement streamed over a real socket in many chunks, a client that goes away mid-download giving
// its pooled connection back, and periods that cannot be shown answered with the form and a message
// (400), never a 500.
import { parse } from 'csv-parse/sync';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser } from '../client.ts';
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, addJson, apiBalances, collectionReference, customPayment, payoutLine, payTimed, requestToPay, runPayouts, topup, validateBatch } from '../../money-ops.ts';

/** A reversal reason a spreadsheet would run as a formula. */
const FORMULA = '=HYPERLINK("http://evil.example","click")';
const BIG_LINES = 20_000;
/** The two tests reading the 20,000-line export (each well under a second when the export is right). */
const BIG_TIMEOUT_MS = 60_000;

let t: TestApp;
let a: TestMerchant;
/** 20,000 movements today. */
let big: TestMerchant;
let c: ConsoleClient;
let bigClient: ConsoleClient;
let origin: string;
let today: string;

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e])
    .replace(/\s+/g, ' ')
    .trim();
const busyClients = () => t.db.totalCount - t.db.idleCount;
const DAY_MS = 86_400_000;
const dayOffset = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
/** "MWK 1,234.50" → 123450 */
const minorOf = (shown: string) => Math.round(Number(shown.replace(/^MWK\s*/, '').replace(/,/g, '')) * 100);

/** The summary as the page shows it: account → the amounts' minor units (data-minor), and the movements. */
function summaryOf(html: string): Record<string, { opening: number; in: number; out: number; closing: number; movements: number }> {
  const out: Record<string, { opening: number; in: number; out: number; closing: number; movements: number }> = {};
  for (const m of html.matchAll(/<tr id="summary-([a-z]+)"[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cell = (label: string) => new RegExp(`data-label="${label}"[^>]*>([\\s\\S]*?)</td>`).exec(m[2])![1];
    out[m[1]] = {
      opening: minorOf(text(cell('Opening balance'))),
      in: minorOf(text(cell('Credits'))),
      out: minorOf(text(cell('Debits'))),
      closing: minorOf(text(cell('Closing balance'))),
      movements: Number(text(cell('Ledger entries'))),
    };
  }
  return out;
}

/** The same figures from the ledger's entries themselves, summed from the beginning (not from the running balances). */
async function ledgerSummary(merchant: number, from: string, to: string) {
  const { rows } = await t.db.query<{ kind: string; opening: number; in_minor: number; out_minor: number; closing: number; movements: number; balance: number }>(
    `select a.kind, a.balance_minor as balance,
            coalesce(sum(e.amount_minor) filter (where e.created_at < $2::date), 0)::bigint as opening,
            coalesce(sum(e.amount_minor) filter (where e.created_at >= $2::date and e.created_at < $3::date + 1 and e.amount_minor > 0), 0)::bigint as in_minor,
            coalesce(-sum(e.amount_minor) filter (where e.created_at >= $2::date and e.created_at < $3::date + 1 and e.amount_minor < 0), 0)::bigint as out_minor,
            coalesce(sum(e.amount_minor) filter (where e.created_at < $3::date + 1), 0)::bigint as closing,
            count(e.entry_id) filter (where e.created_at >= $2::date and e.created_at < $3::date + 1)::bigint as movements
       from ledger_accounts a left join ledger_entries e on e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id
      where a.merchant_account_number = $1
      group by a.kind, a.balance_minor order by a.kind`,
    [merchant, from, to],
  );
  return Object.fromEntries(rows.map((r) => [r.kind, { opening: r.opening, in: r.in_minor, out: r.out_minor, closing: r.closing, movements: r.movements, balance: r.balance }]));
}

interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  chunks: number;
}

/** A GET over a real socket with the client's cookies; the body read to its end, its chunks counted. */
function download(client: ConsoleClient, path: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const req = http.get(`${origin}${path}`, { headers: { cookie }, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8'), chunks: parts.length }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  today = new Date().toISOString().slice(0, 10);
  a = await newMerchant(t, { accountName: 'Chikondi Stores & Sons' });
  big = await newMerchant(t, { accountName: 'Lilongwe Wholesale' });

  // Collections in (payments, a request to pay), one reversed with a formula for a reason; a
  // top-up; a batch paid out with one failure refunded.
  expect((await topup(t, a, 200_000_00)).statusCode).toBe(200);
  const payments: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await customPayment(t, a, 10_000_00 + i * 1_00);
    expect(res.statusCode, res.body).toBe(200);
    payments.push(collectionReference(res));
  }
  const timed = await requestToPay(t, a, 2_500_00);
  expect((await payTimed(t, a, timed, 2_500_00)).statusCode).toBe(200);
  const reversal = await t.app.inject({
    method: 'POST',
    url: `${BASE}/collections/reverse`,
    headers: a.auth,
    payload: { merchantAccountNumber: a.merchantAccountNumber, transactionReferenceNumber: payments[1], reason: FORMULA },
  });
  expect(reversal.statusCode, reversal.body).toBe(200);
  const batch = await addJson(t, a, [1, 2, 3, 4, 5].map((i) => payoutLine({ amountMinor: 3_000_00 + i, channel: i === 2 ? 'bank' : 'wallet', suffix: i === 3 ? '9901' : String(3000 + i) })));
  expect(batch.statusCode, batch.body).toBe(200);
  await validateBatch(t, batch.json().batchNumber);
  expect((await act(t, a, 'transferFunds', batch.json().batchNumber)).statusCode).toBe(200);
  await runPayouts(t, a);

  // 20,000 top-ups of the big merchant, written set-based as ledger_post writes each one (a
  // transfer, its two entries summing to zero, the merchant account's running balance), in one
  // statement: 20,000 ledger_post calls would take seconds.
  await t.db.query(
    `with funding as (
       -- The merchant's own funding account (migration 0029), created as systemAccountId does.
       insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, 'funding', 'MWK') on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning account_id
     ),
     ids as (
       select (select account_id from funding) as funding,
              (select account_id from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement') as disbursement
     ),
     transfers as (
       insert into ledger_transfers (merchant_account_number, transfer_type, reference)
       select $1, 'topup', 'TOP' || lpad(i::text, 6, '0') from generate_series(1, $2::int) as i
       returning transfer_id, 100 + transfer_id % 7 as amount
     ),
     entries as (
       insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor)
       select x.transfer_id, e.account_id, $1, e.amount
         from transfers x, ids, lateral (values (ids.funding, -x.amount), (ids.disbursement, x.amount)) as e(account_id, amount)
       returning amount_minor, account_id
     )
     update ledger_accounts set balance_minor = balance_minor + (select sum(amount_minor) from entries where entries.account_id = ledger_accounts.account_id)
      where account_id = (select disbursement from ids)`,
    [big.merchantAccountNumber, BIG_LINES],
  );
  await t.db.query('analyze ledger_entries; analyze ledger_transfers');

  const user = await consoleUser(t, a, { role: 'MERC_VIEWER' });
  c = new ConsoleClient(t, '10.8.0.1');
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
  const bigUser = await consoleUser(t, big, { role: 'MERC_ADMIN' });
  bigClient = new ConsoleClient(t, '10.8.0.2');
  expect((await bigClient.signIn(bigUser.email, bigUser.password)).statusCode).toBe(303);
}, 180_000);

afterAll(async () => {
  await t?.close();
});

describe('the statements page', () => {
  it('opens on this month so far, with a link to its CSV', async () => {
    const res = await c.get('/console/statements');
    expect(res.statusCode, res.body).toBe(200);
    const monthStart = `${today.slice(0, 8)}01`;
    expect(res.body).toContain(`<input type="date" id="period-from" name="from" value="${monthStart}"`);
    expect(res.body).toContain(`<input type="date" id="period-to" name="to" value="${today}"`);
    expect(res.body).toContain(`href="/console/statements.csv?from=${monthStart}&amp;to=${today}" download id="download-csv"`);
    expect(res.body).toContain('aria-current="page">Statements</a>');
  });

  it("shows opening and closing balances, money in and out per account, equal to the ledger's own sums and the API's balances", async () => {
    for (const [from, to] of [
      [today, today],
      [dayOffset(-40), today],
      [dayOffset(-40), dayOffset(-1)],
      [dayOffset(1), dayOffset(2)],
    ]) {
      const res = await c.get(`/console/statements?from=${from}&to=${to}`);
      expect(res.statusCode, res.body).toBe(200);
      const shown = summaryOf(res.body);
      const ledger = await ledgerSummary(a.merchantAccountNumber, from, to);
      for (const kind of ['collection', 'disbursement'] as const) {
        expect(shown[kind], `${kind} ${from}..${to}`).toEqual({ opening: ledger[kind].opening, in: ledger[kind].in, out: ledger[kind].out, closing: ledger[kind].closing, movements: ledger[kind].movements });
        expect(shown[kind].closing - shown[kind].opening).toBe(shown[kind].in - shown[kind].out);
      }
      expect(shown.account).toEqual({
        opening: shown.collection.opening + shown.disbursement.opening,
        in: shown.collection.in + shown.disbursement.in,
        out: shown.collection.out + shown.disbursement.out,
        closing: shown.collection.closing + shown.disbursement.closing,
        movements: shown.collection.movements + shown.disbursement.movements,
      });
    }
    // Up to today, the closing balances are the balances the API reports.
    const api = await apiBalances(t, a);
    const shown = summaryOf((await c.get(`/console/statements?from=${today}&to=${today}`)).body);
    expect(shown.collection.closing).toBe(api.collectionMinor);
    expect(shown.disbursement.closing).toBe(api.disbursementMinor);
    expect(shown.collection.in).toBeGreaterThan(0);
    expect(shown.disbursement.out).toBeGreaterThan(0);
  });

  it('lists every movement of the period once, page by page, through htmx too', async () => {
    const ledger = await ledgerSummary(big.merchantAccountNumber, today, today);
    // The first page, then 4 more through the pager (htmx swaps), then a count of the rest's pages.
    let res = await bigClient.get(`/console/statements?from=${today}&to=${today}`);
    const seen = new Set<string>();
    // A top-up is one line: line-<entry>-<seq>.
    const ids = (html: string) => [...html.matchAll(/<tr id="line-(\d+)-\d+"/g)].map((m) => m[1]);
    for (const id of ids(res.body)) seen.add(id);
    for (let i = 0; i < 4; i++) {
      const next = /href="([^"]+)"[^>]*id="movement-results-next"/.exec(res.body)![1].replace(/&amp;/g, '&');
      res = await bigClient.get(next, { 'hx-request': 'true', 'hx-target': 'movement-results' });
      expect(res.statusCode).toBe(200);
      expect(res.body.startsWith('<section class="results" id="movement-results"')).toBe(true);
      for (const id of ids(res.body)) {
        expect(seen.has(id), `entry ${id} shown twice`).toBe(false);
        seen.add(id);
      }
    }
    expect(seen.size).toBe(125);
    const { rows } = await t.db.query<{ entry_id: string }>(
      `select e.entry_id::text from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
        where a.merchant_account_number = $1 and not a.is_system order by e.created_at, e.entry_id limit 125`,
      [big.merchantAccountNumber],
    );
    expect([...seen]).toEqual(rows.map((r) => r.entry_id));
    expect(ledger.disbursement.movements).toBe(BIG_LINES);
  });

  it("names the lines' types and keeps typed notes as text", async () => {
    const res = await c.get(`/console/statements?from=${today}&to=${today}`);
    const body = text(res.body);
    for (const type of ['Top-up', 'Collection', 'Collection fee', 'Reversal', 'Collection fee refunded', 'Payout', 'Payout fee', 'Failed payout refunded', 'Payout fee refunded']) expect(body).toContain(type);
    expect(body).toContain(FORMULA);
    expect(res.body).toContain('=HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;)');
  });

  it('is in Chichewa too', async () => {
    const res = await c.get(`/console/statements?from=${today}&to=${today}&lang=ny`);
    expect(res.body).toContain('<h1>Masitetimenti</h1>');
    expect(res.body).toContain('Ndalama zoyambira');
    expect(res.body).toContain('Tsitsani CSV');
    await c.get('/console/statements?lang=en');
  });
});

describe('periods that cannot be shown', () => {
  it('re-shows the form with what was typed and a message, as a 400, for the page and the CSV', async () => {
    const cases: Array<[string, string, string]> = [
      ['2025-13-01', today, 'The first day is not a date: write it as YYYY-MM-DD.'],
      ['2025-02-30', today, 'The first day is not a date: write it as YYYY-MM-DD.'],
      [today, 'tomorrow', 'The last day is not a date: write it as YYYY-MM-DD.'],
      ['', today, 'The first day is not a date: write it as YYYY-MM-DD.'],
      ['2025-06-02', '2025-06-01', 'The first day (2025-06-02) is after the last day (2025-06-01).'],
      ['2020-01-01', '2025-01-01', 'The period covers 1828 days; at most 366 are allowed.'],
      ['<script>x', today, 'The first day is not a date: write it as YYYY-MM-DD.'],
    ];
    for (const path of ['/console/statements', '/console/statements.csv']) {
      for (const [from, to, message] of cases) {
        const url = `${path}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
        const res = await c.get(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
        expect(res.headers['content-disposition'], url).toBeUndefined();
        expect(text(/<p class="alert alert-error field-full" id="period-error" role="alert">([\s\S]*?)<\/p>/.exec(res.body)?.[1] ?? ''), url).toBe(message);
        expect(res.body).not.toContain('id="summary-table"');
        expect(res.body).not.toContain('<script>x');
        expect(res.body).toContain('aria-invalid="true"');
      }
    }
    const typed = await c.get('/console/statements?from=%3Cscript%3Ex&to=2025-01-01');
    expect(typed.body).toContain('value="&lt;script&gt;x"');
    const ny = await c.get('/console/statements?from=2025-06-02&to=2025-06-01&lang=ny');
    expect(ny.statusCode).toBe(400);
    expect(ny.body).toContain('Tsiku loyamba (2025-06-02) lili pambuyo pa tsiku lomaliza (2025-06-01).');
    await c.get('/console/statements?lang=en');
  });

  it('refuses a cursor of another period with a 400 page', async () => {
    const first = await bigClient.get(`/console/statements?from=${today}&to=${today}`);
    const after = new URL(/href="([^"]+)"[^>]*id="movement-results-next"/.exec(first.body)![1].replace(/&amp;/g, '&'), 'http://x').searchParams.get('after')!;
    const res = await bigClient.get(`/console/statements?from=${dayOffset(-1)}&to=${today}&after=${after}`);
    expect(res.statusCode).toBe(400);
  });
});

describe('the CSV download', () => {
  it('is the period as CSV: a named attachment, opening and closing rows around every line, amounts summing to the balance change, formulas defused', async () => {
    const summary = await ledgerSummary(a.merchantAccountNumber, today, today);
    const res = await download(c, `/console/statements.csv?from=${today}&to=${today}`);
    expect(res.status, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-${a.merchantAccountNumber}-chikondi-stores-sons-${today}-to-${today}.csv"`);
    expect(res.headers['cache-control']).toBe('no-store');
    const all = parse(res.body, { columns: true }) as Array<Record<'date' | 'type_code' | 'type' | 'transfer_type' | 'account' | 'counterparty' | 'reference' | 'amount' | 'balance' | 'account_balance' | 'note', string>>;
    expect([all[0].type_code, all.at(-1)!.type_code]).toEqual(['opening_balance', 'closing_balance']);
    expect(Number(all[0].balance.replace('.', ''))).toBe(summary.collection.opening + summary.disbursement.opening);
    expect(Number(all.at(-1)!.balance.replace('.', ''))).toBe(summary.collection.closing + summary.disbursement.closing);
    const records = all.slice(1, -1);
    // Each entry is one line or more (a collection and its fee, each payee of a batch).
    expect(records.length).toBeGreaterThan(summary.collection.movements + summary.disbursement.movements);
    for (const account of ['collection', 'disbursement'] as const) {
      const mine = records.filter((r) => r.account === account);
      // Exact: minor units from the text, never float sums.
      const sum = mine.reduce((acc, r) => acc + Number(r.amount.replace('.', '')), 0);
      expect(sum, account).toBe(summary[account].closing - summary[account].opening);
      expect(Number(mine[mine.length - 1].account_balance.replace('.', ''))).toBe(summary[account].closing);
    }
    // CSV injection: the reversal's reason starts with "=": its cell starts with a quote; no text
    // cell starts with = + - or @; amounts are plain numbers.
    const reversal = records.find((r) => r.transfer_type === 'reversal')!;
    expect(reversal.note).toBe(`'${FORMULA}`);
    for (const r of records) {
      for (const column of ['date', 'type_code', 'type', 'counterparty', 'reference', 'account', 'note'] as const) expect(r[column], column).not.toMatch(/^[=+\-@\t\r]/);
      expect(r.amount).toMatch(/^-?\d+\.\d{2}$/);
      expect(r.balance).toMatch(/^\d+\.\d{2}$/);
      expect(r.account_balance).toMatch(/^\d+\.\d{2}$/);
    }
    await until('export connection released', async () => busyClients() === 0, 5000, 20);
  });

  it('streams a statement of 20,000 lines in many chunks, never one buffer', async () => {
    const res = await download(bigClient, `/console/statements.csv?from=${today}&to=${today}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.chunks, `${res.body.length} bytes in ${res.chunks} chunks`).toBeGreaterThan(5);
    const lines = res.body.trimEnd().split('\n');
    // The header, the opening row, a line per top-up, the closing row.
    expect(lines).toHaveLength(BIG_LINES + 3);
    const records = parse(res.body, { columns: true }) as Array<{ amount: string; account: string }>;
    const sum = records.reduce((acc, r) => acc + Number(r.amount.replace('.', '')), 0);
    const ledger = await ledgerSummary(big.merchantAccountNumber, today, today);
    expect(sum).toBe(ledger.disbursement.closing - ledger.disbursement.opening);
    await until('export connection released', async () => busyClients() === 0, 5000, 20);
  }, BIG_TIMEOUT_MS);

  it('gives its pooled connection back when the client goes away mid-download', async () => {
    const before = t.db.totalCount;
    // A connection given back with an error is closed and removed from the pool (one that finished
    // its export would go back idle): the removal says the export was cut short, not completed.
    let removed = 0;
    const onRemove = () => removed++;
    t.db.on('remove', onRemove);
    await new Promise<void>((resolve, reject) => {
      const cookie = [...bigClient.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const req = http.get(`${origin}/console/statements.csv?from=${today}&to=${today}`, { headers: { cookie }, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          // Gone after the first chunk: the rest of the 20,000 lines are never read.
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    });
    await until('export connection released', async () => busyClients() === 0, 5000, 20, () => `total ${t.db.totalCount}, idle ${t.db.idleCount}, before ${before}`);
    await until('export connection closed', async () => removed === 1, 5000, 20);
    t.db.off('remove', onRemove);
    // No export is left running on the server either.
    await until(
      'COPY ended on the server',
      async () => (await t.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'copy (%' and state <> 'idle'`)).rows[0].n === 0,
      5000,
      50,
    );
    // The pool still works, and the page with it.
    expect((await c.get(`/console/statements?from=${today}&to=${today}`)).statusCode).toBe(200);
  }, BIG_TIMEOUT_MS);
  it('stops the export of a client gone before its first row, and answers nothing', async () => {
    // The export waits behind a lock held here: its first row cannot come before the client leaves.
    const locker = await t.db.connect();
    let removed = 0;
    const onRemove = () => removed++;
    t.db.on('remove', onRemove);
    try {
      await locker.query('begin; lock table ledger_transfers in access exclusive mode');
      const cookie = [...bigClient.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      let answered = false;
      const req = http.get(`${origin}/console/statements.csv?from=${today}&to=${today}`, { headers: { cookie }, agent: false }, () => (answered = true));
      req.on('error', () => undefined);
      const waiting = async () =>
        (await t.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'copy (%' and wait_event_type = 'Lock'`)).rows[0].n === 1;
      await until('export waiting for the lock', waiting, 5000, 20);
      req.destroy();
      // Closed while still waiting: the lock is still held.
      await until('export connection closed', async () => removed === 1, 5000, 20);
      expect(answered).toBe(false);
    } finally {
      await locker.query('rollback');
      locker.release();
      t.db.off('remove', onRemove);
    }
    await until('no connection checked out', async () => busyClients() === 0, 5000, 20);
    // Its server process, which only learns of the closed connection once the lock lets it run, ends.
    await until(
      'COPY ended on the server',
      async () => (await t.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'copy (%' and state <> 'idle'`)).rows[0].n === 0,
      5000,
      50,
    );
    expect((await download(bigClient, `/console/statements.csv?from=${today}&to=${today}`)).status).toBe(200);
  }, BIG_TIMEOUT_MS);
});

describe('who may see statements', () => {
  it('refuses an initiator the page and the CSV (403), and sends a stranger to sign in', async () => {
    const user = await consoleUser(t, a, { role: 'MERC_INITIATOR' });
    const initiator = new ConsoleClient(t, '10.8.0.3');
    await initiator.signIn(user.email, user.password);
    for (const url of ['/console/statements', `/console/statements.csv?from=${today}&to=${today}`]) {
      const res = await initiator.get(url);
      expect(res.statusCode, url).toBe(403);
      expect(res.body).toContain('Not open to your role');
      expect(res.headers['content-disposition']).toBeUndefined();
    }
    const home = await initiator.get('/console');
    expect(home.body).not.toContain('href="/console/statements"');
    const stranger = new ConsoleClient(t, '10.8.0.4');
    const res = await stranger.get(`/console/statements.csv?from=${today}&to=${today}`);
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toContain('/console/sign-in?from=console');
  });
});

// A statement a bookkeeper can reconcile (issue 27): opening and closing balance, one line per
// movement (each payee of a batch, each fee on its own line, failed and reversed payouts given
// back line by line), readable types, counterparties, references and a running balance, on the
// page (paged) and in the CSV. Every figure is held against sums computed here straight from the
// ledger's entries (and, for the split of a batch, from the payouts the batch debited).
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser } from '../client.ts';
import { newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../../helpers.ts';
import {
  act,
  addJson,
  collectionReference,
  customPayment,
  paidSinglePayout,
  payoutFee,
  payoutLine,
  payTimed,
  requestToPay,
  reverseCollection,
  runPayouts,
  topup,
  validateBatch,
} from '../../money-ops.ts';
import { statementRows, STATEMENT_COLUMNS } from '../../../src/modules/ledger/statements.ts';
import { statementTypeNames } from '../../../src/modules/console/statements/texts.ts';

let t: TestApp;
let m: TestMerchant;
let c: ConsoleClient;
let today: string;
let batchNumber: number;
const BATCH = [
  { name: 'Tiyamike Phiri', amountMinor: 12_000_00, channel: 'wallet', suffix: '3001' },
  { name: 'Chisomo Banda', amountMinor: 8_500_50, channel: 'bank', suffix: '3002' },
  { name: 'Kondwani Mwale', amountMinor: 4_000_00, channel: 'wallet', suffix: '9901' }, // fails: refunded
  { name: 'Thoko Nkhoma', amountMinor: 3_100_00, channel: 'wallet', suffix: '9905' }, // paid, then reversed
] as const;

type CsvRecord = Record<(typeof STATEMENT_COLUMNS)[number]['key'], string>;
const minor = (major: string) => (major === '' ? 0 : Math.round(Number(major) * 100));

/** The merchant's ledger, straight from its entries: balances at the period's bounds, and each transfer's sum on the merchant's accounts. */
async function ledgerFigures(merchant: number, from: string, to: string) {
  const { rows } = await t.db.query<{ opening: string; closing: string }>(
    `select coalesce(sum(e.amount_minor) filter (where e.created_at < $2::date::timestamp at time zone 'UTC'), 0)::text as opening,
            coalesce(sum(e.amount_minor) filter (where e.created_at < ($3::date + 1)::timestamp at time zone 'UTC'), 0)::text as closing
       from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
      where a.merchant_account_number = $1 and a.kind in ('collection', 'disbursement')`,
    [merchant, from, to],
  );
  const transfers = await t.db.query<{ reference: string; transfer_type: string; sum: string }>(
    `select t.reference, t.transfer_type, sum(e.amount_minor)::text as sum
       from ledger_entries e join ledger_accounts a on a.account_id = e.account_id join ledger_transfers t on t.transfer_id = e.transfer_id
      where a.merchant_account_number = $1 and a.kind in ('collection', 'disbursement')
        and e.created_at >= $2::date::timestamp at time zone 'UTC' and e.created_at < ($3::date + 1)::timestamp at time zone 'UTC'
      group by t.transfer_id, t.reference, t.transfer_type`,
    [merchant, from, to],
  );
  const byReference = new Map<string, number>();
  for (const r of transfers.rows) byReference.set(`${r.transfer_type} ${r.reference}`, (byReference.get(`${r.transfer_type} ${r.reference}`) ?? 0) + Number(r.sum));
  return { opening: Number(rows[0].opening), closing: Number(rows[0].closing), byReference, transfers: transfers.rows };
}

/** The movements' rows of one page as shown: data attributes of each row. */
function pageLines(html: string) {
  return [...html.matchAll(/<tr id="line-([^"]+)" data-type="([a-z_]+)" data-amount-minor="(-?\d+)" data-balance-minor="(-?\d+)"/g)].map((x) => ({
    key: x[1],
    type: x[2],
    amountMinor: Number(x[3]),
    balanceMinor: Number(x[4]),
  }));
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  today = new Date().toISOString().slice(0, 10);
  m = await newMerchant(t, { accountName: 'Mzuzu Hardware' });
  expect((await topup(t, m, 100_000_00)).statusCode).toBe(200);
  const paid: string[] = [];
  for (const amount of [15_000_00, 7_250_75]) {
    const res = await customPayment(t, m, amount);
    expect(res.statusCode, res.body).toBe(200);
    paid.push(collectionReference(res));
  }
  const timed = await requestToPay(t, m, 2_500_00);
  expect((await payTimed(t, m, timed, 2_500_00)).statusCode).toBe(200);
  expect((await reverseCollection(t, m, paid[1])).statusCode).toBe(200);
  const batch = await addJson(t, m, BATCH.map((b) => ({ ...payoutLine({ amountMinor: b.amountMinor, channel: b.channel, suffix: b.suffix }), beneficiaryName: b.name })));
  expect(batch.statusCode, batch.body).toBe(200);
  batchNumber = batch.json().batchNumber;
  await validateBatch(t, batchNumber);
  expect((await act(t, m, 'transferFunds', batchNumber)).statusCode).toBe(200);
  // A second batch of 8 payees: the statement runs past a page, and a page ends inside a batch.
  const second = await addJson(t, m, [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ ...payoutLine({ amountMinor: 1_000_00 + i, channel: 'wallet', suffix: String(5000 + i) }), beneficiaryName: `Payee ${i}` })));
  expect(second.statusCode, second.body).toBe(200);
  await validateBatch(t, second.json().batchNumber);
  expect((await act(t, m, 'transferFunds', second.json().batchNumber)).statusCode).toBe(200);
  const single = await paidSinglePayout(t, m, { ...payoutLine({ amountMinor: 5_000_00, channel: 'wallet', suffix: '4001' }), beneficiaryName: 'Grace Kaunda' });
  expect(single.statusCode, single.body).toBe(200);
  await runPayouts(t, m);
  const user = await consoleUser(t, m, { role: 'MERC_VIEWER' });
  c = new ConsoleClient(t, '10.9.0.1');
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('a statement a bookkeeper can reconcile', () => {
  it('CSV: opening row, one line per movement with fees apart, closing row; every sum equal to the ledger', async () => {
    const ledger = await ledgerFigures(m.merchantAccountNumber, today, today);
    const res = await c.get(`/console/statements.csv?from=${today}&to=${today}`);
    expect(res.statusCode, res.body).toBe(200);
    const header = res.body.split('\n')[0];
    expect(header).toBe(STATEMENT_COLUMNS.map((col) => col.key).join(','));
    const records = parse(res.body, { columns: true }) as CsvRecord[];
    const first = records[0];
    const last = records[records.length - 1];
    expect(first.type_code).toBe('opening_balance');
    expect(first.type).toBe('Opening balance');
    expect(minor(first.balance)).toBe(ledger.opening);
    expect(last.type_code).toBe('closing_balance');
    expect(minor(last.balance)).toBe(ledger.closing);
    const lines = records.slice(1, -1);
    // The running balance: each line's balance is the one before plus its amount.
    let balance = ledger.opening;
    for (const line of lines) {
      balance += minor(line.amount);
      expect(minor(line.balance), JSON.stringify(line)).toBe(balance);
    }
    expect(balance).toBe(ledger.closing);
    // Each ledger transfer is exactly the sum of its lines.
    const byTransfer = new Map<string, number>();
    for (const line of lines) byTransfer.set(`${line.transfer_type} ${line.reference}`, (byTransfer.get(`${line.transfer_type} ${line.reference}`) ?? 0) + minor(line.amount));
    expect(byTransfer).toEqual(ledger.byReference);

    // The batch: one line per payee and one fee line per payee, named, with the account paid.
    const debit = lines.filter((l) => l.reference === `B${batchNumber}` && l.transfer_type === 'payout_debit');
    expect(debit.filter((l) => l.type_code === 'payout').map((l) => [l.counterparty, minor(l.amount)])).toEqual(BATCH.map((b) => [b.name, -b.amountMinor]));
    expect(debit.filter((l) => l.type_code === 'payout_fee').map((l) => [l.counterparty, minor(l.amount)])).toEqual(BATCH.map((b) => [b.name, -payoutFee(b)]));
    for (const l of debit) expect(l.counterparty_account).toMatch(/^\d+$/);
    expect(debit.every((l) => l.type === (l.type_code === 'payout' ? 'Payout' : 'Payout fee'))).toBe(true);
    // The failed payee's money and fee back, the reversed payee's amount back, each by name.
    const failed = BATCH[2];
    expect(lines.filter((l) => l.type_code === 'payout_refund').map((l) => [l.counterparty, minor(l.amount)])).toEqual([[failed.name, failed.amountMinor]]);
    expect(lines.filter((l) => l.type_code === 'payout_fee_refund').map((l) => [l.counterparty, minor(l.amount)])).toEqual([[failed.name, payoutFee(failed)]]);
    expect(lines.filter((l) => l.type_code === 'payout_reversal').map((l) => [l.counterparty, minor(l.amount)])).toEqual([[BATCH[3].name, BATCH[3].amountMinor]]);
    // The single payout, its fee apart.
    expect(lines.filter((l) => l.counterparty === 'Grace Kaunda').map((l) => [l.type_code, minor(l.amount)])).toEqual([
      ['payout', -5_000_00],
      ['payout_fee', -payoutFee({ amountMinor: 5_000_00, channel: 'wallet' })],
    ]);
    // Collections gross, their fees apart, the reversal and its fee refund; the payer named.
    const collections = lines.filter((l) => l.type_code === 'collection');
    expect(collections.map((l) => minor(l.amount))).toEqual([15_000_00, 7_250_75, 2_500_00]);
    for (const l of collections) expect(l.counterparty).not.toBe('');
    expect(lines.filter((l) => l.type_code === 'collection_fee')).toHaveLength(3);
    expect(lines.filter((l) => l.type_code === 'collection_reversal').map((l) => minor(l.amount))).toEqual([-7_250_75]);
    expect(lines.filter((l) => l.type_code === 'collection_fee_refund')).toHaveLength(1);
    expect(lines.filter((l) => l.type_code === 'topup').map((l) => minor(l.amount))).toEqual([100_000_00]);
  });

  it('page: the same opening, closing and totals, the same lines and running balances across pages', async () => {
    const ledger = await ledgerFigures(m.merchantAccountNumber, today, today);
    const csv = parse((await c.get(`/console/statements.csv?from=${today}&to=${today}`)).body, { columns: true }) as CsvRecord[];
    const csvLines = csv.slice(1, -1);
    let res = await c.get(`/console/statements?from=${today}&to=${today}`);
    expect(res.statusCode).toBe(200);
    const totals = (name: string) => Number(new RegExp(`id="total-${name}"[^>]*data-minor="(-?\\d+)"`).exec(res.body)?.[1]);
    expect(totals('opening')).toBe(ledger.opening);
    expect(totals('closing')).toBe(ledger.closing);
    const amounts = csvLines.map((l) => minor(l.amount));
    const isFee = (l: CsvRecord) => l.type_code.includes('fee');
    expect(totals('in')).toBe(csvLines.filter((l) => !isFee(l) && minor(l.amount) > 0).reduce((s, l) => s + minor(l.amount), 0));
    expect(totals('out')).toBe(-csvLines.filter((l) => !isFee(l) && minor(l.amount) < 0).reduce((s, l) => s + minor(l.amount), 0));
    expect(totals('fees')).toBe(-csvLines.filter(isFee).reduce((s, l) => s + minor(l.amount), 0));
    expect(totals('closing') - totals('opening')).toBe(totals('in') - totals('out') - totals('fees'));
    expect(totals('closing') - totals('opening')).toBe(amounts.reduce((s, a) => s + a, 0));
    // Page by page (at most 25 lines a page; this statement has more), the same lines in the same order.
    const shown = pageLines(res.body);
    for (let i = 0; i < 10; i++) {
      const next = /href="([^"]+)"[^>]*id="movement-results-next"/.exec(res.body);
      if (!next) break;
      res = await c.get(next[1].replace(/&amp;/g, '&'), { 'hx-request': 'true', 'hx-target': 'movement-results' });
      expect(res.statusCode).toBe(200);
      shown.push(...pageLines(res.body));
    }
    expect(csvLines.length).toBeGreaterThan(25);
    expect(shown.map((l) => [l.type, l.amountMinor, l.balanceMinor])).toEqual(csvLines.map((l) => [l.type_code, minor(l.amount), minor(l.balance)]));
    expect(new Set(shown.map((l) => l.key)).size).toBe(shown.length);
    // The first page ends inside the second batch's entry: the next page carries its balance on.
    expect(shown[24].key.split('-')[0]).toBe(shown[25].key.split('-')[0]);
    // Readable types and counterparties.
    const first = await c.get(`/console/statements?from=${today}&to=${today}`);
    for (const name of ['Payout', 'Payout fee', 'Collection', 'Collection fee', 'Top-up', 'Tiyamike Phiri']) expect(first.body).toContain(name);
  });

  it('gives the same rows as an async iterable of arrays of values, columns defined once', async () => {
    const csv = parse((await c.get(`/console/statements.csv?from=${today}&to=${today}`)).body, { columns: false }) as string[][];
    const rows: string[][] = [];
    // The values as they are (an exporter formats them): here formatted as the CSV does, to compare.
    const cellText = (cell: string | Date | number | null, kind: string) =>
      cell === null ? '' : kind === 'amount' ? (Number(cell) / 100).toFixed(2) : kind === 'date' ? (cell as Date).toISOString().replace(/\.\d{3}Z$/, 'Z') : /^[-=+@\t\r]/.test(String(cell)) ? `'${cell}` : String(cell);
    for await (const row of statementRows(t.db, m.merchantAccountNumber, today, today, { typeNames: statementTypeNames('en') })) {
      expect(row).toHaveLength(STATEMENT_COLUMNS.length);
      rows.push(row.map((cell, i) => cellText(cell, STATEMENT_COLUMNS[i].kind)));
    }
    expect([STATEMENT_COLUMNS.map((col) => col.key), ...rows]).toEqual(csv);
    // Leaving early gives the connection back.
    for await (const row of statementRows(t.db, m.merchantAccountNumber, today, today)) if (row) break;
    await until('rows connection given back', async () => t.db.totalCount - t.db.idleCount === 0, 5000, 20);
  });

  it('downloads the same rows as an Excel workbook: amounts as numbers, text never a formula', async () => {
    const csv = parse((await c.get(`/console/statements.csv?from=${today}&to=${today}`)).body, { columns: false }) as string[][];
    const res = await c.get(`/console/statements.xlsx?from=${today}&to=${today}`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename="statement-\d+-[a-z0-9-]+-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet: unknown[][] = [];
    workbook.worksheets[0].eachRow({ includeEmpty: true }, (row) => sheet.push(Array.from({ length: STATEMENT_COLUMNS.length }, (_, i) => row.getCell(i + 1).value)));
    expect(sheet).toHaveLength(csv.length);
    expect(sheet[0]).toEqual(csv[0]);
    const amount = csv[0].indexOf('amount');
    const date = csv[0].indexOf('date');
    for (let i = 1; i < csv.length; i += 1) {
      const cells = sheet[i];
      expect(cells[amount] === null ? '' : (cells[amount] as number).toFixed(2)).toBe(csv[i][amount]);
      // Instants as ISO 8601 UTC text, as in every export (kit/exports.ts): unambiguous, and it sorts.
      expect(cells[date]).toBe(csv[i][date]);
      // Text cells hold the text itself (the CSV guards a leading = + - @ with a quote; a workbook's string cell needs none).
      expect(String(cells[csv[0].indexOf('type')])).toBe(csv[i][csv[0].indexOf('type')]);
    }
    // A period the form refuses is the page again, not a file.
    expect((await c.get(`/console/statements.xlsx?from=${today}&to=2000-01-01`)).statusCode).toBe(400);
  });

  it('names the types in Chichewa too', async () => {
    const res = await c.get(`/console/statements.csv?from=${today}&to=${today}&lang=ny`);
    const records = parse(res.body, { columns: true }) as CsvRecord[];
    expect(records[0].type).not.toBe('Opening balance');
    expect(records.find((r) => r.type_code === 'payout')!.type).not.toBe('Payout');
    await c.get('/console/statements?lang=en');
  });
});

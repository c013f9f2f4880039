// Payout file uploads from the console and its live batch page, over HTTP against a real database
// (the jobs called directly, as test/money-ops.ts does), with the batch body limit lowered to
// 64 KiB so that "too large" is cheap to reach.
//   - the form, for the roles that capture; a viewer gets 403 and no link, and a forged upload of
//     theirs is refused; without a session the body is not read (sign-in);
//   - a CSV and an XLSX with good and bad lines: one batch each, captured by the signed-in user,
//     queued, with its audit entry; validated, its page names the invalid lines with their reasons
//     and links the error workbook, whose rows are those lines (another merchant: 404; still
//     queued: 409 with the way back);
//   - refused files re-show the form with a message per field or per line, in the user's language:
//     rows that break the line schema, too large (413), the wrong type (415), none, empty, a bad or
//     past date; nothing is stored;
//   - the same form sent twice (one after the other, and at once): one batch, one audit entry;
//   - the events of a batch over a real port: the state on opening, an event for each change
//     while its payouts complete, the end at a final state; another merchant's batch 404; at most
//     four streams per session (429); streams end at shutdown and the drain does not wait for them.
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type net from 'node:net';
import { cookieNames, parseSessionCookie } from '../../../src/modules/console/kit/cookies.ts';
import { liveKey, watchedBatches } from '../../../src/modules/console/payouts/upload-queries.ts';
import { LiveBatches } from '../../../src/modules/console/payouts/live-batch.ts';
import { ConsoleClient, consoleUser, INJECT_ORIGIN, textOf, type ConsoleUserInfo, type Page } from '../client.ts';
import { listen } from '../../browser-kit.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, AIRTEL, apiBalances, runPayouts, topup, validateBatch } from '../../money-ops.ts';
import { verifyLedger } from '../../../src/modules/ledger/verify.ts';

const LIMIT = 64 * 1024;
const HEADER = ['beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber'];
const UPLOAD = '/console/payouts/upload';
const batchUrl = (n: number) => `/console/payouts/batches/${n}`;

let t: TestApp;
let origin: string;
/** Level 1: a validated batch goes straight to funds transfer. */
let m: TestMerchant;
let other: TestMerchant;
let initiator: ConsoleUserInfo;
let viewer: ConsoleUserInfo;
let admin: ConsoleUserInfo;
let otherAdmin: ConsoleUserInfo;
const clients: Record<'initiator' | 'viewer' | 'admin' | 'otherAdmin', ConsoleClient> = {} as never;

let seq = 0;
const reference = () => `UP-${Date.now().toString(36)}-${++seq}`;

/** Rows of a payout file: `good` valid lines, then an unknown connector and a wallet number too short (valid for the schema, refused by validation). */
function payoutRows(good: number): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = [];
  for (let i = 0; i < good; i++) rows.push([`Chisomo Banda ${i}`, AIRTEL, 265991234560 + i, 'Salary', 1500 + i, reference()]);
  rows.push(['Unknown Connector', 999999, 265991234567, 'Salary', 100, reference()]);
  rows.push(['Short Wallet', AIRTEL, 999, 'Salary', 100, reference()]);
  return rows;
}

function csvOf(rows: Array<Array<string | number>>): Buffer {
  return Buffer.from([HEADER.join(','), ...rows.map((r) => r.join(','))].join('\r\n') + '\r\n');
}

async function xlsxOf(rows: Array<Array<string | number>>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Payouts');
  sheet.addRow(HEADER);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The page's form key (_form). */
function formKeyOf(html: string): string {
  const key = /name="_form" value="([^"]+)"/.exec(html)?.[1];
  if (!key) throw new Error('no form key on the page');
  return key;
}

interface FilePart {
  name: string;
  type: string;
  bytes: Buffer;
}

/** A multipart/form-data body as a browser's FormData sends it: the fields first, then the file. */
async function multipart(fields: Record<string, string>, file?: FilePart): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

const cookieOf = (c: ConsoleClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

/** Posts the upload form as `c` (its session and CSRF token, this origin); `fields` adds to or replaces the form's. */
async function upload(c: ConsoleClient, file: FilePart | undefined, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Page> {
  const form = await c.get(UPLOAD);
  const formKey = form.statusCode === 200 ? formKeyOf(form.body) : '00000000-0000-4000-8000-000000000000';
  return send(c, { _csrf: c.csrf, _form: formKey, ...fields }, file, headers);
}

async function send(c: ConsoleClient, fields: Record<string, string>, file?: FilePart, headers: Record<string, string> = {}): Promise<Page> {
  const { payload, contentType } = await multipart(fields, file);
  return t.app.inject({ method: 'POST', url: UPLOAD, payload, headers: { 'content-type': contentType, cookie: cookieOf(c), origin: INJECT_ORIGIN, ...headers } });
}

async function batchesOf(merchant: TestMerchant): Promise<Array<{ batch_number: number; captured_by: string; status_code: string; upload_type: string; number_of_entries: number; scheduled_date: string | null }>> {
  const { rows } = await t.db.query(
    `select batch_number, captured_by, status_code, upload_type, number_of_entries, to_char(scheduled_date, 'YYYY-MM-DD') as scheduled_date
       from batches where merchant_account_number = $1 order by batch_number`,
    [merchant.merchantAccountNumber],
  );
  return rows;
}

const batchOfLocation = (location: unknown) => Number(/\/console\/payouts\/batches\/(\d+)\?notice=notice\.payoutActions\.uploaded$/.exec(String(location))?.[1]);

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' }, { batchBodyLimitBytes: LIMIT });
  origin = await listen(t);
  m = await newMerchant(t, { accountName: 'Mphatso Hardware', levelNumber: 1 });
  other = await newMerchant(t, { accountName: 'Other Shop', levelNumber: 1 });
  expect((await topup(t, m, 5_000_000_00)).statusCode).toBe(200);
  initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR', firstName: 'Chimwemwe' });
  viewer = await consoleUser(t, m, { role: 'MERC_VIEWER' });
  admin = await consoleUser(t, m, { role: 'MERC_ADMIN' });
  otherAdmin = await consoleUser(t, other, { role: 'MERC_ADMIN' });
  for (const [who, user, ip] of [
    ['initiator', initiator, '10.9.0.1'],
    ['viewer', viewer, '10.9.0.2'],
    ['admin', admin, '10.9.0.3'],
    ['otherAdmin', otherAdmin, '10.9.0.4'],
  ] as const) {
    const c = new ConsoleClient(t, ip);
    expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
    clients[who] = c;
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the upload form', () => {
  it('is offered to the roles that capture payouts; a viewer gets 403, no link, and a forged upload of theirs is refused', async () => {
    const list = await clients.initiator.get('/console/payouts');
    expect(list.body).toContain(`href="${UPLOAD}"`);
    const form = await clients.initiator.get(UPLOAD);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('enctype="multipart/form-data"');
    expect(form.body).toMatch(/<input type="file" name="file"|<input id="upload-file" name="file" type="file"/);
    // The CSRF token and the form key come before the file in the form (a plain POST sends them first).
    expect(form.body.indexOf('name="_csrf"')).toBeLessThan(form.body.indexOf('name="file"'));
    expect(form.body.indexOf('name="_form"')).toBeLessThan(form.body.indexOf('name="file"'));

    expect((await clients.viewer.get('/console/payouts')).body).not.toContain(`href="${UPLOAD}"`);
    const refused = await clients.viewer.get(UPLOAD);
    expect(refused.statusCode).toBe(403);
    const before = await batchesOf(m);
    await clients.viewer.get('/console/payouts');
    const forged = await send(clients.viewer, { _csrf: clients.viewer.csrf, _form: crypto.randomUUID() }, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) });
    expect(forged.statusCode).toBe(403);
    expect(await batchesOf(m)).toEqual(before);
  });

  it('sends a request without a session to sign in before reading its body, and refuses one without the CSRF token', async () => {
    const { payload, contentType } = await multipart({ _form: crypto.randomUUID() }, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) });
    const anonymous = await t.app.inject({ method: 'POST', url: UPLOAD, payload, headers: { 'content-type': contentType, origin: INJECT_ORIGIN } });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toMatch(/^\/console\/sign-in\?/);
    const before = await batchesOf(m);
    const noToken = await upload(clients.initiator, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) }, { _csrf: '' });
    expect(noToken.statusCode).toBe(403);
    const otherOrigin = await upload(clients.initiator, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) }, {}, { origin: 'https://evil.example' });
    expect(otherOrigin.statusCode).toBe(403);
    expect(await batchesOf(m)).toEqual(before);
  });

  it('offers a CSV template that uploads as it is', async () => {
    const template = await clients.initiator.get('/console/payouts/upload/template.csv');
    expect(template.statusCode).toBe(200);
    expect(template.headers['content-type']).toMatch(/^text\/csv/);
    const rows = parseCsv(template.body, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual(HEADER);
    const res = await upload(clients.initiator, { name: 'payouts-template.csv', type: 'text/csv', bytes: Buffer.from(template.body) });
    expect(res.statusCode, res.body).toBe(303);
    const batchNumber = batchOfLocation(res.headers.location);
    await validateBatch(t, batchNumber);
    const [batch] = (await batchesOf(m)).filter((b) => b.batch_number === batchNumber);
    expect(batch).toMatchObject({ status_code: 'P', number_of_entries: rows.length });
  });
});

describe('uploading a file', () => {
  for (const type of ['CSV', 'XLSX'] as const) {
    it(`${type}: one batch captured by the signed-in user, queued, then its invalid lines with their reasons and the error workbook`, async () => {
      const rows = payoutRows(3);
      const file: FilePart = type === 'CSV' ? { name: 'march payroll.csv', type: 'text/csv', bytes: csvOf(rows) } : { name: 'March Payroll.XLSX', type: XLSX_TYPE, bytes: await xlsxOf(rows) };
      const before = (await batchesOf(m)).length;
      const res = await upload(clients.initiator, file);
      expect(res.statusCode, res.body).toBe(303);
      const batchNumber = batchOfLocation(res.headers.location);
      expect(batchNumber).toBeGreaterThan(0);
      const batches = await batchesOf(m);
      expect(batches).toHaveLength(before + 1);
      expect(batches.at(-1)).toMatchObject({ batch_number: batchNumber, captured_by: initiator.email, status_code: 'Q', upload_type: type, number_of_entries: 5, scheduled_date: null });
      const audit = await t.db.query<{ detail: Record<string, unknown>; user_id: string }>(
        `select detail, user_id from console_audit_log where merchant_account_number = $1 and action = 'upload.add' and (detail->>'batchNumber')::int = $2`,
        [m.merchantAccountNumber, batchNumber],
      );
      expect(audit.rows).toEqual([{ user_id: initiator.userId, detail: { fileName: file.name, fileType: type, lines: 5, batchNumber } }]);

      // Queued: the page says the lines are being checked and is live; the workbook is not ready (409, with the way back).
      const queued = await clients.initiator.get(String(res.headers.location));
      expect(queued.statusCode).toBe(200);
      expect(textOf(queued.body, 'notice')).toMatch(/uploaded/);
      expect(queued.body).not.toContain('id="batch-errors"');
      expect(queued.body).toContain(`data-live-batch="${batchUrl(batchNumber)}/events"`);
      expect(textOf(queued.body, 'live-summary')).toBe('Checking 5 lines…');
      const early = await clients.initiator.get(`${batchUrl(batchNumber)}/errors.xlsx`);
      expect(early.statusCode).toBe(409);
      expect(early.body).toContain(`href="${batchUrl(batchNumber)}"`);

      await validateBatch(t, batchNumber);
      const page = await clients.initiator.get(batchUrl(batchNumber));
      expect(textOf(page.body, 'batch-errors-title')).toBe('Invalid lines: 2');
      expect(textOf(page.body, 'live-summary')).toBe('3 valid lines, 2 invalid');
      expect(page.body).toContain(`href="${batchUrl(batchNumber)}/errors.xlsx"`);
      // The lines list names each invalid line's reason.
      expect(textOf(page.body, 'line-4')).toMatch(/Error ?Connector 999999 does not exist\.$/);
      expect(textOf(page.body, 'line-5')).toMatch(/Error ?A wallet account must be a 12-digit number starting with 265\.$/);
      const onlyInvalid = await clients.initiator.get(`${batchUrl(batchNumber)}?status=E`);
      expect(onlyInvalid.body).toContain('id="line-4"');
      expect(onlyInvalid.body).not.toContain('id="line-1"');

      // The workbook: the two invalid lines, with their reasons.
      const workbook = await clients.initiator.get(`${batchUrl(batchNumber)}/errors.xlsx`);
      expect(workbook.statusCode).toBe(200);
      expect(workbook.headers['content-type']).toBe(XLSX_TYPE);
      expect(workbook.headers['content-disposition']).toBe(`attachment; filename="batch-${batchNumber}-errors.xlsx"`);
      const read = new ExcelJS.Workbook();
      await read.xlsx.load((await t.app.inject({ method: 'GET', url: `${batchUrl(batchNumber)}/errors.xlsx`, headers: { cookie: cookieOf(clients.initiator) } })).rawPayload as never);
      const sheet = read.worksheets[0];
      const values = sheet.getSheetValues().filter(Boolean) as unknown[][];
      expect(values[0].slice(1)).toEqual(['lineNumber', ...HEADER, 'errorMessage']);
      // Numbered by the file's rows (the header is row 1), as the upload's own messages are: lines 4 and 5 are rows 5 and 6.
      expect(values.slice(1).map((r) => [r[1], r[2]])).toEqual([
        [5, 'Unknown Connector'],
        [6, 'Short Wallet'],
      ]);
      expect(String(values[1][8])).toMatch(/999999/);
      const csv = await clients.initiator.get(`${batchUrl(batchNumber)}/errors.csv`);
      expect(csv.statusCode).toBe(200);
      expect((parseCsv(csv.body, { bom: true, columns: true }) as Array<Record<string, string>>).map((r) => r.lineNumber)).toEqual(['5', '6']);

      // Another merchant's user: the console's 404, for the batch and its workbook alike.
      expect((await clients.otherAdmin.get(`${batchUrl(batchNumber)}/errors.xlsx`)).statusCode).toBe(404);
      expect((await clients.otherAdmin.get(`${batchUrl(batchNumber)}/errors.csv`)).statusCode).toBe(404);
      expect((await clients.otherAdmin.get(`${batchUrl(batchNumber)}/events`)).statusCode).toBe(404);
      // A viewer of the same merchant may read it.
      expect((await clients.viewer.get(`${batchUrl(batchNumber)}/errors.xlsx`)).statusCode).toBe(200);
    });
  }

  it('schedules the batch for the date given', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const res = await upload(clients.admin, { name: 'later.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) }, { scheduledDate: tomorrow });
    expect(res.statusCode, res.body).toBe(303);
    const batchNumber = batchOfLocation(res.headers.location);
    expect((await batchesOf(m)).find((b) => b.batch_number === batchNumber)).toMatchObject({ captured_by: admin.email, scheduled_date: tomorrow });
  });
});

describe('a refused file', () => {
  /** Runs `fn`; no batch of the merchant may appear meanwhile. */
  async function nothingStored(fn: () => Promise<void>): Promise<void> {
    const before = await batchesOf(m);
    await fn();
    expect(await batchesOf(m)).toEqual(before);
  }

  it('names each line that breaks the line schema, in the API\'s words, and stores nothing', async () => {
    await nothingStored(async () => {
      const rows: Array<Array<string | number>> = [
        ['Good Line', AIRTEL, 265991234567, 'Salary', 100, reference()],
        ['', AIRTEL, 265991234567, 'Salary', 100, reference()],
        ['Negative', AIRTEL, 265991234567, 'Salary', -5, reference()],
      ];
      const res = await upload(clients.initiator, { name: 'bad.xlsx', type: XLSX_TYPE, bytes: await xlsxOf(rows) });
      expect(res.statusCode).toBe(400);
      const problems = [...res.body.matchAll(/<li>([^<]+)<\/li>/g)].map((x) => x[1]);
      // Numbered as the spreadsheet shows them: the header is row 1 (issue 27).
      expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^Row 3: Beneficiary Name is required/), expect.stringMatching(/^Row 4: Transaction Amount /)]));
      expect(res.body).toContain('aria-invalid="true"');
      // A fresh form key: the refused form can be sent again once fixed.
      expect(res.body).toMatch(/name="_form" value="[0-9a-f-]{36}"/);
    });
  });

  it('numbers a CSV\'s rows as a text editor or spreadsheet does, blank rows counted', async () => {
    await nothingStored(async () => {
      const csv = [HEADER.join(','), `Good Line,${AIRTEL},265991234567,Salary,100,${reference()}`, '', `,${AIRTEL},265991234567,Salary,100,${reference()}`, `Negative,${AIRTEL},265991234567,Salary,-5,${reference()}`].join('\r\n');
      const res = await upload(clients.initiator, { name: 'bad.csv', type: 'text/csv', bytes: Buffer.from(`${csv}\r\n`) });
      expect(res.statusCode).toBe(400);
      const problems = [...res.body.matchAll(/<li>([^<]+)<\/li>/g)].map((x) => x[1]);
      expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^Row 4: Beneficiary Name is required/), expect.stringMatching(/^Row 5: Transaction Amount /)]));
      expect(problems.some((p) => p.startsWith('Line '))).toBe(false);
    });
  });

  it('in Chichewa when the user reads Chichewa', async () => {
    await nothingStored(async () => {
      const res = await upload(clients.initiator, { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('hello') }, { lang: 'ny' });
      expect(res.statusCode).toBe(415);
      expect(res.body).toContain('<html lang="ny">');
      expect(textOf(res.body, 'upload-file-error')).toBe('Mafayilo a CSV (.csv) ndi Excel (.xlsx) okha ndi omwe angakwezedwe: notes.txt si limodzi mwa iwo.');
    });
  });

  it('too large: 413 with a page that says so (the rest of the body read and dropped); far too large: cut off', async () => {
    await nothingStored(async () => {
      const big = Buffer.concat([csvOf(payoutRows(1)), Buffer.alloc(LIMIT + 10, 0x20)]);
      const res = await upload(clients.initiator, { name: 'big.csv', type: 'text/csv', bytes: big });
      expect(res.statusCode).toBe(413);
      expect(textOf(res.body, 'upload-file-error')).toBe('The file is larger than 0.0 MB, the most a payout file may be. Split it into smaller files.'.replace('0.0', String(Math.floor((LIMIT / 1048576) * 10) / 10)));
      // The form is there again, with a working token (the page is the form's).
      expect(res.body).toContain('id="upload-form"');
      const huge = await upload(clients.initiator, { name: 'huge.csv', type: 'text/csv', bytes: Buffer.alloc(3 * LIMIT, 0x20) });
      expect(huge.statusCode).toBe(413);
    });
  });

  it('no file, an empty file, the wrong type, a date that is not one or in the past: a message on its field', async () => {
    await nothingStored(async () => {
      const none = await upload(clients.initiator, undefined);
      expect(none.statusCode).toBe(400);
      expect(textOf(none.body, 'upload-file-error')).toBe('Choose a CSV or XLSX file.');
      const empty = await upload(clients.initiator, { name: 'empty.csv', type: 'text/csv', bytes: Buffer.alloc(0) });
      expect(empty.statusCode).toBe(400);
      expect(textOf(empty.body, 'upload-file-error')).toBe('The file empty.csv is empty.');
      const pdf = await upload(clients.initiator, { name: 'payroll.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.4') });
      expect(pdf.statusCode).toBe(415);
      expect(textOf(pdf.body, 'upload-file-error')).toMatch(/payroll\.pdf is neither/);
      const notXlsx = await upload(clients.initiator, { name: 'fake.xlsx', type: XLSX_TYPE, bytes: csvOf(payoutRows(1)) });
      expect(notXlsx.statusCode).toBe(400);
      expect(textOf(notXlsx.body, 'upload-file-error')).toMatch(/could not be read as XLSX/);
      const noColumns = await upload(clients.initiator, { name: 'cols.csv', type: 'text/csv', bytes: Buffer.from('name,amount\r\nA,1\r\n') });
      expect(noColumns.statusCode).toBe(400);
      expect(textOf(noColumns.body, 'upload-file-error')).toMatch(/beneficiaryName/);
      const badDate = await upload(clients.initiator, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) }, { scheduledDate: '2026-02-30' });
      expect(badDate.statusCode).toBe(400);
      expect(textOf(badDate.body, 'scheduled-date-error')).toBe('Enter the date as YYYY-MM-DD, or leave it empty.');
      // Shown as typed (a date input could not show it).
      expect(badDate.body).toMatch(/<input id="scheduled-date" name="scheduledDate" type="text" value="2026-02-30"/);
      const past = await upload(clients.initiator, { name: 'pay.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) }, { scheduledDate: '2020-01-01' });
      expect(past.statusCode).toBe(400);
      expect(textOf(past.body, 'scheduled-date-error')).toMatch(/2020-01-01/);
      const garbled = await t.app.inject({
        method: 'POST',
        url: UPLOAD,
        payload: 'not a multipart body',
        headers: { 'content-type': 'multipart/form-data; boundary=abc', cookie: cookieOf(clients.initiator), origin: INJECT_ORIGIN, 'x-csrf-token': clients.initiator.csrf },
      });
      expect(garbled.statusCode).toBe(400);
    });
    // Nothing of these reached the audit log.
    const { rows } = await t.db.query(`select count(*)::int as n from console_audit_log where action = 'upload.add' and detail->>'fileName' in ('empty.csv', 'payroll.pdf', 'fake.xlsx', 'cols.csv')`);
    expect(rows[0].n).toBe(0);
  });
});

describe('a line whose amount is not an amount', () => {
  it('is a failing line of the batch, named by its row and the amount as written, never money; the other lines go on', async () => {
    const refs = Array.from({ length: 7 }, () => reference());
    const csv = [
      HEADER.join(','),
      `Good One,${AIRTEL},265991234561,Salary,1500.25,${refs[0]}`, // row 2
      `Comma,${AIRTEL},265991234562,Salary,"12,5x",${refs[1]}`, // row 3
      '', // row 4: blank, still counted
      `Letters,${AIRTEL},265991234563,Salary,abc,${refs[2]}`, // row 5
      `Empty,${AIRTEL},265991234564,Salary,,${refs[3]}`, // row 6
      `Negative,${AIRTEL},265991234565,Salary,-3,${refs[4]}`, // row 7
      `Thousands,${AIRTEL},265991234566,Salary,1.234,${refs[5]}`, // row 8
      `Good Two,${AIRTEL},265991234567,Salary,200,${refs[6]}`, // row 9
    ].join('\r\n');
    const res = await upload(clients.initiator, { name: 'amounts.csv', type: 'text/csv', bytes: Buffer.from(`${csv}\r\n`) });
    expect(res.statusCode, res.body).toBe(303);
    const batchNumber = batchOfLocation(res.headers.location);
    expect((await batchesOf(m)).find((b) => b.batch_number === batchNumber)).toMatchObject({ status_code: 'Q', number_of_entries: 7 });
    await validateBatch(t, batchNumber);

    const reason = (amount: string) => `The amount "${amount}" is not a number of MWK from 0.01 to 1,000,000,000 with at most 2 decimals.`;
    const page = await clients.initiator.get(batchUrl(batchNumber));
    expect(textOf(page.body, 'batch-errors-title')).toBe('Invalid lines: 5');
    expect(textOf(page.body, 'live-summary')).toBe('2 valid lines, 5 invalid');
    expect(textOf(page.body, 'line-2')).toContain(reason('12,5x'));
    expect(textOf(page.body, 'line-6')).toContain(reason('1.234'));
    // No amount is shown as money for them (not "MWK 0.00"); their fee is none, as any invalid line's.
    expect(textOf(page.body, 'line-2')).toContain('Airtel MoneyNo amountMWK 0.00Error');
    // The lines are numbered as the file's rows, as the messages and the error file number them.
    expect(page.body).toContain('Row in file');
    expect(/<tr id="line-2"[^>]*>\s*<t[hd][^>]*>(?:<[^>]+>)*\s*3\s*</.test(page.body), page.body.slice(page.body.indexOf('id="line-2"'), page.body.indexOf('id="line-2"') + 300)).toBe(true);

    // The batch's money is its valid lines' alone.
    const api = (path: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/sandbox/v1${path}`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, batchNumber, ...body } });
    const batch = (await api('/disbursements/batch/getBatch', {})).json();
    expect(batch).toMatchObject({ batchStatusCode: 'P', numberOfEntries: 7, numberOfInvalidEntries: 5, totalAmount: 1700.25 });
    // The lines API: no amount for them (null), never 0.
    const lines = (await api('/disbursements/batch/getTransactions', {})).json().message as Array<{ lineNumber: number; transactionAmount: number | null; transactionStatusCode: string; errorMessage: string | null }>;
    expect(lines.sort((a, b) => a.lineNumber - b.lineNumber).map((l) => [l.lineNumber, l.transactionAmount, l.transactionStatusCode])).toEqual([
      [1, 1500.25, 'D'],
      [2, null, 'E'],
      [3, null, 'E'],
      [4, null, 'E'],
      [5, null, 'E'],
      [6, null, 'E'],
      [7, 200, 'D'],
    ]);
    expect(lines[1].errorMessage).toBe(reason('12,5x'));

    // The error file: each line by its row in the file, with the amount as it was written (a leading - quoted for spreadsheets).
    const errors = await clients.initiator.get(`${batchUrl(batchNumber)}/errors.csv`);
    expect(errors.statusCode).toBe(200);
    const rows = parseCsv(errors.body, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.lineNumber, r.beneficiaryName, r.transactionAmount, r.errorMessage])).toEqual([
      ['3', 'Comma', '12,5x', reason('12,5x')],
      ['5', 'Letters', 'abc', reason('abc')],
      ['6', 'Empty', '', reason('')],
      ['7', 'Negative', "'-3", reason('-3')],
      ['8', 'Thousands', '1.234', reason('1.234')],
    ]);

    // The transfer debits the two valid lines and their fees only; the invalid ones stay E, without an amount, and the ledger holds.
    const disbursementBalance = async () => (await apiBalances(t, m)).disbursementMinor;
    const balanceBefore = await disbursementBalance();
    expect((await act(t, m, 'transferFunds', batchNumber, admin.email)).statusCode).toBe(200);
    const stored = await t.db.query<{ status_code: string; amount_minor: string | null; fee_minor: string }>(
      'select status_code, amount_minor, fee_minor from payouts where batch_number = $1 order by line_number',
      [batchNumber],
    );
    expect(stored.rows.map((r) => [r.status_code, r.amount_minor === null ? null : Number(r.amount_minor)])).toEqual([
      ['T', 150025], ['E', null], ['E', null], ['E', null], ['E', null], ['E', null], ['T', 20000],
    ]);
    const fees = stored.rows.reduce((sum, r) => sum + Number(r.fee_minor), 0);
    expect(balanceBefore - (await disbursementBalance())).toBe(170025 + fees);
    await runPayouts(t, m);
    const report = await verifyLedger(t.db);
    expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('still refuses the file when another cell of a row breaks the line schema, naming every such row', async () => {
    const before = await batchesOf(m);
    const csv = [HEADER.join(','), `,${AIRTEL},265991234561,Salary,100,${reference()}`, `Comma,${AIRTEL},265991234562,Salary,"12,5x",${reference()}`].join('\r\n');
    const res = await upload(clients.initiator, { name: 'mixed.csv', type: 'text/csv', bytes: Buffer.from(csv) });
    expect(res.statusCode).toBe(400);
    const problems = [...res.body.matchAll(/<li>([^<]+)<\/li>/g)].map((x) => x[1]);
    expect(problems).toEqual([expect.stringMatching(/^Row 2: Beneficiary Name is required/), expect.stringMatching(/^Row 3: Transaction Amount /)]);
    expect(await batchesOf(m)).toEqual(before);
  });
});

describe('the same form sent twice', () => {
  it('makes one batch, one after the other and at once', async () => {
    const file: FilePart = { name: 'twice.csv', type: 'text/csv', bytes: csvOf(payoutRows(2)) };
    const before = (await batchesOf(m)).length;
    const form = await clients.initiator.get(UPLOAD);
    const fields = { _csrf: clients.initiator.csrf, _form: formKeyOf(form.body) };
    const first = await send(clients.initiator, fields, file);
    const again = await send(clients.initiator, fields, file);
    expect(first.statusCode).toBe(303);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(first.headers.location);
    expect((await batchesOf(m)).length).toBe(before + 1);

    const form2 = await clients.initiator.get(UPLOAD);
    const fields2 = { _csrf: clients.initiator.csrf, _form: formKeyOf(form2.body) };
    const racing = await Promise.all([send(clients.initiator, fields2, file), send(clients.initiator, fields2, file)]);
    expect(racing.map((r) => r.statusCode)).toEqual([303, 303]);
    expect(racing[1].headers.location).toBe(racing[0].headers.location);
    expect((await batchesOf(m)).length).toBe(before + 2);
    const { rows } = await t.db.query(`select count(*)::int as n from console_audit_log where action = 'upload.add' and detail->>'fileName' = 'twice.csv'`);
    expect(rows[0].n).toBe(2);
    // Another user cannot replay it.
    const stolen = await send(clients.admin, { ...fields2, _csrf: (await clients.admin.get(UPLOAD), clients.admin.csrf) }, file);
    expect(stolen.statusCode).toBe(409);
    expect((await batchesOf(m)).length).toBe(before + 2);
  });
});

// ---------------------------------------------------------------------------------------------
// Live batch events over a real port

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A stream of `path` as `c` (on `base`, the app's port by default): its events as they arrive, its comments, whether it has ended. */
function openStream(c: ConsoleClient, path: string, base = origin) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  let comments = 0;
  let ended = false;
  let status = 0;
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const done = (async () => {
    const res = await fetch(`${base}${path}`, { headers: { cookie: cookieOf(c), accept: 'text/event-stream' }, signal: controller.signal, redirect: 'manual' });
    status = res.status;
    if (res.status !== 200 || !res.body) {
      ended = true;
      wake();
      return;
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (block.startsWith(':')) comments++;
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
          wake();
        }
      }
    } catch {
      // aborted
    }
    ended = true;
    wake();
  })();
  const until = async (what: string, check: () => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`stream ${path}: no ${what} (events: ${JSON.stringify(events.map((e) => [e.event, e.data.status, e.data.version]))}, status ${status})`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return {
    events,
    get comments() {
      return comments;
    },
    get ended() {
      return ended;
    },
    get status() {
      return status;
    },
    until,
    close: () => controller.abort(),
    done,
  };
}

describe('the live streams\' bounds (the stream hub on a port of its own, with short limits)', () => {
  const limits = { pollMs: 50, heartbeatMs: 150, maxStreamMs: 1_500, sessionCheckMs: 100, retryMs: 1_000, streamsPerSession: 4, streamsPerProcess: 2 };
  let hub: LiveBatches;
  let server: ReturnType<typeof Fastify>;
  let base: string;
  let batchNumber: number;

  beforeAll(async () => {
    const res = await upload(clients.initiator, { name: 'bounds.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) });
    batchNumber = batchOfLocation(res.headers.location);
    await validateBatch(t, batchNumber);
    hub = new LiveBatches(t.deps, limits);
    server = Fastify();
    // The session named by the request's cookie, as the console's scope would have found it.
    server.get('/stream', async (request: FastifyRequest, reply: FastifyReply) => {
      const session = parseSessionCookie(/console_session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1]);
      if (!session) return reply.code(401).send();
      const refused = hub.refusal(`${session.merchantAccountNumber}:${session.hash.toString('hex')}`);
      if (refused) return reply.code(refused.status).send();
      const figures = (await watchedBatches(t.db, [{ merchantAccountNumber: m.merchantAccountNumber, batchNumber }])).get(liveKey(m.merchantAccountNumber, batchNumber))!;
      hub.start(reply, { merchantAccountNumber: m.merchantAccountNumber, batchNumber, session, lang: 'en', figures });
      return reply;
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    hub?.stop();
    await server?.close();
  });

  it('sends heartbeats while nothing changes, and pauses a stream after its longest time', async () => {
    expect(cookieNames(t.deps.config.mode).session).toBe('console_session');
    const stream = openStream(clients.viewer, '/stream', base);
    await stream.until('the end', () => stream.ended, 5_000);
    expect(stream.events.map((e) => e.event)).toEqual(['batch', 'end']);
    expect(stream.events[1].data).toEqual({ reason: 'paused' });
    expect(stream.comments).toBeGreaterThanOrEqual(3);
  });

  it('ends a stream when its session ends', async () => {
    const c = new ConsoleClient(t, '10.9.0.9');
    expect((await c.signIn(admin.email, admin.password)).statusCode).toBe(303);
    await c.get('/console/payouts');
    const stream = openStream(c, '/stream', base);
    await stream.until('first event', () => stream.events.length >= 1);
    expect((await c.post('/console/sign-out', {})).statusCode).toBe(303);
    await stream.until('the end', () => stream.ended, 5_000);
    expect(stream.events.at(-1)).toEqual({ event: 'end', data: { reason: 'signedOut' } });
  });

  it('refuses a stream past the process\'s limit (503)', async () => {
    const first = openStream(clients.viewer, '/stream', base);
    const second = openStream(clients.admin, '/stream', base);
    for (const s of [first, second]) await s.until('first event', () => s.events.length >= 1);
    expect(hub.open).toBe(2);
    const third = openStream(clients.initiator, '/stream', base);
    await third.until('the refusal', () => third.ended);
    expect(third.status).toBe(503);
    first.close();
    second.close();
  });
});

describe('a batch page, live', () => {
  let batchNumber: number;

  beforeAll(async () => {
    const res = await upload(clients.admin, { name: 'live.csv', type: 'text/csv', bytes: csvOf([...payoutRows(2), ['Fails', AIRTEL, 265991239901, 'Salary', 200, reference()]]) });
    expect(res.statusCode, res.body).toBe(303);
    batchNumber = batchOfLocation(res.headers.location);
  });

  it('sends the state on opening, an event for each change while the payouts complete, and ends at the final state', async () => {
    const stream = openStream(clients.viewer, `${batchUrl(batchNumber)}/events`);
    await stream.until('first event', () => stream.events.length >= 1);
    expect(stream.status).toBe(200);
    expect(stream.events[0]).toMatchObject({ event: 'batch', data: { batchNumber, status: 'Q', final: false, texts: { summary: 'Checking 5 lines…' } } });

    await validateBatch(t, batchNumber);
    await stream.until('validated', () => stream.events.some((e) => e.data.status === 'P'));
    const validated = stream.events.find((e) => e.data.status === 'P')!;
    expect(validated.data).toMatchObject({ counts: { valid: 3, invalid: 2 }, texts: { summary: '3 valid lines, 2 invalid' } });
    expect(String(validated.data.announce)).toMatch(new RegExp(`^Batch ${batchNumber}: `));

    expect((await act(t, m, 'transferFunds', batchNumber, admin.email)).statusCode).toBe(200);
    await stream.until('transferring', () => stream.events.some((e) => e.data.status === 'T'));
    await runPayouts(t, m);
    await stream.until('the end', () => stream.ended);
    const last = stream.events.at(-2)!;
    expect(last).toMatchObject({ event: 'batch', data: { status: 'C', final: true, counts: { successful: 2, failed: 1 } } });
    expect(String((last.data.texts as Record<string, string>).progress)).toMatch(/^3 of 3 lines final \(100 %\): 2 paid, 1 failed\./);
    expect(stream.events.at(-1)).toEqual({ event: 'end', data: { reason: 'final' } });
    // One event per change: no two in a row alike.
    const versions = stream.events.filter((e) => e.event === 'batch').map((e) => e.data.version);
    expect(new Set(versions).size).toBe(versions.length);

    // A final batch: its state, and the end at once; its page is not live.
    const again = openStream(clients.viewer, `${batchUrl(batchNumber)}/events`);
    await again.until('the end', () => again.ended);
    expect(again.events.map((e) => e.event)).toEqual(['batch', 'end']);
    const page = await clients.viewer.get(batchUrl(batchNumber));
    expect(page.body).not.toContain('data-live-batch=');
  });

  it('another merchant\'s batch, or one that does not exist: 404', async () => {
    const foreign = openStream(clients.otherAdmin, `${batchUrl(batchNumber)}/events`);
    await foreign.until('the refusal', () => foreign.ended);
    expect(foreign.status).toBe(404);
    const missing = openStream(clients.viewer, `${batchUrl(2_000_000_000)}/events`);
    await missing.until('the refusal', () => missing.ended);
    expect(missing.status).toBe(404);
  });

  it('at most four streams per session; a closed one frees its place', async () => {
    const res = await upload(clients.admin, { name: 'open.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) });
    const open = batchOfLocation(res.headers.location);
    const streams = [0, 1, 2, 3].map(() => openStream(clients.admin, `${batchUrl(open)}/events`));
    for (const s of streams) await s.until('first event', () => s.events.length >= 1);
    const fifth = openStream(clients.admin, `${batchUrl(open)}/events`);
    await fifth.until('the refusal', () => fifth.ended);
    expect(fifth.status).toBe(429);
    // Another session of the same merchant is not counted with this one.
    const viewers = openStream(clients.viewer, `${batchUrl(open)}/events`);
    await viewers.until('first event', () => viewers.events.length >= 1);
    viewers.close();
    streams[0].close();
    await streams[0].done;
    // The server notices the closed socket on its own time: try again until it has.
    let sixth = openStream(clients.admin, `${batchUrl(open)}/events`);
    for (let i = 0; i < 50; i++) {
      const attempt = sixth;
      await attempt.until('an answer', () => attempt.ended || attempt.events.length > 0);
      if (attempt.status !== 429) break;
      await new Promise((r) => setTimeout(r, 100));
      sixth = openStream(clients.admin, `${batchUrl(open)}/events`);
    }
    expect(sixth.status).toBe(200);
    for (const s of [...streams, sixth]) s.close();
  });

  it('ends its streams when shutdown begins, so that the drain does not wait for them', async () => {
    const res = await upload(clients.admin, { name: 'shutdown.csv', type: 'text/csv', bytes: csvOf(payoutRows(1)) });
    const open = batchOfLocation(res.headers.location);
    const stream = openStream(clients.viewer, `${batchUrl(open)}/events`);
    await stream.until('first event', () => stream.events.length >= 1);
    t.built.beginShutdown();
    await stream.until('the end', () => stream.ended, 5_000);
    // Closed without an end event: the browser reconnects, to a process that is still up.
    expect(stream.events.map((e) => e.event)).toEqual(['batch']);
    expect(await t.built.drain(5_000)).toBe(true);
  });
});

// Issue 14, fidelity to the gateway's documentation: the connector ids of its examples and the
// documented connector record, merchant account administration (the operator's status changes with
// their history, the merchant's own view), the flat top-up answer, flat collection list items and
// GetDisbursementMetrics' transactionsTrend. Requests are the documentation's example bodies, with
// only account numbers and ids adjusted.
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trendPercent } from '../../src/modules/analytics/service.ts';
import { topup as topupService } from '../../src/modules/merchants/service.ts';
import { ADMIN_TOKEN, BASE, ledgerInvariants, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { act, customPayment, readyBatch, runPayouts } from '../money-ops.ts';

let t: TestApp;
/** The caller. */
let m: TestMerchant;
/** Another account of m's organisation. */
let sibling: TestMerchant;
/** A merchant of another organisation. */
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'MERCHANT SANDBOX' });
  sibling = await newMerchant(t, { accountName: 'KHUSA VILLAGE BANKS', organisationId: m.organisationId });
  other = await newMerchant(t, { accountName: 'Other Organisation Shop' });
});
afterAll(() => t.close());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const post = (who: TestMerchant, path: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload: payload as object });
const get = (who: TestMerchant, path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${BASE}${path}`, headers: { ...who.auth, ...headers } });
const adminPost = (path: string, payload: unknown, headers: Record<string, string> = admin) => t.app.inject({ method: 'POST', url: `/admin/v1${path}`, headers, payload: payload as object });
const adminGet = (path: string, headers: Record<string, string> = admin) => t.app.inject({ method: 'GET', url: `/admin/v1${path}`, headers });
const today = () => new Date().toISOString().slice(0, 10);

/** A PNG decoded by hand: signature, chunk CRCs, IHDR, and IDAT inflating to exactly its rows. */
function decodePng(base64: string): { width: number; height: number; colourType: number } {
  const png = Buffer.from(base64, 'base64');
  expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  const chunks: Array<{ type: string; data: Buffer }> = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(zlib.crc32(png.subarray(at + 4, at + 8 + length)));
    chunks.push({ type, data });
    at += 12 + length;
  }
  expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const ihdr = chunks[0].data;
  const [width, height, bitDepth, colourType] = [ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]];
  expect(bitDepth).toBe(8);
  expect(colourType).toBe(2);
  expect(zlib.inflateSync(chunks[1].data).length).toBe(height * (1 + width * 3));
  return { width, height, colourType };
}

// ---------------------------------------------------------------------------------------------
// 1. Connectors

/** The ids of the documentation's examples and the institution each stands for. */
const DOC_IDS = [
  { connectorId: 550044, aliasOf: 212188, connectorName: 'National Bank of Malawi', connectorCode: 'NBM', channelCode: 'B' },
  { connectorId: 666473, aliasOf: 221500, connectorName: 'FDH Bank', connectorCode: 'FDH', channelCode: 'B' },
  { connectorId: 769356, aliasOf: 221500, connectorName: 'FDH Bank', connectorCode: 'FDH', channelCode: 'B' },
  { connectorId: 769375, aliasOf: 112400, connectorName: 'Airtel Money', connectorCode: 'AIRTEL', channelCode: 'M' },
];

describe('connectors: the ids of the documentation examples and the documented record', () => {
  it.each(DOC_IDS)('GET /core/connectors/get?connectorId=$connectorId answers the documented record ($connectorName)', async (doc) => {
    // The docs' request: GET …/core/connectors/get?connectorId=666473 with X- headers.
    const res = await get(m, `/core/connectors/get?connectorId=${doc.connectorId}`, { accept: 'application/json', 'X-Organisation-Id': m.organisationId, 'X-Merchant-Account-Number': String(m.merchantAccountNumber) });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json();
    expect(c).toMatchObject({ ...doc, isActive: true, isDisbursementAllowed: true, isCollectionAllowed: true, logoFormat: 'image/png' });
    expect(c.connectorDescription).toBe(
      doc.channelCode === 'B' ? 'The bank supports the processing of disbursement and collection transactions' : 'The mobile money operator supports the processing of disbursement and collection transactions',
    );
    expect(c.switchMerchantId).toMatch(/^[A-Z0-9]{1,20}$/);
    expect(decodePng(c.logoBase64)).toEqual({ width: 16, height: 16, colourType: 2 });
  });

  it('GET /core/connectors/GetAll lists every connector, the documentation ids included, each with a real PNG logo', async () => {
    const res = await get(m, '/core/connectors/GetAll');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<Record<string, unknown>>;
    for (const doc of DOC_IDS) expect(list.find((c) => c.connectorId === doc.connectorId)).toMatchObject(doc);
    for (const c of list) {
      decodePng(c.logoBase64 as string);
      expect(c.logoFormat).toBe('image/png');
      expect(typeof c.connectorDescription).toBe('string');
      expect(typeof c.switchMerchantId).toBe('string');
    }
    // The documentation's own example switch ids.
    expect(list.find((c) => c.connectorId === 769375)?.switchMerchantId).toBe('5554');
    expect(list.find((c) => c.connectorId === 769356)?.switchMerchantId).toBe('FDHMW2233');
  });

  it('E9 lists each institution once (no aliases) and describes it in Chichewa when asked', async () => {
    const list = (await get(m, '/core/Connectors/GetSummary', { 'accept-language': 'ny' })).json() as Array<{ connectorId: number; connectorDescription: string; logoBase64: string }>;
    const ids = list.map((c) => c.connectorId);
    for (const doc of DOC_IDS) {
      expect(ids).not.toContain(doc.connectorId);
      expect(ids).toContain(doc.aliasOf);
    }
    expect(list[0].connectorDescription).toMatch(/^Ndi /);
    for (const c of list) decodePng(c.logoBase64);
  });

  it('the database refuses a logo that is not a PNG and an alias of an alias', async () => {
    await expect(t.db.query(`update connectors set logo = '\\x3c73766720'::bytea where connector_id = 212188`)).rejects.toThrow(/connectors_logo_png/);
    await expect(t.db.query('update connectors set alias_of = 550044 where connector_id = 222100')).rejects.toThrow(/itself an alias/);
  });

  it('accepts 550044 in the documented settlement account and top-up bodies', async () => {
    const account = await post(m, '/merchants/bankAccounts/add', { merchantAccountNumber: m.merchantAccountNumber, accountNumber: '9876543210', connectorId: 550044, accountName: 'Jane Smith', capturedBy: 'johndoe@example.com' });
    expect(account.statusCode, account.body).toBe(201);
    const listed = (await get(m, `/merchants/bankAccounts/getAll?MerchantAccountNumber=${m.merchantAccountNumber}`)).json() as Array<{ connectorId: number; connectorName: string }>;
    expect(listed.find((a) => a.connectorId === 550044)?.connectorName).toBe('National Bank of Malawi');
  });

  it('pays an E8 batch naming 550044 and 769375 (valid lines, paid, the ids kept), and analytics count them on their institutions’ lines', async () => {
    const payer = await newMerchant(t, { accountName: 'Docs Ids Payer' });
    await topupService(t.deps, { merchantAccountNumber: payer.merchantAccountNumber, connectorId: 550044, topupAmountMinor: 10_000_000, createdBy: 'johndoe@example.com' }, async () => undefined);
    const lines = [
      { beneficiaryName: 'Grace Banda', connectorId: 550044, beneficiaryAccountNumber: '3333888801', transactionDescription: 'Salary', transactionAmount: 1000, sourceReferenceNumber: 'QKAHXD200923' },
      { beneficiaryName: 'John Phiri', connectorId: 769375, beneficiaryAccountNumber: '111100000221', transactionDescription: 'Salary', transactionAmount: 500, sourceReferenceNumber: 'QKAHXD200924' },
    ];
    const { batchNumber, status } = await readyBatch(t, payer, lines);
    expect(status).toBe('P');
    const { rows: validated } = await t.db.query<{ status_code: string; connector_id: number }>('select status_code, connector_id from payouts where batch_number = $1 order by line_number', [batchNumber]);
    expect(validated).toEqual([
      { status_code: 'D', connector_id: 550044 },
      { status_code: 'D', connector_id: 769375 },
    ]);
    const transfer = await act(t, payer, 'transferFunds', batchNumber);
    expect(transfer.statusCode, transfer.body).toBe(200);
    await runPayouts(t, payer);
    const { rows: paid } = await t.db.query<{ status_code: string }>('select status_code from payouts where batch_number = $1 order by line_number', [batchNumber]);
    expect(paid.map((r) => r.status_code)).toEqual(['S', 'S']);

    // A collection through the documentation's Airtel id as well.
    const paidIn = await post(payer, '/collections/addFakeCustomPayment', { beneficiaryAccountNumber: payer.paymentAccountNumber, connectorId: 769375, transactionAmount: 75000, createdBy: 'johndoe@example.com' });
    expect(paidIn.statusCode, paidIn.body).toBe(200);
    await customPayment(t, payer, 100_000); // through 212188

    const metrics = (summaryType: string) =>
      post(payer, '/core/MerchantAnalytics/GetConnectorSummaryCountMetrics', { merchantAccountNumber: payer.merchantAccountNumber, summaryType, fromDate: `${today()}T00:00:00Z`, toDate: `${today()}T23:59:59Z` });
    const d = (await metrics('D')).json() as Array<{ connectorName: string; successfulTransactions: number }>;
    expect(d.filter((x) => x.connectorName === 'National Bank of Malawi')).toEqual([expect.objectContaining({ successfulTransactions: 1 })]);
    expect(d.filter((x) => x.connectorName === 'Airtel Money')).toEqual([expect.objectContaining({ successfulTransactions: 1 })]);
    const c = (await metrics('C')).json() as Array<{ connectorName: string; successfulTransactions: number }>;
    expect(c.filter((x) => x.connectorName === 'Airtel Money')).toEqual([expect.objectContaining({ successfulTransactions: 1 })]);
    expect(c.filter((x) => x.connectorName === 'National Bank of Malawi')).toEqual([expect.objectContaining({ successfulTransactions: 1 })]);
    expect(new Set(c.map((x) => x.connectorName)).size).toBe(c.length);
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Merchant accounts

/** The documented status-change bodies (docs.onekhusa.com), for merchant `n`. */
const activateBody = (n: number) => ({ merchantAccountNumber: n, changedBy: 'johndoe@example.com', comments: 'Merchant account reactivated after compliance review', reasonId: 1 });
const suspendBody = (n: number) => ({ merchantAccountNumber: n, changedBy: 'johndoe@example.com', comments: 'Merchant account suspended pending compliance documentation', reasonId: 2 });
const blacklistBody = (n: number) => ({ merchantAccountNumber: n, changedBy: 'johndoe@example.com', comments: 'Merchant account blacklisted due to fraudulent activity', reasonId: 3 });

async function statusOf(who: TestMerchant): Promise<string> {
  const { rows } = await t.db.query<{ status_code: string }>('select status_code from merchants where merchant_account_number = $1', [who.merchantAccountNumber]);
  return rows[0].status_code;
}

async function historyOf(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from merchant_status_changes where merchant_account_number = $1', [who.merchantAccountNumber]);
  return rows[0].n;
}

const freshToken = (who: TestMerchant) =>
  t.app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { apiKey: who.apiKey, apiSecret: who.apiSecret, organisationId: who.organisationId, merchantAccountNumber: who.merchantAccountNumber } });

describe('merchant account status changes (the operator’s)', () => {
  it('suspends with the documented body: the merchant’s token stops at once, no token is issued, no money moves', async () => {
    const s = await newMerchant(t, { accountName: 'To Be Suspended' });
    expect((await get(s, `/merchants/accounts/get?merchantAccountNumber=${s.merchantAccountNumber}`)).statusCode).toBe(200);
    const res = await adminPost('/merchants/accounts/suspend', suspendBody(s.merchantAccountNumber));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toBe('Merchant account has been suspended successfully');
    expect(await statusOf(s)).toBe('S');
    const after = await get(s, `/merchants/accounts/get?merchantAccountNumber=${s.merchantAccountNumber}`);
    expect(after.statusCode).toBe(401);
    expect((await freshToken(s)).statusCode).toBe(401);
    // The services refuse too (a token verified just before the change, on another process).
    await expect(topupService(t.deps, { merchantAccountNumber: s.merchantAccountNumber, connectorId: 212188, topupAmountMinor: 100, createdBy: 'a@b.mw' }, async () => undefined)).rejects.toMatchObject({ kind: 'merchantInactive' });
    // The operator sees it suspended.
    const listed = (await adminGet(`/merchants?limit=500`)).json() as Array<{ merchantAccountNumber: number; statusCode: string; statusName: string }>;
    expect(listed.find((x) => x.merchantAccountNumber === s.merchantAccountNumber)).toMatchObject({ statusCode: 'S', statusName: 'Suspended' });
  });

  it('blacklists, refuses to "suspend" a blacklisted account (402 E916), and only the operator lifts it', async () => {
    const b = await newMerchant(t, { accountName: 'To Be Blacklisted' });
    expect((await adminPost('/merchants/accounts/blacklist', blacklistBody(b.merchantAccountNumber))).json()).toBe('Merchant account has been blacklisted successfully');
    expect(await statusOf(b)).toBe('B');
    const downgrade = await adminPost('/merchants/accounts/suspend', suspendBody(b.merchantAccountNumber));
    expect(downgrade.statusCode).toBe(402);
    const p = problemOf(downgrade);
    expect(p.errorCode).toBe('E916');
    expect(p.detail).toBe(`Merchant account ${b.merchantAccountNumber} is Blacklisted: it cannot be suspended.`);
    const again = await adminPost('/merchants/accounts/blacklist', blacklistBody(b.merchantAccountNumber));
    expect(problemOf(again).errorCode).toBe('E916');
    // The merchant cannot reach any status operation with its own credentials.
    expect((await freshToken(b)).statusCode).toBe(401);
    const activated = await adminPost('/merchants/accounts/activate', activateBody(b.merchantAccountNumber));
    expect(activated.statusCode, activated.body).toBe(200);
    expect(activated.json()).toBe('Merchant account has been activated successfully');
    const token = await freshToken(b);
    expect(token.statusCode).toBe(200);
    const account = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${b.merchantAccountNumber}`, headers: { authorization: `Bearer ${token.json().accessToken}` } });
    expect(account.json()).toMatchObject({ statusCode: 'A', statusName: 'Active' });
    expect(problemOf(await adminPost('/merchants/accounts/activate', activateBody(b.merchantAccountNumber))).errorCode).toBe('E916');
  });

  it('records who, why and when: getStatusChanges (merchant: its own; operator: any) lists them newest first', async () => {
    const h = await newMerchant(t, { accountName: 'History Shop', capturedBy: 'onboarding@onekhusa.example' });
    await adminPost('/merchants/accounts/suspend', { ...suspendBody(h.merchantAccountNumber), changedBy: 'nphiri@onekhusa.example', comments: 'Suspended pending documentation' });
    await adminPost('/merchants/accounts/activate', { ...activateBody(h.merchantAccountNumber), changedBy: 'pbanda@onekhusa.example', comments: 'Merchant account activated after compliance review' });
    // The documented request: GET …/getStatusChanges?MerchantAccountNumber=35253486 with a fresh token.
    const token = (await freshToken(h)).json().accessToken;
    const res = await t.app.inject({
      method: 'GET',
      url: `${BASE}/merchants/accounts/getStatusChanges?MerchantAccountNumber=${h.merchantAccountNumber}`,
      headers: { authorization: `Bearer ${token}`, 'X-Organisation-Id': h.organisationId, 'X-Merchant-Account-Number': String(h.merchantAccountNumber), 'Accept-Language': 'en' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const changes = res.json() as Array<Record<string, unknown>>;
    expect(changes.map(({ capturedBy, statusName, comments, reasonDescription }) => ({ capturedBy, statusName, comments, reasonDescription }))).toEqual([
      { capturedBy: 'pbanda@onekhusa.example', statusName: 'Active', comments: 'Merchant account activated after compliance review', reasonDescription: 'Compliance Review Complete' },
      { capturedBy: 'nphiri@onekhusa.example', statusName: 'Suspended', comments: 'Suspended pending documentation', reasonDescription: 'Pending Documentation' },
      { capturedBy: 'onboarding@onekhusa.example', statusName: 'Active', comments: 'Initial merchant activation', reasonDescription: 'New Merchant Activation' },
    ]);
    for (const c of changes) expect(Date.parse(c.dateCreated as string)).not.toBeNaN();
    expect(changes.map((c) => [c.previousStatusCode, c.statusCode])).toEqual([
      ['S', 'A'],
      ['A', 'S'],
      [null, 'A'],
    ]);
    const byOperator = await adminGet(`/merchants/accounts/getStatusChanges?MerchantAccountNumber=${h.merchantAccountNumber}`);
    expect(byOperator.json()).toEqual(changes);
    // Another merchant's history is not there for m (404, like anything of another merchant's).
    expect(problemOf(await get(m, `/merchants/accounts/getStatusChanges?MerchantAccountNumber=${h.merchantAccountNumber}`)).errorCode).toBe('E903');
    expect(problemOf(await adminGet('/merchants/accounts/getStatusChanges?MerchantAccountNumber=10000000')).errorCode).toBe('E903');
    // The history cannot be rewritten.
    await expect(t.db.query('delete from merchant_status_changes where merchant_account_number = $1', [h.merchantAccountNumber])).rejects.toThrow(/immutable/);
  });

  it.each([
    ['an unknown reasonId', { reasonId: 99 }, 404, 'E903'],
    ['a changedBy that is no e-mail address', { changedBy: 'PBANDA' }, 400, 'E900'],
    ['comments over 500 characters', { comments: 'x'.repeat(501) }, 400, 'E900'],
    ['a missing reasonId', { reasonId: undefined }, 400, 'E900'],
    ['an unknown account', { merchantAccountNumber: 10000000 }, 404, 'E903'],
  ])('refuses %s and changes nothing', async (_name, over, status, errorCode) => {
    const r = await newMerchant(t, { accountName: 'Refused Change Shop' });
    const res = await adminPost('/merchants/accounts/suspend', { ...suspendBody(r.merchantAccountNumber), ...over });
    expect(res.statusCode, res.body).toBe(status);
    expect(problemOf(res).errorCode).toBe(errorCode);
    expect(await statusOf(r)).toBe('A');
    expect(await historyOf(r)).toBe(1);
  });

  // Issue 27: the documented path answers as the operation it is, refused for a merchant's token
  // (403, naming the operator's path), not 404 "No operation exists".
  it.each(['activate', 'suspend', 'blacklist', 'add', 'update'])('is the operator\'s: POST /sandbox/v1/merchants/accounts/%s answers 403 naming the operator API and changes nothing', async (action) => {
    const body = action === 'add' ? { organisationId: m.organisationId, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', levelNumber: '1', capturedBy: 'johndoe@example.com' } : { ...blacklistBody(m.merchantAccountNumber), accountName: 'X', currencyCode: 'MWK', capturedBy: 'johndoe@example.com', levelNumber: 1 };
    const res = await post(m, `/merchants/accounts/${action}`, body, { 'X-Organisation-Id': m.organisationId, 'X-Merchant-Account-Number': String(m.merchantAccountNumber) });
    expect(res.statusCode, res.body).toBe(403);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E902');
    expect(p.type).toBe('urn:onekhusa-sandbox:problem:operator-only');
    expect(p.detail).toContain(`POST /admin/v1/merchants/accounts/${action}`);
    expect(p.errors).toEqual([p.detail]);
    expect(await statusOf(m)).toBe('A');
    expect(await historyOf(m)).toBe(1);
    // Another merchant's account stays invisible: 404, as everywhere.
    if (action !== 'add') expect(problemOf(await post(m, `/merchants/accounts/${action}`, { ...body, merchantAccountNumber: other.merchantAccountNumber })).errorCode).toBe('E903');
    // Documented: the operation is in the OpenAPI document with its 403.
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths[`${BASE}/merchants/accounts/${action}`]?.post;
    expect(op?.responses?.['403']?.content).toHaveProperty(['application/problem+json']);
  });

  it('names the authorisation levels as documented (levelName "Initiator Only")', async () => {
    const names: Record<number, string> = {};
    for (const levelNumber of [1, 2, 3]) {
      const who = await newMerchant(t, { accountName: `Level ${levelNumber} Shop`, levelNumber });
      names[levelNumber] = (await get(who, `/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`)).json().levelName;
    }
    expect(names).toEqual({ 1: 'Initiator Only', 2: 'Initiator -> Approver', 3: 'Initiator -> Reviewer -> Approver' });
  });

  it('needs the operator token: a merchant token or none answers 401', async () => {
    for (const headers of [{}, m.auth]) {
      const res = await adminPost('/merchants/accounts/blacklist', blacklistBody(m.merchantAccountNumber), headers);
      expect(res.statusCode).toBe(401);
    }
    expect(await statusOf(m)).toBe('A');
  });
});

describe('merchant accounts: add, update, getAll', () => {
  it('the operator creates an account with the documented body ("levelNumber": "1"): 201, the message and working credentials', async () => {
    const res = await adminPost('/merchants/accounts/add', { organisationId: m.organisationId, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', levelNumber: '1', capturedBy: 'johndoe@example.com' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ message: 'Merchant has been created successfully', organisationId: m.organisationId, accountName: 'KHUSA VILLAGE BANKS', levelNumber: 1, currencyCode: 'MWK' });
    const token = await t.app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { apiKey: created.apiKey, apiSecret: created.apiSecret, organisationId: created.organisationId, merchantAccountNumber: created.merchantAccountNumber } });
    expect(token.statusCode).toBe(200);
    const history = (await adminGet(`/merchants/accounts/getStatusChanges?merchantAccountNumber=${created.merchantAccountNumber}`)).json();
    expect(history).toEqual([expect.objectContaining({ capturedBy: 'johndoe@example.com', statusName: 'Active', reasonDescription: 'New Merchant Activation' })]);
    const unknown = await adminPost('/merchants/accounts/add', { organisationId: 'ZZZZZZZZZZZZ', accountName: 'Nowhere', currencyCode: 'MWK', levelNumber: 1, capturedBy: 'johndoe@example.com' });
    expect(problemOf(unknown).errorCode).toBe('E903');
  });

  it('the operator updates name and level with the documented body; another currency or organisation is refused', async () => {
    const u = await newMerchant(t, { accountName: 'Before Rename', organisationId: m.organisationId });
    const body = { merchantAccountNumber: u.merchantAccountNumber, accountName: 'KHUSA VILLAGE BANKS', currencyCode: 'MWK', organisationId: m.organisationId, capturedBy: 'johndoe@example.com', levelNumber: 2 };
    const res = await adminPost('/merchants/accounts/update', body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toBe('Merchant has been updated successfully');
    const account = (await get(u, `/merchants/accounts/get?merchantAccountNumber=${u.merchantAccountNumber}`)).json();
    expect(account).toMatchObject({ accountName: 'KHUSA VILLAGE BANKS', levelNumber: 2 });
    expect(problemOf(await adminPost('/merchants/accounts/update', { ...body, currencyCode: 'ZMW' })).errorCode).toBe('E916');
    expect(problemOf(await adminPost('/merchants/accounts/update', { ...body, organisationId: other.organisationId })).errorCode).toBe('E903');
    expect(problemOf(await adminPost('/merchants/accounts/update', { ...body, levelNumber: 4 })).errorCode).toBe('E900');
  });

  it('getAll with the documented body lists the caller’s own account only, never its organisation’s others', async () => {
    // The documented body verbatim, but for the organisation: it searches "John Phiri".
    const documented = { organisationId: m.organisationId, pageNumber: 1, numberOfReturnedRows: 10, isIncremental: false, searchBy: 'AccountName', searchText: 'John Phiri' };
    const none = await post(m, '/merchants/accounts/getAll', documented, { 'X-Organisation-Id': m.organisationId, 'X-Merchant-Account-Number': String(m.merchantAccountNumber) });
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json()).toEqual([]);
    const all = (await post(m, '/merchants/accounts/getAll', { ...documented, searchText: '' })).json() as Array<Record<string, unknown>>;
    expect(all).toEqual([(await get(m, `/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`)).json()]);
    expect((await post(m, '/merchants/accounts/getAll', { ...documented, searchText: 'sandbox' })).json()).toHaveLength(1);
    // The sibling's name finds nothing for m.
    expect((await post(m, '/merchants/accounts/getAll', { ...documented, searchText: 'KHUSA' })).json()).toEqual([]);
    expect((await post(m, '/merchants/accounts/getAll', { ...documented, searchText: '', pageNumber: 2 })).json()).toEqual([]);
    expect(problemOf(await post(m, '/merchants/accounts/getAll', { ...documented, organisationId: other.organisationId })).errorCode).toBe('E903');
    expect(problemOf(await post(m, '/merchants/accounts/getAll', { ...documented, merchantAccountNumber: sibling.merchantAccountNumber })).errorCode).toBe('E903');
  });

  it('the operator’s getAll lists the organisation’s accounts, searched and paged', async () => {
    const body = { organisationId: m.organisationId, pageNumber: 1, numberOfReturnedRows: 100, isIncremental: false, searchBy: 'AccountName', searchText: '' };
    const all = (await adminPost('/merchants/accounts/getAll', body)).json() as Array<{ merchantAccountNumber: number; organisationId: string }>;
    expect(all.map((x) => x.merchantAccountNumber)).toEqual(expect.arrayContaining([m.merchantAccountNumber, sibling.merchantAccountNumber]));
    expect(all.every((x) => x.organisationId === m.organisationId)).toBe(true);
    expect(all.map((x) => x.merchantAccountNumber)).not.toContain(other.merchantAccountNumber);
    const found = (await adminPost('/merchants/accounts/getAll', { ...body, searchText: 'khusa village' })).json() as Array<{ accountName: string }>;
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((x) => /khusa village/i.test(x.accountName))).toBe(true);
    expect((await adminPost('/merchants/accounts/getAll', { ...body, numberOfReturnedRows: 1 })).json()).toHaveLength(1);
    expect(problemOf(await adminPost('/merchants/accounts/getAll', { ...body, organisationId: 'ZZZZZZZZZZZZ' })).errorCode).toBe('E903');
  });
});

describe('the OpenAPI document', () => {
  it('lists every operation of this issue with a summary, a description and its error responses', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { summary?: string; description?: string; responses: Record<string, unknown>; security?: unknown[] }>> };
    const operations: Array<[string, string]> = [
      ['get', `${BASE}/merchants/accounts/getStatusChanges`],
      ['post', `${BASE}/merchants/accounts/getAll`],
      ['post', `${BASE}/merchants/accounts/topup`],
      ['post', `${BASE}/collections/getTransactions`],
      ['post', `${BASE}/core/MerchantAnalytics/GetDisbursementMetrics`],
      ['get', `${BASE}/core/Connectors/GetSummary`],
      ['get', `${BASE}/core/connectors/GetAll`],
      ['get', `${BASE}/core/connectors/get`],
      ['post', '/admin/v1/merchants/accounts/add'],
      ['post', '/admin/v1/merchants/accounts/update'],
      ['post', '/admin/v1/merchants/accounts/activate'],
      ['post', '/admin/v1/merchants/accounts/suspend'],
      ['post', '/admin/v1/merchants/accounts/blacklist'],
      ['get', '/admin/v1/merchants/accounts/getStatusChanges'],
      ['post', '/admin/v1/merchants/accounts/getAll'],
    ];
    for (const [method, path] of operations) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.summary, path).toBeTruthy();
      expect(op!.description, path).toBeTruthy();
      expect(Object.keys(op!.responses), path).toEqual(expect.arrayContaining(['400', '500', '503']));
      if (path.startsWith('/admin/')) expect(op!.security).toEqual([{ adminToken: [] }]);
    }
    // The merchant-side path is documented as what it is: the operator's, refused with 403.
    expect(Object.keys(doc.paths[`${BASE}/merchants/accounts/activate`]?.post?.responses ?? {})).toEqual(expect.arrayContaining(['403', '400', '500']));
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Top-up

const TOPUP_FIELDS = [
  'transactionReferenceNumber',
  'beneficiaryAccountNumber',
  'beneficiaryName',
  'beneficiaryCurrencyCode',
  'sourceAccountNumber',
  'sourceCustomerName',
  'sourceReferenceNumber',
  'sourceCurrencyCode',
  'connectorName',
  'amountSent',
  'amountReceived',
  'transactionFee',
  'transactionDescription',
  'transactionDate',
  'valueDate',
  'dateCreated',
  'transactionCode',
  'transactionTypeName',
  'transactionStatusCode',
  'transactionStatusName',
  'bridgeReferenceNumber',
  'responseCode',
  'responseMessage',
];

describe('POST /merchants/accounts/topup answers the flat transaction', () => {
  it('to the documented body (connectorId 550044, topupAmount 1000000.00)', async () => {
    const before = (await get(m, `/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`)).json().disbursmentBalance as number;
    const key = { 'x-idempotency-key': `fidelity-topup-${Date.now()}` };
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/accounts/topup`,
      headers: { ...m.auth, ...key, 'content-type': 'application/json', 'accept-language': 'en' },
      payload: `{"merchantAccountNumber": ${m.merchantAccountNumber}, "connectorId": 550044, "topupAmount": 1000000.00, "createdBy": "johndoe@example.com"}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Record<string, unknown>;
    for (const field of TOPUP_FIELDS) expect(body, field).toHaveProperty(field);
    expect(body).toMatchObject({
      beneficiaryAccountNumber: m.merchantAccountNumber,
      beneficiaryName: 'MERCHANT SANDBOX',
      beneficiaryCurrencyCode: 'MWK',
      sourceCurrencyCode: 'MWK',
      connectorName: 'National Bank of Malawi',
      amountSent: 1000000,
      amountReceived: 1000000,
      transactionFee: 0,
      transactionDescription: 'Fake Merchant Account Topup',
      transactionCode: 'BAM',
      transactionTypeName: 'Account to merchant',
      transactionStatusCode: 'S',
      transactionStatusName: 'Success',
      responseCode: 'S100',
      responseMessage: 'Transaction successful',
      connectorId: 550044,
      disbursmentBalance: before + 1000000,
    });
    expect(typeof body.beneficiaryAccountNumber).toBe('number');
    expect(body.transactionReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
    expect(body.sourceReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
    expect(body.sourceAccountNumber).toBe('3333888800');
    expect(body.bridgeReferenceNumber).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const d of ['transactionDate', 'valueDate', 'dateCreated']) expect(Date.parse(body[d] as string)).not.toBeNaN();
    // A retry answers the same transaction and credits nothing more.
    const again = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: { ...m.auth, ...key, 'content-type': 'application/json' }, payload: `{"merchantAccountNumber": ${m.merchantAccountNumber}, "connectorId": 550044, "topupAmount": 1000000.00, "createdBy": "johndoe@example.com"}` });
    expect(again.body).toBe(res.body);
    expect((await get(m, `/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`)).json().disbursmentBalance).toBe(before + 1000000);
  });

  it('names a wallet source for a wallet connector and answers in Chichewa when asked', async () => {
    const res = await post(m, '/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: 769375, topupAmount: '1500.50', createdBy: 'johndoe@example.com' }, { 'accept-language': 'ny' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ sourceAccountNumber: '111100000112', connectorName: 'Airtel Money', amountSent: 1500.5, transactionStatusName: 'Zayenda bwino' });
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Collections list

const LIST_FIELDS = ['sourceCustomerName', 'connectorName', 'transactionAmount', 'transactionFee', 'currencyCode', 'transactionStatusCode', 'transactionStatusName', 'transactionReferenceNumber', 'transactionDate'];

describe('POST /collections/getTransactions lists flat items', () => {
  it('to the documented body (searchBy TransactionReferenceNumber, isIncremental true), and "searchText": "" searches nothing', async () => {
    const c = await newMerchant(t, { accountName: 'Flat List Shop' });
    const first = await customPayment(t, c, 7_500_000);
    const second = await customPayment(t, c, 100_000);
    const ref = first.json().transaction.transactionReferenceNumber as string;
    const res = await post(c, '/collections/getTransactions', {
      merchantAccountNumber: c.merchantAccountNumber,
      transactionDate: today(),
      pageNumber: 1,
      numberOfReturnedRows: 20,
      isIncremental: true,
      searchBy: 'TransactionReferenceNumber',
      searchText: ref,
    });
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json() as Array<Record<string, unknown>>;
    expect(items).toHaveLength(1);
    for (const field of LIST_FIELDS) expect(items[0], field).toHaveProperty(field);
    expect(items[0]).toMatchObject({ transactionReferenceNumber: ref, transactionAmount: 75000, transactionFee: 750, currencyCode: 'MWK', transactionStatusCode: 'S', connectorName: 'National Bank of Malawi' });
    expect(items[0].transaction).toBeUndefined();
    const everything = await post(c, '/collections/getTransactions', { merchantAccountNumber: c.merchantAccountNumber, transactionDate: today(), pageNumber: 1, numberOfReturnedRows: 10, isIncremental: false, searchBy: 'TransactionReferenceNumber', searchText: '' });
    expect(everything.statusCode, everything.body).toBe(200);
    expect((everything.json() as Array<{ transactionReferenceNumber: string }>).map((x) => x.transactionReferenceNumber)).toEqual([second.json().transaction.transactionReferenceNumber, ref]);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Analytics

/** Puts `count` successful payouts (D) of `who` on `day` into the maintained aggregates. */
async function payoutsOn(who: TestMerchant, day: string, count: number, summaryType: 'D' | 'C' = 'D'): Promise<void> {
  await t.db.query(
    `insert into connector_daily_stats (merchant_account_number, summary_type, connector_id, currency_code, day, successful_count, successful_minor)
     values ($1, $4, 212188, 'MWK', $2::date, $3::bigint, $3::bigint * 100000)`,
    [who.merchantAccountNumber, day, count, summaryType],
  );
}

describe('GetDisbursementMetrics: date-times, transactionsTrend as a percentage, dailyTrend', () => {
  let a: TestMerchant;
  beforeAll(async () => {
    a = await newMerchant(t, { accountName: 'Trend Shop' });
    // January 2024: 8 payouts; the 31 days from 1 February: 9 (12.5 % more, the docs' example).
    await payoutsOn(a, '2024-01-05', 5);
    await payoutsOn(a, '2024-01-31', 3);
    await payoutsOn(a, '2024-02-01', 4);
    await payoutsOn(a, '2024-03-02', 5);
    await payoutsOn(a, '2024-03-03', 50);
  });

  const metrics = (body: Record<string, unknown>) => post(a, '/core/MerchantAnalytics/GetDisbursementMetrics', { merchantAccountNumber: a.merchantAccountNumber, ...body });

  it('answers the documented body (summaryType "D", date-times) with a numeric transactionsTrend', async () => {
    const res = await post(a, '/core/MerchantAnalytics/GetDisbursementMetrics', { merchantAccountNumber: a.merchantAccountNumber, summaryType: 'D', fromDate: '2024-02-01T00:00:00Z', toDate: '2024-03-02T23:59:59Z' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ fromDate: '2024-02-01', toDate: '2024-03-02', numberOfTransactions: 9, transactionsTrend: 12.5, previousFromDate: '2024-01-01', previousToDate: '2024-01-31', previousNumberOfTransactions: 8, successRate: 100 });
    expect(typeof body.transactionsTrend).toBe('number');
    expect(body.dailyTrend).toHaveLength(31);
    expect(body.dailyTrend[0]).toEqual({ date: '2024-02-01', numberOfTransactions: 4, numberOfSuccessfulTransactions: 4, numberOfFailedTransactions: 0, totalTransactionsAmount: 4000 });
    // The documentation's January example, verbatim: previous period December 2023 had none.
    const january = (await metrics({ summaryType: 'D', fromDate: '2024-01-01T00:00:00Z', toDate: '2024-01-31T23:59:59Z' })).json();
    expect(january).toMatchObject({ numberOfTransactions: 8, previousNumberOfTransactions: 0, transactionsTrend: 100, previousFromDate: '2023-12-01', previousToDate: '2023-12-31' });
  });

  it('takes a date-time as its UTC date (offsets included) and a plain date as it is', async () => {
    // 01:00 on 1 February in UTC+2 is 23:00 on 31 January UTC.
    const shifted = (await metrics({ fromDate: '2024-02-01T01:00:00+02:00', toDate: '2024-02-01T01:00:00+02:00' })).json();
    expect(shifted).toMatchObject({ fromDate: '2024-01-31', toDate: '2024-01-31', numberOfTransactions: 3 });
    const plain = (await metrics({ fromDate: '2024-02-01', toDate: '2024-02-01' })).json();
    expect(plain).toMatchObject({ fromDate: '2024-02-01', numberOfTransactions: 4, previousNumberOfTransactions: 3, transactionsTrend: 33.33 });
    const noZone = (await metrics({ fromDate: '2024-02-01T08:43:21.699084', toDate: '2024-02-01T23:59:59.999Z' })).json();
    expect(noZone).toMatchObject({ fromDate: '2024-02-01', toDate: '2024-02-01' });
  });

  it('is negative for a decline, 0 when both periods are empty, and counts collections for summaryType "C"', async () => {
    // 3 March (50) against 2 March (5): +900 %; 4 March (0) against 3 March (50): −100 %.
    expect((await metrics({ fromDate: '2024-03-03', toDate: '2024-03-03' })).json().transactionsTrend).toBe(900);
    expect((await metrics({ fromDate: '2024-03-04', toDate: '2024-03-04' })).json().transactionsTrend).toBe(-100);
    expect((await metrics({ fromDate: '2020-01-01', toDate: '2020-01-31' })).json()).toMatchObject({ numberOfTransactions: 0, previousNumberOfTransactions: 0, transactionsTrend: 0 });
    await payoutsOn(a, '2024-02-01', 2, 'C');
    expect((await metrics({ summaryType: 'C', fromDate: '2024-02-01', toDate: '2024-02-01' })).json()).toMatchObject({ summaryType: 'C', numberOfTransactions: 2, transactionsTrend: 100 });
  });

  it('refuses impossible date-times with 400 E900 and a message naming the field', async () => {
    for (const bad of ['2024-02-30T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:00:00+25:00', '9999-12-31T23:00:00-02:00', '2024-01-01T']) {
      const res = await metrics({ fromDate: bad, toDate: '2024-03-01' });
      expect(res.statusCode, bad).toBe(400);
      expect(problemOf(res).errorCode).toBe('E900');
    }
  });

  it('trendPercent: two decimals, 0 over 0, 100 from nothing', () => {
    expect(trendPercent(9, 8)).toBe(12.5);
    expect(trendPercent(2, 3)).toBe(-33.33);
    expect(trendPercent(0, 0)).toBe(0);
    expect(trendPercent(7, 0)).toBe(100);
    expect(trendPercent(0, 7)).toBe(-100);
  });
});

// The connector catalogue (E9, GetAll, get; product.md §7) and transaction limits (E10, §8).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  other = await newMerchant(t);
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = m.auth) => t.app.inject({ method: 'GET', url: `${BASE}${path}`, headers });

const DOCUMENTED = [
  { connectorId: 212188, connectorName: 'National Bank of Malawi', channelCode: 'B' },
  { connectorId: 221500, connectorName: 'FDH Bank', channelCode: 'B' },
  { connectorId: 221300, connectorName: 'Standard Bank', channelCode: 'B' },
  { connectorId: 112400, connectorName: 'Airtel Money', channelCode: 'M' },
];

describe('E9 GET /core/Connectors/GetSummary', () => {
  it('lists the active connectors with exactly the documented fields (E9, and the documented record’s description, switch id and logo)', async () => {
    const res = await get('/core/Connectors/GetSummary');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<Record<string, unknown>>;
    expect(list.length).toBeGreaterThanOrEqual(10);
    for (const c of list) {
      expect(Object.keys(c).sort()).toEqual(['channelCode', 'connectorCode', 'connectorDescription', 'connectorId', 'connectorName', 'isActive', 'logoBase64', 'logoFormat', 'switchMerchantId']);
      expect(c.connectorId).toBeGreaterThanOrEqual(100000);
      expect(c.connectorId).toBeLessThanOrEqual(999999);
      expect(['B', 'M']).toContain(c.channelCode);
      expect(c.connectorCode).toMatch(/^[A-Z0-9]{2,12}$/);
      expect(c.isActive).toBe(true);
      expect(typeof c.connectorName).toBe('string');
    }
    expect(new Set(list.map((c) => c.connectorId)).size).toBe(list.length);
    expect(new Set(list.map((c) => c.connectorCode)).size).toBe(list.length);
  });

  it.each(DOCUMENTED)('resolves the documented id $connectorId ($connectorName)', async (doc) => {
    const list = (await get('/core/Connectors/GetSummary')).json() as Array<Record<string, unknown>>;
    expect(list.find((c) => c.connectorId === doc.connectorId)).toMatchObject({ ...doc, isActive: true });
  });

  it('includes the other banks and wallets of Malawi', async () => {
    const names = ((await get('/core/Connectors/GetSummary')).json() as Array<{ connectorName: string }>).map((c) => c.connectorName);
    for (const name of ['TNM Mpamba', 'NBS Bank', 'First Capital Bank', 'Ecobank', 'CDH Investment Bank', 'Centenary Bank']) expect(names).toContain(name);
  });

  it.each(['/api/core/Connectors/GetSummary', '/core/connectors/getsummary', '/CORE/CONNECTORS/GETSUMMARY', '/core/Connectors/GetSummary/'])('answers the same at %s', async (path) => {
    const canonical = await get('/core/Connectors/GetSummary');
    const res = await get(path);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(canonical.json());
  });

  it('leaves out an inactive connector', async () => {
    await t.db.query('update connectors set is_active = false where connector_id = 222100');
    try {
      const list = (await get('/core/Connectors/GetSummary')).json() as Array<{ connectorId: number }>;
      expect(list.map((c) => c.connectorId)).not.toContain(222100);
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = 222100');
    }
  });

  it('requires a token', async () => {
    const res = await get('/core/Connectors/GetSummary', {});
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
    expect((await get('/api/core/Connectors/GetSummary', { authorization: 'Bearer nope' })).statusCode).toBe(401);
  });

  it('answers 404 when the request names another merchant (query or header)', async () => {
    const query = await get(`/core/Connectors/GetSummary?merchantAccountNumber=${other.merchantAccountNumber}`);
    expect(query.statusCode).toBe(404);
    expect(problemOf(query).errorCode).toBe('E903');
    const header = await get('/core/Connectors/GetSummary', { ...m.auth, 'x-merchant-account-number': String(other.merchantAccountNumber) });
    expect(header.statusCode).toBe(404);
    const own = await get(`/core/Connectors/GetSummary?merchantAccountNumber=${m.merchantAccountNumber}`);
    expect(own.statusCode).toBe(200);
  });
});

describe('GET /core/connectors/GetAll', () => {
  it('lists every connector with its channel name and capabilities', async () => {
    const res = await get('/core/connectors/GetAll');
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<Record<string, unknown>>;
    expect(list.length).toBeGreaterThanOrEqual(10);
    for (const c of list) {
      expect(Object.keys(c).sort()).toEqual([
        'aliasOf',
        'channelCode',
        'channelName',
        'connectorCode',
        'connectorDescription',
        'connectorId',
        'connectorName',
        'isActive',
        'isCollectionAllowed',
        'isDisbursementAllowed',
        'logoBase64',
        'logoFormat',
        'switchMerchantId',
      ]);
      expect(c.channelName).toBe(c.channelCode === 'B' ? 'Bank' : 'Mobile Network Operator');
      expect(typeof c.isDisbursementAllowed).toBe('boolean');
      expect(typeof c.isCollectionAllowed).toBe('boolean');
    }
    for (const doc of DOCUMENTED) expect(list.find((c) => c.connectorId === doc.connectorId)).toMatchObject(doc);
  });

  it('includes inactive connectors, marked so', async () => {
    await t.db.query('update connectors set is_active = false where connector_id = 222100');
    try {
      const list = (await get('/core/connectors/GetAll')).json() as Array<{ connectorId: number; isActive: boolean }>;
      expect(list.find((c) => c.connectorId === 222100)?.isActive).toBe(false);
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = 222100');
    }
  });

  it('is served case-insensitively', async () => {
    expect((await get('/core/Connectors/getall')).statusCode).toBe(200);
  });

  it('requires a token', async () => {
    expect((await get('/core/connectors/GetAll', {})).statusCode).toBe(401);
  });

  it('answers 404 when the request names another merchant', async () => {
    const res = await get('/core/connectors/GetAll', { ...m.auth, 'x-merchant-account-number': String(other.merchantAccountNumber) });
    expect(res.statusCode).toBe(404);
  });
});

describe('GET /core/connectors/get', () => {
  it('returns one connector', async () => {
    const res = await get('/core/connectors/get?connectorId=112400');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      connectorName: 'Airtel Money',
      connectorId: 112400,
      isActive: true,
      channelCode: 'M',
      connectorCode: 'AIRTEL',
      channelName: 'Mobile Network Operator',
      isDisbursementAllowed: true,
      isCollectionAllowed: true,
      connectorDescription: 'The mobile money operator supports the processing of disbursement and collection transactions',
      switchMerchantId: '5553',
      logoBase64: expect.stringMatching(/^iVBORw0KGgo/),
      logoFormat: 'image/png',
      aliasOf: null,
    });
  });

  it('matches the query parameter name case-insensitively', async () => {
    const res = await get('/core/connectors/get?ConnectorId=212188');
    expect(res.statusCode).toBe(200);
    expect(res.json().connectorName).toBe('National Bank of Malawi');
  });

  it('answers 404 E903 for an unknown id', async () => {
    const res = await get('/core/connectors/get?connectorId=999999');
    expect(res.statusCode).toBe(404);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E903');
    expect(p.detail).toContain('999999');
  });

  it('answers in Chichewa when asked', async () => {
    const res = await get('/core/connectors/get?connectorId=999999', { ...m.auth, 'accept-language': 'ny' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-language']).toBe('ny');
    expect(problemOf(res).title).toBe('Sizinapezeke');
  });

  it.each([
    ['five digits', '12345'],
    ['seven digits', '1234567'],
    ['text', 'NBM'],
    ['a decimal', '212188.5'],
    ['nothing', ''],
  ])('answers 400 E900 to %s', async (_name, value) => {
    const res = await get(`/core/connectors/get?connectorId=${value}`);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
  });

  it('answers 400 when connectorId is missing', async () => {
    expect((await get('/core/connectors/get')).statusCode).toBe(400);
  });

  it('requires a token', async () => {
    expect((await get('/core/connectors/get?connectorId=112400', {})).statusCode).toBe(401);
  });

  it('answers 404 when the request names another merchant', async () => {
    const res = await get(`/core/connectors/get?connectorId=112400&merchantAccountNumber=${other.merchantAccountNumber}`);
    expect(res.statusCode).toBe(404);
  });
});

describe('E10 GET /merchants/limits/getAll', () => {
  it('returns the default limits for the four transaction codes', async () => {
    const res = await get(`/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`);
    expect(res.statusCode).toBe(200);
    const list = res.json() as Array<Record<string, unknown>>;
    expect(list.map((l) => l.transactionCode).sort()).toEqual(['BAM', 'MBA', 'MMW', 'RTP']);
    for (const l of list) {
      expect(Object.keys(l).sort()).toEqual(['currencyCode', 'dailyLimit', 'transactionCode', 'transactionDescription', 'transactionMaximumAmount', 'transactionMinimumAmount']);
      expect(l.currencyCode).toBe('MWK');
      expect(l.transactionMinimumAmount as number).toBeLessThanOrEqual(l.transactionMaximumAmount as number);
      expect(l.transactionMaximumAmount as number).toBeLessThanOrEqual(l.dailyLimit as number);
    }
    expect(list.find((l) => l.transactionCode === 'MMW')).toEqual({
      currencyCode: 'MWK',
      transactionCode: 'MMW',
      transactionDescription: 'Merchant to mobile wallet',
      transactionMinimumAmount: 100,
      transactionMaximumAmount: 10_000_000,
      dailyLimit: 20_000_000,
    });
    expect(list.find((l) => l.transactionCode === 'BAM')?.transactionDescription).toBe('Account to merchant');
    expect(list.find((l) => l.transactionCode === 'MBA')?.transactionDescription).toBe('Merchant to bank account');
    expect(list.find((l) => l.transactionCode === 'RTP')?.transactionDescription).toBe('Request to pay');
  });

  it("shows each merchant its own limits", async () => {
    await t.db.query(`update merchant_limits set maximum_amount_minor = 50000000 where merchant_account_number = $1 and transaction_code = 'MMW'`, [other.merchantAccountNumber]);
    const mine = (await get(`/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`)).json() as Array<Record<string, unknown>>;
    expect(mine.find((l) => l.transactionCode === 'MMW')?.transactionMaximumAmount).toBe(10_000_000);
    const theirs = (await get(`/merchants/limits/getAll?merchantAccountNumber=${other.merchantAccountNumber}`, other.auth)).json() as Array<Record<string, unknown>>;
    expect(theirs.find((l) => l.transactionCode === 'MMW')?.transactionMaximumAmount).toBe(500_000);
  });

  it('matches the query parameter name case-insensitively', async () => {
    expect((await get(`/merchants/limits/getAll?MerchantAccountNumber=${m.merchantAccountNumber}`)).statusCode).toBe(200);
  });

  it('answers 400 to a missing or malformed merchantAccountNumber', async () => {
    const missing = await get('/merchants/limits/getAll');
    expect(missing.statusCode).toBe(400);
    expect(problemOf(missing).errorCode).toBe('E900');
    const bad = await get('/merchants/limits/getAll?merchantAccountNumber=1234567');
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad).errors).toEqual(['Merchant Account Number should be 8 numbers only.']);
  });

  it('requires a token', async () => {
    expect((await get(`/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, {})).statusCode).toBe(401);
  });

  it("answers 404 for another merchant's limits, as for an account that does not exist", async () => {
    const theirs = await get(`/merchants/limits/getAll?merchantAccountNumber=${other.merchantAccountNumber}`);
    expect(theirs.statusCode).toBe(404);
    expect(problemOf(theirs).errorCode).toBe('E903');
    const nobody = await get('/merchants/limits/getAll?merchantAccountNumber=10000001');
    expect(nobody.statusCode).toBe(404);
    expect(problemOf(theirs).title).toBe(problemOf(nobody).title);
  });
});

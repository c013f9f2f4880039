// Settlement accounts (product.md §12, E7, E15): add (201, inactive), getAll, get, activate (one
// active account per merchant, held by the database even under concurrent activations), update
// (active only), deactivate and delete (inactive only), bad input and another merchant's
// accounts, against the real app and database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, clientError, dbState, newMerchant, startTestApp, type InjectResult, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR } from '../routes.ts';

let t: TestApp;
/** The merchant most tests act as. */
let m: TestMerchant;
/** Another merchant of the same organisation. */
let other: TestMerchant;

/** Bank connectors (channel B). */
const NBM = 212188;
const STANDARD = 221300;
/** A wallet (channel M): not a bank. */
const AIRTEL = 112400;
/** Centenary Bank: made inactive for this file. */
const INACTIVE_BANK = 222100;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Chikondi Stores' });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
  // This file's own database: the change stays here.
  await t.db.query('update connectors set is_active = false where connector_id = $1', [INACTIVE_BANK]);
});
afterAll(() => t.close());

let accountSeq = 0;
/** A fresh 10–16 digit bank account number. */
const accountNumber = (length = 12) => `1${String(Date.now()).slice(-8)}${String(++accountSeq).padStart(7, '0')}`.slice(0, length).padEnd(length, '7');

const post = (who: TestMerchant, path: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${BASE}/merchants/bankAccounts/${path}`, headers: { ...who.auth, ...headers }, payload });

const getReq = (who: TestMerchant, path: string, query: Record<string, string | number>) =>
  t.app.inject({ method: 'GET', url: `${BASE}/merchants/bankAccounts/${path}`, headers: who.auth, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });

const addReq = (who: TestMerchant, over: Record<string, unknown> = {}) =>
  post(who, 'add', { merchantAccountNumber: who.merchantAccountNumber, accountNumber: accountNumber(), connectorId: NBM, accountName: 'Chikondi Stores Ltd', capturedBy: ACTOR, ...over });
const activateReq = (who: TestMerchant, accountId: unknown, over: Record<string, unknown> = {}) => post(who, 'activate', { accountId, changedBy: ACTOR, ...over });
const deactivateReq = (who: TestMerchant, accountId: unknown, over: Record<string, unknown> = {}) => post(who, 'deactivate', { accountId, changedBy: ACTOR, ...over });
const deleteReq = (who: TestMerchant, accountId: unknown, over: Record<string, unknown> = {}) =>
  post(who, 'delete', { accountId, merchantAccountNumber: who.merchantAccountNumber, deletedBy: ACTOR, ...over });
const updateReq = (who: TestMerchant, accountId: unknown, over: Record<string, unknown> = {}) =>
  post(who, 'update', {
    merchantAccountNumber: String(who.merchantAccountNumber),
    accountId,
    accountNumber: accountNumber(),
    connectorId: STANDARD,
    accountName: 'Chikondi Stores Holdings',
    capturedBy: ACTOR,
    ...over,
  });
const getOne = (who: TestMerchant, accountId: unknown) => getReq(who, 'get', { accountId: String(accountId) });

interface AccountView {
  accountId: number;
  merchantAccountNumber: number;
  accountNumber: string;
  connectorId: number;
  connectorName: string;
  accountName: string;
  statusCode: string;
  statusName: string;
  isActive: boolean;
  capturedBy: string;
  dateCreated: string;
  modifiedBy: string | null;
  dateModified: string | null;
}

/** Adds an account through the API; returns its id. */
async function added(who: TestMerchant, over: Record<string, unknown> = {}): Promise<number> {
  const res = await addReq(who, over);
  expect(res.statusCode, res.body).toBe(201);
  return Number(res.headers['x-account-id']);
}

/** Adds and activates an account (after deactivating whatever was active); returns its id. */
async function activeAccount(who: TestMerchant, over: Record<string, unknown> = {}): Promise<number> {
  await t.db.query(`update settlement_accounts set status_code = 'I' where merchant_account_number = $1 and status_code = 'A'`, [who.merchantAccountNumber]);
  const id = await added(who, over);
  const res = await activateReq(who, id);
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

async function view(who: TestMerchant, accountId: number): Promise<AccountView> {
  const res = await getOne(who, accountId);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function row(accountId: number) {
  const { rows } = await t.db.query('select * from settlement_accounts where account_id = $1', [accountId]);
  return rows[0] as Record<string, unknown> | undefined;
}

async function activeIds(who: TestMerchant): Promise<number[]> {
  const { rows } = await t.db.query<{ account_id: number }>(`select account_id from settlement_accounts where merchant_account_number = $1 and status_code = 'A' order by account_id`, [
    who.merchantAccountNumber,
  ]);
  return rows.map((r) => r.account_id);
}

/** Runs `act`, which must be refused with `status` (and `errorCode` when given), and checks that no table changed. */
async function refusedUnchanged(act: () => Promise<InjectResult>, status: number, errorCode?: string) {
  const before = await dbState(t.db);
  const res = await act();
  const p = clientError(res, status);
  if (errorCode) expect(p.errorCode).toBe(errorCode);
  expect(await dbState(t.db)).toEqual(before);
  return p;
}

// ---------------------------------------------------------------------------------------------

describe('POST /merchants/bankAccounts/add', () => {
  it('answers 201 with a bare string naming the new id, the id in X-Account-Id, and stores an inactive account', async () => {
    const number = accountNumber(10);
    const res = await addReq(m, { accountNumber: number, accountName: 'Chikondi Stores Ltd' });
    expect(res.statusCode, res.body).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const message = JSON.parse(res.body);
    expect(typeof message).toBe('string');
    const id = Number(res.headers['x-account-id']);
    expect(Number.isInteger(id) && id > 0).toBe(true);
    // The documented text (docs.onekhusa.com merchants/CreateSettlementAccount); the id is in X-Account-Id.
    expect(message).toBe('Merchant bank account has been created successfully');

    expect(await row(id)).toMatchObject({
      merchant_account_number: m.merchantAccountNumber,
      account_number: number,
      connector_id: NBM,
      account_name: 'Chikondi Stores Ltd',
      status_code: 'I',
      captured_by: ACTOR,
      modified_by: null,
      date_modified: null,
    });
    const v = await view(m, id);
    expect(v).toEqual({
      accountId: id,
      merchantAccountNumber: m.merchantAccountNumber,
      accountNumber: number,
      connectorId: NBM,
      connectorName: 'National Bank of Malawi',
      accountName: 'Chikondi Stores Ltd',
      statusCode: 'I',
      statusName: 'Inactive',
      isActive: false,
      capturedBy: ACTOR,
      dateCreated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      modifiedBy: null,
      dateModified: null,
    });
  });

  it('accepts 10 and 16 digits, property names in any case and the number as a JSON number', async () => {
    for (const len of [10, 16]) expect(await row(await added(m, { accountNumber: accountNumber(len) }))).toMatchObject({ status_code: 'I' });
    const number = accountNumber(11);
    const res = await post(m, 'add', { MerchantAccountNumber: m.merchantAccountNumber, ACCOUNTNUMBER: Number(number), connectorid: STANDARD, accountname: 'Case Test', capturedby: ACTOR });
    expect(res.statusCode, res.body).toBe(201);
    expect(await row(Number(res.headers['x-account-id']))).toMatchObject({ account_number: number, connector_id: STANDARD, account_name: 'Case Test' });
  });

  it('answers in Chichewa when asked', async () => {
    const res = await addReq(m, {});
    expect(res.statusCode).toBe(201);
    const id = res.headers['x-account-id'];
    const ny = await post(m, 'add', { merchantAccountNumber: m.merchantAccountNumber, accountNumber: accountNumber(), connectorId: NBM, accountName: 'Ny', capturedBy: ACTOR }, { 'accept-language': 'ny' });
    expect(ny.statusCode).toBe(201);
    expect(ny.headers['content-language']).toBe('ny');
    expect(JSON.parse(ny.body)).toBe('Akaunti ya banki ya wamalonda yapangidwa bwino');
    expect(Number(ny.headers['x-account-id'])).toBeGreaterThan(Number(id));
  });

  it.each([
    ['9 digits', '123456789'],
    ['17 digits', '12345678901234567'],
    ['letters', '12345ABCDE'],
    ['a space', '12345 67890'],
    ['a hyphen', '12345-67890'],
    ['an empty string', ''],
    ['a negative number', -1234567890],
    ['a decimal', '1234567890.5'],
  ])('refuses an accountNumber with %s with 400 E900 and stores nothing', async (_name, value) => {
    const p = await refusedUnchanged(() => addReq(m, { accountNumber: value }), 400, 'E900');
    expect(p.errors.join(' ')).toMatch(/account ?number/i);
  });

  it('refuses a wallet connector with 402 E917, an inactive bank with 402 E913 and an unknown connector with 404, storing nothing', async () => {
    const wallet = await refusedUnchanged(() => addReq(m, { connectorId: AIRTEL }), 402, 'E917');
    expect(wallet.detail).toContain(String(AIRTEL));
    const inactive = await refusedUnchanged(() => addReq(m, { connectorId: INACTIVE_BANK }), 402, 'E913');
    expect(inactive.detail).toContain(String(INACTIVE_BANK));
    const unknown = await refusedUnchanged(() => addReq(m, { connectorId: 999999 }), 404, 'E903');
    expect(unknown.detail).toContain('999999');
    await refusedUnchanged(() => addReq(m, { connectorId: 12345 }), 400, 'E900');
    await refusedUnchanged(() => addReq(m, { connectorId: 'NBM' }), 400, 'E900');
  });

  it.each([
    ['101 characters', 'A'.repeat(101)],
    ['an empty name', ''],
  ])('refuses an accountName of %s with 400 E900', async (_name, accountName) => {
    await refusedUnchanged(() => addReq(m, { accountName }), 400, 'E900');
  });

  it('accepts an accountName of 100 characters', async () => {
    expect(await row(await added(m, { accountName: 'B'.repeat(100) }))).toMatchObject({ account_name: 'B'.repeat(100) });
  });

  it.each([['not-an-email'], ['ops@shop'], ['ops shop@shop.mw'], ['@shop.mw'], [`${'a'.repeat(116)}@x.mw`], ['']])('refuses capturedBy %j with 400 E900', async (capturedBy) => {
    await refusedUnchanged(() => addReq(m, { capturedBy }), 400, 'E900');
  });

  it('refuses missing fields with one message per field', async () => {
    const p = await refusedUnchanged(() => post(m, 'add', { merchantAccountNumber: m.merchantAccountNumber }), 400, 'E900');
    expect(p.errors.length).toBeGreaterThanOrEqual(4);
  });
});

describe('GET /merchants/bankAccounts/getAll and /get', () => {
  it("lists the merchant's own accounts, oldest first, and none of another merchant's", async () => {
    const mine = [await added(m), await added(m)];
    const theirs = await added(other);
    const res = await getReq(m, 'getAll', { merchantAccountNumber: m.merchantAccountNumber });
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json() as AccountView[];
    const ids = list.map((a) => a.accountId);
    expect(ids).toEqual(expect.arrayContaining(mine));
    expect(ids).not.toContain(theirs);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(list.every((a) => a.merchantAccountNumber === m.merchantAccountNumber)).toBe(true);
    const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from settlement_accounts where merchant_account_number = $1', [m.merchantAccountNumber]);
    expect(list).toHaveLength(rows[0].n);
  });

  it('lists nothing for a merchant without accounts', async () => {
    const fresh = await newMerchant(t, { organisationId: m.organisationId });
    const res = await getReq(fresh, 'getAll', { merchantAccountNumber: fresh.merchantAccountNumber });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });

  it('gets one account by ?accountId= and ?AccountId=', async () => {
    const id = await added(m);
    expect((await view(m, id)).accountId).toBe(id);
    const res = await getReq(m, 'get', { AccountId: id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().accountId).toBe(id);
  });

  it.each([['0'], ['-1'], ['abc'], ['1.5'], ['9007199254740992']])('refuses accountId %j with 400 E900', async (accountId) => {
    clientError(await getOne(m, accountId), 400);
  });

  it('answers 404 E903 to an unknown accountId', async () => {
    const p = clientError(await getOne(m, 2_000_000_000), 404);
    expect(p.errorCode).toBe('E903');
  });
});

describe('E7 POST /merchants/bankAccounts/activate', () => {
  it('activates an inactive account: 200 with a bare string, status A, who and when recorded', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await added(who);
    const res = await activateReq(who, id, { changedBy: 'treasurer@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toBe('Merchant bank account has been activated successfully');
    expect(await row(id)).toMatchObject({ status_code: 'A', modified_by: 'treasurer@shop.mw', date_modified: expect.any(Date) });
    expect(await view(who, id)).toMatchObject({ statusCode: 'A', statusName: 'Active', isActive: true, modifiedBy: 'treasurer@shop.mw' });
    expect(await activeIds(who)).toEqual([id]);
  });

  it('refuses a second activation while one is active with 402 E926 naming the active account, changing nothing', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const activeNumber = accountNumber(14);
    const first = await activeAccount(who, { accountNumber: activeNumber });
    const second = await added(who);
    const p = await refusedUnchanged(() => activateReq(who, second), 402, 'E926');
    expect(p.detail).toContain(String(first));
    expect(p.detail).toContain(activeNumber);
    expect(await activeIds(who)).toEqual([first]);
    expect((await row(second))!.status_code).toBe('I');
  });

  it('activating the active account again is a 200 no-op', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    const before = await dbState(t.db);
    const res = await activateReq(who, id, { changedBy: 'someone.else@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('after deactivating the active account, another can be activated', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const first = await activeAccount(who);
    const second = await added(who);
    expect((await deactivateReq(who, first)).statusCode).toBe(200);
    expect((await activateReq(who, second)).statusCode).toBe(200);
    expect(await activeIds(who)).toEqual([second]);
  });

  it('of 10 concurrent activations of different accounts exactly one succeeds; the rest get 402 E926 naming it', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push(await added(who));
    const answers = await Promise.all(ids.map((id) => activateReq(who, id)));
    const winners = ids.filter((_id, i) => answers[i].statusCode === 200);
    expect(winners, answers.map((a) => `${a.statusCode} ${a.body.slice(0, 120)}`).join('\n')).toHaveLength(1);
    const losers = answers.filter((a) => a.statusCode !== 200);
    expect(losers).toHaveLength(9);
    for (const res of losers) {
      const p = clientError(res, 402);
      expect(p.errorCode).toBe('E926');
      expect(p.detail).toContain(String(winners[0]));
    }
    // The database agrees: one active account, the winner.
    expect(await activeIds(who)).toEqual(winners);
    const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from settlement_accounts where merchant_account_number = $1 and status_code = 'I'`, [who.merchantAccountNumber]);
    expect(rows[0].n).toBe(9);
  });

  it('concurrent activations of the same account all succeed and leave it active', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await added(who);
    const answers = await Promise.all(Array.from({ length: 5 }, () => activateReq(who, id)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await activeIds(who)).toEqual([id]);
  });

  it('the database itself refuses a second active account', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    await activeAccount(who);
    const second = await added(who);
    await expect(t.db.query(`update settlement_accounts set status_code = 'A' where account_id = $1`, [second])).rejects.toMatchObject({ constraint: 'settlement_accounts_one_active' });
  });

  it('refuses a bad accountId or changedBy with 400 E900, an unknown one with 404', async () => {
    const id = await added(m);
    await refusedUnchanged(() => activateReq(m, 'abc'), 400, 'E900');
    await refusedUnchanged(() => activateReq(m, 0), 400, 'E900');
    await refusedUnchanged(() => activateReq(m, id, { changedBy: 'nobody' }), 400, 'E900');
    await refusedUnchanged(() => post(m, 'activate', { changedBy: ACTOR }), 400, 'E900');
    await refusedUnchanged(() => activateReq(m, 2_000_000_000), 404, 'E903');
  });
});

describe('E15 POST /merchants/bankAccounts/update', () => {
  it('updates the active account: number, bank, holder and who changed it', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    const number = accountNumber(16);
    const res = await updateReq(who, id, { accountNumber: number, connectorId: STANDARD, accountName: 'New Holder', capturedBy: 'accounts@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toBe('Merchant bank account has been updated successfully');
    expect(await view(who, id)).toMatchObject({
      accountNumber: number,
      connectorId: STANDARD,
      connectorName: 'Standard Bank',
      accountName: 'New Holder',
      statusCode: 'A',
      modifiedBy: 'accounts@shop.mw',
      dateModified: expect.any(String),
    });
  });

  it('takes merchantAccountNumber as a number too', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    const res = await updateReq(who, id, { merchantAccountNumber: who.merchantAccountNumber, accountName: 'Numeric Merchant' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await row(id))!.account_name).toBe('Numeric Merchant');
  });

  it('refuses an inactive account with 402 E916, changing nothing', async () => {
    const id = await added(m);
    const p = await refusedUnchanged(() => updateReq(m, id), 402, 'E916');
    expect(p.detail).toContain(String(id));
  });

  it('refuses bad input with a clear 4xx, changing nothing', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    for (const accountNumber of ['123456789', '12345678901234567', 'ABCDEFGHIJ', '']) await refusedUnchanged(() => updateReq(who, id, { accountNumber }), 400, 'E900');
    await refusedUnchanged(() => updateReq(who, id, { connectorId: AIRTEL }), 402, 'E917');
    await refusedUnchanged(() => updateReq(who, id, { connectorId: INACTIVE_BANK }), 402, 'E913');
    await refusedUnchanged(() => updateReq(who, id, { connectorId: 999999 }), 404, 'E903');
    await refusedUnchanged(() => updateReq(who, id, { accountName: 'C'.repeat(101) }), 400, 'E900');
    await refusedUnchanged(() => updateReq(who, id, { accountName: '' }), 400, 'E900');
    await refusedUnchanged(() => updateReq(who, id, { capturedBy: 'not-an-email' }), 400, 'E900');
    await refusedUnchanged(() => updateReq(who, id, { accountId: 'x' }), 400, 'E900');
  });
});

describe('POST /merchants/bankAccounts/deactivate', () => {
  it('deactivates the active account; deactivating it again is a no-op', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    const res = await deactivateReq(who, id, { changedBy: 'treasurer@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toBe('Merchant bank account has been deactivated successfully');
    expect(await row(id)).toMatchObject({ status_code: 'I', modified_by: 'treasurer@shop.mw' });
    expect(await activeIds(who)).toEqual([]);
    const before = await dbState(t.db);
    expect((await deactivateReq(who, id)).statusCode).toBe(200);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('refuses bad input with 400 and an unknown account with 404', async () => {
    const id = await added(m);
    await refusedUnchanged(() => deactivateReq(m, id, { changedBy: 'x' }), 400, 'E900');
    await refusedUnchanged(() => deactivateReq(m, -5), 400, 'E900');
    await refusedUnchanged(() => deactivateReq(m, 2_000_000_000), 404, 'E903');
  });
});

describe('POST /merchants/bankAccounts/delete', () => {
  it('refuses the active account with 402 E916; deletes it once inactive; 404 afterwards', async () => {
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const id = await activeAccount(who);
    const p = await refusedUnchanged(() => deleteReq(who, id), 402, 'E916');
    expect(p.detail).toContain(String(id));
    expect((await deactivateReq(who, id)).statusCode).toBe(200);
    const res = await deleteReq(who, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toBe('Merchant bank account has been deleted successfully');
    expect(await row(id)).toMatchObject({ status_code: 'D', deleted_by: ACTOR, date_deleted: expect.any(Date) });
    clientError(await getOne(who, id), 404);
    await refusedUnchanged(() => deleteReq(who, id), 404, 'E903');
    await refusedUnchanged(() => activateReq(who, id), 404, 'E903');
    await refusedUnchanged(() => updateReq(who, id), 404, 'E903');
    await refusedUnchanged(() => deactivateReq(who, id), 404, 'E903');
    const list = (await getReq(who, 'getAll', { merchantAccountNumber: who.merchantAccountNumber })).json() as AccountView[];
    expect(list.map((a) => a.accountId)).not.toContain(id);
  });

  it('deletes a never-activated account', async () => {
    const id = await added(m);
    expect((await deleteReq(m, id)).statusCode).toBe(200);
    expect(await row(id)).toMatchObject({ status_code: 'D', deleted_by: ACTOR });
  });

  it('refuses bad input with 400 E900', async () => {
    const id = await added(m);
    await refusedUnchanged(() => deleteReq(m, id, { deletedBy: 'nobody' }), 400, 'E900');
    await refusedUnchanged(() => deleteReq(m, 'one'), 400, 'E900');
    await refusedUnchanged(() => post(m, 'delete', { accountId: id, deletedBy: ACTOR }), 400, 'E900');
  });
});

describe("another merchant's settlement account", () => {
  // `other` owns the account; m names it with its own token and its own merchant number.
  let inactiveId: number;
  let activeId: number;
  beforeAll(async () => {
    inactiveId = await added(other);
    activeId = await activeAccount(other);
  });

  it.each([
    ['get', () => getOne(m, inactiveId)],
    ['get (active)', () => getOne(m, activeId)],
    ['activate', () => activateReq(m, inactiveId)],
    ['activate (active)', () => activateReq(m, activeId)],
    ['deactivate', () => deactivateReq(m, activeId)],
    ['update', () => updateReq(m, activeId)],
    ['delete', () => deleteReq(m, inactiveId)],
  ] as Array<[string, () => Promise<InjectResult>]>)('%s answers 404 E903 and changes nothing', async (_name, act) => {
    const p = await refusedUnchanged(act, 404, 'E903');
    expect(p.detail).not.toContain(String(other.merchantAccountNumber));
  });

  it("leaves the other merchant's accounts as they were", async () => {
    expect((await row(inactiveId))!.status_code).toBe('I');
    expect(await activeIds(other)).toEqual([activeId]);
    // And m may still activate one of its own, other's active account notwithstanding.
    const who = await newMerchant(t, { organisationId: m.organisationId });
    const own = await added(who);
    expect((await activateReq(who, own)).statusCode).toBe(200);
  });
});

// The console's settlement accounts over HTTP (app.inject with a cookie-keeping client, a real
// database): an administrator adds accounts (inactive), activates one, is refused a second active
// one with the service's message naming the first, changes the active one, deactivates it and
// deletes an inactive one; the active one cannot be deleted, an inactive one not changed. Every form
// shows its fields' problems beside the input as typed; a double submit adds one account; the
// signed-in user is the actor and the audit log names them; other roles get 403 and another
// merchant's account 404. The API reads what the console wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser, textOf, type ConsoleUserInfo } from '../client.ts';
import { BASE, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';

const LIST = '/console/settlement-accounts';
const ADD = `${LIST}/add`;
const FDH = 221500;
const NBM = 212188;
const AIRTEL = 112400;

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let admin: ConsoleUserInfo;
let otherAccountId: number;
let ipSeq = 0;

beforeAll(async () => {
  t = await startTestApp();
  ({ m, other, admin } = await merchantsAndAdmin(t, { merchant: { accountName: 'Zomba Grocers' }, admin: { firstName: 'Kondwani' } }));
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/merchants/bankAccounts/add`,
    headers: other.auth,
    payload: { merchantAccountNumber: other.merchantAccountNumber, accountNumber: '9000000001', connectorId: NBM, accountName: 'Another Shop Ltd', capturedBy: 'ops@another.mw' },
  });
  expect(res.statusCode, res.body).toBe(201);
  otherAccountId = Number(res.headers['x-account-id']);
});
afterAll(async () => {
  await t?.close();
});

function client(): ConsoleClient {
  ipSeq += 1;
  return new ConsoleClient(t, `10.40.${Math.floor(ipSeq / 250)}.${ipSeq % 250}`);
}

async function signedIn(user: { email: string; password: string }, page = LIST): Promise<ConsoleClient> {
  const c = client();
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
  expect((await c.get(page)).statusCode).toBe(200);
  return c;
}

function formKey(html: string, formId: string): string {
  const key = new RegExp(`id="${formId}"[^]*?name="_form" value="([0-9a-f-]{36})"`).exec(html)?.[1];
  if (!key) throw new Error(`no form key in #${formId}`);
  return key;
}

function inputValue(html: string, id: string): string | undefined {
  const tag = new RegExp(`<input[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0];
  return tag ? /\svalue="([^"]*)"/.exec(tag)?.[1]?.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"') : undefined;
}

interface AccountRow {
  account_id: number;
  account_number: string;
  connector_id: number;
  account_name: string;
  status_code: string;
  captured_by: string;
  modified_by: string | null;
  deleted_by: string | null;
}

async function accounts(): Promise<AccountRow[]> {
  const { rows } = await t.db.query<AccountRow>(
    'select account_id, account_number, connector_id, account_name, status_code, captured_by, modified_by, deleted_by from settlement_accounts where merchant_account_number = $1 order by account_id',
    [m.merchantAccountNumber],
  );
  return rows;
}

async function add(c: ConsoleClient, accountNumber: string, connectorId = FDH, accountName = 'Zomba Grocers Ltd'): Promise<number> {
  const page = await c.get(LIST);
  const res = await c.post(ADD, { connectorId: String(connectorId), accountNumber, accountName, _form: formKey(page.body, 'add-form') });
  expect(res.statusCode, res.body).toBe(303);
  expect(res.headers.location).toBe(`${LIST}?notice=notice.settlement.added`);
  const row = (await accounts()).find((a) => a.account_number === accountNumber.replace(/\D/g, ''));
  expect(row).toBeDefined();
  return row!.account_id;
}

/** Presses an account's button on the page as it is now. */
async function press(c: ConsoleClient, verb: 'activate' | 'deactivate' | 'delete', accountId: number, page?: string) {
  const html = page ?? (await c.get(LIST)).body;
  return c.post(`${LIST}/${accountId}/${verb}`, { _form: formKey(html, `${verb}-${accountId}`) });
}

async function audit(action: string): Promise<Array<{ user_id: string; detail: Record<string, unknown> }>> {
  const { rows } = await t.db.query<{ user_id: string; detail: Record<string, unknown> }>(
    'select user_id, detail from console_audit_log where merchant_account_number = $1 and action = $2 order by at',
    [m.merchantAccountNumber, action],
  );
  return rows;
}

describe('settlement accounts', () => {
  it('adds accounts (inactive), keeps one active at a time with the service\'s refusal, changes, deactivates and deletes', async () => {
    const c = await signedIn(admin);
    expect((await c.get(LIST)).body).toContain('id="accounts-empty"');

    const first = await add(c, '1005 6387 23');
    const second = await add(c, '2000000002', NBM, 'Zomba Grocers Payroll');
    expect(await accounts()).toMatchObject([
      { account_id: first, account_number: '1005638723', connector_id: FDH, status_code: 'I', captured_by: admin.email },
      { account_id: second, account_number: '2000000002', connector_id: NBM, status_code: 'I', captured_by: admin.email },
    ]);
    const listed = await c.get(`${LIST}?notice=notice.settlement.added`);
    expect(textOf(listed.body, 'notice')).toContain('inactive until you activate it');
    expect(textOf(listed.body, `account-${first}`)).toContain('FDH Bank');
    expect(listed.body).toMatch(new RegExp(`id="account-${first}"[^>]*data-status="I"`));

    const activated = await press(c, 'activate', first);
    expect(activated.statusCode, activated.body).toBe(303);
    expect(activated.headers.location).toBe(`${LIST}?notice=notice.settlement.activated`);

    // A second one is refused while the first is active, with the service's message naming it.
    const refused = await press(c, 'activate', second);
    expect(refused.statusCode).toBe(402);
    expect(textOf(refused.body, 'error')).toBe(`Settlement account ${first} (1005638723) is already active; deactivate it first.`);
    expect((await accounts()).map((a) => a.status_code)).toEqual(['A', 'I']);
    // The active one offers no delete; a forged one is refused all the same.
    const page = (await c.get(LIST)).body;
    expect(page).not.toContain(`id="delete-${first}"`);
    const forgedDelete = await c.post(`${LIST}/${first}/delete`, { _form: formKey(page, `deactivate-${first}`) });
    expect(forgedDelete.statusCode).toBe(402);
    expect(textOf(forgedDelete.body, 'error')).toBe(`Settlement account ${first} is active; deactivate it before deleting it.`);
    // An inactive one cannot be changed (its page is a stale one).
    const staleEdit = await c.get(`${LIST}/${second}/edit`);
    const notActive = await c.post(`${LIST}/${second}/update`, { connectorId: String(NBM), accountNumber: '2000000003', accountName: 'X', _form: formKey(staleEdit.body, 'edit-form') });
    expect(notActive.statusCode).toBe(402);
    expect(textOf(notActive.body, 'edit-problems')).toContain(`Settlement account ${second} is inactive; only the active account can be updated.`);
    expect(inputValue(notActive.body, 'edit-number')).toBe('2000000003');

    // The active one is changed.
    const edit = await c.get(`${LIST}/${first}/edit`);
    expect(inputValue(edit.body, 'edit-number')).toBe('1005638723');
    expect(edit.body).toMatch(new RegExp(`<option value="${FDH}" selected>FDH Bank`));
    const changed = await c.post(`${LIST}/${first}/update`, { connectorId: String(NBM), accountNumber: '1005638799', accountName: 'Zomba Grocers Limited', _form: formKey(edit.body, 'edit-form') });
    expect(changed.statusCode, changed.body).toBe(303);
    expect(changed.headers.location).toBe(`${LIST}?notice=notice.settlement.updated`);
    expect((await accounts())[0]).toMatchObject({ account_number: '1005638799', connector_id: NBM, account_name: 'Zomba Grocers Limited', status_code: 'A', modified_by: admin.email });

    // Deactivate the first, activate the second, delete the first.
    expect((await press(c, 'deactivate', first)).statusCode).toBe(303);
    expect((await press(c, 'activate', second)).statusCode).toBe(303);
    expect((await press(c, 'delete', first)).statusCode).toBe(303);
    expect(await accounts()).toMatchObject([
      { account_id: first, status_code: 'D', deleted_by: admin.email },
      { account_id: second, status_code: 'A' },
    ]);
    const after = await c.get(`${LIST}?notice=notice.settlement.deleted`);
    expect(after.body).not.toContain(`id="account-${first}"`);
    expect(textOf(after.body, 'notice')).toBe('The settlement account was deleted.');

    // The API reads what the console wrote.
    const api = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/bankAccounts/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
    expect(api.json()).toMatchObject([{ accountId: second, isActive: true, capturedBy: admin.email }]);

    // Each action is in the audit log with the signed-in user.
    expect(await audit('settlement_account.add')).toEqual([
      { user_id: admin.userId, detail: { accountId: first, accountNumber: '1005638723', connectorId: FDH } },
      { user_id: admin.userId, detail: { accountId: second, accountNumber: '2000000002', connectorId: NBM } },
    ]);
    expect((await audit('settlement_account.activate')).map((a) => a.detail.accountId)).toEqual([first, second]);
    expect((await audit('settlement_account.update')).map((a) => [a.user_id, a.detail.accountNumber, a.detail.previousAccountNumber])).toEqual([[admin.userId, '1005638799', '1005638723']]);
    expect((await audit('settlement_account.deactivate')).map((a) => a.detail.accountId)).toEqual([first]);
    expect((await audit('settlement_account.delete')).map((a) => a.detail.accountId)).toEqual([first]);
    const log = await c.get('/console/team/audit?action=settlement_account.activate');
    expect(log.body).toContain('Settlement account activated');
  });

  it('shows each field\'s problem beside the input as typed, and adds nothing', async () => {
    const c = await signedIn(admin);
    const before = (await accounts()).length;
    const page = await c.get(LIST);
    const bad = await c.post(ADD, { connectorId: '', accountNumber: '12ab', accountName: '   ', _form: formKey(page.body, 'add-form') });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'add-bank-error')).toBe('Choose a bank.');
    expect(textOf(bad.body, 'add-number-error')).toBe('An account number is 10 to 16 digits, nothing else.');
    expect(textOf(bad.body, 'add-name-error')).toBe('Enter the account name.');
    expect(textOf(bad.body, 'add-problems')).toContain('Nothing was changed');
    expect(inputValue(bad.body, 'add-number')).toBe('12ab');
    expect(bad.body).toMatch(/<input[^>]*id="add-number"[^>]*aria-invalid="true"/);

    const long = await c.post(ADD, { connectorId: String(AIRTEL), accountNumber: '12345678901234567', accountName: 'x'.repeat(101), _form: formKey(page.body, 'add-form') });
    expect(long.statusCode).toBe(400);
    // A wallet is not a bank: not offered, refused as not one of the list.
    expect(textOf(long.body, 'add-bank-error')).toBe('Choose one of the banks listed.');
    expect(textOf(long.body, 'add-number-error')).toBe('An account number is 10 to 16 digits, nothing else.');
    expect(textOf(long.body, 'add-name-error')).toBe('An account name has at most 100 characters.');
    expect(inputValue(long.body, 'add-name')).toBe('x'.repeat(101));

    const ny = await c.post(`${ADD}?lang=ny`, { connectorId: '', accountNumber: '1234567890', accountName: 'Zomba', _form: formKey(page.body, 'add-form') });
    expect(textOf(ny.body, 'add-bank-error')).toBe('Sankhani banki.');
    await c.get(`${LIST}?lang=en`);
    expect((await accounts()).length).toBe(before);
  });

  it('puts the service\'s refusal of a bank on the bank field', async () => {
    const c = await signedIn(admin);
    const active = (await accounts()).find((a) => a.status_code === 'A')!;
    const edit = await c.get(`${LIST}/${active.account_id}/edit`);
    // The account's bank stops working between the page and the submit: the service refuses it.
    await t.db.query('update connectors set is_active = false where connector_id = $1', [active.connector_id]);
    try {
      const res = await c.post(`${LIST}/${active.account_id}/update`, { connectorId: String(active.connector_id), accountNumber: '3000000003', accountName: 'Renamed', _form: formKey(edit.body, 'edit-form') });
      expect(res.statusCode).toBe(402);
      expect(textOf(res.body, 'edit-bank-error')).toBe(`Connector ${active.connector_id} is not active.`);
      expect(inputValue(res.body, 'edit-name')).toBe('Renamed');
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = $1', [active.connector_id]);
    }
    expect((await accounts()).find((a) => a.account_id === active.account_id)?.account_number).toBe(active.account_number);
  });

  it('adds one account for a double submit of the same form', async () => {
    const c = await signedIn(admin);
    const page = await c.get(LIST);
    const key = formKey(page.body, 'add-form');
    const fields = { connectorId: String(FDH), accountNumber: '4000000004', accountName: 'Twice Ltd', _form: key };
    const [a, b] = await Promise.all([c.post(ADD, fields), c.post(ADD, fields)]);
    expect([a.statusCode, b.statusCode]).toEqual([303, 303]);
    expect((await accounts()).filter((r) => r.account_number === '4000000004')).toHaveLength(1);
    // The same for a button pressed twice.
    const id = (await accounts()).find((r) => r.account_number === '4000000004')!.account_id;
    const list = (await c.get(LIST)).body;
    const del = { _form: formKey(list, `delete-${id}`) };
    const [x, y] = await Promise.all([c.post(`${LIST}/${id}/delete`, del), c.post(`${LIST}/${id}/delete`, del)]);
    expect([x.statusCode, y.statusCode]).toEqual([303, 303]);
    expect((await audit('settlement_account.delete')).filter((e) => e.detail.accountId === id)).toHaveLength(1);
    // And one after the other (a resubmitted page): the account is gone, the answer is the first one's.
    const again = await add(c, '4000000005');
    const key2 = formKey((await c.get(LIST)).body, `delete-${again}`);
    const once = await c.post(`${LIST}/${again}/delete`, { _form: key2 });
    const twice = await c.post(`${LIST}/${again}/delete`, { _form: key2 });
    expect([once.statusCode, twice.statusCode]).toEqual([303, 303]);
    expect(twice.headers.location).toBe(once.headers.location);
  });

  it('refuses every other role, also a forged POST, and answers 404 for another merchant\'s account', async () => {
    const target = (await accounts()).find((a) => a.status_code === 'A')!;
    for (const role of ['MERC_INITIATOR', 'MERC_REVIEWER', 'MERC_APPROVER', 'MERC_VIEWER']) {
      const user = await consoleUser(t, m, { role });
      const c = client();
      expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
      expect((await c.get('/console')).statusCode).toBe(200);
      expect((await c.get(LIST)).statusCode, role).toBe(403);
      expect((await c.get(`${LIST}/${target.account_id}/edit`)).statusCode, role).toBe(403);
      expect((await c.post(`${LIST}/${target.account_id}/deactivate`, { _form: crypto.randomUUID() })).statusCode, role).toBe(403);
      expect((await c.post(ADD, { connectorId: String(FDH), accountNumber: '5000000005', accountName: 'Forged', _form: crypto.randomUUID() })).statusCode, role).toBe(403);
    }
    expect((await accounts()).find((a) => a.account_id === target.account_id)?.status_code).toBe('A');
    expect((await accounts()).some((a) => a.account_number === '5000000005')).toBe(false);

    const c = await signedIn(admin);
    for (const id of [String(otherAccountId), '999999', 'abc', '0', '99999999999']) {
      expect((await c.get(`${LIST}/${id}/edit`)).statusCode, id).toBe(404);
      for (const verb of ['activate', 'deactivate', 'delete']) expect((await c.post(`${LIST}/${id}/${verb}`, { _form: crypto.randomUUID() })).statusCode, `${verb} ${id}`).toBe(404);
      expect((await c.post(`${LIST}/${id}/update`, { connectorId: String(FDH), accountNumber: '6000000006', accountName: 'X', _form: crypto.randomUUID() })).statusCode).toBe(404);
    }
    const { rows } = await t.db.query('select status_code, account_number from settlement_accounts where account_id = $1', [otherAccountId]);
    expect(rows[0]).toEqual({ status_code: 'I', account_number: '9000000001' });
    expect((await c.get(LIST)).body).not.toContain('9000000001');
  });
});

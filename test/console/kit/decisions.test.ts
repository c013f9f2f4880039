// Payout decisions in the console only (migration 0019): an administrator turns it on from the
// Security page; then the API's batch actions are refused whoever the body names (anyone holding
// the key could name anyone), capturing through the API still works, and the same decision taken in
// the console by the signed-in approver goes through, recorded under their name. Turned off, the API
// decides again. Only the merchant's administrators see or change the setting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser, textOf, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, addJson, batchStatus, CAPTURER, validateBatch, walletLine } from '../../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let admin: ConsoleUserInfo;
let approver: ConsoleUserInfo;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { levelNumber: 2 });
  admin = await consoleUser(t, m, { role: 'MERC_ADMIN' });
  approver = await consoleUser(t, m, { role: 'MERC_APPROVER' });
  await consoleUser(t, m, { role: 'MERC_INITIATOR', email: CAPTURER });
});
afterAll(async () => {
  await t?.close();
});

async function signedIn(user: ConsoleUserInfo): Promise<ConsoleClient> {
  seq += 1;
  const c = new ConsoleClient(t, `10.30.0.${seq}`);
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
  return c;
}

/** A validated batch captured through the API (awaiting approval at level 2). */
async function capturedBatch(): Promise<number> {
  const res = await addJson(t, m, [walletLine('1200.00')]);
  expect(res.statusCode, res.body).toBe(200);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  expect(await batchStatus(t, batchNumber)).toBe('P');
  return batchNumber;
}

const formKey = (html: string, formId: string) => new RegExp(`id="${formId}"[\\s\\S]*?name="_form" value="([^"]+)"`).exec(html)?.[1];

describe('payout decisions in the console only', () => {
  it('refuses the API\'s decisions while on, takes the signed-in approver\'s in the console, and gives the API them back when off', async () => {
    const a = await signedIn(admin);
    const page = await a.get('/console/security');
    expect(textOf(page.body, 'decisions-status')).toMatch(/^API and console/);
    const on = await a.post('/console/security/payout-decisions', { on: 'true', _form: formKey(page.body, 'decisions-form')! });
    expect(on.statusCode).toBe(303);
    const after = await a.get(on.headers.location as string);
    expect(textOf(after.body, 'notice')).toBe('Payout decisions are now taken in the console only.');
    expect(textOf(after.body, 'decisions-status')).toMatch(/^Console only/);

    // Capturing through the API still works; deciding does not, whoever the body names.
    const batchNumber = await capturedBatch();
    const refused = await act(t, m, 'approve', batchNumber, approver.email);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errorCode).toBe('E902');
    expect(refused.json().detail).toBe(`Merchant account ${m.merchantAccountNumber} takes its payout decisions in the merchant console only, where each is bound to the signed-in user: batch ${batchNumber} was not changed.`);
    expect(await batchStatus(t, batchNumber)).toBe('P');

    // The same decision in the console, by the signed-in approver.
    const p = await signedIn(approver);
    const batchPage = await p.get(`/console/payouts/batches/${batchNumber}`);
    expect(batchPage.statusCode).toBe(200);
    const approved = await p.post(`/console/payouts/batches/${batchNumber}/approve`, { _form: /action="[^"]*\/approve"[\s\S]*?name="_form" value="([^"]+)"/.exec(batchPage.body)![1] });
    expect(approved.statusCode, approved.body).toBe(303);
    expect(await batchStatus(t, batchNumber)).toBe('A');
    const { rows } = await t.db.query<{ approved_by: string }>('select approved_by from batches where batch_number = $1', [batchNumber]);
    expect(rows[0].approved_by).toBe(approver.email);

    // Off again: the API decides.
    const back = await a.get('/console/security');
    expect((await a.post('/console/security/payout-decisions', { on: 'false', _form: formKey(back.body, 'decisions-form')! })).statusCode).toBe(303);
    const next = await capturedBatch();
    expect((await act(t, m, 'approve', next, approver.email)).statusCode).toBe(200);

    const audit = await t.db.query<{ detail: Record<string, unknown> }>("select detail from console_audit_log where action = 'merchant.payout_decisions' and user_id = $1 order by at", [admin.userId]);
    expect(audit.rows.map((r) => r.detail.inConsoleOnly)).toEqual([true, false]);
  });

  it('is shown to and changed by administrators only', async () => {
    const p = await signedIn(approver);
    const page = await p.get('/console/security');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('id="decisions-form"');
    const forged = await p.post('/console/security/payout-decisions', { on: 'true', _form: crypto.randomUUID() });
    expect(forged.statusCode).toBe(403);
    const { rows } = await t.db.query<{ on: boolean }>('select payout_decisions_in_console as on from merchants where merchant_account_number = $1', [m.merchantAccountNumber]);
    expect(rows[0].on).toBe(false);
  });
});

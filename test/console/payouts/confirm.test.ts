// Confirming before money moves (issue 27), over HTTP (app.inject, real database): transferring a
// batch's funds, creating a single payout from the form and approving a single payout each ask
// first, showing the amount, the fee (the fee schedule's: MWK 100.00 a wallet payout) and the
// disbursement balance after; a POST without the confirmation shows it and moves nothing; the
// confirmed POST is checked by the service again (a balance that no longer covers it: 402).
// A pending single payout shows its fee (known from the fee schedule) before it is paid.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser, textOf as textOfTight, type ConsoleUserInfo, type Page } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, AIRTEL, apiBalances, topup, validateBatch, walletLine } from '../../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let solo: TestMerchant;
const users = {} as Record<'initiator' | 'approver' | 'soloAdmin', ConsoleUserInfo>;
const clients = {} as Record<keyof typeof users, ConsoleClient>;

const textOf = (html: string, id: string) => textOfTight(html.replace(/></g, '> <'), id);
const batchUrl = (n: number) => `/console/payouts/batches/${n}`;
const payoutUrl = (reference: string) => `/console/payouts/single/${reference}`;
const NEW = '/console/payouts/single/new';

/** The hidden fields of the form posting to `path` (the first such form on the page). */
function formFields(html: string, path: string): Record<string, string> {
  const form = new RegExp(`<form[^>]*action="${path}"[^>]*>([\\s\\S]*?)</form>`).exec(html)?.[1] ?? '';
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((x) => [x[1], x[2].replace(/&amp;/g, '&').replace(/&quot;/g, '"')]));
}

async function status(table: 'batches' | 'payouts', column: string, value: number | string): Promise<string> {
  const { rows } = await t.db.query(`select status_code from ${table} where ${column} = $1`, [value]);
  return rows[0]?.status_code;
}

/** An approved batch of MWK 1,500.00 + 250.50 (fees 2 × 100.00) captured by the initiator. */
async function approvedBatch(): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/disbursements/batch/addJson`,
    headers: m.auth,
    payload: { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: users.initiator.email }, transactions: [walletLine('1500.00'), walletLine('250.50')] },
  });
  expect(res.statusCode, res.body).toBe(200);
  const n: number = res.json().batchNumber;
  await validateBatch(t, n);
  expect((await act(t, m, 'approve', n, users.approver.email)).statusCode).toBe(200);
  return n;
}

const good = { connectorId: String(AIRTEL), beneficiaryAccountNumber: '265991234567', beneficiaryName: 'Chisomo Banda', transactionAmount: '2,500.50', sourceReferenceNumber: 'REFUND-77', transactionDescription: 'Refund' };

async function previewSingle(who: keyof typeof users, fields: Record<string, string>): Promise<Page> {
  const form = await clients[who].get(NEW);
  return clients[who].post(NEW, { ...formFields(form.body, NEW), ...fields });
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  m = await newMerchant(t, { accountName: 'Chikondi Stores', levelNumber: 2 });
  solo = await newMerchant(t, { accountName: 'Zomba Bakery', levelNumber: 1 });
  expect((await topup(t, m, 10_000_00)).statusCode).toBe(200);
  expect((await topup(t, solo, 5_000_00)).statusCode).toBe(200);
  users.initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR' });
  users.approver = await consoleUser(t, m, { role: 'MERC_APPROVER' });
  users.soloAdmin = await consoleUser(t, solo, { role: 'MERC_ADMIN' });
  let ip = 0;
  for (const who of Object.keys(users) as Array<keyof typeof users>) {
    clients[who] = new ConsoleClient(t, `10.78.0.${++ip}`);
    expect((await clients[who].signIn(users[who].email, users[who].password)).statusCode).toBe(303);
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('transferring a batch’s funds', () => {
  it('asks first, with the amount, the fees and the balance after; the unconfirmed POST moves nothing', async () => {
    const n = await approvedBatch();
    const before = await apiBalances(t, m);
    const page = await clients.approver.get(batchUrl(n));
    // The button is a disclosure now: its form, with the figures, behind it.
    expect(page.body).toMatch(/<details class="confirm" id="confirm-transferFunds">/);
    expect(textOf(page.body, 'debit-amount')).toBe('Amount MWK 1,750.50');
    expect(textOf(page.body, 'debit-fee')).toBe('Fee MWK 200.00');
    expect(textOf(page.body, 'debit-total')).toBe('Debited from your balance MWK 1,950.50');
    expect(textOf(page.body, 'debit-balance')).toBe(`Available balance now MWK ${(before.disbursementMinor / 100).toLocaleString('en', { minimumFractionDigits: 2 })}`);
    expect(textOf(page.body, 'debit-after')).toBe(`Balance after MWK ${((before.disbursementMinor - 1950_50) / 100).toLocaleString('en', { minimumFractionDigits: 2 })}`);

    // A POST without the confirmation (a page from before, a forged form): the confirmation, open; nothing moves.
    const path = `${batchUrl(n)}/transfer-funds`;
    const { confirmed: _, ...unconfirmed } = formFields(page.body, path);
    const asked = await clients.approver.post(path, { ...unconfirmed, _form: randomUUID() });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toMatch(/<details class="confirm" id="confirm-transferFunds" open>/);
    expect(await status('batches', 'batch_number', n)).toBe('A');
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor);

    const done = await clients.approver.post(path, formFields(asked.body, path));
    expect(done.statusCode, done.body).toBe(303);
    expect(await status('batches', 'batch_number', n)).toBe('T');
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 1950_50);
  });

  it('says when the balance does not cover it, and the service still refuses the confirmed transfer (402)', async () => {
    const n = await approvedBatch();
    const page = await clients.approver.get(batchUrl(n));
    // Spent elsewhere between the page and the click: the preview is no guard.
    const { disbursementMinor } = await apiBalances(t, m);
    await t.db.query(`update ledger_accounts set balance_minor = 1000_00 where merchant_account_number = $1 and kind = 'disbursement'`, [m.merchantAccountNumber]);
    try {
      const short = await clients.approver.get(batchUrl(n));
      expect(textOf(short.body, 'debit-after')).toBe('Balance after MWK -950.50');
      expect(textOf(short.body, 'debit-short')).toBe('Your balance does not cover this: top it up first, or it will be refused.');
      const path = `${batchUrl(n)}/transfer-funds`;
      const refused = await clients.approver.post(path, formFields(page.body, path));
      expect(refused.statusCode).toBe(402);
      expect(await status('batches', 'batch_number', n)).toBe('A');
    } finally {
      await t.db.query(`update ledger_accounts set balance_minor = $2 where merchant_account_number = $1 and kind = 'disbursement'`, [m.merchantAccountNumber, disbursementMinor]);
    }
  });
});

describe('creating a single payout', () => {
  it('shows the amount, the fee and the balance after before it pays (level 1: debited at once)', async () => {
    const before = await apiBalances(t, solo);
    const preview = await previewSingle('soloAdmin', good);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.body).toMatch(/<details class="confirm" id="confirm-create" open>/);
    expect(textOf(preview.body, 'confirm-create-text')).toBe('Pay Chisomo Banda, account 265991234567 (Airtel Money)? This is debited from your balance now:');
    expect(textOf(preview.body, 'debit-amount')).toBe('Amount MWK 2,500.50');
    expect(textOf(preview.body, 'debit-fee')).toBe('Fee MWK 100.00');
    expect(textOf(preview.body, 'debit-after')).toBe(`Balance after MWK ${((before.disbursementMinor - 2600_50) / 100).toLocaleString('en', { minimumFractionDigits: 2 })}`);
    // Nothing yet.
    expect((await t.db.query('select count(*)::int as n from payouts where merchant_account_number = $1', [solo.merchantAccountNumber])).rows[0].n).toBe(0);
    expect((await apiBalances(t, solo)).disbursementMinor).toBe(before.disbursementMinor);

    const paid = await clients.soloAdmin.post(NEW, formFields(preview.body.slice(preview.body.indexOf('id="confirm-create"')), NEW));
    expect(paid.statusCode, paid.body).toBe(303);
    expect(String(paid.headers.location)).toMatch(/notice=notice\.payoutActions\.singleSent$/);
    expect((await apiBalances(t, solo)).disbursementMinor).toBe(before.disbursementMinor - 2600_50);
  });

  it('in Chichewa too; and the service’s refusals come at the preview, on their field', async () => {
    await clients.soloAdmin.get(`${NEW}?lang=ny`);
    const ny = await previewSingle('soloAdmin', { ...good, sourceReferenceNumber: 'NY-1' });
    expect(textOf(ny.body, 'debit-fee')).toBe('Malipiro a ntchito MWK 100.00');
    await clients.soloAdmin.get(`${NEW}?lang=en`);
    const wrong = await previewSingle('soloAdmin', { ...good, beneficiaryAccountNumber: '12345' });
    expect(wrong.statusCode).toBe(400);
    expect(textOf(wrong.body, 'beneficiaryAccountNumber-error')).toMatch(/^Account 12345 is not a valid .+ account number\.$/);
    expect(wrong.body).not.toContain('id="confirm-create"');
  });

  it('at level 2 says nothing is debited until approval, and the pending payout shows its fee', async () => {
    const preview = await previewSingle('initiator', good);
    expect(textOf(preview.body, 'confirm-create-text')).toBe('Save a payout to Chisomo Banda, account 265991234567 (Airtel Money)? Nothing is debited until it is approved; then:');
    const saved = await clients.initiator.post(NEW, formFields(preview.body.slice(preview.body.indexOf('id="confirm-create"')), NEW));
    expect(saved.statusCode, saved.body).toBe(303);
    const reference = /\/single\/([A-Z0-9]{12})\?/.exec(String(saved.headers.location))![1];
    expect(await status('payouts', 'transaction_reference_number', reference)).toBe('P');
    const page = await clients.initiator.get(payoutUrl(reference));
    expect(textOf(page.body, 'payout-fee')).toBe('Fee MWK 100.00');
    const list = await clients.initiator.get('/console/payouts/single');
    expect(textOf(list.body, `single-${reference}`)).toContain('MWK 100.00');
  });
});

describe('approving a single payout', () => {
  it('asks first with the figures; the unconfirmed POST moves nothing', async () => {
    const preview = await previewSingle('initiator', { ...good, sourceReferenceNumber: 'APPROVE-1' });
    const saved = await clients.initiator.post(NEW, formFields(preview.body.slice(preview.body.indexOf('id="confirm-create"')), NEW));
    const reference = /\/single\/([A-Z0-9]{12})\?/.exec(String(saved.headers.location))![1];
    const before = await apiBalances(t, m);
    const page = await clients.approver.get(payoutUrl(reference));
    expect(page.body).toMatch(/<details class="confirm" id="confirm-approve">/);
    expect(textOf(page.body, 'debit-total')).toBe('Debited from your balance MWK 2,600.50');
    const path = `${payoutUrl(reference)}/approve`;
    const { confirmed: _, ...unconfirmed } = formFields(page.body, path);
    const asked = await clients.approver.post(path, unconfirmed);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toMatch(/<details class="confirm" id="confirm-approve" open>/);
    expect(await status('payouts', 'transaction_reference_number', reference)).toBe('P');
    const done = await clients.approver.post(path, formFields(asked.body, path));
    expect(done.statusCode, done.body).toBe(303);
    expect(await status('payouts', 'transaction_reference_number', reference)).toBe('T');
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 2600_50);
  });
});

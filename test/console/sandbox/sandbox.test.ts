// The console's sandbox tools at the HTTP level (app.inject, real database): the magic-suffix table
// equals the payout connector's own table; a simulated customer payment moves the collection balance
// exactly as the API's E11 does (the same ledger lines, the same event) and its page says what it
// made; paying an open timed account closes it (it leaves the open ones, its collection is in the
// collections list with its own page) and paying it again is refused on its field; bad input gets a
// message per field in English and Chichewa; a double submit pays once; a viewer and another
// merchant's timed account are refused; in production mode every sandbox address is the 404 page and
// the navigation has no link to them, while getting paid still works.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAGIC_SUFFIXES } from '../../../src/modules/disbursements/sandbox.ts';
import { ct } from '../../../src/modules/console/sandbox/texts.ts';
import { ConsoleClient, consoleUser, freshAuth, textOf, type Page } from '../client.ts';
import { BASE, ledgerInvariants, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { apiBalances, collectionFee, customPayment, NBM } from '../../money-ops.ts';

const SANDBOX = '/console/sandbox';
const AIRTEL = 112400;

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let c: ConsoleClient;
let email: string;
let userId: string;

function formKeyOf(html: string, formId: string): string {
  const start = html.indexOf(`id="${formId}"`);
  expect(start, `form ${formId}`).toBeGreaterThan(0);
  const key = /name="_form" value="([0-9a-f-]{36})"/.exec(html.slice(start))?.[1];
  if (!key) throw new Error(`no form key in ${formId}`);
  return key;
}

/** The collection a 303 after a payment points at. */
function paidReference(res: Page): string {
  expect(res.statusCode, res.body.slice(0, 800)).toBe(303);
  const match = /^\/console\/sandbox\/payments\/([A-Z0-9]{12})\?notice=notice\.sandboxTools\.(paid|paidTimed)$/.exec(String(res.headers.location));
  if (!match) throw new Error(`unexpected location ${String(res.headers.location)}`);
  return match[1];
}

async function signedIn(t: TestApp, who: TestMerchant, role: string, origin?: string): Promise<{ client: ConsoleClient; email: string; userId: string }> {
  const user = await consoleUser(t, who, { role });
  const client = origin ? new ConsoleClient(t, '127.0.0.1', origin) : new ConsoleClient(t);
  const res = await client.signIn(user.email, user.password);
  expect(res.statusCode, res.body).toBe(303);
  return { client, email: user.email, userId: user.userId };
}

async function simulate(client: ConsoleClient, fields: Record<string, string>, lang: 'en' | 'ny' = 'en'): Promise<Page> {
  const form = await client.get(`${SANDBOX}?lang=${lang}`);
  expect(form.statusCode).toBe(200);
  return client.post(`${SANDBOX}/customer-payments`, { _form: formKeyOf(form.body, 'simulate-form'), ...fields });
}

async function payTimed(client: ConsoleClient, fields: Record<string, string>, lang: 'en' | 'ny' = 'en'): Promise<Page> {
  const form = await client.get(`${SANDBOX}?lang=${lang}`);
  expect(form.statusCode).toBe(200);
  return client.post(`${SANDBOX}/timed-account-payments`, { _form: formKeyOf(form.body, 'pay-form'), ...fields });
}

/** A request to pay made in the console's get-paid page: its request id and timed account. */
async function consoleRequest(client: ConsoleClient, amount: string): Promise<{ requestId: number; timedAccountNumber: string }> {
  const form = await client.get('/console/get-paid?lang=en');
  const res = await client.post('/console/get-paid/requests', { _form: formKeyOf(form.body, 'rtp-form'), amount, description: 'Fertiliser, 2 bags', reference: `SBX${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e4)}` });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
  const requestId = Number(/requests\/(\d+)/.exec(String(res.headers.location))?.[1]);
  const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where request_id = $1', [requestId]);
  return { requestId, timedAccountNumber: rows[0].timed_account_number };
}

const collectionCount = async (who: TestMerchant) => (await t.db.query<{ n: number }>('select count(*)::int as n from collections where merchant_account_number = $1', [who.merchantAccountNumber])).rows[0].n;

/** A transfer's entries by account kind (merchant or system), for comparing what two payments posted. */
async function entriesOf(reference: string): Promise<Array<{ kind: string; amount_minor: number }>> {
  const { rows } = await t.db.query<{ kind: string; amount_minor: number }>(
    `select a.kind, e.amount_minor::int as amount_minor from ledger_transfers x join ledger_entries e on e.transfer_id = x.transfer_id
       join ledger_accounts a on a.account_id = e.account_id where x.reference = $1 order by a.kind`,
    [reference],
  );
  return rows;
}

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Kondwani Farm Supplies' });
  other = await newMerchant(t, { accountName: 'Another Shop' });
  ({ client: c, email, userId } = await signedIn(t, m, 'MERC_INITIATOR'));
});

afterAll(async () => {
  await t?.close();
});

describe('the magic suffixes', () => {
  it('are the payout connector’s own table: every suffix, its outcome, its response code and message', async () => {
    const page = await c.get(`${SANDBOX}?lang=en`);
    expect(page.statusCode).toBe(200);
    const table = page.body.slice(page.body.indexOf('id="suffix-table"'), page.body.indexOf('</table>', page.body.indexOf('id="suffix-table"')));
    const rows = [...table.matchAll(/<tr data-outcome="([^"]+)" data-suffix="([^"]+)">([\s\S]*?)<\/tr>/g)].map((row) => ({
      outcome: row[1],
      suffix: row[2],
      cells: [...row[3].matchAll(/<(?:td|th)[^>]*><div class="cell">([\s\S]*?)<\/div><\/(?:td|th)>/g)].map((cell) => cell[1].replace(/<[^>]+>/g, '').replace(/&#39;/g, "'").trim()),
    }));
    expect(rows.map((r) => ({ suffix: r.suffix, outcome: r.outcome, code: r.cells[2], message: r.cells[3] }))).toEqual(
      MAGIC_SUFFIXES.map((s) => ({ suffix: s.suffix, outcome: s.outcome, code: s.responseCode, message: s.responseMessage })),
    );
    expect(rows.map((r) => r.cells[0])).toEqual(MAGIC_SUFFIXES.map((s) => `…${s.suffix}`));
    // What happens, in words, with this deployment's timings.
    for (const r of rows) {
      const seconds = r.outcome === 'timeout' ? t.deps.config.payoutTimeoutSeconds : t.deps.config.payoutReversalSeconds;
      expect(r.cells[1]).toBe(ct('en', `sandboxTools.outcome.${r.outcome as 'fail' | 'timeout' | 'reverse'}`, { seconds }));
    }
  });
});

describe('a simulated customer payment', () => {
  it('moves the collection balance exactly as the API’s E11 does, and its page says what it made', async () => {
    const amountMinor = 1_234_550;
    const start = await apiBalances(t, m);
    const res = await simulate(c, { amount: '12,345.50', connector: String(NBM) });
    const reference = paidReference(res);
    const afterConsole = await apiBalances(t, m);
    expect(afterConsole.collectionMinor - start.collectionMinor).toBe(amountMinor - collectionFee(amountMinor));
    expect(afterConsole.disbursementMinor).toBe(start.disbursementMinor);

    // The API's own payment of the same amount from the same connector.
    const api = await customPayment(t, { ...m, auth: await freshAuth(t, m) }, amountMinor);
    expect(api.statusCode, api.body).toBe(200);
    const apiReference = api.json().transaction.transactionReferenceNumber as string;
    const afterApi = await apiBalances(t, m);
    expect(afterApi.collectionMinor - afterConsole.collectionMinor).toBe(afterConsole.collectionMinor - start.collectionMinor);
    expect(await entriesOf(reference)).toEqual(await entriesOf(apiReference));
    const events = await t.db.query<{ event_code: string }>(
      `select event_code from outbox_events where merchant_account_number = $1 and payload::jsonb ->> 'transactionReferenceNumber' in ($2, $3) order by event_id`,
      [m.merchantAccountNumber, reference, apiReference],
    );
    expect(events.rows.map((e) => e.event_code)).toEqual(['payment.success', 'payment.success']);
    const row = await t.db.query('select transaction_code, connector_id, created_by, beneficiary_account_number from collections where transaction_reference_number = $1', [reference]);
    expect(row.rows[0]).toEqual({ transaction_code: 'BAM', connector_id: NBM, created_by: email, beneficiary_account_number: m.paymentAccountNumber });
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });

    // What it made: the collection, its reference and the balance right after it (before the API's).
    const page = await c.get(String(res.headers.location));
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body, 'notice')).toBe(ct('en', 'notice.sandboxTools.paid'));
    expect(textOf(page.body, 'result-reference')).toBe(reference);
    expect(textOf(page.body, 'result-amount')).toBe('MWK 12,345.50');
    expect(textOf(page.body, 'result-credited')).toBe(`MWK ${((amountMinor - collectionFee(amountMinor)) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
    expect(textOf(page.body, 'result-balance')).toBe(`MWK ${(afterConsole.collectionMinor / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
    expect(page.body).toContain(`href="/console/collections/${reference}"`);
    // The collection is among the merchant's collections, with its own page.
    expect((await c.get('/console/collections')).body).toContain(`/console/collections/${reference}`);
    expect((await c.get(`/console/collections/${reference}`)).statusCode).toBe(200);

    const audit = await t.db.query('select user_id, detail from console_audit_log where merchant_account_number = $1 and action = $2', [m.merchantAccountNumber, 'sandbox.simulate_payment']);
    expect(audit.rows).toEqual([
      {
        user_id: userId,
        detail: { transactionReferenceNumber: reference, amountMinor, feeMinor: collectionFee(amountMinor), connectorId: NBM, collectionBalanceAfterMinor: afterConsole.collectionMinor },
      },
    ]);
  });

  it('refuses bad input with a message per field in English and Chichewa, and pays nothing', async () => {
    const before = await collectionCount(m);
    for (const lang of ['en', 'ny'] as const) {
      const res = await simulate(c, { amount: '', connector: '' }, lang);
      expect(res.statusCode).toBe(400);
      expect(textOf(res.body, 'simulate-amount-error')).toBe(ct(lang, 'form.error.amountRequired'));
      expect(textOf(res.body, 'simulate-connector-error')).toBe(ct(lang, 'form.error.connectorRequired'));
      expect(res.body).toMatch(/id="simulate-connector" name="connector" required aria-invalid="true"/);
    }
    // The merchant's limit for customer payments (BAM: MWK 100.00 to 50,000,000.00), stated and checked.
    const page = await c.get('/console/sandbox?lang=en');
    expect(textOf(page.body, 'simulate-amount-hint')).toBe(ct('en', 'form.amountHint', { min: '100.00', max: '50,000,000.00' }));
    const small = await simulate(c, { amount: '50', connector: '' });
    expect(textOf(small.body, 'simulate-amount-error')).toBe(ct('en', 'form.error.amountRange', { min: '100.00', max: '50,000,000.00' }));
    const huge = await simulate(c, { amount: '50000000.01', connector: '99' });
    expect(huge.statusCode).toBe(400);
    expect(textOf(huge.body, 'simulate-amount-error')).toBe(ct('en', 'form.error.amountRange', { min: '100.00', max: '50,000,000.00' }));
    expect(textOf(huge.body, 'simulate-connector-error')).toBe(ct('en', 'form.error.connector'));
    // A connector that takes no collections: E11's service refuses it, on its field.
    const unknown = await simulate(c, { amount: '100', connector: '999999' });
    expect(unknown.statusCode).toBe(404);
    expect(textOf(unknown.body, 'simulate-connector-error')).toContain('999999');
    expect(unknown.body).toContain('value="100"');
    expect(await collectionCount(m)).toBe(before);
  });

  it('pays once for a form sent twice', async () => {
    const form = await c.get(SANDBOX);
    const fields = { _form: formKeyOf(form.body, 'simulate-form'), amount: '500', connector: String(AIRTEL) };
    const before = await collectionCount(m);
    const [a, b] = await Promise.all([c.post(`${SANDBOX}/customer-payments`, fields), c.post(`${SANDBOX}/customer-payments`, fields)]);
    expect(paidReference(a)).toBe(paidReference(b));
    expect(paidReference(await c.post(`${SANDBOX}/customer-payments`, fields))).toBe(paidReference(a));
    expect(await collectionCount(m)).toBe(before + 1);
  });
});

describe('paying a timed account', () => {
  it('pays an open request to pay the amount asked: it is no longer open, its collection is listed, and paying it again is refused', async () => {
    const { requestId, timedAccountNumber } = await consoleRequest(c, '4,200');
    // The request's page links here with it chosen.
    const tools = await c.get(`${SANDBOX}?timedAccount=${timedAccountNumber}`);
    expect(tools.body).toMatch(new RegExp(`<input type="radio" id="pay-ta-${timedAccountNumber}" name="timedAccount" value="${timedAccountNumber}" checked`));
    const start = await apiBalances(t, m);
    const res = await c.post(`${SANDBOX}/timed-account-payments`, { _form: formKeyOf(tools.body, 'pay-form'), timedAccount: timedAccountNumber, connector: String(AIRTEL) });
    const reference = paidReference(res);
    const after = await apiBalances(t, m);
    expect(after.collectionMinor - start.collectionMinor).toBe(420_000 - collectionFee(420_000));

    const { rows } = await t.db.query('select r.status_code, c.transaction_code, c.amount_minor::int as amount_minor, c.created_by from payment_requests r join collections c on c.request_id = r.request_id where r.request_id = $1', [requestId]);
    expect(rows[0]).toEqual({ status_code: 'P', transaction_code: 'RTP', amount_minor: 420_000, created_by: email });
    const event = await t.db.query(`select event_code from outbox_events where merchant_account_number = $1 and payload::jsonb ->> 'transactionReferenceNumber' = $2`, [m.merchantAccountNumber, reference]);
    expect(event.rows).toEqual([{ event_code: 'payrequest.success' }]);

    const page = await c.get(String(res.headers.location));
    expect(textOf(page.body, 'notice')).toBe(ct('en', 'notice.sandboxTools.paidTimed'));
    expect(textOf(page.body, 'result-balance')).toBe(`MWK ${(after.collectionMinor / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
    expect(page.body).toContain(`href="/console/get-paid/requests/${requestId}"`);
    // Closed: not among the open ones (here nor on Get paid), paid on its page, its collection listed.
    expect((await c.get(SANDBOX)).body).not.toContain(`value="${timedAccountNumber}"`);
    expect((await c.get('/console/get-paid')).body).not.toContain(`id="open-${requestId}"`);
    const request = await c.get(`/console/get-paid/requests/${requestId}`);
    expect(textOf(request.body, 'request-status')).toBe('Paid');
    expect(request.body).toContain(`href="/console/collections/${reference}"`);
    expect((await c.get('/console/collections')).body).toContain(`/console/collections/${reference}`);

    // A stale page pays it again: the service's refusal, on the field, with the choice kept.
    const again = await c.post(`${SANDBOX}/timed-account-payments`, { _form: crypto.randomUUID(), timedAccount: timedAccountNumber, connector: String(AIRTEL) });
    expect(again.statusCode).toBe(402);
    expect(textOf(again.body, 'pay-timedAccount-error')).toContain(timedAccountNumber);
    expect(again.body).toContain(`value="${timedAccountNumber}" checked`);
    expect(await t.db.query('select 1 from collections where request_id = $1', [requestId]).then((r) => r.rowCount)).toBe(1);

    const audit = await t.db.query<{ detail: Record<string, unknown> }>('select detail from console_audit_log where merchant_account_number = $1 and action = $2', [m.merchantAccountNumber, 'sandbox.pay_timed_account']);
    expect(audit.rows.map((r) => r.detail)).toEqual([expect.objectContaining({ transactionReferenceNumber: reference, timedAccountNumber, requestId, amountMinor: 420_000 })]);
  });

  it('refuses an expired one, another merchant’s, and bad input, each on its field', async () => {
    const before = await collectionCount(m);
    // One stays open, so that the tools show their payment form.
    await consoleRequest(c, '150');
    const expired = await consoleRequest(c, '300');
    await t.db.query(`update payment_requests set created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second' where request_id = $1`, [expired.requestId]);
    const late = await payTimed(c, { timedAccount: expired.timedAccountNumber, connector: String(AIRTEL) });
    expect(late.statusCode).toBe(402);
    expect(textOf(late.body, 'pay-timedAccount-error')).toContain(expired.timedAccountNumber);

    const theirs = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/requestToPay/initiate`,
      headers: await freshAuth(t, other),
      payload: { merchantAccountNumber: other.merchantAccountNumber, transactionAmount: '250.00', transactionDescription: 'Theirs', referenceNumber: 'THEIRS00001', capturedBy: 'till@shop.mw' },
    });
    const foreign = await payTimed(c, { timedAccount: theirs.json().timedAccountNumber, connector: String(AIRTEL) });
    expect(foreign.statusCode).toBe(404);
    expect(textOf(foreign.body, 'pay-timedAccount-error')).toContain(theirs.json().timedAccountNumber);
    expect(foreign.body).not.toContain('Theirs');

    for (const lang of ['en', 'ny'] as const) {
      const bad = await payTimed(c, { timedAccount: '', connector: '' }, lang);
      expect(bad.statusCode).toBe(400);
      expect(textOf(bad.body, 'pay-timedAccount-error')).toBe(ct(lang, 'sandboxTools.error.timedAccountRequired'));
      expect(textOf(bad.body, 'pay-connector-error')).toBe(ct(lang, 'form.error.connectorRequired'));
    }
    const malformed = await payTimed(c, { timedAccount: '2345', connector: String(AIRTEL) });
    expect(textOf(malformed.body, 'pay-timedAccount-error')).toBe(ct('en', 'sandboxTools.error.timedAccount'));
    expect(await collectionCount(m)).toBe(before);
    expect(await collectionCount(other)).toBe(0);
  });

  it('answers another merchant’s payment page with the 404 page', async () => {
    const theirs = await customPayment(t, { ...other, auth: await freshAuth(t, other) }, 10_000);
    const reference = theirs.json().transaction.transactionReferenceNumber as string;
    expect((await c.get(`${SANDBOX}/payments/${reference}`)).statusCode).toBe(404);
    expect((await c.get(`${SANDBOX}/payments/not-a-reference`)).statusCode).toBe(404);
  });
});

describe('who may', () => {
  it('refuses a viewer the tools and a forged POST, and shows no link to them', async () => {
    const viewer = await signedIn(t, m, 'MERC_VIEWER');
    expect((await viewer.client.get('/console')).body).not.toContain('href="/console/sandbox"');
    expect((await viewer.client.get(SANDBOX)).statusCode).toBe(403);
    const before = await collectionCount(m);
    const forged = await viewer.client.post(`${SANDBOX}/customer-payments`, { _form: crypto.randomUUID(), amount: '100', connector: String(AIRTEL) });
    expect(forged.statusCode).toBe(403);
    expect(await collectionCount(m)).toBe(before);
    // An initiator sees the link.
    expect((await c.get('/console')).body).toContain('href="/console/sandbox"');
  });
});

describe('production mode', () => {
  let p: TestApp;
  beforeAll(async () => {
    p = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw' });
  });
  afterAll(async () => {
    await p?.close();
  });

  it('answers every sandbox address with the 404 page and shows no link to them; getting paid works', async () => {
    const pm = await newMerchant(p, { accountName: 'Live Shop' });
    // An initiator: production asks administrators and approvers to enrol an authenticator first.
    const { client } = await signedIn(p, pm, 'MERC_INITIATOR', 'https://pay.example.mw');
    const home = await client.get('/console');
    expect(home.statusCode).toBe(200);
    expect(home.body).not.toContain('/console/sandbox');
    expect(home.body).toContain('href="/console/get-paid"');
    for (const path of [SANDBOX, `${SANDBOX}?timedAccount=12345678`, `${SANDBOX}/payments/ABCDEF123456`, `${SANDBOX}/outbox`, `${SANDBOX}/outbox/1`]) expect((await client.get(path)).statusCode, path).toBe(404);
    for (const path of [`${SANDBOX}/customer-payments`, `${SANDBOX}/timed-account-payments`]) {
      const res = await client.post(path, { _form: crypto.randomUUID(), amount: '100', connector: String(AIRTEL), timedAccount: '12345678' });
      expect(res.statusCode, path).toBe(404);
    }
    const { rows } = await p.db.query<{ n: number }>('select count(*)::int as n from collections');
    expect(rows[0].n).toBe(0);

    const form = await client.get('/console/get-paid');
    expect(form.statusCode).toBe(200);
    const made = await client.post('/console/get-paid/requests', { _form: formKeyOf(form.body, 'rtp-form'), amount: '1000', description: 'Live order', reference: 'LIVE00001' });
    expect(made.statusCode, made.body.slice(0, 500)).toBe(303);
    const shown = await client.get(String(made.headers.location));
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('data-expires-at');
    expect(shown.body).not.toContain('/console/sandbox');
    // A checkout link starts with the public address.
    const again = await client.get('/console/get-paid');
    const checkout = await client.post('/console/get-paid/checkouts', {
      _form: formKeyOf(again.body, 'checkout-form'),
      amount: '1000',
      description: 'Live order',
      sourceReference: 'LIVE-2',
      successUrl: 'https://shop.example.mw/ok',
      failureUrl: 'https://shop.example.mw/no',
    });
    expect(checkout.statusCode, checkout.body.slice(0, 500)).toBe(303);
    expect((await client.get(String(checkout.headers.location))).body).toMatch(/id="checkout-url" value="https:\/\/pay\.example\.mw\/checkout\/pay\?ptid=[A-Za-z0-9_-]{32}"/);
  });
});

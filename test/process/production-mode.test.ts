// Production never makes money up (issue 13, items 1 and 8): in APP_MODE=production the
// sandbox-only operations do not exist under either prefix, the operator's funding is the only
// credit to a disbursement balance, the hosted checkout has no simulated Pay, and its form
// refuses posts from other sites. A body spelling one field twice is refused in any mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { payTimedAccount } from '../../src/modules/collections/service.ts';
import { ADMIN_TOKEN, BASE, clientError, dbState, ledgerInvariants, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

const PUBLIC = 'https://pay.example.mw';
const SHOP = 'https://shop.example.mw';
const NBM = 212188;
const WALLET = 112400;
const OPS = 'treasury@onekhusa.example';

/** The sandbox-only operations and a body each would accept in sandbox mode. */
function sandboxOnly(m: TestMerchant, timedAccountNumber = '10000001') {
  const mac = m.merchantAccountNumber;
  return [
    { path: '/merchants/accounts/topup', body: { merchantAccountNumber: mac, connectorId: NBM, topupAmount: '5000000000', createdBy: 'x@shop.mw' } },
    {
      path: '/collections/addFakeCustomPayment',
      body: {
        merchantAccountNumber: mac,
        connectorId: WALLET,
        sourceAccountNumber: '265991234567',
        sourceAccountName: 'Chisomo Banda',
        sourceReferenceNumber: 'REF-1',
        beneficiaryAccountNumber: m.paymentAccountNumber,
        transactionAmount: 1000,
        currencyCode: 'MWK',
        transactionDescription: 'made up',
        capturedBy: 'x@shop.mw',
      },
    },
    {
      path: '/collections/requestToPay/addFakeTransaction',
      body: { merchantAccountNumber: mac, transactionAmount: 1000, connectorId: WALLET, timedAccountNumber, currencyCode: 'MWK', capturedBy: 'x@shop.mw' },
    },
    { path: '/collections/reverse', body: { merchantAccountNumber: mac, transactionReferenceNumber: 'ABCDEF123456', reason: 'made up' } },
  ];
}

const SANDBOX_ONLY_PATHS = sandboxOnly({ merchantAccountNumber: 0 } as TestMerchant).map((op) => op.path.toLowerCase());

async function disbursementBalance(t: TestApp, m: TestMerchant): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().disbursmentBalance as number;
}

function fund(t: TestApp, merchantAccountNumber: number, body: Record<string, unknown>, token = ADMIN_TOKEN) {
  return t.app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchantAccountNumber}/fundings`, headers: { authorization: `Bearer ${token}` }, payload: body });
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

async function initiateCheckout(t: TestApp, m: TestMerchant, reference: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/checkout/rtp/initiate`,
    payload: {
      authentication: { apiKey: m.apiKey, apiSecret: m.apiSecret },
      merchant: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
      payment: { sourceReferenceNumber: reference, description: 'Maize flour', amount: '1500.00' },
      route: { successRedirectionUrl: `${SHOP}/paid`, failureRedirectionUrl: `${SHOP}/failed`, callbackApiUrl: null },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const out = res.json() as { paymentTransactionId: string; checkoutUrl: string };
  const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
  return { ...out, timedAccountNumber: rows[0].timed_account_number };
}

function postForm(t: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/checkout/pay',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

describe('production mode', () => {
  let t: TestApp;
  let m: TestMerchant;

  beforeAll(async () => {
    t = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: PUBLIC });
    m = await newMerchant(t, { accountName: 'Mzuzu Traders' });
  });
  afterAll(() => t?.close());

  describe('sandbox-only operations are absent', () => {
    for (const prefix of ['/live/v1', '/sandbox/v1']) {
      it(`answers 404 E903 to each under ${prefix} and changes nothing (a top-up once minted MWK 5,000,000,000)`, async () => {
        const before = await dbState(t.db);
        for (const op of sandboxOnly(m)) {
          const res = await t.app.inject({ method: 'POST', url: `${prefix}${op.path}`, headers: { ...m.auth, 'x-idempotency-key': `prod-absent-${op.path.length}-0001` }, payload: op.body });
          const problem = clientError(res, 404);
          expect(problem.errorCode, op.path).toBe('E903');
          // Exactly what an operation that never existed answers.
          expect(problem.detail).toContain('No operation');
        }
        expect(await dbState(t.db)).toEqual(before);
        expect(await disbursementBalance(t, m)).toBe(0);
      });
    }

    it('are not in the OpenAPI document, while the rest of the API is under both prefixes', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
      const paths = Object.keys(doc.paths).map((p) => p.toLowerCase());
      for (const op of SANDBOX_ONLY_PATHS) {
        expect(paths.filter((p) => p.endsWith(op)), op).toEqual([]);
      }
      expect(paths).toContain('/live/v1/merchants/accounts/get');
      expect(paths.some((p) => p.startsWith('/live/v1/') && p.endsWith('/collections/requesttopay/initiate'))).toBe(true);
      expect(paths).toContain('/admin/v1/merchants/{merchantaccountnumber}/fundings');
    });
  });

  describe('operator funding', () => {
    it('credits the disbursement balance from the bank settlement account, once per bank reference', async () => {
      const body = { amount: '250000.50', bankReference: 'FT24330XK9Q1', receivedOn: today(), recordedBy: OPS };
      const first = await fund(t, m.merchantAccountNumber, body);
      expect(first.statusCode, first.body).toBe(201);
      const funding = first.json();
      expect(funding).toMatchObject({ merchantAccountNumber: m.merchantAccountNumber, currencyCode: 'MWK', amount: 250000.5, bankReference: 'FT24330XK9Q1', receivedOn: today(), recordedBy: OPS });
      expect(funding.transactionReferenceNumber).toMatch(/^[A-Z0-9]{12}$/);
      expect(await disbursementBalance(t, m)).toBe(250000.5);

      // The same receipt again (spelled in lower case): the first record, nothing credited twice.
      const again = await fund(t, m.merchantAccountNumber, { ...body, bankReference: ' ft24330xk9q1 ' });
      expect(again.statusCode, again.body).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(funding);
      expect(await disbursementBalance(t, m)).toBe(250000.5);

      // The reference for another amount, day or merchant: 409 naming the first record.
      const other = await newMerchant(t, { accountName: 'Other' });
      for (const [target, change] of [
        [m.merchantAccountNumber, { amount: '250000.51' }],
        [m.merchantAccountNumber, { receivedOn: '2026-01-02' }],
        [other.merchantAccountNumber, {}],
      ] as const) {
        const res = await fund(t, target, { ...body, ...change });
        const problem = clientError(res, 409);
        expect(problem.errorCode).toBe('E906');
        expect(problem.detail).toContain('FT24330XK9Q1');
      }
      expect(await disbursementBalance(t, m)).toBe(250000.5);
      expect(await disbursementBalance(t, other)).toBe(0);

      const listed = await t.app.inject({ method: 'GET', url: `/admin/v1/merchants/${m.merchantAccountNumber}/fundings`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual([funding]);
      expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
      const report = await verifyLedger(t.db);
      expect(report.checks.find((c) => c.name === 'fundings')).toMatchObject({ checked: 1, failed: 0 });
      expect(report.ok).toBe(true);
    });

    it('credits exactly once when the same receipt is recorded many times at once', async () => {
      const target = await newMerchant(t, { accountName: 'Concurrent' });
      const body = { amount: 1000, bankReference: 'NBM-2026-11-24-0007', receivedOn: today(), recordedBy: OPS };
      const answers = await Promise.all(Array.from({ length: 12 }, () => fund(t, target.merchantAccountNumber, body)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(201));
      expect(answers.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
      expect(new Set(answers.map((a) => a.json().fundingId)).size).toBe(1);
      expect(await disbursementBalance(t, target)).toBe(1000);
      const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from ledger_transfers where transfer_type = 'funding' and merchant_account_number = $1`, [target.merchantAccountNumber]);
      expect(rows[0].n).toBe(1);
    });

    it('refuses a future day, a bad amount or reference, an unknown merchant and a missing operator token', async () => {
      const before = await dbState(t.db);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const good = { amount: '10.00', bankReference: 'REF-OK-1', receivedOn: today(), recordedBy: OPS };
      expect(clientError(await fund(t, m.merchantAccountNumber, { ...good, receivedOn: tomorrow }), 400).errorCode).toBe('E900');
      for (const amount of ['0', '-5', '1.001', '5000000000.01', 'lots']) expect(clientError(await fund(t, m.merchantAccountNumber, { ...good, amount }), 400).errorCode).toBe('E900');
      for (const bankReference of ['', '  ', '-dash-first', 'semi;colon', 'x'.repeat(65), 'a\u0000b']) expect(clientError(await fund(t, m.merchantAccountNumber, { ...good, bankReference }), 400).errorCode).toBe('E900');
      expect(clientError(await fund(t, m.merchantAccountNumber, { ...good, recordedBy: 'nobody' }), 400).errorCode).toBe('E900');
      expect(clientError(await fund(t, 99999998, good), 404).errorCode).toBe('E903');
      expect(clientError(await fund(t, m.merchantAccountNumber, good, 'not-the-admin-token-000000'), 401).errorCode).toBe('E901');
      // A merchant's own token is not the operator's.
      const asMerchant = await t.app.inject({ method: 'POST', url: `/admin/v1/merchants/${m.merchantAccountNumber}/fundings`, headers: m.auth, payload: good });
      expect(asMerchant.statusCode).toBe(401);
      expect(await dbState(t.db)).toEqual(before);
    });
  });

  describe('hosted checkout', () => {
    it('shows the timed account, amount and countdown, with no simulated Pay; waits for the payment', async () => {
      const out = await initiateCheckout(t, m, 'ORD-PROD-1');
      expect(out.checkoutUrl.startsWith(`${PUBLIC}/checkout/pay?ptid=`)).toBe(true);
      const page = await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(out.timedAccountNumber);
      expect(page.body).toContain('MWK 1,500.00');
      expect(page.body).toContain('id="countdown"');
      expect(page.body).toContain('Waiting for your payment');
      expect(page.body).not.toContain('id="pay"');
      expect(page.body).not.toContain('id="connector"');
      expect(page.body).not.toContain('Sandbox');
      expect(page.headers['content-security-policy']).toContain("connect-src 'self'");

      // The form's Pay is refused and pays nothing.
      const before = await dbState(t.db);
      const pressed = await postForm(t, { ptid: out.paymentTransactionId, connectorId: String(WALLET), action: 'pay' }, { origin: PUBLIC });
      expect(pressed.statusCode).toBe(404);
      expect(await dbState(t.db)).toEqual(before);
      const status = await t.app.inject({ method: 'GET', url: `/checkout/status?ptid=${out.paymentTransactionId}` });
      expect(status.json()).toMatchObject({ status: 'open' });

      // A real payment into the timed account (here through the service, as a connector would):
      // the page's poll answers with the success URL.
      const paid = await withTransaction(t.db, (tx) =>
        payTimedAccount(tx, { merchantAccountNumber: m.merchantAccountNumber, amountMinor: 150_000, connectorId: WALLET, timedAccountNumber: out.timedAccountNumber, currencyCode: 'MWK', capturedBy: 'connector' }),
      );
      const after = await t.app.inject({ method: 'GET', url: `/checkout/status?ptid=${out.paymentTransactionId}` });
      expect(after.statusCode).toBe(200);
      const body = after.json() as { status: string; location: string };
      expect(body.status).toBe('paid');
      expect(new URL(body.location).origin + new URL(body.location).pathname).toBe(`${SHOP}/paid`);
      expect(new URL(body.location).searchParams.get('transactionReferenceNumber')).toBe(paid.transaction_reference_number);
    });

    it('cancel still works, but only from the page itself (Origin checked)', async () => {
      const out = await initiateCheckout(t, m, 'ORD-PROD-2');
      const before = await dbState(t.db);
      for (const origin of ['https://evil.example', 'null', 'https://pay.example.mw.evil.example', 'http://pay.example.mw']) {
        const res = await postForm(t, { ptid: out.paymentTransactionId, action: 'cancel' }, { origin });
        expect(res.statusCode, origin).toBe(403);
        expect(res.body).toContain('not sent from the payment page');
      }
      expect(await dbState(t.db)).toEqual(before);
      const cancelled = await postForm(t, { ptid: out.paymentTransactionId, action: 'cancel' }, { origin: PUBLIC });
      expect(cancelled.statusCode).toBe(303);
      expect(new URL(String(cancelled.headers.location)).searchParams.get('reason')).toBe('cancelled');
    });
  });
});

describe('sandbox mode', () => {
  let t: TestApp;
  let m: TestMerchant;

  beforeAll(async () => {
    t = await startTestApp();
    m = await newMerchant(t, { accountName: 'Lilongwe Goods' });
  });
  afterAll(() => t?.close());

  it('keeps its sandbox-only operations, in the API and in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: m.auth, payload: sandboxOnly(m)[0].body });
    expect(res.statusCode, res.body).toBe(200);
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).map((p) => p.toLowerCase());
    for (const op of SANDBOX_ONLY_PATHS) expect(paths, op).toContain(`/sandbox/v1${op}`);
  });

  it('the checkout form refuses a post from another site (CSRF), and takes one from its own page', async () => {
    const out = await initiateCheckout(t, m, 'ORD-SBX-1');
    const before = await dbState(t.db);
    const forged = await postForm(t, { ptid: out.paymentTransactionId, connectorId: String(WALLET), action: 'pay' }, { origin: 'https://evil.example', host: 'localhost:8080' });
    expect(forged.statusCode).toBe(403);
    for (const site of ['cross-site', 'same-site', 'none']) {
      const res = await postForm(t, { ptid: out.paymentTransactionId, connectorId: String(WALLET), action: 'pay' }, { 'sec-fetch-site': site, origin: 'http://localhost:8080', host: 'localhost:8080' });
      expect(res.statusCode, site).toBe(403);
    }
    // Without Sec-Fetch-Site, an opaque origin cannot be told from a forger's sandboxed frame.
    const opaque = await postForm(t, { ptid: out.paymentTransactionId, connectorId: String(WALLET), action: 'pay' }, { origin: 'null' });
    expect(opaque.statusCode).toBe(403);
    expect(await dbState(t.db)).toEqual(before);
    // What a browser sends for the page's own form (its no-referrer policy makes Origin null).
    const own = await postForm(t, { ptid: out.paymentTransactionId, connectorId: String(WALLET), action: 'pay' }, { origin: 'null', 'sec-fetch-site': 'same-origin', host: 'localhost:8080' });
    expect(own.statusCode, own.body).toBe(303);
    expect(new URL(String(own.headers.location)).pathname).toBe('/paid');
  });

  it('refuses one body spelling a field twice in different case, whatever the values, and changes nothing', async () => {
    const before = await dbState(t.db);
    const base = sandboxOnly(m)[0].body;
    for (const payload of [
      { ...base, topupAmount: '10', TopupAmount: '5000000000' },
      { ...base, topupAmount: '10', TOPUPAMOUNT: '10' },
      { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, TopupAmount: '10', topupamount: '20', createdBy: 'x@shop.mw' },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: m.auth, payload });
      const problem = clientError(res, 400);
      expect(problem.errorCode).toBe('E900');
      expect(problem.errors.join(' ')).toMatch(/Topup Amount is given more than once/);
    }
    expect(await dbState(t.db)).toEqual(before);
    // One spelling, in any case, is still fine.
    const ok = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: m.auth, payload: { MerchantAccountNumber: m.merchantAccountNumber, connectorid: NBM, TOPUPAMOUNT: '10', createdBy: 'x@shop.mw' } });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});

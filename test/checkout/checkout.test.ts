// Hosted checkout (product.md §10) through app.inject: the initiate endpoint (happy, error and
// security cases), the page's HTML and headers, and the form's outcomes (pay, pay twice, expired,
// cancel, bad connector). The browser runs the same flow end to end in checkout.browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { BASE, clientError, ledgerInvariants, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

const INITIATE = `${BASE}/checkout/rtp/initiate`;
const SHOP = 'https://shop.example.mw';
const NAIVE_SECRET = /^whsec_[A-Za-z0-9+/=]{44}$/;
const WALLET = 112400; // Airtel Money

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Mwayi <Shop> & "Co"' });
});
afterAll(() => t?.close());

let counter = 0;
function body(merchant: TestMerchant, overrides: { payment?: object; route?: object; authentication?: object; merchant?: object } = {}) {
  counter += 1;
  return {
    authentication: { apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, ...overrides.authentication },
    merchant: { organisationId: merchant.organisationId, merchantAccountNumber: merchant.merchantAccountNumber, ...overrides.merchant },
    payment: { sourceReferenceNumber: `INV-2026-${String(counter).padStart(4, '0')}`, description: 'Two bags of maize flour', amount: '1500.00', ...overrides.payment },
    route: {
      successRedirectionUrl: `${SHOP}/paid?order=${counter}`,
      failureRedirectionUrl: `${SHOP}/failed`,
      callbackApiUrl: 'http://127.0.0.1:9/hooks/checkout',
      ...overrides.route,
    },
  };
}

async function initiate(payload: object, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: INITIATE, payload, headers });
}

async function checkout(merchant = m, overrides: Parameters<typeof body>[1] = {}) {
  const res = await initiate(body(merchant, overrides));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { sourceReferenceNumber: string; merchantAccountNumber: number; paymentTransactionId: string; checkoutUrl: string; expiryDate: string; callbackSigningSecret?: string; callbackWebhookSignature?: string };
}

function pay(ptid: string, fields: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/checkout/pay',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ptid, connectorId: String(WALLET), action: 'pay', ...fields }).toString(),
  });
}

function redirectOf(res: { statusCode: number; headers: Record<string, unknown>; body: string }): URL {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  return new URL(String(res.headers.location));
}

async function collectionBalance(merchant: TestMerchant): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${merchant.merchantAccountNumber}`, headers: merchant.auth });
  return res.json().collectionBalance as number;
}

describe('POST /checkout/rtp/initiate', () => {
  it('creates a checkout: an unguessable id, an absolute page URL and a callback secret', async () => {
    const res = await initiate(body(m, { payment: { sourceReferenceNumber: 'INV-2026-0042', amount: 1500 } }));
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json();
    expect(Object.keys(out).sort()).toEqual(['callbackSigningSecret', 'callbackWebhookSignature', 'checkoutUrl', 'expiryDate', 'merchantAccountNumber', 'paymentTransactionId', 'sourceReferenceNumber']);
    expect(out.sourceReferenceNumber).toBe('INV-2026-0042');
    expect(out.merchantAccountNumber).toBe(m.merchantAccountNumber);
    expect(out.paymentTransactionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(out.checkoutUrl).toBe(`http://localhost:80/checkout/pay?ptid=${out.paymentTransactionId}`);
    expect(out.callbackSigningSecret).toMatch(NAIVE_SECRET);
    expect(out.callbackWebhookSignature).toMatch(/^[A-Za-z0-9]{52}$/);
    const { rows } = await t.db.query('select * from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    expect(rows[0]).toMatchObject({
      merchant_account_number: m.merchantAccountNumber,
      amount_minor: 150000,
      status_code: 'O',
      reference_number: 'INV20260042',
      source_reference_number: 'INV-2026-0042',
      transaction_description: 'Two bags of maize flour',
      callback_api_url: 'http://127.0.0.1:9/hooks/checkout',
      callback_signing_secret: out.callbackSigningSecret,
      callback_webhook_signature: out.callbackWebhookSignature,
    });
    expect(rows[0].timed_account_number).toMatch(/^1\d{7}$/);
  });

  it('ids differ every time, and a short reference gets a generated E12 reference', async () => {
    const a = await checkout(m, { payment: { sourceReferenceNumber: 'A1' } });
    const b = await checkout(m, { payment: { sourceReferenceNumber: 'A2' } });
    expect(a.paymentTransactionId).not.toBe(b.paymentTransactionId);
    const { rows } = await t.db.query('select reference_number from payment_requests where payment_transaction_id = any($1) order by request_id', [[a.paymentTransactionId, b.paymentTransactionId]]);
    for (const row of rows) expect(row.reference_number).toMatch(/^CO[A-Z0-9]{12}$/);
  });

  it('a second checkout for the same order is allowed; its E12 reference is then generated', async () => {
    const a = await checkout(m, { payment: { sourceReferenceNumber: 'ORDER-9001' } });
    const b = await checkout(m, { payment: { sourceReferenceNumber: 'ORDER-9001' } });
    const { rows } = await t.db.query('select reference_number from payment_requests where payment_transaction_id = any($1) order by request_id', [[a.paymentTransactionId, b.paymentTransactionId]]);
    expect(rows.map((r) => r.reference_number)).toEqual(['ORDER9001', expect.stringMatching(/^CO[A-Z0-9]{12}$/)]);
  });

  it("tells the shop its own reference exactly as sent, separators and all, also for a second checkout of one order", async () => {
    const events: Array<Record<string, unknown>> = [];
    for (const round of [1, 2]) {
      const out = await checkout(m, { payment: { sourceReferenceNumber: 'OT-PY-123', amount: '100.00' } });
      const paid = redirectOf(await pay(out.paymentTransactionId));
      expect(paid.pathname, `round ${round}`).toBe('/paid');
      const reference = paid.searchParams.get('transactionReferenceNumber');
      const { rows } = await t.db.query<{ payload: Record<string, unknown> }>(`select payload from outbox_events where payload->>'transactionReferenceNumber' = $1`, [reference]);
      expect(rows[0].payload.metaData, `round ${round}`).toEqual({
        timedAccountNumber: expect.stringMatching(/^1\d{7}$/),
        referenceNumber: 'OT-PY-123',
        ReferenceNumber: 'OT-PY-123',
        paymentTransactionId: out.paymentTransactionId,
      });
      // And as getTransaction shows the collection.
      const got = await t.app.inject({ method: 'POST', url: `${BASE}/collections/getTransaction`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: reference } });
      expect(got.statusCode, got.body).toBe(200);
      expect(got.json().metaData).toMatchObject({ referenceNumber: 'OT-PY-123', ReferenceNumber: 'OT-PY-123', paymentTransactionId: out.paymentTransactionId });
      events.push(rows[0].payload);
    }
    expect(events[0].transactionReferenceNumber).not.toBe(events[1].transactionReferenceNumber);
  });

  it('serves the page at the documented /requestToPay/initiate?ptid= too, and builds checkoutUrl on PUBLIC_CHECKOUT_URL', async () => {
    const out = await checkout();
    const page = await t.app.inject({ method: 'GET', url: `/requestToPay/initiate?ptid=${out.paymentTransactionId}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('id="timed-account"');
    expect((await t.app.inject({ method: 'GET', url: `/requestToPay/initiate?ptid=${'x'.repeat(32)}` })).statusCode).toBe(404);

    const own = await startTestApp({ PUBLIC_BASE_URL: 'https://api.pay.example.mw', PUBLIC_CHECKOUT_URL: 'https://checkout.pay.example.mw' });
    try {
      const merchant = await newMerchant(own);
      const res = await own.app.inject({ method: 'POST', url: INITIATE, payload: body(merchant, { route: { callbackApiUrl: null } }) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().checkoutUrl).toBe(`https://checkout.pay.example.mw/checkout/pay?ptid=${res.json().paymentTransactionId}`);
      // The form posted from the checkout origin is its own.
      const cancel = await own.app.inject({
        method: 'POST',
        url: '/checkout/pay',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://checkout.pay.example.mw' },
        payload: `ptid=${res.json().paymentTransactionId}&action=cancel`,
      });
      expect(cancel.statusCode).toBe(303);
    } finally {
      await own.close();
    }
    expect(() => loadConfig({ PUBLIC_CHECKOUT_URL: 'https://checkout.example/path' })).toThrow(/PUBLIC_CHECKOUT_URL/);
  });

  it('accepts differently-cased property names, a numeric-string amount and no callback', async () => {
    const res = await initiate({
      Authentication: { ApiKey: m.apiKey, APISECRET: m.apiSecret },
      Merchant: { OrganisationId: m.organisationId, MerchantAccountNumber: String(m.merchantAccountNumber) },
      Payment: { SourceReferenceNumber: 'ORDER-77', Description: 'Cap', Amount: '250.5' },
      Route: { SuccessRedirectionURL: `${SHOP}/ok`, FailureRedirectionURL: `${SHOP}/ko` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().callbackSigningSecret).toBeUndefined();
    const { rows } = await t.db.query('select amount_minor, callback_api_url, callback_signing_secret from payment_requests where payment_transaction_id = $1', [res.json().paymentTransactionId]);
    expect(rows[0]).toEqual({ amount_minor: 25050, callback_api_url: null, callback_signing_secret: null });
  });

  it('signs the callback with the merchant\'s payrequest.success webhook secrets when it has one', async () => {
    const w = await newMerchant(t);
    const add = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: w.auth, payload: { merchantAccountNumber: w.merchantAccountNumber, eventCode: 'payrequest.success', callbackUrl: 'http://127.0.0.1:9/hooks/all', capturedBy: 'ops@example.mw' } });
    expect(add.statusCode, add.body).toBe(201);
    const out = await checkout(w);
    expect(out.callbackSigningSecret).toBeUndefined();
    expect(out.callbackWebhookSignature).toBeUndefined();
    const { rows } = await t.db.query(
      `select r.callback_signing_secret = s.signing_secret and r.callback_webhook_signature = s.webhook_signature as same
         from payment_requests r join webhook_subscriptions s on s.merchant_account_number = r.merchant_account_number and s.event_code = 'payrequest.success'
        where r.payment_transaction_id = $1`,
      [out.paymentTransactionId],
    );
    expect(rows[0].same).toBe(true);
  });

  it('needs no Bearer token, and ignores one', async () => {
    const res = await initiate(body(m), { authorization: 'Bearer not-a-token' });
    expect(res.statusCode, res.body).toBe(200);
  });

  describe('credentials: one indistinguishable 401 for any wrong part', () => {
    it('wrong key, secret, organisation or account, a foreign merchant, a deactivated key', async () => {
      const other = await newMerchant(t);
      const cases: Array<[string, object]> = [
        ['unknown key', { authentication: { apiKey: 'X'.repeat(30) } }],
        // Its last character changed (to 'x', or 'y' when it is an 'x': one secret in 62 ends in one).
        ['wrong secret', { authentication: { apiSecret: `${m.apiSecret.slice(0, -1)}${m.apiSecret.endsWith('x') ? 'y' : 'x'}` } }],
        ['other merchant\'s secret', { authentication: { apiSecret: other.apiSecret } }],
        ['wrong organisation', { merchant: { organisationId: other.organisationId } }],
        ['foreign merchant account', { merchant: { merchantAccountNumber: other.merchantAccountNumber } }],
        ['foreign merchant, its own organisation', { merchant: { merchantAccountNumber: other.merchantAccountNumber, organisationId: other.organisationId } }],
      ];
      const details = new Set<string>();
      for (const [label, overrides] of cases) {
        const before = await t.db.query<{ n: number }>('select count(*)::int as n from payment_requests');
        const res = await initiate(body(m, overrides));
        const p = clientError(res, 401);
        expect(p.errorCode, label).toBe('E901');
        details.add(p.detail);
        const after = await t.db.query<{ n: number }>('select count(*)::int as n from payment_requests');
        expect(after.rows[0].n, label).toBe(before.rows[0].n);
      }
      const off = await newMerchant(t);
      const deactivate = await t.app.inject({ method: 'PUT', url: `${BASE}/security/apiKeys/deactivate`, headers: off.auth, payload: { merchantAccountNumber: off.merchantAccountNumber, clientKey: off.apiKey, changedBy: 'ops@example.mw' } });
      expect(deactivate.statusCode, deactivate.body).toBe(200);
      const res = await initiate(body(off));
      details.add(clientError(res, 401).detail);
      expect(details.size).toBe(1);
    });

    it('checks credentials before anything else: bad URLs with bad credentials answer 401', async () => {
      const res = await initiate(body(m, { authentication: { apiSecret: 'wrong' }, route: { successRedirectionUrl: 'https://user:pw@shop.example.mw/' } }));
      clientError(res, 401);
    });
  });

  describe('validation', () => {
    const badUrls = ['ftp://shop.example.mw/x', 'javascript:alert(1)', 'shop.example.mw/ok', 'https://user:pw@shop.example.mw/ok', 'http://', `https://shop.example.mw/${'a'.repeat(2100)}`, 'https://sho p.example.mw/', 'https://a;b.example.mw/'];
    for (const field of ['successRedirectionUrl', 'failureRedirectionUrl', 'callbackApiUrl']) {
      it(`refuses a bad ${field}`, async () => {
        for (const url of badUrls) {
          if (field === 'callbackApiUrl' && url.includes(';')) continue; // a callback host is not put in a CSP
          const res = await initiate(body(m, { route: { [field]: url } }));
          const p = clientError(res, 400);
          expect(p.errorCode, url).toBe('E900');
          expect(p.errors.join(' '), url).toMatch(/URL/);
        }
      });
    }

    it('refuses missing parts, bad amounts and references', async () => {
      const base = body(m);
      const cases: object[] = [
        { ...base, authentication: undefined },
        { ...base, route: { ...base.route, successRedirectionUrl: undefined } },
        { ...base, payment: { ...base.payment, amount: '10.001' } },
        { ...base, payment: { ...base.payment, amount: 0 } },
        { ...base, payment: { ...base.payment, amount: '50000000.01' } },
        { ...base, payment: { ...base.payment, amount: true } },
        { ...base, payment: { ...base.payment, sourceReferenceNumber: '' } },
        { ...base, payment: { ...base.payment, sourceReferenceNumber: 'has space' } },
        { ...base, payment: { ...base.payment, sourceReferenceNumber: 'x'.repeat(51) } },
        { ...base, payment: { ...base.payment, description: '' } },
        { ...base, payment: { ...base.payment, description: 'd'.repeat(201) } },
        { ...base, merchant: { ...base.merchant, merchantAccountNumber: 123 } },
        { ...base, merchant: { ...base.merchant, organisationId: 'short' } },
        { ...base, authentication: { apiKey: '', apiSecret: m.apiSecret } },
      ];
      for (const payload of cases) clientError(await initiate(payload), 400);
    });

    it('refuses an amount outside the merchant\'s request-to-pay limits (402)', async () => {
      for (const amount of ['20000000', '99.99']) {
        const res = await initiate(body(m, { payment: { amount } }));
        expect(clientError(res, 402).errorCode, amount).toBe('E914');
      }
    });

    it('refuses a private callback target in production mode, not the redirect URLs', async () => {
      const prod = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw' });
      try {
        const pm = await newMerchant(prod);
        const refused = await prod.app.inject({ method: 'POST', url: INITIATE, payload: body(pm, { route: { callbackApiUrl: 'http://127.0.0.1:8080/hook' } }) });
        expect(clientError(refused, 400).errors.join(' ')).toMatch(/private|loopback/);
        const ok = await prod.app.inject({ method: 'POST', url: INITIATE, payload: body(pm, { route: { callbackApiUrl: 'https://93.184.215.14/hook', successRedirectionUrl: 'http://localhost:3000/ok' } }) });
        expect(ok.statusCode, ok.body).toBe(200);
      } finally {
        await prod.close();
      }
    });
  });

  it('is rate-limited per client address like the token endpoint', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_SECOND: '2' });
    try {
      const lm = await newMerchant(limited);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await limited.app.inject({ method: 'POST', url: INITIATE, payload: body(lm) })).statusCode);
      expect(statuses).toContain(429);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /checkout/pay', () => {
  it('serves one self-contained HTML page with a nonce CSP', async () => {
    const out = await checkout();
    const res = await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-language']).toBe('en');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain(`form-action 'self' ${SHOP}`);
    expect(csp).not.toMatch(/unsafe/);
    const html = res.body;
    // Every script and style is inline and carries the nonce; nothing is loaded from anywhere.
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script nonce="${nonce}">`]);
    expect(html.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/@import|url\(/);
    // What the customer must see, escaped.
    expect(html).toContain('Mwayi &lt;Shop&gt; &amp; &quot;Co&quot;');
    expect(html).not.toContain('<Shop>');
    expect(html).toContain('MWK 1,500.00');
    expect(html).toContain('Two bags of maize flour');
    const { rows } = await t.db.query('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    expect(html).toContain(`>${rows[0].timed_account_number}<`);
    expect(html).toMatch(/id="countdown" role="timer" data-seconds="(8\d\d|900)">1[45]:\d\d</);
    expect(html).toContain('name="viewport" content="width=device-width,initial-scale=1"');
    // Active collection connectors only, wallets and banks.
    expect(html).toContain('<option value="112400">Airtel Money</option>');
    expect(html).toContain('<option value="212188">');
    const { rows: off } = await t.db.query<{ connector_id: number }>('select connector_id from connectors where not is_active or not is_collection_allowed');
    for (const c of off) expect(html).not.toContain(`value="${c.connector_id}"`);
  });

  it('speaks Chichewa with ?lang=ny or Accept-Language: ny', async () => {
    const out = await checkout();
    for (const req of [{ url: `/checkout/pay?ptid=${out.paymentTransactionId}&lang=ny` }, { url: `/checkout/pay?ptid=${out.paymentTransactionId}`, headers: { 'accept-language': 'ny-MW, en;q=0.5' } }]) {
      const res = await t.app.inject({ method: 'GET', ...req });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-language']).toBe('ny');
      expect(res.body).toContain('<html lang="ny">');
      expect(res.body).toContain('Lipirani MWK 1,500.00');
      expect(res.body).toContain('Akaunti yanthawi');
      expect(res.body).not.toContain('Timed account');
    }
    const en = await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}&lang=en`, headers: { 'accept-language': 'ny' } });
    expect(en.body).toContain('Pay MWK 1,500.00');
  });

  it('answers an unknown or malformed ptid with a 404 page', async () => {
    for (const url of ['/checkout/pay?ptid=' + 'A'.repeat(32), '/checkout/pay?ptid=short', '/checkout/pay', '/checkout/pay?ptid=%3Cscript%3E', '/checkout/pay?ptid=a&ptid=b']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('Payment link not found');
      expect(res.body).not.toContain('<script');
    }
    const ny = await t.app.inject({ method: 'GET', url: '/checkout/pay?ptid=nothing&lang=ny' });
    expect(ny.body).toContain('Ulalo wa malipiro sunapezeke');
  });

  it('sends an expired checkout to the failure URL', async () => {
    const out = await checkout();
    await t.db.query(`update payment_requests set created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' where payment_transaction_id = $1`, [out.paymentTransactionId]);
    const url = redirectOf(await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}` }));
    expect(url.origin + url.pathname).toBe(`${SHOP}/failed`);
    expect(url.searchParams.get('reason')).toBe('timed-account-expired');
    expect(url.searchParams.get('errorCode')).toBe('E920');
    expect(url.searchParams.get('sourceReferenceNumber')).toBe(out.sourceReferenceNumber);
  });
});

describe('POST /checkout/pay', () => {
  it('pays once: 303 to the success URL, the merchant credited, one callback delivery queued', async () => {
    const before = await collectionBalance(m);
    const out = await checkout();
    const res = await pay(out.paymentTransactionId);
    const url = redirectOf(res);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(url.origin + url.pathname).toBe(`${SHOP}/paid`);
    // The merchant's own query is kept; ours is added.
    expect(url.searchParams.get('order')).toMatch(/^\d+$/);
    expect(url.searchParams.get('sourceReferenceNumber')).toBe(out.sourceReferenceNumber);
    const reference = url.searchParams.get('transactionReferenceNumber')!;
    expect(reference).toMatch(/^[A-Z0-9]{12}$/);
    const { rows } = await t.db.query('select amount_minor, fee_minor, source_reference_number, connector_id, transaction_code from collections where transaction_reference_number = $1', [reference]);
    expect(rows[0]).toEqual({ amount_minor: 150000, fee_minor: 1500, source_reference_number: out.sourceReferenceNumber, connector_id: WALLET, transaction_code: 'RTP' });
    expect(await collectionBalance(m)).toBe(before + 1485);
    const { rows: deliveries } = await t.db.query(
      `select d.webhook_id, d.event_code, d.callback_url, d.signing_secret, d.webhook_signature, e.payload
         from webhook_deliveries d join outbox_events e using (merchant_account_number, event_id)
        where d.merchant_account_number = $1 and e.payload->>'transactionReferenceNumber' = $2`,
      [m.merchantAccountNumber, reference],
    );
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ webhook_id: null, event_code: 'payrequest.success', callback_url: 'http://127.0.0.1:9/hooks/checkout', signing_secret: out.callbackSigningSecret, webhook_signature: out.callbackWebhookSignature });
    // The shop's own reference, exactly as sent (separators and all), in both spellings shops read.
    expect(deliveries[0].payload).toMatchObject({
      eventCode: 'payrequest.success',
      sourceReferenceNumber: out.sourceReferenceNumber,
      transactionAmount: 1500,
      transactionFee: 15,
      metaData: { referenceNumber: out.sourceReferenceNumber, ReferenceNumber: out.sourceReferenceNumber, paymentTransactionId: out.paymentTransactionId },
    });
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
    // The callback is in the merchant's delivery log and can be redelivered like a webhook's.
    const { rows: ids } = await t.db.query<{ delivery_id: number }>(`select delivery_id from webhook_deliveries where callback_url = 'http://127.0.0.1:9/hooks/checkout' and event_id = (select event_id from outbox_events where payload->>'transactionReferenceNumber' = $1)`, [reference]);
    const redeliver = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/redeliver`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, deliveryId: ids[0].delivery_id } });
    expect(redeliver.statusCode, redeliver.body).toBe(200);
    expect(redeliver.json().numberOfDeliveries).toBe(1);

    // Again: where the payment landed (it is paid), never a second payment.
    const again = redirectOf(await pay(out.paymentTransactionId));
    expect(again.origin + again.pathname).toBe(`${SHOP}/paid`);
    expect(again.searchParams.get('transactionReferenceNumber')).toBe(reference);
    expect(await collectionBalance(m)).toBe(before + 1485);
    // Opening the page again lands where the payment landed.
    const reopened = redirectOf(await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}` }));
    expect(reopened.searchParams.get('transactionReferenceNumber')).toBe(reference);
  });

  it('pays exactly once under concurrent presses', async () => {
    const out = await checkout();
    const results = await Promise.all(Array.from({ length: 6 }, () => pay(out.paymentTransactionId)));
    // Every press lands on the success URL of the one payment.
    const landed = results.map((r) => redirectOf(r));
    expect(landed.map((u) => u.pathname)).toEqual(Array(6).fill('/paid'));
    expect(new Set(landed.map((u) => u.searchParams.get('transactionReferenceNumber'))).size).toBe(1);
    const { rows } = await t.db.query('select count(*)::int as n from collections c join payment_requests r using (merchant_account_number, request_id) where r.payment_transaction_id = $1', [out.paymentTransactionId]);
    expect(rows[0].n).toBe(1);
  });

  it('accepts a JSON body too (a page that posts with fetch)', async () => {
    const out = await checkout();
    const res = await t.app.inject({ method: 'POST', url: '/checkout/pay', payload: { ptid: out.paymentTransactionId, connectorId: WALLET } });
    expect(redirectOf(res).pathname).toBe('/paid');
  });

  it('sends an expired checkout to the failure URL and pays nothing', async () => {
    const out = await checkout();
    await t.db.query(`update payment_requests set created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' where payment_transaction_id = $1`, [out.paymentTransactionId]);
    const url = redirectOf(await pay(out.paymentTransactionId));
    expect(url.pathname).toBe('/failed');
    expect(url.searchParams.get('reason')).toBe('timed-account-expired');
    const { rows } = await t.db.query(`select status_code from payment_requests where payment_transaction_id = $1`, [out.paymentTransactionId]);
    expect(rows[0].status_code).toBe('O');
    const { rows: c } = await t.db.query('select count(*)::int as n from collections c join payment_requests r using (merchant_account_number, request_id) where r.payment_transaction_id = $1', [out.paymentTransactionId]);
    expect(c[0].n).toBe(0);
  });

  it('cancel: the failure URL with reason cancelled, and the timed account closes', async () => {
    const out = await checkout();
    const url = redirectOf(await pay(out.paymentTransactionId, { action: 'cancel', connectorId: '' }));
    expect(url.pathname).toBe('/failed');
    expect(url.searchParams.get('reason')).toBe('cancelled');
    const { rows } = await t.db.query(`select status_code from payment_requests where payment_transaction_id = $1`, [out.paymentTransactionId]);
    expect(rows[0].status_code).toBe('E');
    const after = redirectOf(await pay(out.paymentTransactionId));
    expect(after.searchParams.get('reason')).toBe('timed-account-expired');
  });

  it('a refused connector: the failure URL naming it, nothing half-written, the checkout still payable', async () => {
    const out = await checkout();
    const { rows: inactive } = await t.db.query<{ connector_id: number }>('select connector_id from connectors where is_active and not is_collection_allowed limit 1');
    const attempts: Array<[string, string]> = [['999999', 'not-found'], ['abc', 'validation-failed']];
    if (inactive[0]) attempts.push([String(inactive[0].connector_id), 'connector-not-allowed']);
    for (const [connectorId, reason] of attempts) {
      const url = redirectOf(await pay(out.paymentTransactionId, { connectorId }));
      expect(url.pathname, connectorId).toBe('/failed');
      expect(url.searchParams.get('reason'), connectorId).toBe(reason);
    }
    expect(redirectOf(await pay(out.paymentTransactionId)).pathname).toBe('/paid');
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  });

  it('an unknown ptid is a 404 page; a foreign content type or a large body an error page', async () => {
    const unknown = await pay('B'.repeat(32));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    const big = await t.app.inject({ method: 'POST', url: '/checkout/pay', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `ptid=${'x'.repeat(10_000)}` });
    expect(big.statusCode).toBe(413);
    expect(big.headers['content-type']).toBe('text/html; charset=utf-8');
    const nul = await t.app.inject({ method: 'POST', url: '/checkout/pay', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'ptid=%00' });
    expect(nul.statusCode).toBe(400);
    expect(nul.headers['content-type']).toBe('text/html; charset=utf-8');
    const multipart = await t.app.inject({ method: 'POST', url: '/checkout/pay', headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x--' });
    expect(multipart.statusCode).toBe(415);
    expect(multipart.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('a timed account paid through addFakeTransaction also tells the callback, and the page sends the customer to success', async () => {
    const out = await checkout();
    const { rows } = await t.db.query('select timed_account_number from payment_requests where payment_transaction_id = $1', [out.paymentTransactionId]);
    const fake = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/requestToPay/addFakeTransaction`,
      headers: m.auth,
      payload: { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 1500, connectorId: WALLET, timedAccountNumber: rows[0].timed_account_number, currencyCode: 'MWK', capturedBy: 'ops@example.mw' },
    });
    expect(fake.statusCode, fake.body).toBe(200);
    const reference = fake.json().transaction.transactionReferenceNumber;
    const { rows: d } = await t.db.query(`select count(*)::int as n from webhook_deliveries d join outbox_events e using (merchant_account_number, event_id) where d.webhook_id is null and e.payload->>'transactionReferenceNumber' = $1`, [reference]);
    expect(d[0].n).toBe(1);
    const url = redirectOf(await t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${out.paymentTransactionId}` }));
    expect(url.pathname).toBe('/paid');
    expect(url.searchParams.get('transactionReferenceNumber')).toBe(reference);
  });

  it('one delivery, not two, when the callback is the payrequest.success webhook\'s own URL', async () => {
    const w = await newMerchant(t);
    const hook = 'http://127.0.0.1:9/hooks/same';
    await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: w.auth, payload: { merchantAccountNumber: w.merchantAccountNumber, eventCode: 'payrequest.success', callbackUrl: hook, capturedBy: 'ops@example.mw' } });
    const out = await checkout(w, { route: { callbackApiUrl: hook } });
    const reference = redirectOf(await pay(out.paymentTransactionId)).searchParams.get('transactionReferenceNumber');
    const { rows } = await t.db.query(`select webhook_id from webhook_deliveries d join outbox_events e using (merchant_account_number, event_id) where e.payload->>'transactionReferenceNumber' = $1`, [reference]);
    expect(rows).toHaveLength(1);
    expect(rows[0].webhook_id).not.toBeNull();
  });
});

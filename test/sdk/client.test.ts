// The SDK's client against the real service on a real socket: the access token, idempotency keys,
// retries (through a real local proxy that answers 503/429 first), pagination and errors. Nothing
// of our stack is mocked; the fetch wrappers only record, or drop an answer the server did send.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, OneKhusaConnectionError, OneKhusaError } from '../../packages/sdk/src/index.ts';
import { newMerchant, type TestMerchant } from '../helpers.ts';
import { ACTOR, AIRTEL, clientFor, recordingFetch, serve, type Served } from './harness.ts';

const KEY_PATTERN = /^[A-Za-z0-9-]{15,80}$/;
const TOKEN_PATH = '/account/getAccessToken';
const TOPUP_CONNECTOR = 212188;

let s: Served;
let m: TestMerchant;

beforeAll(async () => {
  s = await serve();
  m = await newMerchant(s.t);
});
afterAll(() => s?.t.close());

describe('access token', () => {
  it('is fetched on first use, once for concurrent calls, and renewed 30 s before it expires', async () => {
    let nowMs = Date.now();
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch, nowMs: () => nowMs });
    expect(wire.exchanges).toHaveLength(0);

    await Promise.all(Array.from({ length: 5 }, () => client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber })));
    expect(wire.to(TOKEN_PATH)).toHaveLength(1);
    expect(wire.to('/merchants/limits/getAll').map((e) => e.status)).toEqual([200, 200, 200, 200, 200]);

    // The token lives 5 minutes: still used at 4 min 29 s, renewed from 4 min 30 s.
    nowMs += 269_000;
    await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber });
    expect(wire.to(TOKEN_PATH)).toHaveLength(1);
    nowMs += 2_000;
    await Promise.all([client.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber }), client.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber })]);
    expect(wire.to(TOKEN_PATH)).toHaveLength(2);
    const [first, second] = wire.to('/merchants/accounts/get').map((e) => e.requestHeaders.authorization);
    expect(first).toBe(second);
  });

  it('a 401 (the server thinks the token expired) gets one new token and one retry', async () => {
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch });
    await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber });
    s.t.clock.advance(6 * 60_000);
    try {
      const account = await client.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber });
      expect(account.merchantAccountNumber).toBe(m.merchantAccountNumber);
    } finally {
      s.t.clock.advance(-6 * 60_000);
    }
    expect(wire.to('/merchants/accounts/get').map((e) => e.status)).toEqual([401, 200]);
    expect(wire.to(TOKEN_PATH)).toHaveLength(2);
  });

  it('wrong credentials answer OneKhusaError 401 E901 once, without a loop of retries', async () => {
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch, apiSecret: 'not-the-secret' });
    const error = await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OneKhusaError);
    expect(error).toMatchObject({ status: 401, errorCode: 'E901' });
    expect(wire.exchanges).toHaveLength(1);
  });
});

describe('idempotency', () => {
  it('a write that takes a key gets one, and its retry after a lost answer sends the same key: one top-up, replayed', async () => {
    const wire = recordingFetch((path, attempt) => path === '/merchants/accounts/topup' && attempt === 1);
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch });
    const before = await client.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber });
    const answer = await client.call('merchantsAccountsTopup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: TOPUP_CONNECTOR, topupAmount: 1000, createdBy: ACTOR });
    const attempts = wire.to('/merchants/accounts/topup');
    expect(attempts.map((e) => e.status)).toEqual([200, 200]);
    const [key, retryKey] = attempts.map((e) => e.requestHeaders['x-idempotency-key']);
    expect(key).toMatch(KEY_PATTERN);
    expect(retryKey).toBe(key);
    expect(attempts[1].responseHeaders!.get('idempotent-replayed')).toBe('true');
    const after = await client.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber });
    expect(after.disbursmentBalance - before.disbursmentBalance).toBe(1000);
    expect(answer.topupAmount).toBe(1000);
  });

  it("the caller's key is sent as given; reads carry none", async () => {
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch });
    const idempotencyKey = newIdempotencyKey();
    const input = { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: 2500, transactionDescription: 'Shoes', referenceNumber: 'ORDER1', capturedBy: ACTOR };
    const first = await client.call('collectionsRequestToPayInitiate', input, { idempotencyKey });
    const again = await client.call('collectionsRequestToPayInitiate', input, { idempotencyKey });
    expect(again.timedAccountNumber).toBe(first.timedAccountNumber);
    const sent = wire.to('/collections/requestToPay/initiate');
    expect(sent.map((e) => e.requestHeaders['x-idempotency-key'])).toEqual([idempotencyKey, idempotencyKey]);
    expect(sent[1].responseHeaders!.get('idempotent-replayed')).toBe('true');
    await client.call('collectionsGetTransactions', { merchantAccountNumber: m.merchantAccountNumber });
    expect(wire.to('/collections/getTransactions')[0].requestHeaders).not.toHaveProperty('x-idempotency-key');
  });

  it('a write without a key is not sent again once it may have reached the server', async () => {
    const wire = recordingFetch((path) => path === '/merchants/webhooks/add');
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch });
    const error = await client
      .call('merchantsWebhooksAdd', { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payout.failed', callbackUrl: 'http://127.0.0.1:9/hook', capturedBy: ACTOR })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OneKhusaConnectionError);
    expect((error as OneKhusaConnectionError).attempts).toBe(1);
    expect(wire.to('/merchants/webhooks/add').map((e) => e.status)).toEqual([201]);
  });

  it('…but is sent again while nothing accepts the connection (it never left)', async () => {
    const p = await proxy(s.port, () => undefined);
    const wire = recordingFetch();
    const client = clientFor(p.url, m, { fetch: wire.fetch, maxRetries: 2 });
    await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber });
    // The server is gone: its port refuses connections.
    await p.close();
    const result = await client.safe.call('merchantsWebhooksAdd', { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payout.failed', callbackUrl: 'http://127.0.0.1:9/hook', capturedBy: ACTOR });
    expect(result.ok).toBe(false);
    const error = !result.ok && result.error;
    expect(error).toBeInstanceOf(OneKhusaConnectionError);
    expect((error as OneKhusaConnectionError).attempts, String((error as Error).message)).toBe(3);
    expect(wire.to('/merchants/webhooks/add').map((e) => e.status)).toEqual([undefined, undefined, undefined]);
  });
});

/** A real proxy in front of the app: `script(n)` answers the n-th request itself, or undefined forwards it. */
async function proxy(target: number, script: (n: number) => { status: number; headers: Record<string, string> } | undefined) {
  let n = 0;
  const server = http.createServer((req, res) => {
    const canned = script(++n);
    if (canned) {
      req.resume();
      res.writeHead(canned.status, { 'content-type': 'application/problem+json', ...canned.headers });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Busy', status: canned.status, errorCode: canned.status === 429 ? 'E905' : 'E952', detail: 'busy', instance: req.url, errors: ['busy'], requestId: 'proxy' }));
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      // No keep-alive: once the proxy is closed, nothing of it is left for the client to reuse.
      res.writeHead(answer.statusCode!, { ...answer.headers, connection: 'close' });
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, requests: () => n, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('retries', () => {
  it('a 503 with Retry-After: 1 is waited out and retried', async () => {
    const p = await proxy(s.port, (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : undefined));
    try {
      const client = clientFor(p.url, m);
      const started = performance.now();
      const answer = await client.call('accountGetAccessToken', { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber });
      expect(performance.now() - started).toBeGreaterThanOrEqual(950);
      expect(answer.expiryInMinutes).toBe(5);
      expect(p.requests()).toBe(2);
    } finally {
      await p.close();
    }
  });

  it('429 with Retry-After as an HTTP date, even on a write without a key (the limit refuses before it runs)', async () => {
    const p = await proxy(s.port, (n) => (n === 2 ? { status: 429, headers: { 'retry-after': new Date(Date.now() + 1000).toUTCString() } } : undefined));
    try {
      const client = clientFor(p.url, m);
      const answer = await client.call('merchantsWebhooksAdd', { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payout.success', callbackUrl: 'http://127.0.0.1:9/hook', capturedBy: ACTOR });
      expect(answer.message).toMatch(/created/);
      // The token, the 429, the write.
      expect(p.requests()).toBe(3);
    } finally {
      await p.close();
    }
  });

  it('a 503 to a write without a key is not retried; a read gives up after maxRetries', async () => {
    const p = await proxy(s.port, (n) => (n >= 2 ? { status: 503, headers: {} } : undefined));
    try {
      const client = clientFor(p.url, m, { maxRetries: 2 });
      const write = await client
        .call('merchantsWebhooksAdd', { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payout.reversed', callbackUrl: 'http://127.0.0.1:9/hook', capturedBy: ACTOR })
        .catch((e: unknown) => e);
      expect(write).toMatchObject({ status: 503, errorCode: 'E952' });
      expect(p.requests()).toBe(2);
      const read = await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber }).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(OneKhusaError);
      expect(p.requests()).toBe(5);
    } finally {
      await p.close();
    }
  });

  it('an attempt that times out is retried when it is a read, then fails with OneKhusaConnectionError', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    let requests = 0;
    silent.on('request', () => (requests += 1));
    try {
      const client = clientFor(`http://127.0.0.1:${(silent.address() as { port: number }).port}`, m, { timeoutMs: 200, maxRetries: 1 });
      const error = await client.call('accountGetAccessToken', { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OneKhusaConnectionError);
      expect((error as OneKhusaConnectionError).attempts).toBe(2);
      expect(requests).toBe(2);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a 400 is not retried, and its OneKhusaError carries the problem', async () => {
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch });
    const input = { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: -5, transactionDescription: 'Shoes', referenceNumber: 'ORDER2', capturedBy: ACTOR };
    const error = await client.call('collectionsRequestToPayInitiate', input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OneKhusaError);
    const e = error as OneKhusaError;
    expect(e).toMatchObject({ status: 400, errorCode: 'E900', name: 'OneKhusaError' });
    expect(e.errors.length).toBeGreaterThan(0);
    expect(e.errors.every((text) => typeof text === 'string')).toBe(true);
    expect(e.detail).toEqual(expect.any(String));
    expect(e.type).toMatch(/^urn:|^https?:|^about:/);
    const sent = wire.to('/collections/requestToPay/initiate');
    expect(sent).toHaveLength(1);
    expect(e.requestId).toBe(sent[0].responseHeaders!.get('x-request-id'));
    expect(e.problem).toMatchObject({ status: 400, errorCode: 'E900', requestId: e.requestId });
    expect(e.message).toContain('E900');
  });
});

describe('environments', () => {
  it("environment 'live' calls /live/v1 (which a sandbox-mode server does not serve)", async () => {
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, m, { fetch: wire.fetch, environment: 'live' });
    const error = await client.call('merchantsLimitsGetAll', { merchantAccountNumber: m.merchantAccountNumber }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404 });
    expect(wire.exchanges).toHaveLength(1);
    expect(new URL((error as OneKhusaError).instance, s.baseUrl).pathname).toBe('/live/v1/account/getAccessToken');
  });
});

describe('Result style', () => {
  it('client.safe.call answers ok with the value, or the error without throwing', async () => {
    const client = clientFor(s.baseUrl, m);
    const ok = await client.safe.call('merchantsAccountsGet', { merchantAccountNumber: m.merchantAccountNumber });
    expect(ok).toMatchObject({ ok: true, value: { merchantAccountNumber: m.merchantAccountNumber } });
    const refused = await client.safe.call('merchantsAccountsGet', { merchantAccountNumber: 99999999 });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toBeInstanceOf(OneKhusaError);
    expect(!refused.ok && refused.error).toMatchObject({ status: 404, errorCode: 'E903' });
  });
});

describe('pagination', () => {
  it('iterates every item over several pages and stops at the short one', async () => {
    const shop = await newMerchant(s.t, { accountName: 'Paged Shop' });
    const wire = recordingFetch();
    const client = clientFor(s.baseUrl, shop, { fetch: wire.fetch });
    for (let i = 1; i <= 5; i++) {
      await client.call('collectionsAddFakeCustomPayment', { beneficiaryAccountNumber: shop.paymentAccountNumber, connectorId: AIRTEL, transactionAmount: 100 * i, createdBy: ACTOR });
    }
    const amounts: number[] = [];
    for await (const item of client.paginate('collectionsGetTransactions', { merchantAccountNumber: shop.merchantAccountNumber, numberOfReturnedRows: 2 })) {
      amounts.push(item.transactionAmount);
    }
    expect(amounts.sort((a, b) => a - b)).toEqual([100, 200, 300, 400, 500]);
    const pages = wire.to('/collections/getTransactions');
    expect(pages).toHaveLength(3);
  });
});

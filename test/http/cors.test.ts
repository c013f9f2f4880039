// CORS for the merchant API (src/http/cors.ts, CORS_ALLOWED_ORIGINS): browser apps on allowed
// origins get preflights answered and every answer (errors included) readable; the console,
// the operator API and production without the setting never carry CORS headers.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { BASE, newMerchant, problemOf, startTestApp, type InjectResult, type TestApp, type TestMerchant } from '../helpers.ts';

const DEV_ORIGIN = 'http://localhost:5173';
const SHOP_ORIGIN = 'https://shop.example.mw';
const PUBLIC_BASE_URL = 'https://pay.example.mw';
const LIMITS = `${BASE}/merchants/limits/getAll`;

function preflight(t: TestApp, url: string, origin: string, requestHeaders = 'authorization, content-type') {
  return t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders } });
}

function corsHeadersOf(res: InjectResult): Record<string, unknown> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')));
}

/** An answer a script on `origin` may read: the origin echoed, the useful headers exposed, no credentials. */
function expectReadableBy(res: InjectResult, origin: string): void {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(String(res.headers.vary)).toMatch(/\bOrigin\b/);
  const exposed = String(res.headers['access-control-expose-headers']).split(', ');
  for (const name of ['retry-after', 'idempotent-replayed', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(exposed).toContain(name);
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

describe('sandbox mode, by default', () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await startTestApp();
    m = await newMerchant(t);
  });
  afterAll(() => t.close());

  it('answers a preflight from a localhost app with 204 and exactly the CORS headers, the unknown request header left out', async () => {
    const res = await preflight(t, LIMITS, DEV_ORIGIN, 'Authorization, X-Idempotency-Key, content-type, x-evil');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(corsHeadersOf(res)).toEqual({
      'access-control-allow-origin': DEV_ORIGIN,
      'access-control-allow-methods': 'GET, POST, PUT, DELETE',
      'access-control-allow-headers': 'authorization, x-idempotency-key, content-type',
      'access-control-max-age': '600',
    });
    expect(res.headers.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('answers preflights from 127.0.0.1 and [::1] on any port, over http or https, on any path of the API', async () => {
    for (const origin of ['http://127.0.0.1:3000', 'https://[::1]:8443', 'http://localhost']) {
      const res = await preflight(t, `${BASE}/account/getAccessToken`, origin);
      expect(res.statusCode, origin).toBe(204);
      expect(res.headers['access-control-allow-origin'], origin).toBe(origin);
    }
    // Routes match case-insensitively: so does the CORS scope.
    const upper = await preflight(t, '/SANDBOX/v1/Merchants/Limits/GetAll', DEV_ORIGIN);
    expect(upper.statusCode).toBe(204);
    expect(upper.headers['access-control-allow-origin']).toBe(DEV_ORIGIN);
  });

  it('answers a preflight from any other origin with 204 and no CORS headers', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example:80', 'null']) {
      const res = await preflight(t, LIMITS, origin);
      expect(res.statusCode, origin).toBe(204);
      expect(corsHeadersOf(res), origin).toEqual({});
    }
  });

  it('makes an authenticated GET readable by the allowed origin, and not by another', async () => {
    const url = `${LIMITS}?merchantAccountNumber=${m.merchantAccountNumber}`;
    const res = await t.app.inject({ method: 'GET', url, headers: { ...m.auth, origin: DEV_ORIGIN } });
    expect(res.statusCode, res.body).toBe(200);
    expectReadableBy(res, DEV_ORIGIN);
    expect(res.headers['x-request-id']).toBeTruthy();

    const other = await t.app.inject({ method: 'GET', url, headers: { ...m.auth, origin: 'https://evil.example' } });
    expect(other.statusCode).toBe(200);
    expect(corsHeadersOf(other)).toEqual({});
    expect(other.headers.vary).toBe('Origin');
  });

  it('makes error answers readable: 401 without a token, 400 from the error handler, 404 for an unknown operation', async () => {
    const unauthorized = await t.app.inject({ method: 'GET', url: `${LIMITS}?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { origin: DEV_ORIGIN } });
    expect(problemOf(unauthorized).status).toBe(401);
    expectReadableBy(unauthorized, DEV_ORIGIN);

    const invalid = await t.app.inject({ method: 'GET', url: `${LIMITS}?merchantAccountNumber=abc`, headers: { ...m.auth, origin: DEV_ORIGIN } });
    expect(problemOf(invalid).status).toBe(400);
    expectReadableBy(invalid, DEV_ORIGIN);

    const unknown = await t.app.inject({ method: 'GET', url: `${BASE}/no/such/operation`, headers: { origin: DEV_ORIGIN } });
    expect(problemOf(unknown).status).toBe(404);
    expectReadableBy(unknown, DEV_ORIGIN);
  });

  it('never gives the console, the operator API or the docs CORS headers', async () => {
    for (const url of ['/console/sign-in', '/admin/v1/emails', '/openapi.json']) {
      const get = await t.app.inject({ method: 'GET', url, headers: { origin: DEV_ORIGIN } });
      expect(corsHeadersOf(get), url).toEqual({});
      expect(String(get.headers.vary ?? ''), url).not.toMatch(/\bOrigin\b/);
      const options = await preflight(t, url, DEV_ORIGIN);
      expect(options.statusCode, url).not.toBe(204);
      expect(corsHeadersOf(options), url).toEqual({});
    }
  });

  it('answers a preflight over a real socket', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${LIMITS}`, {
      method: 'OPTIONS',
      headers: { origin: DEV_ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(DEV_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(await res.text()).toBe('');
  });
});

describe('production mode', () => {
  it('sends no CORS headers without CORS_ALLOWED_ORIGINS, not even to localhost', async () => {
    const t = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL });
    try {
      for (const url of [LIMITS, `/live/v1/merchants/limits/getAll`]) {
        const options = await preflight(t, url, DEV_ORIGIN);
        expect(corsHeadersOf(options), url).toEqual({});
        const get = await t.app.inject({ method: 'GET', url, headers: { origin: DEV_ORIGIN } });
        expect(get.statusCode, url).toBe(401);
        expect(corsHeadersOf(get), url).toEqual({});
      }
    } finally {
      await t.close();
    }
  });

  describe('with CORS_ALLOWED_ORIGINS naming one origin', () => {
    let t: TestApp;
    beforeAll(async () => {
      // A limit of one request a second: preflights must not use it up.
      t = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL, CORS_ALLOWED_ORIGINS: SHOP_ORIGIN, RATE_LIMIT_PER_SECOND: '1' });
    });
    afterAll(() => t.close());

    it('allows exactly that origin, under both prefixes', async () => {
      for (const url of [LIMITS, '/live/v1/merchants/limits/getAll']) {
        const res = await preflight(t, url, SHOP_ORIGIN);
        expect(res.statusCode, url).toBe(204);
        expect(res.headers['access-control-allow-origin'], url).toBe(SHOP_ORIGIN);
        const get = await t.app.inject({ method: 'GET', url, headers: { origin: SHOP_ORIGIN } });
        expect(problemOf(get).status).toBe(401);
        expectReadableBy(get, SHOP_ORIGIN);
      }
      for (const origin of [DEV_ORIGIN, 'http://shop.example.mw', 'https://shop.example.mw:8443', 'https://www.shop.example.mw', 'https://shop.example.mw.evil.example']) {
        const res = await preflight(t, LIMITS, origin);
        expect(res.statusCode, origin).toBe(204);
        expect(corsHeadersOf(res), origin).toEqual({});
      }
    });

    it('answers preflights without authentication and without counting them against the rate limit', async () => {
      for (let i = 0; i < 5; i++) {
        const res = await preflight(t, `/live/v1/account/getAccessToken`, SHOP_ORIGIN);
        expect(res.statusCode).toBe(204);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      // The token endpoint is limited per client address: the preflights left its one request free.
      const token = await t.app.inject({ method: 'POST', url: '/live/v1/account/getAccessToken', headers: { origin: SHOP_ORIGIN }, payload: { apiKey: 'x', apiSecret: 'y', organisationId: 'Z', merchantAccountNumber: 10000000 } });
      expect(token.statusCode, token.body).not.toBe(429);
      expect(token.headers['x-ratelimit-limit']).toBe('1');
      expectReadableBy(token, SHOP_ORIGIN);
    });
  });
});

it('CORS_ALLOWED_ORIGINS=off turns CORS off in sandbox mode', async () => {
  const t = await startTestApp({ CORS_ALLOWED_ORIGINS: 'off' });
  try {
    const options = await preflight(t, LIMITS, DEV_ORIGIN);
    expect(options.statusCode).toBe(404);
    expect(corsHeadersOf(options)).toEqual({});
    const get = await t.app.inject({ method: 'GET', url: LIMITS, headers: { origin: DEV_ORIGIN } });
    expect(corsHeadersOf(get)).toEqual({});
    expect(get.headers.vary).toBeUndefined();
  } finally {
    await t.close();
  }
});

describe('CORS_ALLOWED_ORIGINS', () => {
  const production = { APP_MODE: 'production', PUBLIC_BASE_URL };

  it('defaults to localhost in sandbox mode and off in production mode', () => {
    expect(loadConfig({}).corsAllowedOrigins).toEqual({ kind: 'localhost' });
    expect(loadConfig(production).corsAllowedOrigins).toEqual({ kind: 'off' });
  });

  it('takes off, * or origins, stored as browsers send them', () => {
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: 'OFF' }).corsAllowedOrigins).toEqual({ kind: 'off' });
    expect(loadConfig({ ...production, CORS_ALLOWED_ORIGINS: '*' }).corsAllowedOrigins).toEqual({ kind: 'any' });
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: ' HTTPS://Shop.Example.MW:443/ , http://localhost:5173,http://localhost:5173' }).corsAllowedOrigins).toEqual({
      kind: 'exact',
      origins: ['https://shop.example.mw', 'http://localhost:5173'],
    });
  });

  it('refuses a value that is not an origin, naming the variable and the value', () => {
    for (const value of ['http://localhost:5173/app', 'localhost:5173', 'ftp://files.example.mw', 'https://*.example.mw', 'https://shop.example.mw?x=1', 'https://user@shop.example.mw', '*,https://shop.example.mw', 'https://shop.example.mw:99999', ',']) {
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ALLOWED_ORIGINS: value }), value).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, expiredToken, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(() => t.close());

const tokenRequest = (over: Record<string, unknown> = {}) => ({
  method: 'POST' as const,
  url: `${BASE}/account/getAccessToken`,
  payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, ...over },
});

describe('POST /account/getAccessToken', () => {
  it('issues a 5-minute HS256 token for a valid key pair', async () => {
    const res = await t.app.inject(tokenRequest());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.expiryInMinutes).toBe(5);
    const lifetimeMs = new Date(body.expiresOn).getTime() - Date.now();
    expect(lifetimeMs).toBeGreaterThan(4 * 60_000);
    expect(lifetimeMs).toBeLessThanOrEqual(5 * 60_000);
    const header = JSON.parse(Buffer.from(body.accessToken.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
  });

  it('matches property names case-insensitively', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/account/getAccessToken`,
      payload: { APIKEY: m.apiKey, ApiSecret: m.apiSecret, OrganisationId: m.organisationId, MerchantAccountNumber: String(m.merchantAccountNumber) },
    });
    expect(res.statusCode).toBe(200);
  });

  it.each([
    ['wrong secret', { apiSecret: 'x'.repeat(45) }],
    ['unknown key', { apiKey: 'y'.repeat(30) }],
    ['other organisation', { organisationId: 'AAAAAAAAAAAA' }],
    ['other merchant account', { merchantAccountNumber: 10000000 }],
  ])('refuses a %s with one indistinguishable 401', async (_name, over) => {
    const res = await t.app.inject(tokenRequest(over));
    expect(res.statusCode).toBe(401);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E901');
    expect(p.detail).toMatch(/wrong, inactive or expired/);
  });

  it('refuses missing fields with one message per field', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { apiKey: 'abc' } });
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toHaveLength(3);
  });

  it('checks X-Merchant-Account-Number when it is sent', async () => {
    const res = await t.app.inject({ ...tokenRequest(), headers: { 'x-merchant-account-number': '10000000' } });
    expect(res.statusCode).toBe(401);
  });

  it('never echoes the secret', async () => {
    const res = await t.app.inject(tokenRequest({ apiSecret: 'wrong-secret-value-123' }));
    expect(res.body).not.toContain('wrong-secret-value-123');
    expect(res.body).not.toContain(m.apiSecret);
  });
});

describe('Bearer tokens on protected routes', () => {
  const limits = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: authorization ? { authorization } : {} });

  it('accepts a fresh token', async () => {
    expect((await limits(`Bearer ${m.token}`)).statusCode).toBe(200);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a non-Bearer scheme', 'Basic Zm9vOmJhcg=='],
    ['garbage', 'Bearer not.a.jwt'],
    ['a token signed with another secret', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'],
  ])('answers 401 E901 to %s', async (_name, header) => {
    const res = await limits(header);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
  });

  it('answers 401 to an expired token', async () => {
    const res = await limits(`Bearer ${await expiredToken(t, m)}`);
    expect(res.statusCode).toBe(401);
  });

  it('refuses alg=none tokens', async () => {
    const payload = Buffer.from(JSON.stringify({ sub: String(m.clientId), org: m.organisationId, mac: m.merchantAccountNumber, iss: 'onekhusa-sandbox', aud: 'merchant-api', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 })).toString('base64url');
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect((await limits(`Bearer ${header}.${payload}.`)).statusCode).toBe(401);
  });

  it('stops a token as soon as its key is deactivated', async () => {
    const other = await newMerchant(t);
    const ok = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${other.merchantAccountNumber}`, headers: other.auth });
    expect(ok.statusCode).toBe(200);
    const off = await t.app.inject({ method: 'PUT', url: `${BASE}/security/apiKeys/deactivate`, headers: other.auth, payload: { merchantAccountNumber: other.merchantAccountNumber, clientKey: other.apiKey, changedBy: 'ops@shop.mw' } });
    expect(off.statusCode).toBe(200);
    const after = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${other.merchantAccountNumber}`, headers: other.auth });
    expect(after.statusCode).toBe(401);
    // …and the key cannot get a new token either.
    const token = await t.app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { apiKey: other.apiKey, apiSecret: other.apiSecret, organisationId: other.organisationId, merchantAccountNumber: other.merchantAccountNumber } });
    expect(token.statusCode).toBe(401);
  });
});

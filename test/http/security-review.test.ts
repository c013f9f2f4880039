// Security review (issue 6/6): the checklist, one `describe` per item, each with assertions of its
// own that fail when the property breaks. Where another file covers an item in more depth, the
// item says where; what is here is either missing there or the item's minimal proof.
//
//  1. JWT algorithm pinned (HS256): alg:none and other HMAC algorithms with the same secret refused
//  2. Tokens of deleted and deactivated keys refused
//  3. Constant-time secret comparison (timingSafeEqual over equal-length digests)
//  4. Secrets and tokens never reach the logs
//  5. Security headers on API and HTML responses
//  6. No stack traces, SQL or file paths in error responses
//  7. SSRF guard on webhook callback URLs, at registration and at delivery (DNS rebinding)
//  8. Body limit (413 E908, read to its end so that the client gets it) and JSON depth limit (400)
//     over a real socket; connections bounded per process and per address
//  9. Naming another merchant's resource answers exactly as naming one that does not exist
// 10. Rate limits per client address cannot be dodged
// 11. Production never makes money up: no sandbox-only operation under either prefix (also:
//     test/process/production-mode.test.ts, operator fundings; test/disbursements/production-payouts.test.ts, F105)
// 12. Four eyes cannot be fooled by look-alike addresses (also: test/disbursements/four-eyes.test.ts and
//     test/lib/actor.test.ts, the user and role checks and the canonical form's properties)
// 13. Links never come from the Host header in production (PUBLIC_BASE_URL is required)
// 14. The checkout form refuses cross-site posts (also: test/process/production-mode.test.ts)
// 15. One body spelling a field twice in different case is refused, not silently picked
// 16. No merchant can stall another: CSV files are read in a thread that stops at row 50,001
//     (also: test/disbursements/file-reader.test.ts; bench BENCH_ONLY=files); connections: item 8
// 17. A scheduled batch cannot lock money away (test/disbursements/scheduled-batches.test.ts: at most
//     SCHEDULE_MAX_DAYS ahead, cancellable with a full refund until due)
import { randomBytes, randomUUID } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { SANDBOX_ONLY } from '../../src/composition.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { actorProblem, canonicalActor } from '../../src/lib/actor.ts';
import { readFileContents } from '../../src/modules/disbursements/file-reader.ts';
import { createPool, withTransaction } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { emitEvent } from '../../src/jobs/outbox.ts';
import { secretMatches, hashSecret } from '../../src/modules/api-keys/repository.ts';
import { sendEmailTask } from '../../src/modules/email/service.ts';
import { WebhookDispatcher } from '../../src/modules/webhooks/dispatcher.ts';
import { createLogger } from '../../src/runtime.ts';
import { ADMIN_TOKEN, BASE, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, batchFor, collectionFor, CONNECTOR_ID, deliveryFor, merchantUserFor, settlementAccountFor, timedAccountFor, webhookFor } from '../routes.ts';

// Every timingSafeEqual call our code makes, with the byte lengths compared (a pass-through spy:
// the comparison itself is node's).
const timing = vi.hoisted(() => ({ calls: [] as Array<[number, number]> }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    timing.calls.push([a.byteLength, b.byteLength]);
    return actual.timingSafeEqual(a, b);
  };
  return { ...actual, default: { ...actual, timingSafeEqual }, timingSafeEqual };
});

const SMTP_USER = 'relay-user';
const SMTP_PASSWORD = 'Smtp-Pa55word-never-logged-7Qx';

let t: TestApp;
/** The caller of most checks. */
let a: TestMerchant;
/** Another merchant of A's organisation, with resources of its own. */
let b: TestMerchant;
let smtp: SMTPServer;
let smtpPort = 0;

beforeAll(async () => {
  // An SMTP server that refuses the login and quotes the password it was given in its answer, so
  // that the error nodemailer reports holds SMTP_URL's password.
  smtp = new SMTPServer({
    authOptional: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(new Error(`Invalid login for ${auth.username} with password ${auth.password}`));
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  smtpPort = ((smtp as unknown as { server: import('node:net').Server }).server.address() as AddressInfo).port;
  t = await startTestApp({ SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtpPort}` });
  a = await newMerchant(t, { accountName: 'Shop A' });
  b = await newMerchant(t, { accountName: 'Shop B', organisationId: a.organisationId });
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const limitsOf = (m: TestMerchant, authorization = `Bearer ${m.token}`, app = t.app) =>
  app.inject({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { authorization } });

// ---------------------------------------------------------------------------------------------
describe('1. JWT: the algorithm is pinned to HS256', () => {
  // Also: test/auth/auth.test.ts ("issues a 5-minute HS256 token", "refuses alg=none tokens", other secret).
  const claims = (m: TestMerchant) => ({ org: m.organisationId, mac: m.merchantAccountNumber });
  const sign = (m: TestMerchant, alg: string) =>
    new SignJWT(claims(m))
      .setProtectedHeader({ alg, typ: 'JWT' })
      .setSubject(String(m.clientId))
      .setIssuer('onekhusa-sandbox')
      .setAudience('merchant-api')
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti(randomUUID())
      .sign(t.deps.jwtSecret);

  it('issues HS256 tokens, and accepts one signed HS256 with the secret (the control)', async () => {
    expect(JSON.parse(Buffer.from(a.token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
    expect((await limitsOf(a, `Bearer ${await sign(a, 'HS256')}`)).statusCode).toBe(200);
  });

  it.each(['HS384', 'HS512'])('refuses a token signed %s with the same secret', async (alg) => {
    const res = await limitsOf(a, `Bearer ${await sign(a, alg)}`);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
  });

  it('refuses alg:none, with or without a signature part', async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...claims(a), sub: String(a.clientId), iss: 'onekhusa-sandbox', aud: 'merchant-api', iat: now, exp: now + 300 })).toString('base64url');
    const valid = (await sign(a, 'HS256')).split('.')[2];
    for (const token of [`${header}.${payload}.`, `${header}.${payload}`, `${header}.${payload}.${valid}`]) {
      const res = await limitsOf(a, `Bearer ${token}`);
      expect(res.statusCode, token).toBe(401);
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('2. Tokens of deleted and deactivated keys', () => {
  // Also: test/http/security.test.ts ("a revoked key": every route 401 after delete) and
  // test/auth/auth.test.ts ("stops a token as soon as its key is deactivated").
  it.each([
    ['deleted', 'DELETE', '/security/apiKeys/delete', 'deletedBy'],
    ['deactivated', 'PUT', '/security/apiKeys/deactivate', 'changedBy'],
  ] as const)('a %s key: its live token is refused at once, and it gets no new one', async (_name, method, path, actor) => {
    const m = await newMerchant(t, { organisationId: a.organisationId });
    expect((await limitsOf(m)).statusCode).toBe(200);
    const done = await t.app.inject({ method, url: `${BASE}${path}`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, clientKey: m.apiKey, [actor]: ACTOR } });
    expect(done.statusCode, done.body).toBe(200);
    const res = await limitsOf(m);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res).errorCode).toBe('E901');
    const token = await t.app.inject({
      method: 'POST',
      url: `${BASE}/account/getAccessToken`,
      payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
    });
    expect(token.statusCode).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------
describe('3. Constant-time secret comparison', () => {
  it('API secrets: SHA-256 digests compared with timingSafeEqual (32 against 32 bytes), whatever the length given', () => {
    timing.calls.length = 0;
    expect(secretMatches(a.apiSecret, hashSecret(a.apiSecret))).toBe(true);
    // The last character changed (to x, or to y when it already is x: the secret is random).
    const lastChanged = `${a.apiSecret.slice(0, -1)}${a.apiSecret.endsWith('x') ? 'y' : 'x'}`;
    expect(secretMatches(lastChanged, hashSecret(a.apiSecret))).toBe(false);
    // Unequal lengths neither throw nor return early.
    expect(secretMatches('', hashSecret(a.apiSecret))).toBe(false);
    expect(secretMatches('y'.repeat(10_000), hashSecret(a.apiSecret))).toBe(false);
    expect(timing.calls).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });

  it('getAccessToken compares the secret even for an unknown key (no early exit that times key existence)', async () => {
    timing.calls.length = 0;
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/account/getAccessToken`,
      payload: { apiKey: 'z'.repeat(30), apiSecret: 'w'.repeat(45), organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber },
    });
    expect(res.statusCode).toBe(401);
    expect(timing.calls).toEqual([[32, 32]]);
  });

  it('the operator token: compared with timingSafeEqual over digests; a token of another length is a 401, not a 500', async () => {
    for (const token of ['x', 'y'.repeat(15), `${ADMIN_TOKEN}x`, 'z'.repeat(2000), ADMIN_TOKEN.toUpperCase()]) {
      timing.calls.length = 0;
      const res = await t.app.inject({ method: 'GET', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode, token.slice(0, 20)).toBe(401);
      expect(timing.calls).toEqual([[32, 32]]);
    }
    timing.calls.length = 0;
    expect((await t.app.inject({ method: 'GET', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).statusCode).toBe(200);
    expect(timing.calls).toEqual([[32, 32]]);
  });

  it('the static webhook signature (E15 verify): timingSafeEqual when the (public, fixed) length matches', async () => {
    const s = await webhookFor(t, a);
    const wrong = `${s.webhook_signature.slice(0, -1)}${s.webhook_signature.endsWith('A') ? 'B' : 'A'}`;
    timing.calls.length = 0;
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/verify`, headers: a.auth, payload: { merchantAccountNumber: a.merchantAccountNumber, eventCode: s.event_code, webhookSignature: wrong } });
    expect(res.json()).toMatchObject({ isSignatureValid: false });
    expect(timing.calls).toEqual([[52, 52]]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('4. Secrets and tokens never reach the logs', () => {
  // Also: test/http/logs.test.ts (API secrets, access tokens, key-pair secrets at trace level).
  const lines: string[] = [];
  let logged: BuiltApp;
  let loggedDeps: Deps;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ logLevel: 'trace' }, sink);
    loggedDeps = { ...t.deps, log, config: { ...t.deps.config, logLevel: 'trace' } };
    logged = await buildApp(loggedDeps);
  });
  afterAll(() => logged.app.close());

  it('apiSecret, access tokens, signing secrets, set-password tokens and passwords, the SMTP password and ADMIN_TOKEN', async () => {
    const app = logged.app;
    const secrets: string[] = [a.apiSecret, SMTP_PASSWORD, ADMIN_TOKEN];

    // The token endpoint, right and wrong secret; the access token on an authenticated call.
    const credentials = { apiKey: a.apiKey, apiSecret: a.apiSecret, organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber };
    const issued = await app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: credentials });
    expect(issued.statusCode).toBe(200);
    const accessToken = issued.json().accessToken as string;
    secrets.push(accessToken);
    await app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { ...credentials, apiSecret: 'Wrong-Api-Secret-Value-0123456789' } });
    secrets.push('Wrong-Api-Secret-Value-0123456789');
    expect((await limitsOf(a, `Bearer ${accessToken}`, app)).statusCode).toBe(200);
    // A refused (expired-looking) token is not logged either.
    await limitsOf(a, `Bearer ${accessToken}x`, app);

    // A hosted checkout's page id: the link is the page's only key.
    const ptid = randomBytes(24).toString('base64url');
    await app.inject({ method: 'GET', url: `/checkout/pay?ptid=${ptid}` });
    secrets.push(ptid);

    // The operator token, right and wrong; the credentials the operator API returns.
    const created = await app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { accountName: 'Logged Shop' } });
    expect(created.statusCode).toBe(201);
    secrets.push(created.json().apiSecret);
    await app.inject({ method: 'GET', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}-wrong` } });

    // A webhook's signing secret and static signature.
    const eventCode = `custom.${randomBytes(6).toString('hex')}`;
    const hook = await app.inject({
      method: 'POST',
      url: `${BASE}/merchants/webhooks/add`,
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { merchantAccountNumber: a.merchantAccountNumber, eventCode, callbackUrl: 'https://shop.example.mw/hooks', capturedBy: ACTOR },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const { rows: subscription } = await t.db.query<{ signing_secret: string; webhook_signature: string }>(
      'select signing_secret, webhook_signature from webhook_subscriptions where merchant_account_number = $1 and event_code = $2',
      [a.merchantAccountNumber, eventCode],
    );
    secrets.push(subscription[0].signing_secret, subscription[0].webhook_signature);
    // E14 getAll shows them to the merchant (a response body, which is never logged).
    expect((await app.inject({ method: 'GET', url: `${BASE}/merchants/webhooks/getAll?merchantAccountNumber=${a.merchantAccountNumber}`, headers: { authorization: `Bearer ${accessToken}` } })).statusCode).toBe(200);

    // A merchant user: the invitation e-mail goes to an SMTP server that refuses the login and
    // quotes the password back; the error is logged (and stored) without it.
    const user = await app.inject({
      method: 'POST',
      url: `${BASE}/security/merchantUsers/add`,
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber, firstName: 'Thoko', lastName: 'Mwale', emailAddress: `u${randomBytes(4).toString('hex')}@shop.mw`, phoneNumber: '0991234567', roleId: 2, capturedBy: ACTOR },
    });
    expect(user.statusCode, user.body).toBe(201);
    const { rows } = await t.db.query<{ email_id: number; body_text: string }>('select email_id, body_text from email_outbox where merchant_account_number = $1 order by email_id desc limit 1', [a.merchantAccountNumber]);
    const emailId = rows[0].email_id;
    const setPasswordToken = /set-password\?token=([A-Za-z0-9_-]{43})/.exec(rows[0].body_text)![1];
    secrets.push(setPasswordToken);
    const attempt = await Promise.resolve(sendEmailTask(loggedDeps)({ emailId }, { job: { attempts: 1, max_attempts: 8 } } as never)).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(attempt).toBeInstanceOf(Error);
    expect(attempt!.message).toMatch(/Invalid login/);
    expect(attempt!.message).not.toContain(SMTP_PASSWORD);
    const { rows: stored } = await t.db.query<{ last_error: string }>('select last_error from email_outbox where email_id = $1', [emailId]);
    expect(stored[0].last_error).toMatch(/Invalid login/);
    expect(stored[0].last_error).not.toContain(SMTP_PASSWORD);

    // The set-password page and form, however the path is spelled.
    const password = 'Very-Secret-Passw0rd-for-logs';
    secrets.push(password);
    for (const path of ['/users/set-password', '/USERS/Set-Password', '/users/set-password/']) {
      const page = await app.inject({ method: 'GET', url: `${path}?token=${setPasswordToken}&lang=en` });
      expect(page.statusCode, path).toBe(200);
    }
    const form = await app.inject({
      method: 'POST',
      url: '/users/set-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: setPasswordToken, password, confirmation: password }).toString(),
    });
    expect(form.statusCode).toBe(200);

    const all = lines.join('');
    // The log did record these requests (so its silence about the secrets means something).
    expect(all).toContain('/users/set-password');
    expect(all).toContain('/admin/v1/merchants');
    expect(all).toContain('e-mail attempt failed');
    for (const secret of secrets) expect(all, `a secret of ${secret.length} characters is in the log`).not.toContain(secret);
  });
});

// ---------------------------------------------------------------------------------------------
describe('5. Security headers', () => {
  let checkoutPath: string;
  beforeAll(async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/checkout/rtp/initiate`,
      payload: {
        authentication: { apiKey: a.apiKey, apiSecret: a.apiSecret },
        merchant: { organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber },
        payment: { sourceReferenceNumber: `INV-${randomBytes(4).toString('hex')}`, description: 'Two bags of maize flour', amount: '1500.00' },
        route: { successRedirectionUrl: 'https://shop.example.mw/paid', failureRedirectionUrl: 'https://shop.example.mw/failed' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().checkoutUrl);
    checkoutPath = `${url.pathname}${url.search}`;
  });

  it('API answers (success, problem, operator): nosniff and Cache-Control no-store', async () => {
    const answers = [
      await limitsOf(a),
      await limitsOf(a, 'Bearer not-a-token'),
      await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: a.auth, payload: { merchantAccountNumber: a.merchantAccountNumber } }),
      await t.app.inject({ method: 'GET', url: '/admin/v1/merchants', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      await t.app.inject({ method: 'GET', url: `${BASE}/no/such/operation`, headers: a.auth }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 400, 200, 404]);
    for (const res of answers) {
      expect(res.headers['x-content-type-options'], res.body.slice(0, 100)).toBe('nosniff');
      expect(res.headers['cache-control'], res.body.slice(0, 100)).toBe('no-store');
    }
  });

  it('HTML pages (checkout and set-password, open and error pages): CSP, X-Frame-Options, Referrer-Policy, nosniff, no-store', async () => {
    const invite = await t.app.inject({
      method: 'POST',
      url: `${BASE}/security/merchantUsers/add`,
      headers: a.auth,
      payload: { organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber, firstName: 'Chikondi', lastName: 'Banda', emailAddress: `h${randomBytes(4).toString('hex')}@shop.mw`, phoneNumber: '0991234567', roleId: 3, capturedBy: ACTOR },
    });
    expect(invite.statusCode).toBe(201);
    const { rows } = await t.db.query<{ body_text: string }>('select body_text from email_outbox where merchant_account_number = $1 order by email_id desc limit 1', [a.merchantAccountNumber]);
    const token = /set-password\?token=([A-Za-z0-9_-]{43})/.exec(rows[0].body_text)![1];
    const pages = [
      await t.app.inject({ method: 'GET', url: checkoutPath }),
      await t.app.inject({ method: 'GET', url: '/checkout/pay?ptid=nope' }),
      await t.app.inject({ method: 'GET', url: `/users/set-password?token=${token}` }),
      await t.app.inject({ method: 'GET', url: '/users/set-password?token=nope' }),
    ];
    expect(pages.map((r) => r.statusCode)).toEqual([200, 404, 200, 410]);
    for (const res of pages) {
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('6. No stack traces, SQL or file paths in error responses', () => {
  function noInternals(raw: string, table?: string): void {
    // A page's own CSS names elements (select, table…): only its text and markup are checked.
    const body = raw.replace(/<style[^>]*>[\s\S]*?<\/style>/g, '');
    expect(body).not.toMatch(/\bat [\w.<>]+ \(|\bat (file|node):|:\d+:\d+\)/); // stack frames
    expect(body).not.toContain(process.cwd());
    expect(body).not.toMatch(/node_modules|\.ts\b|\.js\b/);
    expect(body).not.toMatch(/\bselect\b[^<]*\bfrom\b|\binsert into\b|\bupdate \w+ set\b|relation|does not exist|SQLSTATE|42P01|ECONNREFUSED|\bpool\b|127\.0\.0\.1/i);
    expect(body).not.toMatch(/Error:|\bstack\b/i);
    if (table) expect(body).not.toContain(table);
  }

  async function withTableRenamed<T>(table: string, fn: () => Promise<T>): Promise<T> {
    await t.db.query(`alter table ${table} rename to ${table}_away`);
    try {
      return await fn();
    } finally {
      await t.db.query(`alter table ${table}_away rename to ${table}`);
    }
  }

  it('a query that fails inside a handler: 500 E950 problem+json with the request id only', async () => {
    const m = await newMerchant(t);
    const res = await withTableRenamed('merchant_limits', () => limitsOf(m));
    expect(res.statusCode).toBe(500);
    const p = problemOf(res);
    expect(p.errorCode).toBe('E950');
    expect(p.detail).toContain(p.requestId);
    noInternals(res.body, 'merchant_limits');
  });

  it('a query that fails behind an HTML page: a 500 page that says nothing of the cause', async () => {
    const ptid = randomBytes(24).toString('base64url');
    // The checkout finds its request through the ptid's claim first (migration 0032): that query fails.
    const res = await withTableRenamed('ptid_claims', () => t.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${ptid}` }));
    expect(res.statusCode).toBe(500);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    noInternals(res.body, 'ptid_claims');
  });

  it.each([
    ['closed', true],
    ['unreachable', false],
  ])('a database that is gone (pool %s): 5xx without detail, on the API, a page and readiness', async (_name, closed) => {
    // Port 1: nothing listens there, connections are refused at once.
    const pool = createPool('postgres://nobody:nothing@127.0.0.1:1/none', 2);
    if (closed) await pool.end();
    const broken = await buildApp({ ...t.deps, db: pool });
    try {
      const api = await limitsOf(a, `Bearer ${a.token}`, broken.app);
      expect(api.statusCode).toBeGreaterThanOrEqual(500);
      expect(problemOf(api).errorCode).toMatch(/^E95[02]$/);
      noInternals(api.body);
      const page = await broken.app.inject({ method: 'GET', url: `/checkout/pay?ptid=${randomBytes(24).toString('base64url')}` });
      expect(page.statusCode).toBeGreaterThanOrEqual(500);
      noInternals(page.body);
      const ready = await broken.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      noInternals(ready.body);
    } finally {
      await broken.app.close();
      if (!closed) await pool.end();
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('7. SSRF guard on webhook callback URLs (production mode)', () => {
  // Also: test/webhooks/webhooks.test.ts ("isInternalAddress", "callback URLs in production mode": private
  // ranges, IPv6, mapped, hex/decimal/short forms, localhost, updates, /live/v1).
  let prod: BuiltApp;
  beforeAll(async () => {
    prod = await buildApp({ ...t.deps, config: { ...t.deps.config, mode: 'production' } });
  });
  afterAll(() => prod.app.close());

  it.each([
    'http://127.0.0.1/hooks',
    'http://10.0.0.1/hooks',
    'http://10.255.1.2:8080/hooks',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:7f00:1]/hooks',
    'http://[::ffff:a9fe:a9fe]/latest',
    'http://[::ffff:10.0.0.1]/hooks',
    'http://2130706433/hooks',
    'http://0177.0.0.1/hooks',
    'http://0177.0.0.01/hooks',
    'http://017700000001/hooks',
    'http://0x7f.0.0.1/hooks',
    'http://0xa9fea9fe/latest',
    'http://127.1/hooks',
    'http://localhost:8080/hooks',
  ])('refuses %s at registration (400, nothing stored)', async (callbackUrl) => {
    const eventCode = `custom.${randomBytes(6).toString('hex')}`;
    const res = await prod.app.inject({
      method: 'POST',
      url: `${BASE}/merchants/webhooks/add`,
      headers: a.auth,
      payload: { merchantAccountNumber: a.merchantAccountNumber, eventCode, callbackUrl, capturedBy: ACTOR },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).errorCode).toBe('E900');
    const { rowCount } = await t.db.query('select 1 from webhook_subscriptions where event_code = $1', [eventCode]);
    expect(rowCount).toBe(0);
  });

  it('checks again at delivery (DNS rebinding): a name that resolves to loopback by then, or an internal address, is never connected to', async () => {
    // A receiver on loopback that counts what reaches it.
    let reached = 0;
    const receiver = http.createServer((req, res) => {
      reached += 1;
      req.resume();
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const port = (receiver.address() as AddressInfo).port;
    // A resolver under the test's control for a few names (the rest resolve for real). 203.0.113.0/24
    // and 192.0.2.0/24 are documentation networks: public, and nothing answers there.
    const REBINDING = 'hooks.rebinding-shop.example';
    const PUBLIC_NAME = 'hooks.public-shop.example';
    const answers = new Map<string, string>([
      [REBINDING, '203.0.113.7'],
      [PUBLIC_NAME, '192.0.2.10'],
      ['hooks.private-shop.example', '10.0.0.5'],
    ]);
    const realLookup = dns.lookup;
    const realPromisesLookup = dns.promises.lookup;
    const lookup = vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
      const address = answers.get(hostname);
      if (address) return callback(null, [{ address, family: 4 }]);
      return (realLookup as (...args: unknown[]) => void)(hostname, options, callback);
    }) as unknown as typeof dns.lookup);
    const promisesLookup = vi.spyOn(dns.promises, 'lookup').mockImplementation((async (hostname: string, options: unknown) => {
      const address = answers.get(hostname);
      if (address) return [{ address, family: 4 }];
      return (realPromisesLookup as (...args: unknown[]) => unknown)(hostname, options);
    }) as unknown as typeof dns.promises.lookup);
    const deps: Deps = {
      ...t.deps,
      config: { ...t.deps.config, mode: 'production', webhookRetryScheduleMs: [0], webhookTimeoutMs: 1000, webhookLeaseMs: 10_000 },
    };
    const dispatcher = new WebhookDispatcher(deps);
    try {
      const register = (callbackUrl: string) => {
        const eventCode = `custom.${randomBytes(6).toString('hex')}`;
        return prod.app
          .inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: a.auth, payload: { merchantAccountNumber: a.merchantAccountNumber, eventCode, callbackUrl, capturedBy: ACTOR } })
          .then((res) => ({ res, eventCode }));
      };
      // Registration resolves the name: an internal answer is refused there already…
      const refused = await register(`http://hooks.private-shop.example:${port}/hooks`);
      expect(refused.res.statusCode, refused.res.body).toBe(400);
      // …and a public one is accepted.
      const rebinding = await register(`http://${REBINDING}:${port}/rebound`);
      expect(rebinding.res.statusCode, rebinding.res.body).toBe(201);
      const publicName = await register(`http://${PUBLIC_NAME}:${port}/public`);
      expect(publicName.res.statusCode, publicName.res.body).toBe(201);
      // Then the name is rebound to loopback.
      answers.set(REBINDING, '127.0.0.1');

      // Stored targets that name internal hosts directly (kept from before a switch to production
      // mode, or written by hand): the delivery refuses them too.
      const subscriptions: Record<string, string> = { rebound: rebinding.eventCode, public: publicName.eventCode };
      const stored = {
        localhost: `http://localhost:${port}/localhost`,
        localhostDot: `http://localhost.:${port}/localhost-dot`,
        loopback: `http://127.0.0.1:${port}/loopback`,
        ipv6: `http://[::1]:${port}/v6`,
        mapped: `http://[::ffff:127.0.0.1]:${port}/mapped`,
      };
      for (const [name, url] of Object.entries(stored)) {
        const s = await webhookFor(t, a, `custom.${name}.${randomBytes(4).toString('hex')}`, 'https://8.8.8.8/hooks');
        await t.db.query('update webhook_subscriptions set callback_url = $2 where webhook_id = $1', [s.webhook_id, url]);
        subscriptions[name] = s.event_code;
      }
      const deliveries: Record<string, number> = {};
      for (const [name, eventCode] of Object.entries(subscriptions)) {
        const { eventId } = await withTransaction(t.db, (tx) => emitEvent(tx, a.merchantAccountNumber, eventCode, { eventCode }));
        const { rows } = await t.db.query<{ delivery_id: number }>('select delivery_id from webhook_deliveries where event_id = $1', [eventId]);
        deliveries[name] = Number(rows[0].delivery_id);
      }
      await dispatcher.start();
      const errors: Record<string, string> = {};
      for (let i = 0; i < 300 && Object.keys(errors).length < Object.keys(deliveries).length; i++) {
        const { rows } = await t.db.query<{ delivery_id: number; error: string | null }>('select delivery_id, error from webhook_attempts where delivery_id = any($1::bigint[])', [Object.values(deliveries)]);
        for (const row of rows) for (const [name, id] of Object.entries(deliveries)) if (Number(row.delivery_id) === id) errors[name] = row.error ?? '(none)';
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Object.keys(errors).sort()).toEqual(Object.keys(deliveries).sort());
      for (const name of ['rebound', 'localhost', 'loopback', 'ipv6', 'mapped']) expect(errors[name], name).toMatch(/refused/);
      // "localhost." resolves to loopback on some systems (refused) and to nothing on others.
      expect(errors.localhostDot).toMatch(/refused|ENOTFOUND/);
      // A name that resolves to a public address is attempted: the guard is no blanket refusal of names.
      expect(errors.public).not.toMatch(/refused|internal/);
      expect(reached).toBe(0);
      const { rows: states } = await t.db.query<{ status: string }>('select status from webhook_deliveries where delivery_id = any($1::bigint[])', [Object.values(deliveries)]);
      expect(states.map((s) => s.status)).toEqual(states.map(() => 'failed'));
    } finally {
      await dispatcher.stop();
      lookup.mockRestore();
      promisesLookup.mockRestore();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('8. Body and depth limits over a real socket', () => {
  // Also: test/http/bad-input.test.ts ("bodies beyond the size limit", "deeply nested JSON");
  // test/http/oversized-body.test.ts (40 clients over the limit each read their 413, none a reset);
  // test/http/connections.test.ts (connections per process and per address, headers timeout).
  it('413 E908 past BODY_LIMIT_BYTES, 400 E900 past 32 levels of nesting; the server keeps answering', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}${BASE}/merchants/accounts/topup`;
    const headers = { ...a.auth, 'content-type': 'application/json' };
    const valid = { merchantAccountNumber: a.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: 10, createdBy: ACTOR };

    const big = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ ...valid, pad: 'x'.repeat(t.deps.config.bodyLimitBytes) }), signal: AbortSignal.timeout(20_000) });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await big.json()).errorCode).toBe('E908');

    const nest = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    for (const depth of [40, 5000]) {
      const deep = await fetch(url, { method: 'POST', headers, body: `${JSON.stringify(valid).slice(0, -1)},"extra":${nest(depth)}}`, signal: AbortSignal.timeout(20_000) });
      expect(deep.status, String(depth)).toBe(400);
      expect(deep.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await deep.json()).errorCode).toBe('E900');
    }
    // Within the limits, the same request is served.
    const fine = await fetch(url, { method: 'POST', headers, body: `${JSON.stringify(valid).slice(0, -1)},"extra":${nest(5)}}`, signal: AbortSignal.timeout(20_000) });
    expect(fine.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
describe("9. Another merchant's resources are indistinguishable from ones that do not exist", () => {
  // Also: test/http/security.test.ts (every route: another merchant's account number → 404 E903 and
  // nothing changes). Here: the answer to a foreign EXISTING identifier and to an ABSENT one are
  // byte-identical once the request id and the identifier itself (echoed from the request) are
  // masked: same status, headers and body.

  const pick = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');

  /**
   * A value shaped like `like` (same length and character classes; for a timed account, its
   * pattern) that `exists` says is absent. Small numeric ids may all be taken at their length: then
   * a longer one.
   */
  async function absentLike(like: string, exists: (value: string) => Promise<boolean>): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const longer = Math.floor(i / 50);
      const candidate = /^[0-9a-f-]{36}$/.test(like)
        ? randomUUID()
        : /^1\d{7}$/.test(like)
          ? `1${pick('0123456789', 7)}`
          : /^\d+$/.test(like)
            ? pick('123456789', 1) + pick('0123456789', like.length - 1 + longer)
            : /^[A-Z0-9]+$/.test(like)
              ? pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', like.length)
              : pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', like.length);
      if (candidate !== like && !(await exists(candidate))) return candidate;
    }
    throw new Error(`no absent value like ${like}`);
  }

  const exists = (sql: string) => async (value: string) => ((await t.db.query(sql, [value])).rowCount ?? 0) > 0;

  interface Probe {
    name: string;
    foreign: () => Promise<string>;
    exists: (value: string) => Promise<boolean>;
    request: (value: string) => { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: object; headers?: Record<string, string> };
  }

  const mac = () => a.merchantAccountNumber;
  const PROBES: Probe[] = [
    {
      name: 'GET /merchants/accounts/get?merchantAccountNumber=…',
      foreign: async () => String(b.merchantAccountNumber),
      exists: exists('select 1 from merchants where merchant_account_number = $1::int'),
      request: (v) => ({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${v}` }),
    },
    {
      name: 'POST /merchants/accounts/topup (a write) for merchantAccountNumber …',
      foreign: async () => String(b.merchantAccountNumber),
      exists: exists('select 1 from merchants where merchant_account_number = $1::int'),
      request: (v) => ({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, payload: { merchantAccountNumber: Number(v), connectorId: CONNECTOR_ID, topupAmount: 10, createdBy: ACTOR } }),
    },
    {
      name: 'X-Merchant-Account-Number: …',
      foreign: async () => String(b.merchantAccountNumber),
      exists: exists('select 1 from merchants where merchant_account_number = $1::int'),
      request: (v) => ({ method: 'GET', url: `${BASE}/merchants/limits/getAll?merchantAccountNumber=${mac()}`, headers: { 'x-merchant-account-number': v } }),
    },
    {
      name: 'E11 addFakeCustomPayment to payment account …',
      foreign: async () => b.paymentAccountNumber,
      exists: exists('select 1 from merchants where payment_account_number = $1'),
      request: (v) => ({ method: 'POST', url: `${BASE}/collections/addFakeCustomPayment`, payload: { beneficiaryAccountNumber: v, connectorId: CONNECTOR_ID, transactionAmount: 50, createdBy: ACTOR } }),
    },
    {
      name: 'E12b addFakeTransaction to timed account …',
      foreign: async () => (await timedAccountFor(t, b, 250_000)).timed_account_number,
      exists: exists('select 1 from payment_requests where timed_account_number = $1'),
      request: (v) => ({
        method: 'POST',
        url: `${BASE}/collections/requestToPay/addFakeTransaction`,
        payload: { merchantAccountNumber: mac(), transactionAmount: 2500, connectorId: 112400, timedAccountNumber: v, currencyCode: 'MWK', capturedBy: ACTOR },
      }),
    },
    {
      name: 'collections/getTransaction …',
      foreign: async () => (await collectionFor(t, b)).transaction_reference_number,
      exists: exists('select 1 from collections where transaction_reference_number = $1'),
      request: (v) => ({ method: 'POST', url: `${BASE}/collections/getTransaction`, payload: { merchantAccountNumber: mac(), transactionReferenceNumber: v } }),
    },
    {
      name: 'collections/reverse (a write) …',
      foreign: async () => (await collectionFor(t, b)).transaction_reference_number,
      exists: exists('select 1 from collections where transaction_reference_number = $1'),
      request: (v) => ({ method: 'POST', url: `${BASE}/collections/reverse`, payload: { merchantAccountNumber: mac(), transactionReferenceNumber: v, reason: 'Customer refund' } }),
    },
    {
      name: 'disbursements/batch/getBatch …',
      foreign: async () => String(await batchFor(t, b)),
      exists: exists('select 1 from batches where batch_number = $1::int'),
      request: (v) => ({ method: 'POST', url: `${BASE}/disbursements/batch/getBatch`, payload: { merchantAccountNumber: mac(), batchNumber: Number(v) } }),
    },
    {
      name: 'disbursements/batch/cancel (a write) …',
      foreign: async () => String(await batchFor(t, b)),
      exists: exists('select 1 from batches where batch_number = $1::int'),
      request: (v) => ({ method: 'POST', url: `${BASE}/disbursements/batch/cancel`, payload: { merchantAccountNumber: mac(), batchNumber: Number(v), cancelledBy: ACTOR } }),
    },
    {
      name: 'merchants/webhooks/get …',
      foreign: async () => String((await webhookFor(t, b)).webhook_id),
      exists: exists('select 1 from webhook_subscriptions where webhook_id = $1::bigint'),
      request: (v) => ({ method: 'GET', url: `${BASE}/merchants/webhooks/get?merchantAccountNumber=${mac()}&webhookId=${v}` }),
    },
    {
      name: 'merchants/webhooks/redeliver …',
      foreign: async () => String(await deliveryFor(t, b)),
      exists: exists('select 1 from webhook_deliveries where delivery_id = $1::bigint'),
      request: (v) => ({ method: 'POST', url: `${BASE}/merchants/webhooks/redeliver`, payload: { merchantAccountNumber: mac(), deliveryId: Number(v) } }),
    },
    {
      name: 'security/apiKeys/get …',
      foreign: async () => b.apiKey,
      exists: exists('select 1 from api_keys where client_key = $1'),
      request: (v) => ({ method: 'GET', url: `${BASE}/security/apiKeys/get?merchantAccountNumber=${mac()}&clientKey=${v}` }),
    },
    {
      name: 'security/merchantUsers/get …',
      foreign: async () => merchantUserFor(t, b),
      exists: exists('select 1 from merchant_users where user_id = $1::uuid'),
      request: (v) => ({ method: 'GET', url: `${BASE}/security/merchantUsers/get?merchantAccountNumber=${mac()}&userId=${v}` }),
    },
    {
      name: 'merchants/bankAccounts/get …',
      foreign: async () => String(await settlementAccountFor(t, b)),
      exists: exists('select 1 from settlement_accounts where account_id = $1::int'),
      request: (v) => ({ method: 'GET', url: `${BASE}/merchants/bankAccounts/get?merchantAccountNumber=${mac()}&accountId=${v}` }),
    },
    {
      name: "getAccessToken with A's key pair for merchant account …",
      foreign: async () => String(b.merchantAccountNumber),
      exists: exists('select 1 from merchants where merchant_account_number = $1::int'),
      request: (v) => ({
        method: 'POST',
        url: `${BASE}/account/getAccessToken`,
        payload: { apiKey: a.apiKey, apiSecret: a.apiSecret, organisationId: a.organisationId, merchantAccountNumber: Number(v) },
      }),
    },
  ];

  /** The answer with its request id and the probed value (a whole token, wherever echoed) masked. */
  function masked(res: { statusCode: number; headers: Record<string, unknown>; body: string }, value: string) {
    const requestId = String(res.headers['x-request-id']);
    const token = new RegExp(`(?<![A-Za-z0-9])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`, 'g');
    const body = res.body.split(requestId).join('<request-id>').replace(token, '<probed>');
    // content-length follows the probed value's length; the masked bodies are compared instead.
    const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name)));
    return { status: res.statusCode, headers, body };
  }

  it.each(PROBES.map((p) => [p.name, p] as const))('%s', async (_name, probe) => {
    const foreign = await probe.foreign();
    expect(await probe.exists(foreign)).toBe(true);
    const absent = await absentLike(foreign, probe.exists);
    const send = (value: string) => {
      const r = probe.request(value);
      return t.app.inject({ method: r.method, url: r.url, payload: r.payload, headers: { ...(r.url.endsWith('/getAccessToken') ? {} : a.auth), ...r.headers } });
    };
    const [toForeign, toAbsent] = [await send(foreign), await send(absent)];
    expect(toForeign.statusCode, toForeign.body).toBeGreaterThanOrEqual(400);
    expect([401, 404]).toContain(toForeign.statusCode);
    expect(masked(toForeign, foreign)).toEqual(masked(toAbsent, absent));
  });
});

describe('10. Rate limits per client address cannot be dodged', () => {
  it('the token endpoint is limited whatever the case of its path, and so are the pages people open', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_SECOND: '2' });
    try {
      const burst = async (url: string, method: 'GET' | 'POST', payload?: object) => {
        const statuses: number[] = [];
        for (let i = 0; i < 8; i++) statuses.push((await limited.app.inject({ method, url, payload, remoteAddress: '203.0.113.7' })).statusCode);
        return statuses;
      };
      const bad = { apiKey: 'x'.repeat(30), apiSecret: 'y'.repeat(45), organisationId: 'ABCDEFGHIJKL', merchantAccountNumber: 10000001 };
      // Routes match case-insensitively; the limit must follow the route, not the spelling.
      expect(await burst('/SANDBOX/v1/account/getAccessToken', 'POST', bad)).toContain(429);
      expect(await burst('/Sandbox/V1/Account/GetAccessToken', 'POST', bad)).toContain(429);
      // The set-password page hashes with argon2; the checkout page reads the database.
      expect(await burst(`/users/set-password?token=${'a'.repeat(43)}`, 'GET')).toContain(429);
      expect(await burst(`/CHECKOUT/pay?ptid=${'b'.repeat(32)}`, 'GET')).toContain(429);
      expect(await burst(`/requestToPay/initiate?ptid=${'b'.repeat(32)}`, 'GET')).toContain(429);
      // Health is not limited: load balancers probe it.
      expect(await burst('/health/live', 'GET')).not.toContain(429);
    } finally {
      await limited.close();
    }
  });
});

describe('11. Production never makes money up', () => {
  it('has no sandbox-only operation under /live/v1 or /sandbox/v1, and none in its OpenAPI document', async () => {
    const prod = await buildApp({ ...t.deps, config: { ...t.deps.config, mode: 'production', publicBaseUrl: 'https://pay.example.mw' } });
    try {
      await prod.app.ready();
      expect(SANDBOX_ONLY.size).toBe(4);
      for (const prefix of ['/live/v1', '/sandbox/v1']) {
        const res = await prod.app.inject({ method: 'POST', url: `${prefix}/merchants/accounts/topup`, headers: a.auth, payload: { merchantAccountNumber: a.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: '5000000000', createdBy: ACTOR } });
        expect(res.statusCode).toBe(404);
        expect(problemOf(res).errorCode).toBe('E903');
      }
      const paths = Object.keys(((await prod.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: object }).paths).map((p) => p.toLowerCase());
      for (const op of ['topup', 'addfakecustompayment', 'addfaketransaction', 'collections/reverse']) expect(paths.filter((p) => p.endsWith(op))).toEqual([]);
    } finally {
      await prod.app.close();
    }
  });
});

describe('12. Four eyes cannot be fooled by look-alike addresses', () => {
  it('compares one canonical mailbox, and refuses invisible characters and mixed scripts', () => {
    for (const lookAlike of ['ｂoss@x.com', 'BOSS@X.COM', 'boss@x.com.', '"boss"@x.com', 'boss+1@x.com']) expect(canonicalActor(lookAlike), lookAlike).toBe(canonicalActor('boss@x.com'));
    expect(actorProblem('boss\u200b@x.com')).toBe('invisible');
    expect(actorProblem('bo\u00adss@x.com')).toBe('invisible');
    expect(actorProblem('b\u03bfss@x.com')).toBe('mixedScripts');
    expect(actorProblem('boss@x.com')).toBeUndefined();
  });
});

describe('13. Links never come from the Host header in production', () => {
  it('production refuses to start without PUBLIC_BASE_URL; with it, a forged Host changes no link', async () => {
    expect(() => loadConfig({ APP_MODE: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ APP_MODE: 'production' })).toThrow(/PUBLIC_BASE_URL/);
    const prod = await buildApp({ ...t.deps, config: { ...t.deps.config, mode: 'production', publicBaseUrl: 'https://pay.example.mw' } });
    try {
      const res = await prod.app.inject({
        method: 'POST',
        url: '/live/v1/checkout/rtp/initiate',
        headers: { host: 'evil.example' },
        payload: {
          authentication: { apiKey: a.apiKey, apiSecret: a.apiSecret },
          merchant: { organisationId: a.organisationId, merchantAccountNumber: a.merchantAccountNumber },
          payment: { sourceReferenceNumber: 'HOST-1', description: 'x', amount: '100.00' },
          route: { successRedirectionUrl: 'https://shop.example.mw/ok', failureRedirectionUrl: 'https://shop.example.mw/no' },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(new URL(res.json().checkoutUrl).origin).toBe('https://pay.example.mw');
    } finally {
      await prod.app.close();
    }
  });
});

describe('14. The checkout form refuses cross-site posts', () => {
  it('a post from another site is 403 and changes nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      payload: `ptid=${'c'.repeat(32)}&action=cancel`,
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('15. One field spelled twice is refused', () => {
  it('answers 400 E900 naming it, whichever spelling comes first', async () => {
    for (const payload of [
      { merchantAccountNumber: a.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: '1', TopupAmount: '9', createdBy: ACTOR },
      { merchantAccountNumber: a.merchantAccountNumber, connectorId: CONNECTOR_ID, TOPUPAMOUNT: '9', topupAmount: '1', createdBy: ACTOR },
    ]) {
      const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/accounts/topup`, headers: a.auth, payload });
      expect(res.statusCode).toBe(400);
      expect(problemOf(res).errors.join(' ')).toContain('given more than once');
    }
  });
});

describe('16. No merchant can stall another', () => {
  it('the CSV reader stops at row 50,001 of a 200,000-row file (it runs in a thread: test/disbursements/file-reader.test.ts)', async () => {
    const header = 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber';
    const csv = [header, ...Array.from({ length: 200_000 }, (_, i) => `A,112400,265991234567,x,1,R${i}`)].join('\n');
    const read = await readFileContents('CSV', Buffer.from(csv), 50_000);
    expect(read.rows).toBe(50_001);
    expect(read.lines).toHaveLength(50_000);
  });
});

describe('17. A scheduled batch cannot lock money away', () => {
  it('a scheduledDate past SCHEDULE_MAX_DAYS (365) is refused and nothing is stored', async () => {
    expect(loadConfig({}).scheduleMaxDays).toBe(365);
    const before = await t.db.query<{ n: number }>('select count(*)::int as n from batches where merchant_account_number = $1', [a.merchantAccountNumber]);
    const res = await t.app.inject({
      method: 'POST',
      url: `${BASE}/disbursements/batch/addJson`,
      headers: a.auth,
      payload: {
        header: { merchantAccountNumber: a.merchantAccountNumber, isBatchScheduled: true, scheduledDate: '9999-12-31', capturedBy: ACTOR },
        transactions: [{ beneficiaryName: 'A', connectorId: CONNECTOR_ID, beneficiaryAccountNumber: '3333888801', transactionDescription: 'x', transactionAmount: 1000, sourceReferenceNumber: 'SCHED-1' }],
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    const problem = problemOf(res);
    expect(problem.errorCode).toBe('E900');
    expect(`${problem.detail} ${problem.errors.join(' ')}`).toContain('more than 365 days ahead');
    const after = await t.db.query<{ n: number }>('select count(*)::int as n from batches where merchant_account_number = $1', [a.merchantAccountNumber]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

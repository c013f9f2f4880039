// Only the switch gets in (issue 24, Mojaloop security): FSPIOP requests and callbacks move money,
// so in production they are accepted only from the switch, proven by its client certificate on a
// listener of their own (mutual TLS), and, with senders' keys configured, by the JWS signature
// (fspiop-signature) of each message; our own requests are signed when our key is set. Production
// refuses to start with the rail on and no mutual TLS; a message that fails a check gets the spec's
// error and changes nothing.
//
// Against the Mojaloop Testing Toolkit (test/ttk/): a TTK of this file's own that requires our
// client certificate and presents its own on its callbacks (production, end to end), and the
// run's shared TTK, signing its callbacks or not (sandbox). Every case ends with `ledger verify`
// clean and the balances exact where money moved.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { verifyRequest } from '../../src/rails/mojaloop/jws.ts';
import { buildFspiopListener } from '../../src/rails/mojaloop/listener.ts';
import { closeMojaloop } from '../../src/rails/mojaloop/rail.ts';
import { ADMIN_TOKEN, createTestDatabase, newMerchant, ROOT, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, apiBalances, BANK_FEE, CAPTURER, idempotencyKey, major, NBM, singlePayout, topup, validateBatch, WALLET_FEE } from '../money-ops.ts';
import { expectLedgerClean, payouts, runJob, settle, transferTypes, untilPhase, wallet } from './mojaloop-kit.ts';
import { acquireTtk, mojaloopTestCertificates, startTtk, Ttk, type AcquiredTtk, type RunningTtk } from '../ttk/harness.ts';
import { lookupParty, notifyTransfer, quoteRequestBody, requestQuote, sendTransfer, transferRequestBody } from '../ttk/payer.ts';
import { PAYEE_FSP, SWITCH_FSP, transferNoCallback } from '../ttk/rules.ts';

const FSP_ID = 'onekhusadfsp';
const PAYER_FSP = 'payerfsp';
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'mojaloop-tls');
const certs = mojaloopTestCertificates();
/** The fixtures are PEM files already: MOJALOOP_TLS_* point at them. */
const fixture = (name: string) => path.join(FIXTURES, name);
/** Our certificate towards the switch, on our requests and on our listener (one pair serves both: config.ts). */
const ILP_SECRET = 'a-production-ilp-secret-of-at-least-32-characters';
const OUR_TLS = { MOJALOOP_TLS_CERT: fixture('dfsp-client.pem'), MOJALOOP_TLS_KEY: fixture('dfsp-client.key'), MOJALOOP_TLS_CA: fixture('ca.pem') };
const TRANSFER_EXPIRY_SECONDS = 2;
const CALLBACK_SECONDS = 1;

let ttk: AcquiredTtk;
let tmp: string;
/** Our JWS key pair (MOJALOOP_JWS_KEY) and another pair, known to nobody. */
let ours: { privateKeyPem: string; publicKeyPem: string; keyFile: string };
let stranger: { publicKeyPem: string };
/** MOJALOOP_JWS_PUBLIC_KEYS folders: TTK's key as payeefsp and switch; or another key as payeefsp. */
let ttkKeysDir: string;
let wrongKeysDir: string;

function rsaPair() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

beforeAll(async () => {
  // The shared TTK's lock for the whole file: cases 3 and 4 use it, and while case 2 runs a TTK of
  // its own no other file does TTK-heavy work beside it (two TTKs and two services on two cores).
  ttk = await acquireTtk({ label: 'mojaloop-security' });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mojaloop-security-'));
  const pair = rsaPair();
  ours = { ...pair, keyFile: path.join(tmp, 'our-jws.key') };
  fs.writeFileSync(ours.keyFile, pair.privateKeyPem);
  stranger = { publicKeyPem: rsaPair().publicKeyPem };
  // jws-ttk.pem is an X.509 certificate, not a bare public key: it goes in as it is (verifyRequest
  // takes it through createPublicKey, which accepts a certificate).
  expect(certs.jws.certPem).toContain('-----BEGIN CERTIFICATE-----');
  ttkKeysDir = path.join(tmp, 'keys-ttk');
  fs.mkdirSync(ttkKeysDir);
  fs.writeFileSync(path.join(ttkKeysDir, `${PAYEE_FSP}.pem`), certs.jws.certPem);
  fs.writeFileSync(path.join(ttkKeysDir, `${SWITCH_FSP}.pem`), certs.jws.certPem);
  // TTK as a payer DFSP too (its outbound runner signs with the same key).
  fs.writeFileSync(path.join(ttkKeysDir, `${PAYER_FSP}.pem`), certs.jws.certPem);
  wrongKeysDir = path.join(tmp, 'keys-wrong');
  fs.mkdirSync(wrongKeysDir);
  fs.writeFileSync(path.join(wrongKeysDir, `${PAYEE_FSP}.pem`), stranger.publicKeyPem);
  fs.writeFileSync(path.join(wrongKeysDir, `${SWITCH_FSP}.pem`), certs.jws.certPem);
}, 180_000);

afterAll(async () => {
  await ttk?.release();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// ---- helpers (as test/rails/mojaloop-payouts.test.ts, for any of this file's apps) ----

/** What a message that "changes nothing" must leave as it was: the ledger, the payouts, the rail's rows. */
async function snapshot(t: TestApp) {
  const { rows: counts } = await t.db.query<{ entries: number; transfers: number; payouts: unknown }>(
    `select (select count(*)::int from ledger_entries) as entries, (select count(*)::int from ledger_transfers) as transfers,
            (select coalesce(json_agg(json_build_object('id', p.payout_id, 's', p.status_code, 'c', p.response_code, 'phase', r.phase, 'attempts', r.attempts, 'at', r.updated_at) order by p.payout_id), '[]')
               from payouts p left join rail_payouts r using (merchant_account_number, payout_id)) as payouts`,
  );
  const { rows: balances } = await t.db.query<{ id: number; b: string }>('select account_id as id, balance_minor as b from ledger_accounts order by 1');
  return { ...counts[0], balances };
}

/** A message from the switch's side, as our /fspiop receives it (for forgeries). */
function fspiopHeaders(resource: string, source = PAYEE_FSP): Record<string, string> {
  return { 'content-type': `application/vnd.interoperability.${resource}+json;version=1.0`, date: new Date().toUTCString(), 'fspiop-source': source, 'fspiop-destination': FSP_ID };
}

interface TlsAnswer {
  status?: number;
  body?: string;
  /** Set when no HTTP answer came: the connection failed (the TLS handshake, for a missing client certificate). */
  error?: string;
  code?: string;
}

/**
 * PUT /fspiop{path} to our TLS listener, with or without a client certificate. Our listener's
 * certificate is not checked here (TTK does not check it either): what is probed is whether the
 * listener lets the caller in.
 */
function tlsPut(port: number, urlPath: string, body: unknown, headers: Record<string, string>, client?: { certPem: string; keyPem: string }): Promise<TlsAnswer> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: `/fspiop${urlPath}`,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
        ca: certs.caPem,
        ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
        rejectUnauthorized: false,
        agent: false,
        timeout: 5000,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.message, code: err.code }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer within 5 s'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.message, code: err.code }));
    req.end(payload);
  });
}

/** The TLS 1.3 alert (116) a server sends a client that presented no certificate. */
const NO_CERTIFICATE = 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED';

// ---- 1. production without mutual TLS ----

describe('production refuses to start with the Mojaloop rail and no mutual TLS', () => {
  const rail = { MOJALOOP_SWITCH_URL: 'https://127.0.0.1:9', MOJALOOP_FSP_ID: FSP_ID, MOJALOOP_CONNECTOR_IDS: `${AIRTEL},${NBM}` };
  const production = { APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw' };

  it('loadConfig throws a ConfigError naming MOJALOOP_TLS_CERT; with the three TLS files it loads', () => {
    let thrown: unknown;
    try {
      loadConfig({ ...production, ...rail });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain('MOJALOOP_TLS_CERT');
    // Half a TLS configuration is refused too; the sandbox may run the rail without TLS.
    expect(() => loadConfig({ ...production, ...rail, MOJALOOP_TLS_CERT: OUR_TLS.MOJALOOP_TLS_CERT })).toThrow(ConfigError);
    expect(loadConfig({ ...rail }).mojaloop?.tls).toBeUndefined();
    // The payee side's ILP secret is the production deployment's own, never a default.
    expect(() => loadConfig({ ...production, ...rail, ...OUR_TLS })).toThrow(/MOJALOOP_ILP_SECRET/);
    expect(() => loadConfig({ ...production, ...rail, ...OUR_TLS, MOJALOOP_ILP_SECRET: 'too-short' })).toThrow(/at least 32/);
    const config = loadConfig({ ...production, ...rail, ...OUR_TLS, MOJALOOP_ILP_SECRET: ILP_SECRET, MOJALOOP_TLS_PORT: '8555', MOJALOOP_TLS_HOST: '127.0.0.1' });
    expect(config.mojaloop?.tls).toMatchObject({ port: 8555, host: '127.0.0.1', certPem: certs.dfspClient.certPem, caPem: certs.caPem });
  });

  it('the real process exits with code 2 and says why on stderr', { timeout: 60_000 }, async () => {
    const database = await createTestDatabase();
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of Object.keys(env)) if (name.startsWith('MOJALOOP_')) delete env[name];
      Object.assign(env, production, rail, { DATABASE_URL: database.url, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN, JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789' });
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d));
      child.stderr!.on('data', (d: Buffer) => (stderr += d));
      const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal });
        });
      });
      expect(exit, `stdout: ${stdout}\nstderr: ${stderr}`).toEqual({ code: 2, signal: null });
      expect(stderr).toContain('configuration error');
      expect(stderr).toContain('MOJALOOP_TLS_CERT');
      expect(stderr).toContain('mutual TLS');
    } finally {
      await database.drop();
    }
  });
});

// ---- 2. production with mutual TLS, end to end ----

describe('production with mutual TLS: TTK requires our certificate, we require its', () => {
  let own: RunningTtk;
  let switchTtk: Ttk;
  let t: TestApp;
  let listener: FastifyInstance;
  let tlsPort: number;

  beforeAll(async () => {
    own = await startTtk({
      inboundMtls: { caPem: certs.caPem, serverCertPem: certs.ttkServer.certPem, serverKeyPem: certs.ttkServer.keyPem },
      jws: { privateKeyPem: certs.jws.keyPem, certificatePem: certs.jws.certPem },
    });
    switchTtk = new Ttk(own.info);
    expect(own.info.fspiopUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    tlsPort = await freePort();
    t = await startTestApp({
      APP_MODE: 'production',
      MOJALOOP_ILP_SECRET: ILP_SECRET,
      PUBLIC_BASE_URL: 'https://pay.example.mw',
      MOJALOOP_SWITCH_URL: own.info.fspiopUrl,
      MOJALOOP_FSP_ID: FSP_ID,
      MOJALOOP_CONNECTOR_IDS: `${AIRTEL},${NBM}`,
      MOJALOOP_TRANSFER_EXPIRY_SECONDS: String(TRANSFER_EXPIRY_SECONDS),
      // Over TLS with a handshake per callback (TTK keeps no connection) and JWS both ways, 20 round
      // trips at once may take longer than a second on two cores: a longer wait, fewer repeats.
      MOJALOOP_CALLBACK_SECONDS: '3',
      ...OUR_TLS,
      MOJALOOP_TLS_PORT: String(tlsPort),
      MOJALOOP_TLS_HOST: '127.0.0.1',
      // Production as it should run: signatures both ways as well.
      MOJALOOP_JWS_KEY: ours.keyFile,
      MOJALOOP_JWS_PUBLIC_KEYS: ttkKeysDir,
    });
    listener = (await buildFspiopListener(t.deps))!;
    expect(listener).toBeDefined();
    await listener.listen({ port: tlsPort, host: '127.0.0.1' });
    await switchTtk.setUserConfig({ CALLBACK_ENDPOINT: `https://127.0.0.1:${tlsPort}/fspiop` });
    await switchTtk.setCallbackClientCertificate(`127.0.0.1:${tlsPort}`, certs.ttkClient.certPem, certs.ttkClient.keyPem);
    await switchTtk.signCallbacks(true);
  }, 180_000);

  afterAll(async () => {
    await listener?.close();
    if (t) await closeMojaloop(t.deps);
    await t?.close();
    await own?.stop();
  });

  let keys = 0;
  /** Production requires X-Idempotency-Key on money-moving writes. */
  function live(m: TestMerchant, url: string, payload: object) {
    return t.app.inject({ method: 'POST', url: `/live/v1${url}`, headers: { ...m.auth, 'x-idempotency-key': `mojaloop-security-${Date.now()}-${++keys}` }, payload });
  }

  /** A level-1 merchant funded by the operator (top-up is sandbox-only). */
  async function fundedMerchant(amountMinor: number): Promise<TestMerchant> {
    const m = await newMerchant(t, { accountName: 'Zomba Payroll', levelNumber: 1 });
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${m.merchantAccountNumber}/fundings`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { amount: major(amountMinor), bankReference: `FT${m.merchantAccountNumber}X${++keys}`, receivedOn: new Date().toISOString().slice(0, 10), recordedBy: 'finance@example.mw' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return m;
  }

  it('a 20-line production batch to wallets and banks over mutual TLS and JWS: all paid, balances exact, batch C', { timeout: 120_000 }, async () => {
    const m = await fundedMerchant(100_000_000);
    const before = await apiBalances(t, m);
    expect(before.disbursementMinor).toBe(100_000_000);
    const lines = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? wallet(`26599${String(2000000 + i)}`, 100_000 + i * 1_000)
        : { beneficiaryName: 'Test Party', connectorId: NBM, beneficiaryAccountNumber: `1002${String(230000 + i)}`, transactionDescription: 'Salary', transactionAmount: major(250_000 + i), sourceReferenceNumber: `SRC-BANK-${i}` },
    );
    const expectedDebit = lines.reduce((s, l) => s + Math.round(Number(l.transactionAmount) * 100) + (l.connectorId === AIRTEL ? WALLET_FEE : BANK_FEE), 0);
    const added = await live(m, '/disbursements/batch/addJson', { header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: lines });
    expect(added.statusCode, added.body).toBe(200);
    const batchNumber: number = added.json().batchNumber;
    await validateBatch(t, batchNumber);
    const moved = await live(m, '/disbursements/batch/transferFunds', { merchantAccountNumber: m.merchantAccountNumber, batchNumber, transferredBy: CAPTURER });
    expect(moved.statusCode, moved.body).toBe(200);

    const rows = await settle(t, m, 60_000);
    expect(rows.map((r) => [r.status_code, r.response_code, r.phase])).toEqual(rows.map(() => ['S', 'S100', 'committed']));
    expect(rows.reduce((s, r) => s + r.amount_minor + r.fee_minor, 0)).toBe(expectedDebit);
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - expectedDebit);
    const { rows: batch } = await t.db.query('select status_code, number_of_successful_entries from batches where batch_number = $1', [batchNumber]);
    expect(batch[0]).toEqual({ status_code: 'C', number_of_successful_entries: 20 });
    // The batch was debited once at transferFunds; each line: its rail_send and its rail_settle.
    for (const r of rows) expect(await transferTypes(t, r.transaction_reference_number)).toEqual({ rail_send: 1, rail_settle: 1 });
    // Every callback came over the listener (TTK presenting its certificate) and passed every check,
    // signature included: each payout has its accepted PUT /parties, /quotes and /transfers. (A
    // lookup or quote slower than MOJALOOP_CALLBACK_SECONDS is asked again, and a transfer past its
    // expiry asked about, so there may be more; a transfer is never sent twice.)
    const { rows: perPayout } = await t.db.query<{ payout_id: number; parties: number; quotes: number; transfers: number; posted: number }>(
      `select p.payout_id,
              count(*) filter (where x.direction = 'in' and x.path like '/parties/%')::int as parties,
              count(*) filter (where x.direction = 'in' and x.path like '/quotes/%')::int as quotes,
              count(*) filter (where x.direction = 'in' and x.path like '/transfers/%')::int as transfers,
              count(*) filter (where x.direction = 'out' and x.method = 'POST' and x.path = '/transfers')::int as posted
         from payouts p left join rail_messages x on x.merchant_account_number = p.merchant_account_number and x.payout_id = p.payout_id and x.outcome = 'accepted'
        where p.merchant_account_number = $1 group by 1 order by 1`,
      [m.merchantAccountNumber],
    );
    expect(perPayout).toHaveLength(20);
    for (const r of perPayout) {
      expect([r.parties, r.quotes, r.transfers].every((n) => n >= 1), JSON.stringify(r)).toBe(true);
      expect(r.posted, JSON.stringify(r)).toBe(1);
    }
    // Whatever was refused (a late repeat of an answer already taken), none for its signature.
    const { rows: refused } = await t.db.query<{ outcome: string }>(
      `select outcome from rail_refused_messages union all select outcome from rail_messages where merchant_account_number = $1 and outcome like 'refused%'`,
      [m.merchantAccountNumber],
    );
    expect(refused.filter((r) => /signature|3105/i.test(r.outcome))).toEqual([]);
    // TTK saw our requests arrive over its mutual-TLS port, the ones with a body signed.
    const seen = await switchTtk.requests();
    const posts = seen.filter((r) => r.method.toLowerCase() === 'post');
    expect(posts.filter((r) => r.path === '/transfers')).toHaveLength(20);
    expect(posts.every((r) => typeof r.headers['fspiop-signature'] === 'string')).toBe(true);
    // And TTK lets nobody in without a client certificate of its CA (as test/rails/ttk-harness.test.ts shows too).
    const anonymous = new Agent({ connect: { ca: certs.caPem } });
    try {
      const type = 'application/vnd.interoperability.parties+json;version=1.0';
      await expect(
        undiciFetch(`${own.info.fspiopUrl}/parties/MSISDN/265990009999`, { headers: { accept: type, 'content-type': type, date: new Date().toUTCString(), 'fspiop-source': FSP_ID }, dispatcher: anonymous, signal: AbortSignal.timeout(5000) }),
      ).rejects.toThrow();
    } finally {
      await anonymous.close();
    }
    await expectLedgerClean(t, m);
  });

  it('a payment sent by TTK as the payer DFSP over mutual TLS and JWS reaches a timed account, is credited once and fires its webhook', { timeout: 120_000 }, async () => {
    const m = await newMerchant(t, { accountName: 'Zomba Books', levelNumber: 1 });
    const initiated = await live(m, '/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: '275.00', transactionDescription: 'Books', referenceNumber: `BOOKS${++keys}`, capturedBy: CAPTURER });
    expect(initiated.statusCode, initiated.body).toBe(200);
    const account: string = initiated.json().timedAccountNumber;
    const payer = { baseUrl: `https://127.0.0.1:${tlsPort}/fspiop`, source: PAYER_FSP, destination: FSP_ID, version: '1.1' as const };
    const party = await lookupParty(switchTtk, { ...payer, type: 'ACCOUNT_ID', id: account });
    expect(party.callback?.body.party?.name, JSON.stringify(party)).toBe('Zomba Books');
    const quoteBody = quoteRequestBody({ payer: { type: 'MSISDN', id: '265991112233', fspId: PAYER_FSP, name: 'Madalitso Nyirenda' }, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: '275', currency: 'MWK' });
    const quote = await requestQuote(switchTtk, { ...payer, body: quoteBody });
    expect(quote.callback?.error, JSON.stringify(quote)).toBe(false);
    const transfer = await sendTransfer(switchTtk, { ...payer, body: transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: quote.callback!.body, transferId: quoteBody.transactionId }) });
    expect(transfer.callback?.body.transferState, JSON.stringify(transfer)).toBe('RESERVED');
    // Our callbacks were signed, and TTK (which verifies when JWS_VALIDATE is on) took them.
    expect(typeof transfer.callback!.headers['fspiop-signature']).toBe('string');
    const patched = await notifyTransfer(switchTtk, { ...payer, source: SWITCH_FSP, transferId: quoteBody.transactionId, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } });
    expect(patched.status, JSON.stringify(patched)).toBe(200);
    const { rows } = await t.db.query<{ n: number; status: string }>(`select count(c.collection_id)::int as n, max(r.status_code) as status from payment_requests r left join collections c using (merchant_account_number, request_id) where r.timed_account_number = $1`, [account]);
    expect(rows[0]).toEqual({ n: 1, status: 'P' });
    const { rows: events } = await t.db.query<{ n: number }>(`select count(*)::int as n from outbox_events where merchant_account_number = $1 and event_code = 'payrequest.success'`, [m.merchantAccountNumber]);
    expect(events[0].n).toBe(1);
    expect((await apiBalances(t, m)).collectionMinor).toBeGreaterThan(0);
    // Every message of the collection came in over the listener and passed the gate, signature included.
    const { rows: refused } = await t.db.query<{ outcome: string }>(`select outcome from rail_messages where merchant_account_number = $1 and outcome <> 'accepted'`, [m.merchantAccountNumber]);
    expect(refused).toEqual([]);
    await expectLedgerClean(t, m);
  });

  it('a transfer not signed by the payer DFSP it names is refused 3105, kept for the operator, and credits nothing', { timeout: 120_000 }, async () => {
    const m = await newMerchant(t, { accountName: 'Zomba Stationers', levelNumber: 1 });
    const initiated = await live(m, '/collections/requestToPay/initiate', { merchantAccountNumber: m.merchantAccountNumber, transactionAmount: '120.00', transactionDescription: 'Pens', referenceNumber: `PENS${++keys}`, capturedBy: CAPTURER });
    expect(initiated.statusCode, initiated.body).toBe(200);
    const account: string = initiated.json().timedAccountNumber;
    const payer = { baseUrl: `https://127.0.0.1:${tlsPort}/fspiop`, source: PAYER_FSP, destination: FSP_ID, version: '1.1' as const };
    const quoteBody = quoteRequestBody({ payer: { type: 'MSISDN', id: '265991114455', fspId: PAYER_FSP }, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: '120', currency: 'MWK' });
    const quote = await requestQuote(switchTtk, { ...payer, body: quoteBody });
    expect(quote.callback?.error, JSON.stringify(quote)).toBe(false);
    await switchTtk.setUserConfig({ JWS_SIGN: false });
    try {
      const transfer = await sendTransfer(switchTtk, { ...payer, body: transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: quote.callback!.body, transferId: quoteBody.transactionId }) });
      expect(transfer.status).toBe(400);
      expect((transfer.body as { errorInformation: { errorCode: string } }).errorInformation.errorCode).toBe('3105');
    } finally {
      await switchTtk.setUserConfig({ JWS_SIGN: true });
    }
    const { rows: request } = await t.db.query<{ status_code: string; held_by_transfer: string | null }>('select status_code, held_by_transfer from payment_requests where timed_account_number = $1', [account]);
    expect(request[0]).toEqual({ status_code: 'O', held_by_transfer: null });
    const { rows: phase } = await t.db.query<{ phase: string }>('select phase from rail_collections where quote_id = $1', [quoteBody.quoteId]);
    expect(phase[0].phase).toBe('quoted');
    const { rows: kept } = await t.db.query<{ outcome: string }>(`select outcome from rail_refused_messages where method = 'POST' and path = '/transfers' order by message_id desc limit 1`);
    expect(kept[0].outcome).toMatch(/^refused: 3105/);
  });

  it('the main port does not serve /fspiop; a callback without a client certificate fails at the TLS handshake and changes nothing', { timeout: 60_000 }, async () => {
    await switchTtk.setRules([transferNoCallback({ amount: '3131' })]);
    try {
      const m = await fundedMerchant(10_000_000);
      const before = await apiBalances(t, m);
      const added = await singlePayout(t, m, wallet('265990003131', 313_100), idempotencyKey());
      expect(added.statusCode, added.body).toBe(200);
      const inFlight = await untilPhase(t, m, 'transfer');
      const committed = { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: 'A'.repeat(43) };
      const path = `/transfers/${inFlight.transfer_id}`;
      const unchanged = await snapshot(t);

      // The main port: no /fspiop at all in production with TLS (app.ts).
      const main = await t.app.inject({ method: 'PUT', url: `/fspiop${path}`, headers: fspiopHeaders('transfers'), payload: JSON.stringify(committed) });
      expect(main.statusCode, main.body).toBe(404);

      // The listener without a client certificate: the handshake fails, no HTTP answer at all.
      const anonymous = await tlsPut(tlsPort, path, committed, fspiopHeaders('transfers'));
      expect(anonymous.status, JSON.stringify(anonymous)).toBeUndefined();
      expect(anonymous.code, anonymous.error).toBe(NO_CERTIFICATE);
      // With a certificate of the right CA that is not a client's (our server certificate, serverAuth
      // only): the listener hangs up as well.
      const wrongPurpose = await tlsPut(tlsPort, path, committed, fspiopHeaders('transfers'), certs.dfspServer);
      expect(wrongPurpose.status, JSON.stringify(wrongPurpose)).toBeUndefined();
      // Plain HTTP on the TLS port: no answer either.
      await expect(fetch(`http://127.0.0.1:${tlsPort}/fspiop${path}`, { method: 'PUT', headers: fspiopHeaders('transfers'), body: JSON.stringify(committed), signal: AbortSignal.timeout(5000) })).rejects.toThrow();

      expect(await snapshot(t)).toEqual(unchanged);
      expect((await payouts(t, m))[0]).toMatchObject({ status_code: 'T', phase: 'transfer' });

      // The same forgery with the switch's certificate gets in, and the gate refuses it (unsigned): the
      // failures above were the handshake's, not the message's.
      const withCertificate = await tlsPut(tlsPort, path, committed, fspiopHeaders('transfers'), certs.ttkClient);
      expect(withCertificate.status, JSON.stringify(withCertificate)).toBe(400);
      expect(JSON.parse(withCertificate.body!).errorInformation.errorCode).toMatch(/^31\d\d$/);
      expect((await payouts(t, m))[0]).toMatchObject({ status_code: 'T', phase: 'transfer' });

      // The switch's own word, asked after the expiry (GET /transfers/{id}, answered COMMITTED over TLS, signed), pays it once.
      const [final] = await settle(t, m, 20_000);
      expect(final).toMatchObject({ status_code: 'S', response_code: 'S100', phase: 'committed' });
      expect(await transferTypes(t, final.transaction_reference_number)).toEqual({ payout_debit: 1, rail_send: 1, rail_settle: 1 });
      expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 313_100 - WALLET_FEE);
      await expectLedgerClean(t, m);
    } finally {
      await switchTtk.setRules([]);
    }
  });
});

// ---- 3 and 4. JWS, inbound and outbound (sandbox, the shared TTK) ----

describe('JWS signatures (sandbox, the shared TTK)', () => {
  let t: TestApp;
  let callbackBase: string;

  beforeAll(async () => {
    t = await startTestApp({
      MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
      MOJALOOP_FSP_ID: FSP_ID,
      MOJALOOP_CONNECTOR_IDS: `${AIRTEL},${NBM}`,
      MOJALOOP_TRANSFER_EXPIRY_SECONDS: String(TRANSFER_EXPIRY_SECONDS),
      MOJALOOP_CALLBACK_SECONDS: String(CALLBACK_SECONDS),
      MOJALOOP_JWS_KEY: ours.keyFile,
      MOJALOOP_JWS_PUBLIC_KEYS: ttkKeysDir,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    callbackBase = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}/fspiop`;
  }, 120_000);

  afterAll(async () => {
    await ttk?.signCallbacks(false).catch(() => undefined);
    if (t) await closeMojaloop(t.deps);
    await t?.close();
  });

  async function fundedMerchant(app: TestApp, amountMinor = 10_000_000): Promise<TestMerchant> {
    const m = await newMerchant(app, { accountName: 'Blantyre Payroll', levelNumber: 1 });
    const res = await topup(app, m, amountMinor);
    expect(res.statusCode, res.body).toBe(200);
    return m;
  }

  async function refusedAt(app: TestApp, urlPath: string): Promise<{ http_status: number; outcome: string }[]> {
    const { rows } = await app.db.query<{ http_status: number; outcome: string }>(`select http_status, outcome from rail_refused_messages where method = 'PUT' and path = $1 order by message_id`, [urlPath]);
    return rows;
  }

  it('signed callbacks (TTK signing) pay the payout; the keys folder holds TTK\'s certificate as it is', async () => {
    await ttk.setRules([]);
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackBase });
    await ttk.signCallbacks(true);
    await ttk.clearHistory();
    const refusedBefore = (await t.db.query<{ n: number }>('select count(*)::int as n from rail_refused_messages')).rows[0].n;
    const m = await fundedMerchant(t);
    const before = await apiBalances(t, m);
    expect((await singlePayout(t, m, wallet('265990004001', 400_100), idempotencyKey())).statusCode).toBe(200);
    const [row] = await settle(t, m);
    expect(row).toMatchObject({ status_code: 'S', response_code: 'S100', phase: 'committed' });
    // TTK answered each step (its history keeps the headers before signing, so the signature is
    // proven on our side: with keys configured an unsigned message is refused, and none was).
    const sent = (await ttk.callbacks()).map((c) => c.path);
    expect(sent.sort()).toEqual([`/parties/MSISDN/265990004001`, `/quotes/${row.quote_id}`, `/transfers/${row.transfer_id}`].sort());
    expect((await t.db.query<{ n: number }>('select count(*)::int as n from rail_refused_messages')).rows[0].n).toBe(refusedBefore);
    // Each callback is kept after the change it made is committed (routes.ts): the last may land
    // just after the payout reads S.
    const accepted = async () =>
      (await t.db.query<{ n: number }>(`select count(*)::int as n from rail_messages where payout_id = $1 and direction = 'in' and outcome = 'accepted'`, [row.payout_id])).rows[0].n;
    await until('three callbacks kept', async () => (await accepted()) >= 3, 10_000);
    expect(await accepted()).toBe(3);
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 400_100 - WALLET_FEE);
    await expectLedgerClean(t, m);
  });

  it('unsigned callbacks are refused with 3105, kept, and change nothing; a COMMITTED unsigned does not pay', { timeout: 60_000 }, async () => {
    await ttk.setRules([transferNoCallback({ amount: '4002' })]);
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackBase });
    await ttk.clearHistory();
    const m = await fundedMerchant(t);
    const before = await apiBalances(t, m);

    // The lookup's answer, unsigned.
    await ttk.signCallbacks(false);
    expect((await singlePayout(t, m, wallet('265990004002', 400_200), idempotencyKey())).statusCode).toBe(200);
    await runJob(t, m);
    const partyPath = '/parties/MSISDN/265990004002';
    const refusedParty = await until('the unsigned PUT /parties refused', async () => (await refusedAt(t, partyPath))[0], 10_000, 50);
    expect(refusedParty.http_status).toBe(400);
    expect(refusedParty.outcome, 'an unsigned message: 3105 Invalid signature (docs/operations.md; the reference sdk-scheme-adapter)').toMatch(/^refused: 3105 /);
    const [lookup] = await payouts(t, m);
    expect(lookup).toMatchObject({ status_code: 'T', phase: 'lookup' });
    expect(await transferTypes(t, lookup.transaction_reference_number)).toEqual({ payout_debit: 1 });
    // Nothing was asked next: no quote went out.
    expect((await ttk.requests()).some((r) => r.method.toLowerCase() === 'post' && r.path === '/quotes' && (r.body as { quoteId: string }).quoteId === lookup.quote_id)).toBe(false);

    // Signed again, the lookup asked again after its wait goes through; the transfer gets no callback.
    await ttk.signCallbacks(true);
    const inFlight = await untilPhase(t, m, 'transfer', 15_000);
    expect(await transferTypes(t, inFlight.transaction_reference_number)).toEqual({ payout_debit: 1, rail_send: 1 });

    // The switch's answer to our GET /transfers/{id}, COMMITTED but unsigned: refused, the money stays in flight.
    await ttk.signCallbacks(false);
    const transferPath = `/transfers/${inFlight.transfer_id}`;
    const unchanged = await snapshot(t);
    const refusedTransfer = await until(
      'the unsigned COMMITTED refused',
      async () => {
        await runJob(t, m);
        return (await refusedAt(t, transferPath))[0];
      },
      15_000,
      100,
    );
    expect(refusedTransfer.http_status).toBe(400);
    expect(refusedTransfer.outcome).toMatch(/^refused: 3105 /);
    expect((await ttk.callbacks()).some((c) => c.path === transferPath && (c.body as { transferState?: string }).transferState === 'COMMITTED')).toBe(true);
    const after = await snapshot(t);
    // Only the asking moved (rail_payouts' asked time): no ledger entry, no payout state, no balance.
    expect({ ...after, payouts: undefined }).toEqual({ ...unchanged, payouts: undefined });
    expect((await payouts(t, m))[0]).toMatchObject({ status_code: 'T', phase: 'transfer' });
    expect(await transferTypes(t, inFlight.transaction_reference_number)).toEqual({ payout_debit: 1, rail_send: 1 });
    // Both refusals were kept (found above) in rail_refused_messages: refused at the gate, before the
    // message is matched to a payout, they are not in rail_messages with it.

    // The same answer signed pays it, once.
    await ttk.signCallbacks(true);
    const [final] = await settle(t, m, 20_000);
    expect(final).toMatchObject({ status_code: 'S', response_code: 'S100', phase: 'committed' });
    expect(await transferTypes(t, final.transaction_reference_number)).toEqual({ payout_debit: 1, rail_send: 1, rail_settle: 1 });
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 400_200 - WALLET_FEE);
    await expectLedgerClean(t, m);
  });

  it('a signature by another key than the one configured for payeefsp is refused with 3105: the payout never leaves its lookup and fails F108, refunded', { timeout: 60_000 }, async () => {
    const other = await startTestApp({
      MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
      MOJALOOP_FSP_ID: FSP_ID,
      MOJALOOP_CONNECTOR_IDS: String(AIRTEL),
      MOJALOOP_CALLBACK_SECONDS: String(CALLBACK_SECONDS),
      MOJALOOP_LOOKUP_ATTEMPTS: '1',
      MOJALOOP_JWS_PUBLIC_KEYS: wrongKeysDir,
    });
    try {
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      await ttk.setRules([]);
      await ttk.setUserConfig({ CALLBACK_ENDPOINT: `http://127.0.0.1:${(other.app.server.address() as { port: number }).port}/fspiop` });
      await ttk.signCallbacks(true);
      // Each app has its own database, so payout references (and the ids derived from them) repeat
      // across apps: TTK's history must start empty for this one.
      await ttk.clearHistory();
      const m = await fundedMerchant(other);
      const before = await apiBalances(other, m);
      expect((await singlePayout(other, m, wallet('265990004004', 400_400), idempotencyKey())).statusCode).toBe(200);
      await runJob(other, m);
      const refused = await until('the PUT /parties signed by another key refused', async () => (await refusedAt(other, '/parties/MSISDN/265990004004'))[0], 10_000, 50);
      expect(refused.http_status).toBe(400);
      expect(refused.outcome).toMatch(/^refused: 3105 invalid signature: the signature does not verify with the key of payeefsp/);
      expect((await payouts(other, m))[0]).toMatchObject({ status_code: 'T', phase: 'lookup' });
      // Its one lookup unanswered, as far as we know: F108, refunded in full; no quote, no transfer.
      const [row] = await settle(other, m, 15_000);
      expect(row).toMatchObject({ status_code: 'F', response_code: 'F108', phase: 'failed' });
      expect(await transferTypes(other, row.transaction_reference_number)).toEqual({ payout_debit: 1 });
      expect((await apiBalances(other, m)).disbursementMinor).toBe(before.disbursementMinor);
      expect((await ttk.requests()).some((r) => r.method.toLowerCase() === 'post' && r.path === '/quotes' && (r.body as { quoteId: string }).quoteId === row.quote_id)).toBe(false);
      await expectLedgerClean(other, m);
    } finally {
      await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackBase });
      await closeMojaloop(other.deps);
      await other.close();
    }
  });

  it('our POST /quotes and POST /transfers carry fspiop-signature, fspiop-uri and fspiop-http-method, and verify with our public key over the body TTK received', async () => {
    await ttk.setRules([]);
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackBase });
    await ttk.signCallbacks(true);
    await ttk.clearHistory();
    const m = await fundedMerchant(t);
    expect((await singlePayout(t, m, wallet('265990004005', 400_500), idempotencyKey())).statusCode).toBe(200);
    const [row] = await settle(t, m);
    expect(row).toMatchObject({ status_code: 'S', phase: 'committed' });
    const seen = await ttk.requests();
    const lookup = seen.find((r) => r.method.toLowerCase() === 'get' && r.path === '/parties/MSISDN/265990004005');
    const quote = seen.find((r) => r.method.toLowerCase() === 'post' && r.path === '/quotes' && (r.body as { quoteId: string }).quoteId === row.quote_id);
    const transfer = seen.find((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === row.transfer_id);
    expect(lookup && quote && transfer, JSON.stringify(seen.map((r) => `${r.method} ${r.path}`))).toBeTruthy();
    // A GET has no body: nothing to sign.
    expect(lookup!.headers['fspiop-signature']).toBeUndefined();

    for (const [request, uri, destination] of [
      [quote!, '/quotes', PAYEE_FSP],
      [transfer!, '/transfers', PAYEE_FSP],
    ] as const) {
      expect(request.headers['fspiop-uri']).toBe(uri);
      expect(request.headers['fspiop-http-method']).toBe('POST');
      const signature = JSON.parse(request.headers['fspiop-signature']) as { signature: string; protectedHeader: string };
      expect(JSON.parse(Buffer.from(signature.protectedHeader, 'base64url').toString('utf8'))).toEqual({
        alg: 'RS256',
        'FSPIOP-URI': uri,
        'FSPIOP-HTTP-Method': 'POST',
        'FSPIOP-Source': FSP_ID,
        'FSPIOP-Destination': destination,
        Date: request.headers.date,
      });
      expect(request.headers['fspiop-source']).toBe(FSP_ID);
      expect(request.headers['fspiop-destination']).toBe(destination);
      // TTK keeps the parsed body: JSON.stringify of it gives back our compact bytes, or the
      // signature (over the exact bytes) would not verify.
      const body = JSON.stringify(request.body);
      expect(verifyRequest({ method: 'POST', uri: request.path, headers: request.headers, rawBody: body, publicKeyPem: ours.publicKeyPem })).toEqual({ ok: true, source: FSP_ID });
      // And it can fail: another key, another byte, another URI.
      expect(verifyRequest({ method: 'POST', uri: request.path, headers: request.headers, rawBody: body, publicKeyPem: stranger.publicKeyPem })).toMatchObject({ ok: false, errorCode: '3105' });
      expect(verifyRequest({ method: 'POST', uri: request.path, headers: request.headers, rawBody: body.replace('"MWK"', '"ZMW"'), publicKeyPem: ours.publicKeyPem })).toMatchObject({ ok: false, errorCode: '3105' });
      expect(verifyRequest({ method: 'POST', uri: `${uri}/x`, headers: request.headers, rawBody: body, publicKeyPem: ours.publicKeyPem })).toMatchObject({ ok: false, errorCode: '3105' });
    }
    await expectLedgerClean(t, m);
  });
});

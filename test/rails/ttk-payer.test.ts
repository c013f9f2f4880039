// test/ttk/payer.ts against the real TTK: TTK, as the switch forwarding a payer DFSP's requests,
// calls a small payee DFSP standing in for our service's /fspiop (node:http on 127.0.0.1), which
// answers and calls back to TTK's FSPIOP port.
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireTtk, mojaloopTestCertificates, type AcquiredTtk } from '../ttk/harness.ts';
import {
  bundledCollection,
  lookupParty,
  notifyTransfer,
  quoteRequestBody,
  requestQuote,
  runCollection,
  sendFspiop,
  sendTransfer,
  setPayerTimeouts,
  transferRequestBody,
} from '../ttk/payer.ts';

const PAYEE_FSP = 'onekhusafsp';
const PAYER_FSP = 'payerfsp';
const RFC_1123 = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const CALLBACK_TIMEOUT_MS = 1500;

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  clientCertificate?: string;
}

interface CallbackSent {
  path: string;
  status: number;
  answer: string;
}

const b64url = (buf: Buffer) => buf.toString('base64url');

/**
 * The payee DFSP's FSPIOP endpoint (/fspiop): answers 202 and then calls back to TTK (after its
 * answer is flushed). Party ids: 'unknown-*' → PUT .../error 3204; 'silent-*' → no callback;
 * 'invalid-*' → a callback TTK must refuse (no party); 'race-*' → the callback before the answer.
 * Transfers of amount 999 → PUT .../error 5105.
 */
class PayeeStub {
  readonly seen: Seen[] = [];
  readonly callbacks: CallbackSent[] = [];
  readonly fulfilments = new Map<string, string>();
  private server: http.Server;

  constructor(
    private ttkFspiopUrl: () => string,
    tls?: https.ServerOptions,
  ) {
    const handler: http.RequestListener = (req, res) => this.handle(req, res, Boolean(tls));
    this.server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, handler) : http.createServer(handler);
    this.server.keepAliveTimeout = 1000;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/fspiop`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  last(method: string, pathPrefix: string): Seen {
    const found = this.seen.filter((s) => s.method === method && s.path.startsWith(pathPrefix)).pop();
    if (!found) throw new Error(`the stub saw no ${method} ${pathPrefix}`);
    return found;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, tls: boolean): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const p = req.url!.replace(/^\/fspiop/, '');
      const seen: Seen = { method: req.method!, path: p, headers: req.headers, raw };
      if (tls) seen.clientCertificate = (req.socket as TLSSocket).getPeerCertificate()?.subject?.CN as string | undefined;
      this.seen.push(seen);
      const fail = (status: number, errorCode: string, errorDescription: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ errorInformation: { errorCode, errorDescription } }));
      const required = ['content-type', 'date', 'fspiop-source', ...(req.method === 'GET' || req.method === 'POST' ? ['accept'] : [])];
      const missing = required.find((h) => !req.headers[h]);
      if (missing) return fail(400, '3102', `Missing mandatory element: ${missing}`);
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return fail(400, '3101', 'Malformed syntax');
      }
      const type = /^application\/vnd\.interoperability\.(\w+)\+json;version=(\d\.\d)$/.exec(String(req.headers['content-type']));
      const version = type?.[2] ?? '1.0';
      const source = String(req.headers['fspiop-source']);
      const later = (fn: () => unknown) => res.once('finish', () => setImmediate(fn));
      let m: RegExpExecArray | null;
      if (req.method === 'GET' && (m = /^\/parties\/([^/]+)\/([^/]+)$/.exec(p))) {
        const [, partyType, id] = m;
        if (id.startsWith('race-')) {
          // The callback first, the answer 300 ms later.
          void this.callback(`/parties/${partyType}/${id}`, 'parties', version, source, { party: { partyIdInfo: { partyIdType: partyType, partyIdentifier: id, fspId: PAYEE_FSP } } });
          return void setTimeout(() => res.writeHead(202).end(), 300);
        }
        res.writeHead(202).end();
        if (id.startsWith('silent-')) return;
        if (id.startsWith('unknown-')) return later(() => this.callback(`/parties/${partyType}/${id}/error`, 'parties', version, source, { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } }));
        const party = id.startsWith('invalid-') ? { name: 'no partyIdInfo' } : { partyIdInfo: { partyIdType: partyType, partyIdentifier: id, fspId: PAYEE_FSP }, name: 'Chikondi Banda', personalInfo: { complexName: { firstName: 'Chikondi', lastName: 'Banda' } } };
        return later(() => this.callback(`/parties/${partyType}/${id}`, 'parties', version, source, { party }));
      }
      if (req.method === 'POST' && p === '/quotes') {
        res.writeHead(202).end();
        const fulfilment = b64url(createHash('sha256').update(`fulfilment ${body.quoteId}`).digest());
        const condition = b64url(createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest());
        this.fulfilments.set(condition, fulfilment);
        const ilpPacket = b64url(Buffer.from(JSON.stringify({ transactionId: body.transactionId, quoteId: body.quoteId })));
        return later(() =>
          this.callback(`/quotes/${body.quoteId}`, 'quotes', version, source, {
            transferAmount: { amount: body.amount.amount, currency: body.amount.currency },
            expiration: new Date(Date.now() + 60_000).toISOString(),
            ilpPacket,
            condition,
          }),
        );
      }
      if (req.method === 'POST' && p === '/transfers') {
        res.writeHead(202).end();
        if (body.amount.amount === '999') return later(() => this.callback(`/transfers/${body.transferId}/error`, 'transfers', version, source, { errorInformation: { errorCode: '5105', errorDescription: 'Payee transaction limit reached' } }));
        const fulfilment = this.fulfilments.get(body.condition) ?? b64url(Buffer.alloc(32, 1));
        return later(() => this.callback(`/transfers/${body.transferId}`, 'transfers', version, source, { fulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' }));
      }
      if (req.method === 'PATCH' && /^\/transfers\/[^/]+$/.test(p)) return void res.writeHead(200).end();
      fail(404, '3002', 'Unknown URI');
    });
  }

  /** A callback to TTK, as our service sends it: a connection of its own (no keep-alive). */
  private callback(pathname: string, resource: string, version: string, destination: string, body: unknown): Promise<void> {
    const headers = {
      'content-type': `application/vnd.interoperability.${resource}+json;version=${version}`,
      date: new Date().toUTCString(),
      'fspiop-source': PAYEE_FSP,
      'fspiop-destination': destination,
    };
    return new Promise((resolve) => {
      const req = http.request(this.ttkFspiopUrl() + pathname, { method: 'PUT', headers, agent: false }, (res) => {
        let answer = '';
        res.on('data', (c: Buffer) => (answer += c.toString()));
        res.on('end', () => {
          this.callbacks.push({ path: pathname, status: res.statusCode!, answer });
          resolve();
        });
      });
      req.on('error', (err) => {
        this.callbacks.push({ path: pathname, status: 0, answer: err.message });
        resolve();
      });
      req.end(JSON.stringify(body));
    });
  }
}

let ttk: AcquiredTtk;
const payee = new PayeeStub(() => ttk.fspiopUrl);
let baseUrl: string;
const route = () => ({ baseUrl, source: PAYER_FSP, destination: PAYEE_FSP });

beforeAll(async () => {
  ttk = await acquireTtk();
  await setPayerTimeouts(ttk, { callbackMs: CALLBACK_TIMEOUT_MS, requestMs: 2000 });
  baseUrl = await payee.start();
});

afterAll(async () => {
  await payee.stop();
  await ttk?.release();
});

describe('TTK as the switch, calling our payee endpoint', () => {
  it('looks a party up and returns our PUT /parties callback', async () => {
    const result = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'acc-1001' });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(202);
    expect(result.callback).toMatchObject({ method: 'put', path: '/parties/ACCOUNT_ID/acc-1001', error: false });
    expect(result.callback!.body.party.partyIdInfo).toEqual({ partyIdType: 'ACCOUNT_ID', partyIdentifier: 'acc-1001', fspId: PAYEE_FSP });
    expect(result.callback!.headers).toMatchObject({ 'fspiop-source': PAYEE_FSP, 'fspiop-destination': PAYER_FSP, 'content-type': 'application/vnd.interoperability.parties+json;version=1.0' });
    expect(result.durationMs).toBeLessThan(2000);

    // What our endpoint got from TTK: the FSPIOP headers, and TTK's own additions.
    const got = payee.last('GET', '/parties/ACCOUNT_ID/acc-1001');
    expect(got.headers).toMatchObject({
      accept: 'application/vnd.interoperability.parties+json;version=1.0',
      'content-type': 'application/vnd.interoperability.parties+json;version=1.0',
      'fspiop-source': PAYER_FSP,
      'fspiop-destination': PAYEE_FSP,
      baggage: 'testCaseId=1,requestId=1',
    });
    expect(got.headers.date).toMatch(RFC_1123);
    expect(result.sent.url).toBe(`${baseUrl}/parties/ACCOUNT_ID/acc-1001`);
    expect(result.sent.headers.date).toMatch(RFC_1123);
  });

  it('returns an error callback, a synchronous error, or says no callback came', async () => {
    const unknown = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'unknown-1' });
    expect(unknown.status).toBe(202);
    expect(unknown.callback).toMatchObject({ path: '/parties/ACCOUNT_ID/unknown-1/error', error: true, body: { errorInformation: { errorCode: '3204' } } });

    const noSource = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'acc-1002', headers: { 'FSPIOP-Source': null } });
    expect(noSource).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3102' } } });
    expect(noSource.callback).toBeUndefined();
    expect(noSource.error).toBeUndefined();
    expect(payee.last('GET', '/parties/ACCOUNT_ID/acc-1002').headers['fspiop-source']).toBeUndefined();

    const silent = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'silent-1' });
    expect(silent.status).toBe(202);
    expect(silent.callback).toBeUndefined();
    expect(silent.error?.kind).toBe('no-callback');
    expect(silent.durationMs).toBeGreaterThanOrEqual(CALLBACK_TIMEOUT_MS);
    expect(silent.durationMs).toBeLessThan(CALLBACK_TIMEOUT_MS + 2000);
  });

  it('takes only callbacks valid per the API definition', async () => {
    const result = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'invalid-1' });
    expect(result.status).toBe(202);
    expect(result.error?.kind).toBe('no-callback');
    // TTK refused our callback as the switch would.
    const refused = payee.callbacks.find((c) => c.path === '/parties/ACCOUNT_ID/invalid-1');
    expect(refused?.status).toBe(400);
    expect(JSON.parse(refused!.answer).errorInformation.errorCode).toBe('3100');
  });

  it('says when our callback came before our answer', async () => {
    const result = await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'race-1' });
    expect(result.callback?.path).toBe('/parties/ACCOUNT_ID/race-1');
    expect(result.status).toBeUndefined();
    expect(result.error?.kind).toBe('callback-before-answer');
  });

  it('reports a payee it cannot reach', async () => {
    const closed = new PayeeStub(() => ttk.fspiopUrl);
    const closedUrl = await closed.start();
    await closed.stop();
    const result = await lookupParty(ttk, { ...route(), baseUrl: closedUrl, type: 'ACCOUNT_ID', id: 'acc-1003' });
    expect(result.status).toBeUndefined();
    expect(result.error).toMatchObject({ kind: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('asks for a quote, sends the transfer, then notifies its final state (PATCH, 1.1)', async () => {
    const quoteBody = quoteRequestBody({
      payer: { type: 'MSISDN', id: '265991000001', fspId: PAYER_FSP },
      payee: { type: 'ACCOUNT_ID', id: 'acc-1001', fspId: PAYEE_FSP },
      amount: '125.5',
      currency: 'MWK',
    });
    const quote = await requestQuote(ttk, { ...route(), body: quoteBody });
    expect(quote.error).toBeUndefined();
    expect(quote.status).toBe(202);
    expect(quote.callback).toMatchObject({ path: `/quotes/${quoteBody.quoteId}`, error: false, body: { transferAmount: { amount: '125.5', currency: 'MWK' } } });
    expect(quote.callback!.body.condition).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(payee.last('POST', '/quotes').raw)).toEqual(quoteBody);

    const transferBody = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: PAYEE_FSP, quote: quote.callback!.body, transferId: quoteBody.transactionId });
    const transfer = await sendTransfer(ttk, { ...route(), body: transferBody });
    expect(transfer.status).toBe(202);
    expect(transfer.callback).toMatchObject({ path: `/transfers/${transferBody.transferId}`, error: false, body: { transferState: 'COMMITTED' } });
    const fulfilment = transfer.callback!.body.fulfilment as string;
    expect(createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url')).toBe(quote.callback!.body.condition);
    expect(payee.last('POST', '/transfers').headers['content-type']).toBe('application/vnd.interoperability.transfers+json;version=1.0');

    const completedTimestamp = new Date().toISOString();
    const patch = await notifyTransfer(ttk, { ...route(), transferId: transferBody.transferId, body: { transferState: 'COMMITTED', completedTimestamp } });
    expect(patch).toMatchObject({ status: 200 });
    expect(patch.callback).toBeUndefined();
    expect(patch.error).toBeUndefined();
    const got = payee.last('PATCH', `/transfers/${transferBody.transferId}`);
    expect(got.headers['content-type']).toBe('application/vnd.interoperability.transfers+json;version=1.1');
    expect(got.headers.accept).toBeUndefined();
    expect(JSON.parse(got.raw)).toEqual({ transferState: 'COMMITTED', completedTimestamp });

    const refused = await sendTransfer(ttk, { ...route(), body: { ...transferBody, transferId: randomUUID(), amount: { amount: '999', currency: 'MWK' } } });
    expect(refused.callback).toMatchObject({ error: true, body: { errorInformation: { errorCode: '5105' } } });
  });

  it('sends a malformed body as it is', async () => {
    const result = await sendFspiop(ttk, { ...route(), method: 'post', path: '/quotes', body: '{"quoteId": ' });
    expect(result).toMatchObject({ status: 400, body: { errorInformation: { errorCode: '3101' } } });
    expect(payee.seen.at(-1)!.raw).toBe('{"quoteId": ');
  });

  it('signs its requests with JWS when asked, as its callbacks', async () => {
    const certs = mojaloopTestCertificates();
    await ttk.signCallbacks();
    try {
      const body = quoteRequestBody({ payer: { type: 'MSISDN', id: '265991000001', fspId: PAYER_FSP }, payee: { type: 'ACCOUNT_ID', id: 'acc-1001', fspId: PAYEE_FSP }, amount: '10', currency: 'MWK' });
      const quote = await requestQuote(ttk, { ...route(), body });
      expect(quote.callback?.path).toBe(`/quotes/${body.quoteId}`);
      const got = payee.last('POST', '/quotes');
      expect(got.headers).toMatchObject({ 'fspiop-uri': '/quotes', 'fspiop-http-method': 'POST' });
      const signature = JSON.parse(got.headers['fspiop-signature'] as string) as { signature: string; protectedHeader: string };
      expect(JSON.parse(Buffer.from(signature.protectedHeader, 'base64url').toString())).toMatchObject({ alg: 'RS256', 'FSPIOP-URI': '/quotes', 'FSPIOP-Source': PAYER_FSP, 'FSPIOP-Destination': PAYEE_FSP });
      const signed = Buffer.from(`${signature.protectedHeader}.${Buffer.from(got.raw).toString('base64url')}`);
      expect(verify('sha256', signed, createPublicKey(certs.jws.certPem), Buffer.from(signature.signature, 'base64url'))).toBe(true);
      // GETs are not signed (FSPIOP signs bodies).
      await lookupParty(ttk, { ...route(), type: 'ACCOUNT_ID', id: 'acc-1004' });
      expect(payee.last('GET', '/parties/ACCOUNT_ID/acc-1004').headers['fspiop-signature']).toBeUndefined();
    } finally {
      await ttk.signCallbacks(false);
    }
  });

  it('presents its client certificate to a payee over TLS', async () => {
    const certs = mojaloopTestCertificates();
    const secure = new PayeeStub(() => ttk.fspiopUrl, { ca: certs.caPem, cert: certs.dfspServer.certPem, key: certs.dfspServer.keyPem });
    const secureUrl = await secure.start(); // http://...: TTK switches to https:// for a host with a certificate
    try {
      await ttk.setCallbackClientCertificate(`127.0.0.1:${secure.port}`, certs.ttkClient.certPem, certs.ttkClient.keyPem);
      const result = await lookupParty(ttk, { ...route(), baseUrl: secureUrl, type: 'ACCOUNT_ID', id: 'acc-1005' });
      expect(result.callback?.path).toBe('/parties/ACCOUNT_ID/acc-1005');
      expect(secure.last('GET', '/parties/ACCOUNT_ID/acc-1005').clientCertificate).toBe('ttk-client');
    } finally {
      await ttk.setUserConfig({ CLIENT_MUTUAL_TLS_ENABLED: false, CLIENT_TLS_CREDS: [] });
      await secure.stop();
    }
  });
});

describe("TTK's bundled DFSP collections", () => {
  it('runs the P2P happy path against our endpoint', async () => {
    const run = await runCollection(ttk, bundledCollection('p2p_happy_path'), {
      baseUrl,
      inputValues: { fromFspId: PAYER_FSP, toIdType: 'ACCOUNT_ID', toIdValue: 'acc-2001', currency: 'MWK', amount: '42' },
    });
    expect(run.requests.flatMap((r) => r.failed)).toEqual([]);
    expect(run).toMatchObject({ passed: true, assertions: 28, passedAssertions: 28 });
    expect(run.requests.map((r) => r.callbackPath?.replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, '<id>'))).toEqual(['put /parties/ACCOUNT_ID/acc-2001', 'put /quotes/<id>', 'put /transfers/<id>']);
  });

  it('runs negative cases: a lookup missing each mandatory header', async () => {
    const run = await runCollection(ttk, bundledCollection('p2p_failed_tests'), { baseUrl, inputValues: { fromFspId: PAYER_FSP }, testCases: ['Party info with missing header'] });
    expect(run.requests.flatMap((r) => r.failed)).toEqual([]);
    expect(run.requests.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(run.passed).toBe(true);
  });
});

// The Testing Toolkit harness (test/ttk/) against the real TTK: a small HTTP receiver stands in
// for our service's FSPIOP callback endpoint, and plays the payer DFSP's requests by hand.
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { acquireTtk, mojaloopTestCertificates, startTtk, Ttk, type AcquiredTtk, type RunningTtk } from '../ttk/harness.ts';
import {
  partyFound,
  partyNoCallback,
  partyNotFound,
  quoteError,
  transferAborted,
  transferCommitted,
  transferError,
  transferNoCallback,
  transferStatusNotFound,
  transferSyncError,
} from '../ttk/rules.ts';

const OUR_FSP = 'onekhusafsp';
const RFC_1123 = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** Over TLS: the CN of the client certificate presented. */
  clientCertificate?: string;
}

/** Our callback endpoint's stand-in: records every request under /fspiop, answers 200. */
class Receiver {
  private server: http.Server;
  received: Received[] = [];
  private waiters: Array<{ match: (r: Received) => boolean; resolve: (r: Received) => void }> = [];

  /** tls: HTTPS requiring a client certificate signed by ca. */
  constructor(tls?: https.ServerOptions) {
    const handler: http.RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        const peer = tls ? (req.socket as TLSSocket).getPeerCertificate() : undefined;
        const item: Received = { method: req.method!, path: req.url!.replace(/^\/fspiop/, ''), headers: req.headers, raw, body: raw ? JSON.parse(raw) : undefined, clientCertificate: peer?.subject?.CN as string | undefined };
        this.received.push(item);
        for (const w of [...this.waiters]) if (w.match(item)) w.resolve(item);
        res.writeHead(200).end();
      });
    };
    this.server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, handler) : http.createServer(handler);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Our callback base URL, http:// even over TLS (what CALLBACK_ENDPOINT is set to). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${this.port}/fspiop`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The first request (already received or to come) on this path. */
  waitFor(path: string, timeoutMs = 5000): Promise<Received> {
    const match = (r: Received) => r.path === path;
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (r: Received) => {
          clearTimeout(timer);
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve(r);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`no callback on ${path} within ${timeoutMs} ms (received: ${this.received.map((r) => r.path).join(', ') || 'nothing'})`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Fails if anything arrives on these paths within the time. */
  async expectNothing(paths: string[], ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    expect(this.received.filter((r) => paths.includes(r.path))).toEqual([]);
  }
}

let ttk: AcquiredTtk;
const receiver = new Receiver();
let callbackEndpoint: string;

/** A request of the payer DFSP to the switch, as FSPIOP wants it. */
async function fspiop(method: 'GET' | 'POST', path: string, resource: string, body?: unknown, options: { version?: string; destination?: string } = {}) {
  const type = `application/vnd.interoperability.${resource}+json;version=${options.version ?? '1.1'}`;
  // TTK wants content-type on GET requests too (the FSPIOP spec lists it for every request).
  const headers: Record<string, string> = { accept: type, 'content-type': type, date: new Date().toUTCString(), 'fspiop-source': OUR_FSP };
  if (options.destination) headers['fspiop-destination'] = options.destination;
  const res = await fetch(ttk.fspiopUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function sha256Base64url(base64url: string): string {
  return createHash('sha256').update(Buffer.from(base64url, 'base64url')).digest('base64url');
}

function quoteRequest(payeeId: string, amount = '50') {
  return {
    quoteId: randomUUID(),
    transactionId: randomUUID(),
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payeeId, fspId: 'payeefsp' } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '265881000001', fspId: OUR_FSP } },
    amountType: 'RECEIVE',
    amount: { currency: 'MWK', amount },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'BUSINESS' },
  };
}

/** Quote then transfer request, the way our service will build it. */
async function quotedTransfer(payeeId: string, amount: string, payeeFsp = 'payeefsp') {
  const quote = quoteRequest(payeeId, amount);
  expect((await fspiop('POST', '/quotes', 'quotes', quote, { destination: payeeFsp })).status).toBe(202);
  const { body: terms } = await receiver.waitFor(`/quotes/${quote.quoteId}`);
  return {
    transferId: randomUUID(),
    payerFsp: OUR_FSP,
    payeeFsp,
    amount: terms.transferAmount,
    ilpPacket: terms.ilpPacket,
    condition: terms.condition,
    expiration: new Date(Date.now() + 60_000).toISOString(),
  };
}

beforeAll(async () => {
  callbackEndpoint = await receiver.start();
  ttk = await acquireTtk({ callbackEndpoint });
});

beforeEach(async () => {
  await ttk.setRules([]);
});

afterAll(async () => {
  await ttk?.release();
  await receiver.stop();
});

describe('TTK as the switch', () => {
  it('answers a party lookup with the party a rule gives', async () => {
    await ttk.setRules([partyFound({ id: '265991000001', name: 'Chikondi Banda Phiri' }), partyFound({ idSuffix: '0077', name: 'Thoko Mwale', fspId: 'otherfsp' })]);

    const res = await fspiop('GET', '/parties/MSISDN/265991000001', 'parties');
    expect(res.status).toBe(202);
    const cb = await receiver.waitFor('/parties/MSISDN/265991000001');
    expect(cb.method).toBe('PUT');
    expect(cb.body).toEqual({
      party: {
        partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '265991000001', fspId: 'payeefsp' },
        name: 'Chikondi Banda Phiri',
        personalInfo: { complexName: { firstName: 'Chikondi', middleName: 'Banda', lastName: 'Phiri' } },
      },
    });
    expect(cb.headers['content-type']).toBe('application/vnd.interoperability.parties+json;version=1.1');
    expect(cb.headers['fspiop-source']).toBe('payeefsp');
    expect(cb.headers['fspiop-destination']).toBe(OUR_FSP);
    expect(cb.headers.date).toMatch(RFC_1123);

    // By suffix, and the default for any other party.
    await fspiop('GET', '/parties/MSISDN/265990000077', 'parties');
    expect((await receiver.waitFor('/parties/MSISDN/265990000077')).body.party).toMatchObject({ name: 'Thoko Mwale', partyIdInfo: { fspId: 'otherfsp' } });
    await fspiop('GET', '/parties/ACCOUNT_ID/12345', 'parties');
    expect((await receiver.waitFor('/parties/ACCOUNT_ID/12345')).body.party).toMatchObject({ name: 'Test Party', partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: '12345' } });

    // What TTK received and sent is in its history.
    const request = await ttk.waitForRequest({ method: 'get', path: '/parties/MSISDN/265991000001' });
    expect(request.headers['fspiop-source']).toBe(OUR_FSP);
    expect((await ttk.callbacks()).map((c) => c.path)).toContain('/parties/MSISDN/265991000001');
  });

  it('answers version 1.0 requests in version 1.0', async () => {
    await fspiop('GET', '/parties/MSISDN/265991000010', 'parties', undefined, { version: '1.0' });
    expect((await receiver.waitFor('/parties/MSISDN/265991000010')).headers['content-type']).toBe('application/vnd.interoperability.parties+json;version=1.0');
  });

  it('refuses application/json', async () => {
    const res = await fetch(`${ttk.fspiopUrl}/parties/MSISDN/265991000011`, { headers: { accept: 'application/json', date: new Date().toUTCString(), 'fspiop-source': OUR_FSP }, signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(404);
  });

  it('says a party is not found, or says nothing', async () => {
    await ttk.setRules([partyNotFound({ idSuffix: '404' }), partyNoCallback({ id: '265991000999' })]);
    expect((await fspiop('GET', '/parties/MSISDN/265991000404', 'parties')).status).toBe(202);
    const cb = await receiver.waitFor('/parties/MSISDN/265991000404/error');
    expect(cb.body).toEqual({ errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } });
    expect(cb.headers['fspiop-source']).toBe('switch');

    expect((await fspiop('GET', '/parties/MSISDN/265991000999', 'parties')).status).toBe(202);
    await ttk.waitForRequest({ method: 'get', path: '/parties/MSISDN/265991000999' });
    await receiver.expectNothing(['/parties/MSISDN/265991000999', '/parties/MSISDN/265991000999/error'], 1000);
  });

  it('quotes the requested amount with an ILP packet and condition, then commits the transfer with the matching fulfilment', async () => {
    const quote = quoteRequest('265991000001');
    const res = await fspiop('POST', '/quotes', 'quotes', quote, { destination: 'payeefsp' });
    expect(res.status).toBe(202);
    const cb = await receiver.waitFor(`/quotes/${quote.quoteId}`);
    expect(cb.body.transferAmount).toEqual({ currency: 'MWK', amount: '50' });
    expect(cb.body.ilpPacket).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cb.body.condition).toMatch(BASE64URL_32_BYTES);
    const expiresIn = Date.parse(cb.body.expiration) - Date.now();
    expect(expiresIn).toBeGreaterThan(30_000);
    expect(expiresIn).toBeLessThan(61_000);
    expect(cb.headers['content-type']).toBe('application/vnd.interoperability.quotes+json;version=1.1');
    expect(cb.headers['fspiop-source']).toBe('payeefsp');

    const transfer = { transferId: randomUUID(), payerFsp: OUR_FSP, payeeFsp: 'payeefsp', amount: cb.body.transferAmount, ilpPacket: cb.body.ilpPacket, condition: cb.body.condition, expiration: new Date(Date.now() + 60_000).toISOString() };
    expect((await fspiop('POST', '/transfers', 'transfers', transfer, { destination: 'payeefsp' })).status).toBe(202);
    const done = await receiver.waitFor(`/transfers/${transfer.transferId}`);
    expect(done.body.transferState).toBe('COMMITTED');
    expect(Date.parse(done.body.completedTimestamp)).toBeGreaterThan(Date.now() - 10_000);
    expect(done.body.fulfilment).toMatch(BASE64URL_32_BYTES);
    expect(sha256Base64url(done.body.fulfilment)).toBe(transfer.condition);
    expect(done.headers['content-type']).toBe('application/vnd.interoperability.transfers+json;version=1.1');
    expect(done.headers['fspiop-source']).toBe('payeefsp');
    expect(done.headers['fspiop-destination']).toBe(OUR_FSP);
  });

  it('rejects a quote for a chosen payee', async () => {
    await ttk.setRules([quoteError({ payeeId: '265991000501' })]);
    const quote = quoteRequest('265991000501');
    expect((await fspiop('POST', '/quotes', 'quotes', quote, { destination: 'payeefsp' })).status).toBe(202);
    const cb = await receiver.waitFor(`/quotes/${quote.quoteId}/error`);
    expect(cb.body).toEqual({ errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote' } });
    expect(cb.headers['content-type']).toBe('application/vnd.interoperability.quotes+json;version=1.1');
  });

  it('gives each transfer the outcome its amount or payee FSP selects', async () => {
    await ttk.setRules([
      transferAborted({ amount: '51' }),
      transferError({ amount: '52' }),
      transferNoCallback({ amount: '53' }),
      transferSyncError({ amount: '54', status: 500 }),
      transferError({ payeeFsp: 'brokefsp', errorCode: '4001', errorDescription: 'Payer FSP insufficient liquidity', source: 'switch' }),
      transferCommitted({ amount: '55', fulfilment: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
    ]);

    const aborted = await quotedTransfer('265991000001', '51');
    expect((await fspiop('POST', '/transfers', 'transfers', aborted, { destination: 'payeefsp' })).status).toBe(202);
    expect((await receiver.waitFor(`/transfers/${aborted.transferId}`)).body.transferState).toBe('ABORTED');

    const failed = await quotedTransfer('265991000001', '52');
    await fspiop('POST', '/transfers', 'transfers', failed, { destination: 'payeefsp' });
    expect((await receiver.waitFor(`/transfers/${failed.transferId}/error`)).body).toEqual({ errorInformation: { errorCode: '5105', errorDescription: 'Payee FSP rejected transaction' } });

    const broke = await quotedTransfer('265991000001', '50', 'brokefsp');
    await fspiop('POST', '/transfers', 'transfers', broke, { destination: 'brokefsp' });
    const brokeCb = await receiver.waitFor(`/transfers/${broke.transferId}/error`);
    expect(brokeCb.body.errorInformation.errorCode).toBe('4001');
    expect(brokeCb.headers['fspiop-source']).toBe('switch');

    const wrong = await quotedTransfer('265991000001', '55');
    await fspiop('POST', '/transfers', 'transfers', wrong, { destination: 'payeefsp' });
    const wrongCb = await receiver.waitFor(`/transfers/${wrong.transferId}`);
    expect(wrongCb.body.transferState).toBe('COMMITTED');
    expect(sha256Base64url(wrongCb.body.fulfilment)).not.toBe(wrong.condition);

    const rejected = await quotedTransfer('265991000001', '54');
    const sync = await fspiop('POST', '/transfers', 'transfers', rejected, { destination: 'payeefsp' });
    expect(sync.status).toBe(500);
    expect(sync.body).toEqual({ errorInformation: { errorCode: '2001', errorDescription: 'Internal server error' } });

    const silent = await quotedTransfer('265991000001', '53');
    expect((await fspiop('POST', '/transfers', 'transfers', silent, { destination: 'payeefsp' })).status).toBe(202);
    await ttk.waitForRequest({ method: 'post', path: '/transfers' });
    await receiver.expectNothing([`/transfers/${silent.transferId}`, `/transfers/${silent.transferId}/error`, `/transfers/${rejected.transferId}`, `/transfers/${rejected.transferId}/error`], 1000);
  });

  it('answers a transfer status request', async () => {
    const unknown = randomUUID();
    await ttk.setRules([transferStatusNotFound({ transferId: unknown })]);
    const known = randomUUID();
    expect((await fspiop('GET', `/transfers/${known}`, 'transfers')).status).toBe(202);
    const cb = await receiver.waitFor(`/transfers/${known}`);
    expect(cb.body.transferState).toBe('COMMITTED');
    expect(cb.body.fulfilment).toBeUndefined();
    expect(cb.headers['fspiop-source']).toBe('switch');

    await fspiop('GET', `/transfers/${unknown}`, 'transfers');
    expect((await receiver.waitFor(`/transfers/${unknown}/error`)).body).toEqual({ errorInformation: { errorCode: '3208', errorDescription: 'Transfer ID not found' } });
  });

  it('goes back to the defaults on reset', async () => {
    await ttk.setRules([partyNotFound()]);
    await ttk.setUserConfig({ FSPID: 'somefsp' });
    await ttk.reset();
    expect((await ttk.getUserConfig()).FSPID).toBe('switch');
    expect(await ttk.requests()).toEqual([]);
    expect((await ttk.getUserConfig()).CALLBACK_ENDPOINT).toBe('http://127.0.0.1:9');
    await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackEndpoint });
    await fspiop('GET', '/parties/MSISDN/265991000020', 'parties');
    expect((await receiver.waitFor('/parties/MSISDN/265991000020')).body.party.name).toBe('Test Party');
  });
});

describe('TTK signing and TLS', () => {
  const certs = mojaloopTestCertificates();

  it('signs its callbacks with JWS when asked', async () => {
    await ttk.signCallbacks();
    try {
      const quote = quoteRequest('265991000001');
      await fspiop('POST', '/quotes', 'quotes', quote, { destination: 'payeefsp' });
      const cb = await receiver.waitFor(`/quotes/${quote.quoteId}`);
      expect(cb.headers['fspiop-uri']).toBe(`/quotes/${quote.quoteId}`);
      expect(cb.headers['fspiop-http-method']).toBe('PUT');
      const signature = JSON.parse(cb.headers['fspiop-signature'] as string) as { signature: string; protectedHeader: string };
      expect(JSON.parse(Buffer.from(signature.protectedHeader, 'base64url').toString())).toEqual({
        alg: 'RS256',
        'FSPIOP-URI': `/quotes/${quote.quoteId}`,
        'FSPIOP-HTTP-Method': 'PUT',
        'FSPIOP-Source': 'payeefsp',
        'FSPIOP-Destination': OUR_FSP,
      });
      // A JWS with a detached payload: the body exactly as sent.
      const signed = Buffer.from(`${signature.protectedHeader}.${Buffer.from(cb.raw).toString('base64url')}`);
      expect(verify('sha256', signed, createPublicKey(certs.jws.certPem), Buffer.from(signature.signature, 'base64url'))).toBe(true);

      await fspiop('GET', '/parties/MSISDN/265991000030', 'parties');
      expect((await receiver.waitFor('/parties/MSISDN/265991000030')).headers['fspiop-signature']).toBeTruthy();
    } finally {
      await ttk.signCallbacks(false);
    }
  });

  it('presents its client certificate on its callbacks', async () => {
    const secure = new Receiver({ ca: certs.caPem, cert: certs.dfspServer.certPem, key: certs.dfspServer.keyPem });
    const endpoint = await secure.start();
    try {
      await ttk.setUserConfig({ CALLBACK_ENDPOINT: endpoint });
      await ttk.setCallbackClientCertificate(`127.0.0.1:${secure.port}`, certs.ttkClient.certPem, certs.ttkClient.keyPem);
      await fspiop('GET', '/parties/MSISDN/265991000040', 'parties');
      expect((await secure.waitFor('/parties/MSISDN/265991000040')).clientCertificate).toBe('ttk-client');
    } finally {
      await ttk.setUserConfig({ CALLBACK_ENDPOINT: callbackEndpoint, CLIENT_MUTUAL_TLS_ENABLED: false });
      await secure.stop();
    }
  });
});

describe('a TTK of its own, requiring our client certificate', () => {
  const certs = mojaloopTestCertificates();
  const ownReceiver = new Receiver();
  let own: RunningTtk;

  beforeAll(async () => {
    own = await startTtk({ inboundMtls: { caPem: certs.caPem, serverCertPem: certs.ttkServer.certPem, serverKeyPem: certs.ttkServer.keyPem } });
    await new Ttk(own.info).setUserConfig({ CALLBACK_ENDPOINT: await ownReceiver.start() });
  });

  afterAll(async () => {
    await own?.stop();
    await ownReceiver.stop();
  });

  it('answers over TLS with our certificate and refuses us without', async () => {
    expect(own.info.fspiopUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const type = 'application/vnd.interoperability.parties+json;version=1.1';
    const headers = { accept: type, 'content-type': type, date: new Date().toUTCString(), 'fspiop-source': OUR_FSP };
    const withCertificate = new Agent({ connect: { ca: certs.caPem, cert: certs.dfspClient.certPem, key: certs.dfspClient.keyPem } });
    const withoutCertificate = new Agent({ connect: { ca: certs.caPem } });
    try {
      const res = await undiciFetch(`${own.info.fspiopUrl}/parties/MSISDN/265991000050`, { headers, dispatcher: withCertificate, signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(202);
      expect((await ownReceiver.waitFor('/parties/MSISDN/265991000050')).body.party.name).toBe('Test Party');
      await expect(undiciFetch(`${own.info.fspiopUrl}/parties/MSISDN/265991000051`, { headers, dispatcher: withoutCertificate, signal: AbortSignal.timeout(5000) })).rejects.toThrow();
    } finally {
      await withCertificate.close();
      await withoutCertificate.close();
    }
  });
});

// Requests to the switch: FSPIOP headers, our JWS signature when our key is set, our client
// certificate when mutual TLS is configured, a bounded time, and a record of each in
// rail_messages. FSPIOP is asynchronous: a 202 says only that the switch took the request; the
// answer comes later as a callback to our /fspiop routes. So a send never decides an outcome: a
// refusal or no answer leaves the payout due, and the worker asks again when its wait is over.
import { Agent, request } from 'undici';
import type { MojaloopConfig } from '../../config.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/pool.ts';
import { outboundHeaders, type FspiopVersion, type Resource } from './headers.ts';
import { signatureHeaders } from './jws.ts';
import { recordMessages, type RailMessage } from './messages.ts';

export interface SwitchRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** Below the switch's base URL: /parties/MSISDN/265991234567, /quotes, /transfers/{id}. */
  path: string;
  resource: Resource;
  /** fspiop-destination; absent on GET /parties (the switch finds the party's FSP). */
  destination?: string;
  body?: object;
  /** The payout the request belongs to, for its record. */
  payout?: { merchantAccountNumber: number; payoutId: number };
  /** Or the collection (rail_collections). */
  collection?: { merchantAccountNumber: number; inboundId: number };
  /** The FSPIOP version to speak (default MOJALOOP_API_VERSION): a callback answers in its request's. */
  version?: FspiopVersion;
}

export interface SwitchAnswer {
  /** The switch's HTTP status; null when it did not answer (refused, timed out). */
  status: number | null;
  accepted: boolean;
}

export interface SwitchClient {
  send(requests: SwitchRequest[]): Promise<SwitchAnswer[]>;
  close(): Promise<void>;
}

/** Requests in flight at once from one process: the switch is one host. */
const CONCURRENCY = 32;

export function createSwitchClient(config: MojaloopConfig, db: Db, log: FastifyBaseLogger): SwitchClient {
  const dispatcher = new Agent({
    connections: CONCURRENCY,
    headersTimeout: config.requestTimeoutMs,
    bodyTimeout: config.requestTimeoutMs,
    connect: config.tls ? { cert: config.tls.certPem, key: config.tls.keyPem, ca: config.tls.caPem, timeout: config.requestTimeoutMs } : { timeout: config.requestTimeoutMs },
  });

  async function sendOne(req: SwitchRequest): Promise<{ answer: SwitchAnswer; message: RailMessage }> {
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const headers: Record<string, string> = outboundHeaders({ resource: req.resource, source: config.fspId, destination: req.destination, date: new Date(), version: req.version ?? config.apiVersion, kind: req.method === 'PUT' ? 'callback' : 'request' });
    if (body !== undefined && config.jwsPrivateKeyPem) Object.assign(headers, signatureHeaders({ method: req.method, uri: req.path, headers, body, privateKeyPem: config.jwsPrivateKeyPem }));
    const message: RailMessage = { payout: req.payout, collection: req.collection, direction: 'out', method: req.method, path: req.path, httpStatus: null, headers, body: req.body, outcome: 'accepted' };
    try {
      const res = await request(`${config.switchUrl}${req.path}`, { method: req.method, headers, body, dispatcher, signal: AbortSignal.timeout(config.requestTimeoutMs) });
      const text = await res.body.text();
      message.httpStatus = res.statusCode;
      const accepted = res.statusCode >= 200 && res.statusCode < 300;
      if (!accepted) message.outcome = `refused by the switch: ${res.statusCode} ${text.slice(0, 200)}`;
      return { answer: { status: res.statusCode, accepted }, message };
    } catch (err) {
      message.outcome = `no answer: ${(err as Error).message}`.slice(0, 300);
      return { answer: { status: null, accepted: false }, message };
    }
  }

  return {
    async send(requests) {
      const results: { answer: SwitchAnswer; message: RailMessage }[] = new Array(requests.length);
      let next = 0;
      const lanes = Array.from({ length: Math.min(CONCURRENCY, requests.length) }, async () => {
        while (next < requests.length) {
          const i = next++;
          results[i] = await sendOne(requests[i]);
        }
      });
      await Promise.all(lanes);
      // The record must not stop the payouts: they are safe in their own rows either way.
      await recordMessages(db, results.map((r) => r.message)).catch((err: unknown) => log.error({ err }, 'mojaloop: could not record the messages sent'));
      for (const r of results) if (r.message.outcome !== 'accepted') log.warn({ path: r.message.path, status: r.message.httpStatus, outcome: r.message.outcome }, 'mojaloop: the switch did not take a request');
      return results.map((r) => r.answer);
    },
    close: () => dispatcher.close(),
  };
}

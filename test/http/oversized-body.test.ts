// An oversized body always gets its 413 (issue 13, item 5), over real sockets. The refusal is
// decided from Content-Length before the body is read; the connection used to be closed as soon
// as the answer was written, while the client was still sending. A client that sends its whole
// request before reading (as many do) then met a reset (EPIPE, ECONNRESET) instead of the answer,
// and one that did read met it whenever the reset overtook the answer. Here the body limit is
// 4 MiB, so that 2–3 times it is more than the socket buffers on either side take in.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, CONNECTOR_ID } from '../routes.ts';

const LIMIT = 4 * 1024 * 1024;
const CLIENTS = 40;
/** Clients sending at once: 40 bodies of up to 12 MiB, in waves of this many. */
const WAVE = 10;

let t: TestApp;
let m: TestMerchant;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ BODY_LIMIT_BYTES: String(LIMIT) });
  m = await newMerchant(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

/** 2, 2.5 or 3 times the limit: a JSON object whose text is that long. */
function oversized(i: number): Buffer {
  const size = Math.round(LIMIT * (2 + (i % 3) * 0.5));
  const prefix = `{"merchantAccountNumber":${m.merchantAccountNumber},"connectorId":${CONNECTOR_ID},"topupAmount":10,"createdBy":"${ACTOR}","pad":"`;
  return Buffer.concat([Buffer.from(prefix), Buffer.alloc(size - prefix.length - 2, 'x'), Buffer.from('"}')]);
}

const topup = `${BASE}/merchants/accounts/topup`;

interface RawAnswer {
  /** The first error while sending, if any: the client gives up there. */
  sendError?: string;
  status?: number;
  body?: string;
}

/**
 * A client that sends the whole request (headers, then the body in 64 KiB writes, each waited
 * for) and only then reads the answer: a reset while sending is the end of it.
 */
function sendThenRead(path: string, body: Buffer, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.setEncoding('latin1');
    socket.pause();
    socket.on('error', () => undefined);
    const write = (data: string | Buffer) => new Promise<void>((ok, fail) => socket.write(data, (err) => (err ? fail(err) : ok())));
    socket.once('connect', async () => {
      const head = [`POST ${path} HTTP/1.1`, 'Host: localhost', 'Content-Type: application/json', `Content-Length: ${body.length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      try {
        await write(head);
        for (let at = 0; at < body.length; at += 64 * 1024) await write(body.subarray(at, at + 64 * 1024));
      } catch (err) {
        socket.destroy();
        return resolve({ sendError: (err as NodeJS.ErrnoException).code ?? String(err) });
      }
      // Now read: one answer (its headers and Content-Length bytes of body).
      socket.on('data', (d: string) => {
        received += d;
        const end = received.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, end))?.[1] ?? NaN);
        if (received.length - end - 4 < length) return;
        socket.destroy();
        resolve({ status: Number(received.slice(9, 12)), body: received.slice(end + 4, end + 4 + length) });
      });
      socket.once('close', () => resolve({ sendError: received ? `closed mid-answer: ${received.slice(0, 80)}` : 'closed before answering' }));
      socket.resume();
    });
  });
}

async function inWaves<T>(count: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let from = 0; from < count; from += WAVE) results.push(...(await Promise.all(Array.from({ length: Math.min(WAVE, count - from) }, (_, k) => one(from + k)))));
  return results;
}

function tally(outcomes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

describe('a body over the limit gets 413 E908, never a reset', () => {
  it(`${CLIENTS} clients that send everything before reading: every one reads the 413`, async () => {
    const answers = await inWaves(CLIENTS, (i) => sendThenRead(topup, oversized(i), m.auth));
    const outcomes = answers.map((a) => (a.sendError ? `reset: ${a.sendError}` : `${a.status} ${JSON.parse(a.body!).errorCode}`));
    expect(tally(outcomes)).toEqual({ '413 E908': CLIENTS });
  }, 60_000);

  it(`${CLIENTS} node:http clients, keep-alive: every one gets the 413, and the connection serves the next request`, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: WAVE });
    try {
      const post = (body: Buffer) =>
        new Promise<{ status?: number; body?: string; error?: string; reused?: boolean }>((resolve) => {
          const req = http.request({ host: '127.0.0.1', port, path: topup, method: 'POST', agent, headers: { ...m.auth, 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode, body: text, reused: req.reusedSocket }));
          });
          req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
          req.end(body);
        });
      const answers = await inWaves(CLIENTS, (i) => post(oversized(i)));
      expect(tally(answers.map((a) => (a.error ? `reset: ${a.error}` : `${a.status} ${JSON.parse(a.body!).errorCode}`)))).toEqual({ '413 E908': CLIENTS });
      // The refused bodies were read to their end: the same connections take the next requests.
      const next = await inWaves(WAVE, () => post(Buffer.from(JSON.stringify({ merchantAccountNumber: m.merchantAccountNumber, connectorId: CONNECTOR_ID, topupAmount: 10, createdBy: ACTOR }))));
      expect(next.map((a) => a.status)).toEqual(Array(WAVE).fill(200));
      expect(next.filter((a) => a.reused).length).toBeGreaterThan(0);
    } finally {
      agent.destroy();
    }
  }, 60_000);

  it('a body far past any bound is still refused, and the server keeps answering', async () => {
    // 64 MiB past a 4 MiB limit is not read to its end: the connection is closed after the answer,
    // which a client reading while it sends still gets.
    const answer = await new Promise<{ status?: number; error?: string }>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: topup, method: 'POST', agent: false, headers: { ...m.auth, 'content-type': 'application/json', 'content-length': String(64 * LIMIT) } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode });
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code }));
      req.write(Buffer.alloc(256 * 1024, 'x'));
    });
    expect(answer.status).toBe(413);
    const health = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(health.status).toBe(200);
  }, 30_000);
});

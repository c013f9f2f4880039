// No secrets in logs (non-negotiable 7): API secrets, access tokens and Authorization headers
// never reach the log, at the most verbose level, on success or failure.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { createLogger } from '../../src/runtime.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let logged: BuiltApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  // The service's own logger, at its most verbose.
  const log = createLogger({ logLevel: 'trace' }, sink);
  logged = await buildApp({ ...t.deps, log, config: { ...t.deps.config, logLevel: 'trace' } });
});
afterAll(async () => {
  await logged.app.close();
  await t.close();
});

describe('logs', () => {
  it('never contain secrets or tokens', async () => {
    const app = logged.app;
    const credentials = { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber };
    const token = await app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: credentials });
    expect(token.statusCode).toBe(200);
    const accessToken = token.json().accessToken as string;
    await app.inject({ method: 'POST', url: `${BASE}/account/getAccessToken`, payload: { ...credentials, apiSecret: 'Wrong-Secret-Value-0123456789' } });
    const generated = await app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/generate?merchantAccountNumber=${m.merchantAccountNumber}`, headers: { authorization: `Bearer ${accessToken}` } });
    const pair = generated.json() as { key: string; secret: string };
    await app.inject({
      method: 'POST',
      url: `${BASE}/security/apiKeys/add`,
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, clientKey: pair.key, clientSecret: pair.secret, capturedBy: 'ops@shop.mw' },
    });
    // A malformed add, whose validation error names fields but must not echo values.
    await app.inject({
      method: 'POST',
      url: `${BASE}/security/apiKeys/add`,
      headers: { authorization: `Bearer ${accessToken}` },
      payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, clientKey: '!', clientSecret: 'Short-Secret-Value-987' },
    });
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(4);
    for (const secret of [m.apiSecret, accessToken, pair.secret, 'Wrong-Secret-Value-0123456789', 'Short-Secret-Value-987']) {
      expect(all).not.toContain(secret);
    }
  });

  // Two lines a request (Fastify's "incoming request" and "request completed") pushed the start-up
  // banner, with its one-time secret and console password, off the terminal within minutes.
  it('write one line a request at info: its method, its path without the query, its status and time', async () => {
    const from = lines.length;
    const res = await logged.app.inject({ method: 'GET', url: '/health/ready?token=Query-Secret-Value-0123456789' });
    const id = String(res.headers['x-request-id']);
    const ours = lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.reqId === id && Number(l.level) >= 30);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ msg: 'request', method: 'GET', path: '/health/ready', status: res.statusCode });
    expect(typeof ours[0].ms).toBe('number');
    expect(lines.slice(from).join('')).not.toContain('Query-Secret-Value-0123456789');
  });

  // On a terminal, people read `time level msg key=value…`; anywhere else (a pipe, a collector) JSON.
  it('are human-readable lines when stdout is a terminal, still without secrets', () => {
    const had = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
    try {
      const log = createLogger({ logLevel: 'info' });
      log.info({ merchantAccountNumber: 12345678, apiSecret: 'Plain-Secret-Value-0123456789', req: { method: 'POST' } }, 'key pair issued');
      log.flush?.();
    } finally {
      write.mockRestore();
      if (had) Object.defineProperty(process.stdout, 'isTTY', had);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
    const line = written.join('').replace(/\x1b\[[0-9;]*m/g, '');
    expect(line).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO  key pair issued merchantAccountNumber=12345678 apiSecret=\[redacted\] req\.method=POST\n$/);
    expect(line).not.toContain('Plain-Secret-Value-0123456789');
    expect(() => JSON.parse(line)).toThrow();
  });
});

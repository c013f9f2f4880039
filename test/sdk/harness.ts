// The SDK's tests run it against the real service on a real socket: the test app listening on
// 127.0.0.1, a merchant of its own, and a fetch that records what went over the wire.
import { spawn } from 'node:child_process';
import { OneKhusa, type OneKhusaOptions } from '../../packages/sdk/src/index.ts';
import { startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

export const ACTOR = 'ops@shop.mw';
/** A sandbox collection connector (Airtel Money). */
export const AIRTEL = 112400;

export interface Served {
  t: TestApp;
  baseUrl: string;
  port: number;
}

/** The test app on a real socket. */
export async function serve(): Promise<Served> {
  const t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error(`unexpected listen address ${String(address)}`);
  return { t, port: address.port, baseUrl: `http://127.0.0.1:${address.port}` };
}

export function clientFor(baseUrl: string, m: TestMerchant, options: Partial<OneKhusaOptions> = {}): OneKhusa {
  return new OneKhusa({ baseUrl, apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, ...options });
}

export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  /** Undefined when the attempt failed without an answer. */
  status?: number;
  responseHeaders?: Headers;
}

/**
 * The global fetch, recording every exchange; `failAfter(path, n)` says which attempts fail with a
 * network error *after* the server answered them (as when a connection drops on the way back).
 */
export function recordingFetch(failAfter: (path: string, attempt: number) => boolean = () => false) {
  const exchanges: Exchange[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const path = url.pathname.replace(/^\/(sandbox|live)\/v1/, '');
    const exchange: Exchange = { method: init?.method ?? 'GET', path, requestHeaders: { ...(init?.headers as Record<string, string>) } };
    exchanges.push(exchange);
    const response = await fetch(input, init);
    exchange.status = response.status;
    exchange.responseHeaders = response.headers;
    const attempt = exchanges.filter((e) => e.path === path).length;
    if (failAfter(path, attempt)) {
      await response.arrayBuffer();
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    }
    return response;
  };
  return { fetch: fetchFn, exchanges, to: (path: string) => exchanges.filter((e) => e.path === path) };
}

/** Runs a process to its end: its exit code and output. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

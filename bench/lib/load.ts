// Load generation with autocannon: where it runs (BENCH_LOAD_GENERATOR), a target measured after
// a warm-up, the setupRequest / onResponse hooks as files (in a worker thread autocannon takes
// functions only by path), and what a run's non-2xx answers said.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { log, round1 } from './common.ts';

/** Seconds each measured target is first run unmeasured. */
export const WARMUP_SECONDS = 2;

export const LOAD_GENERATORS = ['worker', 'inprocess'] as const;
export type LoadGenerator = (typeof LOAD_GENERATORS)[number];

export interface LoadOptions {
  connections: number;
  generator: LoadGenerator;
}

export const describeGenerator = (g: LoadGenerator) => (g === 'worker' ? 'autocannon in a worker thread' : 'autocannon in the server process');

/** One autocannon run of `seconds` with the run's connections, in a worker thread or in this one. */
export function runLoad(load: LoadOptions, options: Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body' | 'requests'>, seconds: number): Promise<autocannon.Result> {
  return autocannon({ ...options, connections: load.connections, duration: seconds, ...(load.generator === 'worker' ? { workers: 1 } : {}) });
}

export interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** `target` warmed up for WARMUP_SECONDS, then measured for `seconds`. */
export async function measureTarget(name: string, load: LoadOptions, baseUrl: string, target: Target, seconds: number): Promise<Measured> {
  const run = (s: number) => runLoad(load, { url: baseUrl + target.path, method: target.method, headers: target.headers, body: target.body }, s);
  log(`${name}: warming up ${WARMUP_SECONDS} s`);
  await run(WARMUP_SECONDS);
  log(`${name}: measuring ${seconds} s with ${load.connections} connections`);
  const r = await run(seconds);
  const measured = { requestsPerSecond: round1(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
  log(`${name}: ${JSON.stringify(measured)}`);
  return measured;
}

/** Answers per status code of a run. */
export function statusCodes(r: autocannon.Result): Record<string, number> {
  return Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
}

/**
 * autocannon's setupRequest as a file. Every request gets a reference no other request has (a
 * random prefix per load run and a counter shared by the run's connections) and, where the
 * template has one, a fresh idempotency key. With `timedAccounts` (one list per merchant), a body
 * holding `@TA<k>@` gets the next unused number of list k, each number used once (the last one
 * again once a list runs out: its payment is then refused, and shows as non-2xx).
 */
function setupRequestSource(timedAccounts?: string[][]): string {
  const accounts = timedAccounts
    ? `const ACCOUNTS = ${JSON.stringify(timedAccounts)};
const used = ACCOUNTS.map(() => 0);
`
    : '';
  const replaceAccount = timedAccounts
    ? `  const ta = /@TA(\\d+)@/.exec(req.body);
  if (ta) {
    const list = ACCOUNTS[Number(ta[1])];
    req.body = req.body.replace(ta[0], list[Math.min(used[Number(ta[1])]++, list.length - 1)]);
  }
`
    : '';
  return `'use strict';
const prefix = require('node:crypto').randomBytes(5).toString('hex');
let n = 0;
${accounts}module.exports = function setupRequest(req) {
  n += 1;
  const seq = n.toString(36);
  req.body = req.body.replace('@REF@', 'B' + prefix + seq);
${replaceAccount}  // A new headers object: the one autocannon passes in is shared with the template, and a key
  // written into it would be sent again with every later request of that template.
  if (req.headers['x-idempotency-key'] !== undefined) req.headers = { ...req.headers, 'x-idempotency-key': 'bench-' + prefix + '-' + seq };
  return req;
};
`;
}

/** autocannon's onResponse as a file: the first few non-2xx answers, kept for the report. */
const ON_RESPONSE_SOURCE = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
let kept = 0;
module.exports = function onResponse(status, body) {
  if (status >= 200 && status < 300) return;
  if (kept >= 20) return;
  kept += 1;
  fs.appendFileSync(path.join(__dirname, 'non2xx.log'), JSON.stringify({ status, body: String(body).slice(0, 600) }) + '\\n');
};
`;

export interface Hooks {
  setupRequest: string;
  onResponse: string;
}

/** A temporary folder holding the hook files and the log onResponse writes the non-2xx answers to. */
export class HookFiles {
  readonly dir: string;
  readonly non2xxLog: string;
  /** setupRequest without timed accounts, and onResponse. */
  readonly hooks: Hooks;
  private files = 0;

  constructor(label: string) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `onekhusa-bench-${label}-`));
    this.non2xxLog = path.join(this.dir, 'non2xx.log');
    const onResponse = path.join(this.dir, 'on-response.cjs');
    fs.writeFileSync(onResponse, ON_RESPONSE_SOURCE);
    const setupRequest = path.join(this.dir, 'setup-request.cjs');
    fs.writeFileSync(setupRequest, setupRequestSource());
    this.hooks = { setupRequest, onResponse };
  }

  /**
   * Hooks whose setupRequest hands out these timed accounts: a file of its own each time (in the
   * server's thread, `inprocess`, a required file stays cached with its counters).
   */
  withTimedAccounts(timedAccounts: string[][]): Hooks {
    this.files += 1;
    const setupRequest = path.join(this.dir, `setup-request-${this.files}.cjs`);
    fs.writeFileSync(setupRequest, setupRequestSource(timedAccounts));
    return { setupRequest, onResponse: this.hooks.onResponse };
  }

  /** Forgets the non-2xx answers kept so far: call before a run. */
  clearNon2xx(): void {
    fs.rmSync(this.non2xxLog, { force: true });
  }

  /** Distinct non-2xx answers the onResponse hook kept (status, errorCode, detail), at most five. */
  non2xxSamples(): string[] {
    if (!fs.existsSync(this.non2xxLog)) return [];
    const samples = new Set<string>();
    for (const line of fs.readFileSync(this.non2xxLog, 'utf8').split('\n')) {
      if (!line) continue;
      const { status, body } = JSON.parse(line) as { status: number; body: string };
      let text = body;
      try {
        const problem = JSON.parse(body) as { errorCode?: string; detail?: string };
        text = `${problem.errorCode ?? ''} ${problem.detail ?? ''}`;
      } catch {
        // not JSON: kept as it is
      }
      samples.add(`${status} ${text}`.slice(0, 200));
    }
    return [...samples].slice(0, 5);
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * One template per merchant (autocannon's connections each cycle through all of them): POST
 * `path` with the merchant's token and `body(i)`; with `keyed`, an X-Idempotency-Key that
 * setupRequest replaces with a fresh one on every request.
 */
export function requestTemplates(path: string, tokens: string[], body: (i: number) => string, hooks: Hooks, keyed: boolean): autocannon.Request[] {
  return tokens.map((token, i) => ({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(keyed ? { 'x-idempotency-key': '@KEY@' } : {}) },
    body: body(i),
    ...hooks,
  }));
}

// Every ```ts block of packages/sdk/README.md, verbatim: type-checked with `tsc --strict` against the
// built package, then run with `node --import tsx` as a child process against the service as
// `npm start` runs it (src/server.ts, API and worker in one process; the worker delivers the
// webhook example's event) on this test's database. Only the environment variables the README
// tells readers to set are set, to that server and a merchant of the test's.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/lib/free-port.ts';
import { newMerchant, ROOT, until, type TestMerchant } from '../helpers.ts';
import { ensureSdkBuilt, SDK_ROOT } from './build.ts';
import { consumer, type Consumer } from './consumer.ts';
import { ACTOR, AIRTEL, clientFor, run, serve, type Served } from './harness.ts';

const README = fs.readFileSync(path.join(SDK_ROOT, 'README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
const PAYMENTS = 3;

/** What each example prints, by a line of its code that names it. */
const EXPECTED: Array<[string, RegExp]> = [
  ['merchantsLimitsGetAll', /^README Shop: \d+(\.\d+)? MWK$/m],
  ['newIdempotencyKey', /once: true/],
  ['maxRetries: 5', /^\d+ connectors in 2 requests/m],
  ['client.paginate', new RegExp(`^${PAYMENTS} collections, ${PAYMENTS * 150} MWK$`, 'm')],
  ['transactionAmount: -1', /^400 E900: .+ \(request .+\)$/m],
  ['disbursementsSingleGetTransaction', /^no such payout \(E903\)$/m],
  ['verifyWebhook', /verified payment\.success \(Standard Webhooks\)\nstatic signature valid: true/],
  ["environment: process.env.ONEKHUSA_ENVIRONMENT === 'live'", /^collections \d+/m],
];

let s: Served;
let m: TestMerchant;
/** `npm start`'s process on the test's database, and its address. */
let server: ChildProcess;
let serverUrl: string;

async function startServer(databaseUrl: string): Promise<void> {
  const port = await freePort();
  serverUrl = `http://127.0.0.1:${port}`;
  let said = '';
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'sdk-readme-jwt-secret-0123456789abcdef0123', WORKER_CONCURRENCY: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d: Buffer) => (said += d));
  server.stderr!.on('data', (d: Buffer) => (said += d));
  await until('npm start ready', async () => {
    if (server.exitCode !== null) throw new Error(`the service exited: ${said}`);
    return fetch(`${serverUrl}/health/ready`).then((r) => r.ok, () => false);
  }, 60_000, 100, () => said);
}
let c: Consumer;
let files: string[];

beforeAll(async () => {
  await ensureSdkBuilt();
  s = await serve();
  m = await newMerchant(s.t, { accountName: 'README Shop' });
  // Collections for the pagination example to find.
  const client = clientFor(s.baseUrl, m);
  for (let i = 0; i < PAYMENTS; i++) {
    await client.call('collectionsAddFakeCustomPayment', { beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: AIRTEL, transactionAmount: 150, createdBy: ACTOR });
  }
  await startServer(s.t.deps.config.databaseUrl!);
  c = consumer();
  files = BLOCKS.map((code, i) => c.write(`example-${i + 1}.mts`, code));
}, 180_000);
afterAll(async () => {
  c?.remove();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  await s?.t.close();
});

describe('packages/sdk/README.md', () => {
  it('has an expectation for every example, and every example reads its server from ONEKHUSA_BASE_URL', () => {
    expect(BLOCKS.length).toBe(EXPECTED.length);
    for (const code of BLOCKS) {
      expect(EXPECTED.filter(([marker]) => code.includes(marker)), code.slice(0, 300)).toHaveLength(1);
      // Never the real gateway from a test: every example takes the base URL the test sets.
      expect(code).toContain('baseUrl: process.env.ONEKHUSA_BASE_URL');
    }
  });

  it('every example compiles with tsc --strict', async () => {
    const result = await c.typecheck(files);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it.each(BLOCKS.map((code, i) => [i + 1, code] as const))('example %i runs', async (n, code) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ONEKHUSA_BASE_URL: serverUrl,
      ONEKHUSA_API_KEY: m.apiKey,
      ONEKHUSA_API_SECRET: m.apiSecret,
      ONEKHUSA_ORGANISATION_ID: m.organisationId,
      ONEKHUSA_MERCHANT_ACCOUNT_NUMBER: String(m.merchantAccountNumber),
    };
    delete env.ONEKHUSA_ENVIRONMENT;
    const result = await run(process.execPath, ['--import', 'tsx', files[n - 1]], { cwd: c.dir, env, timeoutMs: 25_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [, expected] = EXPECTED.find(([marker]) => code.includes(marker))!;
    expect(result.stdout).toMatch(expected);
  });
});

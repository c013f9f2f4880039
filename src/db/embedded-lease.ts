// Who uses an embedded PostgreSQL, and the lock under which processes start and stop it.
//
// Every process using the server (npm start, npm run worker, the CLI, a test run) holds a lease:
// DATA_DIR/pg-users/<pid>-<n>.json. The server keeps running while a lease's process lives and is
// stopped when the last one stops (embedded.ts) or dies (embedded-watchdog.ts). A process is told
// from another that got its pid later by the kernel's start time of the process (Linux).
//
// Starting, sharing and stopping the server happen under one lock per DATA_DIR, so that a process
// never stops a server another one has just decided to share. On Linux the lock is an abstract
// Unix socket bound under a name made from DATA_DIR's real path: the kernel frees it when its
// holder dies, so a killed process never leaves a stale lock. Elsewhere: DATA_DIR/pg.lock,
// created exclusively, and taken over when its holder is gone.
//
// Plain TypeScript Node runs without a loader (type stripping): the watchdog runs this file alone.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const LEASES_DIR = 'pg-users';
export const WATCHDOG_FILE = 'pg-watchdog.json';

export interface ProcessId {
  pid: number;
  /** The kernel's start time of the process (/proc/<pid>/stat, field 22); null where unknown. */
  start: string | null;
}

export interface Lock {
  release(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: fields count from its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

export function processStart(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

export function self(): ProcessId {
  return { pid: process.pid, start: processStart(process.pid) };
}

/** The process is running: not gone, not a zombie, and not another process that got its pid. */
export function isAlive(id: ProcessId): boolean {
  try {
    process.kill(id.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  const fields = statFields(id.pid);
  if (!fields) return !fs.existsSync('/proc/self/stat'); // no /proc: trust kill(2)
  if (fields[0] === 'Z' || fields[0] === 'X') return false; // exited, not yet reaped
  return id.start === null || fields[19] === id.start;
}

function writeJsonAtomically(file: string, value: unknown): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(temp, file);
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

let leaseCount = 0;

/** Records that this process uses the server; returns the lease's file. */
export function addLease(dataDir: string): string {
  const dir = path.join(dataDir, LEASES_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${process.pid}-${++leaseCount}.json`);
  writeJsonAtomically(file, { ...self(), command: process.argv.slice(1, 3).map((arg) => path.basename(arg)).join(' '), since: new Date().toISOString() });
  return file;
}

/** The processes using the server; leases of processes that are gone are removed. */
export function liveLeases(dataDir: string): ProcessId[] {
  const dir = path.join(dataDir, LEASES_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const live: ProcessId[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    const id = readJson<ProcessId>(file);
    if (id && Number.isInteger(id.pid) && isAlive(id)) live.push(id);
    else fs.rmSync(file, { force: true });
  }
  return live;
}

/** The postmaster running on `pgdata` (from its postmaster.pid), if one is. */
export function runningPostmaster(pgdata: string): ProcessId | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const id = { pid, start: processStart(pid) };
  if (!isAlive(id)) return undefined;
  // After a reboot the pid in a stale postmaster.pid may belong to anything: never signal that.
  if (process.platform === 'linux') {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres')) return undefined;
    } catch {
      return undefined;
    }
  }
  return id;
}

/**
 * Stops a postmaster: SIGINT ("fast": sessions aborted, a checkpoint, a clean exit), then, if it
 * is still running after `graceMs`, SIGQUIT (immediate) and at last SIGKILL. Resolves once it is gone.
 */
export async function stopPostmaster(id: ProcessId, graceMs = 30_000): Promise<void> {
  const steps: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', graceMs],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, waitMs] of steps) {
    if (!isAlive(id)) return;
    try {
      process.kill(id.pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (isAlive(id) && Date.now() < deadline) await sleep(25);
  }
}

function lockKey(dataDir: string): string {
  let real: string;
  try {
    real = fs.realpathSync(dataDir);
  } catch {
    real = path.resolve(dataDir);
  }
  return createHash('sha256').update(real).digest('hex').slice(0, 40);
}

/** The lock if it is free now, else undefined. */
export async function tryLock(dataDir: string): Promise<Lock | undefined> {
  if (process.platform === 'linux') {
    const server = net.createServer();
    const taken = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
      server.listen({ path: `\0onekhusa-pg-${lockKey(dataDir)}` }, () => resolve(true));
    });
    if (!taken) return undefined;
    server.unref();
    return { release: () => void server.close() };
  }
  const file = path.join(dataDir, 'pg.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(self()), { flag: 'wx', mode: 0o600 });
      return { release: () => fs.rmSync(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readJson<ProcessId>(file);
      if (holder && isAlive(holder)) return undefined;
      fs.rmSync(file, { force: true }); // its holder is gone
    }
  }
  return undefined;
}

/** The lock, waiting for it up to `timeoutMs`; undefined if it stayed taken. */
export async function lock(dataDir: string, timeoutMs: number): Promise<Lock | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const held = await tryLock(dataDir);
    if (held || Date.now() >= deadline) return held;
    await sleep(50);
  }
}

export interface WatchdogRecord extends ProcessId {
  postmaster: ProcessId;
}

export function readWatchdog(dataDir: string): WatchdogRecord | undefined {
  return readJson<WatchdogRecord>(path.join(dataDir, WATCHDOG_FILE));
}

export function writeWatchdog(dataDir: string, record: WatchdogRecord): void {
  writeJsonAtomically(path.join(dataDir, WATCHDOG_FILE), record);
}

// Run as root, the service runs PostgreSQL as an unprivileged account (PostgreSQL refuses root),
// and that account must reach the binaries and the data. In a directory other accounts cannot
// enter (a project under /root, a `mktemp -d` directory) it reaches neither, and initdb failed
// with EACCES. Then:
//  - the binaries are used from a copy (hard links where possible) in a root-owned directory every
//    account can enter: /var/lib/onekhusa-sandbox/pg-<version> (or /var/tmp/onekhusa-sandbox/…);
//  - the cluster (DATA_DIR/pg) lives in /var/lib/onekhusa-sandbox/data-<hash of DATA_DIR>/pg,
//    owned by the account, and DATA_DIR/pg is a symbolic link to it, which records where it is.
// A cluster already inside an unreachable DATA_DIR is not moved: the start stops and says what to do.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StartupError } from '../lib/startup-checks.ts';

export interface Account {
  uid: number;
  gid: number;
  name: string;
}

// Root-owned, not writable by others (a directory someone else made there is never used).
const STORAGE_BASES = ['/var/lib/onekhusa-sandbox', '/var/tmp/onekhusa-sandbox'];
const EXTERNAL_PREFIX = 'data-';

/** The account can `cd` into `dir` (every directory on the way is searchable for it). */
export function canEnter(dir: string, account: Account): boolean {
  const result = spawnSync('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { uid: account.uid, gid: account.gid, stdio: 'ignore', timeout: 10_000 });
  return result.status === 0;
}

function canRun(binary: string, account: Account): boolean {
  const result = spawnSync(binary, ['--version'], { uid: account.uid, gid: account.gid, stdio: 'ignore', timeout: 10_000 });
  return result.status === 0;
}

/** The first directory on the way to `dir` the account cannot enter. */
function firstClosed(dir: string, account: Account): string {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const prefix = path.sep + parts.slice(0, i).join(path.sep);
    if (!canEnter(prefix, account)) return prefix;
  }
  return dir;
}

function safeBase(base: string, account: Account): boolean {
  try {
    fs.mkdirSync(base, { recursive: true, mode: 0o755 });
    const stat = fs.lstatSync(base);
    if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) return false;
    if ((stat.mode & 0o005) !== 0o005) fs.chmodSync(base, 0o755);
    return canEnter(base, account);
  } catch {
    return false;
  }
}

function storageBase(account: Account, what: string): string {
  const base = STORAGE_BASES.find((candidate) => safeBase(candidate, account));
  if (!base) {
    throw new StartupError(`the "${account.name}" account PostgreSQL runs as (the service runs as root) cannot reach ${what}, and neither ${STORAGE_BASES.join(' nor ')} can be used instead; run the service as an ordinary user, or move the project and DATA_DIR to a directory every account can enter`);
  }
  return base;
}

/** Hard-links (else copies) a tree, readable and searchable by every account. */
function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { mode: 0o755 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else if (entry.isDirectory()) linkTree(source, target);
    else {
      try {
        fs.linkSync(source, target);
      } catch {
        fs.copyFileSync(source, target);
      }
      const mode = fs.statSync(target).mode;
      const wanted = mode | 0o044 | (mode & 0o100 ? 0o011 : 0);
      if (wanted !== mode) fs.chmodSync(target, wanted & 0o7777);
    }
  }
}

/** Binaries the account can run: these, or a copy of their package's tree it can reach. */
export function reachableBinaries<T extends { postgres: string; initdb: string }>(binaries: T, account: Account | undefined): T {
  if (!account || canRun(binaries.postgres, account)) return binaries;
  // …/native/bin/postgres: the tree is …/native (bin, lib, share; found relative to the binary).
  const native = path.dirname(path.dirname(binaries.postgres));
  const version = (JSON.parse(fs.readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const base = storageBase(account, native);
  const cached = path.join(base, `pg-${version}`);
  if (!fs.existsSync(path.join(cached, 'bin', 'postgres'))) {
    const building = path.join(base, `.pg-${version}-${process.pid}`);
    fs.rmSync(building, { recursive: true, force: true });
    linkTree(native, building);
    try {
      fs.renameSync(building, cached);
    } catch {
      fs.rmSync(building, { recursive: true, force: true }); // another process made it meanwhile
    }
  }
  const moved = { ...binaries, postgres: path.join(cached, 'bin', 'postgres'), initdb: path.join(cached, 'bin', 'initdb') };
  if (!canRun(moved.postgres, account)) {
    throw new StartupError(`the "${account.name}" account PostgreSQL runs as (the service runs as root) cannot run ${moved.postgres}; run the service as an ordinary user, or move the project to a directory every account can enter`);
  }
  return moved;
}

/**
 * Where the cluster lives: DATA_DIR/pg, or, when the account cannot enter DATA_DIR, the directory
 * DATA_DIR/pg links to. Returns the path PostgreSQL is given (no symbolic link on the way).
 */
export function clusterDirectory(dataDir: string, account: Account | undefined): string {
  const inside = path.join(dataDir, 'pg');
  let link: string | undefined;
  try {
    if (fs.lstatSync(inside).isSymbolicLink()) link = fs.readlinkSync(inside);
  } catch {
    // no cluster yet
  }
  if (link) return path.resolve(dataDir, link);
  // DATA_DIR itself is given to the account on the first start (embedded.ts): its parents count.
  if (!account || canEnter(path.dirname(dataDir), account)) return inside;
  const closed = firstClosed(path.dirname(dataDir), account);
  if (fs.existsSync(path.join(inside, 'PG_VERSION'))) {
    throw new StartupError(`DATA_DIR=${dataDir} holds a database the "${account.name}" account PostgreSQL runs as cannot reach (it cannot enter ${closed}); move DATA_DIR to a directory every account can enter (e.g. DATA_DIR=/var/lib/onekhusa), or let it in (chmod o+x ${closed})`);
  }
  const base = storageBase(account, `DATA_DIR=${dataDir} (it cannot enter ${closed})`);
  const home = path.join(base, EXTERNAL_PREFIX + createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16));
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  fs.chownSync(home, account.uid, account.gid);
  fs.chmodSync(home, 0o700);
  fs.writeFileSync(path.join(home, 'DATA_DIR'), path.resolve(dataDir) + '\n');
  const cluster = path.join(home, 'pg');
  fs.rmSync(inside, { recursive: true, force: true }); // an empty, never initialised directory at most
  fs.symlinkSync(cluster, inside);
  return cluster;
}

/**
 * Removes a DATA_DIR and, when its cluster lives elsewhere (see clusterDirectory), that too. For
 * throw-away data directories (tests); the embedded server must be stopped first.
 */
export function removeDataDir(dataDir: string): void {
  const inside = path.join(dataDir, 'pg');
  try {
    if (fs.lstatSync(inside).isSymbolicLink()) {
      const home = path.dirname(path.resolve(dataDir, fs.readlinkSync(inside)));
      if (STORAGE_BASES.includes(path.dirname(home)) && path.basename(home).startsWith(EXTERNAL_PREFIX)) fs.rmSync(home, { recursive: true, force: true });
    }
  } catch {
    // no cluster
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

// What can stop a start, found before anything is created, and said in one line that names the
// variable to change: the exit code is 2 (server.ts, worker.ts), as for a configuration error.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { parseDatabaseHosts } from '../db/hosts.ts';

/** A start-up failure the operator fixes by changing a variable or the machine: one line, exit 2. */
export class StartupError extends Error {}

// statfs(2) magic numbers of file systems that hold no files of their own (linux/magic.h). A data
// directory there cannot work: under /proc, mkdir with { recursive: true } even looped for ever.
const PSEUDO_FILE_SYSTEMS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x1cd1: 'devpts',
  0x64626720: 'debugfs',
  0x74726163: 'tracefs',
  0x73636673: 'securityfs',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0xcafe4a11: 'bpf',
  0x6165676c: 'pstore',
  0x62656570: 'configfs',
  0x65735543: 'fusectl',
  0xde5e81e4: 'efivarfs',
  0xf97cff8c: 'selinuxfs',
  0x42494e4d: 'binfmt_misc',
  0x19800202: 'mqueue',
  0x6e736673: 'nsfs',
  0x67596969: 'rpc_pipefs',
};
// Refused by path as well: /dev is a tmpfs (the magic number cannot tell), /dev/shm excepted.
const PSEUDO_TREES = ['/proc', '/sys', '/dev'];

function within(dir: string, tree: string): boolean {
  return dir === tree || dir.startsWith(tree + path.sep);
}

/**
 * DATA_DIR must be a directory (or creatable as one) on a real file system, writable by this
 * account. Creates it (mode 0700) when missing.
 */
export function checkDataDir(dataDir: string): void {
  const name = `DATA_DIR=${dataDir}`;
  let existing = dataDir;
  let stat: fs.Stats | undefined;
  for (;;) {
    try {
      stat = fs.statSync(existing);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new StartupError(`${name} cannot be a directory: a part of the path is a file; set DATA_DIR to a directory`);
      if (code !== 'ENOENT' || path.dirname(existing) === existing) throw new StartupError(`${name} cannot be read (${code}); set DATA_DIR to a directory this account can write`);
      existing = path.dirname(existing);
    }
  }
  if (!stat.isDirectory()) {
    throw new StartupError(existing === dataDir ? `${name} is not a directory; set DATA_DIR to a directory (it is created when missing)` : `${name} cannot be created: ${existing} is a file; set DATA_DIR to a directory`);
  }
  const real = fs.realpathSync(existing);
  const tree = PSEUDO_TREES.find((t) => within(real, t) && !within(real, '/dev/shm'));
  const fsType = process.platform === 'linux' ? PSEUDO_FILE_SYSTEMS[fs.statfsSync(existing).type] : undefined;
  if (tree || fsType) {
    throw new StartupError(`${name} is on a pseudo file system (${fsType ?? tree}), which cannot hold a database; set DATA_DIR to a directory on a disk, e.g. ./data`);
  }
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new StartupError(`${name} cannot be created (${e.code}: ${e.syscall ?? 'mkdir'} in ${existing} refused); set DATA_DIR to a directory this account can write`);
  }
  const probe = path.join(dataDir, `.write-test-${process.pid}`);
  try {
    fs.writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    fs.rmSync(probe, { force: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'EEXIST') throw new StartupError(`${name} is not writable by this account (${e.code}); set DATA_DIR to a directory it can write, or give it the directory`);
  }
}

/** A failed listen on PORT/HOST, as one line naming the variable; other errors unchanged. */
export function listenError(err: unknown, port: number, host: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`PORT=${port} is already in use on ${host} (another process listens there); stop it or set PORT to a free port`);
    case 'EACCES':
      return new StartupError(`PORT=${port}: this account may not listen on ${host}:${port} (EACCES); set PORT to 1024 or above`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`HOST=${host} is not an address of this machine (EADDRNOTAVAIL); set HOST to one of its addresses, or 0.0.0.0 for all`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`HOST=${host} cannot be resolved (${code}); set HOST to an address of this machine, or 0.0.0.0 for all`);
    default:
      return err;
  }
}

const DATABASE_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects once to each host of DATABASE_URL (one, or several as libpq takes them: db/hosts.ts)
 * and turns the usual mistakes (nothing listening, wrong password, no such database, unknown host)
 * into one line naming the variable. One host answering is enough: the others may be down while a
 * standby is rebuilt. The password is never shown.
 */
export async function checkDatabaseUrl(databaseUrl: string, name = 'DATABASE_URL'): Promise<void> {
  const target = parseDatabaseHosts(databaseUrl);
  const failures: string[] = [];
  for (const host of target.hosts) {
    const failure = await connectOnce(target.urlFor(host));
    if (failure === undefined) return;
    failures.push(failure);
  }
  throw new StartupError(`${name}: ${failures.join('; ')}`);
}

/** Undefined when a connection to this one-host URL can be had; otherwise the line saying why not. */
async function connectOnce(databaseUrl: string): Promise<string | undefined> {
  const url = new URL(databaseUrl);
  const host = url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || 'localhost');
  const where = `${host}:${url.searchParams.get('port') ?? (url.port || '5432')}`;
  const user = decodeURIComponent(url.username) || process.env.PGUSER || 'the current user';
  const database = decodeURIComponent(url.pathname.slice(1)) || user;
  const password = decodeURIComponent(url.password);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const said = (e.message ?? String(err)).split(password || '\u0000').join('***');
    switch (e.code) {
      case 'ECONNREFUSED':
      case 'ENOENT':
        return `nothing accepts connections at ${where} (${e.code}); start PostgreSQL there or correct the host and port`;
      case '28P01':
        return `PostgreSQL at ${where} refused the password of user "${user}" (28P01); correct the password`;
      case '3D000':
        return `database "${database}" does not exist at ${where} (3D000); create it (createdb -h ${host} -U "${user}" "${database}") or correct the name`;
      case '28000':
        return `PostgreSQL at ${where} refused user "${user}" (28000: ${said})`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `host "${host}" cannot be resolved (${e.code}); correct the host`;
      default:
        return /timeout/i.test(said) ? `no answer from ${where} within ${DATABASE_CONNECT_TIMEOUT_MS / 1000} s; check the host, port and firewall` : `cannot connect to ${where} as "${user}" (${e.code ?? 'error'}: ${said})`;
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

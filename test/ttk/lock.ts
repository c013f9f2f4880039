// A lock between processes on one machine: a directory created with mkdir (atomic), holding the
// owner's pid. A lock whose owner died is taken over, so a crashed test worker blocks nobody.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs: number;
  /** What the lock protects, for the error message. */
  what: string;
  /** Who asks (e.g. the test file), written next to the pid for the error message of others. */
  label?: string;
  pollMs?: number;
}

interface Owner {
  pid: number;
  label: string;
  since: string;
  token: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(dir: string): Owner | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'owner.json'), 'utf8')) as Owner;
  } catch {
    return undefined;
  }
}

/** Takes the lock away from a dead owner; true when the directory is gone (by us or someone else). */
function breakIfStale(dir: string): boolean {
  const owner = readOwner(dir);
  let stale: boolean;
  if (owner) stale = !alive(owner.pid);
  else {
    // Created but the owner file not written yet (or its writer died in between).
    try {
      stale = Date.now() - fs.statSync(dir).mtimeMs > 10_000;
    } catch {
      return true;
    }
  }
  if (!stale) return false;
  const aside = `${dir}.stale-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(dir, aside);
  } catch {
    return true; // someone else moved it first
  }
  const moved = readOwner(aside);
  if (moved && owner && moved.token !== owner.token && alive(moved.pid)) {
    // Released and taken again by a live process between our read and the rename: give it back.
    try {
      fs.renameSync(aside, dir);
      return false;
    } catch {
      // It is taken by yet another process now: the live one we moved lost it. Rare enough.
    }
  }
  fs.rmSync(aside, { recursive: true, force: true });
  return true;
}

/** Waits for the lock; returns its release function. */
export async function acquireLock(dir: string, options: LockOptions): Promise<() => void> {
  const deadline = Date.now() + options.timeoutMs;
  const token = randomBytes(8).toString('hex');
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(dir);
      const owner: Owner = { pid: process.pid, label: options.label ?? '', since: new Date().toISOString(), token };
      fs.writeFileSync(path.join(dir, 'owner.json'), JSON.stringify(owner));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (readOwner(dir)?.token === token) fs.rmSync(dir, { recursive: true, force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (breakIfStale(dir)) continue;
    if (Date.now() >= deadline) {
      const owner = readOwner(dir);
      const held = owner ? ` It is held by pid ${owner.pid}${owner.label ? ` (${owner.label})` : ''} since ${owner.since}.` : '';
      throw new Error(`Timed out after ${(options.timeoutMs / 1000).toFixed(1)} s waiting for the ${options.what} lock (${dir}).${held}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
}

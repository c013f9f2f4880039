// The SDK's dist/, built once for however many test files (and concurrent runs in this checkout)
// need it: rebuilt when its sources changed since the last build, under a lock so that two files
// never build at once. A clean clone passes `npm test` without a separate build step.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, sleep } from '../helpers.ts';
import { run } from './harness.ts';

export const SDK_ROOT = path.join(ROOT, 'packages/sdk');
const STAMP = path.join(SDK_ROOT, 'dist/.sources-sha256');
const INPUTS = ['src', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.cjs.json', 'package.json'];
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 120_000;
const LOCK_WAIT_MS = 180_000;

function filesUnder(entry: string): string[] {
  const full = path.join(SDK_ROOT, entry);
  if (!fs.statSync(full).isDirectory()) return [entry];
  return fs.readdirSync(full).sort().flatMap((name) => filesUnder(path.join(entry, name)));
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) hash.update(file).update('\0').update(fs.readFileSync(path.join(SDK_ROOT, file))).update('\0');
  return hash.digest('hex');
}

function built(hash: string): boolean {
  return fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === hash;
}

async function acquire(lock: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const ageMs = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (ageMs > STALE_LOCK_MS) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`SDK build lock ${lock} held for over ${LOCK_WAIT_MS} ms`);
      else await sleep(200);
    }
  }
}

/** dist/ matching the current sources: `npm run -w @onekhusa-sandbox/sdk build` when it does not. */
export async function ensureSdkBuilt(): Promise<void> {
  const hash = sourcesHash();
  if (built(hash)) return;
  const lock = path.join(os.tmpdir(), `onekhusa-sdk-build-${createHash('sha256').update(SDK_ROOT).digest('hex').slice(0, 12)}.lock`);
  await acquire(lock);
  try {
    if (built(hash)) return;
    const result = await run(process.execPath, [path.join(SDK_ROOT, 'scripts/build.mjs')], { cwd: SDK_ROOT, timeoutMs: 120_000 });
    if (result.code !== 0) throw new Error(`SDK build failed (exit ${result.code}):\n${result.stdout}${result.stderr}`);
    fs.writeFileSync(STAMP, hash);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

// The README's first integration, run as a newcomer runs it: `npm start`'s process on a fresh
// DATA_DIR, the `export` line its banner prints, then the README's shell block pasted as it is
// into bash (curl and the project's node). It must work verbatim, and fail loudly on a mistake.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lib/free-port.ts';
import { ROOT, until } from '../helpers.ts';

const HAS_TOOLS = fs.existsSync('/usr/bin/curl') || fs.existsSync('/bin/curl');
if (!HAS_TOOLS) console.warn('skipping the README test: curl is missing');

/** The first ```sh block after the heading. */
function shellBlockAfter(markdown: string, heading: string): string {
  const from = markdown.indexOf(heading);
  if (from < 0) throw new Error(`README has no "${heading}"`);
  const start = markdown.indexOf('```sh\n', from) + '```sh\n'.length;
  return markdown.slice(start, markdown.indexOf('```', start));
}

function bash(script: string): Promise<{ code: number; out: string; err: string }> {
  // The project's node first on PATH, as `npm run` would put it.
  const env = { ...process.env, PATH: `${path.join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` };
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, out, errOut) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: String(out), err: String(errOut) });
    });
  });
}

describe.skipIf(!HAS_TOOLS)("the README's first integration", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-readme-'));
  let child: ReturnType<typeof spawn>;
  let output = '';
  let exportLine = '';
  const block = shellBlockAfter(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), '## A first integration');

  let env: NodeJS.ProcessEnv;

  /** `npm start` as a newcomer runs it, on the test's DATA_DIR; resolves with its banner once printed. */
  async function start(): Promise<string> {
    output = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await until('the banner', async () => /New key pair/.test(output), 90_000, 100, () => output);
    return output;
  }

  async function stop(): Promise<void> {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }

  beforeAll(async () => {
    const port = await freePort();
    env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.ADMIN_TOKEN;
    const banner = await start();
    exportLine = /^\s*(export BASE=.*)$/m.exec(banner)?.[1] ?? '';
  }, 120_000);

  afterAll(async () => {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('works verbatim with the values the banner printed', async () => {
    expect(exportLine).toContain('/sandbox/v1 KEY=');
    const run = await bash(`set -e\n${exportLine}\n${block}`);
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toContain('token ok');
    expect(run.out).toMatch(/timed account 1\d{7}/);
    // The last answer: 2,500.00 collected less the 1 % fee; 150,000.00 funded less the payout and its fee.
    const account = JSON.parse(run.out.trim().split('\n').at(-1)!);
    expect(account.collectionBalance).toBe(2475);
    expect(account.disbursmentBalance).toBeLessThan(150_000 - 5000);
  }, 90_000);

  it('stops at the token with the service\'s error when a value is wrong, instead of going on without one', async () => {
    const wrong = exportLine.replace(/SECRET=\S+/, 'SECRET=not-the-secret');
    const run = await bash(`${wrong}\n${block}`);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain('no accessToken');
    expect(run.err).toContain('E901');
    // Said, not thrown: no Node stack trace follows the message.
    expect(run.err).not.toMatch(/SyntaxError|\n\s+at /);
    expect(run.out).not.toContain('token ok');
    // Every later step says why it cannot go on.
    expect(run.err).toContain('no TOKEN: the token step above failed');
    expect(run.out).not.toContain('timed account');
  }, 90_000);

  it('after a restart, the command the banner names prints an export line that works verbatim (no ADMIN_TOKEN)', async () => {
    await stop();
    const banner = await start();
    expect(banner).not.toMatch(/export BASE=/);
    const command = /^\s*npm run cli -- (demo credentials.*)$/m.exec(banner)?.[1];
    expect(command, banner).toBeDefined();
    const issued = await new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...command!.trim().split(/\s+/)], { cwd: ROOT, env, timeout: 60_000 }, (err, out, errOut) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: String(out), err: String(errOut) }),
      );
    });
    expect(issued.code, issued.err).toBe(0);
    const again = /^\s*(export BASE=.*)$/m.exec(issued.out)?.[1];
    expect(again).toMatch(/KEY=\S{30} SECRET=\S{45} /);
    const run = await bash(`set -e\n${again}\n${block.replaceAll('first-', 'again-')}`);
    expect(run.code, `${run.out}\n${run.err}`).toBe(0);
    expect(run.out).toContain('token ok');
  }, 180_000);
});

// The real service as `npm start` starts it (src/server.ts: API and worker in one process) in a
// child process, every setting at its default except DATABASE_URL, PORT, HOST and what a part
// sets on top; ready once /health/ready answers 200.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { overTcp } from '../../src/db/embedded.ts';
import { freePort } from '../../src/lib/free-port.ts';
import { sleep } from './common.ts';

/** The repository's root: the service runs from there. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Every variable the service reads (src/config.ts): none may leak in from the bench's own
// environment, so the service runs with `npm start`'s defaults.
const SERVICE_VARIABLES = [
  'PORT', 'HOST', 'DATABASE_URL', 'DATA_DIR', 'ADMIN_TOKEN', 'JWT_SECRET', 'LOG_LEVEL', 'RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_STORE',
  'APP_MODE', 'BODY_LIMIT_BYTES', 'BATCH_BODY_LIMIT_BYTES', 'BATCH_COPY_MIN_BYTES', 'INITIATE_BATCH_ROWS', 'IDEMPOTENCY_RETENTION_HOURS', 'WORKER_CONCURRENCY', 'DB_POOL_SIZE',
  'MAX_CONNECTIONS', 'MAX_CONNECTIONS_PER_ADDRESS', 'HEADERS_TIMEOUT_MS',
  'KEY_STATUS_CACHE_MS', 'READ_CACHE_MS', 'SHUTDOWN_GRACE_MS', 'WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_LEASE_MS',
  'WEBHOOK_CONCURRENCY', 'WEBHOOK_PER_HOST_CONCURRENCY', 'TIMED_ACCOUNT_MINUTES', 'PAYOUT_TIMEOUT_SECONDS', 'PAYOUT_REVERSAL_SECONDS',
  'SCHEDULE_MAX_DAYS', 'PUBLIC_BASE_URL', 'NODE_OPTIONS',
];

export interface Service {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<number | null>;
  stderrTail: () => string;
}

/** `extraEnv`: settings for this run on top of npm start's defaults (the disbursements part gives none). */
export async function startService(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SERVICE_VARIABLES) delete env[name];
  // A Unix-socket URL (the bench's embedded server) goes to the service in its TCP form: started
  // alone, `npm start` copies large uploads to its embedded server over TCP (runtime.ts), and
  // given a socket URL it could not. Every other statement of the service then uses TCP too.
  // (Tested as text: a URL with several hosts, as libpq takes them, is no WHATWG URL.)
  const serviceUrl = /[?&]host=/.test(databaseUrl) ? overTcp(databaseUrl) : databaseUrl;
  Object.assign(env, { DATABASE_URL: serviceUrl, PORT: String(port), HOST: '127.0.0.1', ...extraEnv });
  // stdout carries the request log (LOG_LEVEL's default, info): read and dropped, as a terminal would.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} during start-up: ${stderr}`);
    if (performance.now() - started > 120_000) throw new Error('service not ready within 120 s');
    const ready = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
    if (ready) return { child, baseUrl, exited, stderrTail: () => stderr };
    await sleep(50);
  }
}

export async function stopService(service: Service): Promise<number | null> {
  if (service.child.exitCode !== null) return service.child.exitCode;
  service.child.kill('SIGTERM');
  return service.exited;
}

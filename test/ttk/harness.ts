// The Mojaloop Testing Toolkit (npm ml-testing-toolkit 18.13.0) as the switch our payer DFSP
// talks to: one TTK per test run, started by the global setup (setupTtk), shared by the test
// files one at a time (acquireTtk: its rules and user config are global state).
//
// - Installed on first use into test/ttk/node_modules (npm ci of test/ttk/package-lock.json),
//   not by the root's npm install: ensureTtkInstalled().
// - Runs on Node >= 22 from a temporary directory holding its spec_files and secrets (TTK reads
//   and writes them relative to its working directory), so the installed package is never
//   modified; only FSPIOP 1.0, 1.1 and 2.0 are loaded.
// - test/ttk/preload.cjs binds it to 127.0.0.1, moves its admin port (fixed 5050) to a free one,
//   stops it when the test run's process dies, turns off keep-alive on its callbacks (it leaks
//   memory per callback on a kept connection) and adds what test/ttk/rules.ts needs.
// - Rules: test/ttk/rules.ts; TTK's own default rules (random, slow) are replaced.
// - JWS signing of its callbacks and mutual TLS: StartTtkOptions.jws / inboundMtls,
//   Ttk.signCallbacks(), Ttk.setCallbackClientCertificate(); test keys: mojaloopTestCertificates().
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../src/lib/free-port.ts';
import { acquireLock } from './lock.ts';
import { defaultRules, type RuleKind, type TtkRule } from './rules.ts';

export const TTK_DIR = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE_DIR = path.join(TTK_DIR, 'node_modules', 'ml-testing-toolkit');
const INSTALLED_MARKER = path.join(TTK_DIR, 'node_modules', '.harness-installed');
const RULES_FILE = 'harness.json';

/** What the global setup hands to the test files (vitest's provide/inject). */
export interface TtkRunInfo {
  /** FSPIOP API of the switch: our MOJALOOP_SWITCH_URL. */
  fspiopUrl: string;
  /** TTK's admin API (rules, config, history). */
  adminUrl: string;
  /** TTK's working directory (spec_files/, ttk.log); removed at teardown. */
  runDir: string;
  /** TTK's output. */
  logFile: string;
  pid: number;
  /** The cross-process lock taken by acquireTtk(). */
  lockDir: string;
  /** Set instead of the above when TTK could not be installed or started. */
  error?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    ttk: TtkRunInfo;
  }
}

function tail(text: string, chars = 3000): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

function readTail(file: string): string {
  try {
    return tail(fs.readFileSync(file, 'utf8'));
  } catch {
    return '(no output)';
  }
}

// ---- installation ----

function lockfileHash(): string {
  return createHash('sha256').update(fs.readFileSync(path.join(TTK_DIR, 'package-lock.json'))).digest('hex');
}

function installed(): boolean {
  try {
    return fs.readFileSync(INSTALLED_MARKER, 'utf8') === lockfileHash() && fs.existsSync(path.join(PACKAGE_DIR, 'src', 'index.js'));
  } catch {
    return false;
  }
}

/**
 * Installs test/ttk (npm ci --ignore-scripts) unless already done for the current
 * package-lock.json. Safe when several processes call it at once (a lock; the others wait).
 * Takes about 40-55 s and 460 MB the first time.
 */
export async function ensureTtkInstalled(options: { timeoutMs?: number } = {}): Promise<void> {
  if (installed()) return;
  const timeoutMs = options.timeoutMs ?? (Number(process.env.TTK_INSTALL_TIMEOUT_MS) || 300_000);
  const lockDir = path.join(os.tmpdir(), `ttk-install-${createHash('sha1').update(TTK_DIR).digest('hex').slice(0, 12)}.lock`);
  const release = await acquireLock(lockDir, { timeoutMs: timeoutMs + 30_000, what: 'TTK installation', label: `npm ci in ${TTK_DIR}` });
  try {
    if (installed()) return;
    fs.rmSync(INSTALLED_MARKER, { force: true });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const child = spawn('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
        cwd: TTK_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group, killed whole on timeout
        env: { ...process.env, npm_config_update_notifier: 'false' },
      });
      const collect = (chunk: Buffer) => {
        output = tail(output + chunk.toString(), 8000);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        reject(new Error(`Installing the Testing Toolkit (npm ci in ${TTK_DIR}) took more than ${timeoutMs / 1000} s and was stopped. Output:\n${tail(output)}`));
      }, timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`Could not run npm ci in ${TTK_DIR}: ${err.message}`));
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`Installing the Testing Toolkit (npm ci in ${TTK_DIR}) failed (${signal ?? `exit code ${code}`}). Output:\n${tail(output)}`));
      });
    });
    fs.writeFileSync(INSTALLED_MARKER, lockfileHash());
  } finally {
    release();
  }
}

// ---- starting and stopping ----

/** A Node >= 22 (TTK's engines): this one, or the root's devDependency `node`. */
function nodeBinary(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const candidate = path.resolve(TTK_DIR, '..', '..', 'node_modules', '.bin', 'node');
  if (fs.existsSync(candidate)) return candidate;
  throw new Error(`The Testing Toolkit needs Node >= 22; this is ${process.version} and ${candidate} is missing (npm install at the root).`);
}

/** FSPIOP versions TTK serves (fewer load faster). */
const API_VERSIONS = new Set(['1.0', '1.1', '2.0']);

/** The user config every test starts from (ttk.reset()): TTK's, with callbacks going nowhere. */
function baselineUserConfig(): Record<string, unknown> {
  const config = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'spec_files', 'user_config.json'), 'utf8')) as Record<string, unknown>;
  return {
    ...config,
    CALLBACK_ENDPOINT: 'http://127.0.0.1:9', // the discard port: a test sets its own
    CALLBACK_RESOURCE_ENDPOINTS: { enabled: false, endpoints: [] },
    SEND_CALLBACK_ENABLE: true,
    FSPID: 'switch',
    HUB_ONLY_MODE: false,
    VERSIONING_SUPPORT_ENABLE: true,
    TRANSFERS_VALIDATION_WITH_PREVIOUS_QUOTES: false,
    TRANSFERS_VALIDATION_ILP_PACKET: false,
    TRANSFERS_VALIDATION_CONDITION: false,
    VALIDATE_INBOUND_JWS: false,
    VALIDATE_INBOUND_PUT_PARTIES_JWS: false,
    JWS_SIGN: false,
    JWS_SIGN_PUT_PARTIES: false,
    CLIENT_MUTUAL_TLS_ENABLED: false,
    CLIENT_TLS_CREDS: [],
    ILP_SECRET: 'secret',
  };
}

function numbered(rules: TtkRule[]): TtkRule[] {
  return rules.map((r, i) => ({ ...r, ruleId: i + 1, priority: 1 }));
}

function prepareRunDir(runDir: string, fspiopPort: number, options: StartTtkOptions, connectionManagerUrl: string | undefined): void {
  fs.cpSync(path.join(PACKAGE_DIR, 'spec_files'), path.join(runDir, 'spec_files'), { recursive: true });
  const systemFile = path.join(runDir, 'spec_files', 'system_config.json');
  const system = JSON.parse(fs.readFileSync(systemFile, 'utf8')) as Record<string, unknown> & { API_DEFINITIONS: Array<{ type: string; version: string }> };
  system.API_PORT = fspiopPort;
  system.API_DEFINITIONS = system.API_DEFINITIONS.filter((d) => d.type === 'fspiop' && API_VERSIONS.has(d.version));
  system.SERVER_LOGS = { ENABLED: false };
  if (connectionManagerUrl) system.CONNECTION_MANAGER = { ENABLED: true, API_URL: connectionManagerUrl, AUTH_ENABLED: false };
  const secrets = path.join(runDir, 'secrets');
  if (options.jws) {
    fs.mkdirSync(secrets, { recursive: true });
    fs.writeFileSync(path.join(secrets, 'privatekey.pem'), options.jws.privateKeyPem);
    if (options.jws.certificatePem) fs.writeFileSync(path.join(secrets, 'publickey.cer'), options.jws.certificatePem);
  }
  if (options.inboundMtls) {
    system.INBOUND_MUTUAL_TLS_ENABLED = true;
    fs.mkdirSync(path.join(secrets, 'tls'), { recursive: true });
    fs.writeFileSync(path.join(secrets, 'tls', 'hub_server_cert.pem'), options.inboundMtls.serverCertPem);
    fs.writeFileSync(path.join(secrets, 'tls', 'hub_server_key.key'), options.inboundMtls.serverKeyPem);
    fs.writeFileSync(path.join(secrets, 'tls', 'hub_server_cacert.pem'), options.inboundMtls.caPem);
    fs.writeFileSync(path.join(secrets, 'tls', 'hub_client_key.key'), options.inboundMtls.serverKeyPem); // read, unused here
  }
  fs.writeFileSync(systemFile, JSON.stringify(system, null, 2));
  // The connection manager's loop reads JWS_SIGN once, from the file as it is at start (and caches
  // it): true there makes it load the key; ttk.reset() turns signing off until a test asks.
  fs.writeFileSync(path.join(runDir, 'spec_files', 'user_config.json'), JSON.stringify({ ...baselineUserConfig(), JWS_SIGN: Boolean(options.jws) }, null, 2));
  const initial: Record<RuleKind, TtkRule[]> = { callback: defaultRules(), validation: [], response: [] };
  for (const kind of ['callback', 'validation', 'response'] as const) {
    const dir = path.join(runDir, 'spec_files', `rules_${kind}`);
    fs.writeFileSync(path.join(dir, RULES_FILE), JSON.stringify(numbered(initial[kind]), null, 2));
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ activeRulesFile: RULES_FILE }));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface RunningTtk {
  info: TtkRunInfo;
  /** Stops TTK (SIGTERM, SIGKILL after 5 s) and removes its directory (kept if TTK_KEEP_DIR=1). */
  stop(): Promise<void>;
}

export interface StartTtkOptions {
  /** Give up (and kill TTK) when it has not started after this long. Default 30 s. */
  startTimeoutMs?: number;
  /** TTK's log level (LOG_LEVEL of central-services-logger): default TTK_LOG_LEVEL or 'info'. */
  logLevel?: string;
  /** Extra node options for TTK (default: TTK_NODE_ARGS, split on spaces), e.g. --trace-gc. */
  nodeArgs?: string[];
  /**
   * TTK's JWS signing key (RS256 or ES256 PEM), so that setUserConfig({ JWS_SIGN: true }) signs
   * its callbacks (JWS_SIGN_PUT_PARTIES too for PUT /parties). setupTtk's default: the test key of
   * test/fixtures/mojaloop-tls (jws-ttk.key; verify with jws-ttk.pem).
   */
  jws?: { privateKeyPem: string; certificatePem?: string };
  /**
   * TTK's FSPIOP port over TLS (fspiopUrl https://), requiring a client certificate signed by
   * caPem. Changes the whole instance: for a TTK of a test file's own (startTtk), not the shared one.
   */
  inboundMtls?: { caPem: string; serverCertPem: string; serverKeyPem: string };
}

/** The test-only certificates and keys of test/fixtures/mojaloop-tls (see its README). */
export function mojaloopTestCertificates() {
  const dir = path.resolve(TTK_DIR, '..', 'fixtures', 'mojaloop-tls');
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const pair = (name: string) => ({ certPem: read(`${name}.pem`), keyPem: read(`${name}.key`) });
  return {
    caPem: read('ca.pem'),
    ttkServer: pair('ttk-server'),
    ttkClient: pair('ttk-client'),
    dfspServer: pair('dfsp-server'),
    dfspClient: pair('dfsp-client'),
    jws: pair('jws-ttk'),
  };
}

/**
 * TTK reads its JWS key and its TLS certificates only in its connection-manager mode
 * (src/lib/configuration-providers/mb-connection-manager.js: system config CONNECTION_MANAGER
 * ENABLED; files secrets/... relative to its working directory). This answers the little it must
 * get from a connection manager: its environment, and the hub CA that client certificates must be
 * signed by. Everything else gets a 404, which TTK logs and goes on.
 */
async function startConnectionManagerStub(caPem: string | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && req.url === '/api/environments') return reply(200, [{ id: 1, name: 'TESTING-TOOLKIT' }]);
    if (req.method === 'GET' && req.url === '/api/environments/1/ca/rootCert' && caPem) return reply(200, { certificate: caPem });
    reply(404, { error: 'not in the test stub' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

const RUN_DIR_PREFIX = 'ttk-run-';

/** Directories of runs that were killed (their process is gone): TTK stopped with them. */
function removeAbandonedRunDirs(): void {
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (!entry.startsWith(RUN_DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), entry);
    try {
      try {
        process.kill(Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8')), 0);
      } catch (err) {
        // ESRCH: its owner is gone. ENOENT: no owner written (yet): left alone unless an hour old.
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ESRCH' || (code === 'ENOENT' && Date.now() - fs.statSync(dir).mtimeMs > 3_600_000)) fs.rmSync(dir, { recursive: true, force: true });
      }
    } catch {
      // removed by someone else meanwhile
    }
  }
}

/** Starts one TTK in a new temporary directory; resolves once both its ports answer. */
export async function startTtk(options: StartTtkOptions = {}): Promise<RunningTtk> {
  const startTimeoutMs = options.startTimeoutMs ?? (Number(process.env.TTK_START_TIMEOUT_MS) || 30_000);
  if (!fs.existsSync(path.join(PACKAGE_DIR, 'src', 'index.js'))) throw new Error(`The Testing Toolkit is not installed in ${TTK_DIR} (ensureTtkInstalled()).`);
  removeAbandonedRunDirs();
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), RUN_DIR_PREFIX));
  fs.writeFileSync(path.join(runDir, 'owner.pid'), String(process.pid));
  const removeRunDir = () => {
    if (process.env.TTK_KEEP_DIR !== '1') fs.rmSync(runDir, { recursive: true, force: true });
  };
  let child: ChildProcess | undefined;
  let stub: Awaited<ReturnType<typeof startConnectionManagerStub>> | undefined;
  try {
    const [adminPort, fspiopPort] = [await freePort(), await freePort()];
    if (options.jws || options.inboundMtls) stub = await startConnectionManagerStub(options.inboundMtls?.caPem);
    prepareRunDir(runDir, fspiopPort, options, stub?.url);
    const logFile = path.join(runDir, 'ttk.log');
    const log = fs.openSync(logFile, 'a');
    const started = Date.now();
    const nodeArgs = options.nodeArgs ?? (process.env.TTK_NODE_ARGS ?? '').split(' ').filter(Boolean);
    child = spawn(nodeBinary(), [...nodeArgs, '--require', path.join(TTK_DIR, 'preload.cjs'), path.join(PACKAGE_DIR, 'src', 'index.js')], {
      cwd: runDir,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        TTK_ADMIN_PORT: String(adminPort),
        TTK_PARENT_PID: String(process.pid),
        TTK_ROOT: runDir,
        LOG_LEVEL: options.logLevel ?? process.env.TTK_LOG_LEVEL ?? 'info',
        NODE_ENV: 'test',
      },
    });
    fs.closeSync(log);
    let exit: string | undefined;
    child.once('error', (err) => {
      exit = err.message;
    });
    child.once('exit', (code, signal) => {
      exit = signal ?? `exit code ${code}`;
    });
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    for (;;) {
      if (exit) throw new Error(`The Testing Toolkit stopped while starting (${exit}). Its output:\n${readTail(logFile)}`);
      if (Date.now() - started > startTimeoutMs) {
        await stopChild(child);
        throw new Error(`The Testing Toolkit did not start within ${startTimeoutMs / 1000} s. Its output:\n${readTail(logFile)}`);
      }
      if ((await canConnect(fspiopPort)) && (await canConnect(adminPort))) {
        const res = await fetch(`${adminUrl}/api/config/user`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        if (res?.ok) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const running = child;
    const info: TtkRunInfo = {
      fspiopUrl: `${options.inboundMtls ? 'https' : 'http'}://127.0.0.1:${fspiopPort}`,
      adminUrl,
      runDir,
      logFile,
      pid: running.pid!,
      lockDir: path.join(runDir, 'lock'),
    };
    await new Ttk(info).reset(); // JWS_SIGN back to false (see prepareRunDir)
    const connectionManager = stub;
    let stopped: Promise<void> | undefined;
    return {
      info,
      stop() {
        stopped ??= stopChild(running).then(async () => {
          await connectionManager?.close();
          removeRunDir();
        });
        return stopped;
      },
    };
  } catch (err) {
    if (child) await stopChild(child);
    await stub?.close();
    removeRunDir();
    throw err;
  }
}

/**
 * For the vitest global setup: installs TTK if needed, starts it, provides its addresses to the
 * test files (acquireTtk), and returns the teardown. Never throws: when TTK cannot be installed
 * or started, the other tests still run and acquireTtk() fails with the reason.
 */
export async function setupTtk(project: TestProject, options: StartTtkOptions & { installTimeoutMs?: number } = {}): Promise<() => Promise<void>> {
  let running: RunningTtk | undefined;
  try {
    await ensureTtkInstalled({ timeoutMs: options.installTimeoutMs });
    const { jws } = mojaloopTestCertificates();
    running = await startTtk({ jws: { privateKeyPem: jws.keyPem, certificatePem: jws.certPem }, ...options });
    project.provide('ttk', running.info);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    project.provide('ttk', { fspiopUrl: '', adminUrl: '', runDir: '', logFile: '', pid: 0, lockDir: '', error: message });
  }
  return async () => {
    await running?.stop();
  };
}

// ---- the admin API ----

export interface TtkHistoryRequest {
  timestamp?: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface TtkHistoryCallback extends TtkHistoryRequest {
  /** Where TTK sent it (CALLBACK_ENDPOINT + path). */
  url: string;
}

export interface Matcher {
  method?: string;
  /** The exact path, or a pattern. */
  path?: string | RegExp;
}

function matches(item: { method: string; path: string }, m: Matcher): boolean {
  if (m.method && item.method.toLowerCase() !== m.method.toLowerCase()) return false;
  if (m.path instanceof RegExp) return m.path.test(item.path);
  return m.path === undefined || item.path === m.path;
}

/** A client of one running TTK's admin API. */
export class Ttk {
  readonly fspiopUrl: string;
  readonly adminUrl: string;
  readonly logFile: string;

  constructor(info: TtkRunInfo) {
    this.fspiopUrl = info.fspiopUrl;
    this.adminUrl = info.adminUrl;
    this.logFile = info.logFile;
  }

  private async admin(method: string, pathname: string, body?: unknown): Promise<unknown> {
    const res = await fetch(this.adminUrl + pathname, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`TTK admin ${method} ${pathname}: HTTP ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** The user config in force. */
  async getUserConfig(): Promise<Record<string, unknown>> {
    return ((await this.admin('GET', '/api/config/user')) as { runtime: Record<string, unknown> }).runtime;
  }

  /**
   * Changes some user config keys (CALLBACK_ENDPOINT, FSPID, DEFAULT_USER_FSPID,
   * SEND_CALLBACK_ENABLE, JWS_SIGN, ILP_SECRET...), keeping the others. (TTK's PUT replaces the
   * whole config, so this reads it first.)
   */
  async setUserConfig(patch: Record<string, unknown>): Promise<void> {
    const current = await this.getUserConfig();
    await this.admin('PUT', '/api/config/user', { ...current, ...patch });
  }

  /**
   * TTK's callbacks to `host` (host:port exactly as in CALLBACK_ENDPOINT, e.g. 127.0.0.1:8443) go
   * over TLS with this client certificate. TTK then calls https:// even when CALLBACK_ENDPOINT
   * says http://, and does not check our server's certificate. A host that does not match sends
   * plain HTTP (TTK only logs an error).
   */
  async setCallbackClientCertificate(host: string, certPem: string, keyPem: string): Promise<void> {
    await this.setUserConfig({ CLIENT_MUTUAL_TLS_ENABLED: true, CLIENT_TLS_CREDS: [{ HOST: host, CERT: certPem, KEY: keyPem }] });
  }

  /** Signs TTK's callbacks (FSPIOP-Signature, RS256 with the key it started with; PUT /parties too). */
  async signCallbacks(on = true): Promise<void> {
    await this.setUserConfig({ JWS_SIGN: on, JWS_SIGN_PUT_PARTIES: on });
  }

  /** Replaces all callback rules (TTK's raw format; no defaults added). */
  async setCallbackRules(rules: TtkRule[]): Promise<void> {
    await this.admin('PUT', `/api/rules/files/callback/${RULES_FILE}`, numbered(rules));
  }

  /** Replaces all validation rules (these send the error callbacks). */
  async setValidationRules(rules: TtkRule[]): Promise<void> {
    await this.admin('PUT', `/api/rules/files/validation/${RULES_FILE}`, numbered(rules));
  }

  /** Replaces all response rules (the switch's synchronous answers; none: 202 Accepted). */
  async setResponseRules(rules: TtkRule[]): Promise<void> {
    await this.admin('PUT', `/api/rules/files/response/${RULES_FILE}`, numbered(rules));
  }

  /**
   * Installs rules built with test/ttk/rules.ts (each goes where its `type` says), in front of
   * defaultRules(); replaces the rules of any earlier setRules(). First match wins.
   */
  async setRules(rules: TtkRule[], options: { defaults?: boolean } = {}): Promise<void> {
    const of = (kind: RuleKind) => rules.filter((r) => r.type === kind);
    await Promise.all([
      this.setCallbackRules([...of('callback'), ...(options.defaults === false ? [] : defaultRules())]),
      this.setValidationRules(of('validation')),
      this.setResponseRules(of('response')),
    ]);
  }

  /** Back to the start: default rules only, the baseline user config, empty history. */
  async reset(): Promise<void> {
    await this.setRules([]);
    await this.admin('PUT', '/api/config/user', baselineUserConfig());
    await this.clearHistory();
  }

  /** The requests TTK received (kept 10 minutes), oldest first. */
  async requests(): Promise<TtkHistoryRequest[]> {
    return (await this.admin('GET', '/api/history/requests')) as TtkHistoryRequest[];
  }

  /** The callbacks TTK sent (or would have sent: SEND_CALLBACK_ENABLE false), oldest first. */
  async callbacks(): Promise<TtkHistoryCallback[]> {
    return (await this.admin('GET', '/api/history/callbacks')) as TtkHistoryCallback[];
  }

  async clearHistory(): Promise<void> {
    await Promise.all([this.admin('DELETE', '/api/history/requests'), this.admin('DELETE', '/api/history/callbacks')]);
  }

  /** Waits for a request TTK received (polls its history). */
  async waitForRequest(m: Matcher, timeoutMs = 5000): Promise<TtkHistoryRequest> {
    return this.poll(() => this.requests(), m, timeoutMs, 'request');
  }

  /** Waits for a callback TTK sent (polls its history). */
  async waitForCallback(m: Matcher, timeoutMs = 5000): Promise<TtkHistoryCallback> {
    return this.poll(() => this.callbacks(), m, timeoutMs, 'callback');
  }

  private async poll<T extends { method: string; path: string }>(list: () => Promise<T[]>, m: Matcher, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await list()).find((item) => matches(item, m));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`TTK: no ${what} ${m.method ?? ''} ${m.path ?? ''} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export type AcquiredTtk = Ttk & {
  /** Lets the next test file have TTK. */
  release(): Promise<void>;
};

export interface AcquireOptions {
  /** Waiting for another test file to release TTK; default 100 s (the hook timeout is 120 s). */
  timeoutMs?: number;
  /** Shown to a file waiting for this one. */
  label?: string;
  /** Sets CALLBACK_ENDPOINT at once (e.g. http://127.0.0.1:<port>/fspiop). */
  callbackEndpoint?: string;
}

/**
 * For a test file (beforeAll): takes the run's TTK for this file alone, reset to the defaults.
 * Call release() in afterAll.
 */
export async function acquireTtk(options: AcquireOptions = {}): Promise<AcquiredTtk> {
  const { inject, expect } = await import('vitest');
  const info = inject('ttk');
  if (!info) throw new Error("No Testing Toolkit in this run: TEST_TTK=off, or test/global-setup.ts does not call setupTtk(project) from './ttk/harness.ts'.");
  if (info.error) throw new Error(`The Testing Toolkit is unavailable in this run: ${info.error}`);
  const label = options.label ?? expect.getState().testPath ?? `pid ${process.pid}`;
  const release = await acquireLock(info.lockDir, { timeoutMs: options.timeoutMs ?? 100_000, what: 'Testing Toolkit', label });
  try {
    const ttk = new Ttk(info) as AcquiredTtk;
    await ttk.reset();
    if (options.callbackEndpoint) await ttk.setUserConfig({ CALLBACK_ENDPOINT: options.callbackEndpoint });
    ttk.release = async () => release();
    return ttk;
  } catch (err) {
    release();
    throw err;
  }
}

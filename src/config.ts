// Environment → typed, validated configuration. Fails fast with a message that names the
// variable and the value it expected, so a typo never turns into a half-working server.
import { createPublicKey } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseDatabaseHosts } from './db/hosts.ts';

export type Mode = 'sandbox' | 'production';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_POOLER=transaction: DATABASE_URL is a pooler in transaction mode (PgBouncer); then
   * DATABASE_DIRECT_URL (required) reaches PostgreSQL itself for what needs a session: migrations
   * (a session advisory lock), LISTEN (the webhook dispatcher, the job queue's runner).
   */
  databasePooler: 'transaction' | undefined;
  databaseDirectUrl: string | undefined;
  /** DATABASE_REPLICA_URL: read replicas (one or more URLs, separated by commas or spaces) for list, analytics, statement and console reads. */
  databaseReplicaUrls: string[];
  /** A replica more than this far behind the primary (DATABASE_REPLICA_MAX_LAG_SECONDS) is skipped, as is one that is down. */
  databaseReplicaMaxLagSeconds: number;
  dataDir: string;
  adminToken: string | undefined;
  jwtSecret: string | undefined;
  logLevel: string;
  rateLimitPerSecond: number;
  rateLimitStore: 'memory' | 'postgres';
  mode: Mode;
  bodyLimitBytes: number;
  /** The body limit of batch uploads (E8, addFile): 50,000 lines at the longest field lengths. */
  batchBodyLimitBytes: number;
  /** E8 bodies at least this large are copied into the database while they arrive (disbursements/upload.ts). */
  batchCopyMinBytes: number;
  /**
   * Connections open at once (MAX_CONNECTIONS); past it a new connection is closed as soon as it
   * is accepted. Keep it below the process's file-descriptor limit (`ulimit -n`) less the
   * database pool and a margin: a process out of descriptors cannot reach its database either.
   */
  maxConnections: number;
  /**
   * Connections open at once from one client address (MAX_CONNECTIONS_PER_ADDRESS; an IPv6 client
   * counts by its /64), so that one client cannot take them all. Behind a load balancer or proxy
   * every connection comes from its address: raise it to MAX_CONNECTIONS there.
   */
  maxConnectionsPerAddress: number;
  /** How long a client has, from connecting, to send a request's headers (HEADERS_TIMEOUT_MS, at most 10 s). */
  headersTimeoutMs: number;
  accessTokenMinutes: number;
  idempotencyRetentionHours: number;
  /**
   * Financial writes without a valid X-Idempotency-Key are refused with 400
   * (IDEMPOTENCY_REQUIRED; default on in production mode, off in sandbox mode), as the gateway's
   * documentation makes the key mandatory there.
   */
  idempotencyRequired: boolean;
  /** Jobs run at once per worker. 0: `npm start` runs the API alone (no worker in the process). */
  workerConcurrency: number;
  dbPoolSize: number;
  /** How long a revoked key's tokens may still pass on another process (cache of key status). */
  keyStatusCacheMs: number;
  /** How long a process serves read-mostly reference data (E10 limits) from memory. */
  readCacheMs: number;
  shutdownGraceMs: number;
  /** Delay before each webhook delivery attempt: [0] before the first, [n] after the n-th failure. */
  webhookRetryScheduleMs: number[];
  /** A delivery attempt must answer 2xx within this time. */
  webhookTimeoutMs: number;
  /** How long a claimed delivery belongs to its worker; after it another worker re-claims it. */
  webhookLeaseMs: number;
  /** Delivery attempts in flight per worker process, and per callback host within that. */
  webhookConcurrency: number;
  webhookPerHostConcurrency: number;
  /** How long a request-to-pay's timed account accepts payment. */
  timedAccountMinutes: number;
  /** E12s that arrive together (keyed or not) share one insert of at most this many rows; 1: each alone. */
  initiateBatchRows: number;
  /** Sandbox connector: how long a timing-out payout (suffix 9904) waits before it fails. */
  payoutTimeoutSeconds: number;
  /** Sandbox connector: how long after success a reversing payout (suffix 9905) is reversed. */
  payoutReversalSeconds: number;
  /**
   * How far ahead a batch may be scheduled (SCHEDULE_MAX_DAYS, default 365): its money is debited
   * at transferFunds and waits until the day, so the wait is bounded.
   */
  scheduleMaxDays: number;
  /**
   * Where customers reach this service (PUBLIC_BASE_URL, e.g. https://pay.example.mw): the origin
   * of hosted checkout and set-password links. Required in production mode; unset in sandbox mode:
   * taken from each request's protocol and Host.
   */
  publicBaseUrl: string | undefined;
  /**
   * Where customers open hosted checkout pages (PUBLIC_CHECKOUT_URL, e.g. https://checkout.pay.mw,
   * as the gateway has checkout.onekhusa.com): the origin of the initiate answer's checkoutUrl.
   * The page is served at /checkout/pay and at the gateway's /requestToPay/initiate. Unset:
   * PUBLIC_BASE_URL's origin (else the request's).
   */
  publicCheckoutUrl: string | undefined;
  /**
   * Where e-mail goes out (SMTP_URL, e.g. smtp://user:pass@mail.example.mw:587; smtps:// for
   * implicit TLS). Unset: e-mails stay in the outbox as 'held' for the operator to read. It holds
   * a password: never log it.
   */
  smtpUrl: string | undefined;
  /** The From of every e-mail (SMTP_FROM). */
  smtpFrom: string;
  /** How long a set-password invitation link works (INVITATION_HOURS). */
  invitationHours: number;
  /** A console session unused this long ends (CONSOLE_IDLE_MINUTES, default 30). */
  consoleIdleMinutes: number;
  /** A console session ends this long after sign-in, however busy (CONSOLE_SESSION_HOURS, default 12). */
  consoleSessionHours: number;
  /**
   * Administrators and approvers must enrol an authenticator before the console lets them do
   * anything else, and sign in with its codes (CONSOLE_REQUIRE_2FA; default on in production mode,
   * off in sandbox mode, where anyone may still enrol).
   */
  consoleRequireTwoFactor: boolean;
  /** Which browser origins may call the merchant API (CORS_ALLOWED_ORIGINS; http/cors.ts). */
  corsAllowedOrigins: CorsOrigins;
  mojaloop: MojaloopConfig | undefined;
}

/**
 * CORS_ALLOWED_ORIGINS: `off` (no CORS headers), `any` (`*`: every origin), `localhost` (the
 * sandbox default: http(s)://localhost, 127.0.0.1 or [::1] on any port, so a browser app in
 * development works out of the box) or `exact` origins, serialised as browsers send them.
 */
export type CorsOrigins = { kind: 'off' } | { kind: 'any' } | { kind: 'localhost' } | { kind: 'exact'; origins: string[] };

/**
 * The Mojaloop rail (src/rails/mojaloop/, product.md §16), present when MOJALOOP_SWITCH_URL,
 * MOJALOOP_FSP_ID and MOJALOOP_CONNECTOR_IDS are all set. docs/operations.md lists every setting.
 */
export interface MojaloopConfig {
  /** The switch's FSPIOP base URL (MOJALOOP_SWITCH_URL), without a trailing slash. */
  switchUrl: string;
  /** Our DFSP's id on the switch (MOJALOOP_FSP_ID): fspiop-source of what we send. */
  fspId: string;
  /** Connector ids whose payouts (and collections) go over Mojaloop (MOJALOOP_CONNECTOR_IDS). */
  connectorIds: number[];
  /** The FSPIOP version we send (MOJALOOP_API_VERSION, 1.0 or 1.1); we accept both. */
  apiVersion: '1.0' | '1.1';
  /** A transfer's expiration, from when it is sent (MOJALOOP_TRANSFER_EXPIRY_SECONDS). */
  transferExpirySeconds: number;
  /**
   * How long to wait for a callback (MOJALOOP_CALLBACK_SECONDS): a lookup or quote unanswered this
   * long is asked again; a transfer unanswered this long past its expiration is asked about with
   * GET /transfers/{id}, again every this long until the switch answers.
   */
  callbackSeconds: number;
  /** The switch's own fspiop-source, on answers it gives itself such as GET /transfers/{id} (MOJALOOP_SWITCH_FSP_ID). */
  switchFspId: string;
  /**
   * How long past its expiration a transfer may stay unanswered before ledger verify and the
   * rail's health report it for an operator (MOJALOOP_IN_FLIGHT_BOUND_SECONDS).
   */
  inFlightBoundSeconds: number;
  /** Requests of a lookup or a quote before the payout fails with F108 (MOJALOOP_LOOKUP_ATTEMPTS). */
  lookupAttempts: number;
  /** How long one request to the switch may take (MOJALOOP_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Mutual TLS with the switch (MOJALOOP_TLS_CERT, _KEY, _CA: PEM files): our outbound requests and the FSPIOP listener. */
  tls: { certPem: string; keyPem: string; caPem: string; port: number; host: string } | undefined;
  /** Our JWS signing key (MOJALOOP_JWS_KEY, a PEM file): every request and callback we send with a body is signed. */
  jwsPrivateKeyPem: string | undefined;
  /** Senders' JWS public keys by fspId (MOJALOOP_JWS_PUBLIC_KEYS, a folder of <fspId>.pem): when set, every inbound message with a body must be signed. */
  jwsPublicKeys: Map<string, string> | undefined;
  /**
   * The payee side's ILP secret (MOJALOOP_ILP_SECRET, at least 32 characters): a quote's fulfilment
   * is HMAC-SHA256 of its ILP packet with it, computed again when the transfer arrives, so it is
   * never stored. Required in production; the sandbox derives a fixed one from the FSP id.
   */
  ilpSecret: string;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

const DURATION = /^(\d+)(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "0,5s,5m,30m,2h" → milliseconds; at most 20 steps of at most 24 h each. */
function durations(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const raw = optional(env, name) ?? fallback;
  const steps = raw.split(',').map((part) => {
    const match = DURATION.exec(part.trim());
    const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? 'ms'] : NaN;
    if (!Number.isFinite(ms) || ms > 86_400_000) throw new ConfigError(`${name} must be a comma-separated list of durations such as 0,5s,5m,2h (each at most 24h), got "${raw}"`);
    return ms;
  });
  if (steps.length === 0 || steps.length > 20) throw new ConfigError(`${name} must have 1 to 20 steps, got ${steps.length}`);
  return steps;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if (['true', '1', 'on', 'yes'].includes(value)) return true;
  if (['false', '0', 'off', 'no'].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw.slice(0, 40)}"`);
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function pemFile(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = optional(env, name);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name} must name a readable PEM file, got "${file}" (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (!text.includes('-----BEGIN ')) throw new ConfigError(`${name} must name a PEM file, and "${file}" holds no PEM block`);
  return text;
}

function jwsPublicKeys(env: NodeJS.ProcessEnv): Map<string, string> | undefined {
  const folder = optional(env, 'MOJALOOP_JWS_PUBLIC_KEYS');
  if (folder === undefined) return undefined;
  let names: string[];
  try {
    names = readdirSync(folder).filter((f) => f.endsWith('.pem'));
  } catch {
    throw new ConfigError(`MOJALOOP_JWS_PUBLIC_KEYS must name a readable folder of <fspId>.pem files, got "${folder}"`);
  }
  if (names.length === 0) throw new ConfigError(`MOJALOOP_JWS_PUBLIC_KEYS: "${folder}" holds no <fspId>.pem file`);
  const keys = new Map(names.map((f) => [f.slice(0, -4), readFileSync(path.join(folder, f), 'utf8')]));
  // A file that holds no public key would refuse every message of its sender: say so at start.
  for (const [fspId, pem] of keys) {
    try {
      createPublicKey(pem);
    } catch {
      throw new ConfigError(`MOJALOOP_JWS_PUBLIC_KEYS: ${fspId}.pem holds no public key or certificate`);
    }
  }
  return keys;
}

function loadMojaloop(env: NodeJS.ProcessEnv, mode: Mode, host: string): MojaloopConfig | undefined {
  const names = ['MOJALOOP_SWITCH_URL', 'MOJALOOP_FSP_ID', 'MOJALOOP_CONNECTOR_IDS'];
  const given = names.filter((n) => optional(env, n) !== undefined);
  if (given.length === 0) return undefined;
  if (given.length < names.length) throw new ConfigError(`the Mojaloop rail needs ${names.join(', ')} together; missing ${names.filter((n) => !given.includes(n)).join(', ')}`);
  const switchUrl = optional(env, 'MOJALOOP_SWITCH_URL')!;
  if (!/^https?:\/\/[^\s?#@]+$/.test(switchUrl)) throw new ConfigError(`MOJALOOP_SWITCH_URL must be an http(s) URL such as https://switch.example.mw:4040, got "${switchUrl}"`);
  const fspId = optional(env, 'MOJALOOP_FSP_ID')!;
  if (!/^[A-Za-z0-9_.-]{1,32}$/.test(fspId)) throw new ConfigError(`MOJALOOP_FSP_ID must be 1 to 32 letters, digits, '.', '_' or '-', got "${fspId.slice(0, 40)}"`);
  const rawIds = optional(env, 'MOJALOOP_CONNECTOR_IDS')!;
  const connectorIds = rawIds.split(',').map((part) => part.trim());
  if (connectorIds.some((id) => !/^\d{1,9}$/.test(id))) throw new ConfigError(`MOJALOOP_CONNECTOR_IDS must be comma-separated connector ids such as 112400,212188, got "${rawIds}"`);
  const apiVersion = optional(env, 'MOJALOOP_API_VERSION') ?? '1.0';
  if (apiVersion !== '1.0' && apiVersion !== '1.1') throw new ConfigError(`MOJALOOP_API_VERSION must be 1.0 or 1.1, got "${apiVersion}"`);
  const tlsFiles = [pemFile(env, 'MOJALOOP_TLS_CERT'), pemFile(env, 'MOJALOOP_TLS_KEY'), pemFile(env, 'MOJALOOP_TLS_CA')];
  if (tlsFiles.some((f) => f !== undefined) && tlsFiles.some((f) => f === undefined)) throw new ConfigError('mutual TLS with the switch needs MOJALOOP_TLS_CERT, MOJALOOP_TLS_KEY and MOJALOOP_TLS_CA together');
  const [certPem, keyPem, caPem] = tlsFiles;
  // Money moves on what arrives there: in production only the switch, proven by its certificate, may call.
  if (mode === 'production' && certPem === undefined) throw new ConfigError('APP_MODE=production with the Mojaloop rail needs mutual TLS with the switch: set MOJALOOP_TLS_CERT, MOJALOOP_TLS_KEY and MOJALOOP_TLS_CA');
  return {
    switchUrl: switchUrl.replace(/\/+$/, ''),
    fspId,
    connectorIds: [...new Set(connectorIds.map(Number))],
    apiVersion,
    transferExpirySeconds: int(env, 'MOJALOOP_TRANSFER_EXPIRY_SECONDS', 60, 1, 86_400),
    callbackSeconds: int(env, 'MOJALOOP_CALLBACK_SECONDS', 30, 1, 3600),
    switchFspId: optional(env, 'MOJALOOP_SWITCH_FSP_ID') ?? 'switch',
    inFlightBoundSeconds: int(env, 'MOJALOOP_IN_FLIGHT_BOUND_SECONDS', 3600, 1, 7 * 86_400),
    lookupAttempts: int(env, 'MOJALOOP_LOOKUP_ATTEMPTS', 3, 1, 20),
    requestTimeoutMs: int(env, 'MOJALOOP_REQUEST_TIMEOUT_MS', 10_000, 100, 120_000),
    tls: certPem && keyPem && caPem ? { certPem, keyPem, caPem, port: int(env, 'MOJALOOP_TLS_PORT', 8444, 0, 65535), host: optional(env, 'MOJALOOP_TLS_HOST') ?? host } : undefined,
    jwsPrivateKeyPem: pemFile(env, 'MOJALOOP_JWS_KEY'),
    jwsPublicKeys: jwsPublicKeys(env),
    ilpSecret: ilpSecret(env, mode, fspId),
  };
}

function ilpSecret(env: NodeJS.ProcessEnv, mode: Config['mode'], fspId: string): string {
  const secret = optional(env, 'MOJALOOP_ILP_SECRET');
  if (secret !== undefined) {
    if (secret.length < 32) throw new ConfigError('MOJALOOP_ILP_SECRET must be at least 32 characters');
    return secret;
  }
  // Whoever knows the secret can fulfil our quotes' conditions: a production payee must choose its own.
  if (mode === 'production') throw new ConfigError('APP_MODE=production with the Mojaloop rail needs MOJALOOP_ILP_SECRET (at least 32 characters): the payee side signs its quotes with it');
  return `sandbox-ilp-secret:${fspId}:not-for-production`;
}

function databaseUrlOf(env: NodeJS.ProcessEnv, name = 'DATABASE_URL'): string | undefined {
  const databaseUrl = optional(env, name);
  return databaseUrl === undefined ? undefined : validDatabaseUrl(databaseUrl, name);
}

/** A postgres:// URL, with one host or several (db/hosts.ts); a ConfigError naming `name` otherwise. */
function validDatabaseUrl(databaseUrl: string, name: string): string {
  const shown = databaseUrl.replace(/:[^:@/]*@/, ':***@');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError(`${name} must start with postgres:// or postgresql://, got "${shown}"`);
  try {
    parseDatabaseHosts(databaseUrl);
  } catch (err) {
    throw new ConfigError(`${name} ${(err as Error).message}: "${shown}"`);
  }
  return databaseUrl;
}

type DatabaseSettings = Pick<Config, 'databaseUrl' | 'databasePooler' | 'databaseDirectUrl' | 'databaseReplicaUrls' | 'databaseReplicaMaxLagSeconds'>;

function databaseOf(env: NodeJS.ProcessEnv): DatabaseSettings {
  const databaseUrl = databaseUrlOf(env);
  const pooler = optional(env, 'DATABASE_POOLER');
  if (pooler !== undefined && pooler !== 'transaction') throw new ConfigError(`DATABASE_POOLER must be "transaction" (a pooler in transaction mode, such as PgBouncer's pool_mode=transaction) or unset, got "${pooler}"`);
  const databaseDirectUrl = databaseUrlOf(env, 'DATABASE_DIRECT_URL');
  if (pooler && (!databaseUrl || !databaseDirectUrl)) {
    throw new ConfigError('DATABASE_POOLER=transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL (PostgreSQL itself, for migrations and LISTEN, which a transaction pooler cannot carry)');
  }
  const replicas = (optional(env, 'DATABASE_REPLICA_URL') ?? '').split(/[\s,]+(?=postgres(?:ql)?:\/\/)|\s+/).filter(Boolean);
  replicas.forEach((url, i) => validDatabaseUrl(url, replicas.length > 1 ? `DATABASE_REPLICA_URL (URL ${i + 1})` : 'DATABASE_REPLICA_URL'));
  if (replicas.length > 0 && !databaseUrl) throw new ConfigError('DATABASE_REPLICA_URL needs DATABASE_URL: replicas follow a primary the service is given, not the embedded PostgreSQL');
  return {
    databaseUrl,
    databasePooler: pooler === 'transaction' ? 'transaction' : undefined,
    databaseDirectUrl,
    databaseReplicaUrls: replicas,
    databaseReplicaMaxLagSeconds: int(env, 'DATABASE_REPLICA_MAX_LAG_SECONDS', 10, 0, 86_400),
  };
}

function secretsOf(env: NodeJS.ProcessEnv): Pick<Config, 'adminToken' | 'jwtSecret'> {
  const adminToken = optional(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  }
  const jwtSecret = optional(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters long (HS256 needs 256 bits)');
  }
  return { adminToken, jwtSecret };
}

function logLevelOf(env: NodeJS.ProcessEnv): string {
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return logLevel;
}

function modeOf(env: NodeJS.ProcessEnv): Mode {
  // APP_MODE, not MODE: tools such as Vite set MODE for their own purposes.
  const mode = (optional(env, 'APP_MODE') ?? 'sandbox') as Mode;
  if (mode !== 'sandbox' && mode !== 'production') {
    throw new ConfigError(`APP_MODE must be sandbox or production, got "${mode}"`);
  }
  return mode;
}

function rateLimitStoreOf(env: NodeJS.ProcessEnv): Config['rateLimitStore'] {
  const rateLimitStore = (optional(env, 'RATE_LIMIT_STORE') ?? 'memory') as Config['rateLimitStore'];
  if (rateLimitStore !== 'memory' && rateLimitStore !== 'postgres') {
    throw new ConfigError(`RATE_LIMIT_STORE must be memory or postgres, got "${rateLimitStore}"`);
  }
  return rateLimitStore;
}

function webhookTimesOf(env: NodeJS.ProcessEnv): Pick<Config, 'webhookTimeoutMs' | 'webhookLeaseMs'> {
  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000);
  const webhookLeaseMs = int(env, 'WEBHOOK_LEASE_MS', webhookTimeoutMs + 15_000, 1000, 600_000);
  if (webhookLeaseMs <= webhookTimeoutMs) throw new ConfigError(`WEBHOOK_LEASE_MS (${webhookLeaseMs}) must be longer than WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs})`);
  return { webhookTimeoutMs, webhookLeaseMs };
}

function publicOriginsOf(env: NodeJS.ProcessEnv, mode: Mode): Pick<Config, 'publicBaseUrl' | 'publicCheckoutUrl'> {
  const publicBaseUrl = optional(env, 'PUBLIC_BASE_URL');
  if (publicBaseUrl !== undefined && !/^https?:\/\/[^/?#@\s]+\/?$/.test(publicBaseUrl)) {
    throw new ConfigError(`PUBLIC_BASE_URL must be an http(s) origin such as https://pay.example.mw (no path), got "${publicBaseUrl}"`);
  }
  const publicCheckoutUrl = optional(env, 'PUBLIC_CHECKOUT_URL');
  if (publicCheckoutUrl !== undefined && !/^https?:\/\/[^/?#@\s]+\/?$/.test(publicCheckoutUrl)) {
    throw new ConfigError(`PUBLIC_CHECKOUT_URL must be an http(s) origin such as https://checkout.pay.example.mw (no path), got "${publicCheckoutUrl}"`);
  }
  // Production links (checkout pages, set-password e-mails) must never be built from a request's
  // Host header, which any client can set: the operator names the public origin once.
  if (mode === 'production' && publicBaseUrl === undefined) {
    throw new ConfigError('PUBLIC_BASE_URL is required when APP_MODE=production (the origin customers and invited users reach, e.g. https://pay.example.mw): links are never built from the Host header in production');
  }
  return { publicBaseUrl: publicBaseUrl?.replace(/\/$/, ''), publicCheckoutUrl: publicCheckoutUrl?.replace(/\/$/, '') };
}

function mailOf(env: NodeJS.ProcessEnv): Pick<Config, 'smtpUrl' | 'smtpFrom'> {
  const smtpUrl = optional(env, 'SMTP_URL');
  if (smtpUrl !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(smtpUrl);
    } catch {
      parsed = undefined;
    }
    // The value may hold a password: the message never shows it.
    if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || !parsed.hostname) {
      throw new ConfigError('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://[user:password@]host[:port] (the value given is not shown: it may hold a password)');
    }
  }
  const smtpFrom = optional(env, 'SMTP_FROM') ?? 'OneKhusa Sandbox <no-reply@onekhusa.local>';
  if (smtpFrom.length > 200 || /[\r\n]/.test(smtpFrom) || !/[^\s@<>]+@[^\s@<>]+/.test(smtpFrom)) {
    throw new ConfigError(`SMTP_FROM must be an address such as "Shop <no-reply@shop.mw>" (at most 200 characters, one line), got "${smtpFrom.slice(0, 200)}"`);
  }
  return { smtpUrl, smtpFrom };
}

function consoleTimesOf(env: NodeJS.ProcessEnv): Pick<Config, 'consoleIdleMinutes' | 'consoleSessionHours'> {
  const consoleIdleMinutes = int(env, 'CONSOLE_IDLE_MINUTES', 30, 1, 24 * 60);
  const consoleSessionHours = int(env, 'CONSOLE_SESSION_HOURS', 12, 1, 7 * 24);
  if (consoleIdleMinutes > consoleSessionHours * 60) {
    throw new ConfigError(`CONSOLE_IDLE_MINUTES (${consoleIdleMinutes}) must not be longer than CONSOLE_SESSION_HOURS (${consoleSessionHours} h)`);
  }
  return { consoleIdleMinutes, consoleSessionHours };
}

/** More would be a list nobody reviews; a deployment serving that many front ends wants `*`. */
const MAX_CORS_ORIGINS = 100;

function corsOriginsOf(env: NodeJS.ProcessEnv, mode: Mode): CorsOrigins {
  const raw = optional(env, 'CORS_ALLOWED_ORIGINS');
  // Production answers no browser of another origin unless the operator names it.
  if (raw === undefined) return mode === 'production' ? { kind: 'off' } : { kind: 'localhost' };
  if (raw.toLowerCase() === 'off') return { kind: 'off' };
  if (raw === '*') return { kind: 'any' };
  const parts = raw.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (parts.length === 0 || parts.length > MAX_CORS_ORIGINS) throw new ConfigError(`CORS_ALLOWED_ORIGINS must name 1 to ${MAX_CORS_ORIGINS} origins, got ${parts.length}`);
  return { kind: 'exact', origins: [...new Set(parts.map(corsOrigin))] };
}

/** One origin of CORS_ALLOWED_ORIGINS, as a browser's Origin header spells it (lower-case, no default port). */
function corsOrigin(part: string): string {
  const fail = () => new ConfigError(`CORS_ALLOWED_ORIGINS must be off, * or comma-separated origins such as http://localhost:5173,https://shop.example.mw (scheme://host[:port], no path), got "${part.slice(0, 200)}"`);
  // A path, query, user or wildcard never matches an Origin header: refused rather than ignored.
  if (!/^https?:\/\/[^/?#@\s*]+\/?$/i.test(part)) throw fail();
  let url: URL;
  try {
    url = new URL(part);
  } catch {
    throw fail();
  }
  return url.origin;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = modeOf(env);
  const host = optional(env, 'HOST') ?? '0.0.0.0';
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host,
    ...databaseOf(env),
    dataDir: path.resolve(optional(env, 'DATA_DIR') ?? './data'),
    ...secretsOf(env),
    logLevel: logLevelOf(env),
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', 50, 0, 1_000_000),
    rateLimitStore: rateLimitStoreOf(env),
    mode,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    batchBodyLimitBytes: int(env, 'BATCH_BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 128 * 1024 * 1024),
    batchCopyMinBytes: int(env, 'BATCH_COPY_MIN_BYTES', 1024 * 1024, 0, 128 * 1024 * 1024),
    maxConnections: int(env, 'MAX_CONNECTIONS', 4096, 1, 1_000_000),
    maxConnectionsPerAddress: int(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 1, 1_000_000),
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 1000, 10_000),
    accessTokenMinutes: 5,
    idempotencyRetentionHours: int(env, 'IDEMPOTENCY_RETENTION_HOURS', 24, 1, 24 * 30),
    idempotencyRequired: flag(env, 'IDEMPOTENCY_REQUIRED', mode === 'production'),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 4, 0, 64),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 2, 500),
    keyStatusCacheMs: int(env, 'KEY_STATUS_CACHE_MS', 2000, 0, 60_000),
    readCacheMs: int(env, 'READ_CACHE_MS', 1000, 0, 60_000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    webhookRetryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', '0,5s,5m,30m,2h,5h,10h,10h'),
    ...webhookTimesOf(env),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1024),
    webhookPerHostConcurrency: int(env, 'WEBHOOK_PER_HOST_CONCURRENCY', 32, 1, 1024),
    timedAccountMinutes: int(env, 'TIMED_ACCOUNT_MINUTES', 15, 1, 1440),
    initiateBatchRows: int(env, 'INITIATE_BATCH_ROWS', 64, 1, 1000),
    payoutTimeoutSeconds: int(env, 'PAYOUT_TIMEOUT_SECONDS', 30, 0, 86_400),
    payoutReversalSeconds: int(env, 'PAYOUT_REVERSAL_SECONDS', 60, 0, 86_400),
    scheduleMaxDays: int(env, 'SCHEDULE_MAX_DAYS', 365, 0, 3660),
    ...publicOriginsOf(env, mode),
    ...mailOf(env),
    invitationHours: int(env, 'INVITATION_HOURS', 72, 1, 720),
    ...consoleTimesOf(env),
    consoleRequireTwoFactor: flag(env, 'CONSOLE_REQUIRE_2FA', mode === 'production'),
    corsAllowedOrigins: corsOriginsOf(env, mode),
    mojaloop: loadMojaloop(env, mode, host),
  };
}

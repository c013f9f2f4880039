// Everything a process needs before it can serve or work: the database (embedded or external),
// migrations, the queue's schema, the token-signing secret and, on a new embedded database, the
// demo merchant. Shared by server.ts, worker.ts and the tests.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino, type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.ts';
import { terminalDestination } from './lib/pretty-log.ts';
import { overTcp, startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.ts';
import { checkDatabaseUrl } from './lib/startup-checks.ts';
import { migrate } from './db/migrate.ts';
import { createPool, currentHost, withTransaction, type Db } from './db/pool.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { hostLabel } from './db/hosts.ts';
import { ReplicaSet } from './db/replicas.ts';
import { migrateQueue } from './jobs/queue.ts';
import { systemClock, type Clock, type Deps } from './http/types.ts';
import { uploadCopySlots } from './modules/disbursements/upload.ts';
import { createMerchant, type MerchantCredentials } from './modules/merchants/service.ts';
import { addUserWithPassword } from './modules/users/service.ts';

export const EMBEDDED_DATABASE = 'onekhusa';
// Serialises the one-time demo-merchant creation between processes starting together.
const DEMO_LOCK_ID = 7_204_118_302;

/** The demo merchant's credentials: its key pair, and its administrator's console sign-in. */
export interface DemoCredentials extends MerchantCredentials {
  consoleEmail: string;
  consolePassword: string;
}

/** The demo merchant's administrator, who signs in to the console at /console. */
export const DEMO_CONSOLE_EMAIL = 'admin@demo-shop.onekhusa.local';

export interface Runtime {
  deps: Deps;
  embedded: EmbeddedServer | undefined;
  /** Credentials of the demo merchant, when this start created it. */
  demo: DemoCredentials | undefined;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    // Secrets never reach the logs, whatever a future log line includes.
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.apiSecret',
        '*.clientSecret',
        '*.secret',
        '*.accessToken',
        '*.password',
        'apiSecret',
        'clientSecret',
        'accessToken',
      ],
      censor: '[redacted]',
    },
  };
  // On a terminal, `time level msg key=value…` lines; elsewhere JSON (lib/pretty-log.ts).
  const target = destination ?? terminalDestination();
  return target ? pino(options, target) : pino(options);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
      if (err.code !== '42P04') throw err; // created meanwhile by another process
    });
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The token-signing secret: from config, or generated once and kept in the database. */
async function loadJwtSecret(db: Db, configured: string | undefined): Promise<Uint8Array> {
  if (configured) return new TextEncoder().encode(configured);
  await db.query(`insert into settings (key, value) values ('jwt_secret', $1) on conflict (key) do nothing`, [randomBytes(48).toString('base64url')]);
  const { rows } = await db.query<{ value: string }>(`select value from settings where key = 'jwt_secret'`);
  return new TextEncoder().encode(rows[0].value);
}

async function ensureDemoMerchant(deps: Deps): Promise<DemoCredentials | undefined> {
  return withTransaction(deps.db, async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [DEMO_LOCK_ID]);
    const { rowCount } = await tx.query(`select 1 from settings where key = 'demo_merchant'`);
    if (rowCount === 1) return undefined;
    const demo = await createMerchant(deps, { accountName: 'Demo Shop', levelNumber: 1, capturedBy: 'demo@onekhusa.local', isDemo: true });
    // Its administrator, with a random password shown once beside the key pair (only its argon2id
    // hash is stored): the console can be tried at once, without an invitation e-mail.
    const consolePassword = randomBytes(12).toString('base64url');
    await addUserWithPassword(
      tx,
      {
        organisationId: demo.organisationId,
        merchantAccountNumber: demo.merchantAccountNumber,
        firstName: 'Demo',
        lastName: 'Administrator',
        emailAddress: DEMO_CONSOLE_EMAIL,
        phoneNumber: '265990000000',
        roleId: 'MERC_ADMIN',
        capturedBy: 'demo@onekhusa.local',
      },
      consolePassword,
    );
    await tx.query(`insert into settings (key, value) values ('demo_merchant', $1)`, [String(demo.merchantAccountNumber)]);
    return { ...demo, consoleEmail: DEMO_CONSOLE_EMAIL, consolePassword };
  });
}

/** Connections on DATABASE_DIRECT_URL (at least; the job runner takes one per job at once, plus its LISTEN and the dispatcher's). */
const SESSION_POOL_MIN = 4;
const WRITABLE_WAIT_LOG_EVERY_MS = 10_000;

/**
 * Waits until the database takes writes: a process started while DATABASE_URL's hosts are all
 * standbys (a failover under way, or the URL naming a replica) does not migrate and does not exit;
 * it says so, and goes on once a primary answers (the pool finds it: db/primary-finder.ts).
 */
async function awaitWritable(db: Db, log: Logger): Promise<void> {
  let lastSaid = 0;
  for (;;) {
    try {
      const { rows } = await db.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
      if (!rows[0].standby) return;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
    }
    if (Date.now() - lastSaid >= WRITABLE_WAIT_LOG_EVERY_MS) {
      log.warn(`database: ${hostLabel(currentHost(db)!)} is a standby (read-only) or unreachable; not migrating, waiting for a primary (add it to DATABASE_URL's hosts with target_session_attrs=read-write)`);
      lastSaid = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export interface RuntimeOptions {
  clock?: Clock;
  log?: Logger;
  /** Create the demo merchant on a new embedded database (default true). */
  createDemo?: boolean;
}

export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const log = options.log ?? createLogger(config);
  let embedded: EmbeddedServer | undefined;
  let connectionString = config.databaseUrl;
  // Refused, a wrong password, no such database: one line naming DATABASE_URL, not a stack trace.
  if (connectionString) await checkDatabaseUrl(connectionString);
  if (!connectionString) {
    embedded = await startEmbeddedPostgres(config.dataDir, (msg) => log.info(msg));
    connectionString = await ensureDatabase(embedded.connectionString, EMBEDDED_DATABASE);
  }
  const onSwitch = (message: string) => log.warn(message);
  const db = createPool(connectionString, config.dbPoolSize, { pooler: config.databasePooler, onSwitch });
  // What needs a session (a migration's advisory lock, LISTEN) cannot go through a transaction pooler.
  const sessionDb = config.databaseDirectUrl ? createPool(config.databaseDirectUrl, Math.max(SESSION_POOL_MIN, config.workerConcurrency + 2), { onSwitch }) : undefined;
  const uploadDb = embedded ? createPool(overTcp(connectionString), uploadCopySlots(config)) : undefined;
  let reads: ReplicaSet | undefined;
  const end = async () => {
    await reads?.stop();
    await db.end().catch(() => undefined);
    await sessionDb?.end().catch(() => undefined);
    await uploadDb?.end().catch(() => undefined);
  };
  try {
    await awaitWritable(sessionDb ?? db, log);
    const applied = await migrate(sessionDb ?? db);
    if (applied.length) log.info({ applied }, 'database migrations applied');
    await migrateQueue(sessionDb ?? db);
    if (config.databaseReplicaUrls.length > 0) {
      reads = new ReplicaSet(db, config.databaseReplicaUrls, config.databaseReplicaMaxLagSeconds, log);
      await reads.start();
    }
    const deps: Deps = { db, sessionDb, reads, uploadDb, config, clock: options.clock ?? systemClock, log, jwtSecret: await loadJwtSecret(db, config.jwtSecret) };
    const demo = embedded && config.mode === 'sandbox' && options.createDemo !== false ? await ensureDemoMerchant(deps) : undefined;
    return {
      deps,
      embedded,
      demo,
      close: async () => {
        await end();
        await embedded?.stop();
      },
    };
  } catch (err) {
    await end();
    await embedded?.stop();
    throw err;
  }
}

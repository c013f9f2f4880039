// The database as `npm start` finds it, for the commands that need no server (ledger verify, demo
// credentials): DATABASE_URL, else the embedded server under DATA_DIR (reused when `npm start` is
// running it, started and stopped again when not). Never initialises a new, empty cluster.
import type pg from 'pg';
import type { Config } from '../config.ts';
import { FailureError, usage } from './shared.ts';

/** Runs `work` on one connection to the service's database, then closes it (and any embedded server it started). */
export async function withDatabase<T>(applicationName: string, work: (client: pg.Client, config: Config) => Promise<T>): Promise<T> {
  // Loaded here: the server commands need neither pg nor the embedded server.
  const { loadConfig, ConfigError } = await import('../config.ts');
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) usage(`configuration: ${err.message}`);
    throw err;
  }
  // Its own session (a command may lock or LISTEN): PostgreSQL itself rather than a transaction pooler.
  const url = config.databaseDirectUrl ?? config.databaseUrl;
  const { connectionString, stopEmbedded } = url ? { connectionString: url, stopEmbedded: undefined } : await embedded(config.dataDir);
  const { connectClient } = await import('../db/primary-finder.ts');
  let client: pg.Client | undefined;
  try {
    try {
      client = await connectClient(connectionString, { application_name: applicationName, connectionTimeoutMillis: 10_000 });
    } catch (err) {
      throw new FailureError(`cannot connect to the database: ${(err as Error).message}`);
    }
    return await work(client, config);
  } finally {
    await client?.end().catch(() => undefined);
    await stopEmbedded?.();
  }
}

async function embedded(dataDir: string): Promise<{ connectionString: string; stopEmbedded: () => Promise<void> }> {
  const [{ default: fs }, { default: path }, { startEmbeddedPostgres }, { EMBEDDED_DATABASE }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('../db/embedded.ts'),
    import('../runtime.ts'),
  ]);
  if (!fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))) {
    throw new FailureError(`no database to open: DATABASE_URL is not set and there is no embedded database in ${dataDir} (set DATA_DIR or DATABASE_URL, or run npm start once)`);
  }
  let server;
  try {
    server = await startEmbeddedPostgres(dataDir);
  } catch (err) {
    throw new FailureError(`cannot start the embedded database in ${dataDir}: ${(err as Error).message}`);
  }
  const url = new URL(server.connectionString);
  url.pathname = `/${EMBEDDED_DATABASE}`;
  return { connectionString: url.toString(), stopEmbedded: () => server.stop() };
}

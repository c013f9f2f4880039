// Once per test run: a PostgreSQL server (DATABASE_URL's, or an embedded one under .test-data/)
// and a template database with every migration applied (each test file clones the template), and
// the Mojaloop Testing Toolkit.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { removeDataDir, startEmbeddedPostgres, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrate, readMigrations } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { migrateQueue } from '../src/jobs/queue.ts';
import { setupTtk } from './ttk/harness.ts';
import type { PgBouncer } from './db/pg-replication-kit.ts';

/** Loaded only when asked for: a copy of the project with just the suite's core files runs without it. */
async function startSuitePooler(adminUrl: string): Promise<PgBouncer> {
  const { pgbouncerAvailable, startPgBouncer } = await import('./db/pg-replication-kit.ts');
  const can = pgbouncerAvailable();
  if (!can.ok) throw new Error(`TEST_POOLER=pgbouncer: ${can.why}`);
  const admin = new URL(adminUrl);
  const target = { host: admin.hostname === 'localhost' ? '127.0.0.1' : admin.hostname, port: Number(admin.port || 5432) };
  return startPgBouncer(target, { passwords: { [decodeURIComponent(admin.username)]: decodeURIComponent(admin.password) } });
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** TEST_POOLER=pgbouncer: the port of a PgBouncer in transaction mode in front of adminDatabaseUrl's server (0: none). */
    poolerPort: number;
  }
}

let embedded: EmbeddedServer | undefined;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let runDir: string | undefined;
  if (!adminUrl) {
    // A server of its own for each run (initdb costs about two seconds): runs going on side by
    // side in one checkout never stop each other's server.
    fs.mkdirSync('.test-data', { recursive: true });
    // Left by runs that were killed: their servers died with them.
    for (const entry of fs.readdirSync('.test-data')) {
      const dir = path.resolve('.test-data', entry);
      // removeDataDir: also the cluster kept outside when run as root in a private directory.
      if (Date.now() - fs.statSync(dir).mtimeMs > 3_600_000) removeDataDir(dir);
    }
    runDir = fs.mkdtempSync(path.resolve('.test-data', 'run-'));
    embedded = await startEmbeddedPostgres(runDir);
    adminUrl = embedded.connectionString;
  }
  // The template's name carries a hash of the migrations: a changed migration gets a new one.
  const hash = createHash('sha256').update(readMigrations().map((m) => m.sql).join('\n')).digest('hex').slice(0, 10);
  const template = `onekhusa_test_tpl_${hash}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (rowCount === 0) {
      const building = `${template}_building_${process.pid}`;
      await admin.query(`create database ${building}`);
      const db = createPool(withDatabase(adminUrl, building), 2);
      try {
        await migrate(db);
        await migrateQueue(db);
      } finally {
        await db.end();
      }
      await admin.query(`alter database ${building} rename to ${template}`).catch(async (err) => {
        await admin.query(`drop database if exists ${building}`);
        if ((err as { code?: string }).code !== '42P04') throw err;
      });
    }
    // Databases left behind by an interrupted run at least an hour ago (names carry their birth
    // time, so a run going on in parallel keeps its own).
    const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 'onekhusa_t\\_%'`);
    const hourAgo = Date.now() - 3_600_000;
    for (const row of rows) {
      const born = Number(row.datname.split('_')[2]);
      if (born < hourAgo) await admin.query(`drop database if exists ${admin.escapeIdentifier(row.datname)} with (force)`).catch(() => undefined);
    }
  } finally {
    await admin.end();
  }
  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  // TEST_POOLER=pgbouncer: every test app's pool goes through PgBouncer in transaction mode
  // (test/helpers.ts startTestApp), as DATABASE_POOLER=transaction would have it (docs/operations.md).
  const pooler = process.env.TEST_POOLER === 'pgbouncer' ? await startSuitePooler(adminUrl) : undefined;
  project.provide('poolerPort', pooler?.port ?? 0);
  // The Mojaloop Testing Toolkit, the switch of the rail tests (test/ttk/): installed on first use
  // into test/ttk/node_modules, started once, taken by one test file at a time (acquireTtk).
  // TEST_TTK=off leaves it out (a run of tests that need no switch); those that do then fail, saying so.
  const stopTtk = process.env.TEST_TTK === 'off' ? async () => undefined : await setupTtk(project);
  return async () => {
    await stopTtk();
    await pooler?.close();
    await embedded?.stop();
    if (runDir) removeDataDir(runDir);
  };
}

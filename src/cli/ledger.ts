// The ledger group: `ledger verify`, the one command that needs no server. It reads the database
// itself (DATABASE_URL, else the embedded server under DATA_DIR, as `npm start` resolves it) and
// checks the ledger's invariants, so it works with the server stopped; hence no --url or
// --admin-token.
import type { LedgerReport } from '../modules/ledger/verify.ts';
import { FailureError, printJson, usage, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'ledger verify',
    usage: `\
  ledger verify
      Check the ledger against the database directly (DATABASE_URL, else the embedded database in
      DATA_DIR; no server needed): every transfer balances, every merchant balance equals its
      entries, all entries sum to zero, no balance is negative, payouts in flight and the fees,
      settled and customer-payment accounts match the payouts and collections, each collection
      has exactly one payment (and reversal) transfer, each transferred batch and single payout
      exactly one debit. Prints a JSON report (per check: checked, passed, failed, up to 20
      offending examples); exit status 1 when any check fails.
`,
    options: [],
    server: false,
    run: ledgerVerify,
  },
];

/** The database as `npm start` finds it: DATABASE_URL, else the embedded server (reused if running). */
async function ledgerVerify(): Promise<void> {
  // Loaded here: the other commands need neither pg nor the embedded server.
  const [{ loadConfig, ConfigError }, { default: pg }, { verifyLedger }] = await Promise.all([
    import('../config.ts'),
    import('pg'),
    import('../modules/ledger/verify.ts'),
  ]);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) usage(`configuration: ${err.message}`);
    throw err;
  }
  let connectionString = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!connectionString) {
    const [{ default: fs }, { default: path }, { startEmbeddedPostgres }, { EMBEDDED_DATABASE }] = await Promise.all([
      import('node:fs'),
      import('node:path'),
      import('../db/embedded.ts'),
      import('../runtime.ts'),
    ]);
    // Never initialise a new, empty cluster just to verify it.
    if (!fs.existsSync(path.join(config.dataDir, 'pg', 'PG_VERSION'))) {
      throw new FailureError(`no database to verify: DATABASE_URL is not set and there is no embedded database in ${config.dataDir} (set DATA_DIR or DATABASE_URL)`);
    }
    let embedded;
    try {
      embedded = await startEmbeddedPostgres(config.dataDir);
    } catch (err) {
      throw new FailureError(`cannot start the embedded database in ${config.dataDir}: ${(err as Error).message}`);
    }
    stopEmbedded = () => embedded.stop();
    const url = new URL(embedded.connectionString);
    url.pathname = `/${EMBEDDED_DATABASE}`;
    connectionString = url.toString();
  }
  const client = new pg.Client({ connectionString, application_name: 'onekhusa-ledger-verify', connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  let report: LedgerReport;
  try {
    try {
      await client.connect();
    } catch (err) {
      throw new FailureError(`cannot connect to the database: ${(err as Error).message}`);
    }
    try {
      report = await verifyLedger(client, { railInFlightBoundSeconds: config.mojaloop?.inFlightBoundSeconds });
    } catch (err) {
      const e = err as { code?: string; message: string };
      if (e.code === '42P01') throw new FailureError(`the database has no ledger tables (${e.message}); start the server once to migrate it`);
      throw new FailureError(`ledger verify could not run: ${e.message}`);
    }
  } finally {
    await client.end().catch(() => undefined);
    await stopEmbedded?.();
  }
  printJson(report);
  const failed = report.checks.filter((c) => c.failed > 0);
  if (failed.length > 0) {
    throw new FailureError(`ledger verify: ${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => `${c.name} (${c.failed})`).join(', ')}`);
  }
}

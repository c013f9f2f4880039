// The ledger group: `ledger verify`, the one command that needs no server. It reads the database
// itself (DATABASE_URL, else the embedded server under DATA_DIR, as `npm start` resolves it) and
// checks the ledger's invariants, so it works with the server stopped; hence no --url or
// --admin-token.
import type { LedgerReport } from '../modules/ledger/verify.ts';
import { withDatabase } from './database.ts';
import { FailureError, printJson, type CliCommand } from './shared.ts';

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

/** Reads the database itself (no server needed) and prints the report; exit status 1 on a failed check. */
async function ledgerVerify(): Promise<void> {
  const { verifyLedger } = await import('../modules/ledger/verify.ts');
  const report: LedgerReport = await withDatabase('onekhusa-ledger-verify', async (client, config) => {
    try {
      return await verifyLedger(client, { railInFlightBoundSeconds: config.mojaloop?.inFlightBoundSeconds });
    } catch (err) {
      const e = err as { code?: string; message: string };
      if (e.code === '42P01') throw new FailureError(`the database has no ledger tables (${e.message}); start the server once to migrate it`);
      throw new FailureError(`ledger verify could not run: ${e.message}`);
    }
  });
  printJson(report);
  const failed = report.checks.filter((c) => c.failed > 0);
  if (failed.length > 0) {
    throw new FailureError(`ledger verify: ${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => `${c.name} (${c.failed})`).join(', ')}`);
  }
}

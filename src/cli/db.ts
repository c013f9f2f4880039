// The db group: `db distribute`, which makes a Citus coordinator's database distributed by merchant
// (src/db/distribute.ts, docs/scaling.md §4). Like ledger verify it talks to the database itself
// (DATABASE_URL, else the embedded database in DATA_DIR), not to a server.
import { withDatabase } from './database.ts';
import { FailureError, printJson, type CliCommand } from './shared.ts';

export const commands: CliCommand[] = [
  {
    name: 'db distribute',
    usage: `\
  db distribute
      On a Citus coordinator (DATABASE_URL, migrated): every merchant-owned table distributed on
      merchant_account_number and co-located, the shared tables made reference tables, the rest
      kept on the coordinator; existing rows are moved by Citus. Idempotent: what is distributed
      already is left as it is. Prints each table's fate as JSON; refuses (exit 1) where the citus
      extension is absent or a table cannot be distributed, naming it.
`,
    options: [],
    server: false,
    run: dbDistribute,
  },
];

async function dbDistribute(): Promise<void> {
  const { distribute, DistributionRefused } = await import('../db/distribute.ts');
  const tables = await withDatabase('onekhusa-db-distribute', async (client) => {
    try {
      return await distribute(client);
    } catch (err) {
      if (err instanceof DistributionRefused) throw new FailureError(`db distribute: ${err.message}`);
      throw err;
    }
  });
  printJson({ tables });
}

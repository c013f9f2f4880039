// The ledger module: the merchants' money, double-entry. The write side (ledger.ts: accounts and
// balanced transfers, posted in the caller's transaction by every module that moves money), the
// statement read side (statements.ts: balances, movements and the CSV of a period), the totals of
// closed days that statements start from (days.ts, written hourly by the job below) and the checks
// of `ledger verify` (verify.ts), which also hold those totals to the entries they sum.
import type { ModuleDefinition } from '../../module.ts';
import { fillLedgerAccountDays, LEDGER_DAYS_TASK } from './days.ts';

export const ledgerModule: ModuleDefinition = {
  name: 'ledger',
  tasks: (deps) => ({
    [LEDGER_DAYS_TASK]: async () => {
      const { failed, ...filled } = await fillLedgerAccountDays(deps.db, deps.clock.now());
      if (filled.days > 0) deps.log.info(filled, 'ledger totals of closed days written for statements');
      // Statements of these accounts read their entries meanwhile: slower, never wrong.
      if (failed.length > 0) deps.log.error({ failed }, 'ledger totals of closed days not written for some accounts; the next run tries again');
    },
  }),
  // Hourly, the totals of the days that closed since: a statement reads the entries of any day not
  // filled yet, so a late or missed run costs time, never money.
  cron: [`23 * * * * ${LEDGER_DAYS_TASK} ?max=1`],
};

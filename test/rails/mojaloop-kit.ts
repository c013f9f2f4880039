// What the Mojaloop rail's test files share (test/mojaloop-*.test.ts): a merchant's payouts with
// their rail rows, the payout job run as the worker runs it until they settle or reach a phase
// (bounded), the ledger's verdict, and a wallet payout line.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { ADMIN_TOKEN, ledgerInvariants, ROOT, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, major } from '../money-ops.ts';

export interface PayoutRow {
  payout_id: number;
  transaction_reference_number: string;
  beneficiary_account_number: string;
  amount_minor: number;
  fee_minor: number;
  status_code: string;
  response_code: string;
  response_message: string;
  phase: string | null;
  transfer_id: string | null;
  quote_id: string | null;
}

export async function payouts(t: TestApp, m: TestMerchant): Promise<PayoutRow[]> {
  const { rows } = await t.db.query<PayoutRow>(
    `select p.payout_id, p.transaction_reference_number, p.beneficiary_account_number, p.amount_minor, p.fee_minor, p.status_code,
            p.response_code, p.response_message, r.phase, r.transfer_id, r.quote_id
       from payouts p left join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
      where p.merchant_account_number = $1 order by p.payout_id`,
    [m.merchantAccountNumber],
  );
  return rows;
}

/** One run of the payout job for `m`, as the worker runs it. */
export async function runJob(t: TestApp, m: TestMerchant): Promise<void> {
  const { taskList } = await import('../../src/composition.ts');
  await taskList(t.deps).process_payouts!({ merchantAccountNumber: m.merchantAccountNumber }, {} as never);
}

/** Runs the payout job while callbacks arrive, until no payout of `m` is in T (bounded). */
export async function settle(t: TestApp, m: TestMerchant, timeoutMs = 20_000): Promise<PayoutRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await runJob(t, m);
    const rows = await payouts(t, m);
    if (rows.every((r) => r.status_code !== 'T')) return rows;
    if (Date.now() > deadline) throw new Error(`payouts still in T after ${timeoutMs} ms: ${JSON.stringify(rows.filter((r) => r.status_code === 'T'))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs the payout job until `m`'s payout reaches a rail phase (bounded). */
export async function untilPhase(t: TestApp, m: TestMerchant, phase: string, timeoutMs = 10_000): Promise<PayoutRow> {
  return until(
    `a payout in phase ${phase}`,
    async () => {
      await runJob(t, m);
      return (await payouts(t, m)).find((r) => r.phase === phase);
    },
    timeoutMs,
    50,
  );
}

/** `ledger verify` clean, the invariants hold, and nothing of `m` is left in flight. */
export async function expectLedgerClean(t: TestApp, m: TestMerchant): Promise<void> {
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0), JSON.stringify(report.checks.filter((c) => c.failed > 0), null, 2)).toEqual([]);
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
  const { rows } = await t.db.query<{ kind: string; total: string }>(
    `select a.kind, coalesce(sum(e.amount_minor), 0) as total from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id)
      where e.merchant_account_number = $1 and a.kind in ('payouts_in_flight', 'rail_in_flight') group by a.kind`,
    [m.merchantAccountNumber],
  );
  for (const r of rows) expect(Number(r.total), r.kind).toBe(0);
}

export async function transferTypes(t: TestApp, reference: string): Promise<Record<string, number>> {
  const { rows } = await t.db.query<{ transfer_type: string; n: number }>('select transfer_type, count(*)::int as n from ledger_transfers where reference = $1 group by 1', [reference]);
  return Object.fromEntries(rows.map((r) => [r.transfer_type, r.n]));
}


export function wallet(msisdn: string, amountMinor: number, name = 'Test Party') {
  return { beneficiaryName: name, connectorId: AIRTEL, beneficiaryAccountNumber: msisdn, transactionDescription: 'Salary', transactionAmount: major(amountMinor), sourceReferenceNumber: `SRC-${msisdn}-${amountMinor}` };
}


/** The real service (`src/server.ts`, API and worker in one process) on `t`'s database, for crash tests. */
export interface ServiceProcess {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/**
 * Starts, awaits and kills real service processes on `t`'s database and `port`, tagged with
 * `appName` (so that a killed process's sessions can be seen to be gone). `env` adds to (and
 * overrides) the sandbox defaults: the rail's settings.
 */
export function serviceProcesses(t: TestApp, port: number, appName: string) {
  const children = new Set<ChildProcess>();
  function start(env: NodeJS.ProcessEnv): ServiceProcess {
    const databaseUrl = new URL(t.deps.config.databaseUrl!);
    databaseUrl.searchParams.set('application_name', appName);
    const full: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl.toString(), PORT: String(port), HOST: '127.0.0.1', APP_MODE: 'sandbox', LOG_LEVEL: 'warn', JWT_SECRET: t.deps.config.jwtSecret!, ADMIN_TOKEN, ...env };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d));
    child.stderr!.on('data', (d: Buffer) => (out += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { child, exited, output: () => out };
  }
  async function ready(s: ServiceProcess): Promise<void> {
    await until(
      'service ready',
      async () => {
        if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`service exited early: ${s.output()}`);
        return fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok).catch(() => false);
      },
      60_000,
      50,
      s.output,
    );
  }
  async function killHard(s: ServiceProcess): Promise<void> {
    s.child.kill('SIGKILL');
    await s.exited;
    await until(
      'dead service sessions gone',
      async () => (await t.db.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1', [appName])).rows[0].n === 0,
      60_000,
      20,
    );
  }
  function killAll(): void {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return { start, ready, killHard, killAll };
}

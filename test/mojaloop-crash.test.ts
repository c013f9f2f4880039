// A crash between a Mojaloop transfer and its callback (issue 24): the real service
// (`src/server.ts`, API and worker in one process) sends a payout's POST /transfers to the Testing
// Toolkit, is SIGKILLed before the COMMITTED callback comes (TTK sends it 2.5 s later, to a dead
// port), and is started again. The new process finds the payout in flight, asks the switch
// (GET /transfers/{id}) once the transfer's expiry has passed, never sends it again, and books its
// COMMITTED once: one debit, one rail_send, one rail_settle, the balance exact, ledger verify clean.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/lib/free-port.ts';
import { verifyLedger } from '../src/modules/merchants/ledger-verify.ts';
import { ADMIN_TOKEN, ledgerInvariants, newMerchant, startTestApp, until, type TestApp } from './helpers.ts';
import { AIRTEL, apiBalances, idempotencyKey, singlePayout, topup } from './money-ops.ts';
import { acquireTtk, type AcquiredTtk } from './ttk/harness.ts';
import { transferCommitted } from './ttk/rules.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const APP_NAME = 'mojaloop-crash-server';

let ttk: AcquiredTtk;
let t: TestApp;
let port: number;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-crash' });
  t = await startTestApp();
  port = await freePort();
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: `http://127.0.0.1:${port}/fspiop` });
}, 180_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await ttk?.release();
  await t?.close();
});

interface Service {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

function spawnService(): Service {
  const databaseUrl = new URL(t.deps.config.databaseUrl!);
  databaseUrl.searchParams.set('application_name', APP_NAME);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_MODE: 'sandbox',
    LOG_LEVEL: 'warn',
    JWT_SECRET: t.deps.config.jwtSecret!,
    ADMIN_TOKEN,
    MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
    MOJALOOP_FSP_ID: 'onekhusadfsp',
    MOJALOOP_CONNECTOR_IDS: String(AIRTEL),
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: '3',
    MOJALOOP_CALLBACK_SECONDS: '1',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, output: () => out };
}

async function waitReady(s: Service): Promise<void> {
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

async function killHard(s: Service): Promise<void> {
  s.child.kill('SIGKILL');
  await s.exited;
  await until(
    'dead service sessions gone',
    async () => (await t.db.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1', [APP_NAME])).rows[0].n === 0,
    60_000,
    20,
  );
}

describe('a crash between a transfer and its callback', () => {
  it('the restarted service asks the switch, never sends again, and books the COMMITTED once', { timeout: 120_000 }, async () => {
    await ttk.setRules([transferCommitted({ amount: '4321', delayMs: 2500 })]);
    const m = await newMerchant(t, { accountName: 'Crash Payroll', levelNumber: 1 });
    expect((await topup(t, m, 10_000_000)).statusCode).toBe(200);
    const first = spawnService();
    await waitReady(first);
    const before = await apiBalances(t, m);
    const added = await singlePayout(t, m, { beneficiaryName: 'Test Party', connectorId: AIRTEL, beneficiaryAccountNumber: '265990004321', transactionDescription: 'Salary', transactionAmount: 4321, sourceReferenceNumber: 'CRASH-1' }, idempotencyKey());
    expect(added.statusCode, added.body).toBe(200);
    const reference: string = added.json().transactionReferenceNumber;

    // The transfer is sent (its money in rail_in_flight): kill the service before the callback.
    const inFlight = await until(
      'transfer sent',
      async () => {
        const { rows } = await t.db.query<{ transfer_id: string }>(`select r.transfer_id from rail_payouts r where r.merchant_account_number = $1 and r.phase = 'transfer'`, [m.merchantAccountNumber]);
        if (!rows[0]) return undefined;
        const posted = (await ttk.requests()).some((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === rows[0].transfer_id);
        return posted ? rows[0] : undefined;
      },
      20_000,
      20,
      first.output,
    );
    await killHard(first);
    expect((await t.db.query('select status_code from payouts where transaction_reference_number = $1', [reference])).rows[0].status_code).toBe('T');

    // The callback finds nobody; the new process resolves it by asking, after the expiry.
    await new Promise((r) => setTimeout(r, 3000));
    const second = spawnService();
    await waitReady(second);
    await until(
      'payout final',
      async () => (await t.db.query('select status_code from payouts where transaction_reference_number = $1', [reference])).rows[0].status_code !== 'T',
      30_000,
      100,
      second.output,
    );
    const { rows } = await t.db.query('select p.status_code, p.response_code, r.phase, r.asked_at is not null as asked from payouts p join rail_payouts r using (merchant_account_number, payout_id) where p.transaction_reference_number = $1', [reference]);
    expect(rows[0]).toEqual({ status_code: 'S', response_code: 'S100', phase: 'committed', asked: true });
    const requests = await ttk.requests();
    expect(requests.filter((r) => r.method.toLowerCase() === 'post' && r.path === '/transfers' && (r.body as { transferId: string }).transferId === inFlight.transfer_id)).toHaveLength(1);
    expect(requests.some((r) => r.method.toLowerCase() === 'get' && r.path === `/transfers/${inFlight.transfer_id}`)).toBe(true);
    const { rows: moves } = await t.db.query<{ transfer_type: string; n: number }>('select transfer_type, count(*)::int as n from ledger_transfers where reference = $1 group by 1 order by 1', [reference]);
    expect(moves).toEqual([
      { transfer_type: 'payout_debit', n: 1 },
      { transfer_type: 'rail_send', n: 1 },
      { transfer_type: 'rail_settle', n: 1 },
    ]);
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 432_100 - 10_000);
    const report = await verifyLedger(t.db);
    expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
    expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
    second.child.kill('SIGTERM');
    await second.exited;
  });
});

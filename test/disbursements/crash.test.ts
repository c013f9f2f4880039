// "A worker killed mid-batch resumes without paying any line twice": real `npm run worker`
// processes on one database. Workers SIGKILLed twice in a row inside a chunk of a 20,000-line
// batch, then a fresh one finishing it; a worker SIGKILLed mid-validation; two workers sharing one
// merchant's payouts at once. After every step the money is checked: the ledger balances, payouts
// in flight hold exactly the lines still in T, and every final line was settled, evented and
// counted exactly once. CRASH_TEST_VERBOSE=1 prints what was measured.
import { spawn, type ChildProcess } from 'node:child_process';
import type { JobHelpers } from 'graphile-worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/pool.ts';
import { taskList } from '../../src/composition.ts';
import { schedulePayouts } from '../../src/modules/disbursements/service.ts';
import { CHUNK_LINES } from '../../src/rails/simulated/payouts.ts';
import { BASE, ledgerInvariants, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const LINES = 20_000;
const TOPUP_MINOR = 10_000_000_00; // MWK 10,000,000.00: far more than 20,000 lines of ~MWK 120 + fee
const VERBOSE = process.env.CRASH_TEST_VERBOSE === '1';

let t: TestApp;
let probe: pg.Client;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  t = await startTestApp();
  probe = new pg.Client({ connectionString: t.deps.config.databaseUrl });
  await probe.connect();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all([...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await probe?.end().catch(() => undefined);
  await t?.close();
});


// ---------------------------------------------------------------------------------------------
// Processes

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
  /** Lines this process reported as processed (its completed job runs). */
  processed: () => number;
}

function startWorker(env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: t.deps.config.databaseUrl, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const processed = () =>
    out
      .split('\n')
      .filter((l) => l.includes('"payouts processed"'))
      .reduce((s, l) => s + (JSON.parse(l) as { processed: number }).processed, 0);
  return { child, output: () => out, exited, processed };
}

/** Client backends connected to the test database now. */
async function backendPids(): Promise<Set<number>> {
  const { rows } = await probe.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`);
  return new Set(rows.map((r) => r.pid));
}

/** Whether a session other than ours holds `mode` on `table`: a worker inside a transaction that touched it. */
async function othersHold(ours: Set<number>, table: 'payouts' | 'batches', mode: string): Promise<boolean> {
  const { rows } = await probe.query<{ n: number }>(
    `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where a.datname = current_database() and l.relation = $2::regclass and l.mode = $3 and l.granted and not (a.pid = any($1::int[]))`,
    [[...ours], table, mode],
  );
  return rows[0].n > 0;
}

/** Sessions other than ours waiting for a lock: workers stopped inside a transaction. */
async function othersWaiting(ours: Set<number>): Promise<number> {
  const { rows } = await probe.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and not (pid = any($1::int[]))`,
    [[...ours]],
  );
  return rows[0].n;
}

/**
 * SIGKILL, then wait until PostgreSQL has ended the dead worker's sessions (rolling back the
 * transaction it was in), which it does when it notices the closed socket: what is read next is
 * the settled state.
 */
async function killHard(worker: WorkerProcess, ours: Set<number>): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
  await until('dead worker sessions gone', async () => [...(await backendPids())].every((pid) => ours.has(pid)), 30_000);
}


// ---------------------------------------------------------------------------------------------
// A merchant with a big transferred batch

interface Batch {
  merchant: TestMerchant;
  batchNumber: number;
  valid: number;
  invalid: number;
}

const post = (m: TestMerchant, path: string, payload: object) => t.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: m.auth, payload });

/**
 * Wallet and bank lines alternate; every 41st is a bank account the sandbox refuses (9901–9903:
 * failed, refunded in full) and every 997th has a malformed bank account (invalid, never debited).
 * No other account ends in a magic suffix: the generated ones end in 10 or 11.
 */
function lines(tag: string, n: number) {
  return Array.from({ length: n }, (_, i) => {
    const amount = `${100 + (i % 37)}.${String(i % 100).padStart(2, '0')}`;
    const seq = String(i).padStart(6, '0');
    const common = { beneficiaryName: `Beneficiary ${i}`, transactionAmount: amount, sourceReferenceNumber: `${tag}-${i}`, transactionDescription: 'salary' };
    if (i % 997 === 996) return { ...common, connectorId: 212188, beneficiaryAccountNumber: '12345' };
    if (i % 41 === 40) return { ...common, connectorId: 212188, beneficiaryAccountNumber: `100000${seq}990${1 + (i % 3)}` };
    if (i % 2 === 0) return { ...common, connectorId: 112400, beneficiaryAccountNumber: `2658${seq}10` };
    return { ...common, connectorId: 212188, beneficiaryAccountNumber: `1000${seq}11` };
  });
}

async function fundedMerchant(): Promise<TestMerchant> {
  const merchant = await newMerchant(t, { accountName: 'Crash Test Payroll' });
  const top = await post(merchant, '/merchants/accounts/topup', {
    merchantAccountNumber: merchant.merchantAccountNumber,
    connectorId: 212188,
    topupAmount: TOPUP_MINOR / 100,
    createdBy: 'ops@crash.mw',
  });
  expect(top.statusCode, top.body).toBe(200);
  await t.db.query(`update merchant_limits set daily_limit_minor = 1000000000000 where merchant_account_number = $1`, [merchant.merchantAccountNumber]);
  return merchant;
}

/** Submitted, validated (the job's own code, in-process) and ready for transferFunds. */
async function validatedBatch(merchant: TestMerchant, tag: string, n: number): Promise<Batch> {
  const res = await post(merchant, '/disbursements/batch/addJson', {
    header: { merchantAccountNumber: merchant.merchantAccountNumber, capturedBy: 'payroll@crash.mw' },
    transactions: lines(tag, n),
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const { batchNumber } = res.json() as { batchNumber: number };
  await taskList(t.deps).validate_batch!({ batchNumber }, {} as JobHelpers);
  const { rows } = await t.db.query<{ status_code: string; number_of_entries: number; number_of_invalid_entries: number }>(
    'select status_code, number_of_entries, number_of_invalid_entries from batches where batch_number = $1',
    [batchNumber],
  );
  expect(rows[0].status_code).toBe('P');
  const invalid = lines(tag, n).filter((l) => l.beneficiaryAccountNumber === '12345').length;
  expect(rows[0].number_of_invalid_entries).toBe(invalid);
  return { merchant, batchNumber, valid: n - invalid, invalid };
}

async function transferFunds(b: Batch): Promise<void> {
  const res = await post(b.merchant, '/disbursements/batch/transferFunds', {
    merchantAccountNumber: b.merchant.merchantAccountNumber,
    batchNumber: b.batchNumber,
    transferredBy: 'finance@crash.mw',
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function finalLines(batchNumber: number): Promise<number> {
  const { rows } = await probe.query<{ n: number }>(`select count(*)::int as n from payouts where batch_number = $1 and status_code in ('S', 'F')`, [batchNumber]);
  return rows[0].n;
}

async function batchStatus(batchNumber: number): Promise<string> {
  const { rows } = await probe.query<{ status_code: string }>('select status_code from batches where batch_number = $1', [batchNumber]);
  return rows[0].status_code;
}

// ---------------------------------------------------------------------------------------------
// The money, checked from one snapshot

interface Snapshot {
  lines: Record<string, number>;
  final: number;
}

/**
 * Every invariant that must hold at any instant, crash or no crash, read in one REPEATABLE READ
 * snapshot: the ledger balances; in flight holds exactly amount + fee of the lines still in T
 * (all merchants); per merchant, the balance is the top-up minus what is in T or paid (failures
 * refunded), settled amounts and fees match the S lines; per batch, the counters match the lines;
 * each final line appears in exactly one batch.payout.* event, with its final status, and was
 * attempted exactly once (a rolled-back chunk leaves no attempt behind).
 */
async function assertMoneyConserved(batches: Batch[]): Promise<Snapshot[]> {
  await probe.query('begin isolation level repeatable read read only');
  try {
    const invariants = await ledgerInvariants(probe as unknown as Db);
    expect(invariants).toEqual({ total: 0, mismatched: 0 });

    const inFlight = await probe.query<{ ledger: number; lines: number }>(
      `select (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id)
                where a.kind = 'payouts_in_flight' and a.is_system) as ledger,
              (select coalesce(sum(amount_minor + fee_minor), 0)::bigint from payouts where status_code = 'T') as lines`,
    );
    expect(inFlight.rows[0].ledger).toBe(inFlight.rows[0].lines);

    const merchants = [...new Set(batches.map((b) => b.merchant.merchantAccountNumber))];
    for (const merchant of merchants) {
      const { rows } = await probe.query<{ balance: number; committed: number; settled: number; fees: number; s_amount: number; s_fee: number; settle_s: number; settle_f: number; s: number; f: number }>(
        `select (select balance_minor from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement') as balance,
                (select coalesce(sum(amount_minor + fee_minor), 0)::bigint from payouts where merchant_account_number = $1 and status_code in ('T', 'S')) as committed,
                (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id) join ledger_transfers x using (merchant_account_number, transfer_id)
                  where e.merchant_account_number = $1 and a.kind = 'payouts_settled' and x.transfer_type = 'payout_settle') as settled,
                (select coalesce(sum(e.amount_minor), 0)::bigint from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id) join ledger_transfers x using (merchant_account_number, transfer_id)
                  where e.merchant_account_number = $1 and a.kind = 'fees' and x.transfer_type = 'payout_settle') as fees,
                (select coalesce(sum(amount_minor), 0)::bigint from payouts where merchant_account_number = $1 and status_code = 'S') as s_amount,
                (select coalesce(sum(fee_minor), 0)::bigint from payouts where merchant_account_number = $1 and status_code = 'S') as s_fee,
                (select coalesce(sum((metadata->>'succeeded')::int), 0)::int from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle') as settle_s,
                (select coalesce(sum((metadata->>'failed')::int), 0)::int from ledger_transfers where merchant_account_number = $1 and transfer_type = 'payout_settle') as settle_f,
                (select count(*)::int from payouts where merchant_account_number = $1 and status_code = 'S') as s,
                (select count(*)::int from payouts where merchant_account_number = $1 and status_code = 'F') as f`,
        [merchant],
      );
      const m = rows[0];
      expect(m.balance, `merchant ${merchant}: balance = top-up − (T and S lines' amount + fee)`).toBe(TOPUP_MINOR - m.committed);
      expect(m.settled).toBe(m.s_amount);
      expect(m.fees).toBe(m.s_fee);
      expect({ succeeded: m.settle_s, failed: m.settle_f }).toEqual({ succeeded: m.s, failed: m.f });
    }

    const snapshots: Snapshot[] = [];
    for (const b of batches) {
      const { rows: byStatus } = await probe.query<{ status_code: string; n: number }>(
        'select status_code, count(*)::int as n from payouts where batch_number = $1 group by status_code',
        [b.batchNumber],
      );
      const count = Object.fromEntries(byStatus.map((r) => [r.status_code, r.n])) as Record<string, number>;
      // Every valid line is in flight or final; nothing else.
      expect(Object.keys(count).filter((s) => !['T', 'S', 'F', 'E'].includes(s))).toEqual([]);
      expect((count.T ?? 0) + (count.S ?? 0) + (count.F ?? 0)).toBe(b.valid);
      expect(count.E ?? 0).toBe(b.invalid);
      const final = (count.S ?? 0) + (count.F ?? 0);

      const { rows: counters } = await probe.query(
        `select b.number_of_successful_entries = s.n and b.successful_amount_minor = s.amount
            and b.number_of_failed_entries = f.n and b.failed_amount_minor = f.amount as matches
           from batches b,
                lateral (select count(*)::int as n, coalesce(sum(amount_minor), 0)::bigint as amount from payouts where batch_number = b.batch_number and status_code = 'S') s,
                lateral (select count(*)::int as n, coalesce(sum(amount_minor), 0)::bigint as amount from payouts where batch_number = b.batch_number and status_code = 'F') f
          where b.batch_number = $1`,
        [b.batchNumber],
      );
      expect(counters[0].matches, `batch ${b.batchNumber} counters match its lines`).toBe(true);

      const { rows: attempts } = await probe.query<{ status_code: string; attempts: number; n: number }>(
        `select status_code, attempts, count(*)::int as n from payouts where batch_number = $1 and status_code <> 'E' group by 1, 2 order by 1, 2`,
        [b.batchNumber],
      );
      for (const a of attempts) expect(a.attempts, `${a.n} line(s) in ${a.status_code}`).toBe(a.status_code === 'T' ? 0 : 1);

      const { rows: events } = await probe.query<{ entries: number; refs: number; matching: number; largest: number }>(
        `with ev as (
           select e.event_id, t->>'transactionReferenceNumber' as ref, t->>'transactionStatusCode' as status, json_array_length(e.payload->'transactions') as size
             from outbox_events e cross join lateral json_array_elements(e.payload->'transactions') t
            where e.event_code like 'batch.payout.%' and (t->>'batchNumber')::int = $1)
         select (select count(*)::int from ev) as entries,
                (select count(distinct ref)::int from ev) as refs,
                (select count(*)::int from ev join payouts p on p.transaction_reference_number = ev.ref and p.batch_number = $1 and p.status_code = ev.status) as matching,
                (select coalesce(max(size), 0)::int from ev) as largest`,
        [b.batchNumber],
      );
      const { largest, ...seen } = events[0];
      expect(seen, `batch ${b.batchNumber}: each final line in exactly one batch.payout.* event, with its status`).toEqual({ entries: final, refs: final, matching: final });
      expect(largest).toBeLessThanOrEqual(10);
      snapshots.push({ lines: count, final });
    }
    return snapshots;
  } finally {
    await probe.query('rollback');
  }
}

/** The end state: batch C, no line in T, in flight empty, the merchant charged for successes only. */
async function assertCompleted(batches: Batch[]): Promise<void> {
  const snapshots = await assertMoneyConserved(batches);
  for (const [i, b] of batches.entries()) {
    expect(await batchStatus(b.batchNumber)).toBe('C');
    expect(snapshots[i].lines.T ?? 0).toBe(0);
    expect(snapshots[i].final).toBe(b.valid);
    const { rows } = await probe.query<{ n: number }>(`select count(*)::int as n from outbox_events where event_code = 'batch.received' and (payload->'metaData'->>'batchNumber')::int = $1`, [b.batchNumber]);
    expect(rows[0].n).toBe(1);
  }
  const { rows } = await probe.query<{ in_flight: number }>(
    `select coalesce(sum(e.amount_minor), 0)::bigint as in_flight from ledger_entries e join ledger_accounts a using (merchant_account_number, account_id)
      where a.kind = 'payouts_in_flight' and a.is_system`,
  );
  expect(rows[0].in_flight).toBe(0);
  for (const merchant of new Set(batches.map((b) => b.merchant.merchantAccountNumber))) {
    const { rows: m } = await probe.query<{ balance: number; paid: number }>(
      `select (select balance_minor from ledger_accounts where merchant_account_number = $1 and kind = 'disbursement') as balance,
              (select coalesce(sum(amount_minor + fee_minor), 0)::bigint from payouts where merchant_account_number = $1 and status_code = 'S') as paid`,
      [merchant],
    );
    expect(m[0].balance).toBe(TOPUP_MINOR - m[0].paid);
  }
}

// ---------------------------------------------------------------------------------------------

describe('payout workers under crashes', () => {
  it('workers SIGKILLed mid-chunk leave every line T or final, and a new worker finishes without paying any line twice', { timeout: 150_000 }, async () => {
    const merchant = await fundedMerchant();
    const batch = await validatedBatch(merchant, 'KILL', LINES);
    await transferFunds(batch);
    await assertMoneyConserved([batch]);

    // Our own connections, so that a dead worker's can be told apart after the kill.
    const ours = await backendPids();
    const kills: string[] = [];
    let committed = 0;
    // Two crashes in a row: the second worker resumes after the first crash and is killed in turn.
    for (let k = 1; k <= 2; k++) {
      const worker = startWorker();
      const spawnedAt = Date.now();
      // Kill once this worker has committed a chunk of its own and is inside the next one: its
      // transaction has updated payouts (RowExclusiveLock on the table) but not committed. At
      // least two chunks must still be to come, so the kill never lands past the end of the batch.
      const seen = await until(
        `worker ${k} inside a chunk after committing one`,
        async () => {
          const done = await finalLines(batch.batchNumber);
          if (done > batch.valid - 2 * CHUNK_LINES) throw new Error(`worker ${k} got too far (${done}/${batch.valid}) before it could be killed`);
          if (done <= committed) return undefined;
          return (await othersHold(ours, 'payouts', 'RowExclusiveLock')) ? done : undefined;
        },
        60_000,
        5,
        worker.output,
      );
      const killedAfter = Date.now() - spawnedAt;
      await killHard(worker, ours);

      const [partial] = await assertMoneyConserved([batch]);
      expect(partial.final).toBeGreaterThanOrEqual(seen);
      expect(partial.final).toBeLessThan(batch.valid);
      expect(partial.final % CHUNK_LINES).toBe(0); // whole chunks only (no line here waits for the connector)
      expect(await batchStatus(batch.batchNumber)).toBe('T');
      kills.push(`worker ${k} killed ${killedAfter} ms after spawn with ${seen} final → ${partial.final} after its sessions ended (${partial.final === seen ? 'open chunk rolled back' : 'open chunk had committed'})`);
      committed = partial.final;
    }

    // graphile-worker keeps a dead worker's job locked for hours; the new worker's start-up
    // sweep wakes the merchant's payouts anyway.
    const resumedAt = Date.now();
    const last = startWorker();
    await until('batch completed by the last worker', async () => (await batchStatus(batch.batchNumber)) === 'C', 90_000, 100, last.output);
    const resumeMs = Date.now() - resumedAt;
    await assertCompleted([batch]);
    // The job logs after its last commit: wait for the line, then it must account for the rest exactly.
    await until('last worker reported', async () => last.processed() > 0, 10_000);
    expect(last.processed()).toBe(batch.valid - committed);

    last.child.kill('SIGTERM');
    await last.exited;
    expect(last.child.exitCode).toBe(0);
    if (VERBOSE) console.info(`${kills.join('; ')}; last worker: ${batch.valid - committed} lines, spawn to C ${resumeMs} ms`);
  });

  it('a worker SIGKILLed mid-validation: the next worker validates the batch, and it is paid once', { timeout: 150_000 }, async () => {
    const merchant = await fundedMerchant();
    const res = await post(merchant, '/disbursements/batch/addJson', {
      header: { merchantAccountNumber: merchant.merchantAccountNumber, capturedBy: 'payroll@crash.mw' },
      transactions: lines('VALID', LINES),
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const { batchNumber } = res.json() as { batchNumber: number };
    const invalid = lines('VALID', LINES).filter((l) => l.beneficiaryAccountNumber === '12345').length;
    const batch: Batch = { merchant, batchNumber, valid: LINES - invalid, invalid };

    const ours = await backendPids();
    const first = startWorker();
    // Inside the validation transaction: the worker holds the batch row (FOR UPDATE).
    await until(
      'first worker validating',
      async () => {
        if ((await batchStatus(batchNumber)) !== 'Q') throw new Error('the batch was validated before the worker could be killed');
        return othersHold(ours, 'batches', 'RowShareLock');
      },
      60_000,
      5,
      first.output,
    );
    await killHard(first, ours);
    expect(await batchStatus(batchNumber)).toBe('Q');
    expect((await probe.query('select 1 from payouts where batch_number = $1', [batchNumber])).rowCount).toBe(0);

    // The dead worker's validation job stays locked for hours; the next worker must not wait for it.
    const resumedAt = Date.now();
    const second = startWorker();
    await until('batch validated by the second worker', async () => (await batchStatus(batchNumber)) === 'P', 30_000, 100, second.output);
    const validatedMs = Date.now() - resumedAt;
    await transferFunds(batch);
    await until('batch completed', async () => (await batchStatus(batchNumber)) === 'C', 90_000, 100, second.output);
    await assertCompleted([batch]);
    second.child.kill('SIGTERM');
    await second.exited;
    expect(second.child.exitCode).toBe(0);
    if (VERBOSE) console.info(`validation: killed mid-validation; next worker spawn to P ${validatedMs} ms`);
  });

  it('two workers on one merchant at once: every line final exactly once', { timeout: 150_000 }, async () => {
    const merchant = await fundedMerchant();
    const big = await validatedBatch(merchant, 'BOTH', LINES);
    const late = await validatedBatch(merchant, 'LATE', 2_000);
    await transferFunds(big);

    // Made to overlap, not left to timing: the test holds the big batch's row, so the first worker
    // to take a chunk stops inside its transaction with its lines locked. A second job for the
    // merchant (what the overdue sweep or another transfer adds) can then only go to the other
    // worker (one job slot each), whose chunk skips the locked lines and stops there too.
    const holder = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from batches where merchant_account_number = $1 and batch_number = $2 for update', [merchant.merchantAccountNumber, big.batchNumber]);
      const ours = await backendPids();
      const workers = [startWorker({ WORKER_CONCURRENCY: '1' }), startWorker({ WORKER_CONCURRENCY: '1' })];
      const outputs = () => workers.map((w) => w.output()).join('\n');
      await until('one worker inside a chunk', async () => (await othersWaiting(ours)) >= 1, 60_000, 10, outputs);
      await schedulePayouts(t.deps.db, merchant.merchantAccountNumber, new Date());
      await until('both workers inside a chunk', async () => (await othersWaiting(ours)) >= 2, 60_000, 10, outputs);
      await holder.query('rollback');

      // A second batch transferred while the first is being paid.
      await transferFunds(late);
      const startedAt = Date.now();
      await until(
        'both batches completed',
        async () => (await batchStatus(big.batchNumber)) === 'C' && (await batchStatus(late.batchNumber)) === 'C',
        90_000,
        100,
        outputs,
      );
      const completeMs = Date.now() - startedAt;
      await assertCompleted([big, late]);
      // Each process reports what its jobs processed; together exactly the valid lines, once.
      await until('both workers reported', async () => workers.reduce((s, w) => s + w.processed(), 0) === big.valid + late.valid, 10_000);
      const shares = workers.map((w) => w.processed());
      // Both processes paid lines of these batches: the exactly-once checks above covered real sharing.
      for (const share of shares) expect(share).toBeGreaterThan(0);

      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
      for (const w of workers) expect(w.child.exitCode, w.output()).toBe(0);
      if (VERBOSE) console.info(`concurrent: lines processed per worker ${shares.join(' + ')} = ${big.valid + late.valid}; to C after the second transfer: ${completeMs} ms`);
    } finally {
      await holder.end().catch(() => undefined);
    }
  });
});

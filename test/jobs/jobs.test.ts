// The job queue and the outbox: transactional enqueue, a real worker, NOTIFY on commit only.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { emitEvent, OUTBOX_CHANNEL } from '../../src/jobs/outbox.ts';
import { enqueue, startWorker } from '../../src/jobs/queue.ts';
import { workerPlan } from '../../src/composition.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(() => t.close());

async function queuedJobs(task: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = $1`,
    [task],
  );
  return rows[0].n;
}

async function eventually(check: () => Promise<boolean>, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached');
}

describe('enqueue(tx, …)', () => {
  it('adds the job only when the transaction commits', async () => {
    await withTransaction(t.db, (tx) => enqueue(tx, 'probe_task', { n: 1 }));
    await withTransaction(t.db, async (tx) => {
      await enqueue(tx, 'probe_task', { n: 2 });
      await tx.query('rollback; begin'); // abandon the work, as a failed request would
    });
    expect(await queuedJobs('probe_task')).toBe(1);
  });
});

describe('the worker', () => {
  it('runs idempotency_cleanup: expired records go, live ones stay', async () => {
    await t.db.query(
      `insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until, response_status, response_body, expires_at)
       values ($1, 'expired-key-0000001', repeat('a', 64), 'completed', gen_random_uuid(), now(), 200, '{}', now() - interval '1 minute'),
              ($1, 'live-key-000000001', repeat('b', 64), 'completed', gen_random_uuid(), now(), 200, '{}', now() + interval '1 hour')`,
      [m.merchantAccountNumber],
    );
    const worker = await startWorker(t.deps, 1, workerPlan(t.deps));
    try {
      await withTransaction(t.db, (tx) => enqueue(tx, 'idempotency_cleanup', {}));
      await eventually(async () => (await t.db.query(`select 1 from idempotency_keys where idempotency_key = 'expired-key-0000001'`)).rowCount === 0);
    } finally {
      await worker.stop();
    }
    expect((await t.db.query(`select 1 from idempotency_keys where idempotency_key = 'live-key-000000001'`)).rowCount).toBe(1);
  });
});

describe('emitEvent(tx, …)', () => {
  it('writes the outbox row and notifies listeners on commit, never on rollback', async () => {
    const listener = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await listener.connect();
    const seen: string[] = [];
    listener.on('notification', (n) => seen.push(n.payload ?? ''));
    await listener.query(`listen ${OUTBOX_CHANNEL}`);
    try {
      const kept = await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, 'payment.success', { transactionAmount: 10 }));
      await withTransaction(t.db, async (tx) => {
        await emitEvent(tx, m.merchantAccountNumber, 'payment.success', { transactionAmount: 20 });
        await tx.query('rollback; begin');
      });
      await eventually(async () => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 200)); // room for a wrong second notification
      expect(seen).toEqual([String(kept.eventId)]);
      const { rows } = await t.db.query('select event_code, payload from outbox_events where merchant_account_number = $1', [m.merchantAccountNumber]);
      expect(rows).toEqual([{ event_code: 'payment.success', payload: { transactionAmount: 10 } }]);
    } finally {
      await listener.end();
    }
  });
});

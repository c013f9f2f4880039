// Self-test of test/db/pg-replication-kit.ts: a synchronous pair survives a crash of its primary
// by promotion, a paused standby lags, and PgBouncer pools transactions in front of a server.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { available, pgbouncerAvailable, startPgBouncer, startReplicationPair, type PgBouncer, type ReplicationPair } from './pg-replication-kit.ts';

const postgres15 = available();
const pgbouncer = pgbouncerAvailable();

function skipReason(...checks: ReturnType<typeof available>[]): string {
  const why = checks.flatMap((check) => (check.ok ? [] : [check.why]));
  return why.length > 0 ? ` (skipped: ${why.join('; ')})` : '';
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function ids(url: string): Promise<number[]> {
  return withClient(url, async (c) => (await c.query<{ id: number }>('select id from kit_rows order by id')).rows.map((r) => r.id));
}

async function insert(url: string, id: number): Promise<void> {
  await withClient(url, (c) => c.query('insert into kit_rows (id) values ($1)', [id]));
}

describe.skipIf(!postgres15.ok)(`a synchronous replication pair of PostgreSQL 15${skipReason(postgres15)}`, () => {
  let pair: ReplicationPair | undefined;
  const bouncers: PgBouncer[] = [];

  beforeAll(async () => {
    pair = await startReplicationPair({ synchronous: true });
  });
  afterAll(async () => {
    await Promise.all(bouncers.map((b) => b.close()));
    await pair?.close();
  });

  // Before the failover test below, which kills the primary.
  describe.skipIf(!pgbouncer.ok)(`PgBouncer in front of the primary${skipReason(pgbouncer)}`, () => {
    it('runs queries, and unnamed parameterised statements of two clients on one server connection', async () => {
      const bouncer = await startPgBouncer({ host: '127.0.0.1', port: pair!.primary.port }, { poolSize: 1 });
      bouncers.push(bouncer);
      await withClient(bouncer.url('postgres'), async (a) => {
        await withClient(bouncer.url('postgres'), async (b) => {
          expect((await a.query('select current_database() as db')).rows[0].db).toBe('postgres');
          // Pool size 1, transaction pooling: both clients are served by the same backend, in turns.
          const pidA = (await a.query('select pg_backend_pid() as pid')).rows[0].pid;
          const pidB = (await b.query('select pg_backend_pid() as pid')).rows[0].pid;
          expect(pidB).toBe(pidA);
          const [one, two] = await Promise.all([a.query('select $1::int + 1 as n', [41]), b.query('select upper($1::text) as s', ['pooled'])]);
          expect(one.rows[0].n).toBe(42);
          expect(two.rows[0].s).toBe('POOLED');
        });
      });
    });

    it("passes a password to a server that asks for one: the test run's embedded server", async () => {
      const admin = new URL(inject('adminDatabaseUrl'));
      const user = decodeURIComponent(admin.username);
      const target = { host: admin.hostname === 'localhost' ? '127.0.0.1' : admin.hostname, port: Number(admin.port || 5432) };
      const bouncer = await startPgBouncer(target, { passwords: { [user]: decodeURIComponent(admin.password) } });
      bouncers.push(bouncer);
      const url = new URL(bouncer.url('postgres'));
      url.username = admin.username;
      const answer = await withClient(url.toString(), (c) => c.query('select $1::int as n', [7]));
      expect(answer.rows[0].n).toBe(7);
    });
  });

  it('replicates, lags when paused, and fails over to the standby without losing a committed row', async () => {
    const { primary, standby } = pair!;
    await withClient(primary.url(), (c) => c.query('create table kit_rows (id int primary key)'));
    await insert(primary.url(), 1);
    // Synchronous commit waits for the standby's flush, not its replay: poll.
    await expect.poll(() => ids(standby.url()).catch(() => []), { timeout: 10_000 }).toEqual([1]);

    await pair!.pauseReplay();
    await insert(primary.url(), 2);
    const lsn = (await withClient(primary.url(), (c) => c.query('select pg_current_wal_flush_lsn() as lsn'))).rows[0].lsn as string;
    // The standby has the row's WAL but does not apply it.
    const state = `select pg_last_wal_receive_lsn() >= $1::pg_lsn as received, pg_last_wal_replay_lsn() >= $1::pg_lsn as replayed`;
    await expect.poll(async () => (await withClient(standby.url(), (c) => c.query(state, [lsn]))).rows[0].received, { timeout: 10_000 }).toBe(true);
    expect((await withClient(standby.url(), (c) => c.query(state, [lsn]))).rows[0].replayed).toBe(false);
    expect(await ids(standby.url())).toEqual([1]);
    await pair!.resumeReplay();
    await expect.poll(() => ids(standby.url()), { timeout: 10_000 }).toEqual([1, 2]);

    // Committed, so flushed on the standby; killed at once, before the standby need have replayed it.
    await insert(primary.url(), 3);
    await pair!.killPrimary();
    await expect(withClient(primary.url(), (c) => c.query('select 1'))).rejects.toThrow(/ECONNREFUSED/);
    await pair!.promoteStandby();
    expect(await ids(standby.url())).toEqual([1, 2, 3]);
    await insert(standby.url(), 4);
    expect(await ids(standby.url())).toEqual([1, 2, 3, 4]);
  });
});

// Read replicas (DATABASE_REPLICA_URL): reads that may be a little stale (lists, analytics,
// statements, console pages) go to a replica that is up and within
// DATABASE_REPLICA_MAX_LAG_SECONDS of the primary; everything else stays on the primary (writes,
// anything in a transaction, idempotent replays, and a merchant's reads right after its own write,
// so a page after an action shows it). A replica is checked every second: down, not in recovery
// (promoted: it is no replica any more) or too far behind, it is skipped until it is good again.
// Replicas are never migrated: they follow the primary's schema by replication.
import type { FastifyBaseLogger } from 'fastify';
import { createPool, type Db } from './pool.ts';
import { hostLabel, parseDatabaseHosts } from './hosts.ts';

const CHECK_EVERY_MS = 1_000;
const REPLICA_POOL_SIZE = 10;

interface Replica {
  label: string;
  pool: Db;
  usable: boolean;
  /** Seconds behind the primary at the last check (Infinity when unknown: down, or never replayed). */
  lagSeconds: number;
  /** Why it is skipped, said once when that changes. */
  reason: string | undefined;
}

export interface ReplicaStatus {
  replica: string;
  usable: boolean;
  lagSeconds: number | null;
  reason: string | null;
}

export class ReplicaSet {
  private readonly replicas: Replica[];
  /** Merchants whose reads stay on the primary until then (ms since the epoch): they just wrote. */
  private readonly primaryUntil = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private next = 0;

  constructor(
    private readonly primary: Db,
    urls: readonly string[],
    private readonly maxLagSeconds: number,
    private readonly log: Pick<FastifyBaseLogger, 'info' | 'warn'>,
  ) {
    this.replicas = urls.map((url) => ({ label: parseDatabaseHosts(url).hosts.map(hostLabel).join(','), pool: createPool(url, REPLICA_POOL_SIZE), usable: false, lagSeconds: Infinity, reason: 'not checked yet' }));
  }

  /** Checks every replica once (and says what it found), then every second. */
  async start(): Promise<void> {
    await this.refresh();
    for (const r of this.replicas) this.log.info(`database replica ${r.label}: ${r.usable ? `in use, ${r.lagSeconds.toFixed(1)} s behind; not migrated (it follows the primary)` : `skipped: ${r.reason}`}`);
    this.timer = setInterval(() => void this.refresh(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => undefined)));
  }

  /**
   * Where a read that may be stale by up to the lag bound goes: a usable replica (in turn), or
   * the primary when none is, or when this merchant wrote within the bound (read your writes).
   */
  forRead(merchantAccountNumber?: number): Db {
    if (merchantAccountNumber !== undefined && (this.primaryUntil.get(merchantAccountNumber) ?? 0) > Date.now()) return this.primary;
    const usable = this.replicas.filter((r) => r.usable);
    if (usable.length === 0) return this.primary;
    this.next = (this.next + 1) % usable.length;
    return usable[this.next].pool;
  }

  /** A merchant's write was acknowledged: its reads stay on the primary for the lag bound (and a second). */
  wrote(merchantAccountNumber: number): void {
    const until = Date.now() + (this.maxLagSeconds + 1) * 1000;
    this.primaryUntil.set(merchantAccountNumber, until);
    // Bounded: entries past their time are dropped whenever the map grows large.
    if (this.primaryUntil.size > 10_000) for (const [m, t] of this.primaryUntil) if (t <= Date.now()) this.primaryUntil.delete(m);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ replica: r.label, usable: r.usable, lagSeconds: Number.isFinite(r.lagSeconds) ? r.lagSeconds : null, reason: r.reason ?? null }));
  }

  /** Checks every replica now (every second once started; a test asks for it at a chosen moment). */
  async refresh(): Promise<void> {
    let primaryLsn: string | undefined;
    try {
      primaryLsn = (await this.primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0].lsn;
    } catch {
      // No primary to compare with: replicas keep their last verdict until it answers again.
      return;
    }
    await Promise.all(this.replicas.map((r) => this.check(r, primaryLsn)));
  }

  /**
   * Lag: nothing when the replica has replayed up to the primary's position read just before;
   * otherwise the time since the last transaction it replayed (conservative: a replica that is
   * behind only by an idle stretch counts the stretch).
   */
  private async check(r: Replica, primaryLsn: string): Promise<void> {
    let reason: string | undefined;
    try {
      const { rows } = await r.pool.query<{ standby: boolean; caught_up: boolean | null; behind: number | null }>(
        `select pg_is_in_recovery() as standby,
                pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up,
                extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as behind`,
        [primaryLsn],
      );
      const row = rows[0];
      r.lagSeconds = row.caught_up ? 0 : (row.behind ?? Infinity);
      if (!row.standby) reason = 'not in recovery (promoted, or not a replica): reads would miss the primary\'s writes';
      else if (r.lagSeconds > this.maxLagSeconds) reason = `${Number.isFinite(r.lagSeconds) ? r.lagSeconds.toFixed(1) : 'unknown'} s behind the primary (bound ${this.maxLagSeconds} s)`;
    } catch (err) {
      r.lagSeconds = Infinity;
      reason = `unreachable (${(err as { code?: string }).code ?? (err as Error).message})`;
    }
    if (reason !== r.reason && r.reason !== 'not checked yet') this.log.warn(reason ? `database replica ${r.label} skipped: ${reason}` : `database replica ${r.label} in use again`);
    r.reason = reason;
    r.usable = reason === undefined;
  }
}

/**
 * The pool for a read that may be up to DATABASE_REPLICA_MAX_LAG_SECONDS stale: a replica when
 * one is configured and usable (ReplicaSet.forRead), else the primary. Never for a read inside a
 * transaction, before a write, or an idempotent replay: those use `db`.
 */
export function readDb(deps: { db: Db; reads?: ReplicaSet }, merchantAccountNumber?: number): Db {
  return deps.reads?.forRead(merchantAccountNumber) ?? deps.db;
}

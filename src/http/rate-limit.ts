// Per-merchant rate limit (product.md §5): a fixed one-second window per key.
//
// Two stores, chosen with RATE_LIMIT_STORE:
// - `memory` (default): counts in this process. Exact and free, but each process enforces the
//   full limit on its own.
// - `postgres`: the limit holds across every process that shares the database. Processes lease
//   permits from a shared per-window counter in chunks (a tenth of the limit), so a process
//   makes one round trip per chunk rather than per request, and the permits granted in a window
//   never add up to more than the limit. The price: a process may hold a few unused permits when
//   the window ends, so a merchant split over many processes can see slightly fewer than the limit.
import type { Db } from '../db/pool.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetUnixSeconds: number;
  retryAfterSeconds: number;
}

export interface RateLimiter {
  readonly enabled: boolean;
  take(key: string, nowMs: number): RateDecision | Promise<RateDecision>;
}

// Bounded memory: one small entry per active key; cleared wholesale past this many.
const MAX_KEYS = 100_000;

function decision(allowed: boolean, limit: number, remaining: number, second: number): RateDecision {
  return { allowed, limit, remaining: Math.max(0, remaining), resetUnixSeconds: second + 1, retryAfterSeconds: 1 };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { windowSecond: number; count: number }>();

  constructor(private readonly limitPerSecond: number) {}

  get enabled(): boolean {
    return this.limitPerSecond > 0;
  }

  take(key: string, nowMs: number): RateDecision {
    const second = Math.floor(nowMs / 1000);
    let entry = this.windows.get(key);
    if (!entry || entry.windowSecond !== second) {
      if (!entry && this.windows.size >= MAX_KEYS) this.windows.clear();
      entry = { windowSecond: second, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return decision(entry.count <= this.limitPerSecond, this.limitPerSecond, this.limitPerSecond - entry.count, second);
  }
}

interface Lease {
  windowSecond: number;
  /** Permits this process holds for the window and has not used yet. */
  unused: number;
  /** Permits granted to all processes in this window, as of our last lease. */
  grantedEverywhere: number;
  /** A lease request in flight: concurrent requests wait for it instead of asking again. */
  pending: Promise<void> | undefined;
}

export class PostgresRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly chunk: number;

  constructor(
    private readonly db: Db,
    private readonly limitPerSecond: number,
  ) {
    this.chunk = Math.max(1, Math.ceil(limitPerSecond / 10));
  }

  get enabled(): boolean {
    return this.limitPerSecond > 0;
  }

  async take(key: string, nowMs: number): Promise<RateDecision> {
    const second = Math.floor(nowMs / 1000);
    let lease = this.leases.get(key);
    if (!lease || lease.windowSecond !== second) {
      if (!lease && this.leases.size >= MAX_KEYS) this.leases.clear();
      lease = { windowSecond: second, unused: 0, grantedEverywhere: 0, pending: undefined };
      this.leases.set(key, lease);
    }
    // Bounded: every lease either grants a permit or exhausts the window, so a window sees at
    // most limit/chunk + 1 leases, and no request waits for more than that many.
    const maxLeases = Math.ceil(this.limitPerSecond / this.chunk) + 1;
    for (let attempt = 0; attempt < maxLeases && lease.unused === 0 && lease.grantedEverywhere < this.limitPerSecond; attempt++) {
      lease.pending ??= this.lease(key, lease).finally(() => {
        lease!.pending = undefined;
      });
      await lease.pending;
    }
    const notYetLeased = this.limitPerSecond - Math.min(this.limitPerSecond, lease.grantedEverywhere);
    if (lease.unused === 0) return decision(false, this.limitPerSecond, notYetLeased, second);
    lease.unused -= 1;
    return decision(true, this.limitPerSecond, notYetLeased + lease.unused, second);
  }

  private async lease(key: string, lease: Lease): Promise<void> {
    // `requested` counts every permit asked for in the window, granted or not; what this request
    // gets is whatever part of its chunk still fits under the limit.
    const { rows } = await this.db.query<{ requested: number }>({
      name: 'rate_limit_lease',
      text: `insert into rate_limit_windows as w (limiter_key, window_second, requested) values ($1, $2, $3)
             on conflict (limiter_key, window_second) do update set requested = w.requested + excluded.requested
             returning requested`,
      values: [key, lease.windowSecond, this.chunk],
    });
    const requestedBefore = rows[0].requested - this.chunk;
    const granted = Math.max(0, Math.min(this.chunk, this.limitPerSecond - requestedBefore));
    lease.unused += granted;
    lease.grantedEverywhere = Math.min(this.limitPerSecond, rows[0].requested);
  }
}

/** Deletes windows that ended more than a minute ago; run by the `rate_limit_cleanup` job. */
export async function deleteOldRateWindows(db: Db, nowMs: number): Promise<number> {
  const { rowCount } = await db.query('delete from rate_limit_windows where window_second < $1', [Math.floor(nowMs / 1000) - 60]);
  return rowCount ?? 0;
}

export function createRateLimiter(store: 'memory' | 'postgres', db: Db, limitPerSecond: number): RateLimiter {
  return store === 'postgres' ? new PostgresRateLimiter(db, limitPerSecond) : new MemoryRateLimiter(limitPerSecond);
}

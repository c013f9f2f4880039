// Per-merchant rate limit (product.md §5): a fixed one-second window per key, in process memory.
// Several processes each enforce the full limit; a shared store is future work (issue notes).

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetUnixSeconds: number;
  retryAfterSeconds: number;
}

// Bounded memory: one small entry per active key; cleared wholesale past this many.
const MAX_KEYS = 100_000;

export class RateLimiter {
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
    const allowed = entry.count <= this.limitPerSecond;
    return {
      allowed,
      limit: this.limitPerSecond,
      remaining: Math.max(0, this.limitPerSecond - entry.count),
      resetUnixSeconds: second + 1,
      retryAfterSeconds: 1,
    };
  }
}

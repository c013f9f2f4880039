// A small per-process read-through cache: values expire after `ttlMs`, concurrent misses for one
// key share one load, a failed load is not cached, and the entry count is bounded (cleared
// wholesale past `maxEntries`, which is cheaper and simpler than LRU bookkeeping on a hot path).
import type { Clock } from './clock.ts';

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: Promise<V>; loadedAtMs: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly load: (key: K) => Promise<V>,
    private readonly maxEntries = 100_000,
  ) {}

  get(key: K): Promise<V> {
    const nowMs = this.clock.now().getTime();
    const cached = this.entries.get(key);
    if (cached && nowMs - cached.loadedAtMs < this.ttlMs) return cached.value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = this.load(key);
    this.entries.set(key, { value, loadedAtMs: nowMs });
    // Only this load's own entry: a newer load for the key may have replaced it meanwhile.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  invalidate(key?: K): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}

// Whether a key's tokens may still be used. Checked on every authenticated request, so it is
// cached per process for `keyStatusCacheMs` (default 2 s): deactivating or deleting a key stops
// its tokens within that time on every process, and at once on the process that made the change.
import type { Clock } from '../../http/types.ts';
import type { Db } from '../../db/pool.ts';

interface Entry {
  usable: Promise<boolean>;
  fetchedAtMs: number;
}

// Bounded: one entry per live key; past this the cache starts over rather than grow without end.
const MAX_ENTRIES = 100_000;

export class KeyStatusCache {
  private readonly entries = new Map<number, Entry>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  isUsable(clientId: number): Promise<boolean> {
    const nowMs = this.clock.now().getTime();
    const cached = this.entries.get(clientId);
    if (cached && nowMs - cached.fetchedAtMs < this.ttlMs) return cached.usable;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Concurrent requests for the same key share one query.
    const usable = this.fetch(clientId);
    this.entries.set(clientId, { usable, fetchedAtMs: nowMs });
    usable.catch(() => this.entries.delete(clientId));
    return usable;
  }

  invalidate(clientId?: number): void {
    if (clientId === undefined) this.entries.clear();
    else this.entries.delete(clientId);
  }

  private async fetch(clientId: number): Promise<boolean> {
    const { rows } = await this.db.query<{ usable: boolean }>(
      `select (k.status_code = 'A' and k.date_deleted is null
               and (k.expiry_date is null or k.expiry_date > $2)
               and m.status_code = 'A') as usable
         from api_keys k join merchants m on m.merchant_account_number = k.merchant_account_number
        where k.client_id = $1`,
      [clientId, this.clock.now()],
    );
    return rows[0]?.usable === true;
  }
}

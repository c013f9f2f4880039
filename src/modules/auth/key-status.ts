// Whether a key's tokens may still be used. Checked on every authenticated request, so it is
// cached per process for `keyStatusCacheMs` (default 2 s): deactivating or deleting a key stops
// its tokens within that time on every process, and at once on the process that made the change.
import type { Db } from '../../db/pool.ts';
import type { Clock } from '../../http/types.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';

export class KeyStatusCache {
  private readonly cache: TtlCache<number, boolean>;

  constructor(db: Db, clock: Clock, ttlMs: number) {
    this.cache = new TtlCache(clock, ttlMs, async (clientId) => {
      const { rows } = await db.query<{ usable: boolean }>(
        `select (k.status_code = 'A' and k.date_deleted is null
                 and (k.expiry_date is null or k.expiry_date > $2)
                 and m.status_code = 'A') as usable
           from api_keys k join merchants m on m.merchant_account_number = k.merchant_account_number
          where k.client_id = $1`,
        [clientId, clock.now()],
      );
      return rows[0]?.usable === true;
    });
  }

  isUsable(clientId: number): Promise<boolean> {
    return this.cache.get(clientId);
  }

  invalidate(clientId?: number): void {
    this.cache.invalidate(clientId);
  }
}

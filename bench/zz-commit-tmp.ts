import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
const e = await startEmbeddedPostgres(path.resolve('.bench-data'), () => undefined);
const pool = new pg.Pool({ connectionString: e.connectionString, max: 20 });
await pool.query('create temp table if not exists x (a int)').catch(() => {});
await pool.query('drop table if exists zz_commit; create table zz_commit (a int)');
for (const c of [1, 4, 19]) {
  const n = 2000;
  const t0 = performance.now();
  let i = 0;
  await Promise.all(Array.from({ length: c }, async () => { while (i++ < n) await pool.query('insert into zz_commit values (1)'); }));
  const ms = performance.now() - t0;
  console.log(`concurrency ${c}: ${(n / (ms / 1000)).toFixed(0)} commits/s, ${(ms / n * c).toFixed(2)} ms per commit`);
}
const s = await pool.query(`select name, setting from pg_settings where name in ('fsync','synchronous_commit','wal_sync_method','commit_delay','shared_buffers','wal_buffers','full_page_writes','max_wal_size')`);
console.log(s.rows);
await pool.query('drop table zz_commit');
await pool.end();
await e.stop();
process.exit(0);

import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { systemClock, type Deps } from '../src/http/types.ts';
import { emitEvent } from '../src/jobs/outbox.ts';
import { migrateQueue } from '../src/jobs/queue.ts';
import { createMerchant } from '../src/modules/merchants/service.ts';
import { addWebhook } from '../src/modules/webhooks/service.ts';
import { samplePayload } from '../src/modules/webhooks/payloads.ts';
const src = (await import('node:fs')).readFileSync('src/modules/webhooks/dispatcher.ts', 'utf8');
const CLAIM_SQL = /const CLAIM_SQL = `([\s\S]*?)`;/.exec(src)![1];
const RECORD_SQL = /const RECORD_SQL = `([\s\S]*?)`;/.exec(src)![1];
const N = 5000;
const embedded = await startEmbeddedPostgres(path.resolve('.bench-data'), () => undefined);
const name = `onekhusa_prof_${Date.now()}`;
const admin = new pg.Client({ connectionString: embedded.connectionString });
await admin.connect();
await admin.query(`create database ${name}`);
const u = new URL(embedded.connectionString);
u.pathname = '/' + name;
const config = loadConfig({ DATABASE_URL: u.toString(), LOG_LEVEL: 'silent', JWT_SECRET: randomBytes(48).toString('base64url') });
const db = createPool(u.toString(), 20);
await migrate(db);
await migrateQueue(db);
const deps: Deps = { db, config, clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret!) };
const m = await createMerchant(deps, { accountName: 'P', capturedBy: 'bench' });
await addWebhook(deps, { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: 'http://127.0.0.1:9/hook', capturedBy: 'b@e.mw' });
const client = await db.connect();
await client.query('begin');
for (let i = 0; i < N; i++) await emitEvent(client, m.merchantAccountNumber, 'payment.success', samplePayload('payment.success', m.merchantAccountNumber, m.paymentAccountNumber, new Date()));
await client.query('commit');
client.release();

async function drain(batch: number, label: string, batchedRecord: boolean) {
  let claims = 0, claimMs = 0, recMs = 0, recs = 0;
  const t0 = performance.now();
  for (;;) {
    let t = performance.now();
    const { rows } = await db.query(CLAIM_SQL, [batch, 30000, []]);
    claimMs += performance.now() - t; claims++;
    if (rows.length === 0) break;
    t = performance.now();
    if (!batchedRecord) {
      await Promise.all(rows.map((r: any) => db.query(RECORD_SQL, [r.delivery_id, r.lease, 'succeeded', 0, r.total_attempts, new Date(), 204, 1, '', null])));
    } else {
      await db.query(`with o as (select * from unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::smallint[]) as o(delivery_id, lease, attempt_number, http_status)),
        updated as (update webhook_deliveries d set status = 'succeeded', next_attempt_at = now(), locked_until = null, completed_at = now()
                      from o where d.delivery_id = o.delivery_id and d.locked_until = o.lease returning d.delivery_id, d.merchant_account_number, o.attempt_number, o.http_status)
        insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, http_status, latency_ms, response_snippet, error)
        select delivery_id, merchant_account_number, attempt_number, now(), http_status, 1, '', null from updated on conflict (delivery_id, attempt_number) do nothing`,
        [rows.map((r: any) => r.delivery_id), rows.map((r: any) => r.lease), rows.map((r: any) => r.total_attempts), rows.map(() => 204)]);
    }
    recMs += performance.now() - t; recs += rows.length;
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`${label}: ${recs} in ${s.toFixed(2)} s = ${(recs / s).toFixed(0)}/s; claims ${claims} avg ${(claimMs / claims).toFixed(2)} ms; record wall per batch ${(recMs / (claims - 1)).toFixed(2)} ms`);
}
const reset = async () => {
  await db.query(`update webhook_deliveries set status='pending', next_attempt_at=now(), locked_until=null, round_attempts=0, total_attempts=0, completed_at=null`);
  await db.query('delete from webhook_attempts');
  await db.query('vacuum analyze webhook_deliveries');
};
await reset();
const ex = await db.query('explain (analyze, buffers) ' + CLAIM_SQL.replace('$1', '100').replace('$2::float8', '30000::float8').replace('$3::text[]', `'{}'::text[]`));
console.log(ex.rows.map((r: any) => r['QUERY PLAN']).join('\n'));
await reset();
await drain(64, 'claim 64, record per row (parallel)', false);
await reset();
await drain(100, 'claim 100, record per row (parallel)', false);
await reset();
await drain(100, 'claim 100, one batched record per claim', true);
await reset();
await drain(500, 'claim 500, one batched record per claim', true);
await db.end();
await admin.query(`drop database ${name} with (force)`);
await admin.end();
await embedded.stop();
process.exit(0);

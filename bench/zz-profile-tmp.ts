// TEMPORARY profiling script (not part of the change): where does a webhook delivery's time go?
import http from 'node:http';
import type net from 'node:net';
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
const { WebhookDispatcher, protoStats } = (process.env.PROTO ? await import('./zz-proto-dispatcher.ts') : { ...(await import('../src/modules/webhooks/dispatcher.ts')), protoStats: undefined }) as any;
import { createMerchant } from '../src/modules/merchants/service.ts';
import { addWebhook } from '../src/modules/webhooks/service.ts';
import { samplePayload } from '../src/modules/webhooks/payloads.ts';

const N = Number(process.env.N ?? 5000);
const CONC = Number(process.env.CONC ?? 64);
const PERHOST = Number(process.env.PERHOST ?? 16);
const embedded = await startEmbeddedPostgres(path.resolve('.bench-data'), () => undefined);
const name = `onekhusa_prof_${Date.now()}`;
const admin = new pg.Client({ connectionString: embedded.connectionString });
await admin.connect();
await admin.query(`create database ${name}`);
const u = new URL(embedded.connectionString);
u.pathname = '/' + name;
const config = { ...loadConfig({ DATABASE_URL: u.toString(), LOG_LEVEL: 'silent', JWT_SECRET: randomBytes(48).toString('base64url') }), webhookConcurrency: CONC, webhookPerHostConcurrency: PERHOST };
const db = createPool(u.toString(), 20);
await migrate(db);
await migrateQueue(db);

// Time every query through the pool, grouped by its first words.
const stats = new Map<string, { n: number; ms: number; rows: number }>();
const origQuery = db.query.bind(db) as (...a: unknown[]) => Promise<pg.QueryResult>;
let timing = false;
(db as unknown as { query: unknown }).query = async (...args: unknown[]) => {
  const sql = String(args[0]).replace(/\s+/g, ' ').trim();
  const key = sql.startsWith('with o as') ? 'BATCH_RECORD' : sql.startsWith('with due') ? 'CLAIM' : sql.startsWith('with updated') ? 'RECORD' : sql.startsWith('select extract') ? 'NEXT_DUE' : sql.slice(0, 40);
  const t0 = performance.now();
  const r = await origQuery(...args);
  if (timing) {
    const s = stats.get(key) ?? { n: 0, ms: 0, rows: 0 };
    s.n++;
    s.ms += performance.now() - t0;
    s.rows += r.rowCount ?? 0;
    stats.set(key, s);
  }
  return r;
};
const deps: Deps = { db, config, clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret!) };

let got = 0;
let done!: () => void;
const all = new Promise<void>((r) => (done = r));
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(204).end();
    if (++got === N) done();
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
const m = await createMerchant(deps, { accountName: 'P', capturedBy: 'bench' });
await addWebhook(deps, { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: url, capturedBy: 'b@e.mw' });
const client = await db.connect();
await client.query('begin');
for (let i = 0; i < N; i++) await emitEvent(client, m.merchantAccountNumber, 'payment.success', samplePayload('payment.success', m.merchantAccountNumber, m.paymentAccountNumber, new Date()));
await client.query('commit');
client.release();

const pgCpu = () => {
  // utime+stime of all postgres processes, in ms (clock ticks of 10 ms)
  const { execSync } = require_();
  const out = execSync(`for p in $(pgrep -f "postgres" ); do cat /proc/$p/stat 2>/dev/null; done`, { shell: '/bin/bash' }).toString();
  let ticks = 0;
  for (const line of out.trim().split('\n')) {
    const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
    ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * 10;
};
function require_() {
  return { execSync: (globalThis as any).__execSync };
}
(globalThis as any).__execSync = (await import('node:child_process')).execSync;

timing = true;
const pg0 = pgCpu();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const dispatcher = new WebhookDispatcher(deps);
await dispatcher.start();
await all;
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const pgMs = pgCpu() - pg0;
await dispatcher.stop();
timing = false;
console.log(JSON.stringify({ proto: process.env.PROTO ? Object.entries(process.env).filter(([k, v]) => k.startsWith('PROTO_') && v === '1').map(([k]) => k).join('+') || 'copy' : 'current', protoStats, N, CONC, PERHOST, seconds: +secs.toFixed(3), perSecond: Math.round(N / secs), nodeCpuMs: Math.round((cpu.user + cpu.system) / 1000), postgresCpuMs: pgMs }));
for (const [k, s] of stats) console.log(k.padEnd(42), 'calls', s.n, 'avgMs', (s.ms / s.n).toFixed(2), 'rows/call', (s.rows / s.n).toFixed(1), 'totalMs', Math.round(s.ms));
server.close();
server.closeAllConnections();
await db.end();
await admin.query(`drop database ${name} with (force)`);
await admin.end();
await embedded.stop();
process.exit(0);

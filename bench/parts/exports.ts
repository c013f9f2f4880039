// `BENCH_ONLY=exports npm run bench` (and part of the default run): the console's list exports
// (src/modules/console/kit/exports.ts) of ONE merchant's 1,000,000 collections, on a database of
// its own.
//   load     1,000,000 collections over the last ~174 days (one every 15 s), one connector, set-based
//            (generate_series), then ANALYZE; a viewer user with a random password (users service).
//   files    the real app (buildApp) in this process on 127.0.0.1; signed in over HTTP as a browser
//            does (the sign-in form's cookie and _csrf, then the POST). GET /console/collections.csv,
//            then .xlsx, each once, read to its end over a real socket and counted, nothing kept:
//            time to first byte (request sent → first body byte), total ms, bytes, rows (CSV: line
//            ends less the header; workbook: its sheet's rows, as written: 1,000,000), rows/s. The
//            server is this process: its RSS and heapUsed are sampled every 20 ms during each
//            download (no forced collections: heapUsed includes garbage not yet collected), peak and
//            growth over the value before it.
// Reported for reading only: nothing fails on a figure.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { migrateQueue } from '../../src/jobs/queue.ts';
import { SIGN_IN_PATH } from '../../src/modules/console/kit/paths.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { addUserWithPassword } from '../../src/modules/users/service.ts';
import { log, round1, timed } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';

const ROWS = 1_000_000;
const MEMORY_SAMPLE_MS = 20;
const EMAIL = 'viewer@bench-exports.mw';
/** Random per run (the policy refuses common passwords); only its argon2id hash is stored. */
const PASSWORD = randomBytes(18).toString('base64url');
const MB = 1024 * 1024;

async function load(db: Db, m: number, paymentAccountNumber: string, organisationId: string): Promise<number> {
  const loader = await db.connect();
  try {
    // Without the pool's 30 s statement timeout: a million rows and their indexes take longer.
    await loader.query('set statement_timeout = 0');
    const { ms } = await timed(() =>
      loader.query(
        `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, connector_id, source_account_number, source_account_name,
                                  source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_description,
                                  bridge_reference_number, status_code, created_by, transaction_date, value_date)
         select $1, 'C' || upper(lpad(to_hex(i), 11, '0')), 'BAM', 112400, '26599' || lpad((i % 10000000)::text, 7, '0'),
                (array['Chisomo Banda', 'Tiyamike Phiri', 'Kondwani Mwale', 'Thokozani Chirwa'])[1 + i % 4],
                'SRC' || lpad(i::text, 9, '0'), $2, 10000 + (i::bigint * 7919) % 4990000, 100, 'MWK', 'Customer payment', 'BR' || lpad(i::text, 12, '0'),
                'S', 'bench@example.mw', now() - (i::bigint * 15) * interval '1 second', now() - (i::bigint * 15) * interval '1 second'
           from generate_series(1, $3::int) as i`,
        [m, paymentAccountNumber, ROWS],
      ),
    );
    await loader.query('analyze collections');
    await loader.query('reset statement_timeout');
    await addUserWithPassword(
      loader,
      { organisationId, merchantAccountNumber: m, firstName: 'Bench', lastName: 'Viewer', emailAddress: EMAIL, phoneNumber: '265991234567', roleId: 'MERC_VIEWER', capturedBy: 'bench' },
      PASSWORD,
    );
    return ms;
  } finally {
    loader.release();
  }
}

/** The session's cookies, signed in through the form as a browser does. */
async function signIn(baseUrl: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (setCookie: string | string[] | undefined) => {
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form = await request(`${baseUrl}${SIGN_IN_PATH}`);
  keep(form.headers['set-cookie']);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.body.text())?.[1];
  if (!csrf) throw new Error('the sign-in form has no _csrf field');
  const done = await request(`${baseUrl}${SIGN_IN_PATH}`, {
    method: 'POST',
    headers: { cookie: cookie(), origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD }).toString(),
  });
  await done.body.dump();
  if (done.statusCode !== 303) throw new Error(`signing in answered ${done.statusCode}`);
  keep(done.headers['set-cookie']);
  return cookie();
}

/** One download read to its end (bytes and newlines counted), with this process's memory sampled meanwhile. */
async function download(baseUrl: string, path: string, cookie: string) {
  const before = process.memoryUsage();
  const peak = { rss: before.rss, heapUsed: before.heapUsed };
  const timer = setInterval(() => {
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
  }, MEMORY_SAMPLE_MS);
  const started = performance.now();
  let firstByteMs = 0;
  let bytes = 0;
  let newlines = 0;
  try {
    const res = await request(`${baseUrl}${path}`, { headers: { cookie }, bodyTimeout: 600_000 });
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
    }
  } finally {
    clearInterval(timer);
  }
  const totalMs = performance.now() - started;
  return {
    firstByteMs: round1(firstByteMs),
    totalMs: Math.round(totalMs),
    bytes,
    megabytes: round1(bytes / MB),
    newlines,
    rowsPerSecond: Math.round(ROWS / (totalMs / 1000)),
    server: {
      peakRssMb: round1(peak.rss / MB),
      rssGrowthMb: round1((peak.rss - before.rss) / MB),
      peakHeapUsedMb: round1(peak.heapUsed / MB),
      heapUsedGrowthMb: round1((peak.heapUsed - before.heapUsed) / MB),
    },
  };
}

export async function benchExports({ adminUrl }: BenchContext) {
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`exports: database ${databaseName} created`);
  let db: Db | undefined;
  let built: BuiltApp | undefined;
  try {
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', JWT_SECRET: 'bench-exports-jwt-secret-0123456789abcdef', HOST: '127.0.0.1', PORT: '0' });
    db = createPool(databaseUrl, config.dbPoolSize);
    await migrate(db);
    await migrateQueue(db);
    const deps = benchDeps(db, config);
    const merchant = await createMerchant(deps, { accountName: 'Bench Exports', capturedBy: 'bench' });
    log(`exports: loading ${ROWS} collections for merchant ${merchant.merchantAccountNumber}`);
    const loadMs = await load(db, merchant.merchantAccountNumber, merchant.paymentAccountNumber, merchant.organisationId);
    log(`exports: loaded in ${round1(loadMs / 1000)} s`);
    built = await buildApp(deps);
    const baseUrl = (await built.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
    const cookie = await signIn(baseUrl);
    log('exports: CSV');
    const { newlines, ...csv } = await download(baseUrl, '/console/collections.csv', cookie);
    if (newlines !== ROWS + 1) throw new Error(`the CSV has ${newlines} lines, not ${ROWS + 1}`);
    log('exports: XLSX');
    const { newlines: _, ...xlsx } = await download(baseUrl, '/console/collections.xlsx', cookie);
    return { rows: ROWS, loadSeconds: round1(loadMs / 1000), csv: { ...csv, rows: ROWS }, xlsx: { ...xlsx, rows: ROWS } };
  } finally {
    await built?.app.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await dropDatabase(adminUrl, databaseName, 'exports: ');
  }
}

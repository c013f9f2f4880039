// The collections export of a merchant with 1,000,000 collections, over a real HTTP socket: the CSV
// and the workbook are read as streams (nothing kept: the CSV's line ends counted, the workbook
// unzipped as it comes and its sheet's <row> elements counted), and this process's heap, which is
// also the server's (the app runs here), is sampled meanwhile: its growth must stay far below the
// size of the files, which is what "not held in memory" means. Then a download cut short must give
// its pooled connection back and leave no transaction open. Run time is not asserted (it is
// measured and reported by `npm run bench`, bench/parts/exports.ts).
import { Writable, type Readable } from 'node:stream';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
// unzipper is what ExcelJS itself reads workbooks with (a dependency of exceljs); it has no types.
// @ts-expect-error -- no type declarations
import unzipper from 'unzipper';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listen } from '../browser-kit.ts';
import { ConsoleClient, consoleUser } from './client.ts';
import { newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const ROWS = 1_000_000;
/** A full collection and a sample this often: a full collection costs tens of ms here, so not more often. */
const HEAP_SAMPLE_MS = 1_000;
/** Far below the files (the CSV is ~170 MB, the workbook > 30 MB) and far above a few slices of rows. */
const MAX_HEAP_GROWTH_BYTES = 150 * 1024 * 1024;

let t: TestApp;
let m: TestMerchant;
let origin: string;
let cookie: string;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Million Stores' });
  // Set-based, as the bench loads: distinct references, one connector, a row every 15 s back from now.
  // One statement on a client of its own, beyond the pool's 30 s statement timeout (indexes included).
  const loader = await t.db.connect();
  await loader.query(`set statement_timeout = 0`);
  await loader.query(
    `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, connector_id, source_account_number, source_account_name,
                              source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code, transaction_description,
                              bridge_reference_number, status_code, created_by, transaction_date, value_date)
     select $1, 'C' || upper(lpad(to_hex(i), 11, '0')), 'BAM', 112400, '26599' || lpad((i % 10000000)::text, 7, '0'),
            (array['Chisomo Banda', 'Tiyamike Phiri', '=HYPERLINK("http://x")', 'Thokozani Chirwa'])[1 + i % 4],
            'SRC' || lpad(i::text, 9, '0'), $2, 10000 + (i::bigint * 7919) % 4990000, 100, 'MWK', 'Customer payment', 'BR' || lpad(i::text, 12, '0'),
            'S', 'test@example.mw', now() - (i::bigint * 15) * interval '1 second', now() - (i::bigint * 15) * interval '1 second'
       from generate_series(1, $3::int) as i`,
    [m.merchantAccountNumber, m.paymentAccountNumber, ROWS],
  );
  await loader.query('analyze collections');
  await loader.query('reset statement_timeout');
  loader.release();
  const user = await consoleUser(t, m, { role: 'MERC_VIEWER' });
  const c = new ConsoleClient(t, '10.9.8.1');
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
  cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  origin = await listen(t);
}, 900_000);

afterAll(async () => {
  await t?.close();
});

// A full collection before each sample, so that a sample is what is held (live), not the garbage
// V8 has not collected yet (heapUsed counts both, and V8 lets garbage grow to hundreds of MB
// before a major collection when it has room: that would say nothing about holding rows).
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Samples the live heap while `fn` runs: the peak's growth over the value before it. */
async function heapGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; growthBytes: number }> {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const timer = setInterval(() => {
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, HEAP_SAMPLE_MS);
  try {
    const result = await fn();
    return { result, growthBytes: peak - before };
  } finally {
    clearInterval(timer);
  }
}

async function open(path: string): Promise<Readable> {
  const res = await request(`${origin}${path}`, { headers: { cookie }, bodyTimeout: 120_000 });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** The CSV's bytes and lines, counted as they arrive. */
async function countCsv(body: Readable): Promise<{ bytes: number; lines: number }> {
  let bytes = 0;
  let lines = 0;
  await pipeline(
    body,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done();
      },
    }),
  );
  return { bytes, lines };
}

/** The workbook's bytes, and the <row> elements of its sheet, unzipped as they arrive. */
async function countXlsx(body: Readable): Promise<{ bytes: number; rows: number }> {
  let bytes = 0;
  let rows = 0;
  body.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const tagged = Buffer.from('<row ');
  await pipeline(
    body,
    unzipper.Parse().on('entry', (entry: Readable & { path: string; autodrain: () => void }) => {
      if (!entry.path.startsWith('xl/worksheets/')) return entry.autodrain();
      // A tag split between two chunks is found in the joined tail of the previous one.
      let tail = Buffer.alloc(0);
      entry.on('data', (chunk: Buffer) => {
        const joined = Buffer.concat([tail, chunk]);
        for (let i = joined.indexOf(tagged); i !== -1; i = joined.indexOf(tagged, i + 1)) rows++;
        tail = joined.subarray(Math.max(0, joined.length - (tagged.length - 1)));
        // Matches wholly inside the tail were counted already: keep only a partial tag.
        if (tail.indexOf(tagged) !== -1) tail = Buffer.alloc(0);
      });
    }),
  );
  return { bytes, rows };
}

it(
  'streams 1,000,000 collections as CSV and as a workbook without holding them, and a download cut short gives its connection back',
  async () => {
    const started = Date.now();
    const csv = await heapGrowth(async () => countCsv(await open('/console/collections.csv')));
    expect(csv.result.lines).toBe(ROWS + 1);
    expect(csv.result.bytes).toBeGreaterThan(100 * 1024 * 1024);
    expect(csv.growthBytes).toBeLessThan(MAX_HEAP_GROWTH_BYTES);

    const csvMs = Date.now() - started;
    const xlsx = await heapGrowth(async () => countXlsx(await open('/console/collections.xlsx')));
    expect(xlsx.result.rows).toBe(ROWS + 1);
    expect(xlsx.result.bytes).toBeGreaterThan(30 * 1024 * 1024);
    expect(xlsx.growthBytes).toBeLessThan(MAX_HEAP_GROWTH_BYTES);
    // For the report only (nothing asserts time).
    console.log(JSON.stringify({ csvMs, xlsxMs: Date.now() - started - csvMs, csv: { ...csv.result, heapGrowthMb: Math.round(csv.growthBytes / 1048576) }, xlsx: { ...xlsx.result, heapGrowthMb: Math.round(xlsx.growthBytes / 1048576) } }));

    // A client that goes away after the first megabyte of each.
    for (const path of ['/console/collections.csv', '/console/collections.xlsx']) {
      const body = await open(path);
      let read = 0;
      for await (const chunk of body) {
        read += (chunk as Buffer).length;
        if (read > 1024 * 1024) break;
      }
      body.destroy();
    }
    await until(
      'the exports to end their transactions and give their connections back',
      async () => {
        const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and (query ilike 'fetch forward%' or query ilike 'declare export_rows%')  and state <> 'idle'`);
        return rows[0].n === 0 && t.db.idleCount === t.db.totalCount;
      },
      20_000,
    );
  },
  // Generous: the machine is shared (2 cores); nothing asserts time.
  1_200_000,
);

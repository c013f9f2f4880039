// `BENCH_ONLY=files npm run bench` (and part of the default run): no merchant can stall another
// (issue 13, item 3). The real service (src/server.ts with npm start's defaults, started by
// bench/lib/service.ts as for the disbursements part, only the rate limit raised) on a database
// of its own, and four merchants. Three of them upload maximal CSV files (batch/addFile, base64
// in JSON, about 15 MB of body each) back to back, all three at once, while the fourth reads its
// account (GET /merchants/accounts/get, authenticated, one read due every READ_EVERY_MS, open
// loop) over connections of its own. Measured:
//   baseline       the reader alone for BASELINE_MS: its p50, p99 and max.
//   tooManyRows    ≈11 MB of short rows (~290,000, far past 50,000): each upload is refused 400
//                  (too many lines). Before item 3 the service parsed every row on its event loop.
//   maximal        50,000 rows padded to ≈11 MB: each upload is accepted (200), then validated by
//                  the service's own worker while the next ones arrive.
// For each: the reader's latency during the uploads (p50, p95, p99, max; target p50 ≤ 50 ms) and
// the uploads' statuses and durations. Reported with a `met` flag, for reading only: nothing
// fails on it. The client runs in the bench process, the service in its own: the service's event
// loop is its own, as it is in production.
import os from 'node:os';
import { Agent, request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import type { MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { SANDBOX as PREFIX } from '../lib/api.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { accessToken, createMerchants } from '../lib/merchants.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { percentile } from '../lib/stats.ts';

const UPLOADERS = 3;
const UPLOADS_EACH = 3;
const BASELINE_MS = 3000;
/** The reader's pace: under the default rate limit (50 requests/s per merchant). */
const READ_EVERY_MS = 25;
/** Enough for every read due during a stall of a few seconds to be sent when it is due. */
const READER_CONNECTIONS = 128;
/**
 * The service's per-merchant rate limit for this part (default 50/s): the reads due during a
 * stall all arrive when it ends, and 429s would then stand in for the latencies measured here.
 */
const RATE_LIMIT_PER_SECOND = 10_000;
const TARGET_P50_MS = 50;
const CSV_TARGET_BYTES = 11_000_000;
const HEADER = 'beneficiaryName,connectorId,beneficiaryAccountNumber,transactionDescription,transactionAmount,sourceReferenceNumber';

function summary(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: round1(percentile(sorted, 50)), p95Ms: round1(percentile(sorted, 95)), p99Ms: round1(percentile(sorted, 99)), maxMs: round1(sorted.at(-1) ?? Number.NaN) };
}

/** CSV rows until the file reaches CSV_TARGET_BYTES: `row(i)` is the i-th (from 0). */
function csvFile(row: (i: number) => string, maxRows = Number.POSITIVE_INFINITY): { csv: Buffer; rows: number } {
  const parts = [HEADER];
  let bytes = HEADER.length;
  let rows = 0;
  while (bytes < CSV_TARGET_BYTES && rows < maxRows) {
    const line = row(rows);
    parts.push(line);
    bytes += line.length + 1;
    rows += 1;
  }
  return { csv: Buffer.from(parts.join('\n')), rows };
}

/**
 * The reader: an authenticated read every READ_EVERY_MS on a fixed schedule, whether or not the
 * previous ones were answered (open loop: a stall delays every read due during it, and each of
 * them counts, where one read at a time would count a stall once). Latency runs from the moment
 * a read was due to the end of its answer.
 */
function startReader(baseUrl: string, agent: Agent, token: string, merchantAccountNumber: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const pending = new Set<Promise<void>>();
  const read = async (due: number) => {
    let status: string;
    try {
      const res = await undiciRequest(`${baseUrl}${PREFIX}/merchants/accounts/get?merchantAccountNumber=${merchantAccountNumber}`, { headers: { authorization: `Bearer ${token}` }, dispatcher: agent });
      await res.body.text();
      status = String(res.statusCode);
    } catch (err) {
      status = (err as { code?: string }).code ?? 'error';
    }
    latencies.push(performance.now() - due);
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  const started = performance.now();
  let sent = 0;
  // The bench's own event loop may be late too (it sends the uploads): reads due meanwhile are
  // sent at once, each with the time it was due.
  const timer = setInterval(() => {
    const now = performance.now();
    while (started + sent * READ_EVERY_MS <= now) {
      const p = read(started + sent * READ_EVERY_MS);
      pending.add(p);
      void p.finally(() => pending.delete(p));
      sent += 1;
    }
  }, READ_EVERY_MS / 5);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
      return { ...summary(latencies), statuses };
    },
  };
}

interface UploadShape {
  name: 'tooManyRows' | 'maximal';
  bodies: Buffer[];
  rows: number;
  csvBytes: number;
}

async function runShape(service: Service, uploadAgent: Agent, readerAgent: Agent, tokens: string[], reader: MerchantCredentials, readerToken: string, shape: UploadShape) {
  log(`files: ${shape.name}: ${UPLOADERS} merchants × ${UPLOADS_EACH} uploads of ${shape.rows} rows (${(shape.csvBytes / 1e6).toFixed(1)} MB CSV, ${(shape.bodies[0].length / 1e6).toFixed(1)} MB body), reader polling`);
  const read = startReader(service.baseUrl, readerAgent, readerToken, reader.merchantAccountNumber);
  const uploads: Array<{ status: string; ms: number }> = [];
  const t0 = performance.now();
  await Promise.all(
    shape.bodies.map(async (body, u) => {
      for (let i = 0; i < UPLOADS_EACH; i++) {
        const started = performance.now();
        let status: string;
        try {
          const res = await undiciRequest(`${service.baseUrl}${PREFIX}/disbursements/batch/addFile`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[u]}` },
            body,
            dispatcher: uploadAgent,
          });
          const text = await res.body.text();
          status = String(res.statusCode);
          if (res.statusCode !== 200 && res.statusCode !== 400) log(`files: upload answered ${res.statusCode}: ${text.slice(0, 300)}`);
        } catch (err) {
          status = (err as { code?: string }).code ?? 'error';
        }
        uploads.push({ status, ms: performance.now() - started });
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const readerDuring = await read.stop();
  const statuses: Record<string, number> = {};
  for (const u of uploads) statuses[u.status] = (statuses[u.status] ?? 0) + 1;
  const result = {
    csvRows: shape.rows,
    csvMb: round1(shape.csvBytes / 1e6),
    bodyMb: round1(shape.bodies[0].length / 1e6),
    uploads: { ...summary(uploads.map((u) => u.ms)), statuses, wallMs: round1(wallMs) },
    reader: readerDuring,
    readerP50AtMost50Ms: readerDuring.p50Ms <= TARGET_P50_MS,
  };
  log(`files: ${shape.name}: ${JSON.stringify(result)}`);
  return result;
}

export async function benchFiles({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`files: database ${databaseName} created; starting the service (src/server.ts, npm start's defaults)`);
  let service: Service | undefined;
  let db: Db | undefined;
  const uploadAgent = new Agent({ connections: UPLOADERS, keepAliveTimeout: 60_000, bodyTimeout: 120_000, headersTimeout: 120_000 });
  const readerAgent = new Agent({ connections: READER_CONNECTIONS, keepAliveTimeout: 60_000 });
  try {
    service = await startService(databaseUrl, { RATE_LIMIT_PER_SECOND: String(RATE_LIMIT_PER_SECOND) });
    db = createPool(databaseUrl, 2);
    const deps = benchDeps(db, loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }));
    const uploaders = await createMerchants(deps, UPLOADERS, 'Bench Files Uploader');
    const [reader] = await createMerchants(deps, 1, 'Bench Files Reader');
    const tokens = await Promise.all(uploaders.map((m) => accessToken(service!.baseUrl, m, uploadAgent)));
    const readerToken = await accessToken(service.baseUrl, reader, readerAgent);

    const body = (m: MerchantCredentials, csv: Buffer) =>
      Buffer.from(JSON.stringify({ merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, contentType: 'CSV', fileContent: csv.toString('base64'), capturedBy: 'bench-capturer@example.mw' }));
    const short = csvFile((i) => `N${i},112400,265991234567,,10,R${i}`);
    const description = 'Salary March 2026 for Operations staff paid by bank transfer with reference and notes '.padEnd(150, '.');
    const long = csvFile((i) => `Beneficiary Name ${i},112400,265991234567,${description},10,REF-${String(i).padStart(8, '0')}`, 50_000);
    const shapes: UploadShape[] = [
      { name: 'tooManyRows', bodies: uploaders.map((m) => body(m, short.csv)), rows: short.rows, csvBytes: short.csv.length },
      { name: 'maximal', bodies: uploaders.map((m) => body(m, long.csv)), rows: long.rows, csvBytes: long.csv.length },
    ];

    log(`files: baseline: the reader alone for ${BASELINE_MS} ms`);
    const alone = startReader(service.baseUrl, readerAgent, readerToken, reader.merchantAccountNumber);
    await sleep(BASELINE_MS);
    const baseline = await alone.stop();
    log(`files: baseline: ${JSON.stringify(baseline)}`);
    const results: Record<string, unknown> = {};
    for (const shape of shapes) results[shape.name] = await runShape(service, uploadAgent, readerAgent, tokens, reader, readerToken, shape);
    return {
      uploaders: UPLOADERS,
      uploadsEach: UPLOADS_EACH,
      readEveryMs: READ_EVERY_MS,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
      baseline,
      ...results,
    };
  } finally {
    await uploadAgent.close();
    await readerAgent.close();
    if (service) log(`files: service exited with ${await stopService(service)}`);
    await db?.end();
    await dropDatabase(adminUrl, databaseName, 'files: ');
  }
}

// `BENCH_ONLY=consoleFiles npm run bench` (and part of the default run): uploading and validating a
// 50,000-line XLSX from the console, next to the API's own figure for the same file (issue 19: "stays
// within the API's own figures"). The real service (src/server.ts with npm start's defaults, its
// worker validating, started by bench/lib/service.ts as for the files part) on a database of its
// own, and two merchants at level 1: one uploads through the API, the other through the console.
//   file     one workbook of 50,000 payout rows (ExcelJS, the columns of addFile), the same bytes
//            for both routes.
//   api      POST /disbursements/batch/addFile with a bearer token: the workbook base64 in JSON,
//            as integrators send it (bench/parts/files.ts sends CSV the same way).
//   console  signed in over HTTP as a browser does (GET /console/sign-in for its cookie and _csrf
//            field, POST e-mail and password with this origin, keep the session cookie of the 303),
//            GET the upload form for its _csrf and _form fields, then POST it as multipart/form-data
//            (the fields, then the file) to /console/payouts/upload, answered 303 to the batch page.
// Each run, one at a time, API and console alternating (RUNS each): `acceptedMs` from the request
// to its answer (the file read and checked, the batch stored with its validation job), and
// `validatedMs` from the request to the batch leaving Q (the service's worker validated its
// 50,000 lines; polled every POLL_MS on a connection of the bench's own). p50 and max of each, and
// the console's p50 over the API's. Reported with a `met` flag (the console's validatedMs p50
// within TARGET_RATIO of the API's), for reading only: nothing fails on it.
import os from 'node:os';
import ExcelJS from 'exceljs';
import { Agent, FormData, request as undiciRequest } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Db } from '../../src/db/pool.ts';
import { cookieNames } from '../../src/modules/console/kit/cookies.ts';
import { UPLOAD_PATH } from '../../src/modules/console/payouts/pages/upload.tsx';
import { SIGN_IN_PATH } from '../../src/modules/console/kit/paths.ts';
import type { MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { addUserWithPassword } from '../../src/modules/users/service.ts';
import { SANDBOX as PREFIX } from '../lib/api.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { benchDeps, createDatabase, dropDatabase } from '../lib/db.ts';
import { accessToken, createMerchants } from '../lib/merchants.ts';
import { startService, stopService, type Service } from '../lib/service.ts';
import { percentile } from '../lib/stats.ts';

const LINES = 50_000;
const RUNS = 5;
const POLL_MS = 50;
/** The longest a run may take before the part gives up on it (reading plus validation take seconds). */
const RUN_TIMEOUT_MS = 180_000;
const TARGET_RATIO = 1.1;
const ADMIN_EMAIL = 'bench-uploader@example.mw';
const ADMIN_PASSWORD = `Bench ${Math.random().toString(36).slice(2)} uploads 2026!`;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HEADER = ['beneficiaryName', 'connectorId', 'beneficiaryAccountNumber', 'transactionDescription', 'transactionAmount', 'sourceReferenceNumber'];

async function workbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Payouts');
  sheet.addRow(HEADER);
  for (let i = 0; i < LINES; i++) sheet.addRow([`Beneficiary Name ${i}`, 112400, 265991000000 + (i % 1_000_000), 'Salary March 2026', 100 + (i % 900), `REF-${String(i).padStart(8, '0')}`]);
  return Buffer.from(await book.xlsx.writeBuffer());
}

interface Run {
  status: number;
  acceptedMs: number;
  validatedMs: number;
  batchStatus: string;
}

function summary(runs: Run[]) {
  const of = (pick: (r: Run) => number) => {
    const sorted = runs.map(pick).sort((a, b) => a - b);
    return { p50Ms: round1(percentile(sorted, 50)), maxMs: round1(sorted.at(-1) ?? Number.NaN) };
  };
  return { runs: runs.map((r) => ({ ...r, acceptedMs: round1(r.acceptedMs), validatedMs: round1(r.validatedMs) })), accepted: of((r) => r.acceptedMs), validated: of((r) => r.validatedMs) };
}

/** Waits for the batch to leave Q; its status then. */
async function validated(db: Db, batchNumber: number, deadline: number): Promise<string> {
  for (;;) {
    const { rows } = await db.query<{ status_code: string }>('select status_code from batches where batch_number = $1', [batchNumber]);
    const status = rows[0]?.status_code;
    if (status && status !== 'Q') return status;
    if (performance.now() > deadline) throw new Error(`batch ${batchNumber} still ${status ?? 'missing'} after ${RUN_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}

/** A browser stand-in: cookies by name (Max-Age=0 deletes), no redirect followed. */
function consoleSession(baseUrl: string, agent: Agent) {
  const cookies = new Map<string, string>();
  const origin = new URL(baseUrl).origin;
  async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: string | FormData) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await undiciRequest(`${baseUrl}${path}`, {
      method,
      headers: { ...(cookie ? { cookie } : {}), ...(method === 'POST' ? { origin } : {}), ...headers },
      body,
      dispatcher: agent,
      headersTimeout: RUN_TIMEOUT_MS,
      bodyTimeout: RUN_TIMEOUT_MS,
    });
    const text = await res.body.text();
    const setCookie = res.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1).trim();
      if (value === '' || attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) cookies.delete(pair.slice(0, eq).trim());
      else cookies.set(pair.slice(0, eq).trim(), value);
    }
    return { status: res.statusCode, body: text, location: String(res.headers.location ?? '') };
  }
  return { send, cookies };
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];

export async function benchConsoleFiles({ adminUrl }: BenchContext) {
  const loadAverageAtStart = os.loadavg().map(round1);
  const { name: databaseName, url: databaseUrl } = await createDatabase(adminUrl);
  log(`consoleFiles: database ${databaseName} created; starting the service (src/server.ts, npm start's defaults)`);
  let service: Service | undefined;
  let db: Db | undefined;
  const agent = new Agent({ connections: 2, keepAliveTimeout: 60_000, headersTimeout: RUN_TIMEOUT_MS, bodyTimeout: RUN_TIMEOUT_MS });
  try {
    service = await startService(databaseUrl);
    db = createPool(databaseUrl, 2);
    const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    const deps = benchDeps(db, config);
    const [apiMerchant, consoleMerchant] = await createMerchants(deps, 2, 'Bench Console Files', 1);
    const client = await db.connect();
    try {
      await addUserWithPassword(
        client,
        { organisationId: consoleMerchant.organisationId, merchantAccountNumber: consoleMerchant.merchantAccountNumber, firstName: 'Bench', lastName: 'Uploader', emailAddress: ADMIN_EMAIL, phoneNumber: '265991234567', roleId: 'MERC_INITIATOR', capturedBy: 'bench' },
        ADMIN_PASSWORD,
      );
    } finally {
      client.release();
    }

    const file = await workbook();
    log(`consoleFiles: ${LINES} rows, ${(file.length / 1e6).toFixed(2)} MB of XLSX`);
    const token = await accessToken(service.baseUrl, apiMerchant, agent);
    const apiBody = (m: MerchantCredentials) =>
      JSON.stringify({ merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, contentType: 'XLSX', fileContent: file.toString('base64'), capturedBy: 'bench-capturer@example.mw' });

    const browser = consoleSession(service.baseUrl, agent);
    const form = await browser.send('GET', SIGN_IN_PATH);
    const signInCsrf = field(form.body, '_csrf');
    if (form.status !== 200 || !signInCsrf) throw new Error(`the sign-in form answered ${form.status}`);
    const signedIn = await browser.send('POST', SIGN_IN_PATH, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ _csrf: signInCsrf, email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).toString());
    if (signedIn.status !== 303 || !browser.cookies.has(cookieNames(config.mode).session)) throw new Error(`signing in answered ${signedIn.status}`);

    const viaApi = async (): Promise<Run> => {
      const started = performance.now();
      const res = await undiciRequest(`${service!.baseUrl}${PREFIX}/disbursements/batch/addFile`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: apiBody(apiMerchant),
        dispatcher: agent,
      });
      const text = await res.body.text();
      const acceptedMs = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`addFile answered ${res.statusCode}: ${text.slice(0, 300)}`);
      const batchStatus = await validated(db!, (JSON.parse(text) as { batchNumber: number }).batchNumber, started + RUN_TIMEOUT_MS);
      return { status: res.statusCode, acceptedMs, validatedMs: performance.now() - started, batchStatus };
    };
    const viaConsole = async (): Promise<Run> => {
      const page = await browser.send('GET', UPLOAD_PATH);
      const csrf = field(page.body, '_csrf');
      const formKey = field(page.body, '_form');
      if (page.status !== 200 || !csrf || !formKey) throw new Error(`the upload form answered ${page.status}`);
      const body = new FormData();
      body.append('_csrf', csrf);
      body.append('_form', formKey);
      body.append('file', new Blob([new Uint8Array(file)], { type: XLSX_TYPE }), 'payouts-50000.xlsx');
      const started = performance.now();
      const res = await browser.send('POST', UPLOAD_PATH, {}, body);
      const acceptedMs = performance.now() - started;
      const batchNumber = Number(/\/batches\/(\d+)/.exec(res.location)?.[1]);
      if (res.status !== 303 || !batchNumber) throw new Error(`the upload answered ${res.status} (${res.location}): ${res.body.slice(0, 300)}`);
      const batchStatus = await validated(db!, batchNumber, started + RUN_TIMEOUT_MS);
      return { status: res.status, acceptedMs, validatedMs: performance.now() - started, batchStatus };
    };

    const api: Run[] = [];
    const consoleRuns: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      api.push(await viaApi());
      log(`consoleFiles: api run ${i + 1}: ${JSON.stringify(api.at(-1))}`);
      consoleRuns.push(await viaConsole());
      log(`consoleFiles: console run ${i + 1}: ${JSON.stringify(consoleRuns.at(-1))}`);
    }
    const apiSummary = summary(api);
    const consoleSummary = summary(consoleRuns);
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    return {
      lines: LINES,
      xlsxMb: Math.round(file.length / 1e4) / 100,
      runsEach: RUNS,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
      api: apiSummary,
      console: consoleSummary,
      consoleOverApi: {
        acceptedP50: ratio(consoleSummary.accepted.p50Ms, apiSummary.accepted.p50Ms),
        validatedP50: ratio(consoleSummary.validated.p50Ms, apiSummary.validated.p50Ms),
      },
      targetRatio: TARGET_RATIO,
      met: consoleSummary.validated.p50Ms <= apiSummary.validated.p50Ms * TARGET_RATIO,
    };
  } finally {
    await agent.close();
    if (service) log(`consoleFiles: service stopped (${await stopService(service)})`);
    await db?.end();
    await dropDatabase(adminUrl, databaseName, 'consoleFiles: ');
  }
}

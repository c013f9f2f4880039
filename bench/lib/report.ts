// Writes what `npm run bench` measured to files: the whole JSON report and a short markdown table
// of the figures the issues set targets for, each with its target and whether this run met it,
// and the keyed / unkeyed pairs of the keyed part (one row per operation, no target).
// BENCH_OUT_DIR (default bench/results) names the folder; docs/performance.md quotes the table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Json = Record<string, unknown>;

/** Reads a number at a dotted path ("collections.e12.requestsPerSecond"); undefined if absent. */
function at(report: Json, dotted: string): number | undefined {
  let value: unknown = report;
  for (const part of dotted.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Json)[part];
  }
  return typeof value === 'number' ? value : undefined;
}

interface Row {
  area: string;
  figure: string;
  path: string;
  unit: string;
  /** at least / at most this much, or nothing when the figure is reported without a target */
  target?: { atLeast?: number; atMost?: number };
}

/** A keyed part's pair: `unkeyed / keyed unit (keyed ÷ unkeyed %)`, from the object at `path`. */
interface PairRow {
  area: string;
  figure: string;
  path: string;
  /** the pair's two numbers and its ratio, inside that object */
  unkeyed: string;
  keyed: string;
  percent: string;
  unit: string;
}

const KEYED_OPS: Array<[string, string]> = [
  ['e12', 'E12 request to pay'],
  ['addFakeTransaction', 'addFakeTransaction (pays a timed account)'],
  ['e11', 'E11 addFakeCustomPayment'],
  ['singlePayout', 'single payout'],
  ['topup', 'top-up'],
];

const PAIR_ROWS: PairRow[] = [
  ...KEYED_OPS.map(([op, figure]) => ({
    area: 'Keyed writes',
    figure: `${figure}: unkeyed / keyed (keyed ÷ unkeyed)`,
    path: `keyed.ops.${op}`,
    unkeyed: 'unkeyed.requestsPerSecond',
    keyed: 'keyed.requestsPerSecond',
    percent: 'keyedVsUnkeyedPercent',
    unit: 'req/s',
  })),
  {
    area: 'Keyed writes',
    figure: 'E8 50,000 lines accepted, median: unkeyed / keyed (keyed ÷ unkeyed)',
    path: 'keyed.e8',
    unkeyed: 'unkeyed.medianMs',
    keyed: 'keyed.medianMs',
    percent: 'keyedVsUnkeyedPercent',
    unit: 'ms',
  },
];

const ROWS: Row[] = [
  { area: 'HTTP', figure: 'GET /health/live (floor)', path: 'results.healthLive.requestsPerSecond', unit: 'req/s' },
  { area: 'HTTP', figure: 'token endpoint', path: 'results.accessToken.requestsPerSecond', unit: 'req/s' },
  { area: 'HTTP', figure: 'E10 limits', path: 'results.e10Limits.requestsPerSecond', unit: 'req/s', target: { atLeast: 5000 } },
  { area: 'HTTP', figure: 'E10 p99', path: 'results.e10Limits.p99Ms', unit: 'ms', target: { atMost: 20 } },
  { area: 'Start-up', figure: 'restart to ready', path: 'startup.restartMs', unit: 'ms' },
  { area: 'Webhooks', figure: 'commit → receiver p50', path: 'webhooks.latencyMs.p50', unit: 'ms', target: { atMost: 50 } },
  { area: 'Webhooks', figure: 'commit → receiver p99', path: 'webhooks.latencyMs.p99', unit: 'ms', target: { atMost: 250 } },
  { area: 'Webhooks', figure: 'deliveries', path: 'webhooks.throughput.deliveriesPerSecond', unit: '/s', target: { atLeast: 1000 } },
  { area: 'Collections', figure: 'E12 request to pay', path: 'collections.e12.requestsPerSecond', unit: 'req/s', target: { atLeast: 1500 } },
  { area: 'Collections', figure: 'E12 p99', path: 'collections.e12.p99Ms', unit: 'ms', target: { atMost: 50 } },
  { area: 'Collections', figure: 'E12 vs PostgreSQL baseline', path: 'collections.e12VsBaselinePercent', unit: '%', target: { atLeast: 60 } },
  { area: 'Disbursements', figure: 'E8 50,000 lines accepted', path: 'disbursements.acceptMs', unit: 'ms', target: { atMost: 1500 } },
  { area: 'Disbursements', figure: 'E8 vs bare JSON.parse server', path: 'disbursements.ratio', unit: '×', target: { atMost: 3 } },
  { area: 'Disbursements', figure: 'submitted → validated (P)', path: 'disbursements.validatedMs', unit: 'ms', target: { atMost: 3000 } },
  { area: 'Disbursements', figure: 'transferFunds → 50,000 final', path: 'disbursements.allFinalMs', unit: 'ms', target: { atMost: 30000 } },
  { area: 'Disbursements', figure: 'service peak RSS', path: 'disbursements.peakRssMb', unit: 'MB', target: { atMost: 500 } },
  { area: 'Disbursements', figure: 'E3 page 1,000', path: 'disbursements.e3Page1000Ms', unit: 'ms', target: { atMost: 20 } },
  { area: 'Disbursements', figure: 'E3 search by name', path: 'disbursements.e3SearchMs', unit: 'ms', target: { atMost: 50 } },
  { area: 'Fairness', figure: 'read p50 during 3 × 11 MB CSV uploads (too many rows)', path: 'files.tooManyRows.reader.p50Ms', unit: 'ms', target: { atMost: 50 } },
  { area: 'Fairness', figure: 'read p50 during 3 × 50,000-row CSV uploads', path: 'files.maximal.reader.p50Ms', unit: 'ms', target: { atMost: 50 } },
  { area: 'Analytics', figure: 'E5, 90 days of 1,000,000 transactions (median)', path: 'analytics.targets.e5MedianMs.measured', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'home summary p95 (1,000,000 collections)', path: 'console.calls.homeSummary.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'attention (batches, payouts, failed webhooks) p95', path: 'console.calls.attention.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'collections, first page p95', path: 'console.calls.listCollectionsFirstPage.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'collections, page 500,000 rows deep p95', path: 'console.calls.listCollectionsDeepPage.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'collection detail p95', path: 'console.calls.collectionDetail.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'batches, first page p95', path: 'console.calls.listBatches.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'statement summary, 30 days p95', path: 'console.calls.statementSummary30Days.p95Ms', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'statement summary, 182 days (1,000,000 movements) p95', path: 'console.calls.statementSummary180Days.p95Ms', unit: 'ms' },
  { area: 'Console', figure: 'slowest page function p95', path: 'console.targets.pagesP95Ms.measured', unit: 'ms', target: { atMost: 100 } },
  { area: 'Console', figure: 'statement CSV lines', path: 'console.csv.lines', unit: 'lines', target: { atLeast: 1000000 } },
  { area: 'Console', figure: 'statement CSV streamed', path: 'console.csv.linesPerSecond', unit: 'lines/s', target: { atLeast: 100000 } },
  { area: 'Console', figure: 'statement CSV: RSS growth while streaming', path: 'console.csv.rssGrowthMb', unit: 'MB' },
  { area: 'Console uploads', figure: '50,000-line XLSX through the API: request → validated, p50', path: 'consoleFiles.api.validated.p50Ms', unit: 'ms' },
  { area: 'Console uploads', figure: 'the same through the console: request → validated, p50', path: 'consoleFiles.console.validated.p50Ms', unit: 'ms' },
  { area: 'Console uploads', figure: 'console ÷ API (request → validated, p50)', path: 'consoleFiles.consoleOverApi.validatedP50', unit: '×', target: { atMost: 1.1 } },
  { area: 'Payments in over Mojaloop', figure: 'TTK as payer, one merchant', path: 'rails-inbound.viaTtk.paymentsPerSecond', unit: 'payments/s' },
  { area: 'Payments in over Mojaloop', figure: 'TTK as payer, 8 merchants', path: 'rails-inbound.spread.viaTtk.paymentsPerSecond', unit: 'payments/s' },
  { area: 'Payments in over Mojaloop', figure: 'bare payer, one merchant', path: 'rails-inbound.direct.paymentsPerSecond', unit: 'payments/s' },
  { area: 'Payments in over Mojaloop', figure: 'bare payer, 8 merchants', path: 'rails-inbound.spread.direct.paymentsPerSecond', unit: 'payments/s' },
  { area: 'Payments in over Mojaloop', figure: 'credit committed → webhook p50 (TTK, one merchant)', path: 'rails-inbound.viaTtk.commitToWebhookMs.p50', unit: 'ms' },
  { area: 'Payments in over Mojaloop', figure: 'credit committed → webhook p95 (TTK, one merchant)', path: 'rails-inbound.viaTtk.commitToWebhookMs.p95', unit: 'ms' },
];

function targetText(t: Row['target']): string {
  if (!t) return '';
  return t.atLeast !== undefined ? `≥ ${t.atLeast}` : `≤ ${t.atMost}`;
}

function met(value: number, t: Row['target']): string {
  if (!t) return '';
  const ok = t.atLeast !== undefined ? value >= t.atLeast : value <= (t.atMost ?? Infinity);
  return ok ? 'yes' : '**no**';
}

export function markdownTable(report: Json, ranAt: Date): string {
  const machine = (report.machine ?? {}) as Json;
  const lines = [
    `Run ${ranAt.toISOString()} on ${String(machine.cpus ?? os.cpus().length)} × ${String(machine.cpuModel ?? 'unknown CPU')}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${String(machine.node ?? process.version)}, ${String(report.database ?? 'PostgreSQL')}.`,
    '',
    '| area | figure | measured | target | met |',
    '|---|---|---|---|---|',
  ];
  for (const row of ROWS) {
    const value = at(report, row.path);
    if (value === undefined) continue;
    lines.push(`| ${row.area} | ${row.figure} | ${value} ${row.unit} | ${targetText(row.target)} | ${met(value, row.target)} |`);
  }
  for (const row of PAIR_ROWS) {
    const unkeyed = at(report, `${row.path}.${row.unkeyed}`);
    const keyed = at(report, `${row.path}.${row.keyed}`);
    if (unkeyed === undefined || keyed === undefined) continue;
    const percent = at(report, `${row.path}.${row.percent}`);
    lines.push(`| ${row.area} | ${row.figure} | ${unkeyed} / ${keyed} ${row.unit}${percent === undefined ? '' : ` (${percent} %)`} |  |  |`);
  }
  return lines.join('\n') + '\n';
}

/**
 * Writes results.json and results.md (a run of one part, BENCH_ONLY=x: results-x.json and
 * results-x.md, so it never replaces the full run docs/performance.md quotes); returns the JSON's path.
 */
export function writeReport(report: Json, only: string | undefined, ranAt = new Date()): string {
  const dir = path.resolve(process.env.BENCH_OUT_DIR ?? 'bench/results');
  const base = only ? `results-${only}` : 'results';
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${base}.json`), JSON.stringify({ ranAt: ranAt.toISOString(), ...report }, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, `${base}.md`), markdownTable(report, ranAt));
  return path.join(dir, `${base}.json`);
}

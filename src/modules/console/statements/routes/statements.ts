// GET /console/statements (the period form, its summary and movements),
// GET /console/statements.csv (the whole period as CSV, streamed) and .xlsx (the same rows as a workbook). A period that cannot be shown
// (a day that is not YYYY-MM-DD or does not exist, from after to, too long) re-shows the form with
// what was typed and a message, as a 400: never a 500.
//
// The CSV is PostgreSQL's COPY output piped to the response as it comes (ledger/statements.ts
// streamStatementCsv): nothing is buffered here, backpressure reaches the database, and when the
// client goes away Fastify destroys the stream, which closes the export's pooled connection.
import { once } from 'node:events';
import type { Static } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { MAX_RANGE_DAYS } from '../../../analytics/service.ts';
import { findMerchant } from '../../../merchants/repository.ts';
import { STATEMENT_COLUMNS, statementLines, statementRows, statementSummary, statementTotals, streamStatementCsv } from '../../../ledger/statements.ts';
import { consoleContext, type ConsoleContext } from '../../kit/http.ts';
import { ct, statementTypeNames } from '../texts.ts';
import { MOVEMENTS_REGION, MovementsResults, STATEMENTS_CSV_PATH, STATEMENTS_PATH, STATEMENTS_XLSX_PATH, StatementsPage, type PeriodForm } from '../pages/statements.tsx';
import { merchantFilePart, sendExport } from '../../kit/exports.ts';
import { at } from '../../kit/at.ts';
import { given, Query, Text } from '../../kit/schemas.ts';
import { sendListPage, sendRegion, wantsRegion } from '../../kit/regions.ts';
import { readDb } from '../../../../db/replicas.ts';

const config = { consoleAccess: 'user', consoleSection: 'statements' } as const;
const DAY_MS = 86_400_000;
/** Longer than any day a person types; what is echoed back in the form is cut to it. */
const MAX_DAY_CHARS = 10;

/** The period as typed (periodOf checks it, with its own messages) and the movements' cursor. */
const PeriodQuery = Query({ from: Text(), to: Text(), after: Text() });

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** A real calendar day as YYYY-MM-DD (2025-02-30 is not one). */
function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value < '0001-01-01') return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && utcDay(parsed) === value;
}

type Period = { ok: true; from: string; to: string } | { ok: false; form: PeriodForm };

/**
 * The period the query asks for: both days absent is this month so far (UTC); one absent is
 * refused like a wrong one (the form always sends both).
 */
function periodOf(query: Static<typeof PeriodQuery>, context: ConsoleContext, now: Date): Period {
  if (query.from === undefined && query.to === undefined) return { ok: true, from: `${utcDay(now).slice(0, 8)}01`, to: utcDay(now) };
  const from = (query.from ?? '').trim().slice(0, MAX_DAY_CHARS);
  const to = (query.to ?? '').trim().slice(0, MAX_DAY_CHARS);
  const lang = context.lang;
  const refuse = (field: 'from' | 'to', message: string): Period => ({ ok: false, form: { from, to, problem: { field, message } } });
  if (!isDay(from)) return refuse('from', ct(lang, 'statements.badFrom'));
  if (!isDay(to)) return refuse('to', ct(lang, 'statements.badTo'));
  if (from > to) return refuse('from', ct(lang, 'statements.reversed', { from, to }));
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) return refuse('from', ct(lang, 'statements.tooLong', { days, max: MAX_RANGE_DAYS }));
  return { ok: true, from, to };
}

/** statement-12345678-chikondi-stores-2026-11-01-to-2026-11-25.csv: ASCII only, nothing to quote. */
export function csvFileName(merchantAccountNumber: number, merchantName: string, from: string, to: string): string {
  return `${statementFileName(merchantAccountNumber, merchantName, from, to)}.csv`;
}

const statementFileName = (merchantAccountNumber: number, merchantName: string, from: string, to: string) =>
  `statement-${merchantFilePart(merchantAccountNumber, merchantName)}-${from}-to-${to}`;

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(STATEMENTS_PATH), { schema: { querystring: PeriodQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = context.user.merchantAccountNumber;
    const period = periodOf(request.query, context, deps.clock.now());
    if (!period.ok) return sendListPage(reply, context, 400, StatementsPage({ context, form: period.form, maxDays: MAX_RANGE_DAYS }));
    const after = given(request.query.after);
    const query = { from: period.from, to: period.to, after };
    if (wantsRegion(request, MOVEMENTS_REGION)) {
      // A page of movements needs only the currency, not the summary's sums.
      const [movements, account] = await Promise.all([statementLines(readDb(deps, merchant), merchant, period.from, period.to, { after }), findMerchant(readDb(deps, merchant), merchant)]);
      if (!account) throw new Error(`the signed-in user's merchant ${merchant} does not exist`);
      return sendRegion(reply, context, MovementsResults({ lang: context.lang, currencyCode: account.currency_code, page: movements, query, swapped: true }));
    }
    const [summary, totals, movements] = await Promise.all([
      statementSummary(readDb(deps, merchant), merchant, period.from, period.to),
      statementTotals(readDb(deps, merchant), merchant, period.from, period.to),
      statementLines(readDb(deps, merchant), merchant, period.from, period.to, { after }),
    ]);
    if (!summary) throw new Error(`the signed-in user's merchant ${merchant} has no ledger accounts`);
    const form = { from: period.from, to: period.to };
    return sendListPage(reply, context, 200, StatementsPage({ context, form, maxDays: MAX_RANGE_DAYS, shown: { summary, totals, movements, query } }));
  });

  scope.get(at(STATEMENTS_CSV_PATH), { schema: { querystring: PeriodQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const period = periodOf(request.query, context, deps.clock.now());
    if (!period.ok) return sendListPage(reply, context, 400, StatementsPage({ context, form: period.form, maxDays: MAX_RANGE_DAYS }));
    const { merchantAccountNumber, merchantName } = context.user;
    const csv = streamStatementCsv(readDb(deps, merchantAccountNumber), merchantAccountNumber, period.from, period.to, { typeNames: statementTypeNames(context.lang) });
    // The header row comes first from COPY: waiting for it means a failure to start the export
    // (no connection, a query error) is still an error page, not a download of one. A client gone
    // meanwhile stops the export (its connection is closed) and is answered nothing.
    let clientGone = false;
    const stop = () => {
      clientGone = true;
      csv.destroy(new Error('the client went away before the statement started'));
    };
    reply.raw.once('close', stop);
    try {
      await once(csv, 'readable');
    } catch (err) {
      csv.destroy();
      if (clientGone) return reply;
      throw err;
    } finally {
      reply.raw.off('close', stop);
    }
    return reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csvFileName(merchantAccountNumber, merchantName, period.from, period.to)}"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(csv);
  });

  // The same rows as a workbook (kit/exports.ts): amounts as numbers, dates as dates, text never a formula.
  scope.get(at(STATEMENTS_XLSX_PATH), { schema: { querystring: PeriodQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const period = periodOf(request.query, context, deps.clock.now());
    if (!period.ok) return sendListPage(reply, context, 400, StatementsPage({ context, form: period.form, maxDays: MAX_RANGE_DAYS }));
    const { merchantAccountNumber, merchantName } = context.user;
    return sendExport(reply, {
      format: 'xlsx',
      fileName: statementFileName(merchantAccountNumber, merchantName, period.from, period.to),
      sheetName: 'Statement',
      columns: STATEMENT_COLUMNS.map((c) => ({ header: c.key, kind: c.kind })),
      rows: statementRows(readDb(deps, merchantAccountNumber), merchantAccountNumber, period.from, period.to, { typeNames: statementTypeNames(context.lang) }),
    });
  });
};
export default route;

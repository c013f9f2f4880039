// GET /console/payouts (batches), /console/payouts/batches/:batchNumber (one batch and its lines)
// and /console/payouts/single (single payouts): read-only in part 1. Each list also as a file:
// /console/payouts.csv|.xlsx, /console/payouts/batches/:batchNumber/lines.csv|.xlsx (a batch's
// results, a row per payee), /console/payouts/single.csv|.xlsx (kit/exports.ts). Each answers an htmx swap of
// its list with the list alone (kit/regions.ts). A filter or cursor that is not valid is a 400
// page (src/http/keyset-pages.ts refuses it), another merchant's batch the console's 404 page.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../http/errors.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { batchesPage, batchLines, batchPageView, listSinglePayouts, BATCH_EXPORT_COLUMNS, BATCH_LINE_EXPORT_COLUMNS, exportBatches, exportBatchLines, exportSinglePayouts, SINGLE_PAYOUT_EXPORT_COLUMNS } from '../queries.ts';
import { findBatch } from '../../../disbursements/repository.ts';
import { EXPORT_FORMATS, exportFileName, sendExport } from '../../kit/exports.ts';
import { noticeOf } from '../../kit/actions.tsx';
import { consoleContext } from '../../kit/http.ts';
import {
  BatchesPage,
  BatchesResults,
  BatchPage,
  LinesResults,
  PAYOUTS_PATH,
  REGIONS,
  SINGLE_PAYOUTS_PATH,
  type BatchFilterValues,
  type LineFilterValues,
} from '../pages/payouts.tsx';
import { SinglePage, SingleResults } from '../pages/single-payout.tsx';
import { at } from '../../kit/at.ts';
import { given, PathId, pathNumber, Query, Text } from '../../kit/schemas.ts';
import { sendListPage, sendRegion, wantsRegion } from '../../kit/regions.ts';
import { readDb } from '../../../../db/replicas.ts';

const config = { consoleAccess: 'user', consoleSection: 'payouts' } as const;

const ListQuery = Query({ status: Text(), after: Text() });
const LinesQuery = Query({ search: Text(), status: Text(), after: Text() });
/** Batch numbers are positive bigints (batches.batch_number). */
const BatchParams = Type.Object({ batchNumber: PathId });

function batchNotFound(batchNumber: string): AppError {
  return new AppError('notFound', 'detail.batchNotFound', { batchNumber: batchNumber.slice(0, 12) });
}

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(PAYOUTS_PATH), { schema: { querystring: ListQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const filter: BatchFilterValues = { status: given(request.query.status), after: given(request.query.after) };
    const page = await batchesPage(readDb(deps, context.user.merchantAccountNumber), context.user.merchantAccountNumber, filter);
    if (wantsRegion(request, REGIONS.batches)) return sendRegion(reply, context, BatchesResults({ lang: context.lang, page, filter, swapped: true }));
    return sendListPage(reply, context, 200, BatchesPage({ context, page, filter }));
  });

  scope.get(`${at(PAYOUTS_PATH)}/batches/:batchNumber`, { schema: { params: BatchParams, querystring: LinesQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = context.user.merchantAccountNumber;
    const batchNumber = pathNumber(request.params.batchNumber);
    if (batchNumber === undefined) throw batchNotFound(request.params.batchNumber);
    const filter: LineFilterValues = { search: given(request.query.search), status: given(request.query.status), after: given(request.query.after) };
    // The lines first: they are all an htmx swap needs, and they say whether the batch is this merchant's.
    if (wantsRegion(request, REGIONS.lines)) {
      const lines = await batchLines(readDb(deps, merchant), merchant, batchNumber, filter);
      if (!lines) throw batchNotFound(request.params.batchNumber);
      return sendRegion(reply, context, LinesResults({ lang: context.lang, batchNumber, page: lines, filter, swapped: true }));
    }
    const view = await batchPageView(readDb(deps, merchant), merchant, batchNumber, filter);
    if (!view) throw batchNotFound(request.params.batchNumber);
    return sendListPage(reply, context, 200, BatchPage({ context, ...view, filter, notice: noticeOf(request, context.lang) }));
  });

  // The lists as files (kit/exports.ts): .csv and .xlsx of every row their filters keep, streamed.
  // A refused filter throws before anything is sent: the 400 page, as the lists' own.
  for (const format of EXPORT_FORMATS) {
    scope.get(`${at(PAYOUTS_PATH)}.${format}`, { schema: { querystring: ListQuery }, config }, async (request, reply) => {
      const { user } = consoleContext(request);
      const rows = exportBatches(readDb(deps, user.merchantAccountNumber), user.merchantAccountNumber, { status: given(request.query.status) });
      const fileName = exportFileName('batches', user.merchantAccountNumber, user.merchantName, deps.clock.now());
      return sendExport(reply, { format, fileName, sheetName: 'Batches', columns: BATCH_EXPORT_COLUMNS, rows });
    });

    scope.get(`${at(PAYOUTS_PATH)}/batches/:batchNumber/lines.${format}`, { schema: { params: BatchParams, querystring: LinesQuery }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const merchant = context.user.merchantAccountNumber;
      const batchNumber = pathNumber(request.params.batchNumber);
      // Another merchant's batch (or none) is the 404 page, as the batch's own page.
      if (batchNumber === undefined || !(await findBatch(deps.db, merchant, batchNumber))) throw batchNotFound(request.params.batchNumber);
      const rows = exportBatchLines(readDb(deps, merchant), context.lang, merchant, batchNumber, { search: given(request.query.search), status: given(request.query.status) });
      const fileName = exportFileName(`batch-${batchNumber}-results`, merchant, context.user.merchantName, deps.clock.now());
      return sendExport(reply, { format, fileName, sheetName: `Batch ${batchNumber}`, columns: BATCH_LINE_EXPORT_COLUMNS, rows });
    });

    scope.get(`${at(SINGLE_PAYOUTS_PATH)}.${format}`, { schema: { querystring: LinesQuery }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const { merchantAccountNumber, merchantName } = context.user;
      const rows = exportSinglePayouts(readDb(deps, merchantAccountNumber), context.lang, merchantAccountNumber, { search: given(request.query.search), status: given(request.query.status) });
      const fileName = exportFileName('single-payouts', merchantAccountNumber, merchantName, deps.clock.now());
      return sendExport(reply, { format, fileName, sheetName: 'Single payouts', columns: SINGLE_PAYOUT_EXPORT_COLUMNS, rows });
    });
  }

  scope.get(at(SINGLE_PAYOUTS_PATH), { schema: { querystring: LinesQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const filter: LineFilterValues = { search: given(request.query.search), status: given(request.query.status), after: given(request.query.after) };
    const page = await listSinglePayouts(deps.db, context.user.merchantAccountNumber, filter);
    if (wantsRegion(request, REGIONS.single)) return sendRegion(reply, context, SingleResults({ lang: context.lang, page, filter, swapped: true }));
    return sendListPage(reply, context, 200, SinglePage({ context, page, filter }));
  });
};
export default route;

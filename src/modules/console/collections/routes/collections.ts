// GET /console/collections — the merchant's collections, filtered and keyset paged (collections/queries.ts
// listCollections), and as a CSV or Excel file (.csv, .xlsx: every row the filters keep); GET /console/collections/:transactionReferenceNumber — one of them with its ledger
// lines and events (collectionDetail). Another merchant's reference is the console's 404 page.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import { ct } from '../texts.ts';
import type { RouteModule } from '../../../../http/types.ts';
import type { Queryable } from '../../../../db/pool.ts';
import { render } from '../../../../lib/html/jsx.ts';
import { listConnectors } from '../../../connectors/repository.ts';
import { collectionDetail, COLLECTION_EXPORT_COLUMNS, exportCollections, listCollections, type CollectionFilter } from '../queries.ts';
import { EXPORT_FORMATS, exportFileName, sendExport } from '../../kit/exports.ts';
import { consoleContext, sendHtml } from '../../kit/http.ts';
import { page } from '../../kit/layout.tsx';
import { CollectionPage } from '../pages/collection.tsx';
import {
  COLLECTIONS_PATH,
  CollectionsPage,
  CollectionsResults,
  RESULTS_ID,
  type CollectionsFilterValues,
  type CollectionsResult,
  type ConnectorOption,
} from '../pages/collections.tsx';
import { filterProblem } from '../../kit/display.tsx';
import { at } from '../../kit/at.ts';
import { Query, Text } from '../../kit/schemas.ts';
import { readDb } from '../../../../db/replicas.ts';

/** The data function's field names → the form's, with their labels (for a refused filter's message). */
const FIELDS = {
  fromDate: { name: 'from', label: 'filter.from' },
  toDate: { name: 'to', label: 'filter.to' },
  status: { name: 'status', label: 'filter.status' },
  connectorId: { name: 'connector', label: 'filter.connector' },
  search: { name: 'search', label: 'filter.search' },
  limit: { name: 'limit', label: 'filter.limit' },
} as const;

/**
 * The filters as typed and the cursor. All text: listCollections refuses a wrong one (a day that is
 * not one, a limit that is not a number) with a message shown back beside the form, not a 400 page.
 */
const ListQuery = Query({ from: Text(), to: Text(), status: Text(), connector: Text(), search: Text(), limit: Text(), after: Text() });
/** Any text: a reference that is not one is looked up and not found (the 404 page). */
const DetailParams = Type.Object({ transactionReferenceNumber: Type.String() });

function filterValues(query: Static<typeof ListQuery>): CollectionsFilterValues {
  return { from: query.from ?? '', to: query.to ?? '', status: query.status ?? '', connector: query.connector ?? '', search: query.search ?? '', limit: query.limit ?? '' };
}

/** '' → absent; anything else a number (NaN for text, which the data function refuses with a 400). */
const numberOrAbsent = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The data function's filter of the form's values (the list's and its export's). */
function filterOf(values: CollectionsFilterValues): CollectionFilter {
  return {
    fromDate: values.from || undefined,
    toDate: values.to || undefined,
    status: values.status || undefined,
    connectorId: numberOrAbsent(values.connector),
    search: values.search || undefined,
    limit: numberOrAbsent(values.limit),
  };
}

/**
 * Whether htmx asks for the results region alone. A history restore (the user going back, with
 * htmx's history cache off) asks for the whole page, as a first visit does.
 */
function wantsResultsOnly(request: FastifyRequest): boolean {
  const headers = request.headers;
  return headers['hx-request'] === 'true' && headers['hx-history-restore-request'] !== 'true' && headers['hx-target'] === RESULTS_ID;
}

/** The connectors a customer can pay from: one per institution (an alias's id finds its institution's anyway). */
async function collectionConnectors(db: Queryable): Promise<ConnectorOption[]> {
  return (await listConnectors(db, { activeInstitutionsOnly: true })).filter((c) => c.is_collection_allowed).map((c) => ({ connectorId: c.connector_id, connectorName: c.connector_name }));
}

const route: RouteModule = (scope, { deps }) => {
  const config = { consoleAccess: 'user', consoleSection: 'collections' } as const;

  scope.get(at(COLLECTIONS_PATH), { schema: { querystring: ListQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const values = filterValues(request.query);
    const after = request.query.after ?? '';
    let result: CollectionsResult;
    try {
      const found = await listCollections(readDb(deps, context.user.merchantAccountNumber), context.user.merchantAccountNumber, { ...filterOf(values), after: after || undefined });
      result = { page: found };
    } catch (err) {
      // A refused filter (AppError 'validation', 400) is shown back with its message; anything else is rethrown.
      result = { problem: filterProblem({ lang: context.lang, ct }, err, FIELDS, { ...values }) };
    }
    // The same address answers the whole page or, to htmx, the region it swaps: caches must tell them apart.
    reply.header('vary', 'HX-Request, HX-Target, HX-History-Restore-Request');
    if (wantsResultsOnly(request)) {
      // 200 even for a refused filter: htmx swaps no 4xx answer by default, and the message is the
      // content of the region. The address it pushes answers 400 when opened by itself.
      return sendHtml(reply, context, 200, render(CollectionsResults({ lang: context.lang, values, after, result })));
    }
    const connectors = await collectionConnectors(deps.db);
    return sendHtml(reply, context, 'problem' in result ? 400 : 200, page(CollectionsPage({ context, values, after, result, connectors })));
  });

  // GET /console/collections.csv and .xlsx: every collection the list's filters keep, streamed
  // (kit/exports.ts). A refused filter is the list page with its message, as a 400, as above.
  for (const format of EXPORT_FORMATS) {
    scope.get(`${at(COLLECTIONS_PATH)}.${format}`, { schema: { querystring: ListQuery }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const { merchantAccountNumber, merchantName } = context.user;
      const values = filterValues(request.query);
      try {
        return await sendExport(reply, {
          format,
          fileName: exportFileName('collections', merchantAccountNumber, merchantName, deps.clock.now()),
          sheetName: 'Collections',
          columns: COLLECTION_EXPORT_COLUMNS,
          rows: exportCollections(readDb(deps, merchantAccountNumber), merchantAccountNumber, filterOf(values)),
        });
      } catch (err) {
        const result = { problem: filterProblem({ lang: context.lang, ct }, err, FIELDS, { ...values }) };
        return sendHtml(reply, context, 400, page(CollectionsPage({ context, values, after: '', result, connectors: await collectionConnectors(deps.db) })));
      }
    });
  }

  scope.get(`${at(COLLECTIONS_PATH)}/:transactionReferenceNumber`, { schema: { params: DetailParams }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const reference = request.params.transactionReferenceNumber;
    const detail = await collectionDetail(deps.db, context.user.merchantAccountNumber, reference);
    // Unknown and another merchant's look the same: the console's 404 page (the scope's error handler).
    if (!detail) throw new AppError('notFound', 'detail.collectionNotFound', { transactionReferenceNumber: reference.slice(0, 40) });
    return sendHtml(reply, context, 200, page(CollectionPage({ context, detail })));
  });
};
export default route;

// The console's collections: the list (date range, status, connector, search; keyset pages, newest
// first) and one collection with the ledger lines it posted and the events it raised.
import type { Db, Queryable } from '../../../db/pool.ts';
import { cursorRows } from '../../../db/cursor.ts';
import type { ColumnKind } from '../kit/exports.ts';
import { containsPattern } from '../../../db/like.ts';
import { findCollection, type CollectionRow } from '../../collections/repository.ts';
import { checkDay, checkId, checkOneOf, checkOrder, checkSearch, decodeCursor, keysetTime, listScope, pageOf, pageRows, type Page } from '../../../http/keyset-pages.ts';

export const COLLECTION_STATUSES = ['S', 'R'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

export interface CollectionFilter {
  /** UTC days, inclusive, YYYY-MM-DD. */
  fromDate?: string;
  toDate?: string;
  status?: string;
  /** A connector's institution: its id or an alias's (connectors.alias_of) finds both. */
  connectorId?: number;
  /**
   * Contained, any case, in the transaction reference, the source reference, the merchant's
   * request reference (E12 referenceNumber) or the customer's name; matched literally.
   */
  search?: string;
  /** The `next` of the previous page. */
  after?: string;
  limit?: number;
}

export interface CollectionItem {
  transactionReferenceNumber: string;
  transactionDate: Date;
  transactionCode: 'BAM' | 'RTP';
  statusCode: CollectionStatus;
  customerName: string;
  sourceAccountNumber: string;
  sourceReferenceNumber: string;
  /** The E12 request's reference (request to pay only). */
  requestReferenceNumber: string | null;
  connectorId: number;
  connectorName: string;
  amountMinor: number;
  feeMinor: number;
  /** amount − fee: what the merchant's collection balance received. */
  netMinor: number;
  currencyCode: string;
  transactionDescription: string;
  reversedAt: Date | null;
}

interface ListRow {
  transaction_reference_number: string;
  transaction_date: Date;
  date_key: string;
  collection_id: number;
  transaction_code: 'BAM' | 'RTP';
  status_code: CollectionStatus;
  source_account_name: string;
  source_account_number: string;
  source_reference_number: string;
  request_reference_number: string | null;
  connector_id: number;
  connector_name: string;
  amount_minor: number;
  fee_minor: number;
  currency_code: string;
  transaction_description: string;
  reversed_at: Date | null;
}

function item(r: ListRow): CollectionItem {
  return {
    transactionReferenceNumber: r.transaction_reference_number,
    transactionDate: r.transaction_date,
    transactionCode: r.transaction_code,
    statusCode: r.status_code,
    customerName: r.source_account_name,
    sourceAccountNumber: r.source_account_number,
    sourceReferenceNumber: r.source_reference_number,
    requestReferenceNumber: r.request_reference_number,
    connectorId: r.connector_id,
    connectorName: r.connector_name,
    amountMinor: r.amount_minor,
    feeMinor: r.fee_minor,
    netMinor: r.amount_minor - r.fee_minor,
    currencyCode: r.currency_code,
    transactionDescription: r.transaction_description,
    reversedAt: r.reversed_at,
  };
}

// $1 merchant, $2/$3 UTC days, $4 status, $5 connector, $6 the search's ILIKE pattern (or null),
// $7/$8 the cursor, $9 the rows to read. The search's columns are those of collections_search_idx
// (migration 0021): a rare text is found through that trigram index, a common one by walking the
// merchant's collections newest first; the planner picks by the pattern's estimated selectivity.
const LIST_SQL = `select c.transaction_reference_number, c.transaction_date, ${keysetTime('c.transaction_date')} as date_key, c.collection_id,
            c.transaction_code, c.status_code, c.source_account_name, c.source_account_number, c.source_reference_number,
            c.request_reference_number, c.connector_id, k.connector_name, c.amount_minor, c.fee_minor, c.currency_code, c.transaction_description,
            c.reversed_at
       from collections c
       join connectors k on k.connector_id = c.connector_id
      where c.merchant_account_number = $1
        and ($2::date is null or c.transaction_date >= $2::date::timestamp at time zone 'UTC')
        and ($3::date is null or c.transaction_date < ($3::date + 1)::timestamp at time zone 'UTC')
        and ($4::text is null or c.status_code = $4)
        and ($5::integer is null or coalesce(k.alias_of, k.connector_id) = (select coalesce(alias_of, connector_id) from connectors where connector_id = $5))
        and ($6::text is null or c.transaction_reference_number::text ilike $6 or c.source_reference_number ilike $6
             or c.source_account_name ilike $6 or c.request_reference_number ilike $6)
        -- The cursor: strictly after the last row shown, in (date desc, id desc) order. The first
        -- condition alone is what the index range can use.
        and ($7::timestamptz is null or c.transaction_date <= $7)
        and ($7::timestamptz is null or c.transaction_date < $7 or c.collection_id < $8)
      order by c.transaction_date desc, c.collection_id desc
      limit $9`;

/**
 * Newest first: transaction_date desc, collection_id desc (ties broken by the id, so the order is
 * total and pages neither skip nor repeat). A page reads the merchant's index on
 * (merchant_account_number, transaction_date desc) from its cursor: as cheap at page 10,000 as at
 * page 1. Filters are checked (400 on a bad value) and named in the cursor's scope.
 */
export async function listCollections(db: Queryable, merchantAccountNumber: number, filter: CollectionFilter = {}): Promise<Page<CollectionItem>> {
  const { text, values, limit, scope } = listCollectionsQuery(merchantAccountNumber, filter);
  const { rows } = await db.query<ListRow>(text, values);
  return pageOf(rows, limit, scope, (r) => [r.date_key, r.collection_id], item);
}

/**
 * The statement listCollections sends for `filter`, checked: exported for a test to EXPLAIN it.
 * `rows` 'all': every row the filters keep (the export, read through a cursor), no page size, no cursor.
 */
export function listCollectionsQuery(merchantAccountNumber: number, filter: CollectionFilter, rows: 'page' | 'all' = 'page') {
  const fromDate = checkDay('fromDate', filter.fromDate);
  const toDate = checkDay('toDate', filter.toDate);
  checkOrder(fromDate, toDate);
  const status = checkOneOf('status', filter.status, COLLECTION_STATUSES);
  const connectorId = checkId('connectorId', filter.connectorId);
  const search = checkSearch(filter.search);
  const limit = rows === 'all' ? 0 : pageRows(filter.limit);
  const scope = listScope('collections', merchantAccountNumber, { fromDate, toDate, status, connectorId, search });
  const after = rows === 'all' ? undefined : decodeCursor(filter.after, scope, ['time', 'int']);
  // A null limit is PostgreSQL's LIMIT ALL.
  const values = [merchantAccountNumber, fromDate ?? null, toDate ?? null, status ?? null, connectorId ?? null, search ? containsPattern(search) : null, after?.[0] ?? null, after?.[1] ?? null, rows === 'all' ? null : limit + 1];
  return { text: LIST_SQL, values, limit, scope };
}

/** The export's columns (kit/exports.ts): the API's field names, the same in every language, for spreadsheets and scripts alike. */
export const COLLECTION_EXPORT_COLUMNS = [
  { header: 'transactionDate', kind: 'date' },
  { header: 'transactionReferenceNumber', kind: 'text' },
  { header: 'transactionCode', kind: 'text' },
  { header: 'transactionStatusCode', kind: 'text' },
  { header: 'sourceCustomerName', kind: 'text' },
  { header: 'sourceAccountNumber', kind: 'text' },
  { header: 'sourceReferenceNumber', kind: 'text' },
  { header: 'referenceNumber', kind: 'text' },
  { header: 'connectorId', kind: 'integer' },
  { header: 'connectorName', kind: 'text' },
  { header: 'transactionAmount', kind: 'amount' },
  { header: 'transactionFee', kind: 'amount' },
  { header: 'netAmount', kind: 'amount' },
  { header: 'currencyCode', kind: 'text' },
  { header: 'transactionDescription', kind: 'text' },
  { header: 'reversedAt', kind: 'date' },
] as const satisfies ReadonlyArray<{ header: string; kind: ColumnKind }>;

/**
 * Every collection the list's filters keep (the same checks and statement as listCollections), in
 * the list's order, as rows of COLLECTION_EXPORT_COLUMNS; read through a cursor, never held. A
 * refused filter throws at the first row, before anything is sent.
 */
export async function* exportCollections(db: Db, merchantAccountNumber: number, filter: CollectionFilter): AsyncGenerator<unknown[]> {
  const { text, values } = listCollectionsQuery(merchantAccountNumber, { ...filter, after: undefined, limit: undefined }, 'all');
  for await (const r of cursorRows<ListRow>(db, text, values)) {
    yield [r.transaction_date, r.transaction_reference_number, r.transaction_code, r.status_code, r.source_account_name, r.source_account_number, r.source_reference_number,
      r.request_reference_number, r.connector_id, r.connector_name, r.amount_minor, r.fee_minor, r.amount_minor - r.fee_minor, r.currency_code, r.transaction_description, r.reversed_at];
  }
}

// ---------------------------------------------------------------------------------------------
// One collection

export interface LedgerLine {
  transferId: number;
  transferType: string;
  reference: string;
  createdAt: Date;
  entryId: number;
  /** The account's kind (collection, fees, customer_payments, …). */
  accountKind: string;
  /** The merchant's own account (collection, disbursement) rather than one of the service's. */
  isMerchantAccount: boolean;
  /** Positive: into the account. */
  amountMinor: number;
  currencyCode: string;
  metadata: Record<string, unknown>;
}

export interface RaisedEvent {
  eventId: number;
  eventCode: string;
  createdAt: Date;
  isTest: boolean;
  payload: unknown;
  /** Deliveries made of it, by status. */
  deliveries: { pending: number; succeeded: number; failed: number };
}

export interface CollectionDetail {
  collection: CollectionRow;
  ledgerLines: LedgerLine[];
  events: RaisedEvent[];
}

/** The transfers a collection posts: its payment (E11 payment, E12 payrequest) and its reversal. */
const COLLECTION_TRANSFER_TYPES = ['payment', 'payrequest', 'reversal'];
/** Plenty: a collection raises two events at most (paid, reversed). */
const MAX_EVENTS = 20;

/**
 * The collection as the API's getTransaction reads it (collections/repository.ts findCollection),
 * its ledger lines (every entry of its transfers, with the account's kind) and the events it raised.
 * An event is written in the same database transaction as the transfer it reports (one payment,
 * one reversal), and now() is that transaction's start, so its events are the merchant's events
 * naming this reference and created at one of its transfers' times: an index probe on
 * (merchant, created_at), not a scan of every event. Another merchant's reference answers undefined.
 */
export async function collectionDetail(db: Queryable, merchantAccountNumber: number, transactionReferenceNumber: string): Promise<CollectionDetail | undefined> {
  const reference = transactionReferenceNumber.trim().toUpperCase();
  if (!/^[A-Z0-9]{12}$/.test(reference)) return undefined;
  const collection = await findCollection(db, merchantAccountNumber, reference);
  if (!collection) return undefined;
  // One after another: `db` may be a single client (a transaction), which runs one query at a time.
  const ledger = await db.query<LedgerLine>(
    `select t.transfer_id as "transferId", t.transfer_type as "transferType", t.reference, t.created_at as "createdAt", e.entry_id as "entryId",
            a.kind as "accountKind", not a.is_system as "isMerchantAccount", e.amount_minor as "amountMinor",
            a.currency_code as "currencyCode", t.metadata
       from ledger_transfers t
       join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
       join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
      where t.reference = $2 and t.merchant_account_number = $1 and t.transfer_type = any($3::text[])
      order by t.transfer_id, e.entry_id`,
    [merchantAccountNumber, reference, COLLECTION_TRANSFER_TYPES],
  );
  const events = await db.query<RaisedEvent>(
    `select o.event_id as "eventId", o.event_code as "eventCode", o.created_at as "createdAt", o.is_test as "isTest", o.payload,
            json_build_object('pending', coalesce(d.pending, 0), 'succeeded', coalesce(d.succeeded, 0), 'failed', coalesce(d.failed, 0)) as deliveries
       from outbox_events o
       -- A delivery is written with its event (jobs/outbox.ts, one transaction: the same now()), so
       -- the merchant's index on (merchant_account_number, created_at) finds it; nothing indexes
       -- event_id alone, and the webhook path does not pay for one. Counted in a lateral subquery,
       -- not by grouping the join on the event's key (Citus wants every selected column grouped).
       left join lateral (
         select count(*) filter (where d.status = 'pending') as pending, count(*) filter (where d.status = 'succeeded') as succeeded,
                count(*) filter (where d.status = 'failed') as failed
           from webhook_deliveries d
          where d.merchant_account_number = o.merchant_account_number and d.created_at = o.created_at and d.event_id = o.event_id
          group by d.merchant_account_number) d on true
      where o.merchant_account_number = $1
        and o.created_at in (select created_at from ledger_transfers where reference = $2 and merchant_account_number = $1 and transfer_type = any($3::text[]))
        and o.payload->>'transactionReferenceNumber' = $2
      order by o.event_id
      limit $4`,
    [merchantAccountNumber, reference, COLLECTION_TRANSFER_TYPES, MAX_EVENTS],
  );
  return { collection, ledgerLines: ledger.rows, events: events.rows };
}

-- The console's collections search (issue 18): any part of a transaction or source reference, of
-- the customer's name, or of the merchant's request reference (E12 referenceNumber), in any case.
-- A contains-match (ILIKE '%…%') cannot use a btree, so the list walked the merchant's collections
-- newest first until a page matched: quick for a common name, 1-2 s for a reference that one
-- collection in 1,000,000 carries (BENCH_ONLY=console npm run bench, docs/performance.md). A
-- trigram index answers a rare pattern from the index; the planner still walks for a common one.
--
-- The request's reference was read through a join, and an OR across two tables has no index
-- plan: one branch per table (a UNION) was tried, and its request branch walked every collection
-- whenever the planner misjudged the requests table. The reference is the request's for good
-- once it is paid, so the collection now carries it, set when the collection is written.
alter table collections add column request_reference_number varchar(25);
update collections c set request_reference_number = r.reference_number
  from payment_requests r where r.request_id = c.request_id;
alter table collections add constraint collections_request_reference_check
  check ((request_id is null) = (request_reference_number is null));

-- pg_trgm and btree_gin ship with PostgreSQL's contrib (the embedded server has both) and are
-- trusted extensions: a database owner without superuser may create them.
create extension if not exists pg_trgm;
create extension if not exists btree_gin;

-- merchant_account_number first, so a search reads one merchant's rows from the index itself
-- (with many merchants, a name common elsewhere would otherwise fill the bitmap with other
-- merchants' rows to recheck). The transaction reference is char(12), which the trigram operator
-- class does not take: the index holds it as text, and the query matches the same expression.
-- GIN's pending list keeps a collection's insert cheap: new entries are merged in bulk, by
-- autovacuum or when the list passes gin_pending_list_limit.
create index collections_search_idx on collections using gin (
  merchant_account_number, (transaction_reference_number::text) gin_trgm_ops, source_reference_number gin_trgm_ops,
  source_account_name gin_trgm_ops, request_reference_number gin_trgm_ops);

-- Distribution by merchant (issue 28, docs/scaling.md section 4, group C): the two values of
-- payment_requests that are unique across merchants and written on the hot path (every E12) move
-- to claims tables, each keyed by the claimed value alone. On Citus each is distributed by that
-- value in a co-location group of its own (src/db/distribute.ts OWN_DISTRIBUTION), so a claim is
-- checked on one shard; payment_requests keeps only keys led by the merchant.
--
--   timed_account_claims: timed account number -> the merchant and request that hold it. One row
--     per number ever used: the latest request that took it, and whether that request is still
--     open. A new request takes a number whose holder is no longer open (the row is re-pointed),
--     exactly when the partial unique index dropped below (where status_code = 'O') allowed it. A
--     number therefore still finds its latest request once paid or expired, so a payment into it
--     answers "already paid" / "expired" (E921/E920) as before, not "not found".
--   ptid_claims: the hosted checkout's payment transaction id -> merchant and request. Never
--     released: a ptid was unique for ever (a full unique constraint), and an old link still shows
--     its request's outcome.
--
-- Forward-only, on a database that holds data: the claims are built from the existing requests
-- under a lock that keeps writers out until commit, then the two cross-merchant unique constraints
-- go. No foreign key between a claim and its request: they are in different co-location groups on
-- Citus. The claim and the request are written by one statement (collections/repository.ts) and
-- released by the statement that closes the request.

create table timed_account_claims (
  timed_account_number char(8) primary key check (timed_account_number ~ '^1[0-9]{7}$'),
  merchant_account_number integer not null,
  request_id bigint not null,
  -- The request still open: the number is taken. False once it is paid, expired or cancelled.
  is_open boolean not null
);

create table ptid_claims (
  payment_transaction_id char(32) primary key check (payment_transaction_id ~ '^[A-Za-z0-9_-]{32}$'),
  merchant_account_number integer not null,
  request_id bigint not null
);

-- No request is created or closed while the claims are copied.
lock table payment_requests in share row exclusive mode;

-- A number's latest request; an open one is always the latest (nothing else could take the number
-- while it was open), and comes first anyway.
insert into timed_account_claims (timed_account_number, merchant_account_number, request_id, is_open)
select distinct on (timed_account_number) timed_account_number, merchant_account_number, request_id, status_code = 'O'
  from payment_requests
 order by timed_account_number, status_code = 'O' desc, request_id desc;

insert into ptid_claims (payment_transaction_id, merchant_account_number, request_id)
select payment_transaction_id, merchant_account_number, request_id from payment_requests where payment_transaction_id is not null;

-- The claims' primary keys hold what these held. payment_requests_timed_account_idx (0014) stays:
-- a merchant's own look-up of its requests by number (collections/payment-requests.ts) uses it.
drop index payment_requests_open_timed_account;
alter table payment_requests drop constraint payment_requests_payment_transaction_id_key;

-- Real rails (issue 24): payouts carried by an outside payment rail (Mojaloop's FSPIOP API first).
--
-- A payout routed to a rail keeps its place in `payouts` (status T until final, due_at = when the
-- rail's worker must look at it next: a step to take, a callback overdue) and gains one row here:
-- the ids the rail knows it by, all derived from the payout (a retry after a crash sends the same
-- ids, so the switch sees one transfer, never two), the step it has reached, and what the rail
-- told us about the beneficiary. Every message sent or received is kept in rail_messages, with its
-- payout (for support and reconciliation); one that names no payout of ours is refused and kept
-- apart in rail_refused_messages.
--
-- Money: while the payout waits for the rail's word on a transfer actually sent, its amount and
-- fee sit in the system account rail_in_flight (payouts_in_flight → rail_in_flight when the
-- transfer is sent; rail_in_flight → payouts_settled + fees on COMMITTED, → the merchant's
-- disbursement account on ABORTED or an error). ledger verify checks both in-flight accounts
-- against the payouts (merchants/ledger-verify.ts).
alter table ledger_accounts drop constraint ledger_accounts_kind_check;
alter table ledger_accounts add constraint ledger_accounts_kind_check
  check (kind in ('collection', 'disbursement', 'funding', 'fees', 'customer_payments', 'payouts_in_flight', 'payouts_settled', 'bank_settlement', 'rail_in_flight'));
insert into ledger_accounts (merchant_account_number, kind, currency_code) values (null, 'rail_in_flight', 'MWK');

create table rail_payouts (
  merchant_account_number integer not null,
  payout_id bigint not null,
  rail varchar(20) not null,
  -- lookup: asking who the beneficiary is; quote: asking the terms; transfer: the transfer was (or
  -- may have been) sent and its money is in rail_in_flight; committed / aborted / failed: final.
  phase varchar(10) not null check (phase in ('lookup', 'quote', 'transfer', 'committed', 'aborted', 'failed')),
  -- The rail's ids, derived from the payout (rails/mojaloop/ids.ts).
  transfer_id uuid not null,
  quote_id uuid not null,
  transaction_id uuid not null,
  party_id_type varchar(20) not null,
  party_identifier varchar(128) not null,
  -- What the lookup answered: the beneficiary's institution and the name it holds for the account.
  payee_fsp varchar(32),
  party_name varchar(200),
  -- The lookup's name compared with the payout's (rails/names.ts): null before the lookup.
  name_matches boolean,
  -- The quote's terms, carried into the transfer.
  ilp_packet text,
  condition varchar(48),
  -- The transfer's expiration as sent: past it (plus a margin) a missing answer is asked for.
  expires_at timestamptz,
  fulfilment varchar(48),
  -- Requests sent in the current phase (the lookup and the quote are asked again a few times).
  attempts smallint not null default 0,
  -- When the outcome was asked for with GET /transfers/{id} (it may then be COMMITTED without a fulfilment).
  asked_at timestamptz,
  error_code varchar(4),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (merchant_account_number, payout_id),
  check ((phase = 'transfer') <= (condition is not null and expires_at is not null))
);
-- Unique within the merchant (the distribution key on Citus); across merchants they are unique by
-- construction, derived from the payout's service-wide transaction reference. Callbacks name only
-- the id: the plain indexes find its merchant first, then the row is locked with it.
create unique index rail_payouts_transfer_key on rail_payouts (merchant_account_number, transfer_id);
create unique index rail_payouts_quote_key on rail_payouts (merchant_account_number, quote_id);
create index rail_payouts_transfer_idx on rail_payouts (transfer_id);
create index rail_payouts_quote_idx on rail_payouts (quote_id);
-- PUT /parties/{Type}/{ID} names the party, not the payout: the lookups waiting for it.
create index rail_payouts_lookup_idx on rail_payouts (party_id_type, party_identifier) where phase = 'lookup';
-- In flight past their expiry (ledger verify, the operator's health view).
create index rail_payouts_open_idx on rail_payouts (rail, expires_at) where phase = 'transfer';

create table rail_messages (
  merchant_account_number integer not null,
  message_id bigint generated always as identity,
  payout_id bigint not null,
  rail varchar(20) not null,
  direction varchar(3) not null check (direction in ('out', 'in')),
  method varchar(8) not null,
  path varchar(300) not null,
  -- out: the switch's HTTP status (null: no answer); in: the status we answered.
  http_status smallint,
  -- The FSPIOP headers that matter for support (source, destination, date; never a signature key).
  headers jsonb not null default '{}',
  body jsonb,
  -- accepted, or why the message was refused / the request failed.
  outcome varchar(300) not null,
  created_at timestamptz not null default now(),
  primary key (merchant_account_number, message_id)
);
create index rail_messages_payout_idx on rail_messages (merchant_account_number, payout_id, message_id);

-- Messages that named no payout of ours (an unknown id, a forged or misdirected callback): refused,
-- and kept here for the operator, apart from any merchant's.
create table rail_refused_messages (
  message_id bigint generated always as identity primary key,
  rail varchar(20) not null,
  method varchar(8) not null,
  path varchar(300) not null,
  http_status smallint,
  headers jsonb not null default '{}',
  body jsonb,
  outcome varchar(300) not null,
  created_at timestamptz not null default now()
);
create index rail_refused_messages_created_idx on rail_refused_messages (created_at);

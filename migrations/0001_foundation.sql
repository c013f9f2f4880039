-- Foundation: settings, organisations, merchants, API keys, connectors, limits, the double-entry
-- ledger, idempotency records and the event outbox. Every merchant-owned table carries
-- merchant_account_number in its key so that it can later be sharded on that column.

create table settings (
  key text primary key,
  value text not null,
  updated_at timestamptz not null default now()
);

create table organisations (
  organisation_id char(12) primary key check (organisation_id ~ '^[A-Z0-9]{12}$'),
  organisation_name varchar(200) not null,
  date_created timestamptz not null default now()
);

create table merchants (
  merchant_account_number integer primary key check (merchant_account_number between 10000000 and 99999999),
  organisation_id char(12) not null references organisations,
  account_name varchar(200) not null,
  currency_code char(3) not null default 'MWK' check (currency_code ~ '^[A-Z]{3}$'),
  level_number smallint not null default 1 check (level_number between 1 and 3),
  status_code char(1) not null default 'A' check (status_code in ('A', 'I', 'C')),
  -- The 10–15 character number customers pay into directly (E11 beneficiaryAccountNumber).
  payment_account_number varchar(15) not null unique check (payment_account_number ~ '^[0-9]{10,15}$'),
  is_demo boolean not null default false,
  captured_by varchar(120) not null,
  date_created timestamptz not null default now()
);
create index merchants_organisation_idx on merchants (organisation_id);

create table api_keys (
  client_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  organisation_id char(12) not null references organisations,
  client_key varchar(64) not null,
  -- SHA-256 of the secret. Secrets are 45 random characters (≈ 268 bits), so a fast hash is
  -- enough: there is nothing to brute-force, and token issuance stays cheap.
  secret_hash bytea not null check (length(secret_hash) = 32),
  status_code char(1) not null default 'A' check (status_code in ('A', 'I')),
  captured_by varchar(120) not null,
  date_captured timestamptz not null default now(),
  expiry_date timestamptz,
  modified_by varchar(120),
  date_modified timestamptz,
  deleted_by varchar(120),
  date_deleted timestamptz
);
-- A client key names one live key pair; a deleted key's name may be reused.
create unique index api_keys_client_key_live on api_keys (client_key) where date_deleted is null;
create index api_keys_merchant_idx on api_keys (merchant_account_number) where date_deleted is null;

create table connectors (
  connector_id integer primary key check (connector_id between 100000 and 999999),
  connector_code varchar(12) not null unique check (connector_code ~ '^[A-Z0-9]{2,12}$'),
  connector_name varchar(100) not null,
  channel_code char(1) not null check (channel_code in ('M', 'B')),
  is_active boolean not null default true,
  is_disbursement_allowed boolean not null default true,
  is_collection_allowed boolean not null default true
);

insert into connectors (connector_id, connector_code, connector_name, channel_code) values
  (112400, 'AIRTEL', 'Airtel Money', 'M'),
  (112500, 'MPAMBA', 'TNM Mpamba', 'M'),
  (212188, 'NBM', 'National Bank of Malawi', 'B'),
  (221300, 'STDB', 'Standard Bank', 'B'),
  (221500, 'FDH', 'FDH Bank', 'B'),
  (221700, 'NBS', 'NBS Bank', 'B'),
  (221800, 'FCB', 'First Capital Bank', 'B'),
  (221900, 'ECO', 'Ecobank', 'B'),
  (222000, 'CDH', 'CDH Investment Bank', 'B'),
  (222100, 'CENTEN', 'Centenary Bank', 'B');

create table transaction_types (
  transaction_code varchar(3) primary key check (transaction_code ~ '^[A-Z]{3}$'),
  transaction_description varchar(100) not null
);

insert into transaction_types values
  ('MMW', 'Merchant to mobile wallet'),
  ('MBA', 'Merchant to bank account'),
  ('BAM', 'Account to merchant'),
  ('RTP', 'Request to pay');

-- Amounts are integer minor units (tambala): 100 = MWK 1.00.
create table limit_defaults (
  transaction_code varchar(3) not null references transaction_types,
  currency_code char(3) not null,
  minimum_amount_minor bigint not null check (minimum_amount_minor > 0),
  maximum_amount_minor bigint not null,
  daily_limit_minor bigint not null,
  primary key (transaction_code, currency_code),
  check (maximum_amount_minor >= minimum_amount_minor and daily_limit_minor >= maximum_amount_minor)
);

insert into limit_defaults values
  ('MMW', 'MWK', 10000, 1000000000, 2000000000),
  ('MBA', 'MWK', 10000, 5000000000, 10000000000),
  ('BAM', 'MWK', 10000, 5000000000, 10000000000),
  ('RTP', 'MWK', 10000, 1000000000, 2000000000);

create table merchant_limits (
  merchant_account_number integer not null references merchants,
  transaction_code varchar(3) not null references transaction_types,
  currency_code char(3) not null,
  minimum_amount_minor bigint not null check (minimum_amount_minor > 0),
  maximum_amount_minor bigint not null,
  daily_limit_minor bigint not null,
  primary key (merchant_account_number, transaction_code, currency_code),
  check (maximum_amount_minor >= minimum_amount_minor and daily_limit_minor >= maximum_amount_minor)
);

-- ---------------------------------------------------------------------------------------------
-- Double-entry ledger. ledger_post() is the only writer: it refuses unbalanced transfers, and
-- the CHECK on ledger_accounts refuses any merchant balance below zero, in the same statement.

create table ledger_accounts (
  account_id bigint generated always as identity primary key,
  -- null for the service's own (system) accounts
  merchant_account_number integer references merchants,
  kind varchar(30) not null check (kind in ('collection', 'disbursement', 'funding', 'fees', 'customer_payments', 'payouts_in_flight', 'payouts_settled')),
  currency_code char(3) not null,
  -- Merchant accounts keep a running balance, updated in the same transaction as their entries.
  -- System accounts may go negative (they mirror the outside world) and keep no balance column:
  -- updating one hot row from every merchant's transfer would serialise the whole service.
  balance_minor bigint,
  unique nulls not distinct (merchant_account_number, kind, currency_code),
  check ((merchant_account_number is null) = (balance_minor is null)),
  -- Two constraints, so that a violation names its cause (insufficient balance vs. cap).
  constraint ledger_balance_non_negative check (balance_minor >= 0),
  constraint ledger_balance_cap check (balance_minor <= 1000000000000000)
);

insert into ledger_accounts (merchant_account_number, kind, currency_code) values
  (null, 'funding', 'MWK'), (null, 'fees', 'MWK'), (null, 'customer_payments', 'MWK'),
  (null, 'payouts_in_flight', 'MWK'), (null, 'payouts_settled', 'MWK');

create table ledger_transfers (
  transfer_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  transfer_type varchar(40) not null,
  reference varchar(40) not null,
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index ledger_transfers_merchant_idx on ledger_transfers (merchant_account_number, created_at);
create index ledger_transfers_reference_idx on ledger_transfers (reference);

create table ledger_entries (
  entry_id bigint generated always as identity primary key,
  transfer_id bigint not null references ledger_transfers,
  account_id bigint not null references ledger_accounts,
  merchant_account_number integer not null,
  amount_minor bigint not null check (amount_minor <> 0),
  created_at timestamptz not null default now()
);
create index ledger_entries_account_idx on ledger_entries (account_id);
create index ledger_entries_transfer_idx on ledger_entries (transfer_id);

-- Entries are immutable: a correction is a new, reversing transfer.
create function ledger_entries_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'ledger entries are immutable' using errcode = 'P0001';
end $$;
create trigger ledger_entries_no_update before update or delete on ledger_entries
  for each row execute function ledger_entries_immutable();
create trigger ledger_entries_no_truncate before truncate on ledger_entries
  for each statement execute function ledger_entries_immutable();

-- Posts one balanced transfer: entries (account_ids[i], amounts[i]) that must sum to zero.
-- Raises check_violation (23514) naming ledger_balance_non_negative when a merchant balance
-- would go below zero (callers answer "insufficient balance"), or ledger_balance_cap.
create function ledger_post(p_merchant integer, p_type text, p_reference text, p_metadata jsonb,
                            p_account_ids bigint[], p_amounts bigint[]) returns bigint
language plpgsql as $$
declare
  v_transfer_id bigint;
begin
  if array_length(p_account_ids, 1) is distinct from array_length(p_amounts, 1) or array_length(p_amounts, 1) < 2 then
    raise exception 'a transfer needs at least two entries, one amount per account' using errcode = 'P0001';
  end if;
  if (select sum(a) from unnest(p_amounts) a) <> 0 then
    raise exception 'unbalanced transfer % (%): entries sum to %', p_reference, p_type,
      (select sum(a) from unnest(p_amounts) a) using errcode = 'P0001';
  end if;
  insert into ledger_transfers (merchant_account_number, transfer_type, reference, metadata)
    values (p_merchant, p_type, p_reference, coalesce(p_metadata, '{}')) returning transfer_id into v_transfer_id;
  insert into ledger_entries (transfer_id, account_id, merchant_account_number, amount_minor)
    select v_transfer_id, e.account_id, p_merchant, e.amount from unnest(p_account_ids, p_amounts) as e(account_id, amount);
  update ledger_accounts la set balance_minor = la.balance_minor + d.delta
    from (select e.account_id, sum(e.amount) as delta from unnest(p_account_ids, p_amounts) as e(account_id, amount) group by e.account_id) d
    where la.account_id = d.account_id and la.merchant_account_number is not null;
  return v_transfer_id;
end $$;

-- ---------------------------------------------------------------------------------------------
-- Idempotency records (product.md §4): one per (merchant, key), kept for a retention period.

create table idempotency_keys (
  merchant_account_number integer not null,
  idempotency_key varchar(80) not null,
  request_fingerprint char(64) not null,
  state varchar(12) not null check (state in ('in_progress', 'completed')),
  -- While in progress, the owner holds the key until this time; after it (the owner died) a
  -- retry may take the key over.
  locked_until timestamptz not null,
  -- Random token of the request that holds the key; completion checks it, so a request whose
  -- lock was taken over can never also commit its effect.
  owner_token uuid not null,
  response_status smallint,
  response_body text,
  response_content_type varchar(100),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (merchant_account_number, idempotency_key),
  check (state = 'in_progress' or response_status is not null)
);
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);

-- ---------------------------------------------------------------------------------------------
-- Event outbox: written in the same transaction as the change it reports; delivered by webhooks.

create table outbox_events (
  event_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  event_code varchar(100) not null,
  -- json, not jsonb: the text is kept exactly as written, so every delivery of the event sends
  -- the same bytes with its fields in the order the feature wrote them.
  payload json not null,
  is_test boolean not null default false,
  created_at timestamptz not null default now()
);
create index outbox_events_merchant_idx on outbox_events (merchant_account_number, created_at);

-- ---------------------------------------------------------------------------------------------
-- Shared rate-limit windows (RATE_LIMIT_STORE=postgres): permits requested per key and second.
-- Unlogged: losing the current second's counts in a crash is harmless, and it skips the WAL.

create unlogged table rate_limit_windows (
  limiter_key varchar(80) not null,
  window_second bigint not null,
  requested integer not null check (requested > 0),
  primary key (limiter_key, window_second)
);

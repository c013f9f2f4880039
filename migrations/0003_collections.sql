-- Collections: fees, request-to-pay with timed accounts, and the collections themselves.

-- Fees per transaction code and currency: percent (in basis points) plus a flat part, in tambala.
-- Operators change them here; every collection stores the fee it was charged.
create table fee_schedules (
  transaction_code varchar(3) not null references transaction_types,
  currency_code char(3) not null,
  percent_basis_points integer not null default 0 check (percent_basis_points between 0 and 10000),
  flat_minor bigint not null default 0 check (flat_minor >= 0),
  primary key (transaction_code, currency_code)
);

insert into fee_schedules values
  ('BAM', 'MWK', 100, 0),    -- direct customer payments: 1 % (the gateway's example: 500 on 50,000)
  ('RTP', 'MWK', 100, 0),    -- request-to-pay: 1 %
  ('MMW', 'MWK', 0, 10000),  -- payouts to wallets: MWK 100.00 flat
  ('MBA', 'MWK', 0, 15000);  -- payouts to bank accounts: MWK 150.00 flat

create table payment_requests (
  request_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  -- 8 digits beginning with 1 (interface.md E12).
  timed_account_number char(8) not null check (timed_account_number ~ '^1[0-9]{7}$'),
  amount_minor bigint not null check (amount_minor > 0),
  currency_code char(3) not null,
  transaction_description varchar(200) not null,
  reference_number varchar(25) not null check (reference_number ~ '^[A-Za-z0-9]{5,25}$'),
  captured_by varchar(120) not null,
  -- O open, P paid, E expired.
  status_code char(1) not null default 'O' check (status_code in ('O', 'P', 'E')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  paid_at timestamptz,
  -- Hosted checkout (product.md §10): where the customer goes afterwards, and who is told.
  source_reference_number varchar(50),
  success_redirect_url varchar(2048),
  failure_redirect_url varchar(2048),
  callback_api_url varchar(2048),
  -- The checkout page's unguessable id (ptid): 32 url-safe characters, 192 random bits. The page
  -- is opened by whoever holds the link, so the id is the only thing that guards it.
  payment_transaction_id char(32) unique check (payment_transaction_id ~ '^[A-Za-z0-9_-]{32}$'),
  -- What signs the payment event sent to callback_api_url: the merchant's payrequest.success
  -- subscription's secrets as they were at initiation, or a pair generated for this checkout.
  callback_signing_secret varchar(64) check (callback_signing_secret ~ '^whsec_[A-Za-z0-9+/=]{44}$'),
  callback_webhook_signature char(52) check (callback_webhook_signature ~ '^[A-Za-z0-9]{52}$'),
  check (expires_at > created_at),
  -- A checkout has all of its parts or none; a callback always has its secrets.
  check ((payment_transaction_id is null) = (success_redirect_url is null) and (payment_transaction_id is null) = (failure_redirect_url is null)
         and (payment_transaction_id is null) = (source_reference_number is null)),
  check ((callback_api_url is null) = (callback_signing_secret is null) and (callback_api_url is null) = (callback_webhook_signature is null))
);
-- A timed account number names one open request at a time; numbers are reused after expiry.
create unique index payment_requests_open_timed_account on payment_requests (timed_account_number) where status_code = 'O';
-- The merchant's reference is unique while its request is open.
create unique index payment_requests_open_reference on payment_requests (merchant_account_number, reference_number) where status_code = 'O';
create index payment_requests_expiry_idx on payment_requests (expires_at) where status_code = 'O';
create index payment_requests_merchant_idx on payment_requests (merchant_account_number, created_at desc);

create table collections (
  collection_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  transaction_reference_number char(12) not null unique check (transaction_reference_number ~ '^[A-Z0-9]{12}$'),
  -- BAM a direct customer payment (E11), RTP a payment of a timed account.
  transaction_code varchar(3) not null references transaction_types,
  request_id bigint unique references payment_requests,
  connector_id integer not null references connectors,
  source_account_number varchar(20) not null,
  source_account_name varchar(120) not null,
  source_reference_number varchar(50) not null,
  beneficiary_account_number varchar(15) not null,
  amount_minor bigint not null check (amount_minor > 0),
  fee_minor bigint not null check (fee_minor >= 0 and fee_minor <= amount_minor),
  currency_code char(3) not null,
  transaction_description varchar(200) not null,
  bridge_reference_number varchar(20) not null,
  -- S successful, R reversed.
  status_code char(1) not null default 'S' check (status_code in ('S', 'R')),
  created_by varchar(120) not null,
  transaction_date timestamptz not null default now(),
  value_date timestamptz not null default now(),
  reversed_at timestamptz,
  reversal_reason varchar(200),
  check ((status_code = 'R') = (reversed_at is not null))
);
create index collections_merchant_date_idx on collections (merchant_account_number, transaction_date desc);

-- Disbursements (product.md §9): batches of up to 50,000 payouts, their approval lifecycle, and
-- single payouts. A batch line and a single payout are the same thing (a payout), processed by
-- the same worker code; a single payout simply has no batch.

-- Batch numbers are shown to merchants; they start at six digits.
create table batches (
  batch_number integer generated always as identity (start with 100001) primary key,
  merchant_account_number integer not null references merchants,
  currency_code char(3) not null,
  -- The merchant's authorisation level when the batch was captured: the rules it follows (1
  -- initiator only, 2 + approver, 3 + reviewer + approver). A later level change does not
  -- move a batch already in flight.
  level_number smallint not null check (level_number between 1 and 3),
  upload_type varchar(4) not null check (upload_type in ('JSON', 'CSV', 'XLSX')),
  is_batch_scheduled boolean not null default false,
  scheduled_date date,
  -- Q queued, P pending, R reviewed, A approved, T transferring, C completed, E error,
  -- F failed, N cancelled, X rejected (state machine: src/modules/disbursements/lifecycle.ts).
  status_code char(1) not null default 'Q' check (status_code in ('Q', 'P', 'R', 'A', 'T', 'C', 'E', 'F', 'N', 'X')),
  captured_by varchar(120) not null,
  date_captured timestamptz not null default now(),
  reviewed_by varchar(120),
  date_reviewed timestamptz,
  approved_by varchar(120),
  date_approved timestamptz,
  rejected_by varchar(120),
  rejection_reason varchar(500),
  date_rejected timestamptz,
  cancelled_by varchar(120),
  date_cancelled timestamptz,
  transferred_by varchar(120),
  date_transferred timestamptz,
  date_completed timestamptz,
  error_message varchar(500),
  number_of_entries integer not null check (number_of_entries between 1 and 50000),
  number_of_invalid_entries integer not null default 0,
  number_of_successful_entries integer not null default 0,
  number_of_failed_entries integer not null default 0,
  number_of_reversed_entries integer not null default 0,
  -- Valid lines only (what transferFunds debits, with the fees).
  total_amount_minor bigint not null default 0,
  total_fee_minor bigint not null default 0,
  successful_amount_minor bigint not null default 0,
  failed_amount_minor bigint not null default 0,
  reversed_amount_minor bigint not null default 0,
  -- The lines as submitted, compact JSON, until the validation job expands them into payouts
  -- (set-based, one INSERT … SELECT); null afterwards. Keeping the upload to one row makes
  -- accepting 50,000 lines cost one insert, and a queued batch is not viewable anyway.
  staged_lines text,
  check (not is_batch_scheduled or scheduled_date is not null),
  check ((status_code = 'Q') = (staged_lines is not null))
);
create index batches_merchant_idx on batches (merchant_account_number, batch_number desc);
-- Queued batches, for the sweep that re-queues validations lost with a killed worker.
create index batches_queued_idx on batches (date_captured) where status_code = 'Q';
-- Kept as is: compressing 10 MB of JSON costs more time in the request than the disk it saves,
-- and the value lives only until validation.
alter table batches alter column staged_lines set storage external;

-- A fee in tambala: percent (basis points) of the amount rounded half up, plus the flat part,
-- never more than the amount. The one definition, used by every fee (fee_schedules).
create function fee_for_amount(p_amount_minor bigint, p_percent_basis_points integer, p_flat_minor bigint) returns bigint
language sql immutable parallel safe as $$
  select least(p_amount_minor, (p_amount_minor * p_percent_basis_points + 5000) / 10000 + p_flat_minor)
$$;

-- Transaction reference numbers: YYMMDD + 6 base-36 characters (the gateway's `251220XF152G`),
-- from a sequence scrambled by a multiplier coprime with 36^6, so they are unique for 36^6
-- payouts a day, look unrelated to each other, and need no retry loop.
create sequence payout_reference_seq;
-- Each installation starts at its own random point, so references do not repeat across sandboxes.
select setval('payout_reference_seq', 1 + floor(random() * 2176782336)::bigint);

-- One expression each (no subquery, nothing volatile), so PostgreSQL inlines them into the
-- 50,000-row INSERT … SELECT; a function call per row there tripled the statement's cost.
create function payout_reference_scramble(p_seq bigint) returns bigint language sql immutable parallel safe as $$
  select ((p_seq % 2176782336) * 1203873691) % 2176782336
$$;

-- p_day: the UTC day as YYMMDD.
create function payout_reference(p_seq bigint, p_day text) returns char(12) language sql immutable parallel safe as $$
  select (p_day
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) / 60466176 % 36)::integer + 1, 1)
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) / 1679616 % 36)::integer + 1, 1)
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) / 46656 % 36)::integer + 1, 1)
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) / 1296 % 36)::integer + 1, 1)
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) / 36 % 36)::integer + 1, 1)
      || substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', (payout_reference_scramble(p_seq) % 36)::integer + 1, 1))::char(12)
$$;

create table payouts (
  payout_id bigint generated always as identity primary key,
  -- No foreign keys on this table: their row-by-row triggers cost 0.9 s per 50,000-line batch
  -- (a third of its validation). Integrity holds by construction instead: lines are inserted by
  -- one INSERT … SELECT from their batch row (which references the merchant), single payouts after
  -- the merchant row is locked, and transaction codes are derived from the connector's channel.
  merchant_account_number integer not null,
  -- null for a single payout
  batch_number integer,
  line_number integer check (line_number between 1 and 50000),
  transaction_reference_number char(12) not null unique check (transaction_reference_number ~ '^[A-Z0-9]{12}$'),
  source_reference_number varchar(50) not null,
  beneficiary_name varchar(100) not null,
  -- No foreign key: a batch line naming an unknown connector is stored as an invalid line.
  connector_id integer not null,
  beneficiary_account_number varchar(30) not null,
  transaction_description varchar(200) not null default '',
  amount_minor bigint not null check (amount_minor > 0),
  fee_minor bigint not null default 0 check (fee_minor >= 0),
  currency_code char(3) not null,
  -- MMW to a wallet, MBA to a bank account; null when the connector is unknown.
  transaction_code varchar(3) check (transaction_code in ('MMW', 'MBA')),
  -- P pending, E error, D ready for funds transfer, T transferring, S successful, F failed,
  -- X rejected, C cancelled, R reversed.
  status_code char(1) not null check (status_code in ('P', 'E', 'D', 'T', 'S', 'F', 'X', 'C', 'R')),
  -- Why a line is invalid (E): a message key and its parameters, rendered in the reader's language.
  error_code varchar(40),
  error_params jsonb,
  response_code varchar(10),
  response_message varchar(200),
  captured_by varchar(120) not null,
  created_at timestamptz not null default now(),
  transferred_at timestamptz,
  -- While T: when the worker should next look at it (now, the scheduled date, or the end of a
  -- simulated connector time-out).
  due_at timestamptz,
  attempts smallint not null default 0,
  completed_at timestamptz,
  -- A successful payout that the sandbox will reverse (magic suffix), and when.
  reverse_at timestamptz,
  reversed_at timestamptz,
  check ((batch_number is null) = (line_number is null)),
  check ((status_code = 'T') = (due_at is not null)),
  check ((status_code = 'E') = (error_code is not null)),
  unique (batch_number, line_number)
);
-- Work for the payout worker, per merchant, by due time.
create index payouts_due_idx on payouts (merchant_account_number, due_at) where status_code = 'T';
create index payouts_reverse_idx on payouts (merchant_account_number, reverse_at) where status_code = 'S' and reverse_at is not null;
-- A batch is complete when none of its lines is left in T.
create index payouts_batch_open_idx on payouts (batch_number) where status_code = 'T';
-- Single payouts, newest first.
create index payouts_single_idx on payouts (merchant_account_number, payout_id desc) where batch_number is null;
-- Batch lines across batches, newest first (E3 without a batchNumber).
create index payouts_merchant_batch_idx on payouts (merchant_account_number, batch_number desc, line_number) where batch_number is not null;

-- What counts against the daily limit: amounts transferred per merchant, transaction code and
-- UTC day, added to under the limit row's lock by the transaction that debits them.
create table payout_daily_totals (
  merchant_account_number integer not null references merchants,
  transaction_code varchar(3) not null references transaction_types,
  currency_code char(3) not null,
  day date not null,
  amount_minor bigint not null check (amount_minor >= 0),
  primary key (merchant_account_number, transaction_code, currency_code, day)
);

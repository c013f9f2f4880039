-- Reconciliation of the rails (issue 25): once a day, and when an operator asks, every transfer our
-- ledger says went over a rail on a day is compared with the rail's own record of it (for
-- Mojaloop, the switch's answer to GET /transfers/{id}, kept in rail_transfer_reports). Each
-- difference becomes an exception, resolved by an operator with a reason: either a correcting
-- ledger transfer (type rail_correction, never an edit of the rows already booked) or an
-- acceptance (the rail's record was wrong). ledger verify checks the corrections against their
-- exceptions (merchants/ledger-verify.ts, rail_corrections).

-- One run: a day of one rail, asked for by the daily job ('schedule') or by an operator.
create table rail_reconciliations (
  run_id bigint generated always as identity primary key,
  rail varchar(20) not null,
  day date not null,
  requested_by varchar(254) not null,
  -- queued: its job is waiting; running; finished; failed (error says why; the job may try again).
  status varchar(10) not null default 'queued' check (status in ('queued', 'running', 'finished', 'failed')),
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  -- Transfers compared, of them those the rail did not answer for, differences found (open or
  -- already resolved), exceptions opened by this run, and open ones it found gone.
  transfers_checked integer not null default 0,
  unanswered integer not null default 0,
  differences integer not null default 0,
  new_exceptions integer not null default 0,
  cleared integer not null default 0,
  error varchar(300),
  check ((status in ('finished', 'failed')) = (finished_at is not null))
);
-- The daily job runs a day once, however often its job is retried or back-filled.
create unique index rail_reconciliations_scheduled_key on rail_reconciliations (rail, day) where requested_by = 'schedule';
create index rail_reconciliations_day_idx on rail_reconciliations (rail, day, run_id);

-- One difference between our record of a transfer and the rail's. A transfer has at most one
-- exception of each kind, ever: a run that finds the difference again updates the open one, and
-- one already resolved stays resolved (its correction is booked; finding it again is expected).
create table rail_exceptions (
  merchant_account_number integer not null,
  exception_id bigint generated always as identity,
  rail varchar(20) not null,
  transfer_id uuid not null,
  -- ours_committed_theirs_not: we booked it (payout S, collection credited), the rail did not commit it;
  -- theirs_committed_ours_not: the rail committed it, we booked it as failed (payout F, collection not credited);
  -- amount_differs: both committed, our ledger's amount is not the amount the transfer carried;
  -- in_flight_past_expiry: still waiting for the rail's word past expiry + MOJALOOP_IN_FLIGHT_BOUND_SECONDS;
  -- theirs_unknown: the rail did not answer within MOJALOOP_CALLBACK_SECONDS.
  kind varchar(30) not null check (kind in ('ours_committed_theirs_not', 'theirs_committed_ours_not', 'amount_differs', 'in_flight_past_expiry', 'theirs_unknown')),
  -- The payout (rail_payouts) or the inbound transfer (rail_collections) it is about.
  payout_id bigint,
  inbound_id bigint,
  -- Its transaction reference number (a payout's, or the collection credited); null: a collection never credited.
  reference varchar(40),
  currency_code char(3) not null,
  -- rail_payouts.phase or rail_collections.phase when last seen.
  ours_phase varchar(10) not null,
  -- rail_transfer_reports.transfer_state (null: no answer) and its error code.
  theirs_state varchar(12),
  theirs_error_code varchar(4),
  -- Our ledger's amount for the transfer, the amount the transfer carried on the rail (null: not
  -- known), and the fee our ledger booked with it: what a correction is computed from.
  ours_amount_minor bigint,
  theirs_amount_minor bigint,
  fee_minor bigint not null default 0 check (fee_minor >= 0),
  expires_at timestamptz,
  -- The day of the run that found it first, that run and the last run that found it.
  day date not null,
  first_run_id bigint not null references rail_reconciliations,
  last_run_id bigint not null references rail_reconciliations,
  detected_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  -- correct: a rail_correction ledger transfer was booked (ledger_transfer_id); accept: our record
  -- stands, the rail's was wrong; cleared: a later run found the difference gone (resolved_by
  -- 'reconciliation'). Who, when and why, for every one.
  resolution varchar(8) check (resolution in ('correct', 'accept', 'cleared')),
  resolved_at timestamptz,
  resolved_by varchar(254),
  reason varchar(500),
  ledger_transfer_id bigint references ledger_transfers,
  primary key (merchant_account_number, exception_id),
  check ((payout_id is null) <> (inbound_id is null)),
  check ((resolution is null) = (resolved_at is null) and (resolution is null) = (resolved_by is null) and (resolution is null) = (reason is null)),
  check (coalesce(resolution = 'correct', false) = (ledger_transfer_id is not null))
);
create unique index rail_exceptions_transfer_key on rail_exceptions (merchant_account_number, rail, transfer_id, kind);
-- One correcting transfer corrects one exception.
create unique index rail_exceptions_ledger_transfer_key on rail_exceptions (merchant_account_number, ledger_transfer_id) where ledger_transfer_id is not null;
-- An operator names an exception by its id alone: the plain index finds its merchant first.
create index rail_exceptions_id_idx on rail_exceptions (exception_id);
-- The operator's list: the open ones, oldest first.
create index rail_exceptions_open_idx on rail_exceptions (exception_id) where resolved_at is null;

-- A day's transfers, by when they were created or became final (the reconciliation's selection).
create index rail_payouts_created_idx on rail_payouts (rail, created_at) where phase in ('transfer', 'committed', 'aborted');
create index rail_payouts_completed_idx on rail_payouts (rail, completed_at) where phase in ('committed', 'aborted');
create index rail_collections_created_idx on rail_collections (rail, created_at) where phase in ('reserved', 'committed', 'aborted');
create index rail_collections_completed_idx on rail_collections (rail, completed_at) where phase in ('committed', 'aborted');
-- A collection's inbound transfer, for support (GET /admin/v1/rails/collections/{reference}).
create index rail_collections_collection_idx on rail_collections (merchant_account_number, collection_id) where collection_id is not null;

-- Ledger transfer types are not constrained in the schema (services name them; ledger verify
-- knows each one): rail_correction is new, checked by ledger verify's rail_corrections.

-- Collections over a rail (issue 25): our DFSP as the payee. A payer DFSP looks up a timed account
-- (or a merchant's payment account) as a party at our DFSP, asks for a quote, then sends the
-- transfer through the switch; we answer with the fulfilment, and the collection is credited when
-- the switch says the transfer is COMMITTED (its PATCH notification, FSPIOP 1.1, or its answer to
-- our GET /transfers/{id}).
--
-- One row per quote we gave: its terms (the ILP packet and condition we made), then the transfer
-- that used them. The fulfilment is never stored: it is computed again from the packet with
-- MOJALOOP_ILP_SECRET (rails/mojaloop/ilp.ts), so a restart between quote and transfer changes
-- nothing.
create table rail_collections (
  merchant_account_number integer not null,
  inbound_id bigint generated always as identity,
  rail varchar(20) not null,
  -- quoted: terms given; reserved: the transfer was accepted, the account is held and our
  -- fulfilment is (or is about to be) on its way; committed / aborted: final.
  phase varchar(10) not null check (phase in ('quoted', 'reserved', 'committed', 'aborted')),
  -- The payer's ids (FSPIOP correlation ids).
  quote_id uuid not null,
  transaction_id uuid not null,
  transfer_id uuid,
  payer_fsp varchar(32) not null,
  -- The party paid: ACCOUNT_ID and a timed account number or a merchant's payment account number.
  party_id_type varchar(20) not null,
  party_identifier varchar(128) not null,
  -- The request to pay behind a timed account (null: the merchant's payment account).
  request_id bigint,
  amount_minor bigint not null check (amount_minor > 0),
  currency_code char(3) not null,
  -- Who paid, as the payer's quote named them (for the collection's source).
  payer_id_type varchar(20),
  payer_identifier varchar(128),
  payer_name varchar(200),
  ilp_packet text not null,
  condition varchar(48) not null,
  quote_expires_at timestamptz not null,
  -- The transfer's expiration as the payer sent it: the switch commits nothing after it.
  transfer_expires_at timestamptz,
  -- The FSPIOP version of the transfer (1.0: we answer COMMITTED; 1.1: RESERVED, and the switch notifies).
  transfer_version varchar(3),
  -- When our PUT /transfers/{id} (the fulfilment) was taken by the switch; null: still to send.
  fulfilment_sent_at timestamptz,
  -- When we last asked the switch for the transfer's state (GET /transfers/{id}).
  asked_at timestamptz,
  -- The collection credited (collections.collection_id) on COMMITTED.
  collection_id bigint,
  error_code varchar(4),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  primary key (merchant_account_number, inbound_id),
  check ((phase in ('reserved', 'committed')) <= (transfer_id is not null and transfer_expires_at is not null)),
  check ((phase = 'committed') = (collection_id is not null))
);
-- The payer chooses the ids: unique per merchant (the distribution key on Citus); a message names
-- the id alone, so the plain indexes find the merchant first.
create unique index rail_collections_quote_key on rail_collections (merchant_account_number, quote_id);
create unique index rail_collections_transfer_key on rail_collections (merchant_account_number, transfer_id);
create index rail_collections_quote_idx on rail_collections (quote_id);
create index rail_collections_transfer_idx on rail_collections (transfer_id);
-- The sweeper's work: fulfilments to send, transfers whose outcome is overdue.
create index rail_collections_open_idx on rail_collections (rail, updated_at) where phase = 'reserved';

-- A timed account a transfer is paying is held: no other payment may take it, and it does not
-- expire, until the switch's word on that transfer (committed: paid; aborted: open again).
alter table payment_requests add column held_by_transfer uuid;

-- A message of a collection is kept with it, as a payout's is.
alter table rail_messages alter column payout_id drop not null;
alter table rail_messages add column inbound_id bigint;
alter table rail_messages add constraint rail_messages_one_owner check ((payout_id is null) <> (inbound_id is null));
create index rail_messages_inbound_idx on rail_messages (merchant_account_number, inbound_id, message_id) where inbound_id is not null;

-- The switch's word on a transfer, whenever it gives it (a PUT /transfers/{id} or its /error in
-- answer to a GET, a PATCH notification): the last one kept, for reconciliation.
create table rail_transfer_reports (
  rail varchar(20) not null,
  transfer_id uuid not null,
  -- COMMITTED, ABORTED, RESERVED, RECEIVED, or NOT_FOUND (error 3208).
  transfer_state varchar(12) not null,
  error_code varchar(4),
  reported_at timestamptz not null default now(),
  primary key (rail, transfer_id)
);

-- Operator funding (product.md §15): in production nothing mints money. A merchant's disbursement
-- balance is credited only when an operator records money the bank actually received: a ledger
-- transfer from the 'bank_settlement' system account (the service's own account at its bank),
-- kept with the bank's reference, the day it was received and who recorded it.
alter table ledger_accounts drop constraint ledger_accounts_kind_check;
alter table ledger_accounts add constraint ledger_accounts_kind_check
  check (kind in ('collection', 'disbursement', 'funding', 'fees', 'customer_payments', 'payouts_in_flight', 'payouts_settled', 'bank_settlement'));
insert into ledger_accounts (merchant_account_number, kind, currency_code) values (null, 'bank_settlement', 'MWK');

create table merchant_fundings (
  funding_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  currency_code char(3) not null,
  amount_minor bigint not null check (amount_minor > 0),
  -- Upper-cased and trimmed. Unique across merchants on purpose: one receipt at the bank can
  -- credit one merchant once, and a retried or mistyped command must not credit it twice.
  bank_reference varchar(64) not null,
  received_on date not null,
  recorded_by varchar(120) not null,
  transaction_reference_number char(12) not null,
  transfer_id bigint not null references ledger_transfers,
  date_recorded timestamptz not null default now(),
  constraint merchant_fundings_bank_reference_key unique (bank_reference)
);
create index merchant_fundings_merchant_idx on merchant_fundings (merchant_account_number, funding_id);

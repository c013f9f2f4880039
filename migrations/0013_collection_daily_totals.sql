-- What counts against a collection's daily limit (E11 payments, paid timed accounts): the amounts
-- collected per merchant, transaction code, currency and UTC day, kept as a running total and added
-- to under the limit row's lock by the payment itself (collections/service.ts recordPayment). It
-- replaces a sum over the day's collections on every payment, which grew with the day: 42 payments/s
-- in the bench once a merchant had collected for a while. A reversal takes its amount back off the
-- day it was collected. The mirror of payout_daily_totals (0004).
create table collection_daily_totals (
  merchant_account_number integer not null references merchants,
  transaction_code varchar(3) not null references transaction_types,
  currency_code char(3) not null,
  day date not null,
  amount_minor bigint not null check (amount_minor >= 0),
  primary key (merchant_account_number, transaction_code, currency_code, day)
);

insert into collection_daily_totals (merchant_account_number, transaction_code, currency_code, day, amount_minor)
select merchant_account_number, transaction_code, currency_code, (transaction_date at time zone 'UTC')::date, sum(amount_minor)
  from collections
 where status_code = 'S'
 group by 1, 2, 3, 4;

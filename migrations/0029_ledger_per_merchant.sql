-- Distribution by merchant (issue 28, docs/scaling.md §4, groups A and D): the ledger's system
-- accounts per merchant and its keys led by the merchant.
--
-- Until now the seven system accounts (funding, fees, customer_payments, payouts_in_flight,
-- payouts_settled, bank_settlement, rail_in_flight) were one row per kind and currency with no
-- merchant, and most transfers of every merchant had an entry on one of them. Every transfer
-- belongs to one merchant (ledger_transfers.merchant_account_number is NOT NULL since 0001, and
-- ledger_post writes that merchant on each of its entries), so each merchant now gets its own
-- "shadow" row per system kind and currency: merchant_account_number set, no balance (is_system),
-- created on first use like the shared rows were (ledger.ts systemAccountId). The service-wide
-- position of a system account is the sum of its merchants' rows (ledger verify sums entries).
--
-- Then every ledger key leads with the merchant: primary keys (merchant_account_number, id) of
-- accounts, transfers and entries, and every foreign key into them pairs the merchant, so an entry
-- can only be on its own merchant's accounts and transfer (the database now holds what ledger_post
-- and ledger verify's transfers_balanced assumed).
--
-- On a database with data: the entries on the shared rows are re-pointed to the shadow row of
-- their transfer's merchant (same kind, same currency), so no amount moves: every transfer keeps
-- its entries and amounts, every merchant balance is unchanged (merchant accounts are not touched),
-- and per kind and currency the sum over merchants equals what the shared row held. Then the
-- shared rows, which nothing references any more, are deleted. The update rewrites each such entry
-- (most transfers have one): on a large ledger this migration takes as long as one pass over them.

-- ---------------------------------------------------------------------------------------------
-- 1. Preconditions, checked rather than assumed: each entry carries its transfer's merchant, and
-- an entry on a merchant account is on an account of that merchant. The foreign keys below would
-- refuse either anyway; this says why in plain words.

do $$
declare
  v_bad bigint;
begin
  select count(*) into v_bad
    from ledger_entries e join ledger_transfers t on t.transfer_id = e.transfer_id
   where e.merchant_account_number <> t.merchant_account_number;
  if v_bad > 0 then
    raise exception '0029: % ledger entries name another merchant than their transfer; resolve them before distributing by merchant', v_bad;
  end if;
  select count(*) into v_bad
    from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
   where a.merchant_account_number is not null and a.merchant_account_number <> e.merchant_account_number;
  if v_bad > 0 then
    raise exception '0029: % ledger entries are on another merchant''s account than their transfer''s; resolve them before distributing by merchant', v_bad;
  end if;
end $$;

-- ---------------------------------------------------------------------------------------------
-- 2. Shadow system accounts. is_system follows from the kind (a system kind never keeps a balance,
-- a merchant kind always does), so it cannot disagree with it.

alter table ledger_accounts add column is_system boolean generated always as (kind not in ('collection', 'disbursement')) stored;
alter table ledger_accounts drop constraint ledger_accounts_check;
alter table ledger_accounts add constraint ledger_accounts_system_no_balance check (is_system = (balance_minor is null));

-- One per merchant, system kind and currency that has entries on a shared row; the others come on
-- first use.
insert into ledger_accounts (merchant_account_number, kind, currency_code)
select distinct e.merchant_account_number, a.kind, a.currency_code
  from ledger_entries e join ledger_accounts a on a.account_id = e.account_id
 where a.merchant_account_number is null
 order by 1, 2, 3;

-- Re-point the entries of the shared rows. Entries are immutable (the trigger
-- ledger_entries_no_update refuses any UPDATE): this one moves each entry to the account that the
-- same posting names today, same transfer, same amount, same time, so it is disabled for this
-- statement only, inside this migration's transaction (no other session can write meanwhile: the
-- ALTER holds a lock on ledger_entries that blocks writers until commit), and enabled again below.
alter table ledger_entries disable trigger ledger_entries_no_update;
update ledger_entries e
   set account_id = s.account_id
  from ledger_accounts shared, ledger_accounts s
 where shared.account_id = e.account_id and shared.merchant_account_number is null
   and s.merchant_account_number = e.merchant_account_number and s.kind = shared.kind and s.currency_code = shared.currency_code;
alter table ledger_entries enable trigger ledger_entries_no_update;

-- The shared rows: nothing references them any more (the day tables only hold merchant accounts).
delete from ledger_accounts where merchant_account_number is null;

alter table ledger_accounts alter column merchant_account_number set not null;
-- The same key without "nulls not distinct", which only the shared rows needed.
alter table ledger_accounts drop constraint ledger_accounts_merchant_account_number_kind_currency_code_key;
alter table ledger_accounts add constraint ledger_accounts_merchant_account_number_kind_currency_code_key unique (merchant_account_number, kind, currency_code);

-- ---------------------------------------------------------------------------------------------
-- 3. Keys led by the merchant. The foreign keys by id alone go first: they depend on the
-- primary keys they reference.

alter table ledger_entries drop constraint ledger_entries_account_id_fkey;
alter table ledger_entries drop constraint ledger_entries_transfer_id_fkey;
alter table merchant_fundings drop constraint merchant_fundings_transfer_id_fkey;
alter table rail_exceptions drop constraint rail_exceptions_ledger_transfer_id_fkey;

-- ledger_accounts: (merchant_account_number, account_id) is unique already (0022, for the day
-- tables' foreign keys): that index becomes the primary key.
alter table ledger_accounts drop constraint ledger_accounts_pkey;
alter table ledger_accounts add constraint ledger_accounts_pkey primary key using index ledger_accounts_merchant_account_key;

alter table ledger_transfers drop constraint ledger_transfers_pkey;
alter table ledger_transfers add constraint ledger_transfers_pkey primary key (merchant_account_number, transfer_id);

alter table ledger_entries drop constraint ledger_entries_pkey;
alter table ledger_entries add constraint ledger_entries_pkey primary key (merchant_account_number, entry_id);

-- An entry is on an account of its own merchant and in a transfer of its own merchant.
alter table ledger_entries add constraint ledger_entries_account_fkey
  foreign key (merchant_account_number, account_id) references ledger_accounts (merchant_account_number, account_id);
alter table ledger_entries add constraint ledger_entries_transfer_fkey
  foreign key (merchant_account_number, transfer_id) references ledger_transfers (merchant_account_number, transfer_id);
alter table merchant_fundings add constraint merchant_fundings_transfer_fkey
  foreign key (merchant_account_number, transfer_id) references ledger_transfers (merchant_account_number, transfer_id);
-- MATCH SIMPLE: an exception without a correcting transfer (ledger_transfer_id null) is not checked.
alter table rail_exceptions add constraint rail_exceptions_ledger_transfer_fkey
  foreign key (merchant_account_number, ledger_transfer_id) references ledger_transfers (merchant_account_number, transfer_id);

-- ---------------------------------------------------------------------------------------------
-- 4. ledger_post: the same contract. The entries' foreign keys now refuse an account or transfer of
-- another merchant (23503), and the balance update names the merchant, so it finds each account by
-- its primary key (and on Citus stays on the merchant's shard). Called with a shared system
-- account id from an older release, it fails on that foreign key: nothing half-posted.

create or replace function ledger_post(p_merchant integer, p_type text, p_reference text, p_metadata jsonb,
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
    where la.merchant_account_number = p_merchant and la.account_id = d.account_id and not la.is_system;
  return v_transfer_id;
end $$;

-- ---------------------------------------------------------------------------------------------
-- 5. Immutability on Citus. Citus refuses triggers on distributed tables unless
-- citus.enable_unsafe_triggers is on. ledger_entries_no_update reads no table (it only raises), so
-- it is safe per shard; docs/scaling.md ("Entries stay immutable") says how distribution keeps it.
comment on trigger ledger_entries_no_update on ledger_entries is
  'Entries are immutable: a correction is a new, reversing transfer. On Citus: created with citus.enable_unsafe_triggers (it reads no table), see docs/scaling.md §4';

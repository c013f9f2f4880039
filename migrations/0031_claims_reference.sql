-- Distribution by merchant (issue 28, docs/scaling.md section 4, group C): three values are unique
-- across merchants on purpose, because something finds the merchant by them or must never use
-- them twice anywhere. Citus refuses a unique constraint without the distribution column, so each
-- uniqueness moves to a claims table, `claimed value primary key → merchant`, that becomes a Citus
-- reference table (src/db/distribute.ts REFERENCE_TABLES): small, rarely written, a copy on every
-- node. Each claim is written in the transaction that writes the row it claims; the claims table's
-- primary key decides a race, and the service maps its unique violation to today's answer.
--
-- The owner column is owner_merchant_account_number, not merchant_account_number: a table with a
-- merchant_account_number column is merchant-owned (distributed on it, test/db/citus-catalog),
-- and a claims table must stay one table on every node. For the same reason no claims table has a
-- foreign key to a merchant table: a reference table cannot point into a distributed one.
--
-- Claims are never released: today's rows keep their value for good (a merchant's payment account
-- never changes, a funding is never deleted, a used or revoked invitation keeps its token hash),
-- so the value stays taken, as it was under the old unique constraints.
--
-- Forward-only, on a database that holds data: each claims table is filled from the rows that
-- already hold the value (unique today, so every insert succeeds), then the old constraint goes.

-- 1. Payment account numbers: a customer pays into one (E11, a rail's ACCOUNT_ID party) without
--    naming the merchant. Written once per merchant, before its merchants row.
create table payment_account_claims (
  payment_account_number varchar(15) primary key check (payment_account_number ~ '^[0-9]{10,15}$'),
  owner_merchant_account_number integer not null,
  claimed_at timestamptz not null default now(),
  -- A merchant has one payment account.
  constraint payment_account_claims_owner_key unique (owner_merchant_account_number),
  -- The target of merchants' foreign key below: the claim names the merchant that holds the number.
  constraint payment_account_claims_number_owner_key unique (payment_account_number, owner_merchant_account_number)
);
insert into payment_account_claims (payment_account_number, owner_merchant_account_number, claimed_at)
select payment_account_number, merchant_account_number, date_created from merchants;
alter table merchants drop constraint merchants_payment_account_number_key;
-- Every merchant's number is claimed, by that merchant (a merchant-owned table may reference a
-- reference table). The claim is inserted first, in the merchant's transaction.
alter table merchants add constraint merchants_payment_account_claim_fkey
  foreign key (payment_account_number, merchant_account_number)
  references payment_account_claims (payment_account_number, owner_merchant_account_number);

-- 2. Bank references: one bank receipt funds one merchant once, even across merchants. Fundings
--    are operator actions (rare). The claim is written after the funding row (it names the
--    funding's id), in the same transaction.
create table funding_claims (
  bank_reference varchar(64) primary key,
  owner_merchant_account_number integer not null,
  funding_id bigint not null,
  claimed_at timestamptz not null default now()
);
insert into funding_claims (bank_reference, owner_merchant_account_number, funding_id, claimed_at)
select bank_reference, merchant_account_number, funding_id, date_recorded from merchant_fundings;
alter table merchant_fundings drop constraint merchant_fundings_bank_reference_key;
-- Within the merchant the table still holds it itself (one shard): a funding written without its
-- claim by mistake still cannot credit the same receipt twice to one merchant.
alter table merchant_fundings add constraint merchant_fundings_merchant_bank_reference_key unique (merchant_account_number, bank_reference);

-- 3. Invitation tokens: the set-password link carries only the token, so its hash finds the
--    invitation, and through the claim its merchant. One per invitation (rare: users are invited
--    by hand). Written after the invitation row (it names the invitation's id).
create table invitation_claims (
  token_hash bytea primary key check (length(token_hash) = 32),
  owner_merchant_account_number integer not null,
  invitation_id bigint not null,
  claimed_at timestamptz not null default now()
);
insert into invitation_claims (token_hash, owner_merchant_account_number, invitation_id, claimed_at)
select token_hash, merchant_account_number, invitation_id, created_at from user_invitations;
-- Lookups go claim → (merchant_account_number, invitation_id), the primary key: no index on the
-- hash is needed any more.
alter table user_invitations drop constraint user_invitations_token_hash_key;

-- Distribution by merchant (issue 28, docs/scaling.md section 4, groups C, D and E): the keys,
-- unique constraints and foreign keys of the merchant-owned tables outside the ledger are led by
-- merchant_account_number, so each holds within one shard once the tables are distributed on it.
-- The ledger's tables (and the keys pointing at ledger_transfers) are 0029's.
--
-- Forward-only, on a database that holds data: every new key is built from rows that already
-- satisfy it (an id was unique alone, so it is unique with its merchant; a child row's merchant is
-- its parent's, as every insert writes it), and every foreign key is added validated.
--
-- Ids still come from their global sequences (group B): they stay unique service-wide, so code that
-- still finds a row by its id alone finds the same row. Until those queries carry the merchant
-- (query-level work), a plain index on the id keeps them an index lookup; each is marked
-- "transitional" below and is dropped with the last such query.

-- 1. Foreign keys that follow a surrogate id: dropped first (they depend on the keys replaced below)
--    and added again with the merchant on both sides (section 5).
alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_webhook_id_fkey;
alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey;
alter table collections drop constraint collections_request_id_fkey;
-- merchant_users: every key pointing at it already pairs (merchant_account_number, user_id), and
-- depends on the unique constraint that becomes the primary key.
alter table console_audit_log drop constraint console_audit_log_merchant_account_number_user_id_fkey;
alter table console_form_submissions drop constraint console_form_submissions_merchant_account_number_user_id_fkey;
alter table console_password_resets drop constraint console_password_resets_merchant_account_number_user_id_fkey;
alter table console_sessions drop constraint console_sessions_merchant_account_number_user_id_fkey;
alter table console_two_factor drop constraint console_two_factor_merchant_account_number_user_id_fkey;
alter table merchant_user_status_changes drop constraint merchant_user_status_changes_merchant_account_number_user__fkey;
alter table user_invitations drop constraint user_invitations_merchant_account_number_user_id_fkey;

-- 2. Group D: primary key (merchant_account_number, id) instead of the id alone.
alter table api_keys drop constraint api_keys_pkey, add primary key (merchant_account_number, client_id);
alter table outbox_events drop constraint outbox_events_pkey, add primary key (merchant_account_number, event_id);
alter table webhook_subscriptions drop constraint webhook_subscriptions_pkey, add primary key (merchant_account_number, webhook_id);
alter table webhook_deliveries drop constraint webhook_deliveries_pkey, add primary key (merchant_account_number, delivery_id);
alter table webhook_attempts drop constraint webhook_attempts_pkey, add primary key (merchant_account_number, attempt_id);
alter table webhook_listeners drop constraint webhook_listeners_pkey, add primary key (merchant_account_number, listener_id);
alter table payment_requests drop constraint payment_requests_pkey, add primary key (merchant_account_number, request_id);
alter table collections drop constraint collections_pkey, add primary key (merchant_account_number, collection_id);
alter table batches drop constraint batches_pkey, add primary key (merchant_account_number, batch_number);
alter table payouts drop constraint payouts_pkey, add primary key (merchant_account_number, payout_id);
alter table settlement_accounts drop constraint settlement_accounts_pkey, add primary key (merchant_account_number, account_id);
alter table user_invitations drop constraint user_invitations_pkey, add primary key (merchant_account_number, invitation_id);
alter table merchant_fundings drop constraint merchant_fundings_pkey, add primary key (merchant_account_number, funding_id);
alter table merchant_user_status_changes drop constraint merchant_user_status_changes_pkey, add primary key (merchant_account_number, change_id);
-- merchant_users: its unique (merchant_account_number, user_id) becomes the key (user_id is a random uuid).
alter table merchant_users drop constraint merchant_users_pkey;
alter table merchant_users drop constraint merchant_users_merchant_account_number_user_id_key;
alter table merchant_users add primary key (merchant_account_number, user_id);
-- The primary keys now serve what these served, column for column.
drop index merchant_fundings_merchant_idx;
drop index settlement_accounts_merchant_idx;
-- email_outbox keeps email_id alone: its merchant_account_number is nullable (operator e-mails,
-- group E), and a primary key column cannot be.

-- 3. Group C, where it is per merchant in the database.
-- A live client key is unique within its merchant: the token request names the merchant, and the
-- key is looked up with it (api-keys/repository.ts findLiveKeyByClientKey).
drop index api_keys_client_key_live;
create unique index api_keys_client_key_live on api_keys (merchant_account_number, client_key) where date_deleted is null;
-- Receivers deduplicate on message ids within what one merchant's endpoints receive.
alter table webhook_deliveries drop constraint webhook_deliveries_message_id_key,
  add constraint webhook_deliveries_merchant_account_number_message_id_key unique (merchant_account_number, message_id);
-- Transaction references: unique per merchant in the database. They stay distinct service-wide by
-- how they are drawn (payouts: payout_reference_seq; collections: 12 random characters), and the
-- operator's look-ups by reference alone (rails/operator.ts) refuse an ambiguous one.
alter table collections drop constraint collections_transaction_reference_number_key,
  add constraint collections_merchant_account_number_transaction_reference_number_key unique (merchant_account_number, transaction_reference_number);
alter table payouts drop constraint payouts_transaction_reference_number_key,
  add constraint payouts_merchant_account_number_transaction_reference_number_key unique (merchant_account_number, transaction_reference_number);
-- Keys that follow ids: led by the merchant.
alter table payouts drop constraint payouts_batch_number_line_number_key,
  add constraint payouts_merchant_account_number_batch_number_line_number_key unique (merchant_account_number, batch_number, line_number);
alter table collections drop constraint collections_request_id_key,
  add constraint collections_merchant_account_number_request_id_key unique (merchant_account_number, request_id);
alter table webhook_attempts drop constraint webhook_attempts_delivery_id_attempt_number_key,
  add constraint webhook_attempts_merchant_account_number_delivery_id_attempt_number_key unique (merchant_account_number, delivery_id, attempt_number);

-- 4. Transitional plain indexes: queries that still find a row by its id (or reference) alone.
-- Not unique (uniqueness is the merchant's keys' job); each goes when its last such query carries
-- the merchant.
create index api_keys_client_id_idx on api_keys (client_id);                    -- auth/key-status.ts (token's key, every request)
create index outbox_events_event_id_idx on outbox_events (event_id);             -- webhooks/dispatcher.ts claim
create index webhook_subscriptions_webhook_id_idx on webhook_subscriptions (webhook_id); -- webhooks/dispatcher.ts claim
create index webhook_deliveries_delivery_id_idx on webhook_deliveries (delivery_id); -- webhooks/dispatcher.ts outcomes and claim
create index payment_requests_request_id_idx on payment_requests (request_id);   -- collections, checkout (by request id)
create index collections_collection_id_idx on collections (collection_id);       -- collections/repository.ts
create index collections_reference_idx on collections (transaction_reference_number); -- rails/operator.ts (across merchants)
create index batches_batch_number_idx on batches (batch_number);                 -- disbursements (batch jobs by number)
create index payouts_payout_id_idx on payouts (payout_id);                       -- disbursements/repository.ts
create index payouts_reference_idx on payouts (transaction_reference_number);    -- rails/operator.ts (across merchants)
create index payouts_batch_line_idx on payouts (batch_number, line_number) where batch_number is not null; -- a batch's lines by number
create index settlement_accounts_account_id_idx on settlement_accounts (account_id); -- settlement/service.ts

-- 5. Group D: foreign keys between merchant-owned tables pair the merchant.
alter table webhook_deliveries
  add constraint webhook_deliveries_event_id_fkey
    foreign key (merchant_account_number, event_id) references outbox_events (merchant_account_number, event_id),
  -- A deleted subscription leaves its deliveries (their log) without it: only webhook_id is set null.
  add constraint webhook_deliveries_webhook_id_fkey
    foreign key (merchant_account_number, webhook_id) references webhook_subscriptions (merchant_account_number, webhook_id) on delete set null (webhook_id);
alter table webhook_attempts add constraint webhook_attempts_delivery_id_fkey
  foreign key (merchant_account_number, delivery_id) references webhook_deliveries (merchant_account_number, delivery_id);
alter table collections add constraint collections_request_id_fkey
  foreign key (merchant_account_number, request_id) references payment_requests (merchant_account_number, request_id);
alter table console_audit_log add constraint console_audit_log_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);
alter table console_form_submissions add constraint console_form_submissions_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);
alter table console_password_resets add constraint console_password_resets_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);
alter table console_sessions add constraint console_sessions_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);
alter table console_two_factor add constraint console_two_factor_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id) on delete cascade;
alter table merchant_user_status_changes add constraint merchant_user_status_changes_merchant_account_number_user__fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);
alter table user_invitations add constraint user_invitations_merchant_account_number_user_id_fkey
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id);

-- 6. Group E: batch_upload_chunks gets its batch's merchant, and the key (merchant_account_number,
-- upload_id, seq). Chunks live only while their batch is queued (written in the transaction that
-- inserts it, deleted when it is validated): chunks of no batch can never be read, and go.
delete from batch_upload_chunks c where not exists (select 1 from batches b where b.upload_id = c.upload_id);
alter table batch_upload_chunks add column merchant_account_number integer;
update batch_upload_chunks c set merchant_account_number = b.merchant_account_number from batches b where b.upload_id = c.upload_id;
-- No foreign key to merchants: the upload's COPY would check it row by row (thousands per upload);
-- the batch it belongs to has one.
alter table batch_upload_chunks alter column merchant_account_number set not null,
  drop constraint batch_upload_chunks_pkey,
  add primary key (merchant_account_number, upload_id, seq);

-- rail_transfer_reports: the switch's word is recorded only for a transfer of ours (a rail payout's
-- or a rail collection's), so its merchant is known: one row per merchant that has the transfer
-- (one, in practice: transfer ids are unique on the switch). Reports of no such transfer are never
-- read (reconciliation starts from our side) and go.
alter table rail_transfer_reports drop constraint rail_transfer_reports_pkey;
alter table rail_transfer_reports add column merchant_account_number integer;
insert into rail_transfer_reports (merchant_account_number, rail, transfer_id, transfer_state, error_code, reported_at)
select o.merchant_account_number, r.rail, r.transfer_id, r.transfer_state, r.error_code, r.reported_at
  from rail_transfer_reports r
  join (select merchant_account_number, transfer_id from rail_payouts
        union
        select merchant_account_number, transfer_id from rail_collections where transfer_id is not null) o on o.transfer_id = r.transfer_id
 where r.merchant_account_number is null;
delete from rail_transfer_reports where merchant_account_number is null;
alter table rail_transfer_reports alter column merchant_account_number set not null,
  add primary key (merchant_account_number, rail, transfer_id);
-- Transitional, as in section 4: reconciliation waits for answers by transfer id (rails/reconciliation/ask.ts).
create index rail_transfer_reports_transfer_idx on rail_transfer_reports (rail, transfer_id);

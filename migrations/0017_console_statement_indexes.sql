-- Indexes the merchant console's reads need (issue 18; src/modules/console/data), each measured by
-- `BENCH_ONLY=console npm run bench` on a merchant with 1,000,000 collections (docs/performance.md).
--
-- Statements read an account's ledger entries by time: the opening balance is today's balance less
-- the entries made since the period began, and the movements are listed in (created_at, entry_id)
-- order. With only (account_id) every statement read all of the account's entries and filtered them
-- by time; (account_id, created_at, entry_id) with the amount included answers the sums from the
-- index alone (an index-only range) and pages the movements by their key. It begins with account_id,
-- so it also serves everything the old (account_id) index did, which is dropped: the ledger's hot
-- path keeps one index per entry for accounts, not two.
create index ledger_entries_account_time_idx on ledger_entries (account_id, created_at, entry_id) include (amount_minor);
drop index ledger_entries_account_idx;

-- The console's home counts a merchant's failed webhook deliveries and lists the last ones: without
-- this, a count over every delivery the merchant ever had (1,000,000 in the bench: 70 ms). Failed is
-- rare, so the partial index stays small, and a delivery leaves it when it is redelivered.
create index webhook_deliveries_failed_idx on webhook_deliveries (merchant_account_number, delivery_id desc) where status = 'failed';

-- Statements show a batch's money line by line (issue 27; src/modules/ledger/statements.ts): the
-- ledger books a chunk of failed payouts refunded (payout_settle) or of reversed payouts
-- (payout_reversal) as one transfer, and the payouts it covers are those of the merchant decided in
-- the same transaction, so with the transfer's time as their completed_at (failed) or reversed_at
-- (reversed). Without these, each such transfer on a statement would read every payout the
-- merchant ever made. Failed and reversed are rare, so the partial indexes stay small.
create index payouts_failed_at_idx on payouts (merchant_account_number, completed_at) where status_code = 'F';
create index payouts_reversed_at_idx on payouts (merchant_account_number, reversed_at) where status_code = 'R';

-- Single payouts follow the merchant's authorisation level, as batches do (issue 14; product.md §9;
-- docs.onekhusa.com, Approve / Review / Reject Single Disbursement): level 1 pays at once, level 2
-- waits for an approver, level 3 for a reviewer and then an approver, and any of them may reject.
-- The state machine is data in src/modules/disbursements/lifecycle.ts (SINGLE_TRANSITIONS).
--
-- A single payout awaiting review or approval is P with no due time and no debit; approving it
-- debits amount + fee, counts it against the day's limit and moves it to T in one transaction; a
-- rejected one is X and never moved money. Batch lines keep these columns null: their batch row
-- records who acted on them.
--
-- Only nullable columns without defaults, so adding them rewrites nothing; the checks are added
-- NOT VALID (existing rows all have nulls here and pass anyway), so no scan of the payouts table
-- holds its lock while the service starts.
alter table payouts
  -- The merchant's level when the single payout was captured; null for batch lines, and for single
  -- payouts captured before this migration (all of them paid at once, as level 1).
  add column level_number smallint,
  add column reviewed_by varchar(120),
  add column date_reviewed timestamptz,
  add column approved_by varchar(120),
  add column date_approved timestamptz,
  add column rejected_by varchar(120),
  add column rejection_reason varchar(500),
  add column date_rejected timestamptz;

alter table payouts add constraint payouts_level_number_check check (level_number between 1 and 3) not valid;
-- Who acted is recorded on a single payout only (a batch line's actors are its batch's).
alter table payouts add constraint payouts_single_actors_check
  check (batch_number is null or (level_number is null and reviewed_by is null and approved_by is null and rejected_by is null)) not valid;
-- A rejection always says why and who.
alter table payouts add constraint payouts_rejection_check
  check ((rejected_by is null) = (date_rejected is null) and (rejected_by is null or rejection_reason is not null)) not valid;

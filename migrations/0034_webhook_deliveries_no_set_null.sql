-- Distribution by merchant (issue 28): Citus refuses ON DELETE SET NULL (and SET DEFAULT) on a
-- foreign key that includes the distribution column, even when, as here, only webhook_id is set
-- to null (measured on Citus 13.2: "SET NULL or SET DEFAULT is not supported in ON DELETE operation
-- when distribution key is included in the foreign key constraint"). Deleting a subscription now
-- detaches its deliveries itself, in the same statement that fails its pending ones
-- (webhooks/repository.ts deleteSubscription), before the subscription row goes: the same outcome,
-- and the key is a plain one that every node can check.
alter table webhook_deliveries drop constraint webhook_deliveries_webhook_id_fkey;
alter table webhook_deliveries
  add constraint webhook_deliveries_webhook_id_fkey
  foreign key (merchant_account_number, webhook_id) references webhook_subscriptions (merchant_account_number, webhook_id);

-- Temporary webhook listeners (issue 15): `npm run cli -- listen` receives a copy of a merchant's
-- events through a lease that it renews, instead of re-pointing the merchant's subscriptions. A
-- listener that is not renewed lapses by itself: it gets no new deliveries, its undelivered ones
-- end as failed, and a sweep deletes it. The merchant's own subscriptions are never touched.

create table webhook_listeners (
  listener_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  callback_url varchar(2048) not null,
  -- Known event codes only (catalogue.ts); a listener copies at most all of them.
  event_codes varchar(100)[] not null check (cardinality(event_codes) between 1 and 100),
  -- Its own secrets, as a subscription has: the copy is signed like the original would be.
  webhook_signature char(52) not null check (webhook_signature ~ '^[A-Za-z0-9]{52}$'),
  signing_secret varchar(64) not null check (signing_secret ~ '^whsec_[A-Za-z0-9+/=]{44}$'),
  lease_seconds integer not null check (lease_seconds between 5 and 300),
  expires_at timestamptz not null,
  created_by varchar(120) not null,
  date_created timestamptz not null default now(),
  date_renewed timestamptz
);
-- The fan-out's lookup (a merchant's unexpired listeners) and the sweep's (expired ones).
create index webhook_listeners_merchant_idx on webhook_listeners (merchant_account_number, expires_at);
create index webhook_listeners_expiry_idx on webhook_listeners (expires_at);

-- A listener's copy of an event: webhook_id null (it is no subscription's delivery), listener_id
-- set. No foreign key: the id stays on the delivery after the sweep deletes the listener, so the
-- dispatcher can tell a lapsed listener's copy from an ad-hoc target's delivery.
alter table webhook_deliveries add column listener_id bigint;
create index webhook_deliveries_listener_idx on webhook_deliveries (listener_id) where listener_id is not null and status = 'pending';

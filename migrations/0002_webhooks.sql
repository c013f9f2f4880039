-- Webhooks: subscriptions (one per merchant and event code), deliveries (one per event and
-- subscription, created in the same transaction as the event) and every attempt made.

create table webhook_subscriptions (
  webhook_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  event_code varchar(100) not null,
  callback_url varchar(2048) not null,
  -- The gateway's static signature, sent as X-OneKhusa-Webhook-Signature (52 alphanumerics).
  webhook_signature char(52) not null check (webhook_signature ~ '^[A-Za-z0-9]{52}$'),
  -- Ours: the Standard Webhooks signing secret ("whsec_" + base64 of 32 random bytes).
  signing_secret varchar(64) not null check (signing_secret ~ '^whsec_[A-Za-z0-9+/=]{44}$'),
  created_by varchar(120) not null,
  date_created timestamptz not null default now(),
  modified_by varchar(120),
  date_modified timestamptz,
  unique (merchant_account_number, event_code)
);

create table webhook_deliveries (
  delivery_id bigint generated always as identity primary key,
  merchant_account_number integer not null references merchants,
  event_id bigint not null references outbox_events,
  -- null once the subscription is deleted; the delivery keeps its own copy of the target.
  webhook_id bigint references webhook_subscriptions on delete set null,
  event_code varchar(100) not null,
  callback_url varchar(2048) not null,
  -- Stable across retries and redeliveries: receivers deduplicate on it (webhook-id header).
  message_id varchar(40) not null unique,
  status varchar(10) not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  -- Attempts made in the current round (a redelivery starts a new round at 0).
  round_attempts smallint not null default 0 check (round_attempts >= 0),
  total_attempts integer not null default 0 check (total_attempts >= 0),
  next_attempt_at timestamptz not null default now(),
  -- A worker that claims the delivery owns it until then; if it dies, another re-claims it after.
  locked_until timestamptz,
  is_test boolean not null default false,
  -- A delivery to an ad-hoc target (a hosted checkout's callbackApiUrl) has no subscription: it
  -- carries its own secrets. Null on subscription deliveries, which sign with the subscription's.
  signing_secret varchar(64) check (signing_secret ~ '^whsec_[A-Za-z0-9+/=]{44}$'),
  webhook_signature char(52) check (webhook_signature ~ '^[A-Za-z0-9]{52}$'),
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  check ((signing_secret is null) = (webhook_signature is null))
);
-- The dispatcher's claim query: due, pending deliveries in order.
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_merchant_idx on webhook_deliveries (merchant_account_number, created_at desc);

create table webhook_attempts (
  attempt_id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries,
  merchant_account_number integer not null,
  attempt_number integer not null check (attempt_number > 0),
  attempted_at timestamptz not null,
  http_status smallint,
  latency_ms integer not null check (latency_ms >= 0),
  -- The first 1 KB of the response body, for the delivery log.
  response_snippet varchar(1024),
  error varchar(300),
  unique (delivery_id, attempt_number)
);

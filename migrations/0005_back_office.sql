-- The merchant's back office: settlement accounts (product.md §12), merchant users with their
-- invitations (§13), the e-mail outbox, and the maintained aggregates behind analytics (§14).

create table settlement_accounts (
  account_id integer generated always as identity (start with 1001) primary key,
  merchant_account_number integer not null references merchants,
  account_number varchar(16) not null check (account_number ~ '^[0-9]{10,16}$'),
  connector_id integer not null references connectors,
  account_name varchar(100) not null,
  -- A active, I inactive, D deleted. New accounts are inactive. A deleted account is kept (who
  -- deleted it, and when: money was settled to it) but is never shown or changed again.
  status_code char(1) not null default 'I' check (status_code in ('A', 'I', 'D')),
  captured_by varchar(120) not null,
  date_created timestamptz not null default now(),
  modified_by varchar(120),
  date_modified timestamptz,
  deleted_by varchar(120),
  date_deleted timestamptz,
  check ((status_code = 'D') = (deleted_by is not null) and (status_code = 'D') = (date_deleted is not null))
);
-- One active settlement account per merchant, held by the database: two concurrent activations
-- cannot both commit.
create unique index settlement_accounts_one_active on settlement_accounts (merchant_account_number) where status_code = 'A';
create index settlement_accounts_merchant_idx on settlement_accounts (merchant_account_number, account_id);

create table roles (
  role_id smallint primary key,
  role_name varchar(40) not null unique
);
insert into roles values (1, 'Administrator'), (2, 'Initiator'), (3, 'Reviewer'), (4, 'Approver'), (5, 'Viewer');

create table merchant_users (
  user_id uuid primary key default gen_random_uuid(),
  organisation_id char(12) not null references organisations,
  merchant_account_number integer not null references merchants,
  first_name varchar(60) not null,
  last_name varchar(60) not null,
  email_address varchar(120) not null,
  -- Malawian MSISDN, stored as 265 + 9 digits.
  phone_number char(12) not null check (phone_number ~ '^265[0-9]{9}$'),
  role_id smallint not null references roles,
  -- A active, C closed.
  status_code char(1) not null default 'A' check (status_code in ('A', 'C')),
  -- argon2id; null until the user has set a password through the invitation link.
  password_hash varchar(200),
  date_password_set timestamptz,
  captured_by varchar(120) not null,
  date_created timestamptz not null default now(),
  modified_by varchar(120),
  date_modified timestamptz,
  check ((password_hash is null) = (date_password_set is null)),
  check (btrim(first_name) <> '' and btrim(last_name) <> ''),
  -- The target of user_invitations' foreign key: an invitation belongs to its user's merchant.
  unique (merchant_account_number, user_id)
);
-- One user per e-mail address per merchant, whatever its case.
create unique index merchant_users_email on merchant_users (merchant_account_number, lower(email_address));
create index merchant_users_merchant_idx on merchant_users (merchant_account_number, date_created desc);

-- One-time set-password links. Only the SHA-256 of the token is kept: the link in the e-mail is
-- the only copy. A new invitation (E6), a changed e-mail address or closing the user revokes the
-- open ones; using one marks it used. Open = neither used nor revoked, and not yet expired.
create table user_invitations (
  invitation_id bigint generated always as identity primary key,
  merchant_account_number integer not null,
  user_id uuid not null,
  token_hash bytea not null unique check (length(token_hash) = 32),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null check (expires_at > created_at),
  used_at timestamptz,
  revoked_at timestamptz,
  check (used_at is null or revoked_at is null),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
-- Revocation looks for a user's open invitations.
create index user_invitations_open_idx on user_invitations (merchant_account_number, user_id) where used_at is null and revoked_at is null;

-- E-mail outbox: written in the transaction that decides to send, delivered by the worker with
-- retries. Without SMTP configured, messages stay here ('held') for the operator to read.
create table email_outbox (
  email_id bigint generated always as identity primary key,
  merchant_account_number integer references merchants,
  recipient varchar(120) not null,
  subject varchar(200) not null,
  body_text text not null,
  body_html text not null,
  -- pending: to send; sent; held: no SMTP configured; failed: gave up after the last retry.
  status varchar(10) not null default 'pending' check (status in ('pending', 'sent', 'held', 'failed')),
  attempts integer not null default 0 check (attempts >= 0),
  last_error varchar(500),
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  check ((status = 'sent') = (sent_at is not null))
);
-- The operator's listing (GET /admin/v1/emails): newest first, optionally by status or recipient.
create index email_outbox_created_idx on email_outbox (created_at desc, email_id desc);
create index email_outbox_status_idx on email_outbox (status, created_at desc, email_id desc);
create index email_outbox_recipient_idx on email_outbox (lower(recipient), created_at desc, email_id desc);

-- Analytics (E5 and its variants) read maintained aggregates, not the transaction tables: one
-- row per merchant, kind (D payouts, C collections), connector, currency and UTC day, changed by
-- the same transaction as the rows it counts, so it always equals them. 90 days of a merchant's
-- activity is at most 90 × connectors rows, whatever the number of transactions.
create table connector_daily_stats (
  merchant_account_number integer not null references merchants,
  summary_type char(1) not null check (summary_type in ('D', 'C')),
  connector_id integer not null,
  currency_code char(3) not null,
  day date not null,
  successful_count bigint not null default 0,
  failed_count bigint not null default 0,
  reversed_count bigint not null default 0,
  successful_minor bigint not null default 0,
  failed_minor bigint not null default 0,
  reversed_minor bigint not null default 0,
  -- No CHECK (≥ 0) here: PostgreSQL checks an upsert's proposed row before it finds the conflict,
  -- and a reversal's proposed row is a delta of −1 successful.
  primary key (merchant_account_number, summary_type, day, connector_id, currency_code)
);

-- Collections and payouts recorded before this migration (its own rows start at zero).
insert into connector_daily_stats (merchant_account_number, summary_type, connector_id, currency_code, day,
                                   successful_count, reversed_count, successful_minor, reversed_minor)
select merchant_account_number, 'C', connector_id, currency_code, (transaction_date at time zone 'UTC')::date,
       count(*) filter (where status_code = 'S'), count(*) filter (where status_code = 'R'),
       coalesce(sum(amount_minor) filter (where status_code = 'S'), 0), coalesce(sum(amount_minor) filter (where status_code = 'R'), 0)
  from collections group by 1, 2, 3, 4, 5;

insert into connector_daily_stats (merchant_account_number, summary_type, connector_id, currency_code, day,
                                   successful_count, failed_count, reversed_count, successful_minor, failed_minor, reversed_minor)
select merchant_account_number, 'D', connector_id, currency_code, (completed_at at time zone 'UTC')::date,
       count(*) filter (where status_code = 'S'), count(*) filter (where status_code = 'F'), count(*) filter (where status_code = 'R'),
       coalesce(sum(amount_minor) filter (where status_code = 'S'), 0), coalesce(sum(amount_minor) filter (where status_code = 'F'), 0),
       coalesce(sum(amount_minor) filter (where status_code = 'R'), 0)
  from payouts where completed_at is not null and status_code in ('S', 'F', 'R') group by 1, 2, 3, 4, 5;

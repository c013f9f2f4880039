-- Two-factor sign-in to the merchant console (issue 18): a TOTP authenticator per merchant user
-- (RFC 6238, src/lib/totp.ts) and its recovery codes (src/modules/console/two-factor.ts).
--
-- The shared secret is kept sealed (AES-256-GCM under a key derived from JWT_SECRET), so a copy of
-- the database alone cannot make codes. confirmed_at is null while the user has scanned the secret
-- but not yet proved it with a code; last_used_step is the time step of the last code accepted,
-- and no code of that step or an earlier one is accepted again (no replay within the window).
create table console_two_factor (
  merchant_account_number integer not null,
  user_id uuid not null,
  secret_sealed bytea not null check (length(secret_sealed) between 29 and 200),
  created_at timestamptz not null,
  confirmed_at timestamptz,
  last_used_step bigint not null default -1,
  primary key (merchant_account_number, user_id),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id) on delete cascade
);

-- Ten one-time codes per enrolment, kept as SHA-256; a used code stays, marked, until the user
-- enrols again (which replaces them all).
create table console_recovery_codes (
  merchant_account_number integer not null,
  user_id uuid not null,
  code_hash char(64) not null,
  used_at timestamptz,
  primary key (merchant_account_number, user_id, code_hash),
  foreign key (merchant_account_number, user_id) references console_two_factor (merchant_account_number, user_id) on delete cascade
);

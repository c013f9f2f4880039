-- The merchant console's ground (issue 18): sessions of signed-in merchant users, the sign-in
-- throttle, one-time password-reset links and the console's audit log. Times are written from the
-- service's clock (src/lib/clock.ts), which tests move; no column defaults to now().

-- One row per signed-in browser. The cookie carries the merchant account number and 32 random
-- bytes; only the SHA-256 of the random part is kept, so a copy of this table signs nobody in.
-- A session ends when it has been idle for CONSOLE_IDLE_MINUTES, at expires_at (created_at +
-- CONSOLE_SESSION_HOURS), at sign-out, or at once when its user is closed or changes password.
create table console_sessions (
  merchant_account_number integer not null references merchants,
  session_id_hash bytea not null check (length(session_id_hash) = 32),
  user_id uuid not null,
  created_at timestamptz not null,
  last_seen_at timestamptz not null check (last_seen_at >= created_at),
  expires_at timestamptz not null check (expires_at > created_at),
  ip varchar(64) not null,
  user_agent varchar(300) not null,
  primary key (merchant_account_number, session_id_hash),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
-- Ending a user's sessions (closed, new password) finds them by user.
create index console_sessions_user_idx on console_sessions (merchant_account_number, user_id);
-- The hourly clean-up deletes sessions past their absolute end.
create index console_sessions_expires_idx on console_sessions (expires_at);

-- Failed sign-ins, per account (SHA-256 of the canonical e-mail address, src/lib/actor.ts) and per
-- client address (SHA-256 of it), counted until 15 minutes pass without one: the 5th starts a
-- back-off that doubles with every further failure; the 10th locks the account for 30 minutes
-- (src/modules/console/throttle.ts).
-- Keyed by what was typed, whether or not it names a user, so that an unknown address is throttled
-- exactly like a known one and the answers tell nothing apart. Not merchant-owned: an address
-- typed at the sign-in form belongs to no merchant yet (test/citus-catalog.test.ts says why).
create table console_sign_in_throttle (
  throttle_key bytea primary key check (length(throttle_key) = 32),
  last_failure_at timestamptz not null,
  failures integer not null check (failures >= 0),
  blocked_until timestamptz,
  locked_until timestamptz
);

-- One-time links of "forgot password" (60 minutes). The link names the merchant and carries the
-- token; only its SHA-256 is kept. Using one uses up every open link of the user.
create table console_password_resets (
  merchant_account_number integer not null,
  token_hash bytea not null check (length(token_hash) = 32),
  user_id uuid not null,
  created_at timestamptz not null,
  expires_at timestamptz not null check (expires_at > created_at),
  used_at timestamptz,
  primary key (merchant_account_number, token_hash),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
-- "Was a link sent to this user a moment ago?" and using up a user's open links.
create index console_password_resets_user_idx on console_password_resets (merchant_account_number, user_id, created_at desc) where used_at is null;

-- Who did what in the console, when and from where: sign-ins, failures, back-offs, locks,
-- sign-outs and password resets (part 2 adds the actions). A failure is written for each
-- merchant whose user the typed address names; one that names no user has no merchant to be
-- shown to, and goes to the service log only.
create table console_audit_log (
  merchant_account_number integer not null references merchants,
  audit_id uuid not null default gen_random_uuid(),
  at timestamptz not null,
  -- The user acted on or signed in; null for an action no user can be named for.
  user_id uuid,
  -- The address typed at the sign-in or forgot-password form, as typed (bounded).
  email_tried varchar(254),
  action varchar(40) not null check (action ~ '^[a-z][a-z0-9_.]*$'),
  ip varchar(64) not null,
  user_agent varchar(300) not null,
  detail jsonb not null default '{}'::jsonb,
  primary key (merchant_account_number, audit_id),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
-- Read newest first, a page at a time (keyset on at, audit_id).
create index console_audit_log_at_idx on console_audit_log (merchant_account_number, at desc, audit_id desc);

-- Sign-in and forgot-password find a user by the address typed, across merchants (one person can
-- be a user of several): without this, every attempt read all users.
create index merchant_users_email_lookup_idx on merchant_users (lower(email_address));

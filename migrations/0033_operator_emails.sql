-- Distribution by merchant (issue 28, docs/scaling.md section 4, group E): every message of
-- email_outbox belongs to a merchant, so the table is keyed (merchant_account_number, email_id)
-- and distributed like the merchant's other rows.
--
-- No code has ever written an e-mail without a merchant (every queueEmail call names the user's
-- merchant), but the column has been nullable since 0005, so such a row may exist (written by
-- hand). It is still read (the operator's listing, GET /admin/v1/emails) and, while pending, sent
-- (its send_email job names it by id), so it is not deleted: it moves, unchanged and under its
-- id, to operator_email_outbox, a table kept local to the coordinator (src/db/distribute.ts
-- LOCAL_TABLES) that the listing and the sender read too. Nothing writes new rows there.
--
-- Forward-only, on a database that holds data.

-- Writers wait until commit: a row without a merchant written between the move and the NOT NULL
-- below would make this migration fail (none can be, by the code; this makes it certain).
lock table email_outbox in exclusive mode;

create table operator_email_outbox (
  -- The id it had in email_outbox, where its job still finds it. No sequence: no new rows.
  email_id bigint primary key,
  recipient varchar(120) not null,
  subject varchar(200) not null,
  body_text text not null,
  body_html text not null,
  status varchar(10) not null check (status in ('pending', 'sent', 'held', 'failed')),
  attempts integer not null check (attempts >= 0),
  last_error varchar(500),
  created_at timestamptz not null,
  sent_at timestamptz,
  check ((status = 'sent') = (sent_at is not null))
);
-- The operator's listing merges it with email_outbox, newest first.
create index operator_email_outbox_created_idx on operator_email_outbox (created_at desc, email_id desc);

-- One statement: the rows deleted are the rows inserted.
with moved as (delete from email_outbox where merchant_account_number is null returning *)
insert into operator_email_outbox (email_id, recipient, subject, body_text, body_html, status, attempts, last_error, created_at, sent_at)
select email_id, recipient, subject, body_text, body_html, status, attempts, last_error, created_at, sent_at from moved;

alter table email_outbox alter column merchant_account_number set not null,
  drop constraint email_outbox_pkey,
  add primary key (merchant_account_number, email_id);

-- Transitional (as in 0030): send_email jobs queued before this migration, and by processes still
-- running the code before it, name their message by id alone (email/service.ts locateEmail). Goes
-- when no such job can be left.
create index email_outbox_email_id_idx on email_outbox (email_id);

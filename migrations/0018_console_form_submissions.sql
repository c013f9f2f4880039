-- The console's actions (issue 19): every form that changes something carries a key of its own
-- (a random UUID rendered into the form), and the action's effect, its audit entry and this row
-- are written in one transaction. A double click or a resubmitted form finds the row (waiting on
-- the first submission's uncommitted insert if they race) and is answered with the first one's
-- outcome instead of acting again. Rows are kept a day (console_cleanup), far longer than anyone
-- resubmits a form.
create table console_form_submissions (
  merchant_account_number integer not null,
  form_key uuid not null,
  user_id uuid not null,
  -- What the form did (the audit action), so a key sent to another form is refused, not replayed.
  action varchar(40) not null check (action ~ '^[a-z][a-z0-9_.]*$'),
  -- Where the first submission sent the browser, and the notice it showed there.
  outcome jsonb not null,
  created_at timestamptz not null,
  primary key (merchant_account_number, form_key),
  foreign key (merchant_account_number, user_id) references merchant_users (merchant_account_number, user_id)
);
create index console_form_submissions_created_idx on console_form_submissions (created_at);

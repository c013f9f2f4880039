-- The console's sandbox outbox (console/sandbox/queries.ts listHeldEmails) lists one merchant's
-- held e-mails, newest first: by merchant, like every other merchant query, so it reads that
-- merchant's rows only (email_outbox_created_idx would walk every merchant's).
create index email_outbox_merchant_idx on email_outbox (merchant_account_number, created_at desc, email_id desc);

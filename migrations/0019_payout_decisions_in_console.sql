-- Issue 19: a merchant can take its payout decisions in the console only. With this on, the API's
-- batch and single-payout actions (review, approve, reject, cancel, transfer funds) are refused:
-- the API names its actor in the request body, which anyone holding the merchant's key can fill in
-- with any user's address, while in the console each decision is bound to the signed-in person
-- (and to their second factor where CONSOLE_REQUIRE_2FA applies). Capturing payouts through the
-- API is not affected. Off by default, as the gateway's API behaves; an administrator turns it on
-- from the console's Security page.
alter table merchants add column payout_decisions_in_console boolean not null default false;

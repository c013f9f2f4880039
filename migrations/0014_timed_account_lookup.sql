-- Paying a timed account looks up the latest request that held its number, open or not (to answer
-- "expired" or "already paid"): `where timed_account_number = $1 order by request_id desc limit 1`.
-- The only index on the number was the partial unique one over open requests, so the lookup walked
-- the primary key backwards through every request: addFakeTransaction fell to 46 payments/s in the
-- bench once a few hundred thousand requests existed. This index answers it in one probe.
create index payment_requests_timed_account_idx on payment_requests (timed_account_number, request_id desc);

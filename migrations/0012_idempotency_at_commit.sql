-- Idempotency records written with the effect's commit (product.md §4, http/idempotency.ts).
--
-- A keyed write no longer claims its key in a transaction of its own before the handler runs: the
-- record is written, completed with its answer, as the last statement of the effect's own
-- transaction (sent in the same round trip as its COMMIT), or inside the statement that makes the
-- effect (batched E12s). The primary key is the arbiter: a second request with the same key waits
-- on the first's uncommitted row and then fails here, which rolls its effect back, and is answered
-- from the first's record. So there is never an 'in_progress' row another request can see (rows in
-- that state only remain from before this migration, and are still honoured until they lapse).
--
-- store_idempotent_answer writes the record, taking over one that has expired (not yet cleaned
-- up) or a lapsed in-progress claim of the same request. When the key is held by anything else it
-- raises unique_violation on idempotency_keys_pkey if `required` (the effect must roll back), and
-- answers false otherwise (a refusal stored after the fact loses to whatever holds the key).
create function store_idempotent_answer(
  merchant integer, key text, fingerprint text, status integer, body text, content_type text, retention_hours integer, required boolean
) returns boolean language plpgsql as $$
begin
  insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until, expires_at,
                                response_status, response_body, response_content_type)
  values (merchant, key, fingerprint, 'completed', gen_random_uuid(), now(), now() + make_interval(hours => retention_hours), status, body, content_type)
  on conflict (merchant_account_number, idempotency_key) do update
     set request_fingerprint = excluded.request_fingerprint, state = 'completed', owner_token = excluded.owner_token,
         locked_until = excluded.locked_until, expires_at = excluded.expires_at, created_at = now(),
         response_status = excluded.response_status, response_body = excluded.response_body, response_content_type = excluded.response_content_type
   where idempotency_keys.expires_at <= now()
      or (idempotency_keys.state = 'in_progress' and idempotency_keys.locked_until <= now()
          and idempotency_keys.request_fingerprint = excluded.request_fingerprint);
  if found then
    return true;
  end if;
  if required then
    raise exception 'idempotency key % is held by another request', key
      using errcode = 'unique_violation', constraint = 'idempotency_keys_pkey', table = 'idempotency_keys';
  end if;
  return false;
end
$$;

-- Distribution by merchant (issue 28): store_idempotent_answer (migration 0012) called now() and
-- make_interval() inside its INSERT … ON CONFLICT DO UPDATE on idempotency_keys, which Citus
-- refuses on a distributed table (measured on Citus 13.2: "functions used in the DO UPDATE SET
-- clause of INSERTs on distributed tables must be marked IMMUTABLE"). The times are now computed
-- into variables first; PL/pgSQL passes variables as parameters, which Citus sees as constants.
-- Same semantics: now() is the transaction's start time, so every use in the old statement had the
-- same value as the variable has; the ON CONFLICT WHERE clause reads the same variable.
create or replace function store_idempotent_answer(
  merchant integer, key text, fingerprint text, status integer, body text, content_type text, retention_hours integer, required boolean
) returns boolean language plpgsql as $$
declare
  v_now timestamptz := now();
  v_expires timestamptz := now() + make_interval(hours => retention_hours);
begin
  insert into idempotency_keys (merchant_account_number, idempotency_key, request_fingerprint, state, owner_token, locked_until, expires_at,
                                response_status, response_body, response_content_type)
  values (merchant, key, fingerprint, 'completed', gen_random_uuid(), v_now, v_expires, status, body, content_type)
  on conflict (merchant_account_number, idempotency_key) do update
     set request_fingerprint = excluded.request_fingerprint, state = 'completed', owner_token = excluded.owner_token,
         locked_until = excluded.locked_until, expires_at = excluded.expires_at, created_at = v_now,
         response_status = excluded.response_status, response_body = excluded.response_body, response_content_type = excluded.response_content_type
   where idempotency_keys.expires_at <= v_now
      or (idempotency_keys.state = 'in_progress' and idempotency_keys.locked_until <= v_now
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

-- Distribution by merchant (issue 28): ledger_sums_after (migration 0022) read the merchant's
-- entries by account_id alone. On Citus the function runs on the worker that holds the merchant,
-- where a query on ledger_entries that names no merchant spans every shard and is refused inside
-- a pushed-down statement (measured on Citus 13.2, the console's statements page: "could not
-- create distributed plan", SQL function "ledger_sums_after" statement 1). Every read now names
-- p_merchant as well: the same rows (an account belongs to one merchant), one shard. And it is
-- PL/pgSQL now, one statement, the same as before: Citus cannot plan the distributed tables in the
-- body of an SQL function with parameters ("could not create distributed plan ... Consider using
-- PL/pgSQL functions instead"); PL/pgSQL plans it with the values.
create or replace function ledger_sums_after(p_merchant integer, p_account bigint, p_at timestamptz, p_entry bigint,
                                  out in_minor bigint, out out_minor bigint, out movements bigint)
language plpgsql stable parallel safe as $$
begin
  with filled as (
    select coalesce((select m.filled_through from ledger_account_day_marks m
                      where m.merchant_account_number = p_merchant and m.account_id = p_account), '-infinity'::date) as f
  ),
  mark as (
    -- c_at: where part c starts. As one row bound with its entry (0 when it is the start of a day
    -- after p_at's, where every entry is after the key): an index scan starts at a row bound and
    -- would walk every entry from p_at on if a second, plain bound were the later one.
    select f, (p_at at time zone 'UTC')::date as d0, greatest(p_at, (f + 1)::timestamp at time zone 'UTC') as c_at from filled
  )
  select (a.i + b.i + c.i)::bigint, (a.o + b.o + c.o)::bigint, (a.n + b.n + c.n)::bigint
    into in_minor, out_minor, movements
    from mark
   cross join lateral (
     select coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0) as i,
            coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0) as o, count(*) as n
       from ledger_entries e
      where mark.d0 <= mark.f and e.merchant_account_number = p_merchant and e.account_id = p_account and (e.created_at, e.entry_id) > (p_at, p_entry)
        and e.created_at < (mark.d0 + 1)::timestamp at time zone 'UTC'
   ) a
   cross join lateral (
     select coalesce(sum(d.in_minor), 0) as i, coalesce(sum(d.out_minor), 0) as o, coalesce(sum(d.movements), 0) as n
       from ledger_account_days d
      where d.merchant_account_number = p_merchant and d.account_id = p_account and d.day > mark.d0 and d.day <= mark.f
   ) b
   cross join lateral (
     select coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0) as i,
            coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0) as o, count(*) as n
       from ledger_entries e
      where e.merchant_account_number = p_merchant and e.account_id = p_account
        and (e.created_at, e.entry_id) > (mark.c_at, case when mark.c_at > p_at then 0 else p_entry end)
   ) c;
end
$$;

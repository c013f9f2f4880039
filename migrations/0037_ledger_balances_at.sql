-- Distribution by merchant (issue 28): ledger_sums_after (migrations 0022, 0036) queries
-- ledger_entries and ledger_account_days, so on Citus it may not run inside a statement that Citus
-- pushes down to the worker holding the merchant ("cannot execute a distributed query from a query
-- on a shard"), which every statement pinned to one merchant is. The statements (ledger/statements.ts)
-- therefore read the sums first, in a statement of their own that names no distributed table (a
-- call of this function: it runs on the coordinator, and each query of its body is a query pinned
-- to the merchant), and pass the figures into their queries as values.
--
-- For each of the merchant's own accounts in its currency (collection, disbursement; ordered by
-- kind) and each instant i: its balance now and ledger_sums_after(p_merchant, account, p_at[i],
-- p_entry[i]). One statement: on PostgreSQL a STABLE function's queries all see the caller's
-- snapshot, so the balances and the sums agree (balance − sums = the balance at the instant).
create or replace function ledger_balances_at(p_merchant integer, p_at timestamptz[], p_entry bigint[])
returns table (n integer, account_id bigint, kind text, currency_code text, balance_minor bigint, in_minor bigint, out_minor bigint, movements bigint)
language plpgsql stable as $$
#variable_conflict use_column
declare
  a record;
begin
  for a in select l.account_id as id, l.kind::text as k, m.currency_code::text as c, l.balance_minor as b
             from ledger_accounts l join merchants m on m.merchant_account_number = l.merchant_account_number and m.currency_code = l.currency_code
            where l.merchant_account_number = p_merchant and l.kind in ('collection', 'disbursement')
            order by l.kind
  loop
    for i in 1 .. coalesce(array_length(p_at, 1), 0) loop
      n := i;
      account_id := a.id;
      kind := a.k;
      currency_code := a.c;
      balance_minor := a.b;
      select s.in_minor, s.out_minor, s.movements into in_minor, out_minor, movements
        from ledger_sums_after(p_merchant, a.id, p_at[i], p_entry[i]) s;
      return next;
    end loop;
  end loop;
end
$$;

-- Statements over long periods (issue 18): a statement's summary, its first page of movements and
-- its CSV's opening balance each summed every ledger entry from the period's start until now, so
-- their cost grew with the entries since then: 108 ms p50 and 142 ms p95 for the summary of the
-- last 182 days of a merchant with 1,000,000 collections (BENCH_ONLY=console npm run bench).
--
-- Entries are immutable and written at now() (ledger_post), so once a UTC day is over its entries
-- never change. ledger_account_days keeps each merchant account's totals per closed day, and
-- ledger_account_day_marks how far an account's days are complete: every day up to filled_through
-- that has entries has its row. The console's job `ledger_account_days` fills both (hourly, at
-- most 92 days of an account per statement, from its mark on); ledger_sums_after reads the days it
-- can from here and the rest from the entries, so a statement is right whether or not, and however
-- far, the job has run: a day the table does not hold yet is read from the entries, as before.
-- The day tables name their account with its merchant, and the database holds that the two go
-- together (a pair distributed by merchant on Citus, docs/scaling.md).
create unique index ledger_accounts_merchant_account_key on ledger_accounts (merchant_account_number, account_id);

create table ledger_account_days (
  merchant_account_number integer not null,
  account_id bigint not null,
  day date not null,
  in_minor bigint not null check (in_minor >= 0),
  out_minor bigint not null check (out_minor >= 0),
  movements integer not null check (movements > 0),
  primary key (merchant_account_number, account_id, day),
  foreign key (merchant_account_number, account_id) references ledger_accounts (merchant_account_number, account_id)
);

create table ledger_account_day_marks (
  merchant_account_number integer not null,
  account_id bigint not null,
  filled_through date not null,
  primary key (merchant_account_number, account_id),
  foreign key (merchant_account_number, account_id) references ledger_accounts (merchant_account_number, account_id)
);

-- Money in, money out and the number of movements of one account after the key (p_at, p_entry) in
-- the ledger's (created_at, entry_id) order: (p_at, 0) is "from p_at on" (entry ids start at 1). In
-- three disjoint parts: the rest of p_at's own UTC day from the entries (when the day table holds
-- that day; otherwise part c has it), the whole days after it that the table holds, and the
-- entries after the table's last day. Each part is one range of an index.
create function ledger_sums_after(p_merchant integer, p_account bigint, p_at timestamptz, p_entry bigint,
                                  out in_minor bigint, out out_minor bigint, out movements bigint)
language sql stable parallel safe as $$
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
    from mark
   cross join lateral (
     select coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0) as i,
            coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0) as o, count(*) as n
       from ledger_entries e
      where mark.d0 <= mark.f and e.account_id = p_account and (e.created_at, e.entry_id) > (p_at, p_entry)
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
      where e.account_id = p_account
        and (e.created_at, e.entry_id) > (mark.c_at, case when mark.c_at > p_at then 0 else p_entry end)
   ) c
$$;

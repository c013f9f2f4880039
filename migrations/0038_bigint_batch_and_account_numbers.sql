-- Distribution by merchant (issue 28, docs/scaling.md group B): batch numbers and settlement
-- account ids become bigint, like every other id drawn from a sequence.
--
-- On Citus a bigint identity of a distributed table is drawn from a range of its own on each node
-- (the node's group id in the top 16 bits), so a row inserted on a worker never asks the
-- coordinator for its number; an integer sequence has no room for such ranges, and Citus refuses
-- to draw it anywhere but on the coordinator. Through the coordinator (how the service connects)
-- the numbers go on from where they are (six digits for batches, from 100001; from 1001 for
-- settlement accounts), and each stays unique service-wide, as interface.md's "unique identifier
-- of the batch" says: only numbers drawn on a worker would be longer (2^48 and up), still exact in
-- JSON (below 2^53).
--
-- Changing an identity column's type changes its sequence's type too (PostgreSQL's ALTER COLUMN
-- TYPE does both). The tables are rewritten once, with their indexes.
--
-- On a Citus cluster distributed before this migration (`db distribute` at 0037), Citus refuses
-- any ALTER COLUMN of an identity column of a distributed table, and to undistribute a table that
-- has one ("cannot execute ALTER COLUMN command involving identity column"): there the columns stay
-- integer (numbers drawn through the coordinator, up to 2,147,483,647), and the migration says so
-- instead of failing and blocking every later one. Edited after release for that reason only: on
-- PostgreSQL, and on a cluster distributed later, it does exactly what it did.
do $$
declare
  distributed regclass[] := '{}';
begin
  if to_regclass('pg_catalog.pg_dist_partition') is not null then
    execute 'select coalesce(array_agg(logicalrelid), ''{}'') from pg_dist_partition where logicalrelid in (''batches''::regclass, ''settlement_accounts''::regclass)' into distributed;
  end if;
  if 'batches'::regclass = any(distributed) then
    raise notice 'batches is distributed by Citus: batch numbers stay integer (Citus cannot alter an identity column of a distributed table)';
  else
    alter table batches alter column batch_number type bigint;
    alter table payouts alter column batch_number type bigint;
  end if;
  if 'settlement_accounts'::regclass = any(distributed) then
    raise notice 'settlement_accounts is distributed by Citus: account ids stay integer (Citus cannot alter an identity column of a distributed table)';
  else
    alter table settlement_accounts alter column account_id type bigint;
  end if;
end
$$;

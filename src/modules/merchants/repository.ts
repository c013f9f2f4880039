// SQL for organisations, merchants and their balances.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';

export interface MerchantRow {
  merchant_account_number: number;
  organisation_id: string;
  account_name: string;
  currency_code: string;
  level_number: number;
  status_code: string;
  payment_account_number: string;
  is_demo: boolean;
  captured_by: string;
  date_created: Date;
}

export interface MerchantWithBalances extends MerchantRow {
  collection_minor: number;
  disbursement_minor: number;
}

export async function insertOrganisation(tx: pg.PoolClient, organisationId: string, name: string): Promise<void> {
  await tx.query('insert into organisations (organisation_id, organisation_name) values ($1, $2)', [organisationId, name]);
}

export async function organisationExists(q: Queryable, organisationId: string): Promise<boolean> {
  const { rowCount } = await q.query('select 1 from organisations where organisation_id = $1', [organisationId]);
  return rowCount === 1;
}

export async function insertMerchant(
  tx: pg.PoolClient,
  m: Pick<MerchantRow, 'merchant_account_number' | 'organisation_id' | 'account_name' | 'currency_code' | 'level_number' | 'payment_account_number' | 'is_demo' | 'captured_by'>,
): Promise<MerchantRow> {
  const { rows } = await tx.query<MerchantRow>(
    `insert into merchants (merchant_account_number, organisation_id, account_name, currency_code, level_number, payment_account_number, is_demo, captured_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
    [m.merchant_account_number, m.organisation_id, m.account_name, m.currency_code, m.level_number, m.payment_account_number, m.is_demo, m.captured_by],
  );
  return rows[0];
}

/** Copies the default limits for the merchant's currency (product.md §8). */
export async function seedLimits(tx: pg.PoolClient, merchantAccountNumber: number, currencyCode: string): Promise<void> {
  await tx.query(
    `insert into merchant_limits (merchant_account_number, transaction_code, currency_code, minimum_amount_minor, maximum_amount_minor, daily_limit_minor)
     select $1, transaction_code, currency_code, minimum_amount_minor, maximum_amount_minor, daily_limit_minor
       from limit_defaults where currency_code = $2`,
    [merchantAccountNumber, currencyCode],
  );
}

const WITH_BALANCES = `
  select m.*,
         coalesce(sum(la.balance_minor) filter (where la.kind = 'collection'), 0)::bigint as collection_minor,
         coalesce(sum(la.balance_minor) filter (where la.kind = 'disbursement'), 0)::bigint as disbursement_minor
    from merchants m
    left join ledger_accounts la on la.merchant_account_number = m.merchant_account_number and la.currency_code = m.currency_code`;

export async function findMerchant(q: Queryable, merchantAccountNumber: number): Promise<MerchantWithBalances | undefined> {
  const { rows } = await q.query<MerchantWithBalances>(`${WITH_BALANCES} where m.merchant_account_number = $1 group by m.merchant_account_number`, [merchantAccountNumber]);
  return rows[0];
}

/** Keyset page of merchants in account-number order, after `afterAccountNumber`. */
export async function listMerchants(q: Queryable, limit: number, afterAccountNumber?: number): Promise<MerchantWithBalances[]> {
  const { rows } = await q.query<MerchantWithBalances>(
    `${WITH_BALANCES} where ($2::int is null or m.merchant_account_number > $2) group by m.merchant_account_number order by m.merchant_account_number limit $1`,
    [limit, afterAccountNumber ?? null],
  );
  return rows;
}

export async function lockMerchant(tx: pg.PoolClient, merchantAccountNumber: number): Promise<MerchantRow | undefined> {
  const { rows } = await tx.query<MerchantRow>('select * from merchants where merchant_account_number = $1 for share', [merchantAccountNumber]);
  return rows[0];
}

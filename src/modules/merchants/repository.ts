// SQL for organisations, merchants and their balances.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { containsPattern } from '../../db/like.ts';

/**
 * A merchant account's status (migrations/0001 and 0010; the merchantStatus.* texts): active,
 * inactive, closed, suspended, blacklisted. Only an active account moves money or gets tokens
 * (status.ts changes it).
 */
export type MerchantStatus = 'A' | 'I' | 'C' | 'S' | 'B';

/** The merchant statuses by name: code compares a merchant's status_code with these, never with the letter. */
export const MERCHANT = { active: 'A', inactive: 'I', closed: 'C', suspended: 'S', blacklisted: 'B' } as const satisfies Record<string, MerchantStatus>;

export interface MerchantRow {
  merchant_account_number: number;
  organisation_id: string;
  account_name: string;
  currency_code: string;
  level_number: number;
  status_code: MerchantStatus;
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

/**
 * Claims a payment account number for a merchant (payment_account_claims, migration 0031): the
 * number is unique across merchants, and this table's primary key holds that (a reference table
 * on Citus; merchants, distributed by merchant, cannot). Written in the merchant's transaction,
 * before its row (merchants references the claim). A number already claimed fails with 23505
 * (payment_account_claims_pkey), which createMerchant retries with new numbers.
 */
export async function insertPaymentAccountClaim(tx: pg.PoolClient, paymentAccountNumber: string, merchantAccountNumber: number): Promise<void> {
  await tx.query('insert into payment_account_claims (payment_account_number, owner_merchant_account_number) values ($1, $2)', [paymentAccountNumber, merchantAccountNumber]);
}

/**
 * The merchant a payment account number belongs to, from its claim: a customer names the number
 * alone (E11, a rail's ACCOUNT_ID party). The caller then reads the merchant's rows by
 * merchant_account_number, a single-shard query on Citus.
 */
export async function paymentAccountOwner(q: Queryable, paymentAccountNumber: string): Promise<number | undefined> {
  const { rows } = await q.query<{ owner_merchant_account_number: number }>(
    'select owner_merchant_account_number from payment_account_claims where payment_account_number = $1',
    [paymentAccountNumber],
  );
  return rows[0]?.owner_merchant_account_number;
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

// The balances are summed in a lateral subquery grouped by merchant_account_number, not by grouping
// the join on the merchant's key and selecting m.*: PostgreSQL accepts that through the primary
// key's functional dependency, but Citus's multi-shard planner does not ("column m.organisation_id
// must appear in the GROUP BY clause", issue 28). Grouped by the distribution column and correlated
// on it, the subquery goes down to each shard with its merchant; on one PostgreSQL it is the same
// index lookup per merchant as the join was. No accounts: no row, so the coalesces give 0.
const WITH_BALANCES = `
  select m.*, coalesce(b.collection_minor, 0)::bigint as collection_minor, coalesce(b.disbursement_minor, 0)::bigint as disbursement_minor
    from merchants m
    left join lateral (
      select sum(la.balance_minor) filter (where la.kind = 'collection') as collection_minor,
             sum(la.balance_minor) filter (where la.kind = 'disbursement') as disbursement_minor
        from ledger_accounts la
       where la.merchant_account_number = m.merchant_account_number and la.currency_code = m.currency_code
       group by la.merchant_account_number) b on true`;

export async function findMerchant(q: Queryable, merchantAccountNumber: number): Promise<MerchantWithBalances | undefined> {
  const { rows } = await q.query<MerchantWithBalances>(`${WITH_BALANCES} where m.merchant_account_number = $1`, [merchantAccountNumber]);
  return rows[0];
}

/** Keyset page of merchants in account-number order, after `afterAccountNumber`. */
export async function listMerchants(q: Queryable, limit: number, afterAccountNumber?: number): Promise<MerchantWithBalances[]> {
  const { rows } = await q.query<MerchantWithBalances>(
    `${WITH_BALANCES} where ($2::int is null or m.merchant_account_number > $2) order by m.merchant_account_number limit $1`,
    [limit, afterAccountNumber ?? null],
  );
  return rows;
}

export async function lockMerchant(tx: pg.PoolClient, merchantAccountNumber: number): Promise<MerchantRow | undefined> {
  const { rows } = await tx.query<MerchantRow>('select * from merchants where merchant_account_number = $1 for share', [merchantAccountNumber]);
  return rows[0];
}

// ---------------------------------------------------------------------------------------------
// Account administration (issue 14): details, statuses and their history.

export async function merchantExists(q: Queryable, merchantAccountNumber: number): Promise<boolean> {
  const { rowCount } = await q.query('select 1 from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  return rowCount === 1;
}

export async function lockMerchantForUpdate(tx: pg.PoolClient, merchantAccountNumber: number): Promise<MerchantRow | undefined> {
  // FOR NO KEY UPDATE: a status change waits for the money movements holding the row FOR SHARE
  // (lockMerchant) and they wait for it, so none commits against a status it did not see; inserts
  // that only reference the row (foreign keys take FOR KEY SHARE) are not held up.
  const { rows } = await tx.query<MerchantRow>('select * from merchants where merchant_account_number = $1 for no key update', [merchantAccountNumber]);
  return rows[0];
}

export async function setMerchantStatus(tx: pg.PoolClient, merchantAccountNumber: number, statusCode: string, changedBy: string): Promise<void> {
  await tx.query('update merchants set status_code = $2, modified_by = $3, date_modified = now() where merchant_account_number = $1', [merchantAccountNumber, statusCode, changedBy]);
}

export async function updateMerchantDetails(
  tx: pg.PoolClient,
  merchantAccountNumber: number,
  details: { accountName: string; levelNumber: number; modifiedBy: string },
): Promise<void> {
  await tx.query('update merchants set account_name = $2, level_number = $3, modified_by = $4, date_modified = now() where merchant_account_number = $1', [
    merchantAccountNumber,
    details.accountName,
    details.levelNumber,
    details.modifiedBy,
  ]);
}

export interface StatusReasonRow {
  reason_id: number;
  reason_description: string;
}

export async function findStatusReason(q: Queryable, reasonId: number): Promise<StatusReasonRow | undefined> {
  const { rows } = await q.query<StatusReasonRow>('select * from merchant_status_reasons where reason_id = $1', [reasonId]);
  return rows[0];
}

export interface StatusChangeInsert {
  merchantAccountNumber: number;
  previousStatusCode: string | null;
  statusCode: string;
  reasonId: number;
  comments: string | null;
  changedBy: string;
  changedVia: 'operator' | 'system';
}

export async function insertStatusChange(tx: pg.PoolClient, c: StatusChangeInsert): Promise<void> {
  await tx.query(
    `insert into merchant_status_changes (merchant_account_number, previous_status_code, status_code, reason_id, comments, changed_by, changed_via)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [c.merchantAccountNumber, c.previousStatusCode, c.statusCode, c.reasonId, c.comments, c.changedBy, c.changedVia],
  );
}

export interface StatusChangeRow {
  change_id: number;
  previous_status_code: string | null;
  status_code: string;
  reason_id: number;
  reason_description: string;
  comments: string | null;
  changed_by: string;
  date_created: Date;
}

/** Newest first, at most `limit` (the primary key's order: no sort). */
export async function listStatusChanges(q: Queryable, merchantAccountNumber: number, limit: number): Promise<StatusChangeRow[]> {
  const { rows } = await q.query<StatusChangeRow>(
    `select c.change_id, c.previous_status_code, c.status_code, c.reason_id, r.reason_description, c.comments, c.changed_by, c.date_created
       from merchant_status_changes c join merchant_status_reasons r on r.reason_id = c.reason_id
      where c.merchant_account_number = $1
      order by c.change_id desc limit $2`,
    [merchantAccountNumber, limit],
  );
  return rows;
}

export interface MerchantSearch {
  organisationId: string;
  /** Only this account (a merchant's own token sees nothing else). */
  merchantAccountNumber?: number;
  /** Contained in the account name, any case; matched literally. */
  accountName?: string;
  offset: number;
  limit: number;
}

/** An organisation's merchant accounts with balances, in account-number order. */
export async function searchMerchants(q: Queryable, s: MerchantSearch): Promise<MerchantWithBalances[]> {
  const { rows } = await q.query<MerchantWithBalances>(
    `${WITH_BALANCES}
      where m.organisation_id = $1 and ($2::int is null or m.merchant_account_number = $2)
        and ($3::text is null or m.account_name ilike $3)
      order by m.merchant_account_number offset $4 limit $5`,
    [s.organisationId, s.merchantAccountNumber ?? null, s.accountName ? containsPattern(s.accountName) : null, s.offset, s.limit],
  );
  return rows;
}

// The double-entry ledger (product.md §6). Every money movement is one balanced transfer posted by
// the database function ledger_post, inside the caller's transaction.
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { isViolation } from '../../db/errors.ts';

export type MerchantAccountKind = 'collection' | 'disbursement';
export type SystemAccountKind = 'funding' | 'bank_settlement' | 'fees' | 'customer_payments' | 'payouts_in_flight' | 'payouts_settled' | 'rail_in_flight';

export interface Entry {
  accountId: number;
  amountMinor: number;
}

export interface Transfer {
  merchantAccountNumber: number;
  type: string;
  reference: string;
  metadata?: object;
  entries: Entry[];
}

export async function postTransfer(tx: pg.PoolClient, transfer: Transfer): Promise<number> {
  // An entry of zero moves nothing (and ledger_entries refuses it): e.g. a collection whose fee
  // is the whole amount credits the merchant nothing.
  transfer = { ...transfer, entries: transfer.entries.filter((e) => e.amountMinor !== 0) };
  const sum = transfer.entries.reduce((s, e) => s + e.amountMinor, 0);
  if (sum !== 0) throw new Error(`unbalanced transfer ${transfer.reference}: entries sum to ${sum}`);
  try {
    const { rows } = await tx.query<{ transfer_id: number }>('select ledger_post($1, $2, $3, $4::jsonb, $5::bigint[], $6::bigint[]) as transfer_id', [
      transfer.merchantAccountNumber,
      transfer.type,
      transfer.reference,
      JSON.stringify(transfer.metadata ?? {}),
      transfer.entries.map((e) => e.accountId),
      transfer.entries.map((e) => e.amountMinor),
    ]);
    return rows[0].transfer_id;
  } catch (err) {
    if (isViolation(err, '23514', 'ledger_balance_non_negative')) throw new AppError('insufficientBalance', 'detail.insufficientBalance');
    if (isViolation(err, '23514', 'ledger_balance_cap')) throw new AppError('balanceTooLarge', 'detail.balanceTooLarge');
    throw err;
  }
}

export async function merchantAccountId(tx: pg.PoolClient, merchantAccountNumber: number, kind: MerchantAccountKind, currencyCode: string): Promise<number> {
  const { rows } = await tx.query<{ account_id: number }>(
    'select account_id from ledger_accounts where merchant_account_number = $1 and kind = $2 and currency_code = $3',
    [merchantAccountNumber, kind, currencyCode],
  );
  if (!rows[0]) throw new Error(`merchant ${merchantAccountNumber} has no ${kind} account in ${currencyCode}`);
  return rows[0].account_id;
}

/**
 * The merchant's own row of a system account (funding, fees, customer_payments…, migration 0029):
 * one per merchant, kind and currency, keeping no balance, so every entry of a merchant's transfer
 * is on that merchant's accounts (one shard on Citus). The service-wide position of a system
 * account is the sum over merchants (ledger verify). Created on first use, in the caller's
 * transaction; two transactions creating it at once both get the one row (on conflict).
 */
export async function systemAccountId(tx: pg.PoolClient, merchantAccountNumber: number, kind: SystemAccountKind, currencyCode: string): Promise<number> {
  const { rows } = await tx.query<{ account_id: number }>(
    'select account_id from ledger_accounts where merchant_account_number = $1 and kind = $2 and currency_code = $3',
    [merchantAccountNumber, kind, currencyCode],
  );
  if (rows[0]) return rows[0].account_id;
  const inserted = await tx.query<{ account_id: number }>(
    `insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, $2, $3)
     on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning account_id`,
    [merchantAccountNumber, kind, currencyCode],
  );
  return inserted.rows[0].account_id;
}

/** A merchant account's balance now, in minor units (0 when it has none in that currency). */
export async function merchantBalance(q: Queryable, merchantAccountNumber: number, kind: MerchantAccountKind, currencyCode: string): Promise<number> {
  const { rows } = await q.query<{ balance_minor: string }>(
    'select balance_minor from ledger_accounts where merchant_account_number = $1 and kind = $2 and currency_code = $3',
    [merchantAccountNumber, kind, currencyCode],
  );
  return Number(rows[0]?.balance_minor ?? 0);
}

/** Opens a new merchant's ledger accounts at zero. */
export async function openMerchantAccounts(tx: pg.PoolClient, merchantAccountNumber: number, currencyCode: string): Promise<void> {
  await tx.query(
    `insert into ledger_accounts (merchant_account_number, kind, currency_code, balance_minor)
     select $1, kind, $2, 0 from unnest(array['collection', 'disbursement']) as kind`,
    [merchantAccountNumber, currencyCode],
  );
}

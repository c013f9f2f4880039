// SQL for per-merchant transaction limits (product.md §8).
import type { Queryable } from '../../db/pool.ts';
import { toMajor } from '../../lib/money.ts';

export interface LimitRow {
  currency_code: string;
  transaction_code: string;
  transaction_description: string;
  minimum_amount_minor: number;
  maximum_amount_minor: number;
  daily_limit_minor: number;
}

export async function listLimits(q: Queryable, merchantAccountNumber: number): Promise<LimitRow[]> {
  const { rows } = await q.query<LimitRow>(
    `select l.currency_code, l.transaction_code, tt.transaction_description,
            l.minimum_amount_minor, l.maximum_amount_minor, l.daily_limit_minor
       from merchant_limits l join transaction_types tt using (transaction_code)
      where l.merchant_account_number = $1 order by l.transaction_code, l.currency_code`,
    [merchantAccountNumber],
  );
  return rows;
}

export function limitView(l: LimitRow) {
  return {
    currencyCode: l.currency_code,
    transactionCode: l.transaction_code,
    transactionDescription: l.transaction_description,
    transactionMinimumAmount: toMajor(l.minimum_amount_minor),
    transactionMaximumAmount: toMajor(l.maximum_amount_minor),
    dailyLimit: toMajor(l.daily_limit_minor),
  };
}

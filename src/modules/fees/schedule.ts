// Fees per transaction code and currency (fee_schedules): percent in basis points plus a flat
// part, in integer tambala, rounded half up, never more than the amount itself. The arithmetic is
// the SQL function fee_for_amount (migration 0004), the one definition batch validation uses too.
import type { Queryable } from '../../db/pool.ts';

export async function feeFor(q: Queryable, transactionCode: string, currencyCode: string, amountMinor: number): Promise<number> {
  const { rows } = await q.query<{ fee_minor: number }>({
    name: 'fee_for',
    text: 'select fee_for_amount($3, percent_basis_points, flat_minor) as fee_minor from fee_schedules where transaction_code = $1 and currency_code = $2',
    values: [transactionCode, currencyCode, amountMinor],
  });
  return rows[0]?.fee_minor ?? 0;
}

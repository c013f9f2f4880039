// Fees per transaction code and currency (fee_schedules): percent in basis points plus a flat
// part, in integer tambala, rounded half up, never more than the amount itself.
import type { Queryable } from '../../db/pool.ts';

export async function feeFor(q: Queryable, transactionCode: string, currencyCode: string, amountMinor: number): Promise<number> {
  const { rows } = await q.query<{ percent_basis_points: number; flat_minor: number }>({
    name: 'fee_for',
    text: 'select percent_basis_points, flat_minor from fee_schedules where transaction_code = $1 and currency_code = $2',
    values: [transactionCode, currencyCode],
  });
  if (!rows[0]) return 0;
  return computeFee(amountMinor, rows[0].percent_basis_points, rows[0].flat_minor);
}

export function computeFee(amountMinor: number, percentBasisPoints: number, flatMinor: number): number {
  // amount ≤ 10^15 tambala and bp ≤ 10^4 would overflow 2^53 only past 9·10^11 MWK; amounts here are
  // capped far below (5·10^9 MWK), so the product is exact.
  const percentPart = Math.floor((amountMinor * percentBasisPoints + 5_000) / 10_000);
  return Math.min(amountMinor, percentPart + flatMinor);
}

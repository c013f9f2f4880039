// Enforcing the merchant's transaction limits (product.md §8) where money moves: always inside
// the transaction that moves it, never from a cache.
import type { FindOptions, Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { formatMajor, parseMinor, toMajor } from '../../lib/money.ts';

interface Limit {
  minimum_amount_minor: number;
  maximum_amount_minor: number;
  daily_limit_minor: number;
}

/**
 * `lock: 'for update'`: the limit row is locked until the transaction ends, so that checking the daily total
 * and recording the amount happen one transaction at a time per merchant and type (checkDaily).
 */
export async function limitFor(q: Queryable, merchantAccountNumber: number, transactionCode: string, currencyCode: string, options: FindOptions = {}): Promise<Limit | undefined> {
  const { rows } = await q.query<Limit>({
    name: options.lock ? 'limit_for_update' : 'limit_for',
    text: `select minimum_amount_minor, maximum_amount_minor, daily_limit_minor from merchant_limits
            where merchant_account_number = $1 and transaction_code = $2 and currency_code = $3${options.lock ? ' for update' : ''}`,
    values: [merchantAccountNumber, transactionCode, currencyCode],
  });
  return rows[0];
}

/** Per-transaction minimum and maximum: 402 E914 outside them. */
export function checkAmount(limit: Limit | undefined, amountMinor: number): void {
  if (!limit) return;
  if (amountMinor < limit.minimum_amount_minor || amountMinor > limit.maximum_amount_minor) {
    throw new AppError('amountOutOfRange', 'detail.amountOutOfRange', {
      amount: formatMajor(amountMinor),
      min: formatMajor(limit.minimum_amount_minor),
      max: formatMajor(limit.maximum_amount_minor),
    });
  }
}

/** The day's total including this amount must stay within the daily limit: 402 E912 otherwise. */
export function checkDaily(limit: Limit | undefined, transactionCode: string, usedTodayMinor: number, amountMinor: number): void {
  if (!limit) return;
  const total = usedTodayMinor + amountMinor;
  if (total > limit.daily_limit_minor) {
    throw new AppError('limitExceeded', 'detail.dailyLimit', { transactionCode, total: formatMajor(total), limit: formatMajor(limit.daily_limit_minor) });
  }
}

/** An amount range in major units, as decimal text ("100", "10000000.5"). */
export interface AmountRange {
  min: string;
  max: string;
}

/**
 * The amounts a merchant can use for `transactionCode`: the API's own range (from its schema)
 * within the merchant's limit. Forms state this range and check it, so that a hint never promises
 * what the service then refuses.
 */
export async function amountRange(q: Queryable, merchantAccountNumber: number, transactionCode: string, currencyCode: string, api: AmountRange): Promise<AmountRange> {
  const limit = await limitFor(q, merchantAccountNumber, transactionCode, currencyCode);
  const minMinor = Math.max(parseMinor(api.min) ?? 0, Number(limit?.minimum_amount_minor ?? 0));
  const maxMinor = Math.min(parseMinor(api.max) ?? Number.MAX_SAFE_INTEGER, Number(limit?.maximum_amount_minor ?? Number.MAX_SAFE_INTEGER));
  return { min: String(toMajor(minMinor)), max: String(toMajor(maxMinor)) };
}

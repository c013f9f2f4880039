// Beneficiary account formats per channel (product.md §7): wallets a 12-digit MSISDN starting 265
// (or one of the documented sandbox test wallets), banks 10–16 digits. Single payouts test them
// here; batch validation passes the same patterns to its SQL (PostgreSQL reads these regexes alike).
import { TEST_WALLETS } from './sandbox.ts';

export const WALLET_ACCOUNT = /^265[0-9]{9}$/;
export const BANK_ACCOUNT = /^[0-9]{10,16}$/;
export { TEST_WALLETS };

export function accountFormatValid(channel: 'M' | 'B', account: string): boolean {
  return channel === 'M' ? WALLET_ACCOUNT.test(account) || TEST_WALLETS.includes(account) : BANK_ACCOUNT.test(account);
}

// What an action that moves money would debit, for the console to show before the user confirms it
// (issue 27): the amount, the fee and the merchant's disbursement balance now and after. Each
// figure comes from where the action itself takes it (the batch's ready lines as transferFunds
// totals them, the fee schedule a capture charges, the fee stored with a pending payout that its
// approval debits, the ledger balance the debit is checked against), so the page has no rules of
// its own. A preview, not a guard: the service checks everything again when the action is taken,
// and the balance may change in between.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { feeFor } from '../fees/schedule.ts';
import { merchantBalance } from '../ledger/ledger.ts';
import { checkAmount, limitFor } from '../limits/enforce.ts';
import { findMerchant, MERCHANT } from '../merchants/repository.ts';
import { payableAmount, singleStatusAtCapture, PAYOUT } from './lifecycle.ts';
import { findBatch, readyTotals, type PayoutRow } from './repository.ts';
import type { PayoutInput } from './schemas.ts';
import { checkedPayee } from './service.ts';

export interface DebitPreview {
  currencyCode: string;
  amountMinor: number;
  feeMinor: number;
  /** amount + fee: what leaves the disbursement balance. */
  debitMinor: number;
  balanceMinor: number;
  /** Below zero when the balance does not cover it (the service would refuse: 402 E911). */
  balanceAfterMinor: number;
  /** False when the action only stores it and the debit comes later (a payout awaiting approval). */
  debitedNow: boolean;
}

async function preview(q: Queryable, merchantAccountNumber: number, currencyCode: string, amountMinor: number, feeMinor: number, debitedNow = true): Promise<DebitPreview> {
  const balanceMinor = await merchantBalance(q, merchantAccountNumber, 'disbursement', currencyCode);
  const debitMinor = amountMinor + feeMinor;
  return { currencyCode, amountMinor, feeMinor, debitMinor, balanceMinor, balanceAfterMinor: balanceMinor - debitMinor, debitedNow };
}

/** What transferFunds would debit for the batch: its ready lines' amounts and fees. Undefined for another merchant's batch. */
export async function previewTransfer(q: Queryable, merchantAccountNumber: number, batchNumber: number): Promise<DebitPreview | undefined> {
  const batch = await findBatch(q, merchantAccountNumber, batchNumber);
  if (!batch) return undefined;
  const totals = await readyTotals(q, batch.merchant_account_number, batch.batch_number);
  const sum = (pick: (t: (typeof totals)[number]) => number) => totals.reduce((s, t) => s + pick(t), 0);
  return preview(q, merchantAccountNumber, batch.currency_code, sum((t) => t.amount_minor), sum((t) => t.fee_minor));
}

/** What approving a pending single payout would debit: its amount and the fee charged when it was captured. */
export function previewApproval(q: Queryable, payout: PayoutRow): Promise<DebitPreview> {
  return preview(q, payout.merchant_account_number, payout.currency_code, payableAmount(payout), payout.fee_minor);
}

/**
 * What capturing this single payout would cost, after the checks the capture makes without a lock
 * (connector, account format, the per-transaction limits): the same refusals (AppError) as
 * addSinglePayout's. Debited now at level 1; at levels 2 and 3 when it is approved.
 */
export async function previewSinglePayout(q: Queryable, merchantAccountNumber: number, input: Pick<PayoutInput, 'connectorId' | 'beneficiaryAccountNumber' | 'transactionAmount'>): Promise<DebitPreview & { connectorName: string }> {
  const merchant = await findMerchant(q, merchantAccountNumber);
  if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
  if (merchant.status_code !== MERCHANT.active) throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber });
  const { connector, transactionCode, amountMinor } = await checkedPayee(q, input);
  checkAmount(await limitFor(q, merchantAccountNumber, transactionCode, merchant.currency_code), amountMinor);
  const feeMinor = await feeFor(q, transactionCode, merchant.currency_code, amountMinor);
  const debitedNow = singleStatusAtCapture(merchant.level_number) === PAYOUT.transferring;
  return { ...(await preview(q, merchantAccountNumber, merchant.currency_code, amountMinor, feeMinor, debitedNow)), connectorName: connector.connector_name };
}

// What a correcting ledger transfer moves for an exception: the difference between our ledger and
// the rail's record, booked as one balanced transfer of type rail_correction (never an edit of the
// transfers already booked). ledger verify recomputes the same movements in SQL
// (ledger/verify.ts, rail_corrections): keep the two in step.
//
// Per kind, for a payout (amount A, fee F):
//   ours_committed_theirs_not  the beneficiary never got it: A + F back to the merchant's
//                              disbursement account, from payouts_settled (A) and fees (F)
//   theirs_committed_ours_not  paid although we refunded it: A + F from the disbursement account,
//                              to payouts_settled (A) and fees (F); A is the amount the rail carried
//   amount_differs             the rail carried D more (or less) than we booked: D from the
//                              disbursement account to payouts_settled (or back)
// and for a collection (amount A, fee F):
//   ours_committed_theirs_not  the money never came: the credit taken back, A - F from the
//                              merchant's collection account and F from fees, to customer_payments
//   theirs_committed_ours_not  the money came and was not credited: A from customer_payments to the
//                              collection account, in full (no fee is charged on a correction)
//   amount_differs             D more (or less) came than we credited: D from customer_payments to
//                              the collection account (or back)
// In flight past expiry and no answer have nothing to correct: the rail's word settles the first
// (the service keeps asking), and the second is only our not knowing. They are accepted.
import type { MerchantAccountKind, SystemAccountKind } from '../../modules/ledger/ledger.ts';

export type CorrectionAccount = MerchantAccountKind | Extract<SystemAccountKind, 'fees' | 'payouts_settled' | 'customer_payments'>;

export interface Movement {
  account: CorrectionAccount;
  /** Credit positive, debit negative; the movements of a correction sum to zero. */
  amountMinor: number;
}

export interface Difference {
  kind: string;
  subject: 'payout' | 'collection';
  oursAmountMinor: number | null;
  theirsAmountMinor: number | null;
  feeMinor: number;
}

/** The correction's movements, or null when the kind has nothing to correct (or an amount is unknown). */
export function correctionMovements(d: Difference): Movement[] | null {
  const ours = d.oursAmountMinor;
  const theirs = d.theirsAmountMinor ?? ours;
  const fee = d.feeMinor;
  if (d.subject === 'payout') {
    if (d.kind === 'ours_committed_theirs_not' && ours !== null) return [{ account: 'disbursement', amountMinor: ours + fee }, { account: 'payouts_settled', amountMinor: -ours }, { account: 'fees', amountMinor: -fee }];
    if (d.kind === 'theirs_committed_ours_not' && theirs !== null) return [{ account: 'disbursement', amountMinor: -(theirs + fee) }, { account: 'payouts_settled', amountMinor: theirs }, { account: 'fees', amountMinor: fee }];
    if (d.kind === 'amount_differs' && ours !== null && d.theirsAmountMinor !== null) return [{ account: 'disbursement', amountMinor: -(d.theirsAmountMinor - ours) }, { account: 'payouts_settled', amountMinor: d.theirsAmountMinor - ours }];
    return null;
  }
  if (d.kind === 'ours_committed_theirs_not' && ours !== null) return [{ account: 'collection', amountMinor: -(ours - fee) }, { account: 'fees', amountMinor: -fee }, { account: 'customer_payments', amountMinor: ours }];
  if (d.kind === 'theirs_committed_ours_not' && theirs !== null) return [{ account: 'customer_payments', amountMinor: -theirs }, { account: 'collection', amountMinor: theirs }];
  if (d.kind === 'amount_differs' && ours !== null && d.theirsAmountMinor !== null) return [{ account: 'customer_payments', amountMinor: -(d.theirsAmountMinor - ours) }, { account: 'collection', amountMinor: d.theirsAmountMinor - ours }];
  return null;
}

/** The reference of an exception's correcting transfer. */
export function correctionReference(exceptionId: number): string {
  return `RX${exceptionId}`;
}

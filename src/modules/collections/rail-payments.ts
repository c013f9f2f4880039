// Payments from outside, over a payment rail (src/rails): the payer's institution asks first
// (who is this account, what does it expect), then its transfer arrives, and the rail commits it
// or not. Every rule of a payment is judged when the transfer is accepted, and a timed account is
// held for it then; the credit, once the rail has committed the money, refuses nothing.
// The rules are the same as for any payment: recordPayment and judgeTimedAccount (service.ts).
import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { findConnector } from '../connectors/repository.ts';
import { checkAmount, checkDaily, limitFor } from '../limits/enforce.ts';
import { lockMerchant, paymentAccountOwner, type MerchantRow } from '../merchants/repository.ts';
import * as repo from './repository.ts';
import { activeMerchant, collectionConnector, judgeTimedAccount, recordPayment, type RailPayer } from './service.ts';

export type PayableAccount =
  | { kind: 'timed'; merchant: MerchantRow; request: repo.PaymentRequestRow }
  | { kind: 'payment'; merchant: MerchantRow };

/**
 * The account a rail's payer names, if it can be paid now: an open timed account (not held, not
 * expired) of an active merchant, or an active merchant's payment account. Without a lock: for the
 * lookup and the quote, which move no money.
 */
export async function findPayableAccount(q: Queryable, accountNumber: string): Promise<PayableAccount | undefined> {
  if (/^1[0-9]{7}$/.test(accountNumber)) {
    // Through the number's claim (migration 0032), then the request by its key: one shard each on Citus.
    const claim = await repo.findTimedAccountClaim(q, accountNumber);
    if (!claim?.is_open) return undefined;
    const { rows } = await q.query<repo.PaymentRequestRow>(
      `select *, now() >= expires_at as is_expired from payment_requests
        where merchant_account_number = $1 and request_id = $2 and status_code = 'O' and expires_at > now() and held_by_transfer is null`,
      [claim.merchant_account_number, claim.request_id],
    );
    const merchant = rows[0] && (await activeMerchantRow(q, rows[0].merchant_account_number));
    return merchant ? { kind: 'timed', merchant, request: rows[0] } : undefined;
  }
  // The number's claim names the merchant; its row is then read by merchant (one shard on Citus).
  const owner = await paymentAccountOwner(q, accountNumber);
  const merchant = owner === undefined ? undefined : await activeMerchantRow(q, owner);
  return merchant ? { kind: 'payment', merchant } : undefined;
}

async function activeMerchantRow(q: Queryable, merchantAccountNumber: number): Promise<MerchantRow | undefined> {
  const { rows } = await q.query<MerchantRow>(`select * from merchants where merchant_account_number = $1 and status_code = 'A'`, [merchantAccountNumber]);
  return rows[0];
}

/** Whether the merchant's per-payment limits take this amount: a quote's check (the transfer's is holdForRailPayment's, with the day's total). */
export async function checkRailAmount(q: Queryable, account: PayableAccount, amountMinor: number): Promise<void> {
  const code = account.kind === 'timed' ? 'RTP' : 'BAM';
  checkAmount(await limitFor(q, account.merchant.merchant_account_number, code, account.merchant.currency_code), amountMinor);
}

export interface RailHoldInput {
  accountNumber: string;
  /** The connector the rail's payments are recorded under: it must take collections. */
  connectorId: number;
  amountMinor: number;
  currencyCode: string;
  /** The rail's transfer that will pay it. */
  transferId: string;
}

/**
 * Judges a rail's payment by every rule a payment of this account obeys (open, not held, not
 * expired, amount, currency, the merchant's limits) and holds a timed account for the transfer.
 * Throws the AppError a payment would; changes nothing then.
 */
export async function holdForRailPayment(tx: pg.PoolClient, input: RailHoldInput): Promise<PayableAccount> {
  let account: PayableAccount;
  if (/^1[0-9]{7}$/.test(input.accountNumber)) {
    const request = await repo.lockRequestByTimedAccount(tx, input.accountNumber);
    if (!request) throw new AppError('notFound', 'detail.timedAccountNotFound', { timedAccountNumber: input.accountNumber });
    judgeTimedAccount(request, { ...input, timedAccountNumber: input.accountNumber });
    account = { kind: 'timed', merchant: await activeMerchant(tx, request.merchant_account_number), request };
  } else {
    const owner = await paymentAccountOwner(tx, input.accountNumber);
    if (owner === undefined) throw new AppError('notFound', 'detail.paymentAccountNotFound', { accountNumber: input.accountNumber });
    account = { kind: 'payment', merchant: await activeMerchant(tx, owner) };
    if (input.currencyCode !== account.merchant.currency_code) throw new AppError('currencyMismatch', 'detail.currencyMismatch', { currencyCode: input.currencyCode, requested: account.merchant.currency_code });
  }
  await collectionConnector(tx, input.connectorId);
  const code = account.kind === 'timed' ? 'RTP' : 'BAM';
  const merchantNo = account.merchant.merchant_account_number;
  const limit = await limitFor(tx, merchantNo, code, input.currencyCode, { lock: 'for update' });
  checkAmount(limit, input.amountMinor);
  checkDaily(limit, code, await repo.collectedToday(tx, merchantNo, code, input.currencyCode), input.amountMinor);
  if (account.kind === 'timed') await repo.setRequestHold(tx, account.request.request_id, input.transferId);
  return account;
}

/** The rail did not commit the transfer: its timed account is open again (or expires as due). */
export async function releaseRailHold(tx: pg.PoolClient, requestId: number, transferId: string): Promise<void> {
  await tx.query('update payment_requests set held_by_transfer = null where request_id = $1 and held_by_transfer = $2', [requestId, transferId]);
}

export interface RailCreditInput {
  merchantAccountNumber: number;
  /** The timed account's request, held by this transfer; none: the merchant's payment account. */
  requestId?: number;
  transferId: string;
  connectorId: number;
  amountMinor: number;
  payer: RailPayer;
  createdBy: string;
}

/**
 * Credits a payment the rail has committed, as any payment is booked (ledger, statistics, the
 * merchant's webhook, a checkout's callback). Judged when held: the money has moved, so no limit
 * or expiry may refuse it now.
 */
export async function creditRailPayment(tx: pg.PoolClient, input: RailCreditInput): Promise<repo.CollectionRow> {
  const merchant = await lockMerchant(tx, input.merchantAccountNumber);
  if (!merchant) throw new Error(`merchant ${input.merchantAccountNumber} of a committed rail payment is gone`);
  // Judged active when held: a connector switched off since then does not undo a committed payment.
  const connector = await findConnector(tx, input.connectorId);
  if (!connector) throw new Error(`connector ${input.connectorId} of a committed rail payment is gone`);
  const common = { merchant, connector, amountMinor: input.amountMinor, createdBy: input.createdBy, payer: input.payer, limits: 'judged-when-held' as const };
  if (input.requestId === undefined) return recordPayment(tx, { ...common, transactionCode: 'BAM', description: 'Customer payment' });
  const request = await repo.lockRequestById(tx, input.merchantAccountNumber, input.requestId);
  // Only this transfer can hold it (holdForRailPayment): anything else is a defect, and crediting
  // the wrong request would be worse than the rail's retry finding the defect logged.
  if (!request || request.held_by_transfer !== input.transferId) throw new Error(`request ${input.requestId} is not held by transfer ${input.transferId}`);
  return recordPayment(tx, { ...common, transactionCode: 'RTP', description: request.transaction_description, request });
}

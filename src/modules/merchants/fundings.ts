// Operator funding (product.md §15): production never makes money up, so a merchant's disbursement
// balance is credited only when an operator records money its bank actually received. One
// transaction: the ledger transfer (bank_settlement → merchant disbursement), the funding row that
// names the bank's reference, the day received and who recorded it, and the reference's claim. The
// bank reference is the idempotency key: it is unique across merchants, so a retry (or a second
// operator typing the same receipt, for any merchant) can never credit twice; the same receipt
// again answers the first record, a different one 409. The uniqueness is funding_claims' primary
// key (migration 0031): a table shared by every merchant (a Citus reference table), while
// merchant_fundings is distributed by merchant and can only hold it within one merchant.
import type pg from 'pg';
import { withTransaction, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Deps } from '../../http/types.ts';
import { randomUpperAlnum } from '../../lib/ids.ts';
import { formatMajor, toMajor } from '../../lib/money.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../ledger/ledger.ts';
import { lockMerchant } from './repository.ts';
import { violatedConstraint } from '../../db/errors.ts';

export const BANK_REFERENCE_MAX_LENGTH = 64;
export const FUNDINGS_PAGE_MAX = 500;

export interface FundingInput {
  merchantAccountNumber: number;
  amountMinor: number;
  bankReference: string;
  /** YYYY-MM-DD, not after today (UTC). */
  receivedOn: string;
  recordedBy: string;
}

interface FundingRow {
  funding_id: number;
  merchant_account_number: number;
  currency_code: string;
  amount_minor: number;
  bank_reference: string;
  received_on: string;
  recorded_by: string;
  transaction_reference_number: string;
  date_recorded: Date;
}

export function fundingView(f: FundingRow) {
  return {
    fundingId: f.funding_id,
    merchantAccountNumber: f.merchant_account_number,
    currencyCode: f.currency_code,
    amount: toMajor(f.amount_minor),
    bankReference: f.bank_reference,
    receivedOn: f.received_on,
    recordedBy: f.recorded_by,
    transactionReferenceNumber: f.transaction_reference_number,
    dateRecorded: f.date_recorded.toISOString(),
  };
}

export type Funding = ReturnType<typeof fundingView>;

/** Bank references compare without case or surrounding blanks: "ft24 001 " is "FT24 001". */
export function canonicalBankReference(raw: string): string {
  return raw.trim().toUpperCase();
}

/** The funding that claimed this bank reference, for whichever merchant: the claim names it, then it is read by its key. */
async function findByReference(q: Queryable, bankReference: string): Promise<FundingRow | undefined> {
  const { rows: claims } = await q.query<{ owner_merchant_account_number: number; funding_id: number }>(
    'select owner_merchant_account_number, funding_id from funding_claims where bank_reference = $1',
    [bankReference],
  );
  if (!claims[0]) return undefined;
  const { rows } = await q.query<FundingRow>('select * from merchant_fundings where merchant_account_number = $1 and funding_id = $2', [
    claims[0].owner_merchant_account_number,
    claims[0].funding_id,
  ]);
  return rows[0];
}

/**
 * Claims the bank reference for the funding, in its transaction. A concurrent record of the same
 * receipt (for this merchant or another) waits here on the claim's primary key, then fails with
 * 23505 and rolls back its transfer and funding row with it: exactly one credit, whoever came first.
 */
async function claimReference(tx: pg.PoolClient, f: Pick<FundingRow, 'bank_reference' | 'merchant_account_number' | 'funding_id'>): Promise<void> {
  await tx.query('insert into funding_claims (bank_reference, owner_merchant_account_number, funding_id) values ($1, $2, $3)', [
    f.bank_reference,
    f.merchant_account_number,
    f.funding_id,
  ]);
}

/** The unique keys a second record of one receipt runs into: the claim (any merchant), or the funding's own key (same merchant). */
const DUPLICATE_RECEIPT = new Set(['funding_claims_pkey', 'merchant_fundings_merchant_bank_reference_key']);

async function insertFunding(tx: pg.PoolClient, f: Omit<FundingRow, 'funding_id' | 'date_recorded'> & { transferId: number }): Promise<FundingRow> {
  const { rows } = await tx.query<FundingRow>(
    `insert into merchant_fundings (merchant_account_number, currency_code, amount_minor, bank_reference, received_on, recorded_by, transaction_reference_number, transfer_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
    [f.merchant_account_number, f.currency_code, f.amount_minor, f.bank_reference, f.received_on, f.recorded_by, f.transaction_reference_number, f.transferId],
  );
  return rows[0];
}

/** The first record of this receipt when `input` describes it again; a 409 naming it otherwise. */
function replayOrConflict(existing: FundingRow, input: FundingInput): { funding: Funding; created: false } {
  const same = existing.merchant_account_number === input.merchantAccountNumber && existing.amount_minor === input.amountMinor && existing.received_on === input.receivedOn;
  if (!same) {
    throw new AppError('conflict', 'detail.fundingReferenceUsed', {
      bankReference: existing.bank_reference,
      fundingId: existing.funding_id,
      merchantAccountNumber: existing.merchant_account_number,
      amount: `${existing.currency_code} ${formatMajor(existing.amount_minor)}`,
      receivedOn: existing.received_on,
    });
  }
  return { funding: fundingView(existing), created: false };
}

export async function recordFunding(deps: Deps, input: FundingInput): Promise<{ funding: Funding; created: boolean }> {
  if (input.receivedOn > deps.clock.now().toISOString().slice(0, 10)) throw new AppError('validation', 'detail.receivedOnFuture', { date: input.receivedOn });
  const bankReference = canonicalBankReference(input.bankReference);
  const existing = await findByReference(deps.db, bankReference);
  if (existing) return replayOrConflict(existing, input);
  try {
    return await withTransaction(deps.db, async (tx) => {
      const merchant = await lockMerchant(tx, input.merchantAccountNumber);
      if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
      const reference = randomUpperAlnum(12);
      const transferId = await postTransfer(tx, {
        merchantAccountNumber: merchant.merchant_account_number,
        type: 'funding',
        reference,
        metadata: { bankReference, receivedOn: input.receivedOn, recordedBy: input.recordedBy },
        entries: [
          { accountId: await systemAccountId(tx, merchant.merchant_account_number, 'bank_settlement', merchant.currency_code), amountMinor: -input.amountMinor },
          { accountId: await merchantAccountId(tx, merchant.merchant_account_number, 'disbursement', merchant.currency_code), amountMinor: input.amountMinor },
        ],
      });
      const row = await insertFunding(tx, {
        merchant_account_number: merchant.merchant_account_number,
        currency_code: merchant.currency_code,
        amount_minor: input.amountMinor,
        bank_reference: bankReference,
        received_on: input.receivedOn,
        recorded_by: input.recordedBy,
        transaction_reference_number: reference,
        transferId,
      });
      await claimReference(tx, row);
      return { funding: fundingView(row), created: true };
    });
  } catch (err) {
    const constraint = violatedConstraint(err);
    if ((err as { code?: string }).code !== '23505' || !constraint || !DUPLICATE_RECEIPT.has(constraint)) throw err;
    const winner = await findByReference(deps.db, bankReference);
    if (!winner) throw err;
    return replayOrConflict(winner, input);
  }
}

/** A merchant's fundings in the order they were recorded (keyset pages after `afterFundingId`). */
export async function listFundings(q: Queryable, merchantAccountNumber: number, limit: number, afterFundingId = 0): Promise<Funding[]> {
  const { rows } = await q.query<FundingRow>(
    'select * from merchant_fundings where merchant_account_number = $1 and funding_id > $2 order by funding_id limit $3',
    [merchantAccountNumber, afterFundingId, Math.min(limit, FUNDINGS_PAGE_MAX)],
  );
  return rows.map(fundingView);
}

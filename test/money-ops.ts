// Money-moving operations through the real API and the real jobs (called directly, never by a
// background worker), shared by test/ledger/verify.test.ts and test/ledger/money-invariants.test.ts, and
// the E8 line builder the disbursement tests share.
// Amounts are integer tambala here and cross the API as exact 2-decimal strings.
import type { LightMyRequestResponse } from 'fastify';
import type { JobHelpers } from 'graphile-worker';
import { taskList } from '../src/composition.ts';
import { BASE, type TestApp, type TestMerchant } from './helpers.ts';

/** Wallet connector (MMW: fee MWK 100.00 flat). */
export const AIRTEL = 112400;
/** Bank connector (MBA: fee MWK 150.00 flat). */
export const NBM = 212188;
export const WALLET_FEE = 10_000;
export const BANK_FEE = 15_000;

export const CAPTURER = 'capturer@shop.mw';
export const REVIEWER = 'reviewer@shop.mw';
export const APPROVER = 'approver@shop.mw';

/** BAM and RTP: 1 %, rounded half up, never more than the amount (fee_schedules). */
export function collectionFee(amountMinor: number): number {
  return Math.min(amountMinor, Math.floor((amountMinor * 100 + 5_000) / 10_000));
}

/** 12345 → "123.45". */
export function major(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`.toUpperCase();

function send(t: TestApp, who: TestMerchant, method: 'POST' | 'PUT', path: string, payload: object, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

/** A fresh, valid X-Idempotency-Key header. */
export function idempotencyKey(): Record<string, string> {
  return { 'x-idempotency-key': `money-key-${unique()}-abcdef` };
}

export const topup = (t: TestApp, who: TestMerchant, amountMinor: number, headers: Record<string, string> = {}) =>
  send(t, who, 'POST', '/merchants/accounts/topup', { merchantAccountNumber: who.merchantAccountNumber, connectorId: NBM, topupAmount: major(amountMinor), createdBy: CAPTURER }, headers);

/** E11: a customer pays the merchant's payment account. */
export const customPayment = (t: TestApp, who: TestMerchant, amountMinor: number, headers: Record<string, string> = {}) =>
  send(t, who, 'POST', '/collections/addFakeCustomPayment', { beneficiaryAccountNumber: who.paymentAccountNumber, connectorId: NBM, transactionAmount: major(amountMinor), createdBy: CAPTURER }, headers);

/** E12: a request to pay; its timed account number. */
export async function requestToPay(t: TestApp, who: TestMerchant, amountMinor: number): Promise<string> {
  const res = await send(t, who, 'POST', '/collections/requestToPay/initiate', {
    merchantAccountNumber: who.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    transactionDescription: 'Order',
    referenceNumber: `REF${unique()}`,
    capturedBy: CAPTURER,
  });
  if (res.statusCode !== 200) throw new Error(`initiate: ${res.statusCode} ${res.body}`);
  return res.json().timedAccountNumber;
}

/** A customer pays the timed account. */
export const payTimed = (t: TestApp, who: TestMerchant, timedAccountNumber: string, amountMinor: number) =>
  send(t, who, 'POST', '/collections/requestToPay/addFakeTransaction', {
    merchantAccountNumber: who.merchantAccountNumber,
    transactionAmount: major(amountMinor),
    connectorId: AIRTEL,
    timedAccountNumber,
    currencyCode: 'MWK',
    capturedBy: CAPTURER,
  });

/** The transaction reference number of a collection answer. */
export function collectionReference(res: LightMyRequestResponse): string {
  return res.json().transaction.transactionReferenceNumber;
}

export const reverseCollection = (t: TestApp, who: TestMerchant, transactionReferenceNumber: string, headers: Record<string, string> = {}) =>
  send(t, who, 'POST', '/collections/reverse', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber, reason: 'Customer refund' }, headers);

export type Channel = 'wallet' | 'bank';

export interface PayoutSpec {
  amountMinor: number;
  channel: Channel;
  /** The account's last 4 digits: 9901 fails, 9904 times out then fails, 9905 succeeds then is reversed. */
  suffix: string;
}

/** MMW MWK 100.00, MBA MWK 150.00 flat, never more than the amount itself (fee_schedules). */
export function payoutFee(p: Pick<PayoutSpec, 'amountMinor' | 'channel'>): number {
  return Math.min(p.amountMinor, p.channel === 'wallet' ? WALLET_FEE : BANK_FEE);
}

export function payoutLine(p: PayoutSpec): Record<string, unknown> {
  return {
    beneficiaryName: 'Chisomo Banda',
    connectorId: p.channel === 'wallet' ? AIRTEL : NBM,
    beneficiaryAccountNumber: p.channel === 'wallet' ? `26599123${p.suffix}` : `100123${p.suffix}`,
    transactionDescription: 'Salary',
    transactionAmount: major(p.amountMinor),
    sourceReferenceNumber: `SRC-${unique()}`,
  };
}

/** An E8 line, as merchants send one. */
export type Line = Record<string, unknown>;

/** An E8 line paying an Airtel wallet with a fresh sourceReferenceNumber; `over` replaces fields (a magic suffix goes in beneficiaryAccountNumber). */
export const walletLine = (amount: number | string = 1000, over: Line = {}): Line => ({
  beneficiaryName: 'Chisomo Banda',
  connectorId: AIRTEL,
  beneficiaryAccountNumber: '265991234567',
  transactionDescription: 'Salary',
  transactionAmount: amount,
  sourceReferenceNumber: `SRC-${unique()}`,
  ...over,
});

/** A single payout of `line` (from payoutLine: build it once to send it again with the same key). */
export const singlePayout = (t: TestApp, who: TestMerchant, line: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(t, who, 'POST', '/disbursements/single/add', { merchantAccountNumber: who.merchantAccountNumber, ...line, capturedBy: CAPTURER }, headers);

export const addJson = (t: TestApp, who: TestMerchant, lines: Record<string, unknown>[]) =>
  send(t, who, 'POST', '/disbursements/batch/addJson', { header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: lines });

/** Adds a merchant user of `who` with `roleId` through the API (its invitation queued); returns its userId. */
export async function addMerchantUser(t: TestApp, who: TestMerchant, emailAddress: string, roleId: number | string): Promise<string> {
  const res = await send(t, who, 'POST', '/security/merchantUsers/add', {
    organisationId: who.organisationId,
    merchantAccountNumber: who.merchantAccountNumber,
    firstName: 'Tiwonge',
    lastName: 'Phiri',
    emailAddress,
    phoneNumber: '0991234567',
    roleId,
    capturedBy: 'setup@shop.mw',
  });
  if (res.statusCode !== 201) throw new Error(`adding user ${emailAddress}: ${res.statusCode} ${res.body}`);
  return String(res.headers['x-user-id']);
}

/** The batch actions: method, path and the field naming who acts. */
export const BATCH_ACTIONS = {
  review: { method: 'PUT', path: '/disbursements/batch/review', actor: 'actionedBy' },
  approve: { method: 'PUT', path: '/disbursements/batch/approve', actor: 'actionedBy' },
  reject: { method: 'POST', path: '/disbursements/batch/reject', actor: 'rejectedBy' },
  cancel: { method: 'POST', path: '/disbursements/batch/cancel', actor: 'cancelledBy' },
  transferFunds: { method: 'POST', path: '/disbursements/batch/transferFunds', actor: 'transferredBy' },
} as const;
export type BatchAction = keyof typeof BATCH_ACTIONS;

export function act(t: TestApp, who: TestMerchant, action: BatchAction, batchNumber: number, by = CAPTURER): Promise<LightMyRequestResponse> {
  const a = BATCH_ACTIONS[action];
  return send(t, who, a.method, a.path, {
    merchantAccountNumber: who.merchantAccountNumber,
    batchNumber,
    [a.actor]: by,
    ...(action === 'reject' ? { reasonForRejection: 'Amounts do not match the payroll' } : {}),
  });
}

/** The validate_batch job, run directly. */
export async function validateBatch(t: TestApp, batchNumber: number): Promise<void> {
  await taskList(t.deps).validate_batch!({ batchNumber }, {} as JobHelpers);
}

/**
 * Submits and validates a batch, then takes it through the approvals its level needs (2: approve;
 * 3: review, approve), so that transferFunds is next. Its number and status.
 */
export async function readyBatch(t: TestApp, who: TestMerchant, lines: Record<string, unknown>[]): Promise<{ batchNumber: number; status: string }> {
  const res = await addJson(t, who, lines);
  if (res.statusCode !== 200) throw new Error(`addJson: ${res.statusCode} ${res.body}`);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  let status = await batchStatus(t, batchNumber);
  if (status === 'P' && who.levelNumber === 3) {
    const reviewed = await act(t, who, 'review', batchNumber, REVIEWER);
    if (reviewed.statusCode !== 200) throw new Error(`review: ${reviewed.statusCode} ${reviewed.body}`);
  }
  if (status === 'P' && who.levelNumber >= 2) {
    const approved = await act(t, who, 'approve', batchNumber, APPROVER);
    if (approved.statusCode !== 200) throw new Error(`approve: ${approved.statusCode} ${approved.body}`);
  }
  status = await batchStatus(t, batchNumber);
  return { batchNumber, status };
}

export async function batchStatus(t: TestApp, batchNumber: number): Promise<string> {
  const { rows } = await t.db.query<{ status_code: string }>('select status_code from batches where batch_number = $1', [batchNumber]);
  return rows[0].status_code;
}

/** The payout job for the merchant, until nothing is due (time-outs and reversals come due at once with 0 s). */
export async function runPayouts(t: TestApp, who: TestMerchant): Promise<void> {
  const run = taskList(t.deps).process_payouts!;
  for (let pass = 0; pass < 20; pass++) {
    await run({ merchantAccountNumber: who.merchantAccountNumber }, {} as JobHelpers);
    const { rows } = await t.db.query<{ n: number }>(
      `select count(*)::int as n from payouts where merchant_account_number = $1
          and (status_code = 'T' or (status_code = 'S' and reverse_at is not null))`,
      [who.merchantAccountNumber],
    );
    if (rows[0].n === 0) return;
    // now() is the transaction's start: a time-out or reversal due "now" is due in the next one.
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`payouts of ${who.merchantAccountNumber} did not settle`);
}

/** The balances merchants see (GET /merchants/accounts/get), in tambala. */
export async function apiBalances(t: TestApp, who: TestMerchant): Promise<{ collectionMinor: number; disbursementMinor: number }> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: who.auth });
  if (res.statusCode !== 200) throw new Error(`accounts/get: ${res.statusCode} ${res.body}`);
  const body = res.json() as { collectionBalance: number; disbursmentBalance: number };
  return { collectionMinor: Math.round(body.collectionBalance * 100), disbursementMinor: Math.round(body.disbursmentBalance * 100) };
}

/** The actions on a single payout awaiting approval (levels 2 and 3): method, path and the field naming who acts. */
export const SINGLE_ACTIONS = {
  review: { method: 'PUT', path: '/disbursements/single/review', actor: 'actionedBy' },
  approve: { method: 'PUT', path: '/disbursements/single/approve', actor: 'actionedBy' },
  reject: { method: 'POST', path: '/disbursements/single/reject', actor: 'rejectedBy' },
} as const;
export type SingleAction = keyof typeof SINGLE_ACTIONS;

export function actOnSingle(t: TestApp, who: TestMerchant, action: SingleAction, transactionReferenceNumber: string, by: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const a = SINGLE_ACTIONS[action];
  return send(
    t,
    who,
    a.method,
    a.path,
    { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber, [a.actor]: by, ...(action === 'reject' ? { reasonForRejection: 'Wrong beneficiary' } : {}) },
    headers,
  );
}

/**
 * A single payout of `line` taken through the approvals its merchant's level needs (2: approve;
 * 3: review, approve), so that it is debited and on its way as at level 1. The last answer: add's
 * at level 1 (or when add is refused), approve's otherwise.
 */
export async function paidSinglePayout(t: TestApp, who: TestMerchant, line: Record<string, unknown>): Promise<LightMyRequestResponse> {
  const added = await singlePayout(t, who, line);
  if (added.statusCode !== 200 || who.levelNumber === 1) return added;
  const reference: string = added.json().transactionReferenceNumber;
  if (who.levelNumber === 3) {
    const reviewed = await actOnSingle(t, who, 'review', reference, REVIEWER);
    if (reviewed.statusCode !== 200) throw new Error(`single review: ${reviewed.statusCode} ${reviewed.body}`);
  }
  return actOnSingle(t, who, 'approve', reference, APPROVER);
}

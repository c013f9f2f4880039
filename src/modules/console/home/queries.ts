// The console's home: the merchant's balances, today's and the last 30 days' collections and
// payouts, and what waits for the signed-in user (batches and single payouts to review, approve or
// transfer; failed webhook deliveries). Figures in minor units; the page formats them.
import type { Queryable } from '../../../db/pool.ts';
import { AppError } from '../../../http/errors.ts';
import { utcDay } from '../../analytics/stats.ts';
import { TRANSITIONS, statusDescription, type BatchAction, type BatchStatus, type SingleAction } from '../../disbursements/lifecycle.ts';
import { batchVerdict, singleVerdict, type ActingUser } from '../../disbursements/may-act.ts';
import { findMerchant } from '../../merchants/repository.ts';
import { ACTIONS_BY_ROLE } from '../../users/permissions.ts';
import { findUser, USER } from '../../users/repository.ts';

/** Days in the home's series, today included. */
export const HOME_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Balances {
  currencyCode: string;
  /** collection + disbursement, as GET /merchants/accounts/get's accountBalance. */
  accountMinor: number;
  collectionMinor: number;
  disbursementMinor: number;
}

/** One UTC day (or a sum of days) of one kind of transaction. */
export interface DayFigures {
  day: string;
  successfulCount: number;
  failedCount: number;
  reversedCount: number;
  /** Final transactions: successful + failed + reversed (a reversal was successful first). */
  finalCount: number;
  successfulMinor: number;
  failedMinor: number;
  reversedMinor: number;
  /** successful ÷ final in percent with 2 decimals; null when nothing is final (no rate to show). */
  successRatePercent: number | null;
}

export interface Flow {
  today: DayFigures;
  /** The sum of `days` (day: the first day of the range). */
  total: DayFigures;
  /** Every day of the range, oldest first, zeros included. */
  days: DayFigures[];
}

export interface HomeSummary {
  merchantAccountNumber: number;
  accountName: string;
  balances: Balances;
  fromDate: string;
  toDate: string;
  /** By transaction date. */
  collections: Flow;
  /** By completion date (a payout counts when it is final). */
  payouts: Flow;
}

interface DayRow {
  day: string;
  summary_type: 'C' | 'D';
  s: number;
  f: number;
  r: number;
  s_minor: number;
  f_minor: number;
  r_minor: number;
}

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part * 10_000) / whole) / 100);

function figures(day: string, s: number, f: number, r: number, sMinor: number, fMinor: number, rMinor: number): DayFigures {
  const finalCount = s + f + r;
  return { day, successfulCount: s, failedCount: f, reversedCount: r, finalCount, successfulMinor: sMinor, failedMinor: fMinor, reversedMinor: rMinor, successRatePercent: rate(s, finalCount) };
}

function flow(rows: DayRow[], type: 'C' | 'D', fromDate: string): Flow {
  const days = rows.filter((r) => r.summary_type === type).map((r) => figures(r.day, r.s, r.f, r.r, r.s_minor, r.f_minor, r.r_minor));
  const sum = (f: (d: DayFigures) => number) => days.reduce((acc, d) => acc + f(d), 0);
  const total = figures(fromDate, sum((d) => d.successfulCount), sum((d) => d.failedCount), sum((d) => d.reversedCount), sum((d) => d.successfulMinor), sum((d) => d.failedMinor), sum((d) => d.reversedMinor));
  return { today: days[days.length - 1], total, days };
}

/**
 * The merchant's balances (the same query as GET /merchants/accounts/get: merchants/repository.ts
 * findMerchant) and the last HOME_DAYS UTC days up to `now`'s, from connector_daily_stats, which the
 * analytics module maintains in the transaction of every payment, payout and reversal: at most 30 ×
 * connectors rows to read, whatever the number of transactions. A collection counts on its
 * transaction date (a reversed one moves from successful to reversed on that day), a payout on the
 * day it became final. Undefined for an unknown merchant.
 */
export async function homeSummary(db: Queryable, merchantAccountNumber: number, now: Date): Promise<HomeSummary | undefined> {
  const merchant = await findMerchant(db, merchantAccountNumber);
  if (!merchant) return undefined;
  const toDate = utcDay(now);
  const fromDate = utcDay(new Date(Date.parse(`${toDate}T00:00:00Z`) - (HOME_DAYS - 1) * DAY_MS));
  const { rows } = await db.query<DayRow>(
    `select to_char(d.day, 'YYYY-MM-DD') as day, k.summary_type,
            coalesce(sum(s.successful_count), 0)::bigint as s, coalesce(sum(s.failed_count), 0)::bigint as f,
            coalesce(sum(s.reversed_count), 0)::bigint as r, coalesce(sum(s.successful_minor), 0)::bigint as s_minor,
            coalesce(sum(s.failed_minor), 0)::bigint as f_minor, coalesce(sum(s.reversed_minor), 0)::bigint as r_minor
       from generate_series($2::date, $3::date, interval '1 day') as d(day)
       cross join (values ('C'), ('D')) as k(summary_type)
       left join connector_daily_stats s on s.merchant_account_number = $1 and s.summary_type = k.summary_type
                                        and s.day = d.day::date and s.currency_code = $4
      group by d.day, k.summary_type
      order by d.day, k.summary_type`,
    [merchantAccountNumber, fromDate, toDate, merchant.currency_code],
  );
  return {
    merchantAccountNumber,
    accountName: merchant.account_name,
    balances: {
      currencyCode: merchant.currency_code,
      accountMinor: merchant.collection_minor + merchant.disbursement_minor,
      collectionMinor: merchant.collection_minor,
      disbursementMinor: merchant.disbursement_minor,
    },
    fromDate,
    toDate,
    collections: flow(rows, 'C', fromDate),
    payouts: flow(rows, 'D', fromDate),
  };
}

// ---------------------------------------------------------------------------------------------
// What needs this user

/** The actions the home lists: the ones that move a batch or payout on to its next person. */
type WaitingAction = Extract<BatchAction, 'review' | 'approve' | 'transferFunds'>;
const WAITING_ACTIONS: readonly WaitingAction[] = ['review', 'approve', 'transferFunds'];
const SINGLE_WAITING: readonly SingleAction[] = ['review', 'approve'];

/** Rows looked at per kind: a merchant with more waiting than this sees the newest (`truncated`). */
const MAX_CANDIDATES = 500;
/** Items listed per kind; `count` says how many there are. */
const LISTED = 10;
/** Failed webhook deliveries listed. */
const FAILED_DELIVERIES_LISTED = 5;

export interface AttentionUser {
  userId: string;
  roleId: number;
  emailAddress: string;
}

export interface WaitingBatch {
  batchNumber: number;
  action: WaitingAction;
  statusCode: BatchStatus;
  statusDescription: string;
  levelNumber: number;
  capturedBy: string;
  dateCaptured: Date;
  reviewedBy: string | null;
  numberOfEntries: number;
  numberOfValidEntries: number;
  currencyCode: string;
  totalAmountMinor: number;
  totalFeeMinor: number;
  isBatchScheduled: boolean;
  scheduledDate: string | null;
}

export interface WaitingPayout {
  transactionReferenceNumber: string;
  action: Extract<SingleAction, 'review' | 'approve'>;
  levelNumber: number;
  beneficiaryName: string;
  beneficiaryAccountNumber: string;
  connectorName: string;
  amountMinor: number;
  feeMinor: number;
  currencyCode: string;
  capturedBy: string;
  reviewedBy: string | null;
  dateCreated: Date;
}

export interface FailedDelivery {
  deliveryId: number;
  eventCode: string;
  callbackUrl: string;
  totalAttempts: number;
  createdAt: Date;
  completedAt: Date | null;
  lastHttpStatus: number | null;
  lastError: string | null;
}

export interface Attention {
  batches: { count: number; truncated: boolean; items: WaitingBatch[] };
  singlePayouts: { count: number; truncated: boolean; items: WaitingPayout[] };
  failedDeliveries: { count: number; items: FailedDelivery[] };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What waits for someone is never the withdrawal of a transferred batch before its day (a step
 * only before it is due): the verdicts below are asked as of a day no batch is scheduled after.
 */
const NO_STEP_BEFORE_DUE = '9999-12-31';

/**
 * What waits for this user: batches and single payouts their role may move on (users/permissions.ts
 * ACTIONS_BY_ROLE) from the state and authorisation level they are in (disbursements/lifecycle.ts,
 * the level each was captured at), never one the four-eyes rule keeps from them (they captured or
 * reviewed it); and the merchant's failed webhook deliveries. The user's role and e-mail address
 * are read from the database, not taken from the session: a role changed since sign-in applies at
 * once, and a closed user (or another merchant's) is waited for by nothing.
 */
export async function attention(db: Queryable, merchantAccountNumber: number, user: AttentionUser): Promise<Attention> {
  if (!UUID.test(user.userId)) throw new AppError('validation', 'detail.valueInvalid', { field: 'userId', value: user.userId.slice(0, 40) });
  const row = await findUser(db, merchantAccountNumber, user.userId);
  const acting: ActingUser | undefined = row && row.status_code === USER.active ? { emailAddress: row.email_address, roleCode: row.role_code } : undefined;
  const grants = acting ? (ACTIONS_BY_ROLE[acting.roleCode] ?? {}) : {};
  // One after another: `db` may be a single client (a transaction), which runs one query at a time.
  const batches = acting ? await waitingBatches(db, merchantAccountNumber, grants, acting) : { count: 0, truncated: false, items: [] };
  const singlePayouts = acting ? await waitingPayouts(db, merchantAccountNumber, grants, acting) : { count: 0, truncated: false, items: [] };
  const failedDeliveries = await failedWebhookDeliveries(db, merchantAccountNumber);
  return { batches, singlePayouts, failedDeliveries };
}

type Grants = (typeof ACTIONS_BY_ROLE)[string];

interface BatchCandidate {
  batch_number: number;
  status_code: BatchStatus;
  level_number: number;
  captured_by: string;
  reviewed_by: string | null;
  date_captured: Date;
  number_of_entries: number;
  number_of_invalid_entries: number;
  currency_code: string;
  total_amount_minor: number;
  total_fee_minor: number;
  is_batch_scheduled: boolean;
  scheduled_date: string | null;
}

async function waitingBatches(db: Queryable, merchantAccountNumber: number, grants: Grants, acting: ActingUser): Promise<Attention['batches']> {
  // The (state, level) pairs from which the user's granted actions start; 'own' grants are for
  // cancel only (an initiator withdrawing their own batch), which moves nothing on.
  const pairs = WAITING_ACTIONS.filter((a) => grants[a] === 'any').flatMap((action) =>
    TRANSITIONS[action].from.filter((f) => !f.beforeDue).flatMap((f) => f.levels.map((level) => ({ action, status: f.status, level }))),
  );
  if (pairs.length === 0) return { count: 0, truncated: false, items: [] };
  const { rows } = await db.query<BatchCandidate>(
    `select batch_number, status_code, level_number, captured_by, reviewed_by, date_captured, number_of_entries, number_of_invalid_entries,
            currency_code, total_amount_minor, total_fee_minor, is_batch_scheduled, to_char(scheduled_date, 'YYYY-MM-DD') as scheduled_date
       from batches
      where merchant_account_number = $1 and status_code = any($2::text[])
        and (status_code, level_number) in (select * from unnest($3::text[], $4::smallint[]))
      order by batch_number desc
      limit $5`,
    [merchantAccountNumber, [...new Set(pairs.map((p) => p.status))], pairs.map((p) => p.status), pairs.map((p) => p.level), MAX_CANDIDATES],
  );
  const waiting = rows.flatMap((b) => {
    const facts = { statusCode: b.status_code, levelNumber: b.level_number, capturedBy: b.captured_by, reviewedBy: b.reviewed_by, isBatchScheduled: b.is_batch_scheduled, scheduledDate: b.scheduled_date };
    // The SQL above narrows the candidates; the decision is the domain's, as the service makes it.
    const pair = pairs.find((p) => p.status === b.status_code && p.level === b.level_number && batchVerdict(acting, facts, p.action, NO_STEP_BEFORE_DUE) === 'yes');
    return pair ? [{ b, action: pair.action }] : [];
  });
  return {
    count: waiting.length,
    truncated: rows.length === MAX_CANDIDATES,
    items: waiting.slice(0, LISTED).map(({ b, action }) => ({
      batchNumber: b.batch_number,
      action,
      statusCode: b.status_code,
      statusDescription: statusDescription(b.status_code, b.level_number),
      levelNumber: b.level_number,
      capturedBy: b.captured_by,
      dateCaptured: b.date_captured,
      reviewedBy: b.reviewed_by,
      numberOfEntries: b.number_of_entries,
      numberOfValidEntries: b.number_of_entries - b.number_of_invalid_entries,
      currencyCode: b.currency_code,
      totalAmountMinor: b.total_amount_minor,
      totalFeeMinor: b.total_fee_minor,
      isBatchScheduled: b.is_batch_scheduled,
      scheduledDate: b.scheduled_date,
    })),
  };
}

interface PayoutCandidate {
  transaction_reference_number: string;
  level_number: number;
  beneficiary_name: string;
  beneficiary_account_number: string;
  connector_name: string;
  amount_minor: number;
  fee_minor: number;
  currency_code: string;
  captured_by: string;
  reviewed_by: string | null;
  created_at: Date;
}

async function waitingPayouts(db: Queryable, merchantAccountNumber: number, grants: Grants, acting: ActingUser): Promise<Attention['singlePayouts']> {
  const actions = SINGLE_WAITING.filter((a) => grants[a] === 'any');
  if (actions.length === 0) return { count: 0, truncated: false, items: [] };
  // A single payout awaiting someone is P (lifecycle.ts singleStage: reviewed when it has a reviewer).
  const { rows } = await db.query<PayoutCandidate>(
    `select p.transaction_reference_number, coalesce(p.level_number, 1)::int as level_number, p.beneficiary_name, p.beneficiary_account_number,
            coalesce(c.connector_name, '') as connector_name, p.amount_minor, p.fee_minor, p.currency_code, p.captured_by, p.reviewed_by, p.created_at
       from payouts p left join connectors c on c.connector_id = p.connector_id
      where p.merchant_account_number = $1 and p.batch_number is null and p.status_code = 'P'
      order by p.payout_id desc
      limit $2`,
    [merchantAccountNumber, MAX_CANDIDATES],
  );
  const waiting = rows.flatMap((p) => {
    const facts = { statusCode: 'P', levelNumber: p.level_number, capturedBy: p.captured_by, reviewedBy: p.reviewed_by };
    const action = actions.find((a) => singleVerdict(acting, facts, a) === 'yes');
    return action ? [{ p, action: action as WaitingPayout['action'] }] : [];
  });
  return {
    count: waiting.length,
    truncated: rows.length === MAX_CANDIDATES,
    items: waiting.slice(0, LISTED).map(({ p, action }) => ({
      transactionReferenceNumber: p.transaction_reference_number,
      action,
      levelNumber: p.level_number,
      beneficiaryName: p.beneficiary_name,
      beneficiaryAccountNumber: p.beneficiary_account_number,
      connectorName: p.connector_name,
      amountMinor: p.amount_minor,
      feeMinor: p.fee_minor,
      currencyCode: p.currency_code,
      capturedBy: p.captured_by,
      reviewedBy: p.reviewed_by,
      dateCreated: p.created_at,
    })),
  };
}

/**
 * Deliveries that ended failed (every attempt of their round used, or their subscription deleted);
 * a redelivery makes one pending again, so it leaves this count.
 */
async function failedWebhookDeliveries(db: Queryable, merchantAccountNumber: number): Promise<Attention['failedDeliveries']> {
  const { rows } = await db.query<FailedDelivery & { count: number }>(
    `with failed as (
       select delivery_id, event_code, callback_url, total_attempts, created_at, completed_at
         from webhook_deliveries where merchant_account_number = $1 and status = 'failed'
     )
     select (select count(*)::bigint from failed) as count, f.delivery_id as "deliveryId", f.event_code as "eventCode",
            f.callback_url as "callbackUrl", f.total_attempts as "totalAttempts", f.created_at as "createdAt", f.completed_at as "completedAt",
            a.http_status as "lastHttpStatus", a.error as "lastError"
       from (select 1) one
       left join lateral (select * from failed order by delivery_id desc limit $2) f on true
       left join lateral (select http_status, error from webhook_attempts w where w.merchant_account_number = $1 and w.delivery_id = f.delivery_id order by attempt_number desc limit 1) a on true
      order by f.delivery_id desc`,
    [merchantAccountNumber, FAILED_DELIVERIES_LISTED],
  );
  const count = rows[0]?.count ?? 0;
  return { count, items: rows.filter((r) => r.deliveryId !== null).map(({ count: _count, ...d }) => d) };
}

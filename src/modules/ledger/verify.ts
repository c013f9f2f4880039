// `npm run cli -- ledger verify`: the ledger's invariants, checked against the data as it is. Each
// check is one set-based statement (one pass over the tables it reads, never a query per row), and
// all of them run in one REPEATABLE READ, READ ONLY transaction: they see one snapshot, so work
// committing meanwhile (a payout chunk settling) never shows up as a half-done mismatch.
//
// Accounting checks: every transfer balances; every merchant balance equals its entries; all
// entries sum to zero; no merchant balance is negative. Domain checks, which catch money lost or
// booked twice even when every transfer balances: payouts in flight equal the payouts still
// transferring; the fees, settled-payout and customer-payment system accounts equal what the
// collections and payouts say; each collection has exactly one payment transfer (and a reversed one
// exactly one reversal) of the right amounts; each transferred batch and each submitted single
// payout was debited exactly once, for its amounts plus fees (one awaiting approval, or rejected, never);
// each correction from the rails' reconciliation belongs to exactly one exception resolved 'correct'
// and moves exactly its difference, and each such exception has its correction (the system
// accounts' check leaves corrections to that check: they move money no payout or collection says).
// Derived data: the totals of closed days that statements read equal the entries they summarise.
// System accounts (funding, fees, customer_payments…) are one row per merchant, kind and currency
// (migration 0029, docs/scaling.md §4): a system account's service-wide position is the sum of its
// merchants' rows, and the checks compare each merchant's rows with that merchant's activity.
import pg from 'pg';
import { beginSql } from '../../db/pool.ts';

export interface CheckResult {
  name: string;
  description: string;
  /** Items the check looked at (transfers, accounts, collections…: see `description`). */
  checked: number;
  passed: number;
  failed: number;
  /** Up to `exampleLimit` offending items. */
  examples: Record<string, unknown>[];
  durationMs: number;
}

export interface LedgerReport {
  ok: boolean;
  checkedAt: string;
  durationMs: number;
  checks: CheckResult[];
}

interface Check {
  name: string;
  description: string;
  /** A query yielding one row per item checked: `ok boolean` and the columns `detail` reads. */
  items: string;
  /** The JSON shown for an offending item, over the columns of `items`: built for offenders only. */
  detail: string;
}

// Transfer types and references, as the services post them:
//   topup            funding → merchant disbursement (sandbox only)           (merchants/service.ts)
//   funding          bank_settlement → merchant disbursement (operator)        (merchants/fundings.ts)
//   payment (BAM),   customer_payments → collection + fees; reference = the collection's
//   payrequest (RTP) transaction reference number                             (collections/service.ts)
//   reversal         collection + fees → customer_payments; same reference
//   payout_debit     disbursement → payouts_in_flight; 'B<batchNumber>' or the single payout's
//                    transaction reference number                              (disbursements/service.ts)
//   payout_cancel    payouts_in_flight → disbursement: a scheduled batch cancelled before its
//                    day, refunded in full; 'B<batchNumber>'                   (disbursements/service.ts)
//   payout_settle    payouts_in_flight → payouts_settled + fees, failures refunded to disbursement
//                    (disbursements/outcomes.ts, for the simulated rail and a rail's payouts failed before sending)
//   payout_reversal  payouts_settled → disbursement (amount only)              (rails/simulated/payouts.ts)
//   rail_send        payouts_in_flight → rail_in_flight: a rail's transfer sent; reference = the
//                    payout's transaction reference number                      (rails/mojaloop/callbacks.ts)
//   rail_settle      rail_in_flight → payouts_settled + fees, or back to disbursement when the rail
//                    refused it; same reference                                   (rails/mojaloop/callbacks.ts)
//   rail_correction  an operator's correction of a reconciliation exception: between the merchant's
//                    disbursement or collection account and payouts_settled, fees or customer_payments
//                    (rails/reconciliation/corrections.ts); reference = 'RX<exceptionId>'

/** Each merchant ledger account with the sum of its entries, and `ok` as the condition says. */
function merchantAccounts(ok: string): string {
  return `select a.account_id, a.merchant_account_number, a.kind, a.currency_code, a.balance_minor, coalesce(s.total, 0) as total, ${ok} as ok
        from ledger_accounts a
        left join (select merchant_account_number, account_id, sum(amount_minor) as total from ledger_entries group by merchant_account_number, account_id) s on s.merchant_account_number = a.merchant_account_number and s.account_id = a.account_id
       where not a.is_system`;
}

const MERCHANT_ACCOUNT_DETAIL = `json_build_object('accountId', account_id, 'merchantAccountNumber', merchant_account_number, 'kind', kind,
                                'currencyCode', currency_code, 'balanceMinor', balance_minor, 'entriesSumMinor', total)`;

export const CHECKS: Check[] = [
  {
    name: 'transfers_balanced',
    description: "every ledger transfer has at least two entries, in one currency, of its own merchant and on its own merchant's accounts, summing to zero",
    items: `
      select t.transfer_id, t.transfer_type, t.reference, t.merchant_account_number, count(e.entry_id) as entries,
             coalesce(sum(e.amount_minor), 0) as total, min(a.currency_code) as min_currency, max(a.currency_code) as max_currency,
             count(e.entry_id) >= 2 and coalesce(sum(e.amount_minor), 0) = 0 and min(a.currency_code) = max(a.currency_code)
               and coalesce(bool_and(e.merchant_account_number = t.merchant_account_number and a.merchant_account_number = t.merchant_account_number), true) as ok
        from ledger_transfers t
        left join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
        left join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
       group by t.merchant_account_number, t.transfer_id, t.transfer_type, t.reference`,
    detail: `json_build_object('transferId', transfer_id, 'transferType', transfer_type, 'reference', reference,
                                'merchantAccountNumber', merchant_account_number, 'entries', entries, 'sumMinor', total,
                                'currencyCodes', case when min_currency = max_currency then json_build_array(min_currency)
                                                      else to_json(array_remove(array[min_currency, max_currency], null)) end)`,
  },
  {
    name: 'balances_match_entries',
    description: "every merchant ledger account's balance_minor equals the sum of its entries",
    items: `
      ${merchantAccounts('a.balance_minor = coalesce(s.total, 0)')}`,
    detail: MERCHANT_ACCOUNT_DETAIL,
  },
  {
    name: 'ledger_sums_to_zero',
    description: 'the entries of all accounts sum to zero, per currency',
    items: `
      select a.currency_code, coalesce(sum(e.amount_minor), 0) as total, coalesce(sum(e.amount_minor), 0) = 0 as ok
        from ledger_accounts a
        left join ledger_entries e on e.merchant_account_number = a.merchant_account_number and e.account_id = a.account_id
       group by a.currency_code`,
    detail: `json_build_object('currencyCode', currency_code, 'sumMinor', total)`,
  },
  {
    name: 'no_negative_balances',
    description: 'no merchant ledger account has a negative balance_minor, nor entries summing below zero',
    items: `
      ${merchantAccounts('a.balance_minor >= 0 and coalesce(s.total, 0) >= 0')}`,
    detail: MERCHANT_ACCOUNT_DETAIL,
  },
  {
    name: 'payouts_in_flight',
    description:
      "per merchant, currency and in-flight account: the payouts_in_flight system account's entries equal amount + fee of the payouts in status T " +
      'not yet sent over a rail, and rail_in_flight those of the payouts in status T whose transfer a rail has sent (rail_payouts phase transfer)',
    items: `
      with ledger as (
        select e.merchant_account_number, a.currency_code, a.kind, sum(e.amount_minor) as in_flight
          from ledger_entries e join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where a.is_system and a.kind in ('payouts_in_flight', 'rail_in_flight')
         group by e.merchant_account_number, a.currency_code, a.kind
      ), transferring as (
        select p.merchant_account_number, p.currency_code,
               case when r.phase = 'transfer' then 'rail_in_flight' else 'payouts_in_flight' end as kind,
               sum(p.amount_minor + p.fee_minor) as owed, count(*) as payouts
          from payouts p
          left join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
         where p.status_code = 'T'
         group by 1, 2, 3
      )
      select coalesce(l.merchant_account_number, p.merchant_account_number) as merchant_account_number,
             coalesce(l.currency_code, p.currency_code) as currency_code, coalesce(l.kind, p.kind) as kind,
             coalesce(l.in_flight, 0) as in_flight, coalesce(p.owed, 0) as owed, coalesce(p.payouts, 0) as payouts,
             coalesce(l.in_flight, 0) = coalesce(p.owed, 0) as ok
        from ledger l
        full join transferring p on p.merchant_account_number = l.merchant_account_number and p.currency_code = l.currency_code and p.kind = l.kind`,
    detail: `json_build_object('merchantAccountNumber', merchant_account_number, 'currencyCode', currency_code, 'account', kind,
                                'inFlightMinor', in_flight, 'transferringMinor', owed, 'transferringPayouts', payouts)`,
  },
  {
    name: 'rail_payouts',
    description:
      'each payout carried by a rail has movements that match its state: a payout whose transfer was sent exactly one rail_send ' +
      '(payouts_in_flight → rail_in_flight, amount + fee, reference = its transaction reference number), and once the rail answered exactly one ' +
      'rail_settle taking it out of rail_in_flight; one failed before sending neither; its status agrees with its phase ' +
      '(lookup, quote, transfer: T; committed: S or R; aborted, failed: F); and none is still in flight past its expiration plus the bound',
    items: `
      with moved as (
        select t.reference, t.merchant_account_number,
               count(distinct t.transfer_id) filter (where t.transfer_type = 'rail_send') as sends,
               count(distinct t.transfer_id) filter (where t.transfer_type = 'rail_settle') as settles,
               coalesce(sum(e.amount_minor) filter (where t.transfer_type = 'rail_send' and a.kind = 'rail_in_flight'), 0) as sent,
               coalesce(-sum(e.amount_minor) filter (where t.transfer_type = 'rail_settle' and a.kind = 'rail_in_flight'), 0) as settled
          from ledger_transfers t
          join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
          join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where t.transfer_type in ('rail_send', 'rail_settle')
         group by t.reference, t.merchant_account_number
      )
      select r.merchant_account_number, r.payout_id, p.transaction_reference_number, r.rail, r.phase, p.status_code, r.expires_at,
             coalesce(m.sends, 0) as sends, coalesce(m.settles, 0) as settles, coalesce(m.sent, 0) as sent, coalesce(m.settled, 0) as settled,
             p.amount_minor + p.fee_minor as owed,
             case when r.phase in ('lookup', 'quote') then p.status_code = 'T'
                  when r.phase = 'transfer' then p.status_code = 'T'
                  when r.phase = 'committed' then p.status_code in ('S', 'R')
                  else p.status_code = 'F' end
             and coalesce(m.sends, 0) = case when r.phase in ('transfer', 'committed', 'aborted') then 1 else 0 end
             and coalesce(m.sent, 0) = case when r.phase in ('transfer', 'committed', 'aborted') then p.amount_minor + p.fee_minor else 0 end
             and coalesce(m.settles, 0) = case when r.phase in ('committed', 'aborted') then 1 else 0 end
             and coalesce(m.settled, 0) = case when r.phase in ('committed', 'aborted') then p.amount_minor + p.fee_minor else 0 end
             and not (r.phase = 'transfer' and r.expires_at + make_interval(secs => $2) < now()) as ok
        from rail_payouts r
        join payouts p on p.merchant_account_number = r.merchant_account_number and p.payout_id = r.payout_id
        left join moved m on m.reference = p.transaction_reference_number::text and m.merchant_account_number = r.merchant_account_number`,
    detail: `json_build_object('merchantAccountNumber', merchant_account_number, 'payoutId', payout_id, 'transactionReferenceNumber', transaction_reference_number,
                                'rail', rail, 'phase', phase, 'statusCode', status_code, 'expiresAt', expires_at, 'sends', sends, 'settles', settles,
                                'sentMinor', sent, 'settledMinor', settled, 'owedMinor', owed)`,
  },
  {
    name: 'rail_collections',
    description:
      'each payment brought in by a rail matches its state: a committed one has its own collection (no other rail payment names it) of its merchant, ' +
      'amount (or a reconciliation exception for the difference, which rail_corrections checks once resolved) and currency, paying its timed account\'s request when it paid one; a reserved one holds its timed account (the request open, held by its ' +
      'transfer); a quoted or aborted one credited nothing and holds nothing; and no timed account is held but by a reserved rail payment',
    items: `
      select r.merchant_account_number, r.inbound_id, r.phase, r.transfer_id, r.request_id, r.amount_minor, r.collection_id,
             c.amount_minor as credited_minor, q.status_code as request_status, q.held_by_transfer,
             case r.phase
               when 'committed' then c.collection_id is not null and c.merchant_account_number = r.merchant_account_number and c.currency_code = r.currency_code
                    and c.request_id is not distinct from r.request_id
                    and (c.amount_minor = r.amount_minor or exists (select 1 from rail_exceptions x where x.merchant_account_number = r.merchant_account_number
                                                                      and x.transfer_id = r.transfer_id and x.kind = 'amount_differs'))
                    and (select count(*) from rail_collections o where o.merchant_account_number = r.merchant_account_number and o.collection_id = r.collection_id) = 1
               when 'reserved' then r.request_id is null or (q.status_code = 'O' and q.held_by_transfer = r.transfer_id)
               else r.collection_id is null and (r.transfer_id is null or q.held_by_transfer is distinct from r.transfer_id)
             end as ok
        from rail_collections r
        left join collections c on c.merchant_account_number = r.merchant_account_number and c.collection_id = r.collection_id
        left join payment_requests q on q.merchant_account_number = r.merchant_account_number and q.request_id = r.request_id
      union all
      select q.merchant_account_number, null, 'held', q.held_by_transfer, q.request_id, q.amount_minor, null, null, q.status_code, q.held_by_transfer,
             exists (select 1 from rail_collections r where r.merchant_account_number = q.merchant_account_number and r.request_id = q.request_id and r.transfer_id = q.held_by_transfer and r.phase = 'reserved')
        from payment_requests q
       where q.held_by_transfer is not null`,
    detail: `json_build_object('merchantAccountNumber', merchant_account_number, 'inboundId', inbound_id, 'phase', phase, 'transferId', transfer_id,
                                'requestId', request_id, 'amountMinor', amount_minor, 'collectionId', collection_id, 'creditedMinor', credited_minor,
                                'requestStatus', request_status, 'heldByTransfer', held_by_transfer)`,
  },
  {
    name: 'system_accounts_match_activity',
    description:
      'per merchant and currency: fees = fees of successful collections + fees of successful or reversed payouts; ' +
      'payouts_settled = amounts of successful payouts; customer_payments = minus the amounts of successful collections ' +
      '(leaving out the rails\' corrections, which rail_corrections checks against their exceptions)',
    items: `
      with ledger as (
        select e.merchant_account_number, a.currency_code,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'fees'), 0) as fees,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'payouts_settled'), 0) as settled,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'customer_payments'), 0) as customers
          from ledger_entries e join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where a.is_system and a.kind in ('fees', 'payouts_settled', 'customer_payments')
           and not exists (select 1 from ledger_transfers t where t.merchant_account_number = e.merchant_account_number and t.transfer_id = e.transfer_id and t.transfer_type = 'rail_correction')
         group by e.merchant_account_number, a.currency_code
      ), activity as (
        select merchant_account_number, currency_code, sum(fees) as fees, sum(settled) as settled, sum(customers) as customers
          from (select merchant_account_number, currency_code, fee_minor as fees, 0 as settled, -amount_minor as customers
                  from collections where status_code = 'S'
                union all
                select merchant_account_number, currency_code, fee_minor, case when status_code = 'S' then amount_minor else 0 end, 0
                  from payouts where status_code in ('S', 'R')) x
         group by merchant_account_number, currency_code
      )
      select coalesce(l.merchant_account_number, d.merchant_account_number) as merchant_account_number,
             coalesce(l.currency_code, d.currency_code) as currency_code,
             coalesce(l.fees, 0) as fees, coalesce(d.fees, 0) as expected_fees,
             coalesce(l.settled, 0) as settled, coalesce(d.settled, 0) as expected_settled,
             coalesce(l.customers, 0) as customers, coalesce(d.customers, 0) as expected_customers,
             coalesce(l.fees, 0) = coalesce(d.fees, 0) and coalesce(l.settled, 0) = coalesce(d.settled, 0)
               and coalesce(l.customers, 0) = coalesce(d.customers, 0) as ok
        from ledger l
        full join activity d on d.merchant_account_number = l.merchant_account_number and d.currency_code = l.currency_code`,
    detail: `json_build_object('merchantAccountNumber', merchant_account_number, 'currencyCode', currency_code,
                                'feesMinor', fees, 'expectedFeesMinor', expected_fees,
                                'payoutsSettledMinor', settled, 'expectedPayoutsSettledMinor', expected_settled,
                                'customerPaymentsMinor', customers, 'expectedCustomerPaymentsMinor', expected_customers)`,
  },
  {
    name: 'collection_transfers',
    description:
      "each collection has exactly one 'payment' (BAM) or 'payrequest' (RTP) transfer crediting amount − fee, and each reversed one exactly one " +
      "'reversal' taking it back (none for the others); every such transfer names a collection of its merchant",
    items: `
      with transfer as (
        select t.transfer_id, t.transfer_type, t.reference, t.merchant_account_number,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'collection' and a.merchant_account_number = t.merchant_account_number), 0) as to_collection,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'fees' and a.merchant_account_number = t.merchant_account_number), 0) as to_fees,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'customer_payments' and a.merchant_account_number = t.merchant_account_number), 0) as to_customers
          from ledger_transfers t
          left join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
          left join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where t.transfer_type in ('payment', 'payrequest', 'reversal')
         group by t.merchant_account_number, t.transfer_id, t.transfer_type, t.reference
      ), per_reference as (
        select reference,
               count(*) filter (where transfer_type = 'payment') as payments,
               count(*) filter (where transfer_type = 'payrequest') as payrequests,
               count(*) filter (where transfer_type = 'reversal') as reversals,
               min(merchant_account_number) as min_merchant, max(merchant_account_number) as max_merchant,
               sum(to_collection) filter (where transfer_type <> 'reversal') as paid_in,
               sum(to_fees) filter (where transfer_type <> 'reversal') as fee_in,
               sum(to_customers) filter (where transfer_type <> 'reversal') as customers_in,
               sum(to_collection) filter (where transfer_type = 'reversal') as paid_back,
               sum(to_fees) filter (where transfer_type = 'reversal') as fee_back,
               sum(to_customers) filter (where transfer_type = 'reversal') as customers_back
          from transfer group by reference
      )
      select coalesce(c.transaction_reference_number::text, p.reference) as reference, c.collection_id is not null as collection_exists,
             coalesce(c.merchant_account_number, p.min_merchant) as merchant_account_number, c.transaction_code, c.status_code,
             c.amount_minor, c.fee_minor, coalesce(p.payments, 0) + coalesce(p.payrequests, 0) as payment_transfers,
             coalesce(p.reversals, 0) as reversal_transfers, p.paid_in, p.paid_back,
             c.collection_id is not null
               and coalesce(p.payments, 0) = case when c.transaction_code = 'BAM' then 1 else 0 end
               and coalesce(p.payrequests, 0) = case when c.transaction_code = 'RTP' then 1 else 0 end
               and coalesce(p.reversals, 0) = case when c.status_code = 'R' then 1 else 0 end
               and p.min_merchant = c.merchant_account_number and p.max_merchant = c.merchant_account_number
               and p.paid_in = c.amount_minor - c.fee_minor and p.fee_in = c.fee_minor and p.customers_in = -c.amount_minor
               and (c.status_code <> 'R' or (p.paid_back = -(c.amount_minor - c.fee_minor) and p.fee_back = -c.fee_minor and p.customers_back = c.amount_minor)) as ok
        from collections c
        full join per_reference p on p.reference = c.transaction_reference_number::text`,
    detail: `json_build_object('transactionReferenceNumber', reference, 'collectionExists', collection_exists,
                                'merchantAccountNumber', merchant_account_number, 'transactionCode', transaction_code, 'statusCode', status_code,
                                'amountMinor', amount_minor, 'feeMinor', fee_minor,
                                'paymentTransfers', payment_transfers, 'reversalTransfers', reversal_transfers,
                                'creditedMinor', paid_in, 'takenBackMinor', paid_back)`,
  },
  {
    name: 'payout_debits',
    description:
      "each batch in status T, C or F has exactly one 'payout_debit' (reference B<batchNumber>) of the amounts + fees of its transferred lines, " +
      "a batch cancelled after its transfer (N, waiting for its scheduled date) that debit and exactly one 'payout_cancel' refunding it all, " +
      'each single payout once submitted (T, S, F, R) exactly one (reference = its transaction reference number) of amount + fee and one awaiting ' +
      'approval (P) or rejected (X) none; no other batch is debited or refunded, ' +
      'and every payout debit names a batch or single payout of its merchant',
    items: `
      with debit as (
        select t.transfer_id, t.transfer_type, t.reference, t.merchant_account_number,
               -coalesce(sum(e.amount_minor) filter (where a.kind = 'disbursement' and a.merchant_account_number = t.merchant_account_number), 0) as debited,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'payouts_in_flight' and a.merchant_account_number = t.merchant_account_number), 0) as to_in_flight
          from ledger_transfers t
          left join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
          left join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where t.transfer_type in ('payout_debit', 'payout_cancel')
         group by t.merchant_account_number, t.transfer_id, t.transfer_type, t.reference
      ), per_reference as (
        select reference, count(*) filter (where transfer_type = 'payout_debit') as debits,
               sum(debited) filter (where transfer_type = 'payout_debit') as debited,
               sum(to_in_flight) filter (where transfer_type = 'payout_debit') as to_in_flight,
               count(*) filter (where transfer_type = 'payout_cancel') as cancels,
               -sum(debited) filter (where transfer_type = 'payout_cancel') as refunded,
               -sum(to_in_flight) filter (where transfer_type = 'payout_cancel') as from_in_flight,
               min(merchant_account_number) as min_merchant, max(merchant_account_number) as max_merchant
          from debit group by reference
      ), transferred as (
        -- Lines cancelled after the transfer (C with a transfer time) were debited, then refunded.
        select batch_number, sum(amount_minor + fee_minor) as owed
          from payouts where batch_number is not null and (status_code in ('T', 'S', 'F', 'R') or (status_code = 'C' and transferred_at is not null))
         group by batch_number
      ), expected as (
        select 'B' || b.batch_number as reference, b.batch_number, null::text as transaction_reference_number, b.merchant_account_number,
               b.status_code, b.status_code in ('T', 'C', 'F') or (b.status_code = 'N' and b.date_transferred is not null) as debit_expected,
               b.status_code = 'N' and b.date_transferred is not null as cancel_expected, coalesce(l.owed, 0) as owed
          from batches b left join transferred l on l.batch_number = b.batch_number
        union all
        -- A single payout is debited when it reaches T: at capture (level 1) or at approval (levels
        -- 2 and 3). One still awaiting review or approval (P), or rejected (X), never was.
        select transaction_reference_number::text, null, transaction_reference_number::text, merchant_account_number,
               status_code, status_code not in ('P', 'X'), false, amount_minor + fee_minor
          from payouts where batch_number is null
      )
      select coalesce(x.reference, p.reference) as reference, x.batch_number, x.transaction_reference_number,
             coalesce(x.merchant_account_number, p.min_merchant) as merchant_account_number, x.status_code,
             coalesce(x.debit_expected, false) as debit_expected, case when x.debit_expected then x.owed end as owed,
             coalesce(p.debits, 0) as debits, coalesce(p.debited, 0) as debited,
             coalesce(p.cancels, 0) as cancels, coalesce(p.refunded, 0) as refunded,
             case when x.reference is null then false
                  when not x.debit_expected then coalesce(p.debits, 0) = 0 and coalesce(p.cancels, 0) = 0
                  else p.debits = 1 and p.debited = x.owed and p.to_in_flight = x.owed
                       and p.min_merchant = x.merchant_account_number and p.max_merchant = x.merchant_account_number
                       and case when x.cancel_expected then p.cancels = 1 and p.refunded = x.owed and p.from_in_flight = x.owed
                                else p.cancels = 0 end end as ok
        from expected x
        full join per_reference p on p.reference = x.reference`,
    detail: `json_build_object('reference', reference, 'batchNumber', batch_number, 'transactionReferenceNumber', transaction_reference_number,
                                'merchantAccountNumber', merchant_account_number, 'statusCode', status_code, 'debitExpected', debit_expected,
                                'expectedDebitMinor', owed, 'debits', debits, 'debitedMinor', debited, 'cancels', cancels, 'refundedMinor', refunded)`,
  },
  {
    name: 'fundings',
    description:
      "each operator funding has exactly one 'funding' transfer (reference = its transaction reference number) of its amount, " +
      'from the bank_settlement account to its merchant disbursement account, and every funding transfer has its funding',
    items: `
      with moved as (
        select t.transfer_id, t.reference, t.merchant_account_number,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'disbursement' and a.merchant_account_number = t.merchant_account_number), 0) as credited,
               -coalesce(sum(e.amount_minor) filter (where a.kind = 'bank_settlement' and a.merchant_account_number = t.merchant_account_number), 0) as from_bank
          from ledger_transfers t
          left join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
          left join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where t.transfer_type = 'funding'
         group by t.merchant_account_number, t.transfer_id, t.reference
      )
      select f.funding_id, coalesce(f.transaction_reference_number::text, m.reference) as reference,
             coalesce(f.merchant_account_number, m.merchant_account_number) as merchant_account_number,
             f.amount_minor, m.credited, m.from_bank,
             f.funding_id is not null and m.transfer_id = f.transfer_id and m.merchant_account_number = f.merchant_account_number
               and m.credited = f.amount_minor and m.from_bank = f.amount_minor as ok
        from merchant_fundings f
        full join moved m on m.transfer_id = f.transfer_id`,
    detail: `json_build_object('fundingId', funding_id, 'reference', reference, 'merchantAccountNumber', merchant_account_number,
                                'amountMinor', amount_minor, 'creditedMinor', credited, 'fromBankMinor', from_bank)`,
  },
  {
    name: 'rail_corrections',
    description:
      "each 'rail_correction' transfer belongs to exactly one rail exception resolved 'correct' (reference RX<exceptionId>, the same merchant) " +
      "and moves exactly that exception's difference (rails/reconciliation/corrections.ts), and each exception resolved 'correct' has its transfer",
    items: `
      with moved as (
        select t.transfer_id, t.reference, t.merchant_account_number,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'disbursement' and a.merchant_account_number = t.merchant_account_number), 0) as disbursement,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'collection' and a.merchant_account_number = t.merchant_account_number), 0) as collection,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'payouts_settled' and a.merchant_account_number = t.merchant_account_number), 0) as settled,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'fees' and a.merchant_account_number = t.merchant_account_number), 0) as fees,
               coalesce(sum(e.amount_minor) filter (where a.kind = 'customer_payments' and a.merchant_account_number = t.merchant_account_number), 0) as customers,
               count(*) filter (where a.kind not in ('disbursement', 'collection', 'payouts_settled', 'fees', 'customer_payments')
                                  or a.merchant_account_number <> t.merchant_account_number) as elsewhere
          from ledger_transfers t
          join ledger_entries e on e.merchant_account_number = t.merchant_account_number and e.transfer_id = t.transfer_id
          join ledger_accounts a on a.merchant_account_number = e.merchant_account_number and a.account_id = e.account_id
         where t.transfer_type = 'rail_correction'
         group by t.merchant_account_number, t.transfer_id, t.reference
      ), owed as (
        -- The same movements as corrections.ts, from the exception's amounts (theirs unknown: ours).
        select x.exception_id, x.merchant_account_number, x.kind, x.ledger_transfer_id, x.payout_id is not null as payout,
               x.ours_amount_minor as o, coalesce(x.theirs_amount_minor, x.ours_amount_minor) as th, x.theirs_amount_minor as tr, x.fee_minor as f
          from rail_exceptions x where x.resolution = 'correct'
      ), expected as (
        select exception_id, merchant_account_number, kind, ledger_transfer_id,
               case when not payout then 0 when kind = 'ours_committed_theirs_not' then o + f when kind = 'theirs_committed_ours_not' then -(th + f)
                    when kind = 'amount_differs' then -(tr - o) end as disbursement,
               case when payout then 0 when kind = 'ours_committed_theirs_not' then -(o - f) when kind = 'theirs_committed_ours_not' then th
                    when kind = 'amount_differs' then tr - o end as collection,
               case when not payout then 0 when kind = 'ours_committed_theirs_not' then -o when kind = 'theirs_committed_ours_not' then th
                    when kind = 'amount_differs' then tr - o end as settled,
               case when kind = 'ours_committed_theirs_not' then -f when kind = 'theirs_committed_ours_not' and payout then f else 0 end as fees,
               case when payout then 0 when kind = 'ours_committed_theirs_not' then o when kind = 'theirs_committed_ours_not' then -th
                    when kind = 'amount_differs' then -(tr - o) end as customers
          from owed
      )
      select x.exception_id, m.transfer_id, coalesce(x.merchant_account_number, m.merchant_account_number) as merchant_account_number,
             x.kind, m.reference, m.disbursement, m.collection, m.settled, m.fees, m.customers,
             x.disbursement as expected_disbursement, x.collection as expected_collection, x.settled as expected_settled,
             x.fees as expected_fees, x.customers as expected_customers,
             x.exception_id is not null and m.transfer_id is not null and m.merchant_account_number = x.merchant_account_number
               and m.reference = 'RX' || x.exception_id and m.elsewhere = 0
               and (m.disbursement, m.collection, m.settled, m.fees, m.customers) = (x.disbursement, x.collection, x.settled, x.fees, x.customers) as ok
        from expected x
        full join moved m on m.transfer_id = x.ledger_transfer_id`,
    detail: `json_build_object('exceptionId', exception_id, 'ledgerTransferId', transfer_id, 'merchantAccountNumber', merchant_account_number, 'kind', kind,
                                'reference', reference,
                                'movedMinor', json_build_object('disbursement', disbursement, 'collection', collection, 'payoutsSettled', settled, 'fees', fees, 'customerPayments', customers),
                                'expectedMinor', json_build_object('disbursement', expected_disbursement, 'collection', expected_collection, 'payoutsSettled', expected_settled,
                                                                   'fees', expected_fees, 'customerPayments', expected_customers))`,
  },
  {
    name: 'statement_days',
    description:
      "each merchant account's totals of closed days (ledger_account_days, up to its ledger_account_day_marks) equal its entries " +
      'grouped by UTC day: money in, money out and movements, no day missing and none beyond the mark',
    items: `
      with per_day as (
        select k.merchant_account_number, k.account_id, (e.created_at at time zone 'UTC')::date as day,
               coalesce(sum(e.amount_minor) filter (where e.amount_minor > 0), 0) as in_minor,
               coalesce(-sum(e.amount_minor) filter (where e.amount_minor < 0), 0) as out_minor, count(*) as movements
          from ledger_account_day_marks k
          join ledger_entries e on e.merchant_account_number = k.merchant_account_number and e.account_id = k.account_id and e.created_at < (k.filled_through + 1)::timestamp at time zone 'UTC'
         group by 1, 2, 3
      ),
      compared as (
        select coalesce(p.merchant_account_number, d.merchant_account_number) as merchant_account_number,
               coalesce(p.account_id, d.account_id) as account_id, coalesce(p.day, d.day) as day,
               p.day is null or d.day is null or (p.in_minor, p.out_minor, p.movements) <> (d.in_minor, d.out_minor, d.movements) as differs
          from per_day p
          full join ledger_account_days d on d.merchant_account_number = p.merchant_account_number and d.account_id = p.account_id and d.day = p.day
      )
      select k.merchant_account_number, a.kind, k.filled_through,
             count(*) filter (where c.differs) as days_differing, min(c.day) filter (where c.differs) as first_day_differing,
             count(*) filter (where c.differs) = 0 as ok
        from ledger_account_day_marks k
        join ledger_accounts a on a.merchant_account_number = k.merchant_account_number and a.account_id = k.account_id
        left join compared c on c.merchant_account_number = k.merchant_account_number and c.account_id = k.account_id
       group by k.merchant_account_number, k.account_id, a.kind, k.filled_through`,
    detail: `json_build_object('merchantAccountNumber', merchant_account_number, 'kind', kind, 'filledThrough', filled_through,
                                'daysDiffering', days_differing, 'firstDayDiffering', first_day_differing)`,
  },
];

export const CHECK_NAMES = CHECKS.map((c) => c.name);

export interface VerifyOptions {
  /** Offending items shown per check (default 20). */
  exampleLimit?: number;
  /** Per statement; on millions of entries a check takes seconds (default 10 minutes). */
  statementTimeoutMs?: number;
  /** A rail's transfer still unanswered this long past its expiration fails rail_payouts (default 3600: MOJALOOP_IN_FLIGHT_BOUND_SECONDS). */
  railInFlightBoundSeconds?: number;
}

/**
 * Runs every check in one read-only snapshot and reports each with its counts and examples.
 * `db`: a pool (a connection is taken for the duration) or a connected client not in a transaction.
 */
export async function verifyLedger(db: pg.Pool | pg.ClientBase, options: VerifyOptions = {}): Promise<LedgerReport> {
  const exampleLimit = options.exampleLimit ?? 20;
  const started = Date.now();
  const checkedAt = new Date().toISOString();
  const client = db instanceof pg.Pool ? await db.connect() : db;
  try {
    await client.query(db instanceof pg.Pool ? beginSql(db, 'begin isolation level repeatable read read only') : 'begin isolation level repeatable read read only');
    try {
      await client.query(`select set_config('statement_timeout', $1, true), set_config('work_mem', '128MB', true)`, [String(options.statementTimeoutMs ?? 600_000)]);
      const checks: CheckResult[] = [];
      for (const check of CHECKS) {
        const checkStarted = Date.now();
        const { rows } = await client.query<{ checked: string; failed: string; examples: Record<string, unknown>[] }>(
          // items is read twice, so PostgreSQL computes it once (a materialised CTE).
          `with items as (${check.items})
           select count(*) as checked, count(*) filter (where not coalesce(ok, false)) as failed,
                  coalesce((select json_agg(${check.detail}) from (select * from items where not coalesce(ok, false) limit $1) x), '[]'::json) as examples
             from items`,
          check.items.includes('$2') ? [exampleLimit, options.railInFlightBoundSeconds ?? 3600] : [exampleLimit],
        );
        const checked = Number(rows[0].checked);
        const failed = Number(rows[0].failed);
        checks.push({ name: check.name, description: check.description, checked, passed: checked - failed, failed, examples: rows[0].examples, durationMs: Date.now() - checkStarted });
      }
      await client.query('commit');
      return { ok: checks.every((c) => c.failed === 0), checkedAt, durationMs: Date.now() - started, checks };
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    }
  } finally {
    if (db instanceof pg.Pool) (client as pg.PoolClient).release();
  }
}

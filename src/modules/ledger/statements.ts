// Statements: the merchant's ledger movements over a period of UTC days (inclusive), per account
// (collection, disbursement, and "account", the two together as GET /merchants/accounts/get's
// accountBalance): opening balance, money in, money out, closing balance; the movements page by page
// for the screen, and all of them as a CSV download streamed by PostgreSQL's COPY.
//
// Balances come from the ledger itself: an account's balance at an instant is its running balance
// now (ledger_accounts.balance_minor, which ledger_post keeps equal to the sum of its entries) less
// the entries made since (ledger_sums_after: the days ledger_account_days holds, and the entries of
// the rest). Read in one statement, so in one snapshot: closing − opening is exactly money in −
// money out, and the CSV's running balances end at the closing balance.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { to as copyTo, type CopyToStreamQuery } from 'pg-copy-streams';
import type { Db, Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { MAX_RANGE_DAYS } from '../analytics/service.ts';
import { checkDay, decodeCursor, keysetTime, listScope, pageOf, pageRows, type Page } from '../../http/keyset-pages.ts';

export type StatementAccount = 'account' | 'collection' | 'disbursement';

export interface AccountStatement {
  account: StatementAccount;
  openingMinor: number;
  inMinor: number;
  outMinor: number;
  closingMinor: number;
  /** Ledger entries in the period. */
  movements: number;
}

export interface StatementSummary {
  fromDate: string;
  toDate: string;
  currencyCode: string;
  /** account, collection, disbursement. */
  accounts: AccountStatement[];
}

const DAY_MS = 86_400_000;

/** Both days given, valid, in order, at most MAX_RANGE_DAYS apart (400 otherwise). */
function checkPeriod(fromDate: string, toDate: string): { fromDate: string; toDate: string } {
  const from = checkDay('fromDate', fromDate);
  const to = checkDay('toDate', toDate);
  if (from === undefined || to === undefined) {
    throw new AppError('validation', 'detail.valueInvalid', { field: from === undefined ? 'fromDate' : 'toDate', value: '' });
  }
  if (from > to) throw new AppError('validation', 'detail.rangeReversed', { fromDate: from, toDate: to });
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) throw new AppError('validation', 'detail.rangeTooLong', { days, max: MAX_RANGE_DAYS });
  return { fromDate: from, toDate: to };
}

/**
 * The merchant's own ledger accounts in its currency (a merchant has exactly these two; system
 * accounts have no merchant). `$1` is the merchant; the CTE is named `accounts`.
 */
const ACCOUNTS = `accounts as (
    select a.account_id, a.kind, a.balance_minor
      from ledger_accounts a join merchants m on m.merchant_account_number = a.merchant_account_number and m.currency_code = a.currency_code
     where a.merchant_account_number = $1 and a.kind in ('collection', 'disbursement')
  )`;

/** The period's bounds as instants: [from 00:00 UTC, the day after to 00:00 UTC). */
const PERIOD_START = `($2::date)::timestamp at time zone 'UTC'`;
const PERIOD_END = `($3::date + 1)::timestamp at time zone 'UTC'`;

/**
 * Opening and closing balance, money in and out, per account. Sums from the period's start on:
 * whole closed days from ledger_account_days, and the rest from the index ledger_entries
 * (account_id, created_at, entry_id) including the amount (migrations 0016 and 0022), so neither a
 * long period nor a long history reads every entry. Undefined for an unknown merchant.
 */
export async function statementSummary(db: Queryable, merchantAccountNumber: number, fromDate: string, toDate: string): Promise<StatementSummary | undefined> {
  const period = checkPeriod(fromDate, toDate);
  // Per account, what was posted from the period's start on, less what was posted after its end
  // (ledger_sums_after, migration 0022: closed days from ledger_account_days, the rest from the
  // entries); what was posted after the end also steps back from today's balance to the closing one.
  const { rows } = await db.query<{ kind: 'collection' | 'disbursement'; currency_code: string; balance_minor: number; in_minor: number; out_minor: number; movements: number; since_end: number }>(
    `with ${ACCOUNTS}
     select a.kind, m.currency_code, a.balance_minor, (s.in_minor - x.in_minor)::bigint as in_minor, (s.out_minor - x.out_minor)::bigint as out_minor,
            (s.movements - x.movements)::bigint as movements, (x.in_minor - x.out_minor)::bigint as since_end
       from accounts a
       join merchants m on m.merchant_account_number = $1
      cross join lateral ledger_sums_after($1, a.account_id, ${PERIOD_START}, 0) s
      cross join lateral ledger_sums_after($1, a.account_id, ${PERIOD_END}, 0) x
      order by a.kind`,
    [merchantAccountNumber, period.fromDate, period.toDate],
  );
  if (rows.length === 0) return undefined;
  const perAccount = rows.map((r) => {
    const closingMinor = r.balance_minor - r.since_end;
    return { account: r.kind, openingMinor: closingMinor - (r.in_minor - r.out_minor), inMinor: r.in_minor, outMinor: r.out_minor, closingMinor, movements: r.movements };
  });
  const sum = (f: (a: AccountStatement) => number) => perAccount.reduce((acc, a) => acc + f(a), 0);
  const combined: AccountStatement = {
    account: 'account',
    openingMinor: sum((a) => a.openingMinor),
    inMinor: sum((a) => a.inMinor),
    outMinor: sum((a) => a.outMinor),
    closingMinor: sum((a) => a.closingMinor),
    movements: sum((a) => a.movements),
  };
  return { ...period, currencyCode: rows[0].currency_code, accounts: [combined, ...perAccount] };
}

// ---------------------------------------------------------------------------------------------
// Movements

export interface StatementLine {
  entryId: number;
  date: Date;
  /** The transfer's reference: a collection's or payout's transaction reference, B<batch> for a batch's debit, … */
  reference: string;
  /** payment, payrequest, reversal, topup, funding, payout_debit, payout_cancel, payout_settle (failed payouts refunded), payout_reversal. */
  transferType: string;
  account: 'collection' | 'disbursement';
  /** Positive: money in. */
  amountMinor: number;
  /** The account's balance after this movement. */
  balanceMinor: number;
  /** What the person who caused it wrote: a reversal's reason, a funding's bank reference. */
  note: string | null;
}

/** A transfer's note: only text a person typed that the reference does not already say. */
const NOTE = `case t.transfer_type when 'reversal' then t.metadata->>'reason' when 'funding' then t.metadata->>'bankReference' end`;

/**
 * The period's movements, oldest first ((created_at, entry_id): a total order), keyset paged, each
 * with its account's balance after it. The balance before the page is the account's balance now
 * less what was posted after the cursor: never more to read than the summary's opening balance.
 */
export async function statementLines(
  db: Queryable,
  merchantAccountNumber: number,
  fromDate: string,
  toDate: string,
  options: { after?: string; limit?: number } = {},
): Promise<Page<StatementLine>> {
  const period = checkPeriod(fromDate, toDate);
  const limit = pageRows(options.limit);
  const scope = listScope('statementLines', merchantAccountNumber, period);
  const after = decodeCursor(options.after, scope, ['time', 'int']);
  // The page starts after this key: the cursor's, or (the period's start, entry 0), which is
  // before every entry of the period (entry ids start at 1).
  const [afterTime, afterEntry] = after ?? [`${period.fromDate}T00:00:00.000000Z`, 0];
  const { rows } = await db.query<StatementLine & { date_key: string }>(
    `with ${ACCOUNTS},
     -- Materialised: each account's balance just before the page, computed once (not per row).
     before as materialized (
       select a.account_id, a.kind, (a.balance_minor - (later.in_minor - later.out_minor))::bigint as balance_minor
         from accounts a
        cross join lateral ledger_sums_after($1, a.account_id, $3::timestamptz, $4::bigint) later
     ),
     page as (
       select x.* from before b
        cross join lateral (
          select e.entry_id, e.created_at, e.transfer_id, e.amount_minor, b.account_id
            from ledger_entries e
           where e.account_id = b.account_id and (e.created_at, e.entry_id) > ($3::timestamptz, $4::bigint) and e.created_at < ($2::date + 1)::timestamp at time zone 'UTC'
           order by e.created_at, e.entry_id
           limit $5
        ) x
        order by x.created_at, x.entry_id
        limit $5
     )
     select p.entry_id as "entryId", p.created_at as date, ${keysetTime('p.created_at')} as date_key, t.reference, t.transfer_type as "transferType",
            b.kind as account, p.amount_minor as "amountMinor",
            (b.balance_minor + sum(p.amount_minor) over (partition by p.account_id order by p.created_at, p.entry_id rows between unbounded preceding and current row))::bigint as "balanceMinor",
            ${NOTE} as note
       from page p
       join before b on b.account_id = p.account_id
       join ledger_transfers t on t.transfer_id = p.transfer_id
      order by p.created_at, p.entry_id`,
    [merchantAccountNumber, period.toDate, afterTime, afterEntry, limit + 1],
  );
  return pageOf(rows, limit, scope, (r) => [r.date_key, r.entryId], ({ date_key: _key, ...line }) => line);
}

// ---------------------------------------------------------------------------------------------
// CSV

/** The CSV's columns, in order (the header row). */
export const CSV_COLUMNS = ['date', 'reference', 'type', 'account', 'amount', 'balance', 'note'] as const;

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, and tab or carriage return before one)
 * gets a leading single quote (OWASP, CSV injection). Only text cells need it: amount and balance
 * are numbers the database formats (-?digits.dd), which every spreadsheet reads as numbers, and
 * quoting them would turn them into text that no longer sums.
 */
function guarded(expression: string): string {
  return `case when (${expression}) ~ '^[-=+@\\t\\r]' then '''' || (${expression}) else (${expression}) end`;
}

/** Minor units → major with 2 decimals ("-150.00"), exactly (numeric, never a float). */
const major = (expression: string) => `((${expression})::numeric / 100)::numeric(20, 2)`;

/** The longest a statement export may run (the pool's 30 s statement timeout is for requests). */
const EXPORT_TIMEOUT = '10min';

interface ExportAccount {
  account_id: number;
  kind: 'collection' | 'disbursement';
}

/** An account's movements in the period, in key order, each with the account's balance after it. */
function accountMoves(merchantAccountNumber: number, a: ExportAccount, fromDate: string, toDate: string): string {
  const id = Number(a.account_id);
  const start = `('${fromDate}'::date)::timestamp at time zone 'UTC'`;
  const end = `('${toDate}'::date + 1)::timestamp at time zone 'UTC'`;
  // The opening balance: two uncorrelated subqueries, so PostgreSQL computes them once (InitPlans).
  return `(select e.entry_id, e.created_at, e.transfer_id, e.amount_minor, '${a.kind}'::text as kind,
          (select balance_minor from ledger_accounts where account_id = ${id})
            - (select in_minor - out_minor from ledger_sums_after(${merchantAccountNumber}, ${id}, ${start}, 0))
            + sum(e.amount_minor) over (order by e.created_at, e.entry_id rows between unbounded preceding and current row) as balance_minor
     from ledger_entries e
    where e.account_id = ${id} and e.created_at >= ${start} and e.created_at < ${end}
    order by e.created_at, e.entry_id)`;
}

/**
 * One COPY query. Each account's movements come in index order with their running balance (a window
 * over rows already in order: no sort), the accounts are merged by time (Merge Append), and each
 * line's transfer is looked up by its key as it passes (a LIMIT keeps it a nested loop, which keeps
 * the order): the first line leaves at once and nothing is sorted or spilled to disk, whatever the
 * number of lines. COPY takes no parameters: every inlined value is checked (the merchant's number,
 * account ids and kinds read from the database, two YYYY-MM-DD days).
 */
function csvQuery(merchantAccountNumber: number, accounts: ExportAccount[], fromDate: string, toDate: string): string {
  const columns = `to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as date,
            ${guarded('t.reference')} as reference, ${guarded('t.transfer_type')} as type, m.kind as account,
            ${major('m.amount_minor')} as amount, ${major('m.balance_minor')} as balance, ${guarded(NOTE)} as note`;
  if (accounts.length === 0) {
    return `select ${columns} from (select null::timestamptz as created_at, null::text as kind, 0::bigint as amount_minor, 0::bigint as balance_minor) m,
            (select null::text as reference, null::text as transfer_type, null::jsonb as metadata) t where false`;
  }
  return `select ${columns}
       from (${accounts.map((a) => accountMoves(merchantAccountNumber, a, fromDate, toDate)).join(' union all ')} order by created_at, entry_id) m
      cross join lateral (select t.reference, t.transfer_type, t.metadata from ledger_transfers t where t.transfer_id = m.transfer_id limit 1) t
      order by m.created_at, m.entry_id`;
}

/**
 * The period's movements as CSV (header row; CSV_COLUMNS; amounts in major units with 2 decimals;
 * the running balance of each movement's account), produced by PostgreSQL (COPY … TO STDOUT) and
 * streamed with backpressure: memory stays flat whatever the number of lines, on both sides. The
 * export holds one pooled connection, in a read-only transaction, until the stream ends; if the
 * reader goes away (the stream is destroyed), the connection is closed rather than returned, which
 * also ends the query on the server. Bad dates throw here, before anything is streamed.
 */
export function streamStatementCsv(db: Db, merchantAccountNumber: number, fromDate: string, toDate: string): Readable {
  const period = checkPeriod(fromDate, toDate);
  if (!Number.isSafeInteger(merchantAccountNumber) || merchantAccountNumber < 1) throw new AppError('validation', 'detail.valueInvalid', { field: 'merchantAccountNumber', value: merchantAccountNumber });
  const out = new PassThrough();
  void (async () => {
    let client: PoolClient;
    try {
      client = await db.connect();
    } catch (err) {
      out.destroy(err as Error);
      return;
    }
    let released = false;
    // With an error the pool closes the connection instead of reusing it (it may be mid-COPY).
    const release = (err?: Error) => {
      if (released) return;
      released = true;
      client.release(err ?? undefined);
    };
    let copy: CopyToStreamQuery;
    try {
      // JIT compiling would only delay the first line: the per-line work is small.
      await client.query(`begin read only; set local statement_timeout = '${EXPORT_TIMEOUT}'; set local jit = off`);
      const { rows: accounts } = await client.query<ExportAccount>(`with ${ACCOUNTS} select account_id, kind from accounts order by kind`, [merchantAccountNumber]);
      copy = client.query(copyTo(`copy (${csvQuery(merchantAccountNumber, accounts, period.fromDate, period.toDate)}) to stdout with (format csv, header)`));
    } catch (err) {
      release(err as Error);
      out.destroy(err as Error);
      return;
    }
    pipeline(copy, out, (err) => {
      if (err) {
        release(err);
        return;
      }
      client.query('commit').then(
        () => release(),
        (commitErr: Error) => release(commitErr),
      );
    });
  })();
  return out;
}

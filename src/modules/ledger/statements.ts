// Statements: the merchant's ledger movements over a period of UTC days (inclusive), per account
// (collection, disbursement, and "account", the two together as GET /merchants/accounts/get's
// accountBalance): opening balance, money in, money out, closing balance. Then the statement a
// bookkeeper reconciles, both accounts together: its lines (statement-lines.ts: one per movement,
// each payee of a batch and each fee on a line of its own) page by page for the screen with their
// totals, and all of them between an opening and a closing balance row as a CSV download streamed
// by PostgreSQL's COPY, or as rows for any other exporter (statementRows).
//
// Balances come from the ledger itself: an account's balance at an instant is its running balance
// now (ledger_accounts.balance_minor, which ledger_post keeps equal to the sum of its entries) less
// the entries made since (ledger_sums_after: the days ledger_account_days holds, and the entries of
// the rest). Both are read together in one statement, so in one snapshot, of its own
// (ledgerBalancesAt: migration 0037's ledger_balances_at): on Citus a function that reads distributed
// tables may not run inside a statement pushed down to a worker, which every query here pinned to the
// merchant is. The figures are added to the lines' sums in TypeScript, or go into the export's query
// as literals; the export reads them in its repeatable-read transaction, so its running balances
// still end at the closing balance.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import { to as copyTo, type CopyToStreamQuery } from 'pg-copy-streams';
import type { Db, Queryable } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { MAX_RANGE_DAYS } from '../analytics/service.ts';
import { checkDay, decodeCursor, keysetTime, listScope, pageOf, pageRows, type Page } from '../../http/keyset-pages.ts';
import { columnsSql, entryLines, FEE_LINE_TYPES, sqlText, type StatementLineType } from './statement-lines.ts';

export { STATEMENT_COLUMNS, STATEMENT_LINE_TYPES, type StatementColumnKey, type StatementLineType } from './statement-lines.ts';

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

/** The first instant of a UTC day, and of the day after it (ISO texts). */
const dayStart = (day: string): string => `${day}T00:00:00Z`;
const dayAfter = (day: string): string => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();

interface AccountAt {
  account_id: number;
  kind: 'collection' | 'disbursement';
  currency_code: string;
  balance_minor: number;
  /** Per instant asked, in order: what was posted after it (ledger_sums_after). */
  after: Array<{ in_minor: number; out_minor: number; movements: number }>;
}

/**
 * The merchant's own accounts (collection, disbursement, in that order), each with its balance now
 * and, per instant (`at`, after the entry `entry` there: 0 for the instant's start), what was posted
 * after it; balance − (in − out) is the balance just before. One statement, one snapshot, that names
 * no distributed table (migration 0037): on Citus it runs on the coordinator, each query inside it
 * pinned to the merchant. Empty for an unknown merchant.
 */
async function ledgerBalancesAt(db: Queryable, merchantAccountNumber: number, instants: Array<{ at: string; entry: number }>): Promise<AccountAt[]> {
  const { rows } = await db.query<{ n: number; account_id: number; kind: 'collection' | 'disbursement'; currency_code: string; balance_minor: number; in_minor: number; out_minor: number; movements: number }>(
    'select n, account_id, kind, currency_code, balance_minor, in_minor, out_minor, movements from ledger_balances_at($1, $2::timestamptz[], $3::bigint[])',
    [merchantAccountNumber, instants.map((i) => i.at), instants.map((i) => i.entry)],
  );
  const accounts = new Map<number, AccountAt>();
  for (const r of rows) {
    let a = accounts.get(r.account_id);
    if (!a) accounts.set(r.account_id, (a = { account_id: r.account_id, kind: r.kind, currency_code: r.currency_code, balance_minor: r.balance_minor, after: [] }));
    a.after[r.n - 1] = { in_minor: r.in_minor, out_minor: r.out_minor, movements: r.movements };
  }
  return [...accounts.values()];
}

/** An account's balance just before the i-th instant asked. */
const balanceBefore = (a: AccountAt, i: number): number => a.balance_minor - (a.after[i].in_minor - a.after[i].out_minor);

/** A number read from the database, as an SQL literal (checked: it goes into SQL text). */
function bigintLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer: ${value}`);
  return `${value}::bigint`;
}

/**
 * Opening and closing balance, money in and out, per account. Sums from the period's start on:
 * whole closed days from ledger_account_days, and the rest from the index ledger_entries
 * (account_id, created_at, entry_id) including the amount (migrations 0016 and 0022), so neither a
 * long period nor a long history reads every entry. Undefined for an unknown merchant.
 */
export async function statementSummary(db: Queryable, merchantAccountNumber: number, fromDate: string, toDate: string): Promise<StatementSummary | undefined> {
  const period = checkPeriod(fromDate, toDate);
  // Per account, what was posted from the period's start on, less what was posted after its end;
  // what was posted after the end also steps back from today's balance to the closing one.
  const accounts = await ledgerBalancesAt(db, merchantAccountNumber, [
    { at: dayStart(period.fromDate), entry: 0 },
    { at: dayAfter(period.toDate), entry: 0 },
  ]);
  if (accounts.length === 0) return undefined;
  const perAccount = accounts.map((a): AccountStatement => {
    const [s, x] = a.after;
    const inMinor = s.in_minor - x.in_minor;
    const outMinor = s.out_minor - x.out_minor;
    const closingMinor = a.balance_minor - (x.in_minor - x.out_minor);
    return { account: a.kind, openingMinor: closingMinor - (inMinor - outMinor), inMinor, outMinor, closingMinor, movements: s.movements - x.movements };
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
  return { ...period, currencyCode: accounts[0].currency_code, accounts: [combined, ...perAccount] };
}

// ---------------------------------------------------------------------------------------------
// Lines (statement-lines.ts: an entry split into the movements it is made of)

export interface StatementLine {
  entryId: number;
  /** The line's place among its entry's lines (statement-lines.ts). */
  seq: number;
  date: Date;
  type: StatementLineType;
  /** The ledger transfer's type: payment, payrequest, reversal, topup, funding, payout_debit, payout_cancel, payout_settle, payout_reversal, rail_settle, rail_correction. */
  transferType: string;
  account: 'collection' | 'disbursement';
  /** The payer (a collection's) or payee (a payout's) name and account, where the records have one. */
  counterparty: string | null;
  counterpartyAccount: string | null;
  /** The transfer's reference: B<batch> for a batch, a collection's or single payout's transaction reference, … */
  reference: string;
  /** The collection's or payout's own transaction reference, and the merchant's (or payer's) source reference. */
  transactionReference: string | null;
  sourceReference: string | null;
  /** What a person typed: a reversal's reason, a funding's bank reference, a payout's description. */
  note: string | null;
  /** Positive: money in. */
  amountMinor: number;
  /** The merchant's balance (both accounts together) after this line. */
  balanceMinor: number;
  /** The balance of the line's own account after it. */
  accountBalanceMinor: number;
}

/** A line's select list over an entry `e` (with balance_after, account_balance_after), its transfer `t` and its line `d`. */
const LINE_FIELDS = `e.entry_id as "entryId", d.seq, e.created_at as date, d.type_code as type, t.transfer_type as "transferType", e.kind as account,
            d.counterparty, d.counterparty_account as "counterpartyAccount", t.reference, d.transaction_reference as "transactionReference",
            d.source_reference as "sourceReference", d.note, d.amount_minor as "amountMinor",
            (e.balance_after - e.amount_minor + d.within_minor)::bigint as "balanceMinor",
            (e.account_balance_after - e.amount_minor + d.within_minor)::bigint as "accountBalanceMinor"`;

/**
 * The period's lines, oldest first ((created_at, entry_id, seq): a total order), keyset paged, each
 * with the merchant's balance and its account's after it. The balances before the page are the
 * accounts' balances now less what was posted from the cursor's entry on (never more to read than
 * the summary's opening balance); a page may start inside an entry (a batch of many payouts): that
 * entry's lines up to the cursor are read again, to carry the balance, and not shown.
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
  const after = decodeCursor(options.after, scope, ['time', 'int', 'int']);
  // The page starts after this key: the cursor's, or (the period's start, entry 0, seq −1), which is
  // before every line of the period (entry ids start at 1, seqs at 0).
  const [afterTime, afterEntry, afterSeq] = after ?? [`${period.fromDate}T00:00:00.000000Z`, 0, -1];
  // The lines come with balances relative to the page's start; each account's balance just before
  // the cursor's entry (ledgerBalancesAt, a statement of its own, run alongside) is added here.
  const [accounts, { rows }] = await Promise.all([
    ledgerBalancesAt(db, merchantAccountNumber, [{ at: String(afterTime), entry: Number(afterEntry) - 1 }]),
    db.query<StatementLine & { date_key: string }>(
    `with ${ACCOUNTS},
     -- Enough entries for the page: each has at least one line, and the cursor's may have none left.
     entries as materialized (
       select x.* from accounts b
        cross join lateral (
          select e.entry_id, e.created_at, e.transfer_id, e.amount_minor, b.account_id, b.kind
            from ledger_entries e
           where e.merchant_account_number = $1 and e.account_id = b.account_id and (e.created_at, e.entry_id) >= ($3::timestamptz, $4::bigint) and e.created_at < ($2::date + 1)::timestamp at time zone 'UTC'
           order by e.created_at, e.entry_id
           limit $5
        ) x
        order by x.created_at, x.entry_id
        limit $5
     ),
     balanced as (
       select x.*,
              sum(x.amount_minor) over (order by x.created_at, x.entry_id rows between unbounded preceding and current row) as balance_after,
              sum(x.amount_minor) over (partition by x.account_id order by x.created_at, x.entry_id rows between unbounded preceding and current row) as account_balance_after
         from entries x
     )
     select ${LINE_FIELDS}, ${keysetTime('e.created_at')} as date_key
       from balanced e
       join ledger_transfers t on t.merchant_account_number = $1 and t.transfer_id = e.transfer_id
      cross join lateral ${entryLines('$1')} d
      where (e.created_at, e.entry_id, d.seq) > ($3::timestamptz, $4::bigint, $6::bigint)
      order by e.created_at, e.entry_id, d.seq
      limit $7`,
    [merchantAccountNumber, period.toDate, afterTime, afterEntry, limit + 2, afterSeq, limit + 1],
    ),
  ]);
  const before = new Map(accounts.map((a) => [a.kind as string, balanceBefore(a, 0)]));
  const total = [...before.values()].reduce((sum, b) => sum + b, 0);
  return pageOf(rows, limit, scope, (r) => [r.date_key, r.entryId, r.seq], ({ date_key: _key, ...line }) => ({
    ...line,
    balanceMinor: total + line.balanceMinor,
    accountBalanceMinor: (before.get(line.account) ?? 0) + line.accountBalanceMinor,
  }));
}

export interface StatementTotals {
  openingMinor: number;
  /** Money in and out, fees apart (positive figures). */
  inMinor: number;
  outMinor: number;
  /** Fees charged less fees refunded. closing = opening + in − out − fees. */
  feesMinor: number;
  closingMinor: number;
  lines: number;
}

/** The period's statement totals over its lines, both accounts together, in one snapshot. */
export async function statementTotals(db: Queryable, merchantAccountNumber: number, fromDate: string, toDate: string): Promise<StatementTotals> {
  const period = checkPeriod(fromDate, toDate);
  const fees = FEE_LINE_TYPES.map(sqlText).join(', ');
  // The opening balance: a statement of its own (ledgerBalancesAt), run alongside.
  const [accounts, { rows }] = await Promise.all([
    ledgerBalancesAt(db, merchantAccountNumber, [{ at: dayStart(period.fromDate), entry: 0 }]),
    db.query<Omit<StatementTotals, 'openingMinor' | 'closingMinor'>>(
    `with ${ACCOUNTS}
     select coalesce(sum(d.amount_minor) filter (where d.type_code not in (${fees}) and d.amount_minor > 0), 0)::bigint as "inMinor",
            coalesce(-sum(d.amount_minor) filter (where d.type_code not in (${fees}) and d.amount_minor < 0), 0)::bigint as "outMinor",
            coalesce(-sum(d.amount_minor) filter (where d.type_code in (${fees})), 0)::bigint as "feesMinor",
            count(d.seq)::bigint as lines
       from accounts a
       join ledger_entries e on e.merchant_account_number = $1 and e.account_id = a.account_id and e.created_at >= ${PERIOD_START} and e.created_at < ${PERIOD_END}
       join ledger_transfers t on t.merchant_account_number = $1 and t.transfer_id = e.transfer_id
      cross join lateral ${entryLines('$1')} d`,
    [merchantAccountNumber, period.fromDate, period.toDate],
    ),
  ]);
  // The closing balance is the opening plus the period's lines, read in the lines' own snapshot:
  // the two statements run apart, and a posting landing between them must not break
  // closing = opening + in − out − fees on the page. (The ledger makes them equal when nothing
  // moves: test/console/statements/reconcile.test.ts.)
  const openingMinor = accounts.reduce((sum, a) => sum + balanceBefore(a, 0), 0);
  const totals = rows[0];
  return { openingMinor, closingMinor: openingMinor + Number(totals.inMinor) - Number(totals.outMinor) - Number(totals.feesMinor), ...totals };
}

// ---------------------------------------------------------------------------------------------
// The download: CSV (COPY) and rows (a cursor), one query

/** The longest a statement export may run (the pool's 30 s statement timeout is for requests). */
const EXPORT_TIMEOUT = '10min';

/** How the download names the line types (the console's texts, in the reader's language); a type without a name shows its code. */
export type StatementTypeNames = Partial<Record<StatementLineType, string>>;

interface ExportAccount {
  account_id: number;
  kind: 'collection' | 'disbursement';
  /** Its balance at the period's start and end, read first in the export's snapshot. */
  opening_minor: number;
  closing_minor: number;
}

/** The accounts' balance at the period's start or end, as an SQL literal. */
function balanceAt(accounts: ExportAccount[], at: 'start' | 'end'): string {
  return bigintLiteral(accounts.reduce((sum, a) => sum + (at === 'start' ? a.opening_minor : a.closing_minor), 0));
}

/** An account's entries in the period in index order, with its balance after each (a window over rows already in order: no sort). */
function accountEntries(merchantAccountNumber: number, a: ExportAccount, start: string, end: string): string {
  const id = Number(a.account_id);
  return `(select e.entry_id, e.created_at, e.transfer_id, e.amount_minor, '${a.kind}'::text as kind,
          ${balanceAt([a], 'start')} + sum(e.amount_minor) over (order by e.created_at, e.entry_id rows between unbounded preceding and current row) as account_balance_after
     from ledger_entries e
    where e.merchant_account_number = ${merchantAccountNumber} and e.account_id = ${id} and e.created_at >= ${start} and e.created_at < ${end}
    order by e.created_at, e.entry_id)`;
}

/**
 * One query: the opening row, the lines, the closing row (UNION ALL of three parts, read in order:
 * the export runs without parallel workers). Each account's entries come in index order, the
 * accounts are merged by time (Merge Append), the merchant's balance runs over the merged entries
 * (already in order: no sort), each entry's transfer is looked up by its key as it passes (a LIMIT
 * keeps it a nested loop, which keeps the order) and split into its lines (statement-lines.ts):
 * the first line leaves at once, and only one entry's lines are ever sorted. COPY takes no
 * parameters: every inlined value is checked (the merchant's number, account ids and kinds read
 * from the database, two YYYY-MM-DD days, the type names as quoted literals).
 */
function exportQuery(merchantAccountNumber: number, accounts: ExportAccount[], fromDate: string, toDate: string, names: StatementTypeNames, form: 'csv' | 'values'): string {
  const start = `('${fromDate}'::date)::timestamp at time zone 'UTC'`;
  const end = `('${toDate}'::date + 1)::timestamp at time zone 'UTC'`;
  const name = (code: string) => `coalesce((${sqlText(JSON.stringify(names))}::jsonb ->> ${code}), ${code})`;
  const edge = (code: 'opening_balance' | 'closing_balance', at: string, balance: string) =>
    `select ${columnsSql(form)} from (select ${at} as created_at, '${code}'::text as type_code, ${name(`'${code}'`)} as type_name, null::text as transfer_type, null::text as account,
            null::text as counterparty, null::text as counterparty_account, null::text as reference, null::text as transaction_reference, null::text as source_reference,
            null::text as note, null::bigint as amount_minor, ${balance} as balance_minor, null::bigint as account_balance_minor) l`;
  const lines =
    accounts.length === 0
      ? `select ${columnsSql(form)} from (select null::timestamptz as created_at, null::text as type_code, null::text as type_name, null::text as transfer_type, null::text as account,
            null::text as counterparty, null::text as counterparty_account, null::text as reference, null::text as transaction_reference, null::text as source_reference,
            null::text as note, null::bigint as amount_minor, null::bigint as balance_minor, null::bigint as account_balance_minor) l where false`
      : `select ${columnsSql(form)} from (
         select e.created_at, d.type_code, ${name('d.type_code')} as type_name, t.transfer_type, e.kind as account, d.counterparty, d.counterparty_account, t.reference,
                d.transaction_reference, d.source_reference, d.note, d.amount_minor,
                e.balance_after - e.amount_minor + d.within_minor as balance_minor, e.account_balance_after - e.amount_minor + d.within_minor as account_balance_minor,
                e.entry_id, d.seq
           from (select m.*, ${balanceAt(accounts, 'start')} + sum(m.amount_minor) over (order by m.created_at, m.entry_id rows between unbounded preceding and current row) as balance_after
                   from (${accounts.map((a) => accountEntries(merchantAccountNumber, a, start, end)).join(' union all ')} order by created_at, entry_id) m) e
          cross join lateral (select t.reference, t.transfer_type, t.metadata, t.created_at from ledger_transfers t where t.merchant_account_number = ${merchantAccountNumber} and t.transfer_id = e.transfer_id limit 1) t
          cross join lateral ${entryLines(String(merchantAccountNumber))} d
          order by e.created_at, e.entry_id, d.seq) l`;
  return `${edge('opening_balance', start, balanceAt(accounts, 'start'))}\n union all\n (${lines})\n union all\n ${edge('closing_balance', end, balanceAt(accounts, 'end'))}`;
}

/**
 * A read-only export on its own pooled connection; the merchant's accounts and their balances at
 * the period's start and end read first (ledgerBalancesAt), in the transaction's one snapshot
 * (repeatable read), which the export's query then sees too: its running balances end at the closing balance.
 */
async function beginExport(client: PoolClient, merchantAccountNumber: number, period: { fromDate: string; toDate: string }): Promise<ExportAccount[]> {
  // JIT compiling would only delay the first line: the per-line work is small. No parallel workers:
  // the opening row, the lines and the closing row come out in the order the query appends them.
  await client.query(`begin isolation level repeatable read read only; set local statement_timeout = '${EXPORT_TIMEOUT}'; set local jit = off; set local max_parallel_workers_per_gather = 0`);
  const accounts = await ledgerBalancesAt(client, merchantAccountNumber, [
    { at: dayStart(period.fromDate), entry: 0 },
    { at: dayAfter(period.toDate), entry: 0 },
  ]);
  return accounts.map((a) => ({ account_id: a.account_id, kind: a.kind, opening_minor: balanceBefore(a, 0), closing_minor: balanceBefore(a, 1) }));
}

function checkMerchant(merchantAccountNumber: number): void {
  if (!Number.isSafeInteger(merchantAccountNumber) || merchantAccountNumber < 1) throw new AppError('validation', 'detail.valueInvalid', { field: 'merchantAccountNumber', value: merchantAccountNumber });
}

/**
 * The period as CSV (header row of STATEMENT_COLUMNS' keys; an opening balance row, the lines, a
 * closing balance row; money in major units with 2 decimals), produced by PostgreSQL (COPY … TO
 * STDOUT) and streamed with backpressure: memory stays flat whatever the number of lines, on both
 * sides. The export holds one pooled connection, in a read-only transaction, until the stream
 * ends; if the reader goes away (the stream is destroyed), the connection is closed rather than
 * returned, which also ends the query on the server. Bad dates throw here, before anything is streamed.
 */
export function streamStatementCsv(db: Db, merchantAccountNumber: number, fromDate: string, toDate: string, options: { typeNames?: StatementTypeNames } = {}): Readable {
  const period = checkPeriod(fromDate, toDate);
  checkMerchant(merchantAccountNumber);
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
      const accounts = await beginExport(client, merchantAccountNumber, period);
      const query = exportQuery(merchantAccountNumber, accounts, period.fromDate, period.toDate, options.typeNames ?? {}, 'csv');
      copy = client.query(copyTo(`copy (${query}) to stdout with (format csv, header)`));
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

/** Rows fetched from the export's cursor at a time: a few hundred kilobytes at most. */
const ROWS_PER_FETCH = 500;

/** A row of the download: a cell per STATEMENT_COLUMNS column, as its kind says (text, Date, minor units), or null. */
export type StatementRow = Array<string | Date | number | null>;

/**
 * The download's rows (no header: STATEMENT_COLUMNS names and types them) as an async iterable of
 * cell arrays, the CSV's rows with values as they are (text unguarded, dates as Dates, amounts in
 * minor units): for an exporter (console/kit/exports.ts), which formats and guards them. Read
 * through a cursor, ROWS_PER_FETCH at a time, on a pooled connection in a read-only transaction;
 * leaving the loop early (break, throw) closes the connection, which ends the cursor with it.
 */
export async function* statementRows(
  db: Db,
  merchantAccountNumber: number,
  fromDate: string,
  toDate: string,
  options: { typeNames?: StatementTypeNames } = {},
): AsyncGenerator<StatementRow> {
  const period = checkPeriod(fromDate, toDate);
  checkMerchant(merchantAccountNumber);
  const client = await db.connect();
  let failure: Error | undefined;
  let done = false;
  try {
    const accounts = await beginExport(client, merchantAccountNumber, period);
    await client.query(`declare statement_rows no scroll cursor for ${exportQuery(merchantAccountNumber, accounts, period.fromDate, period.toDate, options.typeNames ?? {}, 'values')}`);
    for (;;) {
      const { rows } = await client.query<StatementRow>({ text: `fetch ${ROWS_PER_FETCH} from statement_rows`, rowMode: 'array' });
      for (const row of rows) yield row;
      if (rows.length < ROWS_PER_FETCH) break;
    }
    await client.query('commit');
    done = true;
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // Left early or failed: the connection may be mid-transaction; it is closed, not reused.
    client.release(done ? undefined : (failure ?? new Error('statement rows not read to the end')));
  }
}

// A statement's lines: what a bookkeeper reconciles, one line per movement of money, derived from
// the ledger (issue 27). The ledger books some movements as one entry on the merchant's account
// that covers several things: a collection credits its amount net of its fee; a batch debits its
// payouts and their fees in one entry (B<batch>); a chunk of failed payouts is refunded, or of
// reversed payouts given back, in one entry. Each entry is split here into the lines it is made of,
// read from the records it was booked from, in the same statement:
//
//   payment, payrequest   the collection (its gross amount, from the payer) and its fee
//   reversal              the collection given back, its fee refunded
//   payout_debit          per payout the batch (or single payout) debited: the amount, the fee
//   payout_cancel         per payout of the batch cancelled before its day: the amount, the fee
//   payout_settle         per payout failed in that transaction: the amount, the fee refunded
//   rail_settle           the payout the rail refused: the amount, the fee refunded
//   payout_reversal       per payout reversed in that transaction: the amount
//   anything else         the entry as it is (top-up, funding, correction)
//
// The ledger stays the truth: whatever part of an entry its lines do not explain (none, when the
// records agree with the ledger, which `ledger verify` checks for batches) is one more line of the
// entry's own type, so the lines of an entry always sum to the entry, and a statement's lines to the
// ledger's balance change, whatever the records say.
//
// Lines are ordered by (created_at, entry_id, seq): seq orders an entry's lines (a batch's by line
// number, a chunk's by payout id; amount before fee) and is the last part of the page's keyset key.

/** The line types (stable codes; the CSV's type_code column) and the opening and closing rows. */
export const STATEMENT_LINE_TYPES = [
  'opening_balance',
  'collection',
  'collection_fee',
  'collection_reversal',
  'collection_fee_refund',
  'payout',
  'payout_fee',
  'payout_cancelled',
  'payout_refund',
  'payout_fee_refund',
  'payout_reversal',
  'topup',
  'funding',
  'correction',
  'closing_balance',
] as const;
export type StatementLineType = (typeof STATEMENT_LINE_TYPES)[number];

/** Fee lines: charged (negative) or refunded (positive); the statement's "fees" total nets them. */
export const FEE_LINE_TYPES: readonly StatementLineType[] = ['collection_fee', 'collection_fee_refund', 'payout_fee', 'payout_fee_refund'];

/** The seq of an entry's unexplained remainder: after every other line (2^53 − 1: a safe integer in a cursor). */
const REMAINDER_SEQ = '9007199254740991';

/** The type of the line standing for (a remainder of) an entry of this transfer type. */
const ENTRY_TYPE = `case t.transfer_type when 'payment' then 'collection' when 'payrequest' then 'collection' when 'reversal' then 'collection_reversal'
  when 'payout_debit' then 'payout' when 'payout_cancel' then 'payout_cancelled' when 'payout_settle' then 'payout_refund' when 'rail_settle' then 'payout_refund'
  when 'payout_reversal' then 'payout_reversal' when 'topup' then 'topup' when 'funding' then 'funding' else 'correction' end`;

/** A transfer's note: only text a person typed that the reference does not already say. */
const ENTRY_NOTE = `case t.transfer_type when 'reversal' then t.metadata->>'reason' when 'funding' then t.metadata->>'bankReference' end`;

/**
 * The batch number of a batch's transfer, null for a single payout's: from its metadata, which
 * every batch debit and cancellation carries, not from its reference (B<batch>): a batch number
 * may be as long as a single payout's reference (B and eleven digits), whose transfers have none.
 */
const BATCH_OF = `(t.metadata->>'batchNumber')::bigint`;

/** A payout's lines: `parts` is (part, type, amount sign, fee sign); `seqBase` orders payouts in the entry. */
function payoutLines(seqBase: string, amountType: string, amountSign: string, feeType: string | null, where: string): string {
  const parts = [`(0, '${amountType}', ${amountSign}p.amount_minor)`, ...(feeType ? [`(1, '${feeType}', ${amountSign}p.fee_minor)`] : [])].join(', ');
  return `select ${seqBase} * 2 + s.part, s.type_code, s.amount_minor, p.beneficiary_name::text, p.beneficiary_account_number::text,
                 p.transaction_reference_number::text, p.source_reference_number::text, nullif(p.transaction_description, '')::text
            from payouts p cross join lateral (values ${parts}) s(part, type_code, amount_minor)
           where ${where} and s.amount_minor <> 0`;
}

/**
 * The lines of the merchant account entry `e` (entry_id, created_at, amount_minor) of transfer `t`
 * (transfer_type, reference, created_at, metadata), for merchant `merchant` (an SQL expression):
 * a LATERAL subquery yielding seq, type_code, amount_minor, counterparty, counterparty_account,
 * transaction_reference, source_reference, note, and within_minor (the entry's lines summed up to
 * and with this one: the balance after a line is the balance before its entry plus it), in seq
 * order. Each branch is guarded by the transfer's type, so
 * only one runs per entry, and reads its records by an index: collections and payouts by reference,
 * a batch's payouts by (merchant, batch), a chunk's by the indexes of migration 0026.
 */
export function entryLines(merchant: string): string {
  const collectionLines = (kinds: string, amount: string, fee: string, types: [string, string], note: string) =>
    `select s.seq::bigint, s.type_code, s.amount_minor, c.source_account_name::text, c.source_account_number::text,
            c.transaction_reference_number::text, c.source_reference_number::text, ${note}
       from collections c cross join lateral (values (0, '${types[0]}', ${amount}), (1, '${types[1]}', ${fee})) s(seq, type_code, amount_minor)
      where t.transfer_type in (${kinds}) and c.merchant_account_number = ${merchant} and c.transaction_reference_number = t.reference and s.amount_minor <> 0`;
  return `(with d(seq, type_code, amount_minor, counterparty, counterparty_account, transaction_reference, source_reference, note) as (
      ${collectionLines(`'payment', 'payrequest'`, 'c.amount_minor', '-c.fee_minor', ['collection', 'collection_fee'], `nullif(c.transaction_description, '')::text`)}
      union all
      ${collectionLines(`'reversal'`, '-c.amount_minor', 'c.fee_minor', ['collection_reversal', 'collection_fee_refund'], `c.reversal_reason::text`)}
      union all
      ${payoutLines('p.line_number', 'payout', '-', 'payout_fee', `t.transfer_type = 'payout_debit' and p.merchant_account_number = ${merchant} and p.batch_number = ${BATCH_OF} and p.transferred_at is not null`)}
      union all
      ${payoutLines('0', 'payout', '-', 'payout_fee', `t.transfer_type = 'payout_debit' and ${BATCH_OF} is null and p.transaction_reference_number = t.reference and p.merchant_account_number = ${merchant} and p.batch_number is null`)}
      union all
      ${payoutLines('p.line_number', 'payout_cancelled', '', 'payout_fee_refund', `t.transfer_type = 'payout_cancel' and p.merchant_account_number = ${merchant} and p.batch_number = ${BATCH_OF} and p.status_code = 'C' and p.transferred_at is not null`)}
      union all
      ${payoutLines('p.payout_id', 'payout_refund', '', 'payout_fee_refund', `t.transfer_type = 'payout_settle' and p.merchant_account_number = ${merchant} and p.status_code = 'F' and p.completed_at = t.created_at`)}
      union all
      ${payoutLines('0', 'payout_refund', '', 'payout_fee_refund', `t.transfer_type = 'rail_settle' and p.transaction_reference_number = t.reference and p.merchant_account_number = ${merchant} and p.status_code = 'F'`)}
      union all
      ${payoutLines('p.payout_id', 'payout_reversal', '', null, `t.transfer_type = 'payout_reversal' and p.merchant_account_number = ${merchant} and p.status_code = 'R' and p.reversed_at = t.created_at`)}
    )
    select x.*, sum(x.amount_minor) over (order by x.seq rows between unbounded preceding and current row)::bigint as within_minor
      from (
        select * from d
        union all
        -- What the lines above do not explain of the entry (all of it for a top-up, a funding, a correction).
        select ${REMAINDER_SEQ}::bigint, ${ENTRY_TYPE}, (e.amount_minor - coalesce(sum(d.amount_minor), 0))::bigint, null::text, null::text, null::text, null::text, ${ENTRY_NOTE}
          from d having e.amount_minor - coalesce(sum(d.amount_minor), 0) <> 0
      ) x
     order by x.seq)`;
}

// ---------------------------------------------------------------------------------------------
// Columns of the download (CSV, and the rows any other exporter reads)

/**
 * What a column holds, as console/kit/exports.ts names kinds: text; date, an instant (UTC); amount,
 * money. In the CSV: text formula-guarded, the date ISO 8601, the amount in major units with 2
 * decimals. In the rows (statementRows): text as stored, the date a Date, the amount in minor units.
 */
export type StatementColumnKind = 'text' | 'date' | 'amount';

/**
 * The download's columns, in order, each with its SQL over a line `l` (created_at, type_code,
 * type_name, transfer_type, account, counterparty, counterparty_account, reference,
 * transaction_reference, source_reference, note, amount_minor, balance_minor, account_balance_minor).
 * Defined once: the CSV (COPY) and the rows' async iterable select exactly these, each as its kind says.
 */
export const STATEMENT_COLUMNS = [
  { key: 'date', kind: 'date', sql: 'l.created_at' },
  { key: 'type_code', kind: 'text', sql: 'l.type_code' },
  { key: 'type', kind: 'text', sql: 'l.type_name' },
  { key: 'transfer_type', kind: 'text', sql: 'l.transfer_type' },
  { key: 'account', kind: 'text', sql: 'l.account' },
  { key: 'counterparty', kind: 'text', sql: 'l.counterparty' },
  { key: 'counterparty_account', kind: 'text', sql: 'l.counterparty_account' },
  { key: 'reference', kind: 'text', sql: 'l.reference' },
  { key: 'transaction_reference', kind: 'text', sql: 'l.transaction_reference' },
  { key: 'source_reference', kind: 'text', sql: 'l.source_reference' },
  { key: 'note', kind: 'text', sql: 'l.note' },
  { key: 'amount', kind: 'amount', sql: 'l.amount_minor' },
  { key: 'balance', kind: 'amount', sql: 'l.balance_minor' },
  { key: 'account_balance', kind: 'amount', sql: 'l.account_balance_minor' },
] as const satisfies ReadonlyArray<{ key: string; kind: StatementColumnKind; sql: string }>;
export type StatementColumnKey = (typeof STATEMENT_COLUMNS)[number]['key'];

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @, and tab or carriage return before
 * one) gets a leading single quote (OWASP, CSV injection). Money cells are numbers the database
 * formats (-?digits.dd), which every spreadsheet reads as numbers: quoting them would turn them into
 * text that no longer sums.
 */
function guarded(expression: string): string {
  return `case when (${expression}) ~ '^[-=+@\\t\\r]' then '''' || (${expression}) else (${expression}) end`;
}

/** Minor units → major with 2 decimals ("-150.00"), exactly (numeric, never a float), as text. */
const major = (expression: string) => `(((${expression})::numeric / 100)::numeric(20, 2))::text`;

const ISO_INSTANT = (expression: string) => `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/**
 * The select list of the download over a line `l`. For the CSV every cell is text (or null): money
 * formatted, text guarded. For the rows, values as they are: an exporter formats and guards them.
 */
export function columnsSql(form: 'csv' | 'values'): string {
  const cell = (c: (typeof STATEMENT_COLUMNS)[number]) =>
    form === 'values' ? c.sql : c.kind === 'amount' ? major(c.sql) : c.kind === 'date' ? ISO_INSTANT(c.sql) : guarded(c.sql);
  return STATEMENT_COLUMNS.map((c) => `${cell(c)} as ${c.key}`).join(',\n            ');
}

/** `text` as an SQL string literal (COPY takes no parameters): quotes doubled, no backslash escapes. */
export function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

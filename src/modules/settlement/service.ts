// Settlement accounts (product.md §12, E7, E15): bank accounts a merchant's money is settled to.
// New accounts are inactive; one may be active at a time, held by a partial unique index, so
// concurrent activations can never leave two active. Reads and writes are scoped to the
// caller's merchant: another merchant's account answers 404.
import type pg from 'pg';
import type { FindOptions, Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Deps } from '../../http/types.ts';
import { activeConnector } from '../connectors/repository.ts';
import { isViolation } from '../../db/errors.ts';

/** A settlement account's status (migrations/0005): active, inactive, deleted (kept for the record, never shown). */
export type SettlementAccountStatus = 'A' | 'I' | 'D';

/** The settlement account statuses by name: code compares an account's status_code with these, never with the letter. */
export const SETTLEMENT_ACCOUNT = { active: 'A', inactive: 'I', deleted: 'D' } as const satisfies Record<string, SettlementAccountStatus>;

export interface SettlementRow {
  account_id: number;
  merchant_account_number: number;
  account_number: string;
  connector_id: number;
  connector_name: string;
  account_name: string;
  status_code: SettlementAccountStatus;
  captured_by: string;
  date_created: Date;
  modified_by: string | null;
  date_modified: Date | null;
}

/** Deleted accounts are kept for the record and invisible to the API. */
const SELECT = `select s.*, c.connector_name from settlement_accounts s join connectors c on c.connector_id = s.connector_id`;
const VISIBLE = `s.status_code <> 'D'`;

export function settlementView(s: SettlementRow) {
  return {
    accountId: s.account_id,
    merchantAccountNumber: s.merchant_account_number,
    accountNumber: s.account_number,
    connectorId: s.connector_id,
    connectorName: s.connector_name,
    accountName: s.account_name,
    statusCode: s.status_code,
    statusName: s.status_code === SETTLEMENT_ACCOUNT.active ? 'Active' : 'Inactive',
    isActive: s.status_code === SETTLEMENT_ACCOUNT.active,
    capturedBy: s.captured_by,
    dateCreated: s.date_created.toISOString(),
    modifiedBy: s.modified_by,
    dateModified: s.date_modified?.toISOString() ?? null,
  };
}

async function find(q: Queryable, merchantAccountNumber: number, accountId: number, options: FindOptions = {}): Promise<SettlementRow> {
  const { rows } = await q.query<SettlementRow>(`${SELECT} where s.account_id = $1 and s.merchant_account_number = $2 and ${VISIBLE}${options.lock ? ' for update of s' : ''}`, [accountId, merchantAccountNumber]);
  if (!rows[0]) throw new AppError('notFound', 'detail.settlementNotFound', { accountId });
  return rows[0];
}

/** Settlement goes to bank accounts: the connector must be an active bank. */
async function bankConnector(q: Queryable, connectorId: number): Promise<void> {
  const connector = await activeConnector(q, connectorId);
  if (connector.channel_code !== 'B') throw new AppError('connectorNotAllowed', 'detail.settlementNotBank', { connectorId });
}

/**
 * `fn` in the caller's transaction `tx` when there is one (the console runs an action, its form key
 * and its audit entry in one: src/modules/console/kit/actions.tsx), else in a transaction of its own (the
 * API). The same rules either way: only where the transaction comes from differs.
 */
function inTransaction<T>(deps: Deps, tx: pg.PoolClient | undefined, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return tx ? fn(tx) : withTransaction(deps.db, fn);
}

export interface NewSettlement {
  merchantAccountNumber: number;
  accountNumber: string;
  connectorId: number;
  accountName: string;
  capturedBy: string;
}

/** In `tx` when given (the console's action), else on the pool: one statement needs no transaction of its own. */
export async function addAccount(deps: Deps, input: NewSettlement, tx?: pg.PoolClient): Promise<number> {
  const q: Queryable = tx ?? deps.db;
  await bankConnector(q, input.connectorId);
  const { rows } = await q.query<{ account_id: number }>(
    `insert into settlement_accounts (merchant_account_number, account_number, connector_id, account_name, captured_by)
     values ($1, $2, $3, $4, $5) returning account_id`,
    [input.merchantAccountNumber, input.accountNumber, input.connectorId, input.accountName, input.capturedBy],
  );
  return rows[0].account_id;
}

export async function listAccounts(q: Queryable, merchantAccountNumber: number): Promise<SettlementRow[]> {
  const { rows } = await q.query<SettlementRow>(`${SELECT} where s.merchant_account_number = $1 and ${VISIBLE} order by s.account_id`, [merchantAccountNumber]);
  return rows;
}

export const getAccount = (q: Queryable, merchantAccountNumber: number, accountId: number) => find(q, merchantAccountNumber, accountId);

async function setStatus(tx: pg.PoolClient, accountId: number, status: 'A' | 'I', changedBy: string): Promise<void> {
  await tx.query('update settlement_accounts set status_code = $2, modified_by = $3, date_modified = now() where account_id = $1', [accountId, status, changedBy]);
}

/**
 * E7. Activating the active account again is a no-op; a second one is refused, naming the first.
 * In the caller's `tx` the refused UPDATE has aborted that transaction: the active account is read
 * on the pool (it is committed: the index waited for it), and the caller rolls back on the error.
 */
export async function activate(deps: Deps, merchantAccountNumber: number, accountId: number, changedBy: string, tx?: pg.PoolClient): Promise<void> {
  try {
    await inTransaction(deps, tx, async (tx) => {
      const account = await find(tx, merchantAccountNumber, accountId, { lock: 'for update' });
      if (account.status_code === SETTLEMENT_ACCOUNT.active) return;
      await setStatus(tx, accountId, 'A', changedBy);
    });
  } catch (err) {
    if (!isViolation(err, '23505', 'settlement_accounts_one_active')) throw err;
    const { rows } = await deps.db.query<{ account_id: number; account_number: string }>(
      `select account_id, account_number from settlement_accounts where merchant_account_number = $1 and status_code = 'A'`,
      [merchantAccountNumber],
    );
    throw new AppError('settlementAccountActive', 'detail.settlementActive', { accountId: rows[0]?.account_id ?? '?', accountNumber: rows[0]?.account_number ?? '?' });
  }
}

export async function deactivate(deps: Deps, merchantAccountNumber: number, accountId: number, changedBy: string, tx?: pg.PoolClient): Promise<void> {
  await inTransaction(deps, tx, async (tx) => {
    const account = await find(tx, merchantAccountNumber, accountId, { lock: 'for update' });
    if (account.status_code === SETTLEMENT_ACCOUNT.inactive) return;
    await setStatus(tx, accountId, 'I', changedBy);
  });
}

/** E15: active accounts only. */
export async function updateAccount(deps: Deps, input: NewSettlement & { accountId: number }, tx?: pg.PoolClient): Promise<void> {
  await inTransaction(deps, tx, async (tx) => {
    const account = await find(tx, input.merchantAccountNumber, input.accountId, { lock: 'for update' });
    if (account.status_code !== SETTLEMENT_ACCOUNT.active) throw new AppError('invalidState', 'detail.settlementNotActive', { accountId: input.accountId });
    await bankConnector(tx, input.connectorId);
    await tx.query(
      `update settlement_accounts set account_number = $2, connector_id = $3, account_name = $4, modified_by = $5, date_modified = now() where account_id = $1`,
      [input.accountId, input.accountNumber, input.connectorId, input.accountName, input.capturedBy],
    );
  });
}

/** Inactive accounts only. Kept as D with who deleted it: settlements went there. */
export async function deleteAccount(deps: Deps, merchantAccountNumber: number, accountId: number, deletedBy: string, tx?: pg.PoolClient): Promise<void> {
  await inTransaction(deps, tx, async (tx) => {
    const account = await find(tx, merchantAccountNumber, accountId, { lock: 'for update' });
    if (account.status_code === SETTLEMENT_ACCOUNT.active) throw new AppError('invalidState', 'detail.settlementIsActive', { accountId });
    await tx.query(`update settlement_accounts set status_code = 'D', deleted_by = $2, date_deleted = now() where account_id = $1`, [accountId, deletedBy]);
  });
}

// The operator's side of the exceptions: the list, and a resolution with a reason. 'correct' books
// one rail_correction ledger transfer (corrections.ts) in the same transaction that records who
// resolved it, when, why and with which transfer; 'accept' records the reason only (the rail's
// record was wrong, or there was nothing to book). A resolved exception is never resolved again.
import type pg from 'pg';
import { withTransaction, type Db } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import type { Deps } from '../../http/types.ts';
import { merchantAccountId, postTransfer, systemAccountId } from '../../modules/ledger/ledger.ts';
import { correctionMovements, correctionReference, type CorrectionAccount } from './corrections.ts';

export interface RailException {
  exceptionId: number;
  merchantAccountNumber: number;
  rail: string;
  transferId: string;
  kind: string;
  subject: 'payout' | 'collection';
  reference: string | null;
  currencyCode: string;
  oursPhase: string;
  theirsState: string | null;
  theirsErrorCode: string | null;
  oursAmountMinor: number | null;
  theirsAmountMinor: number | null;
  feeMinor: number;
  expiresAt: string | null;
  day: string;
  firstRunId: number;
  lastRunId: number;
  detectedAt: string;
  lastSeenAt: string;
  resolution: 'correct' | 'accept' | 'cleared' | null;
  resolvedAt: string | null;
  resolvedBy: string | null;
  reason: string | null;
  ledgerTransferId: number | null;
}

const COLUMNS = `exception_id as "exceptionId", merchant_account_number as "merchantAccountNumber", rail, transfer_id as "transferId", kind,
       case when payout_id is not null then 'payout' else 'collection' end as subject, reference, currency_code as "currencyCode",
       ours_phase as "oursPhase", theirs_state as "theirsState", theirs_error_code as "theirsErrorCode",
       ours_amount_minor as "oursAmountMinor", theirs_amount_minor as "theirsAmountMinor", fee_minor as "feeMinor",
       to_json(expires_at)#>>'{}' as "expiresAt", day::text as day, first_run_id as "firstRunId", last_run_id as "lastRunId",
       to_json(detected_at)#>>'{}' as "detectedAt", to_json(last_seen_at)#>>'{}' as "lastSeenAt", resolution,
       to_json(resolved_at)#>>'{}' as "resolvedAt", resolved_by as "resolvedBy", reason, ledger_transfer_id as "ledgerTransferId"`;

export interface ListOptions {
  /** true: open ones only; false: resolved ones only; undefined: both. */
  open?: boolean;
  /** Exceptions after this id (the last of the previous page). */
  afterId?: number;
  limit: number;
}

/** Exceptions oldest first, a page at a time. */
export async function listExceptions(db: Db, options: ListOptions): Promise<RailException[]> {
  const { rows } = await db.query<RailException>(
    `select ${COLUMNS} from rail_exceptions
      where ($1::boolean is null or (resolved_at is null) = $1) and exception_id > $2
      order by exception_id limit $3`,
    [options.open ?? null, options.afterId ?? 0, options.limit],
  );
  return rows;
}

export interface ResolveInput {
  exceptionId: number;
  action: 'correct' | 'accept';
  reason: string;
  resolvedBy: string;
}

/** The exception locked, found by its id alone (its merchant first, so the lock names the merchant). */
async function lockException(tx: pg.PoolClient, exceptionId: number): Promise<RailException> {
  const { rows: found } = await tx.query<{ merchant_account_number: number }>('select merchant_account_number from rail_exceptions where exception_id = $1', [exceptionId]);
  const merchant = found[0]?.merchant_account_number;
  const { rows } = merchant === undefined
    ? { rows: [] as RailException[] }
    : await tx.query<RailException>(`select ${COLUMNS} from rail_exceptions where merchant_account_number = $1 and exception_id = $2 for update`, [merchant, exceptionId]);
  if (!rows[0]) throw new AppError('notFound', 'detail.railExceptionNotFound', { exceptionId });
  return rows[0];
}

async function accountId(tx: pg.PoolClient, x: RailException, account: CorrectionAccount): Promise<number> {
  return account === 'disbursement' || account === 'collection'
    ? merchantAccountId(tx, x.merchantAccountNumber, account, x.currencyCode)
    : systemAccountId(tx, x.merchantAccountNumber, account, x.currencyCode);
}

/** Books the exception's correcting transfer; its id. */
async function bookCorrection(tx: pg.PoolClient, x: RailException, input: ResolveInput): Promise<number> {
  const movements = correctionMovements(x);
  if (!movements) throw new AppError('invalidState', 'detail.railExceptionNotCorrectable', { exceptionId: x.exceptionId, kind: x.kind });
  const entries = [];
  for (const m of movements) entries.push({ accountId: await accountId(tx, x, m.account), amountMinor: m.amountMinor });
  return postTransfer(tx, {
    merchantAccountNumber: x.merchantAccountNumber,
    type: 'rail_correction',
    reference: correctionReference(x.exceptionId),
    metadata: { exceptionId: x.exceptionId, kind: x.kind, rail: x.rail, transferId: x.transferId, reference: x.reference, resolvedBy: input.resolvedBy, reason: input.reason },
    entries,
  });
}

/** Resolves an open exception: 404 when there is none with that id, 409 when it is already resolved. */
export async function resolveException(deps: Deps, input: ResolveInput): Promise<RailException> {
  const resolved = await withTransaction(deps.db, async (tx) => {
    const x = await lockException(tx, input.exceptionId);
    if (x.resolution !== null) {
      throw new AppError('conflict', 'detail.railExceptionResolved', { exceptionId: x.exceptionId, resolution: x.resolution, resolvedAt: x.resolvedAt ?? '', resolvedBy: x.resolvedBy ?? '' });
    }
    const ledgerTransferId = input.action === 'correct' ? await bookCorrection(tx, x, input) : null;
    const { rows } = await tx.query<RailException>(
      `update rail_exceptions set resolution = $3, resolved_at = now(), resolved_by = $4, reason = $5, ledger_transfer_id = $6
        where merchant_account_number = $1 and exception_id = $2 and resolved_at is null
        returning ${COLUMNS}`,
      [x.merchantAccountNumber, x.exceptionId, input.action, input.resolvedBy, input.reason, ledgerTransferId],
    );
    return rows[0];
  });
  deps.log.info({ exceptionId: resolved.exceptionId, kind: resolved.kind, resolution: resolved.resolution, resolvedBy: resolved.resolvedBy, ledgerTransferId: resolved.ledgerTransferId }, 'rail exception resolved');
  return resolved;
}

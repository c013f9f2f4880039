// The switch's word on a transfer of ours, kept for reconciliation (rail_transfer_reports): the
// state in a PUT /transfers/{id} (an answer to our GET, a payee's fulfilment forwarded), NOT_FOUND
// or the error code of a PUT /transfers/{id}/error, a PATCH notification's final state. Only for
// transfers we know (a payout's or a collection's), only what passed the gate, and from the switch
// itself even when the handler refused it: a contradiction is exactly what reconciliation lists.
import type { Db } from '../../db/pool.ts';
import type { MojaloopContext } from './types.ts';

export interface TransferReport {
  transferId: string;
  source: string;
  body: unknown;
  refused: boolean;
}

function stateOf(body: unknown): { state: string; errorCode: string | null } | undefined {
  const b = body as { transferState?: unknown; errorInformation?: { errorCode?: unknown } } | undefined;
  if (typeof b?.transferState === 'string') return { state: b.transferState.slice(0, 12), errorCode: null };
  const code = b?.errorInformation?.errorCode;
  if (typeof code === 'string') return { state: code === '3208' ? 'NOT_FOUND' : 'ERROR', errorCode: code.slice(0, 4) };
  return undefined;
}

export async function recordTransferReport(db: Db, ctx: MojaloopContext, report: TransferReport): Promise<void> {
  if (report.refused && report.source !== ctx.switchFspId) return;
  const word = stateOf(report.body);
  if (!word) return;
  await db.query(
    // Kept with the transfer's merchant (migration 0030): each merchant that has the transfer (one,
    // in practice: the switch's transfer ids are unique) gets the word.
    `insert into rail_transfer_reports (merchant_account_number, rail, transfer_id, transfer_state, error_code, reported_at)
     select o.merchant_account_number, 'mojaloop', $1::uuid, $2, $3, now()
       from (select merchant_account_number from rail_payouts where transfer_id = $1::uuid
             union
             select merchant_account_number from rail_collections where transfer_id = $1::uuid) o
     on conflict (merchant_account_number, rail, transfer_id) do update set transfer_state = excluded.transfer_state, error_code = excluded.error_code, reported_at = excluded.reported_at`,
    [report.transferId, word.state, word.errorCode],
  );
}

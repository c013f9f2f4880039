// The payee side's follow-up, run by every worker every second (rails/module.ts): what a lost
// callback or a crash left undone on a collection's transfer.
// - A fulfilment the switch has not taken (the process died between accepting the transfer and
//   sending it, or the switch did not answer) is sent again while the transfer has not expired.
// - A transfer whose outcome has not come is asked about (GET /transfers/{id}): in FSPIOP 1.0 at
//   once (no notification comes: the switch's record is how we learn it committed), in 1.1 after
//   MOJALOOP_CALLBACK_SECONDS without its PATCH, and then again every MOJALOOP_CALLBACK_SECONDS
//   until the switch says COMMITTED or ABORTED (payee.ts onSwitchWord credits or releases).
// Rows are claimed with SKIP LOCKED and their clock moved in the same statement, so two workers
// never send the same thing twice in one round.
import type pg from 'pg';
import type { Deps } from '../../http/types.ts';
import type { BackgroundService } from '../../jobs/queue.ts';
import type { SwitchRequest } from './client.ts';
import { COLLECTION_COLUMNS, fulfil, type CollectionRow } from './payee.ts';
import { mojaloopContext } from './rail.ts';

/** Rows taken per round (a round runs every second). */
const CLAIM_LIMIT = 200;
/** A fulfilment not taken this long after the transfer was accepted is sent again. */
const RESEND_AFTER_SECONDS = 2;
/** In FSPIOP 1.0, how soon after our fulfilment the switch's record is asked for. */
const FIRST_ASK_SECONDS_1_0 = 1;

const RETURNING = COLLECTION_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ');

// Which rows are due to be sent again, and to be asked about ($1…: claimPerMerchant's `params`).
const RESEND_DUE = `rail = 'mojaloop' and phase = 'reserved' and fulfilment_sent_at is null
  and transfer_expires_at > now() and updated_at < now() - make_interval(secs => $1::int)`;
const ASK_DUE = `rail = 'mojaloop' and phase = 'reserved'
  and (fulfilment_sent_at is not null or transfer_expires_at <= now())
  and coalesce(asked_at, fulfilment_sent_at, transfer_expires_at)
      + make_interval(secs => case when asked_at is null and transfer_version = '1.0' then $1::int else $2::int end) <= now()`;
const ASK_ORDER = 'coalesce(asked_at, fulfilment_sent_at, transfer_expires_at)';

/**
 * Claims up to `limit` due rows, oldest first, merchant by merchant, so that no row lock spans
 * merchants (shards on Citus): the merchants of the oldest due rows are found without a lock,
 * then each one's rows are locked with SKIP LOCKED (two workers never take the same row, nor wait
 * for each other) and their clock moved (`set`) in the same statement.
 */
async function claimPerMerchant<T extends pg.QueryResultRow>(deps: Deps, due: string, order: string, set: string, params: unknown[], limit: number): Promise<T[]> {
  const limitAt = params.length + 1;
  const merchantAt = params.length + 2;
  const { rows: merchants } = await deps.db.query<{ merchant_account_number: number; n: number }>(
    `select merchant_account_number, count(*)::int as n
       from (select merchant_account_number, ${order} as due_at from rail_collections where ${due} order by ${order} limit $${limitAt}) d
      group by merchant_account_number order by min(due_at), merchant_account_number`,
    [...params, limit],
  );
  const claimed: T[] = [];
  for (const { merchant_account_number: merchant, n } of merchants) {
    const { rows } = await deps.db.query<T>(
      `with due as (
         select inbound_id from rail_collections where merchant_account_number = $${merchantAt} and ${due} order by ${order} limit $${limitAt} for update skip locked)
       update rail_collections r set ${set} from due
        where r.merchant_account_number = $${merchantAt} and r.inbound_id = due.inbound_id
       returning ${RETURNING}`,
      [...params, n, merchant],
    );
    claimed.push(...rows);
  }
  return claimed;
}

/** One round; returns how many collections it acted on. */
export async function sweepPayeeTransfers(deps: Deps): Promise<number> {
  if (!deps.config.mojaloop) return 0;
  const ctx = mojaloopContext(deps);
  const resend = await claimPerMerchant<CollectionRow & { payer_fsp: string }>(deps, RESEND_DUE, 'updated_at', 'updated_at = now()', [RESEND_AFTER_SECONDS], CLAIM_LIMIT);
  const ask = await claimPerMerchant<CollectionRow>(deps, ASK_DUE, ASK_ORDER, 'asked_at = now(), updated_at = now()', [FIRST_ASK_SECONDS_1_0, ctx.config.callbackSeconds], CLAIM_LIMIT);
  const fulfilments = resend.map((row) => fulfil(deps, ctx, row, row.payer_fsp));
  const questions: SwitchRequest[] = ask.map((row) => ({
    method: 'GET',
    path: `/transfers/${row.transfer_id}`,
    resource: 'transfers',
    destination: row.payer_fsp,
    collection: { merchantAccountNumber: row.merchant_account_number, inboundId: row.inbound_id },
  }));
  const sends = [...fulfilments.flatMap((f) => f.sends), ...questions];
  if (sends.length === 0) return 0;
  const answers = await ctx.client.send(sends);
  await Promise.all(fulfilments.map((f, i) => f.afterSend?.([answers[i]])));
  return resend.length + ask.length;
}

/** How often a worker sweeps. */
const SWEEP_EVERY_MS = 1000;

/** The sweep as a worker's background service: one round a second, never two at once. */
export function payeeSweeper(deps: Deps): BackgroundService {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = sweepPayeeTransfers(deps)
      .then(() => undefined)
      .catch((err: unknown) => deps.log.error({ err }, 'mojaloop: the payee sweep failed; the next round tries again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, SWEEP_EVERY_MS);
      });
  };
  return {
    async start() {
      timer = setTimeout(tick, SWEEP_EVERY_MS);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

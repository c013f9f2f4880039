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

/** One round; returns how many collections it acted on. */
export async function sweepPayeeTransfers(deps: Deps): Promise<number> {
  if (!deps.config.mojaloop) return 0;
  const ctx = mojaloopContext(deps);
  const { rows: resend } = await deps.db.query<CollectionRow & { payer_fsp: string }>(
    `with due as (
       select merchant_account_number, inbound_id from rail_collections
        where rail = 'mojaloop' and phase = 'reserved' and fulfilment_sent_at is null
          and transfer_expires_at > now() and updated_at < now() - make_interval(secs => $1::int)
        order by updated_at limit $2 for update skip locked)
     update rail_collections r set updated_at = now() from due
      where r.merchant_account_number = due.merchant_account_number and r.inbound_id = due.inbound_id
     returning ${COLLECTION_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}`,
    [RESEND_AFTER_SECONDS, CLAIM_LIMIT],
  );
  const { rows: ask } = await deps.db.query<CollectionRow>(
    `with due as (
       select merchant_account_number, inbound_id from rail_collections
        where rail = 'mojaloop' and phase = 'reserved'
          and (fulfilment_sent_at is not null or transfer_expires_at <= now())
          and coalesce(asked_at, fulfilment_sent_at, transfer_expires_at)
              + make_interval(secs => case when asked_at is null and transfer_version = '1.0' then $1::int else $2::int end) <= now()
        order by coalesce(asked_at, fulfilment_sent_at, transfer_expires_at) limit $3 for update skip locked)
     update rail_collections r set asked_at = now(), updated_at = now() from due
      where r.merchant_account_number = due.merchant_account_number and r.inbound_id = due.inbound_id
     returning ${COLLECTION_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}`,
    [FIRST_ASK_SECONDS_1_0, ctx.config.callbackSeconds, CLAIM_LIMIT],
  );
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

// The event outbox. A feature that changes state calls emitEvent with its own transaction; the
// webhook deliverer reads outbox_events and is woken through NOTIFY when the transaction commits
// (Postgres delivers notifications only on commit, so a rolled-back event never wakes anyone).
import type pg from 'pg';

export const OUTBOX_CHANNEL = 'outbox_events';

export interface EmittedEvent {
  eventId: number;
}

export async function emitEvent(tx: pg.PoolClient, merchantAccountNumber: number, eventCode: string, payload: object, options: { isTest?: boolean } = {}): Promise<EmittedEvent> {
  const { rows } = await tx.query<{ event_id: number }>(
    `insert into outbox_events (merchant_account_number, event_code, payload, is_test)
     values ($1, $2, $3::jsonb, $4) returning event_id`,
    [merchantAccountNumber, eventCode, JSON.stringify(payload), options.isTest ?? false],
  );
  await tx.query('select pg_notify($1, $2)', [OUTBOX_CHANNEL, String(rows[0].event_id)]);
  return { eventId: rows[0].event_id };
}

// Migration 0030 (keys led by the merchant, docs/scaling.md section 4, groups C, D and E) on a
// database that already holds data: 0001–0029 applied to an empty database, activity written
// (merchants and their keys, a payment request and its payment, a batch with its upload, webhooks,
// a rail payout and the switch's word on it), then 0030: every row is still there, every
// relationship holds, and the new keys behave per merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import type { Db } from '../../src/db/pool.ts';
import { findLiveKeyByClientKey, insertApiKey, newKeyPair } from '../../src/modules/api-keys/repository.ts';
import { databaseMigratedTo, type PartlyMigrated } from './migrated-to.ts';

const BEFORE = 29;
const SECRET = `whsec_${'A'.repeat(44)}`;
const SIGNATURE = 'S'.repeat(52);

let database: PartlyMigrated;
let db: Db;
let a: Merchant;
let b: Merchant;
const ids: Record<string, number | string> = {};

async function one<T>(sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query(sql, params);
  return rows[0] as T;
}

interface Merchant {
  merchantAccountNumber: number;
  apiKey: string;
}

/**
 * A merchant and its key pair as releases up to 0029 wrote them (today's createMerchant also
 * claims the payment account number, in a table 0031 creates).
 */
async function merchantBefore0030(merchantAccountNumber: number, accountName: string): Promise<Merchant> {
  const organisationId = `ORGM${merchantAccountNumber}`;
  await db.query('insert into organisations (organisation_id, organisation_name) values ($1, $2)', [organisationId, accountName]);
  await db.query(`insert into merchants (merchant_account_number, organisation_id, account_name, payment_account_number, captured_by) values ($1, $2, $3, $4, 'tester')`, [
    merchantAccountNumber,
    organisationId,
    accountName,
    `930${merchantAccountNumber}00`,
  ]);
  const pair = newKeyPair();
  await insertApiKey(db, { merchantAccountNumber, organisationId, clientKey: pair.key, secret: pair.secret, capturedBy: 'tester', expiryDate: null });
  return { merchantAccountNumber, apiKey: pair.key };
}

/** Rows of the tables the migration rewrites, in a form to compare before and after. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    api_keys: 'select merchant_account_number, client_id, client_key from api_keys order by client_id',
    payment_requests: 'select merchant_account_number, request_id, reference_number from payment_requests order by request_id',
    collections: 'select merchant_account_number, collection_id, request_id, transaction_reference_number from collections order by collection_id',
    batches: 'select merchant_account_number, batch_number, upload_id from batches order by batch_number',
    payouts: 'select merchant_account_number, payout_id, batch_number, line_number, transaction_reference_number from payouts order by payout_id',
    outbox_events: 'select merchant_account_number, event_id, event_code from outbox_events order by event_id',
    webhook_subscriptions: 'select merchant_account_number, webhook_id, event_code from webhook_subscriptions order by webhook_id',
    webhook_deliveries: 'select merchant_account_number, delivery_id, event_id, webhook_id, message_id from webhook_deliveries order by delivery_id',
    webhook_attempts: 'select merchant_account_number, attempt_id, delivery_id, attempt_number from webhook_attempts order by attempt_id',
    webhook_listeners: 'select merchant_account_number, listener_id from webhook_listeners order by listener_id',
    settlement_accounts: 'select merchant_account_number, account_id from settlement_accounts order by account_id',
    merchant_users: 'select merchant_account_number, user_id from merchant_users order by user_id',
    rail_payouts: 'select merchant_account_number, payout_id, transfer_id from rail_payouts order by payout_id',
  };
  const out: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(tables)) out[table] = (await db.query(sql)).rows;
  return out;
}

beforeAll(async () => {
  database = await databaseMigratedTo(BEFORE);
  db = database.db;

  a = await merchantBefore0030(30000001, 'Shop A');
  b = await merchantBefore0030(30000002, 'Shop B');
  const m = a.merchantAccountNumber;

  // A payment request and its payment.
  ids.request = (
    await one<{ request_id: string }>(
      `insert into payment_requests (merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description, reference_number, captured_by, expires_at)
       values ($1, '10000001', 5000, 'MWK', 'Order 1', 'ORDER1', 'tester', now() + interval '1 hour') returning request_id`,
      [m],
    )
  ).request_id;
  ids.collection = (
    await one<{ collection_id: string }>(
      `insert into collections (merchant_account_number, transaction_reference_number, transaction_code, request_id, connector_id, source_account_number,
                                source_account_name, source_reference_number, beneficiary_account_number, amount_minor, fee_minor, currency_code,
                                transaction_description, bridge_reference_number, created_by, request_reference_number)
       values ($1, 'COLREF000001', 'RTP', $2, 112400, '265991234567', 'Payer', 'SRC1', '9000000000001', 5000, 50, 'MWK', 'Order 1', 'BR1', 'tester', 'ORDER1')
       returning collection_id`,
      [m, ids.request],
    )
  ).collection_id;

  // A queued batch whose body is an upload (two chunks), two payouts of an earlier batch, and a chunk of no batch.
  const upload = '11111111-2222-3333-4444-555555555555';
  ids.batch = (
    await one<{ batch_number: number }>(
      `insert into batches (merchant_account_number, currency_code, level_number, upload_type, captured_by, number_of_entries, upload_id)
       values ($1, 'MWK', 1, 'JSON', 'tester', 2, $2) returning batch_number`,
      [m, upload],
    )
  ).batch_number;
  await db.query(`insert into batch_upload_chunks (upload_id, seq, bytes) values ($1, 0, 'ab'), ($1, 1, 'cd'), ('99999999-2222-3333-4444-555555555555', 0, 'x')`, [upload]);
  ids.doneBatch = (
    await one<{ batch_number: number }>(
      `insert into batches (merchant_account_number, currency_code, level_number, upload_type, captured_by, number_of_entries, status_code)
       values ($1, 'MWK', 1, 'JSON', 'tester', 2, 'P') returning batch_number`,
      [m],
    )
  ).batch_number;
  await db.query(
    `insert into payouts (merchant_account_number, batch_number, line_number, transaction_reference_number, source_reference_number, beneficiary_name,
                          connector_id, beneficiary_account_number, amount_minor, currency_code, transaction_code, status_code, captured_by)
     select $1, $2, l, 'PAYREF00000' || l, 'SRC' || l, 'Beneficiary', 112400, '265991234567', 1000, 'MWK', 'MMW', 'P', 'tester' from generate_series(1, 2) l`,
    [m, ids.doneBatch],
  );
  ids.payout = (await one<{ payout_id: string }>('select payout_id from payouts where line_number = 1')).payout_id;

  // Webhooks: an event, a subscription, a delivery with an attempt, a listener.
  ids.event = (await one<{ event_id: string }>(`insert into outbox_events (merchant_account_number, event_code, payload) values ($1, 'batch.received', '{}') returning event_id`, [m])).event_id;
  ids.webhook = (
    await one<{ webhook_id: string }>(
      `insert into webhook_subscriptions (merchant_account_number, event_code, callback_url, webhook_signature, signing_secret, created_by)
       values ($1, 'batch.received', 'https://example.com/hook', $2, $3, 'tester') returning webhook_id`,
      [m, SIGNATURE, SECRET],
    )
  ).webhook_id;
  ids.delivery = (
    await one<{ delivery_id: string }>(
      `insert into webhook_deliveries (merchant_account_number, event_id, webhook_id, event_code, callback_url, message_id)
       values ($1, $2, $3, 'batch.received', 'https://example.com/hook', 'msg_1') returning delivery_id`,
      [m, ids.event, ids.webhook],
    )
  ).delivery_id;
  await db.query(`insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, latency_ms) values ($1, $2, 1, now(), 12)`, [ids.delivery, m]);
  await db.query(
    `insert into webhook_listeners (merchant_account_number, callback_url, event_codes, webhook_signature, signing_secret, lease_seconds, expires_at, created_by)
     values ($1, 'https://example.com/listen', '{batch.received}', $2, $3, 60, now() + interval '1 minute', 'tester')`,
    [m, SIGNATURE, SECRET],
  );
  await db.query(`insert into settlement_accounts (merchant_account_number, account_number, connector_id, account_name, captured_by) values ($1, '1000000001', 212188, 'Shop A', 'tester')`, [m]);

  // A rail payout, the switch's word on it, and a word on a transfer of no one's.
  ids.transfer = 'aaaaaaaa-2222-3333-4444-555555555555';
  await db.query(
    `insert into rail_payouts (merchant_account_number, payout_id, rail, phase, transfer_id, quote_id, transaction_id, party_id_type, party_identifier)
     values ($1, $2, 'mojaloop', 'committed', $3, gen_random_uuid(), gen_random_uuid(), 'MSISDN', '265991234567')`,
    [m, ids.payout, ids.transfer],
  );
  await db.query(
    `insert into rail_transfer_reports (rail, transfer_id, transfer_state) values ('mojaloop', $1, 'COMMITTED'), ('mojaloop', 'bbbbbbbb-2222-3333-4444-555555555555', 'COMMITTED')`,
    [ids.transfer],
  );
});

afterAll(async () => {
  await database?.drop();
});

describe('migration 0030 on a database with data', () => {
  it('keeps every row and relationship, and leads keys with the merchant', async () => {
    const before = await snapshot();
    expect(before.webhook_attempts).toHaveLength(1);
    expect(await migrate(db)).toEqual(readMigrations().filter((m) => m.version > BEFORE).map((m) => m.version));
    expect(await snapshot()).toEqual(before);

    // Group E: the upload's chunks carry their batch's merchant; the chunk of no batch is gone.
    const chunks = (await db.query('select merchant_account_number, seq from batch_upload_chunks order by seq')).rows;
    expect(chunks).toEqual([
      { merchant_account_number: a.merchantAccountNumber, seq: 0 },
      { merchant_account_number: a.merchantAccountNumber, seq: 1 },
    ]);
    // The switch's word is kept with the transfer's merchant; the word on no transfer of ours is gone.
    const reports = (await db.query('select merchant_account_number, transfer_id, transfer_state from rail_transfer_reports')).rows;
    expect(reports).toEqual([{ merchant_account_number: a.merchantAccountNumber, transfer_id: ids.transfer, transfer_state: 'COMMITTED' }]);

    const pk = async (table: string) =>
      (await one<{ def: string }>(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = $1::regclass and contype = 'p'`, [table])).def;
    expect(await pk('payouts')).toBe('PRIMARY KEY (merchant_account_number, payout_id)');
    expect(await pk('merchant_users')).toBe('PRIMARY KEY (merchant_account_number, user_id)');
    expect(await pk('batch_upload_chunks')).toBe('PRIMARY KEY (merchant_account_number, upload_id, seq)');
    expect(await pk('rail_transfer_reports')).toBe('PRIMARY KEY (merchant_account_number, rail, transfer_id)');
  });

  it('finds the key pair with its merchant, and lets two merchants hold the same client key', async () => {
    const key = await findLiveKeyByClientKey(db, a.merchantAccountNumber, a.apiKey);
    expect(key?.merchant_account_number).toBe(a.merchantAccountNumber);
    expect(await findLiveKeyByClientKey(db, b.merchantAccountNumber, a.apiKey)).toBeUndefined();
    const copy = `insert into api_keys (merchant_account_number, organisation_id, client_key, secret_hash, captured_by)
                  select $1, organisation_id, client_key, secret_hash, 'tester' from api_keys where merchant_account_number = $2 and client_key = $3`;
    await db.query(copy, [b.merchantAccountNumber, a.merchantAccountNumber, a.apiKey]);
    expect((await findLiveKeyByClientKey(db, b.merchantAccountNumber, a.apiKey))?.merchant_account_number).toBe(b.merchantAccountNumber);
    await expect(db.query(copy, [a.merchantAccountNumber, a.merchantAccountNumber, a.apiKey])).rejects.toMatchObject({ code: '23505', constraint: 'api_keys_client_key_live' });
  });

  it('holds foreign keys between merchant tables within one merchant', async () => {
    // An attempt of A's delivery filed under B: refused.
    await expect(
      db.query(`insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, latency_ms) values ($1, $2, 2, now(), 1)`, [
        ids.delivery,
        b.merchantAccountNumber,
      ]),
    ).rejects.toMatchObject({ code: '23503', constraint: 'webhook_attempts_delivery_id_fkey' });
    // Message ids, references and batch lines are unique per merchant.
    await expect(
      db.query(`insert into webhook_deliveries (merchant_account_number, event_id, event_code, callback_url, message_id) values ($1, $2, 'batch.received', 'https://example.com/hook', 'msg_1')`, [
        a.merchantAccountNumber,
        ids.event,
      ]),
    ).rejects.toMatchObject({ code: '23505', constraint: 'webhook_deliveries_merchant_account_number_message_id_key' });
    // A subscription with deliveries cannot go while they point at it (no ON DELETE SET NULL since
    // migration 0034: Citus refuses it); detached first, as deleteSubscription does, the delivery
    // keeps its merchant, without the subscription.
    await expect(
      db.query('delete from webhook_subscriptions where merchant_account_number = $1 and webhook_id = $2', [a.merchantAccountNumber, ids.webhook]),
    ).rejects.toMatchObject({ code: '23503', constraint: 'webhook_deliveries_webhook_id_fkey' });
    await db.query('update webhook_deliveries set webhook_id = null where merchant_account_number = $1 and webhook_id = $2', [a.merchantAccountNumber, ids.webhook]);
    await db.query('delete from webhook_subscriptions where merchant_account_number = $1 and webhook_id = $2', [a.merchantAccountNumber, ids.webhook]);
    expect(await one('select merchant_account_number, webhook_id from webhook_deliveries where delivery_id = $1', [ids.delivery])).toEqual({
      merchant_account_number: a.merchantAccountNumber,
      webhook_id: null,
    });
  });
});

// Migration 0031 (cross-merchant uniqueness in claims tables, docs/scaling.md section 4, group C)
// on a database that already holds data: 0001–0030 applied to an empty database, rows written as
// releases up to 0030 wrote them (two merchants, a funding, an open and a used invitation), then
// 0031: each claims table holds one claim per existing value, naming its merchant, the old
// cross-merchant constraints are gone, and the service still finds each merchant by its value.
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import type { Db } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { findPayableAccount } from '../../src/modules/collections/rail-payments.ts';
import { recordFunding } from '../../src/modules/merchants/fundings.ts';
import { openInvitation, setPassword } from '../../src/modules/users/service.ts';
import { TestClock } from '../helpers.ts';
import { databaseMigratedTo, type PartlyMigrated } from './migrated-to.ts';

const BEFORE = 30;
const A = 31000001;
const B = 31000002;
const PAY_A = '9310000000001';
const PAY_B = '9310000000002';
const OPEN_TOKEN = 'o'.repeat(43);
const USED_TOKEN = 'u'.repeat(43);
const sha256 = (text: string) => createHash('sha256').update(text).digest();

let database: PartlyMigrated;
let emptyUrl: string;
let db: Db;
let deps: Deps;
const ids: Record<string, number | string> = {};

async function one<T>(sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query(sql, params);
  return rows[0] as T;
}

beforeAll(async () => {
  database = await databaseMigratedTo(BEFORE);
  emptyUrl = database.url;
  db = database.db;
  const config = loadConfig({ DATABASE_URL: emptyUrl, ADMIN_TOKEN: 'test-admin-token-0123456789', LOG_LEVEL: 'silent', JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789' });
  deps = { db, config, clock: new TestClock(), log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };

  // Written in SQL, as releases up to 0030 wrote them (today's code writes the claims too).
  await db.query(`
    insert into organisations (organisation_id, organisation_name) values ('ORG000000031', 'Migration Org');
    insert into merchants (merchant_account_number, organisation_id, account_name, currency_code, payment_account_number, captured_by) values
      (${A}, 'ORG000000031', 'Claims One', 'MWK', '${PAY_A}', 'test'),
      (${B}, 'ORG000000031', 'Claims Two', 'MWK', '${PAY_B}', 'test');`);
  ids.transfer = (await one<{ transfer_id: string }>(`insert into ledger_transfers (merchant_account_number, transfer_type, reference) values ($1, 'funding', 'FUNDREF00001') returning transfer_id`, [A])).transfer_id;
  ids.funding = (
    await one<{ funding_id: string }>(
      `insert into merchant_fundings (merchant_account_number, currency_code, amount_minor, bank_reference, received_on, recorded_by, transaction_reference_number, transfer_id)
       values ($1, 'MWK', 250000, 'FT-MIG-0031', '2026-11-20', 'treasury@onekhusa.example', 'FUNDREF00001', $2) returning funding_id`,
      [A, ids.transfer],
    )
  ).funding_id;
  ids.user = (
    await one<{ user_id: string }>(
      `insert into merchant_users (organisation_id, merchant_account_number, first_name, last_name, email_address, phone_number, role_id, captured_by)
       values ('ORG000000031', $1, 'Tiwonge', 'Phiri', 'tiwonge@example.mw', '265991234567', 2, 'test') returning user_id`,
      [A],
    )
  ).user_id;
  ids.usedInvitation = (
    await one<{ invitation_id: string }>(
      `insert into user_invitations (merchant_account_number, user_id, token_hash, created_at, expires_at, revoked_at)
       values ($1, $2, $3, now() - interval '2 hours', now() + interval '1 day', now() - interval '1 hour') returning invitation_id`,
      [A, ids.user, sha256(USED_TOKEN)],
    )
  ).invitation_id;
  ids.openInvitation = (
    await one<{ invitation_id: string }>(
      `insert into user_invitations (merchant_account_number, user_id, token_hash, expires_at) values ($1, $2, $3, now() + interval '1 day') returning invitation_id`,
      [A, ids.user, sha256(OPEN_TOKEN)],
    )
  ).invitation_id;
});

afterAll(async () => {
  await database?.drop();
});

describe('migration 0031 on a database with data', () => {
  it('claims every existing value for its merchant, and drops the cross-merchant constraints', async () => {
    expect(await migrate(db)).toEqual(readMigrations().filter((m) => m.version > BEFORE).map((m) => m.version));

    expect((await db.query('select payment_account_number, owner_merchant_account_number from payment_account_claims order by payment_account_number')).rows).toEqual([
      { payment_account_number: PAY_A, owner_merchant_account_number: A },
      { payment_account_number: PAY_B, owner_merchant_account_number: B },
    ]);
    expect((await db.query('select bank_reference, owner_merchant_account_number, funding_id from funding_claims')).rows).toEqual([
      { bank_reference: 'FT-MIG-0031', owner_merchant_account_number: A, funding_id: ids.funding },
    ]);
    // The used (revoked) invitation keeps its token taken, as its unique hash did.
    expect((await db.query('select token_hash, owner_merchant_account_number, invitation_id from invitation_claims order by invitation_id')).rows).toEqual([
      { token_hash: sha256(USED_TOKEN), owner_merchant_account_number: A, invitation_id: ids.usedInvitation },
      { token_hash: sha256(OPEN_TOKEN), owner_merchant_account_number: A, invitation_id: ids.openInvitation },
    ]);

    const constraints = (
      await db.query<{ name: string }>(
        `select conname as name from pg_constraint where conname in ('merchants_payment_account_number_key', 'merchant_fundings_bank_reference_key', 'user_invitations_token_hash_key')`,
      )
    ).rows;
    expect(constraints).toEqual([]);
    // Reference tables: no merchant_account_number column (that would make them merchant-owned).
    const { rows: columns } = await db.query(
      `select attrelid::regclass::text as table from pg_attribute
        where attrelid in ('payment_account_claims'::regclass, 'funding_claims'::regclass, 'invitation_claims'::regclass) and attname = 'merchant_account_number'`,
    );
    expect(columns).toEqual([]);
  });

  it('finds the merchant of a payment account through its claim, and keeps one merchant per number', async () => {
    const payable = await findPayableAccount(db, PAY_A);
    expect(payable).toMatchObject({ kind: 'payment', merchant: { merchant_account_number: A } });
    // B's number for a new merchant: its claim is taken.
    await db.query(`insert into merchants (merchant_account_number, organisation_id, account_name, payment_account_number, captured_by) values (31000003, 'ORG000000031', 'Thief', $1, 'test')`, [PAY_B]).then(
      () => expect.unreachable('a merchant row without its claim'),
      (err) => expect(err).toMatchObject({ code: '23503', constraint: 'merchants_payment_account_claim_fkey' }),
    );
    await expect(db.query(`insert into payment_account_claims (payment_account_number, owner_merchant_account_number) values ($1, 31000003)`, [PAY_B])).rejects.toMatchObject({
      code: '23505',
      constraint: 'payment_account_claims_pkey',
    });
  });

  it('answers a funding recorded before 0031 again, and refuses its bank reference to another merchant', async () => {
    const again = await recordFunding(deps, { merchantAccountNumber: A, amountMinor: 250000, bankReference: ' ft-mig-0031 ', receivedOn: '2026-11-20', recordedBy: 'x@onekhusa.example' });
    expect(again).toMatchObject({ created: false, funding: { fundingId: Number(ids.funding), merchantAccountNumber: A, bankReference: 'FT-MIG-0031' } });
    await expect(
      recordFunding(deps, { merchantAccountNumber: B, amountMinor: 250000, bankReference: 'FT-MIG-0031', receivedOn: '2026-11-20', recordedBy: 'x@onekhusa.example' }),
    ).rejects.toMatchObject({ kind: 'conflict', detailKey: 'detail.fundingReferenceUsed', params: { merchantAccountNumber: A } });
  });

  it('opens and uses an invitation issued before 0031 by its token alone', async () => {
    expect(await openInvitation(deps, USED_TOKEN)).toBeUndefined();
    expect(await openInvitation(deps, OPEN_TOKEN)).toMatchObject({ merchant_account_number: A, user_id: ids.user });
    expect(await setPassword(deps, OPEN_TOKEN, 'a long enough passphrase 0031')).toBe(true);
    expect(await setPassword(deps, OPEN_TOKEN, 'a long enough passphrase 0031')).toBe(false);
    expect(await one('select used_at is not null as used from user_invitations where merchant_account_number = $1 and invitation_id = $2', [A, ids.openInvitation])).toEqual({ used: true });
  });
});

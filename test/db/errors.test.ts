// Which constraint refused a write (src/db/errors.ts): from PostgreSQL's own error, and from the
// error Citus re-raises on the coordinator, which carries the message alone, naming the shard's
// copy of the constraint. The Citus messages below are as Citus 13.2 gave them (docs/scaling.md,
// "Measured on Citus"): without this, a duplicate idempotency key or an overdraft on a cluster fell
// through to a 500.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isViolation, violatedConstraint } from '../../src/db/errors.ts';
import { isKeyHeld } from '../../src/http/idempotency.ts';
import { createTestDatabase } from '../helpers.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(`create temporary table zz_claims (code text constraint zz_claims_pkey primary key, amount int constraint zz_amount_positive check (amount > 0))`);
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

async function errorOf(sql: string): Promise<unknown> {
  try {
    await client.query(sql);
  } catch (err) {
    return err;
  }
  throw new Error(`no error from ${sql}`);
}

describe('violatedConstraint and isViolation', () => {
  it('name the constraint of a PostgreSQL error', async () => {
    await client.query(`insert into zz_claims values ('a', 1)`);
    const unique = await errorOf(`insert into zz_claims values ('a', 2)`);
    expect(violatedConstraint(unique)).toBe('zz_claims_pkey');
    expect(isViolation(unique, '23505', 'zz_claims_pkey')).toBe(true);
    expect(isViolation(unique, '23514', 'zz_claims_pkey')).toBe(false);
    expect(isViolation(unique, '23505', 'zz_amount_positive')).toBe(false);

    const check = await errorOf(`insert into zz_claims values ('b', 0)`);
    expect(violatedConstraint(check)).toBe('zz_amount_positive');
    expect(isViolation(check, '23514', 'zz_amount_positive')).toBe(true);
  });

  it('name the table\'s constraint from the message of an error Citus re-raised from a shard', () => {
    const unique = { code: '23505', message: 'duplicate key value violates unique constraint "idempotency_keys_pkey_102105"' };
    expect(violatedConstraint(unique)).toBe('idempotency_keys_pkey');
    expect(isViolation(unique, '23505', 'idempotency_keys_pkey')).toBe(true);
    const check = { code: '23514', message: 'new row for relation "ledger_accounts_102040" violates check constraint "ledger_balance_non_negative_102040"' };
    expect(violatedConstraint(check)).toBe('ledger_balance_non_negative');
    expect(isViolation(check, '23514', 'ledger_balance_non_negative')).toBe(true);
    // A second request with a key another one is storing: replayed from the holder's record, not a 500.
    expect(isKeyHeld(unique)).toBe(true);
    expect(isKeyHeld({ code: '23505', message: 'duplicate key value violates unique constraint "payouts_pkey_102010"' })).toBe(false);
  });

  it('name nothing for an error without a constraint, and keep a name that merely ends in a digit', async () => {
    expect(violatedConstraint(await errorOf('select 1/0'))).toBeUndefined();
    expect(violatedConstraint(new Error('socket hang up'))).toBeUndefined();
    expect(violatedConstraint(undefined)).toBeUndefined();
    expect(violatedConstraint({ code: '23505', constraint: 'limits_v2' })).toBe('limits_v2');
  });
});

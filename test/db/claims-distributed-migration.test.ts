// Migration 0032 (docs/scaling.md section 4, group C): the timed account number and the checkout's
// ptid, unique across merchants, move from payment_requests' unique indexes to claims tables keyed
// by the value (timed_account_claims, ptid_claims). On a database that already holds requests:
// 0001–0031 applied to an empty database, open, paid and expired requests of two merchants written
// (a number used twice, checkouts among them), then 0032: each number is claimed by its latest
// request (open or not), each ptid by its request, and the two cross-merchant constraints are gone.
// Then the claims' behaviour: a number is taken again exactly when the partial unique index
// (where status_code = 'O') allowed it, two concurrent E12s cannot take one number, and a paid or
// expired number still finds its request (E921/E920), but no payable account.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import type { Db, Queryable } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { findCheckout, lockCheckout } from '../../src/modules/checkout/repository.ts';
import { findPayableAccount } from '../../src/modules/collections/rail-payments.ts';
import * as repo from '../../src/modules/collections/repository.ts';
import { createMerchant, type MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { TestClock } from '../helpers.ts';
import { databaseMigratedTo, type PartlyMigrated } from './migrated-to.ts';

const BEFORE = 31;
const PTID_OPEN = `${'P'.repeat(31)}1`;
const PTID_CLOSED = `${'Q'.repeat(31)}2`;

let database: PartlyMigrated;
let emptyUrl: string;
let db: Db;
let a: MerchantCredentials;
let b: MerchantCredentials;
const ids: Record<string, number> = {};

async function one<T>(sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query(sql, params);
  return rows[0] as T;
}

/** A request written as the code before 0032 wrote it (no claim). */
async function oldRequest(merchant: number, timed: string, status: 'O' | 'P' | 'E', ref: string, ptid?: string): Promise<number> {
  const r = await one<{ request_id: string }>(
    `insert into payment_requests (merchant_account_number, timed_account_number, amount_minor, currency_code, transaction_description, reference_number,
                                   captured_by, status_code, paid_at, expires_at, payment_transaction_id, source_reference_number, success_redirect_url, failure_redirect_url)
     values ($1, $2, 5000, 'MWK', 'Order', $3::text, 'tester', $4::text, case when $4::text = 'P' then now() end,
             now() + case when $4::text = 'E' then interval '1 second' else interval '1 hour' end,
             $5::text, case when $5::text is not null then 'SRC' || $3::text end, case when $5::text is not null then 'https://shop.example/ok' end,
             case when $5::text is not null then 'https://shop.example/ko' end)
     returning request_id`,
    [merchant, timed, ref, status, ptid ?? null],
  );
  return Number(r.request_id);
}

function newRequest(merchant: number, timed: string, ref: string, q: Queryable = db) {
  return repo.insertPaymentRequest(q, {
    merchantAccountNumber: merchant,
    timedAccountNumber: timed,
    amountMinor: 50000,
    transactionDescription: 'Order',
    referenceNumber: ref,
    capturedBy: 'tester',
    expiryMinutes: 15,
  });
}

async function claimOf(timed: string) {
  return one<{ merchant_account_number: number; request_id: number; is_open: boolean } | undefined>(
    'select merchant_account_number, request_id, is_open from timed_account_claims where timed_account_number = $1',
    [timed],
  );
}

beforeAll(async () => {
  database = await databaseMigratedTo(BEFORE, { poolSize: 4 });
  emptyUrl = database.url;
  db = database.db;

  const config = loadConfig({ DATABASE_URL: emptyUrl, ADMIN_TOKEN: 'test-admin-token-0123456789', LOG_LEVEL: 'silent', JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789' });
  const deps: Deps = { db, config, clock: new TestClock(), log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };
  a = await createMerchant(deps, { accountName: 'Shop A' });
  b = await createMerchant(deps, { accountName: 'Shop B' });
  await db.query(`update merchants set status_code = 'A' where merchant_account_number in ($1, $2)`, [a.merchantAccountNumber, b.merchantAccountNumber]);

  // 10000001: paid by A's request, then taken by B's, still open.
  ids.paidA1 = await oldRequest(a.merchantAccountNumber, '10000001', 'P', 'ORDERA1');
  ids.openB1 = await oldRequest(b.merchantAccountNumber, '10000001', 'O', 'ORDERB1');
  // 10000002: expired for A, then paid for B: free now.
  ids.expiredA2 = await oldRequest(a.merchantAccountNumber, '10000002', 'E', 'ORDERA2');
  ids.paidB2 = await oldRequest(b.merchantAccountNumber, '10000002', 'P', 'ORDERB2');
  // Checkouts: A's open, B's expired.
  ids.checkoutA3 = await oldRequest(a.merchantAccountNumber, '10000003', 'O', 'ORDERA3', PTID_OPEN);
  ids.checkoutB4 = await oldRequest(b.merchantAccountNumber, '10000004', 'E', 'ORDERB4', PTID_CLOSED);
});

afterAll(async () => {
  await database?.drop();
});

describe('migration 0032: cross-merchant claims of payment requests', () => {
  it('claims each number for its latest request and each ptid for its request, and drops the two cross-merchant constraints', async () => {
    const before = (await db.query('select * from payment_requests order by request_id')).rows;
    expect(await migrate(db)).toEqual(readMigrations().filter((m) => m.version > BEFORE).map((m) => m.version));
    expect((await db.query('select * from payment_requests order by request_id')).rows).toEqual(before);

    const claims = (await db.query('select timed_account_number, merchant_account_number, request_id::int, is_open from timed_account_claims order by 1')).rows;
    expect(claims).toEqual([
      { timed_account_number: '10000001', merchant_account_number: b.merchantAccountNumber, request_id: ids.openB1, is_open: true },
      { timed_account_number: '10000002', merchant_account_number: b.merchantAccountNumber, request_id: ids.paidB2, is_open: false },
      { timed_account_number: '10000003', merchant_account_number: a.merchantAccountNumber, request_id: ids.checkoutA3, is_open: true },
      { timed_account_number: '10000004', merchant_account_number: b.merchantAccountNumber, request_id: ids.checkoutB4, is_open: false },
    ]);
    expect((await db.query('select payment_transaction_id, merchant_account_number, request_id::int from ptid_claims order by 1')).rows).toEqual([
      { payment_transaction_id: PTID_OPEN, merchant_account_number: a.merchantAccountNumber, request_id: ids.checkoutA3 },
      { payment_transaction_id: PTID_CLOSED, merchant_account_number: b.merchantAccountNumber, request_id: ids.checkoutB4 },
    ]);
    const gone = await db.query(
      `select 1 from pg_class where relname in ('payment_requests_open_timed_account', 'payment_requests_payment_transaction_id_key')
       union all select 1 from pg_constraint where conname = 'payment_requests_payment_transaction_id_key'`,
    );
    expect(gone.rowCount).toBe(0);
  });

  it('finds existing checkouts by their ptid (old links keep working)', async () => {
    expect((await findCheckout(db, PTID_OPEN))?.request_id).toEqual(ids.checkoutA3);
    expect((await findCheckout(db, PTID_CLOSED))?.status_code).toBe('E');
    expect(await findCheckout(db, 'Z'.repeat(32))).toBeUndefined();
    const client = await db.connect();
    try {
      await client.query('begin');
      expect((await lockCheckout(client, PTID_OPEN))?.merchant_account_number).toBe(a.merchantAccountNumber);
      await client.query('rollback');
    } finally {
      client.release();
    }
  });

  it('takes a number again exactly when the open-request index allowed it', async () => {
    // Open (B's): refused, for either merchant.
    expect((await newRequest(a.merchantAccountNumber, '10000001', 'NEWA1')).request).toBeNull();
    expect((await newRequest(b.merchantAccountNumber, '10000001', 'NEWB1')).request).toBeNull();
    // Past its expiry but not yet expired by the job (still status O): still refused, as the index did.
    await db.query(`update payment_requests set expires_at = created_at + interval '1 millisecond' where request_id = $1`, [ids.openB1]);
    expect((await newRequest(a.merchantAccountNumber, '10000001', 'NEWA1')).request).toBeNull();
    // The job expires it: the number is free, and the next request takes it.
    expect(await repo.expireRequests(db)).toBeGreaterThanOrEqual(1);
    expect(await claimOf('10000001')).toMatchObject({ is_open: false });
    const taken = (await newRequest(a.merchantAccountNumber, '10000001', 'NEWA1')).request!;
    expect(taken).not.toBeNull();
    expect(await claimOf('10000001')).toEqual({ merchant_account_number: a.merchantAccountNumber, request_id: taken.request_id, is_open: true });
    // Paid: the number is free again at once.
    const client = await db.connect();
    try {
      await client.query('begin');
      await repo.markRequestPaid(client, Number(taken.request_id));
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await claimOf('10000001')).toMatchObject({ is_open: false, request_id: taken.request_id });
    expect((await newRequest(b.merchantAccountNumber, '10000001', 'NEWB1')).request?.merchant_account_number).toBe(b.merchantAccountNumber);
    // 10000002 was free at migration (its latest request paid).
    expect((await newRequest(a.merchantAccountNumber, '10000002', 'NEWA2')).request?.timed_account_number).toBe('10000002');
  });

  it('lets only one of two concurrent requests take a number', async () => {
    const first = await db.connect();
    try {
      await first.query('begin');
      expect((await newRequest(a.merchantAccountNumber, '10000009', 'RACEA', first)).request).not.toBeNull();
      // The second waits on the first's claim …
      const second = newRequest(b.merchantAccountNumber, '10000009', 'RACEB');
      const waiting = await Promise.race([second.then(() => 'done'), new Promise((r) => setTimeout(() => r('waiting'), 300))]);
      expect(waiting).toBe('waiting');
      await first.query('commit');
      // … and then finds it taken: no request, the merchant's fields for the caller to draw again.
      const outcome = await second;
      expect(outcome.request).toBeNull();
      expect(outcome.merchant_status).toBe('A');
    } finally {
      first.release();
    }
    expect(Number((await one<{ n: number }>(`select count(*)::int as n from payment_requests where timed_account_number = '10000009'`)).n)).toBe(1);
    // A batch of E12s skips the number an open request holds, and takes the others.
    const outcomes = await repo.insertPaymentRequests(
      db,
      [
        { merchantAccountNumber: b.merchantAccountNumber, timedAccountNumber: '10000009', amountMinor: 50000, transactionDescription: 'Order', referenceNumber: 'BATCH1', capturedBy: 'tester', expiryMinutes: 15 },
        { merchantAccountNumber: b.merchantAccountNumber, timedAccountNumber: '10000010', amountMinor: 50000, transactionDescription: 'Order', referenceNumber: 'BATCH2', capturedBy: 'tester', expiryMinutes: 15 },
        { merchantAccountNumber: b.merchantAccountNumber, timedAccountNumber: '10000011', amountMinor: 50000, transactionDescription: 'Order', referenceNumber: 'BATCH2', capturedBy: 'tester', expiryMinutes: 15 },
      ],
      15,
      24,
    );
    expect(outcomes.map((o) => o.request?.timed_account_number ?? null)).toEqual([null, '10000010', null]);
    expect(await claimOf('10000010')).toMatchObject({ merchant_account_number: b.merchantAccountNumber, is_open: true });
    // The row skipped for its reference left no claim behind.
    expect(await claimOf('10000011')).toBeUndefined();
  });

  it('finds no payable account behind an expired or paid number, but still names its request (E920/E921)', async () => {
    const opened = (await newRequest(a.merchantAccountNumber, '10000020', 'EXPIRE1')).request!;
    const paid = (await newRequest(b.merchantAccountNumber, '10000021', 'PAID21')).request!;
    expect((await findPayableAccount(db, '10000020'))?.kind).toBe('timed');
    await db.query(`update payment_requests set expires_at = created_at + interval '1 millisecond' where request_id = $1`, [opened.request_id]);
    await repo.expireRequests(db);
    expect(await findPayableAccount(db, '10000020')).toBeUndefined();
    const client = await db.connect();
    try {
      await client.query('begin');
      const locked = await repo.lockRequestByTimedAccount(client, '10000020');
      expect(locked).toMatchObject({ request_id: opened.request_id, status_code: 'E' });
      // Paid numbers name their request too (E921); unknown ones nothing (E903).
      await repo.markRequestPaid(client, paid.request_id);
      expect(await repo.lockRequestByTimedAccount(client, '10000021')).toMatchObject({ request_id: paid.request_id, status_code: 'P' });
      expect(await findPayableAccount(client, '10000021')).toBeUndefined();
      expect((await repo.lockRequestByTimedAccount(client, '10000004'))?.status_code).toBe('E');
      expect(await repo.lockRequestByTimedAccount(client, '19999999')).toBeUndefined();
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(await findPayableAccount(db, '10000004')).toBeUndefined();
  });

  it('claims a new checkout\'s ptid with its request, in the same statement', async () => {
    const ptid = `${'N'.repeat(31)}3`;
    const outcome = await repo.insertPaymentRequest(db, {
      merchantAccountNumber: b.merchantAccountNumber,
      timedAccountNumber: '10000030',
      amountMinor: 50000,
      transactionDescription: 'Order',
      referenceNumber: 'CHECKOUT30',
      capturedBy: 'tester',
      expiryMinutes: 15,
      checkout: { paymentTransactionId: ptid, sourceReferenceNumber: 'SRC30', successRedirectUrl: 'https://shop.example/ok', failureRedirectUrl: 'https://shop.example/ko', callback: null },
    });
    expect(outcome.request?.payment_transaction_id).toBe(ptid);
    expect((await findCheckout(db, ptid))?.request_id).toEqual(outcome.request!.request_id);
    // A ptid is unique for ever, across merchants: a second claim of it fails the whole statement.
    await expect(
      repo.insertPaymentRequest(db, {
        merchantAccountNumber: a.merchantAccountNumber,
        timedAccountNumber: '10000031',
        amountMinor: 50000,
        transactionDescription: 'Order',
        referenceNumber: 'CHECKOUT31',
        capturedBy: 'tester',
        expiryMinutes: 15,
        checkout: { paymentTransactionId: ptid, sourceReferenceNumber: 'SRC31', successRedirectUrl: 'https://shop.example/ok', failureRedirectUrl: 'https://shop.example/ko', callback: null },
      }),
    ).rejects.toMatchObject({ code: '23505', constraint: 'ptid_claims_pkey' });
    expect(await claimOf('10000031')).toBeUndefined();
  });
});

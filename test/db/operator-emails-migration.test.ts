// Migration 0033 (docs/scaling.md section 4, group E: every e-mail is a merchant's) on a database
// that already holds e-mails: 0001–0032 applied to an empty database, e-mails of two merchants
// and e-mails without a merchant (as 0005 allowed) written, then 0033. The merchants' rows stay
// as they were and are keyed (merchant_account_number, email_id); the rows without a merchant are
// in operator_email_outbox under their ids, still listed for the operator, and a pending one is
// still delivered by the job queued for it before the migration ({emailId} alone).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import type { Db } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { listEmails } from '../../src/modules/email/repository.ts';
import { sendEmailTask } from '../../src/modules/email/service.ts';
import { createMerchant } from '../../src/modules/merchants/service.ts';
import { TestClock } from '../helpers.ts';
import { databaseMigratedTo, type PartlyMigrated } from './migrated-to.ts';

const BEFORE = 32;
const COLUMNS = 'email_id, recipient, subject, body_text, body_html, status, attempts, last_error, created_at, sent_at';

let database: PartlyMigrated;
let emptyUrl: string;
let db: Db;
let deps: Deps;
let a: number;
let b: number;
const id: Record<string, number> = {};
let before: { merchants: unknown[]; operator: unknown[] };

async function insertEmail(name: string, merchant: number | null, status: 'pending' | 'held' | 'sent' | 'failed', minutesAgo: number): Promise<void> {
  const { rows } = await db.query<{ email_id: string }>(
    `insert into email_outbox (merchant_account_number, recipient, subject, body_text, body_html, status, attempts, last_error, created_at, sent_at)
     values ($1, $2, $3, $4, '<p>' || $4 || '</p>', $5::varchar, case when $5::varchar = 'failed' then 8 else 0 end,
             case when $5::varchar = 'failed' then 'ECONNREFUSED' end, now() - make_interval(mins => $6), case when $5::varchar = 'sent' then now() end)
     returning email_id`,
    [merchant, `${name}@shop.mw`, `Subject ${name}`, `Body of ${name}`, status, minutesAgo],
  );
  id[name] = Number(rows[0].email_id);
}

beforeAll(async () => {
  database = await databaseMigratedTo(BEFORE);
  emptyUrl = database.url;
  db = database.db;

  const config = loadConfig({ DATABASE_URL: emptyUrl, ADMIN_TOKEN: 'test-admin-token-0123456789', LOG_LEVEL: 'silent', JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789' });
  expect(config.smtpUrl).toBeFalsy();
  deps = { db, config, clock: new TestClock(), log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(config.jwtSecret) };
  a = (await createMerchant(deps, { accountName: 'Shop A' })).merchantAccountNumber;
  b = (await createMerchant(deps, { accountName: 'Shop B' })).merchantAccountNumber;

  // Interleaved in time, so the listing's one order runs across both tables afterwards.
  await insertEmail('a-held', a, 'held', 60);
  await insertEmail('ops-sent', null, 'sent', 50);
  await insertEmail('b-pending', b, 'pending', 40);
  await insertEmail('ops-held', null, 'held', 30);
  await insertEmail('a-failed', a, 'failed', 20);
  await insertEmail('ops-pending', null, 'pending', 10);
  await insertEmail('a-pending', a, 'pending', 5);

  before = {
    merchants: (await db.query(`select merchant_account_number, ${COLUMNS} from email_outbox where merchant_account_number is not null order by email_id`)).rows,
    operator: (await db.query(`select ${COLUMNS} from email_outbox where merchant_account_number is null order by email_id`)).rows,
  };
  expect(before.operator).toHaveLength(3);

  expect(await migrate(db)).toEqual(readMigrations().filter((m) => m.version > BEFORE).map((m) => m.version));
});

afterAll(async () => {
  await database?.drop();
});

describe('migration 0033 on a database with e-mails', () => {
  it('keeps every merchant e-mail as it was, and moves those without a merchant, unchanged and under their ids, to operator_email_outbox', async () => {
    expect((await db.query(`select merchant_account_number, ${COLUMNS} from email_outbox order by email_id`)).rows).toEqual(before.merchants);
    expect((await db.query(`select ${COLUMNS} from operator_email_outbox order by email_id`)).rows).toEqual(before.operator);
  });

  it('makes email_outbox a merchant\'s table: merchant_account_number NOT NULL, primary key (merchant_account_number, email_id)', async () => {
    const { rows } = await db.query<{ def: string }>(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'email_outbox'::regclass and contype = 'p'`);
    expect(rows.map((r) => r.def)).toEqual(['PRIMARY KEY (merchant_account_number, email_id)']);
    await expect(
      db.query(`insert into email_outbox (merchant_account_number, recipient, subject, body_text, body_html) values (null, 'x@shop.mw', 's', 't', 'h')`),
    ).rejects.toMatchObject({ code: '23502', column: 'merchant_account_number' });
  });

  it("lists both tables to the operator in one order, newest first, the operator's with no merchant", async () => {
    const all = await listEmails(db, { offset: 0, limit: 100 });
    expect(all.map((e) => [Number(e.email_id), e.merchant_account_number])).toEqual([
      [id['a-pending'], a],
      [id['ops-pending'], null],
      [id['a-failed'], a],
      [id['ops-held'], null],
      [id['b-pending'], b],
      [id['ops-sent'], null],
      [id['a-held'], a],
    ]);
    expect((await listEmails(db, { status: 'held', offset: 0, limit: 100 })).map((e) => Number(e.email_id))).toEqual([id['ops-held'], id['a-held']]);
    expect((await listEmails(db, { recipient: 'OPS-SENT@shop.mw', offset: 0, limit: 100 })).map((e) => e.subject)).toEqual(['Subject ops-sent']);
    // Paged across the seam between the tables.
    expect((await listEmails(db, { offset: 1, limit: 2 })).map((e) => Number(e.email_id))).toEqual([id['ops-pending'], id['a-failed']]);
  });

  it('delivers (here: holds, no SMTP_URL) what jobs queued before it name by id alone, in either table; a finished one is left as it is', async () => {
    const task = sendEmailTask(deps);
    await task({ emailId: id['ops-pending'] }, undefined as never);
    await task({ emailId: id['b-pending'] }, undefined as never);
    await task({ emailId: id['ops-sent'] }, undefined as never);
    expect((await db.query('select email_id, status from operator_email_outbox order by email_id')).rows.map((r) => [Number(r.email_id), r.status])).toEqual([
      [id['ops-sent'], 'sent'],
      [id['ops-held'], 'held'],
      [id['ops-pending'], 'held'],
    ]);
    expect((await db.query('select status from email_outbox where merchant_account_number = $1 and email_id = $2', [b, id['b-pending']])).rows).toEqual([{ status: 'held' }]);
  });

  it("a job naming the merchant reads that merchant's message only", async () => {
    const task = sendEmailTask(deps);
    await task({ merchantAccountNumber: b, emailId: id['a-pending'] }, undefined as never);
    expect((await db.query('select status from email_outbox where email_id = $1', [id['a-pending']])).rows).toEqual([{ status: 'pending' }]);
    await task({ merchantAccountNumber: a, emailId: id['a-pending'] }, undefined as never);
    expect((await db.query('select status from email_outbox where email_id = $1', [id['a-pending']])).rows).toEqual([{ status: 'held' }]);
  });
});

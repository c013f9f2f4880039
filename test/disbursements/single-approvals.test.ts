// Single payouts follow the merchant's authorisation level, as batches do (issue 14;
// docs.onekhusa.com, Disbursements overview: "Single: Create → Approve → Transfer" at four eyes,
// "Create → Review → Approve → Transfer" at six eyes; Review / Approve / Reject Single
// Disbursement). Level 1 pays at once; level 2 waits for PUT single/approve; level 3 for PUT
// single/review, then approve; POST single/reject ends it. The money is reserved (debit, daily
// limit) only at the approval, in its transaction; four eyes, merchant users' roles, idempotency
// and merchant isolation as for batches. The documented example bodies are sent as they are, with
// only account numbers and references replaced. Against the real app and database; the payout
// job is run directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { BASE, clientError, dbState, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { addMerchantUser, AIRTEL, APPROVER, CAPTURER, idempotencyKey, NBM, REVIEWER, runPayouts, topup, validateBatch, WALLET_FEE } from '../money-ops.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
});
afterAll(() => t.close());

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(++seq).toString(36)}`.toUpperCase();

function send(who: TestMerchant, method: 'POST' | 'PUT', path: string, payload: object, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

async function merchant(levelNumber: number, fundMinor = 1_000_000): Promise<TestMerchant> {
  const m = await newMerchant(t, { accountName: `Level ${levelNumber} Single Shop`, levelNumber });
  if (fundMinor > 0) expect((await topup(t, m, fundMinor)).statusCode).toBe(200);
  return m;
}

/** The documentation's Add Single Disbursement body (its connector and account replaced by an Airtel wallet). */
function addBody(who: TestMerchant, over: Record<string, unknown> = {}) {
  return {
    merchantAccountNumber: who.merchantAccountNumber,
    beneficiaryName: 'John Phiri',
    connectorId: AIRTEL,
    beneficiaryAccountNumber: '265991234567',
    transactionDescription: 'Salary Payment',
    transactionAmount: 45000,
    sourceReferenceNumber: `QKAHXD${unique()}`,
    capturedBy: 'johndoe@example.com',
    ...over,
  };
}

async function add(who: TestMerchant, over: Record<string, unknown> = {}): Promise<string> {
  const res = await send(who, 'POST', '/disbursements/single/add', addBody(who, over));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().transactionReferenceNumber;
}

// The documented bodies of review / approve (PUT, actionedBy) and reject (POST, reasonForRejection, rejectedBy).
const review = (who: TestMerchant, ref: string, actionedBy = 'admin@example.com', headers: Record<string, string> = {}) =>
  send(who, 'PUT', '/disbursements/single/review', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber: ref, actionedBy }, headers);
const approve = (who: TestMerchant, ref: string, actionedBy = 'approver@example.com', headers: Record<string, string> = {}) =>
  send(who, 'PUT', '/disbursements/single/approve', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber: ref, actionedBy }, headers);
const reject = (who: TestMerchant, ref: string, rejectedBy = 'admin@example.com', headers: Record<string, string> = {}) =>
  send(
    who,
    'POST',
    '/disbursements/single/reject',
    { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber: ref, reasonForRejection: 'Invalid beneficiary account number format', rejectedBy },
    headers,
  );

async function record(who: TestMerchant, ref: string) {
  const res = await send(who, 'POST', '/disbursements/single/getTransaction', { merchantAccountNumber: who.merchantAccountNumber, transactionReferenceNumber: ref });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function balanceMinor(who: TestMerchant): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${who.merchantAccountNumber}`, headers: who.auth });
  return Math.round(res.json().disbursmentBalance * 100);
}

async function debits(ref: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from ledger_transfers where reference = $1 and transfer_type = 'payout_debit'`, [ref]);
  return rows[0].n;
}

async function dailyTotalMinor(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>('select coalesce(sum(amount_minor), 0) as n from payout_daily_totals where merchant_account_number = $1', [who.merchantAccountNumber]);
  return Number(rows[0].n);
}

async function payoutJobs(who: TestMerchant): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
      where k.identifier = 'process_payouts' and j.payload->>'merchantAccountNumber' = $1`,
    [String(who.merchantAccountNumber)],
  );
  return rows[0].n;
}

async function expectLedgerClean(): Promise<void> {
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
}

function refused(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, errorCode: string) {
  const p = clientError(res, status);
  expect(p.errorCode, res.body).toBe(errorCode);
  return p;
}

const AMOUNT = 4_500_000;

describe('level 1 (two eyes): paid at once, as before', () => {
  it('add debits and submits; review, approve and reject have nothing to act on (402 E916)', async () => {
    const m = await merchant(1, 10_000_000);
    const res = await send(m, 'POST', '/disbursements/single/add', addBody(m));
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: expect.stringMatching(/^[A-Z0-9]{12}$/), responseCode: 'T100' });
    const ref = res.json().transactionReferenceNumber;
    expect(await debits(ref)).toBe(1);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'T', levelNumber: 1, approvedBy: null, reviewedBy: null });
    expect(refused(await approve(m, ref), 402, 'E916').detail).toBe(`Transaction ${ref} is transferring funds: it cannot be approved now.`);
    refused(await review(m, ref), 402, 'E916');
    refused(await reject(m, ref), 402, 'E916');
    await runPayouts(t, m);
    expect(refused(await approve(m, ref), 402, 'E916').detail).toBe(`Transaction ${ref} is successful: it cannot be approved now.`);
    await expectLedgerClean();
  });
});

describe('level 2 (four eyes): create → approve → transfer', () => {
  it('add stores it pending with nothing debited or counted; approve (the documented body) reserves the money and submits it', async () => {
    const m = await merchant(2, 10_000_000);
    const before = await balanceMinor(m);
    const res = await send(m, 'POST', '/disbursements/single/add', addBody(m));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: expect.stringMatching(/^[A-Z0-9]{12}$/), responseCode: 'P100' });
    const ref: string = res.json().transactionReferenceNumber;

    // Not paid "16 ms later", nor ever, until approved: the payout job finds nothing to do.
    await runPayouts(t, m);
    expect(await balanceMinor(m)).toBe(before);
    expect(await debits(ref)).toBe(0);
    expect(await dailyTotalMinor(m)).toBe(0);
    expect(await payoutJobs(m)).toBe(0);
    expect(await record(m, ref)).toMatchObject({
      transactionStatusCode: 'P',
      transactionStatusName: 'Pending',
      responseCode: 'P100',
      responseMessage: 'Awaiting approval',
      levelNumber: 2,
      capturedBy: 'johndoe@example.com',
      approvedBy: null,
      dateApproved: null,
      transactionAmount: 45000,
      transactionFee: 100,
    });
    await expectLedgerClean();

    // Level 2 has no review step.
    refused(await review(m, ref), 402, 'E916');

    const approved = await approve(m, ref, 'johndoe2@example.com');
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: ref, responseCode: 'T100' });
    expect(await balanceMinor(m)).toBe(before - AMOUNT - WALLET_FEE);
    expect(await debits(ref)).toBe(1);
    expect(await dailyTotalMinor(m)).toBe(AMOUNT);
    expect(await payoutJobs(m)).toBe(1);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'T', approvedBy: 'johndoe2@example.com', dateApproved: expect.any(String), responseCode: 'T100' });
    await expectLedgerClean();

    // Approved once: a second approval (or a rejection) has nothing to act on.
    refused(await approve(m, ref, 'someone.else@example.com'), 402, 'E916');
    refused(await reject(m, ref), 402, 'E916');
    await runPayouts(t, m);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'S', responseCode: 'S100' });
    expect(await balanceMinor(m)).toBe(before - AMOUNT - WALLET_FEE);
    await expectLedgerClean();
  });

  it('the capturer may not approve (403 E902, four eyes in canonical form); nothing changes', async () => {
    const m = await merchant(2);
    const ref = await add(m, { transactionAmount: 500, capturedBy: CAPTURER });
    const before = await dbState(t.db);
    const p = refused(await approve(m, ref, 'Capturer+payroll@SHOP.mw'), 403, 'E902');
    expect(p.detail).toBe(`Capturer+payroll@SHOP.mw already acted on transaction ${ref} as capturer; another user must approve it.`);
    expect(await dbState(t.db)).toEqual(before);
    expect((await approve(m, ref, APPROVER)).statusCode).toBe(200);
  });

  it('insufficient balance at approval: 402 E911, nothing changes, and it can be approved once funded', async () => {
    const m = await merchant(2, 0);
    // Capturing needs no balance: nothing is debited yet.
    const ref = await add(m, { transactionAmount: '1234.56' });
    const before = await dbState(t.db);
    refused(await approve(m, ref), 402, 'E911');
    expect(await dbState(t.db)).toEqual(before);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'P', approvedBy: null });
    expect((await topup(t, m, 123_456 + WALLET_FEE)).statusCode).toBe(200);
    expect((await approve(m, ref)).statusCode).toBe(200);
    expect(await balanceMinor(m)).toBe(0);
    await expectLedgerClean();
  });

  it("the daily limit is that of the approval's day, counted at approval: 402 E912, nothing changes", async () => {
    const m = await merchant(2, 10_000_000);
    await t.db.query(`update merchant_limits set maximum_amount_minor = 100000, daily_limit_minor = 100000 where merchant_account_number = $1 and transaction_code = 'MMW'`, [
      m.merchantAccountNumber,
    ]);
    // Three captured, worth more than the limit together: capturing counts nothing.
    const refs = [await add(m, { transactionAmount: 600 }), await add(m, { transactionAmount: 400 }), await add(m, { transactionAmount: 300 })];
    expect(await dailyTotalMinor(m)).toBe(0);
    expect((await approve(m, refs[0])).statusCode).toBe(200);
    expect((await approve(m, refs[1])).statusCode).toBe(200);
    const before = await dbState(t.db);
    const p = refused(await approve(m, refs[2]), 402, 'E912');
    expect(p.detail).toBe("This MMW transaction would take today's total to 1,300.00, above the daily limit of 1,000.00.");
    expect(await dbState(t.db)).toEqual(before);
    expect(await dailyTotalMinor(m)).toBe(100_000);
  });

  it('amount limits are checked at capture (402 E914), as for a batch line at validation', async () => {
    const m = await merchant(2);
    const before = await dbState(t.db);
    refused(await send(m, 'POST', '/disbursements/single/add', addBody(m, { transactionAmount: 99.99 })), 402, 'E914');
    expect(await dbState(t.db)).toEqual(before);
  });

  it('the level it was captured at is the one it follows, whatever the merchant changes later', async () => {
    const m = await merchant(2);
    const ref = await add(m, { transactionAmount: 500 });
    await t.db.query('update merchants set level_number = 1 where merchant_account_number = $1', [m.merchantAccountNumber]);
    await runPayouts(t, m);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'P', levelNumber: 2 });
    expect((await approve(m, ref)).statusCode).toBe(200);
    // Now at level 1, new ones are paid at once.
    const paidAtOnce = await add(m, { transactionAmount: 500 });
    expect(await record(m, paidAtOnce)).toMatchObject({ transactionStatusCode: 'T', levelNumber: 1 });
  });
});

describe('level 3 (six eyes): create → review → approve → transfer', () => {
  it('review (documented body and answer), then approve by a third person; the wrong order and the same people are refused', async () => {
    const m = await merchant(3, 10_000_000);
    const ref = await add(m, { capturedBy: CAPTURER });
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'P', levelNumber: 3, reviewedBy: null });
    // Approve before review: not yet.
    expect(refused(await approve(m, ref, APPROVER), 402, 'E916').detail).toBe(`Transaction ${ref} is pending: it cannot be approved now.`);
    // The capturer may not review.
    refused(await review(m, ref, CAPTURER), 403, 'E902');

    const reviewed = await review(m, ref, REVIEWER);
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    expect(reviewed.json()).toBe(`Transaction ${ref} has been reviewed successfully`);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'P', reviewedBy: REVIEWER, dateReviewed: expect.any(String), approvedBy: null });
    expect(await debits(ref)).toBe(0);
    expect(refused(await review(m, ref, 'another.reviewer@shop.mw'), 402, 'E916').detail).toBe(
      `Transaction ${ref} is reviewed and awaiting approval: it cannot be reviewed now.`,
    );

    // Neither the reviewer nor the capturer may approve.
    expect(refused(await approve(m, ref, 'REVIEWER@shop.mw.'), 403, 'E902').detail).toContain('as reviewer');
    expect(refused(await approve(m, ref, CAPTURER), 403, 'E902').detail).toContain('as capturer');
    expect(await debits(ref)).toBe(0);

    const approved = await approve(m, ref, APPROVER);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: ref, responseCode: 'T100' });
    expect(await debits(ref)).toBe(1);
    await runPayouts(t, m);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'S', reviewedBy: REVIEWER, approvedBy: APPROVER });
    await expectLedgerClean();
  });

  it('reject (the documented body), before or after review: X with the reason, never debited; then nothing more', async () => {
    const m = await merchant(3);
    for (const reviewedFirst of [false, true]) {
      const ref = await add(m, { transactionAmount: 700 });
      if (reviewedFirst) expect((await review(m, ref, REVIEWER)).statusCode).toBe(200);
      const before = await balanceMinor(m);
      const res = await reject(m, ref);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toBe(`Transaction ${ref} has been rejected successfully`);
      expect(await record(m, ref)).toMatchObject({
        transactionStatusCode: 'X',
        transactionStatusName: 'Rejected',
        rejectedBy: 'admin@example.com',
        rejectionReason: 'Invalid beneficiary account number format',
        dateRejected: expect.any(String),
        responseCode: null,
      });
      expect(await balanceMinor(m)).toBe(before);
      expect(await debits(ref)).toBe(0);
      expect(refused(await approve(m, ref), 402, 'E916').detail).toBe(`Transaction ${ref} is rejected: it cannot be approved now.`);
      refused(await reject(m, ref, 'second@example.com'), 402, 'E916');
      refused(await review(m, ref, 'second@example.com'), 402, 'E916');
    }
    await expectLedgerClean();
  });

  it('answers in the language asked for', async () => {
    const m = await merchant(3);
    const ref = await add(m, { transactionAmount: 500 });
    const res = await review(m, ref, REVIEWER, { 'accept-language': 'ny' });
    expect(res.json()).toBe(`Malipiro ${ref} awunikidwa bwino`);
    expect(res.headers['content-language']).toBe('ny');
  });
});

describe('retries and races', () => {
  it('X-Idempotency-Key: a retried approval replays the answer and debits once', async () => {
    const m = await merchant(2);
    const ref = await add(m, { transactionAmount: 500 });
    const headers = idempotencyKey();
    const first = await approve(m, ref, APPROVER, headers);
    const again = await approve(m, ref, APPROVER, headers);
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await debits(ref)).toBe(1);
    // The same key for another request: 409 E907.
    refused(await reject(m, ref, 'admin@example.com', headers), 409, 'E907');
  });

  it('approvals and rejections racing on one payout: exactly one wins, the money adds up', async () => {
    const m = await merchant(2, 10_000_000);
    const refs = [await add(m, { transactionAmount: 500 }), await add(m, { transactionAmount: 500 })];
    const before = await balanceMinor(m);
    const answers = await Promise.all(refs.flatMap((ref) => [approve(m, ref, 'a1@example.com'), approve(m, ref, 'a2@example.com'), reject(m, ref, 'r1@example.com')]));
    for (let i = 0; i < refs.length; i++) {
      const three = answers.slice(i * 3, i * 3 + 3);
      expect(three.filter((r) => r.statusCode === 200)).toHaveLength(1);
      for (const r of three.filter((x) => x.statusCode !== 200)) expect(problemOf(r).errorCode).toBe('E916');
    }
    const approvedCount = (await Promise.all(refs.map((ref) => record(m, ref)))).filter((r) => r.transactionStatusCode === 'T').length;
    expect(await balanceMinor(m)).toBe(before - approvedCount * (50_000 + WALLET_FEE));
    for (const ref of refs) expect(await debits(ref)).toBeLessThanOrEqual(1);
    await expectLedgerClean();
  });
});

describe('merchant isolation and unknown references', () => {
  it("another merchant's payout answers 404 E903, whichever account number it names; nothing changes", async () => {
    const owner = await merchant(2);
    const intruder = await merchant(2);
    const ref = await add(owner, { transactionAmount: 500 });
    const before = await dbState(t.db);
    for (const [method, path, extra] of [
      ['PUT', '/disbursements/single/review', { actionedBy: 'x@example.com' }],
      ['PUT', '/disbursements/single/approve', { actionedBy: 'x@example.com' }],
      ['POST', '/disbursements/single/reject', { reasonForRejection: 'No', rejectedBy: 'x@example.com' }],
    ] as const) {
      const own = refused(await send(intruder, method, path, { merchantAccountNumber: intruder.merchantAccountNumber, transactionReferenceNumber: ref, ...extra }), 404, 'E903');
      expect(own.detail).toBe(`Transaction ${ref} was not found.`);
      refused(await send(intruder, method, path, { merchantAccountNumber: owner.merchantAccountNumber, transactionReferenceNumber: ref, ...extra }), 404, 'E903');
    }
    expect(await dbState(t.db)).toEqual(before);
  });

  it("a batch line is not a single payout; the documentation's example references are simply unknown (404)", async () => {
    const m = await merchant(2);
    const batch = await send(m, 'POST', '/disbursements/batch/addJson', {
      header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER },
      transactions: [{ beneficiaryName: 'Line', connectorId: NBM, beneficiaryAccountNumber: '1001234567', transactionAmount: 500, sourceReferenceNumber: 'L-1' }],
    });
    expect(batch.statusCode, batch.body).toBe(200);
    await validateBatch(t, batch.json().batchNumber);
    const { rows } = await t.db.query<{ r: string }>('select transaction_reference_number as r from payouts where batch_number = $1', [batch.json().batchNumber]);
    refused(await approve(m, rows[0].r), 404, 'E903');
    for (const documented of ['TXN8J5T2Q1L0Z', '251105CJZ16U', 'D250713MGGGY']) {
      refused(await review(m, documented), 404, 'E903');
      refused(await approve(m, documented), 404, 'E903');
      refused(await reject(m, documented), 404, 'E903');
    }
    // Malformed: 400 naming the field.
    const p = refused(await approve(m, 'not-a-ref!'), 400, 'E900');
    expect(p.errors).toEqual(['Transaction Reference Number has an invalid format.']);
    refused(await send(m, 'POST', '/disbursements/single/reject', { merchantAccountNumber: m.merchantAccountNumber, transactionReferenceNumber: 'ABCDEFGHIJKL', rejectedBy: 'a@b.mw' }), 400, 'E900');
  });
});

describe('merchant users decide who may act, as on batches', () => {
  let m: TestMerchant;
  const users = { initiator: 'initiator@shop.mw', reviewer: 'reviewer@shop.mw', approver: 'approver@shop.mw', viewer: 'viewer@shop.mw' };

  beforeAll(async () => {
    m = await merchant(3, 10_000_000);
    for (const [emailAddress, roleId] of [
      [users.initiator, 2],
      [users.reviewer, 3],
      [users.approver, 4],
      [users.viewer, 5],
    ] as const) {
      await addMerchantUser(t, m, emailAddress, roleId);
    }
  });

  it('strangers and roles without the action: 403 E902; the reviewer reviews, the approver approves', async () => {
    const ref = await add(m, { transactionAmount: 500, capturedBy: users.initiator });
    expect(refused(await review(m, ref, 'stranger@shop.mw'), 403, 'E902').detail).toContain('its payouts are acted on only by its active merchant users');
    expect(refused(await review(m, ref, users.viewer), 403, 'E902').detail).toContain(`may not review transaction ${ref}`);
    refused(await review(m, ref, users.approver), 403, 'E902');
    refused(await reject(m, ref, users.initiator), 403, 'E902');
    expect((await review(m, ref, 'Reviewer+singles@SHOP.mw')).statusCode).toBe(200);
    refused(await approve(m, ref, users.viewer), 403, 'E902');
    refused(await approve(m, ref, users.reviewer), 403, 'E902');
    const approved = await approve(m, ref, users.approver);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await record(m, ref)).toMatchObject({ transactionStatusCode: 'T', reviewedBy: 'Reviewer+singles@SHOP.mw', approvedBy: users.approver });
  });

  it('the reviewer may reject', async () => {
    const ref = await add(m, { transactionAmount: 500, capturedBy: users.initiator });
    expect((await reject(m, ref, users.reviewer)).statusCode).toBe(200);
  });
});

describe('in the OpenAPI document', () => {
  it('lists the three actions with their bodies, answers and descriptions', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const review = doc.paths[`${BASE}/disbursements/single/review`].put;
    const approve = doc.paths[`${BASE}/disbursements/single/approve`].put;
    const reject = doc.paths[`${BASE}/disbursements/single/reject`].post;
    for (const op of [review, approve, reject]) {
      expect(op.summary).toBeTruthy();
      expect(op.description).toBeTruthy();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    }
    expect(review.requestBody.content['application/json'].schema.required).toEqual(['merchantAccountNumber', 'transactionReferenceNumber', 'actionedBy']);
    expect(reject.requestBody.content['application/json'].schema.required).toEqual(['merchantAccountNumber', 'transactionReferenceNumber', 'reasonForRejection', 'rejectedBy']);
    expect(Object.keys(approve.responses['200'].content['application/json'].schema.properties)).toEqual(['merchantAccountNumber', 'transactionReferenceNumber', 'responseCode']);
  });
});

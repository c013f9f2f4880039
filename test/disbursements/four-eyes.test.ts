// Four eyes that look-alike names cannot fool (issue 13, item 2). Actor e-mails are compared in
// one canonical form (src/lib/actor.ts): NFKC, lower case, no trailing dot on the domain, a quoted
// local part unquoted, no +tag. Addresses with invisible/format characters or a local part that
// mixes scripts are refused (400 E900) wherever an e-mail is accepted. Where a merchant has active
// merchant users, batch actions are taken only by them, as their role allows
// (src/modules/users/permissions.ts). Against the real app and database; jobs run directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, clientError, newMerchant, problemOf, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { addMerchantUser, BATCH_ACTIONS, batchStatus, idempotencyKey, topup, validateBatch, walletLine, type BatchAction } from '../money-ops.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const BOSS = 'boss@x.com';

function send(who: TestMerchant, method: 'POST' | 'PUT', path: string, payload: object, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: { ...who.auth, ...headers }, payload });
}

function act(who: TestMerchant, action: BatchAction, batchNumber: number, by: string, headers: Record<string, string> = {}) {
  const a = BATCH_ACTIONS[action];
  return send(
    who,
    a.method,
    a.path,
    { merchantAccountNumber: who.merchantAccountNumber, batchNumber, [a.actor]: by, ...(action === 'reject' ? { reasonForRejection: 'Wrong amounts' } : {}) },
    headers,
  );
}

/** A validated batch of one wallet line captured by `capturedBy`: status P. */
async function pendingBatch(who: TestMerchant, capturedBy = BOSS): Promise<number> {
  const res = await send(who, 'POST', '/disbursements/batch/addJson', {
    header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: false, capturedBy },
    transactions: [walletLine(1000)],
  });
  expect(res.statusCode, res.body).toBe(200);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  expect(await batchStatus(t, batchNumber)).toBe('P');
  return batchNumber;
}

async function batchRow(batchNumber: number) {
  const { rows } = await t.db.query('select status_code, reviewed_by, approved_by, rejected_by, cancelled_by, transferred_by from batches where batch_number = $1', [batchNumber]);
  return rows[0];
}

function forbidden(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const p = problemOf(res);
  expect(res.statusCode, res.body).toBe(403);
  expect(p.errorCode).toBe('E902');
  return p;
}

/** Look-alikes of boss@x.com that are the same mailbox: refused as the same person. */
const SAME_PERSON: Array<[string, string]> = [
  ['fullwidth b', '\uff42oss@x.com'],
  ['fullwidth all', '\uff42\uff4f\uff53\uff53@\uff58.\uff43\uff4f\uff4d'],
  ['trailing dot', 'boss@x.com.'],
  ['quoted local part', '"boss"@x.com'],
  ['sub-address', 'boss+1@x.com'],
  ['quoted sub-address', '"Boss+approvals"@X.Com.'],
  ['upper case', 'BOSS@X.COM'],
  ['mathematical bold b', '\u{1d41b}oss@x.com'],
];

/** Refused outright: 400 E900, nothing changes. */
const REFUSED: Array<[string, string]> = [
  ['zero-width space', 'boss\u200b@x.com'],
  ['word joiner', 'bo\u2060ss@x.com'],
  ['soft hyphen', 'bo\u00adss@x.com'],
  ['zero-width joiner', 'boss\u200d@x.com'],
  ['right-to-left mark', '\u200fboss@x.com'],
  ['Greek omicron', 'b\u03bfss@x.com'],
  ['Cyrillic o', 'b\u043ess@x.com'],
  ['Cyrillic a in the middle', 'boss.\u0430dmin@x.com'],
];

describe('look-alike actors (level 2: approve after capture)', () => {
  let m: TestMerchant;
  let batchNumber: number;
  beforeAll(async () => {
    m = await newMerchant(t, { accountName: 'Look-alike Shop', levelNumber: 2 });
    batchNumber = await pendingBatch(m);
  });

  it.each(SAME_PERSON)('%s (%j) is the capturer: 403 E902 four eyes, the batch stays P', async (_name, actor) => {
    const p = forbidden(await act(m, 'approve', batchNumber, actor));
    expect(p.type).toMatch(/four-eyes$/);
    expect(await batchRow(batchNumber)).toMatchObject({ status_code: 'P', approved_by: null });
  });

  it.each(REFUSED)('%s (%j): 400 E900 naming the field, the batch stays P', async (_name, actor) => {
    const res = await act(m, 'approve', batchNumber, actor);
    const p = clientError(res, 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors.join(' ')).toMatch(/Actioned By/);
    expect(await batchRow(batchNumber)).toMatchObject({ status_code: 'P', approved_by: null });
  });

  it('the refusal is explained in English and Chichewa', async () => {
    const en = clientError(await act(m, 'approve', batchNumber, 'boss\u200b@x.com'), 400);
    expect(en.errors).toEqual(['Actioned By must not contain invisible or formatting characters (such as a zero-width space or a soft hyphen).']);
    const mixed = clientError(await act(m, 'approve', batchNumber, 'b\u03bfss@x.com'), 400);
    expect(mixed.errors).toEqual(['Actioned By mixes letters of different scripts (such as Latin and Greek) before the @.']);
    const ny = clientError(await act(m, 'approve', batchNumber, 'b\u03bfss@x.com', { 'accept-language': 'ny' }), 400);
    expect(ny.errors[0]).toMatch(/^Actioned By /);
    expect(ny.errors[0]).not.toBe(mixed.errors[0]);
  });

  it('each action field refuses look-alikes (reject, cancel, transferFunds, capture)', async () => {
    for (const action of ['reject', 'cancel', 'transferFunds', 'review'] as const) {
      const p = clientError(await act(m, action, batchNumber, 'boss\u00ad@x.com'), 400);
      expect(p.errorCode).toBe('E900');
    }
    const capture = await send(m, 'POST', '/disbursements/batch/addJson', {
      header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: 'b\u043ess@x.com' },
      transactions: [walletLine(1000)],
    });
    expect(clientError(capture, 400).errors.join(' ')).toMatch(/Captured By/);
    expect(await batchRow(batchNumber)).toMatchObject({ status_code: 'P' });
  });

  it('scripts may differ in the domain, and digits and punctuation are neutral', async () => {
    const other = await pendingBatch(m);
    // A Greek local part alone is one script; digits, dots and hyphens take no side.
    const res = await act(m, 'approve', other, '\u03c0\u03b1\u03cd\u03bb\u03bf\u03c2.2_1-0@x.com');
    expect(res.statusCode, res.body).toBe(200);
  });

  it('another person approves: 200', async () => {
    const res = await act(m, 'approve', batchNumber, 'deputy@x.com');
    expect(res.statusCode, res.body).toBe(200);
    expect(await batchRow(batchNumber)).toMatchObject({ status_code: 'A', approved_by: 'deputy@x.com' });
  });

  it('stored actors from before the fix are compared in canonical form too', async () => {
    const b = await pendingBatch(m, 'deputy@x.com');
    // As old code stored it: raw, with a quoted local part, a tag and a trailing dot.
    await t.db.query(`update batches set captured_by = '"Boss+old"@X.com.' where batch_number = $1`, [b]);
    forbidden(await act(m, 'approve', b, BOSS));
    // A zero-width space stored before the refusal existed does not hide the capturer either.
    await t.db.query(`update batches set captured_by = 'bo' || chr(8203) || 'ss@x.com' where batch_number = $1`, [b]);
    forbidden(await act(m, 'approve', b, BOSS));
  });
});

describe('look-alike actors (level 3: review, then approve)', () => {
  it('the reviewer cannot approve under a sub-address or in another case', async () => {
    const m = await newMerchant(t, { accountName: 'Level 3 Look-alike Shop', levelNumber: 3 });
    const b = await pendingBatch(m);
    forbidden(await act(m, 'review', b, 'boss+review@x.com'));
    expect((await act(m, 'review', b, 'Checker@x.com')).statusCode).toBe(200);
    for (const actor of ['"checker"@x.com', 'checker+2@X.COM.', '\uff43hecker@x.com', BOSS]) forbidden(await act(m, 'approve', b, actor));
    expect(await batchRow(b)).toMatchObject({ status_code: 'R', approved_by: null });
    expect((await act(m, 'approve', b, 'approver@x.com')).statusCode).toBe(200);
  });
});

describe('merchant users decide who may act on batches', () => {
  let m: TestMerchant;
  const users = {
    admin: 'admin@shop.mw',
    initiator: 'initiator@shop.mw',
    reviewer: 'reviewer@shop.mw',
    approver: 'approver@shop.mw',
    viewer: 'viewer@shop.mw',
    closed: 'closed.approver@shop.mw',
  };

  const addUser = (emailAddress: string, roleId: number) => addMerchantUser(t, m, emailAddress, roleId);

  beforeAll(async () => {
    m = await newMerchant(t, { accountName: 'Staffed Shop', levelNumber: 3 });
    const top = await topup(t, m, 10_000_000, idempotencyKey());
    expect(top.statusCode, top.body).toBe(200);
    await addUser(users.admin, 1);
    await addUser(users.initiator, 2);
    await addUser('Reviewer@Shop.mw', 3);
    await addUser(users.approver, 4);
    await addUser(users.viewer, 5);
    const closed = await addUser(users.closed, 4);
    const res = await send(m, 'PUT', '/security/merchantUsers/close', { merchantAccountNumber: m.merchantAccountNumber, userId: closed, modifiedBy: 'setup@shop.mw' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('someone who is not one of its users: 403 E902 naming the rule', async () => {
    const b = await pendingBatch(m, users.initiator);
    const p = forbidden(await act(m, 'review', b, 'stranger@shop.mw'));
    expect(p.detail).toContain('stranger@shop.mw is not an active user of merchant account');
    // A closed user is no longer one of them.
    forbidden(await act(m, 'reject', b, users.closed));
    expect(await batchRow(b)).toMatchObject({ status_code: 'P', reviewed_by: null, rejected_by: null });
  });

  it('a user whose role does not allow the action: 403 E902', async () => {
    const b = await pendingBatch(m, users.initiator);
    const viewer = forbidden(await act(m, 'review', b, users.viewer));
    expect(viewer.detail).toContain('viewer@shop.mw (Merchant Viewer) may not review');
    forbidden(await act(m, 'review', b, users.approver));
    forbidden(await act(m, 'reject', b, users.initiator));
    expect(await batchRow(b)).toMatchObject({ status_code: 'P', reviewed_by: null, rejected_by: null });
  });

  it('the full path by the right roles, users matched in canonical form', async () => {
    const b = await pendingBatch(m, users.initiator);
    // The reviewer was added as Reviewer@Shop.mw: a sub-address in another case is the same user.
    expect((await act(m, 'review', b, 'reviewer+batches@SHOP.mw')).statusCode).toBe(200);
    // The reviewer may not approve (role and four eyes), the approver may not review twice.
    forbidden(await act(m, 'approve', b, users.reviewer));
    forbidden(await act(m, 'approve', b, users.viewer));
    const approved = await act(m, 'approve', b, '"approver"@shop.mw.');
    expect(approved.statusCode, approved.body).toBe(200);
    forbidden(await act(m, 'transferFunds', b, users.reviewer));
    forbidden(await act(m, 'transferFunds', b, users.initiator));
    const transferred = await act(m, 'transferFunds', b, users.approver);
    expect(transferred.statusCode, transferred.body).toBe(200);
    expect(await batchRow(b)).toMatchObject({ status_code: 'T', reviewed_by: 'reviewer+batches@SHOP.mw', approved_by: '"approver"@shop.mw.', transferred_by: users.approver });
  });

  it('an initiator may cancel only the batches they captured', async () => {
    const own = await pendingBatch(m, 'Initiator+payroll@shop.mw');
    const theirs = await pendingBatch(m, users.admin);
    const p = forbidden(await act(m, 'cancel', theirs, users.initiator));
    expect(p.detail).toContain('only a batch they captured');
    expect((await act(m, 'cancel', own, users.initiator)).statusCode).toBe(200);
    expect(await batchRow(theirs)).toMatchObject({ status_code: 'P', cancelled_by: null });
  });

  it('an administrator may do everything, four eyes still apply', async () => {
    const b = await pendingBatch(m, users.admin);
    forbidden(await act(m, 'review', b, 'ADMIN@shop.mw'));
    expect((await act(m, 'review', b, users.reviewer)).statusCode).toBe(200);
    const other = await pendingBatch(m, users.initiator);
    expect((await act(m, 'review', other, users.admin)).statusCode).toBe(200);
    expect((await act(m, 'approve', other, users.approver)).statusCode).toBe(200);
    expect((await act(m, 'cancel', other, users.admin)).statusCode).toBe(200);
  });

  it('a merchant without users keeps free-text actors', async () => {
    const free = await newMerchant(t, { accountName: 'Unstaffed Shop', levelNumber: 3 });
    const b = await pendingBatch(free, 'anyone@free.mw');
    expect((await act(free, 'review', b, 'someone@free.mw')).statusCode).toBe(200);
    expect((await act(free, 'approve', b, 'someone.else@free.mw')).statusCode).toBe(200);
    expect((await act(free, 'cancel', b, 'whoever@free.mw')).statusCode).toBe(200);
  });

  it('the permission table covers every seeded role and action', async () => {
    const { ACTIONS_BY_ROLE } = await import('../../src/modules/users/permissions.ts');
    // Keyed by role code (migrations/0008): names are for people and may change.
    const { rows } = await t.db.query<{ role_code: string }>('select role_code from roles order by role_id');
    expect(Object.keys(ACTIONS_BY_ROLE).sort()).toEqual(rows.map((r) => r.role_code).sort());
  });
});

describe('merchant user addresses', () => {
  it('a look-alike address is refused, and a sub-address of an existing user is the same user (409)', async () => {
    const m = await newMerchant(t, { accountName: 'Address Shop' });
    const body = (emailAddress: string) => ({
      organisationId: m.organisationId,
      merchantAccountNumber: m.merchantAccountNumber,
      firstName: 'Tiwonge',
      lastName: 'Phiri',
      emailAddress,
      phoneNumber: '0991234567',
      roleId: 4,
      capturedBy: 'setup@shop.mw',
    });
    expect(clientError(await send(m, 'POST', '/security/merchantUsers/add', body('b\u03bfss@shop.mw')), 400).errorCode).toBe('E900');
    expect(clientError(await send(m, 'POST', '/security/merchantUsers/add', body('boss\u2060@shop.mw')), 400).errorCode).toBe('E900');
    expect((await send(m, 'POST', '/security/merchantUsers/add', body('boss@shop.mw'))).statusCode).toBe(201);
    for (const twin of ['boss+2@shop.mw', '"boss"@shop.mw', 'boss@shop.mw.', '\uff42oss@shop.mw']) {
      const p = clientError(await send(m, 'POST', '/security/merchantUsers/add', body(twin)), 409);
      expect(p.errorCode).toBe('E906');
    }
  });
});

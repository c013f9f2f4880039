// The console's payout actions over HTTP (app.inject, real database, real jobs called directly), on a
// level-3 merchant with an initiator, a reviewer, an approver, a viewer and an administrator, each
// signed in: which buttons each user sees in each state of a batch, and that the service agrees with
// every one of them (each user × action × state, tried in a rolled-back transaction); each action
// moving the batch as the API does, with its audit entry; four eyes by identity (button absent, a
// forged POST refused with the message); a viewer's forged POST (403); a stale page (409); one effect
// for a form sent twice; a reject without a reason; another merchant's batch (404); insufficient
// balance (402); single payouts created from the form (good and bad input, in English and Chichewa),
// reviewed, approved and rejected.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/http/errors.ts';
import type { BatchAction } from '../../../src/modules/disbursements/lifecycle.ts';
import { TEST_WALLETS } from '../../../src/modules/disbursements/sandbox.ts';
import { actOnBatch, transferFunds } from '../../../src/modules/disbursements/service.ts';
import { ConsoleClient, consoleUser, textOf as textOfTight, type ConsoleUserInfo, type Page } from '../client.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { act, AIRTEL, apiBalances, runPayouts, topup, validateBatch, walletLine } from '../../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
type Who = 'initiator' | 'initiator2' | 'reviewer' | 'approver' | 'viewer' | 'admin';
const ROLES: Record<Who, string> = {
  initiator: 'MERC_INITIATOR',
  initiator2: 'MERC_INITIATOR',
  reviewer: 'MERC_REVIEWER',
  approver: 'MERC_APPROVER',
  viewer: 'MERC_VIEWER',
  admin: 'MERC_ADMIN',
};
const users = {} as Record<Who, ConsoleUserInfo>;
const clients = {} as Record<Who, ConsoleClient>;
const SLUGS: Record<BatchAction, string> = { review: 'review', approve: 'approve', transferFunds: 'transfer-funds', reject: 'reject', cancel: 'cancel' };
const ALL: BatchAction[] = ['review', 'approve', 'transferFunds', 'reject', 'cancel'];

const batchUrl = (n: number) => `/console/payouts/batches/${n}`;
const payoutUrl = (reference: string) => `/console/payouts/single/${reference}`;

/** A batch of `who`'s merchant captured by `capturedBy`, validated (P). */
async function newBatch(capturedBy: string, opts: { merchant?: TestMerchant; scheduledDate?: string; amount?: string } = {}): Promise<number> {
  const who = opts.merchant ?? m;
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/disbursements/batch/addJson`,
    headers: who.auth,
    payload: {
      header: { merchantAccountNumber: who.merchantAccountNumber, isBatchScheduled: opts.scheduledDate !== undefined, scheduledDate: opts.scheduledDate ?? null, capturedBy },
      transactions: [walletLine(opts.amount ?? '1500.00'), walletLine('250.50')],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const batchNumber: number = res.json().batchNumber;
  await validateBatch(t, batchNumber);
  return batchNumber;
}

async function apiAct(action: BatchAction, batchNumber: number, by: Who): Promise<void> {
  const res = await act(t, m, action, batchNumber, users[by].email);
  expect(res.statusCode, res.body).toBe(200);
}

async function batchRow(batchNumber: number) {
  const { rows } = await t.db.query('select status_code, reviewed_by, approved_by, rejected_by, rejection_reason, cancelled_by, transferred_by from batches where batch_number = $1', [batchNumber]);
  return rows[0] as { status_code: string; reviewed_by: string | null; approved_by: string | null; rejected_by: string | null; rejection_reason: string | null; cancelled_by: string | null; transferred_by: string | null };
}

/** The text of the element with this id, a space between its elements' texts. */
const textOf = (html: string, id: string) => textOfTight(html.replace(/></g, '> <'), id);

/** The actions whose submit buttons the page shows (review, approve, transfer-funds… by their ids). */
function shown(html: string): string[] {
  return [...html.matchAll(/id="action-([A-Za-z]+)"/g)].map((x) => x[1]).sort();
}

/** The form key of the form posting to `path` on the page. */
function formKey(html: string, path: string): string | undefined {
  return new RegExp(`action="${path}"[^>]*>[\\s\\S]*?name="_form" value="([^"]+)"`).exec(html)?.[1];
}

/**
 * Opens the batch page as `who` and sends `action`'s form (a forged one, with a fresh key, when the
 * page has none); transferring funds as its confirmation sends it (confirm.test.ts asks first).
 */
async function post(who: Who, batchNumber: number, action: BatchAction, fields: Record<string, string> = {}): Promise<Page> {
  const c = clients[who];
  const page = await c.get(batchUrl(batchNumber));
  const path = `${batchUrl(batchNumber)}/${SLUGS[action]}`;
  return c.post(path, { _form: formKey(page.body, path) ?? randomUUID(), ...(action === 'transferFunds' ? { confirmed: 'yes' } : {}), ...fields });
}

async function audit(action: string, key: string, value: string | number) {
  const { rows } = await t.db.query<{ user_id: string; detail: Record<string, unknown> }>(
    `select user_id, detail from console_audit_log where merchant_account_number = $1 and action = $2 and detail ->> $3 = $4 order by at`,
    [m.merchantAccountNumber, action, key, String(value)],
  );
  return rows;
}

beforeAll(async () => {
  t = await startTestApp({ PAYOUT_TIMEOUT_SECONDS: '0', PAYOUT_REVERSAL_SECONDS: '0' });
  m = await newMerchant(t, { accountName: 'Chikondi Stores', levelNumber: 3 });
  other = await newMerchant(t, { accountName: 'Mzuzu Coffee', levelNumber: 3 });
  expect((await topup(t, m, 1_000_000_00)).statusCode).toBe(200);
  for (const [who, role] of Object.entries(ROLES) as Array<[Who, string]>) {
    users[who] = await consoleUser(t, m, { role, firstName: who });
    clients[who] = new ConsoleClient(t, `10.77.0.${Object.keys(users).length}`);
    expect((await clients[who].signIn(users[who].email, users[who].password)).statusCode).toBe(303);
  }
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the actions card of a batch', () => {
  it('shows each user the buttons their role, the level and the state allow, step by step', async () => {
    const n = await newBatch(users.initiator.email);
    const see = async (who: Who) => {
      const res = await clients[who].get(batchUrl(n));
      expect(res.statusCode, res.body).toBe(200);
      return res.body;
    };
    // P (pending review at level 3)
    expect(shown(await see('initiator'))).toEqual(['cancel']);
    expect(shown(await see('reviewer'))).toEqual(['reject', 'review']);
    expect(shown(await see('approver'))).toEqual(['cancel', 'reject']);
    expect(shown(await see('admin'))).toEqual(['cancel', 'reject', 'review']);
    expect(shown(await see('initiator2'))).toEqual([]);
    const viewer = await see('viewer');
    expect(shown(viewer)).toEqual([]);
    expect(viewer).not.toContain('id="actions"');
    expect(viewer).not.toContain('method="post" action="/console/payouts/batches');

    // R
    await apiAct('review', n, 'reviewer');
    expect(shown(await see('reviewer'))).toEqual(['reject']);
    expect(shown(await see('approver'))).toEqual(['approve', 'cancel', 'reject']);
    expect(shown(await see('initiator'))).toEqual(['cancel']);

    // A
    await apiAct('approve', n, 'approver');
    const approver = await see('approver');
    expect(shown(approver)).toEqual(['cancel', 'transferFunds']);
    expect(textOf(approver, 'transfer-hint')).toBe('Transferring funds debits MWK 1,950.50 (payouts and fees) from your disbursement balance and sends the payouts.');
    expect(shown(await see('reviewer'))).toEqual([]);
    expect(await see('reviewer')).not.toContain('id="actions"');
    expect(shown(await see('initiator'))).toEqual(['cancel']);

    // T, then C: nothing for anyone.
    await apiAct('transferFunds', n, 'approver');
    for (const who of Object.keys(ROLES) as Who[]) expect(shown(await see(who)), who).toEqual([]);
    await runPayouts(t, m);
    expect((await batchRow(n)).status_code).toBe('C');
    expect(shown(await see('admin'))).toEqual([]);
  });

  it('agrees with the service on every user, action and state (buttons shown exactly when the service would act)', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const p = await newBatch(users.initiator.email);
    const ownP = await newBatch(users.admin.email);
    const r = await newBatch(users.initiator.email);
    await apiAct('review', r, 'admin');
    const a = await newBatch(users.initiator.email);
    await apiAct('review', a, 'reviewer');
    await apiAct('approve', a, 'admin');
    const tNow = await newBatch(users.initiator.email);
    for (const [action, by] of [['review', 'reviewer'], ['approve', 'approver'], ['transferFunds', 'approver']] as const) await apiAct(action, tNow, by);
    const tLater = await newBatch(users.initiator.email, { scheduledDate: tomorrow });
    for (const [action, by] of [['review', 'reviewer'], ['approve', 'approver'], ['transferFunds', 'approver']] as const) await apiAct(action, tLater, by);
    const x = await newBatch(users.initiator.email);
    await apiAct('reject', x, 'reviewer');
    const states = { p, ownP, r, a, tNow, tLater, x };
    expect(await Promise.all(Object.values(states).map(async (n) => (await batchRow(n)).status_code))).toEqual(['P', 'P', 'R', 'A', 'T', 'T', 'X']);

    let yes = 0;
    for (const [state, n] of Object.entries(states)) {
      for (const who of Object.keys(ROLES) as Who[]) {
        const buttons = shown((await clients[who].get(batchUrl(n))).body);
        for (const action of ALL) {
          const client = await t.db.connect();
          let accepted = true;
          try {
            await client.query('begin');
            const input = { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n, actionedBy: users[who].email, reason: 'checking' };
            if (action === 'transferFunds') await transferFunds(client, input);
            else await actOnBatch(client, action, input);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            accepted = false;
          } finally {
            await client.query('rollback');
            client.release();
          }
          expect(buttons.includes(action), `${who} ${action} on ${state}`).toBe(accepted);
          if (accepted) yes++;
        }
      }
    }
    // Not vacuous: the table allows a fair number of them.
    expect(yes).toBeGreaterThan(20);
    // The scheduled batch would wait for tomorrow: withdrawn, so that later tests can run every payout.
    await apiAct('cancel', tLater, 'approver');
  });
});

describe('batch actions', () => {
  it('reviews, approves and transfers as the API does, each audited with its user', async () => {
    const n = await newBatch(users.initiator.email);
    const before = await apiBalances(t, m);

    const reviewed = await post('reviewer', n, 'review');
    expect(reviewed.statusCode, reviewed.body).toBe(303);
    expect(reviewed.headers.location).toBe(`${batchUrl(n)}?notice=notice.payoutActions.review`);
    const page = await clients.reviewer.get(String(reviewed.headers.location));
    expect(textOf(page.body, 'notice')).toBe('The batch is reviewed: it now waits for approval.');
    expect(await batchRow(n)).toMatchObject({ status_code: 'R', reviewed_by: users.reviewer.email });

    expect((await post('approver', n, 'approve')).statusCode).toBe(303);
    expect(await batchRow(n)).toMatchObject({ status_code: 'A', approved_by: users.approver.email });

    expect((await post('approver', n, 'transferFunds')).statusCode).toBe(303);
    expect(await batchRow(n)).toMatchObject({ status_code: 'T', transferred_by: users.approver.email });
    // 1,500.00 + 250.50 and two wallet fees of 100.00, debited in one transfer.
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - (1500_00 + 250_50 + 2 * 100_00));
    const getBatch = await t.app.inject({ method: 'POST', url: `${BASE}/disbursements/batch/getBatch`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, batchNumber: n } });
    expect(getBatch.json()).toMatchObject({ batchStatusCode: 'T', reviewedBy: users.reviewer.email, approvedBy: users.approver.email, transferredBy: users.approver.email });

    for (const [action, who] of [['batch.review', 'reviewer'], ['batch.approve', 'approver'], ['batch.transfer_funds', 'approver']] as const) {
      expect(await audit(action, 'batchNumber', n)).toEqual([{ user_id: users[who].userId, detail: { batchNumber: n } }]);
    }
  });

  it('rejects with a reason, and asks for one first', async () => {
    const n = await newBatch(users.initiator.email);
    const page = await clients.reviewer.get(batchUrl(n));
    // The reason and the confirming button sit behind a disclosure, closed until asked.
    expect(page.body).toMatch(/<details class="confirm" id="confirm-reject">\s*<summary class="link-button" id="open-reject">Reject…<\/summary>/);
    const key = formKey(page.body, `${batchUrl(n)}/reject`)!;
    const empty = await clients.reviewer.post(`${batchUrl(n)}/reject`, { _form: key, reason: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('<details class="confirm" id="confirm-reject" open>');
    expect(textOf(empty.body, 'reason-error')).toBe('Write why you reject it.');
    expect(empty.body).toMatch(/<textarea id="reason" name="reason"[^>]*aria-invalid="true" aria-describedby="reason-error reason-hint"/);
    expect((await batchRow(n)).status_code).toBe('P');

    // The refusal spent nothing: the same form goes through once corrected.
    const done = await clients.reviewer.post(`${batchUrl(n)}/reject`, { _form: key, reason: 'Two lines <b>pay</b> the wrong people' });
    expect(done.statusCode, done.body).toBe(303);
    expect(await batchRow(n)).toMatchObject({ status_code: 'X', rejected_by: users.reviewer.email, rejection_reason: 'Two lines <b>pay</b> the wrong people' });
    expect(await audit('batch.reject', 'batchNumber', n)).toEqual([{ user_id: users.reviewer.userId, detail: { batchNumber: n, reason: 'Two lines <b>pay</b> the wrong people' } }]);
    const after = await clients.reviewer.get(batchUrl(n));
    expect(after.body).toContain('Reason: Two lines &lt;b&gt;pay&lt;/b&gt; the wrong people');
  });

  it("lets an initiator cancel their own batch, after confirming, and not another's", async () => {
    const own = await newBatch(users.initiator.email);
    const page = await clients.initiator.get(batchUrl(own));
    expect(textOf(page.body, 'confirm-cancel')).toContain(`Cancelling batch ${own} withdraws it for good`);
    expect(textOf(page.body, 'action-cancel')).toBe(`Yes, cancel batch ${own}`);
    expect((await post('initiator', own, 'cancel')).statusCode).toBe(303);
    expect(await batchRow(own)).toMatchObject({ status_code: 'N', cancelled_by: users.initiator.email });

    const theirs = await newBatch(users.initiator.email);
    expect(shown((await clients.initiator2.get(batchUrl(theirs))).body)).toEqual([]);
    const forged = await post('initiator2', theirs, 'cancel');
    expect(forged.statusCode).toBe(403);
    expect(textOf(forged.body, 'actions-error')).toContain(`may cancel only a batch they captured; batch ${theirs} was captured by someone else.`);
    expect((await batchRow(theirs)).status_code).toBe('P');
  });
});

describe('refusals', () => {
  it('keeps four eyes by identity: the capturer cannot review or approve, the reviewer cannot approve', async () => {
    // An administrator's role grants every step: only four eyes stand in the way.
    const n = await newBatch(users.admin.email);
    const page = await clients.admin.get(batchUrl(n));
    expect(shown(page.body)).toEqual(['cancel', 'reject']);
    expect(textOf(page.body, 'note-review')).toBe('You captured it, so another user must review it.');
    const forged = await post('admin', n, 'review');
    expect(forged.statusCode).toBe(403);
    expect(textOf(forged.body, 'actions-error')).toBe(`${users.admin.email} already acted on batch ${n} as capturer; another user must review it. Nothing was changed.`);
    expect((await batchRow(n)).status_code).toBe('P');

    const m2 = await newBatch(users.initiator.email);
    expect((await post('admin', m2, 'review')).statusCode).toBe(303);
    const reviewed = await clients.admin.get(batchUrl(m2));
    expect(shown(reviewed.body)).toEqual(['cancel', 'reject']);
    expect(textOf(reviewed.body, 'note-approve')).toBe('You reviewed it, so another user must approve it.');
    const approve = await post('admin', m2, 'approve');
    expect(approve.statusCode).toBe(403);
    expect(textOf(approve.body, 'actions-error')).toContain(`already acted on batch ${m2} as reviewer; another user must approve it.`);
    expect((await batchRow(m2)).status_code).toBe('R');

    // The capturer of an initiator's batch, and a reviewer, by role.
    const i = await newBatch(users.initiator.email);
    const byCapturer = await post('initiator', i, 'review');
    expect(byCapturer.statusCode).toBe(403);
    expect(textOf(byCapturer.body, 'actions-error')).toContain(`already acted on batch ${i} as capturer; another user must review it.`);
    await apiAct('review', i, 'reviewer');
    const byReviewer = await post('reviewer', i, 'approve');
    expect(byReviewer.statusCode).toBe(403);
    expect(textOf(byReviewer.body, 'actions-error')).toMatch(/as reviewer; another user must approve it|may not approve/);
    expect((await batchRow(i)).status_code).toBe('R');
  });

  it("answers a viewer's forged POST with 403 and the message, changing nothing", async () => {
    const n = await newBatch(users.initiator.email);
    // The steps the state allows are refused by role (403); the others by state first, as by the API (409).
    for (const action of ALL) {
      const res = await post('viewer', n, action, action === 'reject' ? { reason: 'no' } : {});
      const byRole = action === 'review' || action === 'reject' || action === 'cancel';
      expect(res.statusCode, action).toBe(byRole ? 403 : 409);
      expect(textOf(res.body, 'actions-error'), action).toContain(byRole ? `(Merchant Viewer) may not` : 'cannot be');
    }
    expect((await batchRow(n)).status_code).toBe('P');
    expect(await audit('batch.review', 'batchNumber', n)).toEqual([]);
  });

  it('tells a stale page that the batch has moved on (409), not a 500', async () => {
    const n = await newBatch(users.initiator.email);
    const stale = await clients.reviewer.get(batchUrl(n));
    await apiAct('reject', n, 'approver');
    const res = await clients.reviewer.post(`${batchUrl(n)}/review`, { _form: formKey(stale.body, `${batchUrl(n)}/review`)! });
    expect(res.statusCode).toBe(409);
    expect(textOf(res.body, 'actions-error')).toBe(`Batch ${n} is rejected: it cannot be reviewed now. Nothing was changed.`);
    // The page shows the batch as it is now.
    expect(textOf(res.body, 'batch-status')).toContain('Rejected');
    expect(shown(res.body)).toEqual([]);
  });

  it('acts once for a form sent twice (a double click)', async () => {
    const n = await newBatch(users.initiator.email);
    const page = await clients.reviewer.get(batchUrl(n));
    const fields = { _form: formKey(page.body, `${batchUrl(n)}/review`)! };
    const [first, second] = await Promise.all([clients.reviewer.post(`${batchUrl(n)}/review`, fields), clients.reviewer.post(`${batchUrl(n)}/review`, fields)]);
    expect([first.statusCode, second.statusCode]).toEqual([303, 303]);
    expect(first.headers.location).toBe(second.headers.location);
    const again = await clients.reviewer.post(`${batchUrl(n)}/review`, fields);
    expect(again.statusCode).toBe(303);
    expect((await batchRow(n)).status_code).toBe('R');
    expect(await audit('batch.review', 'batchNumber', n)).toHaveLength(1);
  });

  it("answers another merchant's batch, and an unknown action, with 404", async () => {
    const foreign = await newBatch('someone@mzuzu.mw', { merchant: other });
    expect((await clients.admin.get(batchUrl(foreign))).statusCode).toBe(404);
    const res = await clients.admin.post(`${batchUrl(foreign)}/reject`, { _form: randomUUID(), reason: 'not ours' });
    expect(res.statusCode).toBe(404);
    expect(await t.db.query('select status_code from batches where batch_number = $1', [foreign]).then((r) => r.rows[0].status_code)).toBe('P');
    const own = await newBatch(users.initiator.email);
    expect((await clients.admin.post(`${batchUrl(own)}/approve-all`, { _form: randomUUID() })).statusCode).toBe(404);
    expect((await clients.admin.post('/console/payouts/batches/99999999999/review', { _form: randomUUID() })).statusCode).toBe(404);
  });

  it('refuses a transfer the balance does not cover (402), leaving the batch approved', async () => {
    const poor = await newMerchant(t, { accountName: 'Empty Till', levelNumber: 3 });
    const reviewer = await consoleUser(t, poor, { role: 'MERC_REVIEWER' });
    const approver = await consoleUser(t, poor, { role: 'MERC_APPROVER' });
    const n = await newBatch('clerk@till.mw', { merchant: poor });
    for (const [action, by] of [['review', reviewer.email], ['approve', approver.email]] as const) expect((await act(t, poor, action, n, by)).statusCode).toBe(200);
    const c = new ConsoleClient(t, '10.77.1.1');
    expect((await c.signIn(approver.email, approver.password)).statusCode).toBe(303);
    const page = await c.get(batchUrl(n));
    const res = await c.post(`${batchUrl(n)}/transfer-funds`, { _form: formKey(page.body, `${batchUrl(n)}/transfer-funds`)!, confirmed: 'yes' });
    expect(res.statusCode).toBe(402);
    expect(textOf(res.body, 'actions-error')).toBe('The account balance is too low for this transaction. Nothing was changed.');
    expect(shown(res.body)).toEqual(['cancel', 'transferFunds']);
    expect(await t.db.query('select status_code from batches where batch_number = $1', [n]).then((r) => r.rows[0].status_code)).toBe('A');
  });
});

describe('single payouts', () => {
  const good = { connectorId: String(AIRTEL), beneficiaryAccountNumber: '265991234567', beneficiaryName: 'Chisomo Banda', transactionAmount: '2,500.50', sourceReferenceNumber: 'REFUND-77', transactionDescription: 'Refund of order 77' };

  /** Sends the form; once its fields pass, confirms what it shows (confirm.test.ts looks at the confirmation). */
  async function create(who: Who, fields: Record<string, string>): Promise<Page> {
    const form = await clients[who].get('/console/payouts/single/new');
    expect(form.statusCode, form.body).toBe(200);
    const preview = await clients[who].post('/console/payouts/single/new', { _form: formKey(form.body, '/console/payouts/single/new')!, ...fields });
    if (preview.statusCode !== 200) return preview;
    const confirmation = preview.body.slice(preview.body.indexOf('id="confirm-create"'));
    return clients[who].post('/console/payouts/single/new', { _form: formKey(confirmation, '/console/payouts/single/new')!, ...fields, confirmed: 'yes' });
  }

  async function payout(reference: string) {
    const { rows } = await t.db.query('select status_code, captured_by, reviewed_by, approved_by, rejected_by, rejection_reason, amount_minor from payouts where transaction_reference_number = $1', [reference]);
    return rows[0];
  }

  it('creates one from the form, awaiting review at level 3, audited with its capturer', async () => {
    const list = await clients.initiator.get('/console/payouts/single');
    expect(list.body).toContain('href="/console/payouts/single/new"');
    const form = await clients.initiator.get('/console/payouts/single/new');
    expect(textOf(form.body, 'level-text')).toContain('waits for one user to review it and another to approve it');
    expect(form.body).toContain(`<option value="${AIRTEL}">`);
    // In the sandbox the hint names a documented test wallet (1111…), read from the table that decides its outcome.
    expect(textOf(form.body, 'beneficiaryAccountNumber-hint')).toContain(TEST_WALLETS[0]);
    const res = await create('initiator', good);
    expect(res.statusCode, res.body).toBe(303);
    const location = String(res.headers.location);
    const reference = /\/single\/([A-Z0-9]{12})\?notice=notice\.payoutActions\.singleAwaiting$/.exec(location)?.[1];
    expect(reference, location).toBeDefined();
    expect(await payout(reference!)).toMatchObject({ status_code: 'P', captured_by: users.initiator.email, amount_minor: 2500_50 });
    const page = await clients.initiator.get(location);
    expect(textOf(page.body, 'notice')).toBe('The payout is saved: it now waits for approval.');
    expect(textOf(page.body, 'payout-status')).toBe('Status Pending Awaiting review');
    expect(shown(page.body)).toEqual([]);
    expect(await audit('payout.add', 'reference', reference!)).toEqual([{ user_id: users.initiator.userId, detail: { reference, amountMinor: 2500_50 } }]);
    // The list links to it.
    expect((await clients.initiator.get('/console/payouts/single')).body).toContain(`href="${payoutUrl(reference!)}"`);
  });

  it('shows bad input again with a message per field, in the user’s language', async () => {
    const empty = await create('initiator', { connectorId: '', beneficiaryAccountNumber: '', beneficiaryName: '<b>Chisomo</b>', transactionAmount: '12.345', sourceReferenceNumber: '', transactionDescription: 'x'.repeat(201) });
    expect(empty.statusCode).toBe(400);
    expect(textOf(empty.body, 'connectorId-error')).toBe('Choose the bank or wallet that holds the account.');
    expect(textOf(empty.body, 'beneficiaryAccountNumber-error')).toBe("Enter the beneficiary's account number.");
    expect(textOf(empty.body, 'transactionAmount-error')).toBe('Enter an amount such as 1500 or 1500.50 (at most 2 decimals).');
    expect(textOf(empty.body, 'sourceReferenceNumber-error')).toBe('Enter your reference for this payment.');
    expect(textOf(empty.body, 'transactionDescription-error')).toBe('This has 201 characters; at most 200 are allowed.');
    expect(empty.body).not.toContain('id="beneficiaryName-error"');
    expect(empty.body).toContain('value="&lt;b&gt;Chisomo&lt;/b&gt;"');
    expect(empty.body).toContain('value="12.345"');
    expect(empty.body).toMatch(/<input type="text" id="transactionAmount" name="transactionAmount" value="12.345"[^>]*aria-invalid="true" aria-describedby="transactionAmount-error transactionAmount-hint"/);
    expect(textOf(empty.body, 'form-error')).toContain('Correct these fields and send the form again:');
    expect(empty.body).toContain('<title>Not saved: New single payout · OneKhusa</title>');

    // The service's own refusals land on their field: a wallet number that is not one.
    const wrongAccount = await create('initiator', { ...good, beneficiaryAccountNumber: '12345' });
    expect(wrongAccount.statusCode).toBe(400);
    expect(textOf(wrongAccount.body, 'beneficiaryAccountNumber-error')).toMatch(/^Account 12345 is not a valid .+ account number\.$/);
    expect(wrongAccount.body).toContain('value="Chisomo Banda"');

    // In Chichewa.
    expect((await clients.initiator.get('/console/payouts/single/new?lang=ny')).statusCode).toBe(200);
    const ny = await create('initiator', { ...good, beneficiaryName: '', transactionAmount: '0' });
    expect(ny.statusCode).toBe(400);
    expect(textOf(ny.body, 'beneficiaryName-error')).toBe('Lembani dzina la wolandira.');
    expect(textOf(ny.body, 'transactionAmount-error')).toBe('Ndalama iyenera kukhala kuyambira 0.01 mpaka 1,000,000,000.00.');
    await clients.initiator.get('/console/payouts/single/new?lang=en');
    const { rows } = await t.db.query('select count(*)::int as n from payouts where merchant_account_number = $1 and captured_by = $2 and beneficiary_account_number = $3', [m.merchantAccountNumber, users.initiator.email, '12345']);
    expect(rows[0].n).toBe(0);
  });

  it('is reviewed and approved by two other users, four eyes kept, then paid', async () => {
    const res = await create('initiator', { ...good, sourceReferenceNumber: 'PAY-REVIEW' });
    const reference = /\/single\/([A-Z0-9]{12})\?/.exec(String(res.headers.location))![1];
    const before = await apiBalances(t, m);
    const asReviewer = await clients.reviewer.get(payoutUrl(reference));
    expect(shown(asReviewer.body)).toEqual(['reject', 'review']);
    expect(shown((await clients.approver.get(payoutUrl(reference))).body)).toEqual(['reject']);
    expect(shown((await clients.viewer.get(payoutUrl(reference))).body)).toEqual([]);

    // The capturer's forged review is refused; the approver cannot approve before review (a stale page's 409).
    const forged = await clients.initiator.post(`${payoutUrl(reference)}/review`, { _form: randomUUID() });
    expect(forged.statusCode).toBe(403);
    expect(textOf(forged.body, 'actions-error')).toContain(`already acted on transaction ${reference} as capturer; another user must review it.`);
    const early = await clients.approver.post(`${payoutUrl(reference)}/approve`, { _form: randomUUID(), confirmed: 'yes' });
    expect(early.statusCode).toBe(409);

    const reviewed = await clients.reviewer.post(`${payoutUrl(reference)}/review`, { _form: formKey(asReviewer.body, `${payoutUrl(reference)}/review`)! });
    expect(reviewed.statusCode).toBe(303);
    expect(reviewed.headers.location).toBe(`${payoutUrl(reference)}?notice=notice.payoutActions.singleReview`);
    const asApprover = await clients.approver.get(payoutUrl(reference));
    expect(shown(asApprover.body)).toEqual(['approve', 'reject']);

    const approved = await clients.approver.post(`${payoutUrl(reference)}/approve`, { _form: formKey(asApprover.body, `${payoutUrl(reference)}/approve`)!, confirmed: 'yes' });
    expect(approved.statusCode).toBe(303);
    expect(await payout(reference)).toMatchObject({ status_code: 'T', reviewed_by: users.reviewer.email, approved_by: users.approver.email });
    expect((await apiBalances(t, m)).disbursementMinor).toBe(before.disbursementMinor - 2500_50 - 100_00);
    expect(await audit('payout.review', 'reference', reference)).toEqual([{ user_id: users.reviewer.userId, detail: { reference } }]);
    expect(await audit('payout.approve', 'reference', reference)).toEqual([{ user_id: users.approver.userId, detail: { reference } }]);
    await runPayouts(t, m);
    expect((await payout(reference)).status_code).toBe('S');
  });

  it('is rejected with a reason; viewers may not create one; a foreign payout is 404', async () => {
    const res = await create('admin', { ...good, sourceReferenceNumber: 'PAY-REJECT' });
    const reference = /\/single\/([A-Z0-9]{12})\?/.exec(String(res.headers.location))![1];
    const own = await clients.admin.get(payoutUrl(reference));
    expect(shown(own.body)).toEqual(['reject']);
    expect(textOf(own.body, 'note-review')).toBe('You captured it, so another user must review it.');
    const page = await clients.reviewer.get(payoutUrl(reference));
    const key = formKey(page.body, `${payoutUrl(reference)}/reject`)!;
    const missing = await clients.reviewer.post(`${payoutUrl(reference)}/reject`, { _form: key });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body, 'reason-error')).toBe('Write why you reject it.');
    expect((await clients.reviewer.post(`${payoutUrl(reference)}/reject`, { _form: key, reason: 'Paid by cheque' })).statusCode).toBe(303);
    expect(await payout(reference)).toMatchObject({ status_code: 'X', rejected_by: users.reviewer.email, rejection_reason: 'Paid by cheque' });
    expect(textOf((await clients.reviewer.get(payoutUrl(reference))).body, 'payout-rejected')).toContain('Reason: Paid by cheque');

    expect((await clients.viewer.get('/console/payouts/single')).body).not.toContain('href="/console/payouts/single/new"');
    expect((await clients.viewer.get('/console/payouts/single/new')).statusCode).toBe(403);
    expect((await clients.viewer.post('/console/payouts/single/new', { _form: randomUUID(), ...good })).statusCode).toBe(403);

    const foreign = await t.app.inject({
      method: 'POST',
      url: `${BASE}/disbursements/single/add`,
      headers: other.auth,
      payload: { merchantAccountNumber: other.merchantAccountNumber, ...good, transactionAmount: '100.00', capturedBy: 'clerk@mzuzu.mw' },
    });
    expect(foreign.statusCode, foreign.body).toBe(200);
    const theirs: string = foreign.json().transactionReferenceNumber;
    expect((await clients.admin.get(payoutUrl(theirs))).statusCode).toBe(404);
    expect((await clients.admin.post(`${payoutUrl(theirs)}/reject`, { _form: randomUUID(), reason: 'x' })).statusCode).toBe(404);
    expect((await clients.admin.get(payoutUrl('NOTAREF'))).statusCode).toBe(404);
  });
});

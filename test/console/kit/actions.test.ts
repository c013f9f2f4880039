// The console's action runner (src/modules/console/kit/actions.tsx) on the real database: a form key is
// spent once, also by two submissions racing (a double click), and the second is answered with
// the first's outcome; a refusal rolls back the claim with the effect, so the corrected form can
// be sent with the same key; a key from another form or user is refused; every action is audited
// with its user.
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/http/errors.ts';
import { ConsoleRefusal, refusalOf, runAction } from '../../../src/modules/console/kit/actions.tsx';
import type { ConsoleContext } from '../../../src/modules/console/kit/http.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { addMerchantUser } from '../../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let userId: string;
let otherUserId: string;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  await t.db.query('create table action_effects (form_key text, n int)');
  userId = await addMerchantUser(t, m, 'approver@shop.mw', 4);
  otherUserId = await addMerchantUser(t, m, 'other@shop.mw', 4);
});
afterAll(async () => {
  await t?.close();
});

function contextOf(id: string): ConsoleContext {
  return {
    lang: 'en',
    nonce: 'n',
    csrfToken: 'c',
    sandbox: true,
    url: '/console',
    user: { userId: id, merchantAccountNumber: m.merchantAccountNumber, merchantName: 'Shop', firstName: 'A', lastName: 'B', emailAddress: 'approver@shop.mw', roleId: 4, roleCode: 'MERC_APPROVER', roleName: 'Approver' },
  };
}

function requestWith(formKey: string | undefined): FastifyRequest {
  return { body: formKey === undefined ? {} : { _form: formKey }, ip: '10.1.2.3', headers: { 'user-agent': 'test' } } as unknown as FastifyRequest;
}

const effects = async (key: string) => (await t.db.query('select * from action_effects where form_key = $1', [key])).rowCount;

describe('console actions', () => {
  it('acts once for two submissions of one form racing, and answers both with the same outcome', async () => {
    const key = crypto.randomUUID();
    let started = 0;
    const spec = {
      action: 'batch.approve' as const,
      run: async (tx: import('pg').PoolClient) => {
        started += 1;
        await tx.query('insert into action_effects values ($1, 1)', [key]);
        // Hold the transaction open so the second submission arrives while the first is under way.
        await new Promise((resolve) => setTimeout(resolve, 150));
        return { outcome: { location: '/console/payouts/batches/7?notice=notice.approved' }, detail: { batchNumber: 7 } };
      },
    };
    const [a, b] = await Promise.all([runAction(t.deps, requestWith(key), contextOf(userId), spec), runAction(t.deps, requestWith(key), contextOf(userId), spec)]);
    expect([a.kind, b.kind].sort()).toEqual(['done', 'replayed']);
    expect(a.outcome).toEqual(b.outcome);
    expect(started).toBe(1);
    expect(await effects(key)).toBe(1);
    const { rows } = await t.db.query('select action, detail, user_id, ip from console_audit_log where user_id = $1 and action = $2', [userId, 'batch.approve']);
    expect(rows).toEqual([{ action: 'batch.approve', detail: { batchNumber: 7 }, user_id: userId, ip: '10.1.2.3' }]);
  });

  it('rolls the claim back with a refusal, so the corrected form goes through with the same key', async () => {
    const key = crypto.randomUUID();
    const refused = runAction(t.deps, requestWith(key), contextOf(userId), {
      action: 'payout.add',
      run: async (tx) => {
        await tx.query('insert into action_effects values ($1, 1)', [key]);
        throw new AppError('insufficientBalance', 'detail.insufficientBalance', { balance: '10.00', amount: '20.00' });
      },
    });
    const err = await refused.catch((e: unknown) => e);
    expect(refusalOf(err, 'en')?.status).toBe(402);
    expect(refusalOf(new Error('bug'), 'en')).toBeUndefined();
    expect(await effects(key)).toBe(0);
    const ok = await runAction(t.deps, requestWith(key), contextOf(userId), {
      action: 'payout.add',
      run: async (tx) => {
        await tx.query('insert into action_effects values ($1, 2)', [key]);
        return { outcome: { location: '/console/payouts/single' } };
      },
    });
    expect(ok.kind).toBe('done');
    expect(await effects(key)).toBe(1);
  });

  it('refuses a form without a key, and a key spent by another form or another user', async () => {
    const never = { action: 'api_key.generate' as const, run: async () => ({ outcome: { location: '/x' } }) };
    await expect(runAction(t.deps, requestWith(undefined), contextOf(userId), never)).rejects.toBeInstanceOf(ConsoleRefusal);
    await expect(runAction(t.deps, requestWith('not-a-uuid'), contextOf(userId), never)).rejects.toBeInstanceOf(ConsoleRefusal);
    const key = crypto.randomUUID();
    expect((await runAction(t.deps, requestWith(key), contextOf(userId), never)).kind).toBe('done');
    await expect(runAction(t.deps, requestWith(key), contextOf(userId), { ...never, action: 'api_key.delete' })).rejects.toMatchObject({ status: 409 });
    await expect(runAction(t.deps, requestWith(key), contextOf(otherUserId), never)).rejects.toMatchObject({ status: 409 });
  });
});

// A replayed keyed write is answered once, quietly: its own store fails (store_idempotent_answer
// raises "idempotency key … is held by another request") and the error handler answers it from
// the first request's record. That used to run the error path a second time: an "unexpected
// error" at level 50 and Fastify's "Reply was already sent" at level 40, after a correct replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../src/app.ts';
import { appLoggingTo, BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, CAPTURER, major, NBM, payoutLine, walletLine } from '../money-ops.ts';

let t: TestApp;
let m: TestMerchant;
let logged: BuiltApp;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
  logged = await appLoggingTo(t, lines);
  // Money to pay out.
  const funded = await send('/merchants/accounts/topup', { merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: major(100_000_000), createdBy: CAPTURER });
  expect(funded.statusCode, funded.body).toBe(200);
});
afterAll(async () => {
  await logged?.app.close();
  await t?.close();
});

let seq = 0;
const newKey = () => `replay-log-key-${Date.now().toString(36)}-${(++seq).toString(36)}-abcdef`;
const ref = () => `REF${Date.now().toString(36).toUpperCase()}${(++seq).toString(36).toUpperCase()}`;

function send(path: string, payload: object, headers: Record<string, string> = {}) {
  return logged.app.inject({ method: 'POST', url: `${BASE}${path}`, headers: { ...m.auth, ...headers }, payload });
}

/** What was logged at warn or above (level ≥ 40) since line `from`. */
function warningsSince(from: number): Record<string, unknown>[] {
  return lines
    .slice(from)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => Number(l.level) >= 40);
}

/** Lets anything still running after the answer (a second pass of the error handler) log. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

const OPS: { name: string; path: string; body: () => object }[] = [
  {
    name: 'E11 addFakeCustomPayment',
    path: '/collections/addFakeCustomPayment',
    body: () => ({ merchantAccountNumber: m.merchantAccountNumber, beneficiaryAccountNumber: m.paymentAccountNumber, connectorId: AIRTEL, transactionAmount: '1000.00', createdBy: 'a@b.mw' }),
  },
  {
    name: 'E12 initiate',
    path: '/collections/requestToPay/initiate',
    body: () => ({ merchantAccountNumber: m.merchantAccountNumber, transactionAmount: '1500.00', transactionDescription: 'School shoes', referenceNumber: ref(), capturedBy: CAPTURER }),
  },
  {
    name: 'top-up',
    path: '/merchants/accounts/topup',
    body: () => ({ merchantAccountNumber: m.merchantAccountNumber, connectorId: NBM, topupAmount: '123.45', createdBy: CAPTURER }),
  },
  {
    name: 'single payout add',
    path: '/disbursements/single/add',
    body: () => ({ merchantAccountNumber: m.merchantAccountNumber, ...payoutLine({ amountMinor: 50_000, channel: 'wallet', suffix: '1234' }), capturedBy: CAPTURER }),
  },
  {
    name: 'E8 addJson',
    path: '/disbursements/batch/addJson',
    body: () => ({ header: { merchantAccountNumber: m.merchantAccountNumber, isBatchScheduled: false, capturedBy: CAPTURER }, transactions: [walletLine(1000), walletLine(2000)] }),
  },
];

describe('a replayed keyed write', () => {
  for (const op of OPS) {
    it(`${op.name}: answers the first answer once, and logs nothing at warn or above`, async () => {
      const body = op.body();
      const key = newKey();
      const first = await send(op.path, body, { 'x-idempotency-key': key });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      await settle();

      const from = lines.length;
      const again = await send(op.path, body, { 'x-idempotency-key': key });
      await settle();
      expect(again.statusCode, again.body).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(warningsSince(from)).toEqual([]);
    });
  }

  it('E11 sent 6 times at once: one effect, 5 replays of its answer, nothing logged at warn or above', async () => {
    const body = OPS[0].body();
    const key = newKey();
    const from = lines.length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(OPS[0].path, body, { 'x-idempotency-key': key })));
    await settle();
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(warningsSince(from)).toEqual([]);
  });
});

// Issue 27, collection webhooks as the gateway documents them:
//   - the Collections Webhooks page (docs.onekhusa.com/api-reference/webhooks/collectionswebhook)
//     still tells integrators to subscribe to payment.reverse and payrequest.reverse, while the
//     Webhook Events page names payment.reversed and payrequest.reversed: a subscription to the
//     older spelling is an alias, it fires for the same events (and its deliveries name the code it
//     was made with in X-OneKhusa-Webhook-Event);
//   - collection payloads carry sourceInstitution, the institution the customer paid from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { CAPTURER, collectionReference, customPayment, payTimed, requestToPay, reverseCollection } from '../money-ops.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Alias Shop' });
});
afterAll(() => t.close());

const send = (who: TestMerchant, method: 'GET' | 'POST', path: string, payload?: object) =>
  t.app.inject({ method, url: `${BASE}${path}`, headers: who.auth, ...(payload ? { payload } : {}) });

async function subscribe(who: TestMerchant, eventCode: string): Promise<number> {
  const res = await send(who, 'POST', '/merchants/webhooks/add', { merchantAccountNumber: who.merchantAccountNumber, eventCode, callbackUrl: `https://shop.example.mw/hooks/${eventCode}`, capturedBy: CAPTURER });
  expect(res.statusCode, res.body).toBe(201);
  const all = (await send(who, 'GET', `/merchants/webhooks/getAll?merchantAccountNumber=${who.merchantAccountNumber}`)).json() as Array<{ webhookId: number; eventCode: string }>;
  return all.find((s) => s.eventCode === eventCode)!.webhookId;
}

/** The deliveries made to a subscription: the code they name and the event's payload. */
async function deliveriesOf(webhookId: number): Promise<Array<{ event_code: string; payload: Record<string, unknown> }>> {
  const { rows } = await t.db.query<{ event_code: string; payload: Record<string, unknown> }>(
    `select d.event_code, e.payload from webhook_deliveries d join outbox_events e on e.event_id = d.event_id where d.webhook_id = $1 order by d.delivery_id`,
    [webhookId],
  );
  return rows;
}

describe('the older event spellings', () => {
  it('payment.reverse fires for a reversed customer payment, as payment.reversed does', async () => {
    const alias = await subscribe(m, 'payment.reverse');
    const current = await subscribe(m, 'payment.reversed');
    const paid = await customPayment(t, m, 500_000);
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await reverseCollection(t, m, collectionReference(paid))).statusCode).toBe(200);
    const [viaAlias] = await deliveriesOf(alias);
    expect(viaAlias).toBeDefined();
    expect(viaAlias.event_code).toBe('payment.reverse');
    expect(viaAlias.payload).toMatchObject({ eventCode: 'payment.reversed', transactionReferenceNumber: collectionReference(paid), transactionStatusCode: 'R' });
    expect((await deliveriesOf(current)).map((d) => d.event_code)).toEqual(['payment.reversed']);
    // Listed with the name of the event it stands for.
    const all = (await send(m, 'GET', `/merchants/webhooks/getAll?merchantAccountNumber=${m.merchantAccountNumber}`)).json() as Array<{ eventCode: string; eventName: string }>;
    expect(all.find((s) => s.eventCode === 'payment.reverse')!.eventName).toBe(all.find((s) => s.eventCode === 'payment.reversed')!.eventName);
  });

  it('payrequest.reverse fires for a reversed request-to-pay payment', async () => {
    const alias = await subscribe(m, 'payrequest.reverse');
    const timed = await requestToPay(t, m, 300_000);
    const paid = await payTimed(t, m, timed, 300_000);
    expect(paid.statusCode, paid.body).toBe(200);
    const reference = paid.json().transactionReferenceNumber ?? collectionReference(paid);
    expect((await reverseCollection(t, m, reference)).statusCode).toBe(200);
    const deliveries = await deliveriesOf(alias);
    expect(deliveries.map((d) => [d.event_code, d.payload.eventCode])).toEqual([['payrequest.reverse', 'payrequest.reversed']]);
  });

  it('a test event can be sent to a subscription made with the older spelling', async () => {
    const res = await send(m, 'POST', '/merchants/webhooks/test', { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.reverse' });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('sourceInstitution in collection payloads', () => {
  it('names the institution the customer paid from', async () => {
    const direct = await subscribe(m, 'payment.success');
    const requested = await subscribe(m, 'payrequest.success');
    expect((await customPayment(t, m, 100_000)).statusCode).toBe(200);
    const timed = await requestToPay(t, m, 200_000);
    expect((await payTimed(t, m, timed, 200_000)).statusCode).toBe(200);
    const [payment] = await deliveriesOf(direct);
    const [request] = await deliveriesOf(requested);
    // E11 here pays from National Bank of Malawi (212188), the timed account from Airtel Money (112400).
    expect(payment.payload).toMatchObject({ connectorId: 212188, sourceInstitution: 'National Bank of Malawi' });
    expect(request.payload).toMatchObject({ connectorId: 112400, sourceInstitution: 'Airtel Money' });
  });
});

// Temporary webhook listeners (issue 15, `npm run cli -- listen`): a copy of a merchant's events
// through a lease, the merchant's subscriptions untouched. The real app, database, dispatcher and a
// real receiver on 127.0.0.1. A lease "lapsing" is made to happen by moving its end into the past
// in the database (the clock every comparison uses), never by waiting for it.
import http from 'node:http';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { emitEvent, emitEvents } from '../../src/jobs/outbox.ts';
import { startWorker } from '../../src/jobs/queue.ts';
import { workerPlan } from '../../src/composition.ts';
import { sweepListeners } from '../../src/modules/webhooks/repository.ts';
import { BASE, clientError, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({}, { webhookRetryScheduleMs: [0, 100, 100], webhookTimeoutMs: 500, webhookLeaseMs: 1500 });
});
afterAll(() => t?.close());

const ACTOR = 'dev@shop.example.mw';
const HOOK = 'https://shop.example.mw/hooks/onekhusa';

async function createListener(m: TestMerchant, body: Record<string, unknown> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/merchants/webhooks/listeners`,
    headers: m.auth,
    payload: { merchantAccountNumber: m.merchantAccountNumber, callbackUrl: 'http://127.0.0.1:9/listen', eventCodes: ['payment.success'], capturedBy: ACTOR, ...body },
  });
}

async function subscriptions(m: TestMerchant): Promise<unknown[]> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/webhooks/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function emit(m: TestMerchant, eventCode = 'payment.success'): Promise<Array<{ delivery_id: number; webhook_id: number | null; listener_id: number | null; callback_url: string; status: string }>> {
  const { eventId } = await withTransaction(t.db, (tx) => emitEvent(tx, m.merchantAccountNumber, eventCode, { eventCode, merchantAccountNumber: m.merchantAccountNumber }));
  const { rows } = await t.db.query('select delivery_id, webhook_id, listener_id, callback_url, status from webhook_deliveries where event_id = $1 order by delivery_id', [eventId]);
  return rows;
}

const lapse = (listenerId: number) => t.db.query(`update webhook_listeners set expires_at = now() - interval '1 second' where listener_id = $1`, [listenerId]);

describe('POST /merchants/webhooks/listeners', () => {
  it('copies the events it names to its URL, beside the subscription, which stays as it was', async () => {
    const m = await newMerchant(t);
    await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: HOOK, capturedBy: ACTOR } });
    const before = await subscriptions(m);

    const res = await createListener(m, { eventCodes: ['payment.success', 'payout.success', 'payment.success'], leaseSeconds: 30 });
    expect(res.statusCode).toBe(201);
    const listener = res.json();
    expect(listener).toMatchObject({
      merchantAccountNumber: m.merchantAccountNumber,
      listenerId: expect.any(Number),
      callbackUrl: 'http://127.0.0.1:9/listen',
      eventCodes: ['payment.success', 'payout.success'],
      leaseSeconds: 30,
      signingSecret: expect.stringMatching(/^whsec_/),
      webhookSignature: expect.stringMatching(/^[A-Za-z0-9]{52}$/),
    });
    expect(Date.parse(listener.expiresAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await subscriptions(m)).toEqual(before);

    const deliveries = await emit(m);
    expect(deliveries).toEqual([
      expect.objectContaining({ webhook_id: expect.any(Number), listener_id: null, callback_url: HOOK }),
      expect.objectContaining({ webhook_id: null, listener_id: listener.listenerId, callback_url: 'http://127.0.0.1:9/listen' }),
    ]);
    // An event it does not name: the subscription's business only (none here).
    expect(await emit(m, 'payrequest.success')).toEqual([]);
    // Set-based emission (payout chunks) copies too.
    await withTransaction(t.db, (tx) => emitEvents(tx, m.merchantAccountNumber, 'payout.success', [{ n: 1 }, { n: 2 }]));
    const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where listener_id = $1 and event_code = 'payout.success'`, [listener.listenerId]);
    expect(rows[0].n).toBe(2);
    // The delivery log marks the copies.
    const log = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/deliveries`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.success' } });
    expect(log.json()).toEqual(expect.arrayContaining([expect.objectContaining({ webhookId: null, listenerId: listener.listenerId })]));
  });

  it('refuses unknown event codes, leases outside 5–300 s and more than 10 unexpired listeners', async () => {
    const m = await newMerchant(t);
    clientError(await createListener(m, { eventCodes: ['payment.sucess'] }), 400);
    clientError(await createListener(m, { eventCodes: [] }), 400);
    clientError(await createListener(m, { leaseSeconds: 4 }), 400);
    clientError(await createListener(m, { leaseSeconds: 301 }), 400);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await createListener(m);
      expect(res.statusCode).toBe(201);
      ids.push(res.json().listenerId);
    }
    expect(clientError(await createListener(m), 409).errorCode).toBe('E906');
    // A lapsed one no longer counts.
    await lapse(ids[0]);
    expect((await createListener(m)).statusCode).toBe(201);
  });
});

describe('renew and delete', () => {
  it('renew extends an unexpired lease; a lapsed listener gets nothing and cannot be renewed', async () => {
    const m = await newMerchant(t);
    const listener = (await createListener(m, { leaseSeconds: 5 })).json();
    const renew = () => t.app.inject({ method: 'PUT', url: `${BASE}/merchants/webhooks/listeners/renew`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, listenerId: listener.listenerId } });
    // Moved near its end, a renewal puts the end a whole lease from now again.
    await t.db.query(`update webhook_listeners set expires_at = now() + interval '1 second' where listener_id = $1`, [listener.listenerId]);
    const renewed = await renew();
    expect(renewed.statusCode).toBe(200);
    const { rows } = await t.db.query<{ left: number }>('select extract(epoch from expires_at - now())::float8 as left from webhook_listeners where listener_id = $1', [listener.listenerId]);
    expect(rows[0].left).toBeGreaterThan(4);
    expect(renewed.json()).toMatchObject({ listenerId: listener.listenerId, leaseSeconds: 5 });

    await lapse(listener.listenerId);
    expect((await emit(m)).filter((d) => d.listener_id !== null)).toEqual([]);
    expect(clientError(await renew(), 404).errorCode).toBe('E903');
  });

  it('delete ends the listener and its undelivered copies; another merchant cannot touch it', async () => {
    const m = await newMerchant(t);
    const other = await newMerchant(t);
    const listener = (await createListener(m)).json();
    const [copy] = await emit(m);
    expect(copy).toMatchObject({ listener_id: listener.listenerId, status: 'pending' });

    const foreign = { merchantAccountNumber: other.merchantAccountNumber, listenerId: listener.listenerId };
    clientError(await t.app.inject({ method: 'PUT', url: `${BASE}/merchants/webhooks/listeners/renew`, headers: other.auth, payload: foreign }), 404);
    clientError(await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/listeners/delete`, headers: other.auth, payload: foreign }), 404);

    const del = () => t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/listeners/delete`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, listenerId: listener.listenerId } });
    const deleted = await del();
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toBe('Webhook listener has been deleted successfully');
    const { rows } = await t.db.query<{ status: string }>('select status from webhook_deliveries where delivery_id = $1', [copy.delivery_id]);
    expect(rows[0].status).toBe('failed');
    expect(await emit(m)).toEqual([]);
    clientError(await del(), 404);
  });

  it('the sweep deletes lapsed listeners and ends their undelivered copies', async () => {
    const m = await newMerchant(t);
    const kept = (await createListener(m)).json();
    const lapsing = (await createListener(m, { callbackUrl: 'http://127.0.0.1:9/other' })).json();
    const copies = await emit(m);
    await lapse(lapsing.listenerId);
    expect(await sweepListeners(t.db, 1000)).toBeGreaterThanOrEqual(1);
    const { rows } = await t.db.query<{ listener_id: number }>('select listener_id from webhook_listeners where merchant_account_number = $1', [m.merchantAccountNumber]);
    expect(rows.map((r) => r.listener_id)).toEqual([kept.listenerId]);
    const { rows: states } = await t.db.query<{ listener_id: number; status: string }>('select listener_id, status from webhook_deliveries where delivery_id = any($1::bigint[])', [copies.map((c) => c.delivery_id)]);
    expect(states.find((s) => s.listener_id === lapsing.listenerId)?.status).toBe('failed');
    expect(states.find((s) => s.listener_id === kept.listenerId)?.status).toBe('pending');
  });
});

describe('the dispatcher and listener copies', () => {
  it('signs a copy with the listener\'s secret and names it; sends nothing once the listener has lapsed', async () => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const worker = await startWorker(t.deps, 1, workerPlan(t.deps));
    try {
      const m = await newMerchant(t);
      const callbackUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/listen`;
      const listener = (await createListener(m, { callbackUrl })).json();
      const [copy] = await emit(m);
      await until('the copy delivered', async () => received.length > 0, 10_000, 20);
      const got = received[0];
      expect(got.headers).toMatchObject({ 'x-onekhusa-listener-id': String(listener.listenerId), 'x-onekhusa-delivery-id': String(copy.delivery_id), 'x-onekhusa-webhook-signature': listener.webhookSignature });
      expect(() => new Webhook(listener.signingSecret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();

      // A copy still pending when its listener lapses is never sent: it ends as failed.
      await worker.stop();
      const [pending] = await emit(m);
      await lapse(listener.listenerId);
      const again = await startWorker(t.deps, 1, workerPlan(t.deps));
      try {
        const attempts = await until(
          'the lapsed copy ended',
          async () => {
            const { rows } = await t.db.query<{ status: string; error: string | null }>(
              'select d.status, a.error from webhook_deliveries d left join webhook_attempts a on a.delivery_id = d.delivery_id where d.delivery_id = $1',
              [pending.delivery_id],
            );
            return rows[0].status === 'failed' ? rows : undefined;
          },
          10_000,
          20,
        );
        expect(attempts).toEqual([{ status: 'failed', error: 'listener lapsed' }]);
        expect(received).toHaveLength(1);
      } finally {
        await again.stop();
      }
    } finally {
      await worker.stop().catch(() => undefined);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// The SDK's webhook checks against a real delivery: a subscription made through the SDK, the real
// worker delivering a test event to a real receiver on 127.0.0.1, then verifyWebhook (Standard
// Webhooks, WebCrypto) on what arrived and the gateway's verify endpoint on its static signature.
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerPlan } from '../../src/composition.ts';
import { startWorker, type Worker } from '../../src/jobs/queue.ts';
import { verifyWebhook, WebhookVerificationError, type OneKhusa } from '../../packages/sdk/src/index.ts';
import { newMerchant, until, type TestMerchant } from '../helpers.ts';
import { ACTOR, clientFor, serve, type Served } from './harness.ts';

const EVENT = 'payment.success';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let s: Served;
let m: TestMerchant;
let client: OneKhusa;
let worker: Worker;
let receiver: http.Server;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  s = await serve();
  m = await newMerchant(s.t);
  client = clientFor(s.baseUrl, m);
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  worker = await startWorker(s.t.deps, 2, workerPlan(s.t.deps));
});
afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await s?.t.close();
});

describe('a real delivery', () => {
  let delivery: Delivery;
  let subscription: { signingSecret: string; webhookSignature: string };

  beforeAll(async () => {
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/onekhusa`;
    await client.call('merchantsWebhooksAdd', { merchantAccountNumber: m.merchantAccountNumber, eventCode: EVENT, callbackUrl, capturedBy: ACTOR });
    const all = await client.call('merchantsWebhooksGetAll', { merchantAccountNumber: m.merchantAccountNumber });
    subscription = all.find((w) => w.eventCode === EVENT)!;
    await client.call('merchantsWebhooksTest', { merchantAccountNumber: m.merchantAccountNumber, eventCode: EVENT });
    delivery = await until('the test delivery', async () => deliveries[0], 15_000);
  });

  it('verifyWebhook accepts it with the subscription signingSecret and answers its payload', async () => {
    expect(subscription.signingSecret).toMatch(/^whsec_/);
    const payload = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: subscription.signingSecret });
    expect(payload).toMatchObject({ eventCode: EVENT, merchantAccountNumber: m.merchantAccountNumber, isTest: true });
    // A Fetch Headers object works the same.
    const headers = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    await expect(verifyWebhook({ payload: delivery.body, headers, secret: subscription.signingSecret })).resolves.toMatchObject({ eventCode: EVENT });
  });

  it('refuses a changed body, another secret, an old timestamp and missing headers', async () => {
    const { body, headers } = delivery;
    const secret = subscription.signingSecret;
    const refused = (options: Parameters<typeof verifyWebhook>[0]) => expect(verifyWebhook(options)).rejects.toBeInstanceOf(WebhookVerificationError);
    await refused({ payload: body.replace(EVENT, 'payment.reversed'), headers, secret });
    await refused({ payload: body, headers, secret: `whsec_${btoa('another secret of 32 bytes......')}` });
    await refused({ payload: body, headers, secret, nowMs: Date.now() + 6 * 60_000 });
    await refused({ payload: body, headers: { ...headers, 'webhook-signature': undefined }, secret });
    await expect(verifyWebhook({ payload: body, headers, secret, nowMs: Date.now() + 4 * 60_000 })).resolves.toBeDefined();
  });

  it("the gateway's verify endpoint confirms the static X-OneKhusa-Webhook-Signature", async () => {
    expect(delivery.headers['x-onekhusa-webhook-signature']).toBe(subscription.webhookSignature);
    await expect(client.verifyWebhookSignature({ headers: delivery.headers })).resolves.toBe(true);
    await expect(client.verifyWebhookSignature({ eventCode: EVENT, webhookSignature: subscription.webhookSignature })).resolves.toBe(true);
    await expect(client.verifyWebhookSignature({ eventCode: EVENT, webhookSignature: 'x'.repeat(52) })).resolves.toBe(false);
  });
});

it('agrees with the standardwebhooks library', async () => {
  const secret = `whsec_${btoa('0123456789abcdef0123456789abcdef')}`;
  const payload = JSON.stringify({ eventCode: EVENT, amount: 1 });
  const timestamp = new Date();
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign('msg_1', timestamp, payload) };
  await expect(verifyWebhook({ payload, headers, secret })).resolves.toEqual({ eventCode: EVENT, amount: 1 });
  // Several signatures (a secret being rotated): any one matching is enough.
  await expect(verifyWebhook({ payload, headers: { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` }, secret })).resolves.toBeDefined();
});

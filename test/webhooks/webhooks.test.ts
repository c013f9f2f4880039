// Webhook subscriptions (add, getAll, get, E13 update, E14 delete, verify), test events, the
// delivery log and redelivery (product.md §11), against the real app and database: happy paths,
// refusals, merchant scoping and the SSRF guard on callback URLs. Deliveries are created through
// the outbox (emitEvent) and their outcomes simulated with SQL; no worker runs here (the
// dispatcher has its own test file).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { AppError } from '../../src/http/errors.ts';
import { t as translate } from '../../src/http/i18n.ts';
import { emitEvent } from '../../src/jobs/outbox.ts';
import { EVENT_CODES } from '../../src/modules/webhooks/catalogue.ts';
import { isInternalAddress, parseCallbackUrl } from '../../src/modules/webhooks/url-guard.ts';
import { BASE, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { clientError, dbState } from '../helpers.ts';
import type { SubscriptionRow } from '../../src/modules/webhooks/repository.ts';
import { ACTOR, webhookFor } from '../routes.ts';

let t: TestApp;
/** The caller. */
let m: TestMerchant;
/** Another merchant of the same organisation, with subscriptions of its own. */
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Hook Shop' });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
});
afterAll(() => t.close());

const HOOK = 'https://shop.example.mw/hooks/onekhusa';
const SIGNATURE = /^[A-Za-z0-9]{52}$/;
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const RECORD_KEYS = ['merchantAccountNumber', 'webhookId', 'eventCode', 'eventName', 'callbackUrl', 'webhookSignature', 'signingSecret', 'dateCreated', 'createdBy', 'dateModified', 'modifiedBy'].sort();
const DELIVERY_KEYS = ['deliveryId', 'webhookId', 'eventId', 'eventCode', 'callbackUrl', 'webhookMessageId', 'status', 'numberOfAttempts', 'isTest', 'listenerId', 'dateCreated', 'nextAttemptDate', 'dateCompleted', 'attempts'].sort();

type Res = { statusCode: number; headers: Record<string, unknown>; body: string; json(): any };
type App = TestApp;


function post(op: string, payload: unknown, who: TestMerchant = m, headers: Record<string, string> = {}, app: App = t, base = BASE): Promise<Res> {
  return app.app.inject({ method: 'POST', url: `${base}/merchants/webhooks/${op}`, headers: { ...who.auth, ...headers }, payload: payload as object });
}

function get(op: string, query: Record<string, string | number>, who: TestMerchant = m, headers: Record<string, string> = {}, app: App = t, base = BASE): Promise<Res> {
  return app.app.inject({ method: 'GET', url: `${base}/merchants/webhooks/${op}`, headers: { ...who.auth, ...headers }, query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) });
}

const addBody = (who: TestMerchant, over: Record<string, unknown> = {}) => ({ merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: HOOK, capturedBy: ACTOR, ...over });

function add(who: TestMerchant, over: Record<string, unknown> = {}, app: App = t, base = BASE): Promise<Res> {
  return post('add', addBody(who, over), who, {}, app, base);
}

/** E14 for `who`; `headerValue` null sends no MerchantAccountNumber header. */
function remove(who: TestMerchant, eventCode: string, headerValue: string | null = String(who.merchantAccountNumber), over: Record<string, unknown> = {}): Promise<Res> {
  return post('delete', { eventCode, merchantAccountNumber: who.merchantAccountNumber, deletedBy: ACTOR, ...over }, who, headerValue === null ? {} : { MerchantAccountNumber: headerValue });
}

async function listOf(who: TestMerchant, headers: Record<string, string> = {}): Promise<any[]> {
  const res = await get('getAll', { merchantAccountNumber: who.merchantAccountNumber }, who, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A fresh merchant, for tests that need known event codes nobody has subscribed yet. */
const fresh = () => newMerchant(t, { organisationId: m.organisationId });
const customCode = () => `custom.${Math.random().toString(36).slice(2, 10)}`;

type SubscriptionDb = SubscriptionRow;

async function subscriptions(who: TestMerchant, app: App = t): Promise<SubscriptionDb[]> {
  const { rows } = await app.db.query<SubscriptionDb>('select * from webhook_subscriptions where merchant_account_number = $1 order by webhook_id', [who.merchantAccountNumber]);
  return rows;
}

interface DeliveryDb {
  delivery_id: number;
  webhook_id: number | null;
  event_id: number;
  event_code: string;
  callback_url: string;
  message_id: string;
  status: string;
  round_attempts: number;
  total_attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  is_test: boolean;
  created_at: Date;
  completed_at: Date | null;
}

async function delivery(id: number, app: App = t): Promise<DeliveryDb> {
  const { rows } = await app.db.query<DeliveryDb>('select * from webhook_deliveries where delivery_id = $1', [id]);
  return rows[0];
}

/** Emits `eventCode` for `who` through the outbox; returns the event and the deliveries it fanned out to. */
async function emit(who: TestMerchant, eventCode: string, app: App = t): Promise<{ eventId: number; deliveryIds: number[] }> {
  const { eventId } = await withTransaction(app.db, (tx) => emitEvent(tx, who.merchantAccountNumber, eventCode, { eventCode, merchantAccountNumber: who.merchantAccountNumber }));
  const { rows } = await app.db.query<{ delivery_id: number }>('select delivery_id from webhook_deliveries where event_id = $1 order by delivery_id', [eventId]);
  return { eventId, deliveryIds: rows.map((r) => r.delivery_id) };
}

/** The one delivery an event to `who`'s subscription for `eventCode` creates. */
async function oneDelivery(who: TestMerchant, eventCode: string, app: App = t): Promise<number> {
  const { deliveryIds } = await emit(who, eventCode, app);
  expect(deliveryIds).toHaveLength(1);
  return deliveryIds[0];
}

/** Simulates the dispatcher's outcome for a delivery. */
async function settle(id: number, status: 'failed' | 'succeeded', attempts = 3, app: App = t): Promise<void> {
  await app.db.query(
    `update webhook_deliveries set status = $2, round_attempts = $3::smallint, total_attempts = $3::int, completed_at = now(), next_attempt_at = now() + interval '1 hour' where delivery_id = $1`,
    [id, status, attempts],
  );
}

async function setCreated(id: number, at: string, app: App = t): Promise<void> {
  await app.db.query('update webhook_deliveries set created_at = $2 where delivery_id = $1', [id, at]);
}

/** Runs `request`, asserts it is refused with `status` and `errorCode`, and that no table changed. */
async function refusedUnchanged(request: () => Promise<Res>, status: number, errorCode: string, app: App = t) {
  const before = await dbState(app.db);
  const res = await request();
  const p = clientError(res, status);
  expect(p.errorCode).toBe(errorCode);
  expect(await dbState(app.db)).toEqual(before);
  return p;
}

const BAD_URLS = [
  ['a javascript: URL', 'javascript:alert(1)'],
  ['an ftp URL', 'ftp://x'],
  ['a longer ftp URL', 'ftp://files.example.mw/in'],
  ['a URL with credentials', 'http://user:pass@host/'],
  ['a URL with a user name', 'https://user@shop.example.mw/hooks'],
  ['a relative path', '/hooks/onekhusa'],
  ['a relative reference', 'hooks/onekhusa'],
  ['a file URL', 'file:///etc/passwd'],
  ['a data URL', 'data:text/plain,hello'],
  ['a mailto URL', 'mailto:ops@shop.mw'],
  ['a scheme without a host', 'http://'],
  ['plain text', 'not a url at all'],
  ['a URL longer than 2048 characters', `https://shop.example.mw/${'a'.repeat(2048)}`],
] as const;

// ---------------------------------------------------------------------------------------------

describe('POST /merchants/webhooks/add', () => {
  it('answers 201 {"message": …} (an object, as the gateway documents it) and stores the subscription', async () => {
    const who = await fresh();
    const res = await add(who);
    expect(res.statusCode, res.body).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ message: 'Merchant webhook has been created successfully' });
    const [row] = await subscriptions(who);
    expect(row).toMatchObject({ merchant_account_number: who.merchantAccountNumber, event_code: 'payment.success', callback_url: HOOK, created_by: ACTOR, modified_by: null, date_modified: null });
    expect(row.webhook_signature).toMatch(SIGNATURE);
    expect(row.signing_secret).toMatch(SIGNING_SECRET);
    expect(Buffer.from(row.signing_secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('answers in Chichewa with Accept-Language: ny', async () => {
    const res = await post('add', addBody(m, { eventCode: customCode() }), m, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ message: translate('ny', 'ok.webhookCreated') });
    expect(res.headers['content-language']).toBe('ny');
  });

  it('accepts the callbackURL spelling and other casings of the property names', async () => {
    const who = await fresh();
    const res = await post('add', { MerchantAccountNumber: who.merchantAccountNumber, EventCode: 'payout.success', callbackURL: `${HOOK}/payouts`, CapturedBy: ACTOR }, who);
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await subscriptions(who);
    expect(row.event_code).toBe('payout.success');
    expect(row.callback_url).toBe(`${HOOK}/payouts`);
  });

  it('answers 409 E906 to a second subscription for the same event code and keeps the first', async () => {
    const who = await fresh();
    expect((await add(who)).statusCode).toBe(201);
    const before = await subscriptions(who);
    const p = await refusedUnchanged(() => add(who, { callbackUrl: 'https://elsewhere.example.mw/x' }), 409, 'E906');
    expect(p.detail).toContain('payment.success');
    expect(await subscriptions(who)).toEqual(before);
  });

  it('allows the same event code for two merchants, each with its own signature and secret', async () => {
    const one = await fresh();
    const two = await fresh();
    expect((await add(one)).statusCode).toBe(201);
    expect((await add(two)).statusCode).toBe(201);
    const [a] = await subscriptions(one);
    const [b] = await subscriptions(two);
    expect(a.webhook_signature).not.toBe(b.webhook_signature);
    expect(a.signing_secret).not.toBe(b.signing_secret);
  });

  it('stores an unknown event code, named as unknown', async () => {
    const code = customCode();
    expect((await add(m, { eventCode: code })).statusCode).toBe(201);
    const record = (await listOf(m)).find((r) => r.eventCode === code);
    expect(record.eventName).toBe(translate('en', 'event.unknown'));
    expect(record.eventName).toMatch(/unknown/i);
  });

  it('lists each missing field once', async () => {
    const p = await refusedUnchanged(() => post('add', {}, m), 400, 'E900');
    expect(p.errors.sort()).toEqual(['Callback Url is required.', 'Captured By is required.', 'Event Code is required.', 'Merchant Account Number is required.']);
  });

  it.each(BAD_URLS)('refuses %s with 400 and stores nothing', async (_name, callbackUrl) => {
    const p = await refusedUnchanged(() => add(m, { eventCode: customCode(), callbackUrl }), 400, 'E900');
    expect(p.errors.length).toBeGreaterThan(0);
    expect(echoes(p, callbackUrl)).toBe(false);
  });

  it.each([
    ['200 characters', 'e'.repeat(200)],
    ['101 characters', 'e'.repeat(101)],
    ['an empty string', ''],
    ['spaces', 'payment success'],
    ['a slash', 'payment/success'],
    ['an object', { code: 'payment.success' }],
    ['null', null],
  ])('refuses an eventCode of %s with 400', async (_name, eventCode) => {
    await refusedUnchanged(() => add(m, { eventCode }), 400, 'E900');
  });

  it('refuses a capturedBy that is not an e-mail address', async () => {
    await refusedUnchanged(() => add(m, { eventCode: customCode(), capturedBy: 'bob' }), 400, 'E900');
  });

  it("answers 404 to a subscription for another merchant's account and creates nothing", async () => {
    await refusedUnchanged(() => post('add', addBody(other, { eventCode: customCode() }), m), 404, 'E903');
  });
});

/** A refusal must not reflect the submitted URL back (it may be long or hostile). */
function echoes(p: { detail: string; errors: string[] }, url: string): boolean {
  return url.length > 10 && (p.detail.includes(url) || p.errors.some((e) => e.includes(url)));
}

describe('GET /merchants/webhooks/getAll and /get', () => {
  let who: TestMerchant;
  beforeAll(async () => {
    who = await fresh();
    expect((await add(who, { eventCode: 'payment.success' })).statusCode).toBe(201);
    expect((await add(who, { eventCode: 'batch.failed', callbackUrl: `${HOOK}/batches` })).statusCode).toBe(201);
    expect((await add(who, { eventCode: 'order.shipped', callbackUrl: `${HOOK}/orders` })).statusCode).toBe(201);
  });

  it('lists every subscription of the merchant with the documented fields, oldest first', async () => {
    const list = await listOf(who);
    const rows = await subscriptions(who);
    expect(list).toHaveLength(3);
    expect(list.map((r) => r.webhookId)).toEqual(rows.map((r) => r.webhook_id));
    for (const [i, record] of list.entries()) {
      expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
      expect(record.merchantAccountNumber).toBe(who.merchantAccountNumber);
      expect(record.eventCode).toBe(rows[i].event_code);
      expect(record.callbackUrl).toBe(rows[i].callback_url);
      expect(record.webhookSignature).toBe(rows[i].webhook_signature);
      expect(record.webhookSignature).toMatch(SIGNATURE);
      expect(record.signingSecret).toMatch(SIGNING_SECRET);
      expect(record.dateCreated).toMatch(ISO);
      expect(record.createdBy).toBe(ACTOR);
      expect(record.dateModified).toBeNull();
      expect(record.modifiedBy).toBeNull();
    }
    expect(list.map((r) => r.eventName)).toEqual(['Payment Success Notification', 'Batch Failed Notification', translate('en', 'event.unknown')]);
  });

  it('names events in Chichewa with Accept-Language: ny, leaving field names and codes alone', async () => {
    const en = await listOf(who);
    const res = await get('getAll', { merchantAccountNumber: who.merchantAccountNumber }, who, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-language']).toBe('ny');
    const ny = res.json() as any[];
    expect(ny[0].eventName).toBe(translate('ny', 'event.payment.success'));
    expect(ny[0].eventName).not.toBe('Payment Success Notification');
    expect(ny[2].eventName).toBe(translate('ny', 'event.unknown'));
    expect(ny.map((r) => ({ ...r, eventName: undefined }))).toEqual(en.map((r) => ({ ...r, eventName: undefined })));
  });

  it('is empty for a merchant without subscriptions', async () => {
    expect(await listOf(await fresh())).toEqual([]);
  });

  it("never lists another merchant's subscriptions", async () => {
    const mine = await listOf(m);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r) => r.merchantAccountNumber === m.merchantAccountNumber)).toBe(true);
    const ids = new Set(mine.map((r) => r.webhookId));
    expect((await listOf(who)).some((r) => ids.has(r.webhookId))).toBe(false);
  });

  it('gets one subscription by webhookId or by eventCode, the same record as in the list', async () => {
    const [first, second] = await listOf(who);
    const byId = await get('get', { merchantAccountNumber: who.merchantAccountNumber, webhookId: second.webhookId }, who);
    expect(byId.statusCode, byId.body).toBe(200);
    expect(byId.json()).toEqual(second);
    const byCode = await get('get', { merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success' }, who);
    expect(byCode.statusCode).toBe(200);
    expect(byCode.json()).toEqual(first);
    const both = await get('get', { MerchantAccountNumber: who.merchantAccountNumber, WebhookId: first.webhookId, EventCode: 'payment.success' }, who);
    expect(both.json()).toEqual(first);
  });

  it('answers 404 when webhookId and eventCode name different subscriptions', async () => {
    const [first] = await listOf(who);
    await refusedUnchanged(() => get('get', { merchantAccountNumber: who.merchantAccountNumber, webhookId: first.webhookId, eventCode: 'batch.failed' }, who), 404, 'E903');
  });

  it('answers 400 when neither webhookId nor eventCode is given', async () => {
    const p = await refusedUnchanged(() => get('get', { merchantAccountNumber: who.merchantAccountNumber }, who), 400, 'E900');
    expect(p.errors).toEqual(['Webhook Id is required.']);
  });

  it('answers 404 E903 to an unknown webhookId or eventCode', async () => {
    await refusedUnchanged(() => get('get', { merchantAccountNumber: who.merchantAccountNumber, webhookId: 9_000_000_000 }, who), 404, 'E903');
    await refusedUnchanged(() => get('get', { merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payout.reversed' }, who), 404, 'E903');
  });

  it("answers 404 to another merchant's webhookId and reveals nothing of it", async () => {
    const theirs = await webhookFor(t, other, customCode(), 'https://secret.example.mw/theirs');
    const p = await refusedUnchanged(() => get('get', { merchantAccountNumber: m.merchantAccountNumber, webhookId: theirs.webhook_id }, m), 404, 'E903');
    expect(JSON.stringify(p)).not.toContain('secret.example.mw');
    expect(JSON.stringify(p)).not.toContain(theirs.webhook_signature);
    await refusedUnchanged(() => get('get', { merchantAccountNumber: m.merchantAccountNumber, eventCode: theirs.event_code }, m), 404, 'E903');
  });

  it.each([
    ['webhookId', 'abc'],
    ['webhookId', 0],
    ['webhookId', -1],
    ['webhookId', 1.5],
    ['webhookId', '9'.repeat(30)],
    ['eventCode', 'e'.repeat(200)],
    ['eventCode', 'a b'],
  ])('answers 400 to %s = %j', async (name, value) => {
    await refusedUnchanged(() => get('get', { merchantAccountNumber: who.merchantAccountNumber, [name]: value as string }, who), 400, 'E900');
  });
});

describe('unknown event codes never fire', () => {
  it('an event creates deliveries only for the subscription to its own code', async () => {
    const who = await fresh();
    const custom = await webhookFor(t, who, 'order.shipped');
    const known = await webhookFor(t, who, 'payment.success');
    for (const code of EVENT_CODES) await emit(who, code);
    const { rows } = await t.db.query<{ webhook_id: number; n: number }>('select webhook_id, count(*)::int as n from webhook_deliveries where merchant_account_number = $1 group by webhook_id', [who.merchantAccountNumber]);
    expect(rows).toEqual([{ webhook_id: known.webhook_id, n: 1 }]);
    expect(rows.some((r) => r.webhook_id === custom.webhook_id)).toBe(false);
  });

  it("an event of one merchant creates no delivery for another merchant's subscription to the same code", async () => {
    const one = await fresh();
    const two = await fresh();
    await webhookFor(t, one, 'payout.failed');
    const theirs = await webhookFor(t, two, 'payout.failed');
    const { deliveryIds } = await emit(one, 'payout.failed');
    expect(deliveryIds).toHaveLength(1);
    expect((await delivery(deliveryIds[0])).webhook_id).not.toBe(theirs.webhook_id);
  });
});

describe('E13 POST /merchants/webhooks/update', () => {
  const update = (who: TestMerchant, webhookId: unknown, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    post('update', { webhookId, merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: `${HOOK}/v2`, capturedBy: 'editor@shop.mw', ...over }, who, headers);

  it('changes the URL and event code, records who and when, and keeps the id and signatures', async () => {
    const who = await fresh();
    const before = await webhookFor(t, who, 'payment.success');
    const res = await update(who, before.webhook_id, { eventCode: 'payment.reversed', callbackUrl: `${HOOK}/reversals` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toBe('Merchant webhook has been updated successfully');
    const [after] = await subscriptions(who);
    expect(after).toMatchObject({
      webhook_id: before.webhook_id,
      event_code: 'payment.reversed',
      callback_url: `${HOOK}/reversals`,
      webhook_signature: before.webhook_signature,
      signing_secret: before.signing_secret,
      created_by: ACTOR,
      modified_by: 'editor@shop.mw',
    });
    const record = (await get('get', { merchantAccountNumber: who.merchantAccountNumber, webhookId: before.webhook_id }, who)).json();
    expect(record.eventCode).toBe('payment.reversed');
    expect(record.eventName).toBe('Payment Reversal Notification');
    expect(record.modifiedBy).toBe('editor@shop.mw');
    expect(record.dateModified).toMatch(ISO);
    expect(Date.parse(record.dateModified)).toBeGreaterThanOrEqual(Date.parse(record.dateCreated));
    // Events of the new code now reach it; the old code no longer does.
    expect((await emit(who, 'payment.success')).deliveryIds).toEqual([]);
    expect((await emit(who, 'payment.reversed')).deliveryIds).toHaveLength(1);
  });

  it('accepts the callbackURL spelling and a URL-only change', async () => {
    const who = await fresh();
    const s = await webhookFor(t, who, 'payment.success');
    const res = await post('update', { WebhookId: s.webhook_id, merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success', callbackURL: `${HOOK}/renamed`, capturedBy: ACTOR }, who);
    expect(res.statusCode, res.body).toBe(200);
    expect((await subscriptions(who))[0].callback_url).toBe(`${HOOK}/renamed`);
  });

  it('answers in Chichewa with Accept-Language: ny', async () => {
    const s = await webhookFor(t, m, customCode());
    const res = await update(m, s.webhook_id, { eventCode: s.event_code }, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBe(translate('ny', 'ok.webhookUpdated'));
  });

  it('answers 404 E903 to an unknown webhookId and changes nothing', async () => {
    await refusedUnchanged(() => update(m, 9_000_000_000, { eventCode: customCode() }), 404, 'E903');
  });

  it("answers 404 to another merchant's webhookId and leaves that subscription alone", async () => {
    const theirs = await webhookFor(t, other, customCode());
    await refusedUnchanged(() => update(m, theirs.webhook_id, { eventCode: customCode(), callbackUrl: 'https://attacker.example/steal' }), 404, 'E903');
    expect((await subscriptions(other)).find((s) => s.webhook_id === theirs.webhook_id)).toEqual(theirs);
  });

  it('answers 409 E906 when the merchant already has a subscription to the new event code', async () => {
    const who = await fresh();
    const first = await webhookFor(t, who, 'payment.success');
    await webhookFor(t, who, 'payment.reversed');
    const before = await subscriptions(who);
    await refusedUnchanged(() => update(who, first.webhook_id, { eventCode: 'payment.reversed' }), 409, 'E906');
    expect(await subscriptions(who)).toEqual(before);
  });

  it.each(BAD_URLS)('refuses %s with 400 and changes nothing', async (_name, callbackUrl) => {
    const s = await webhookFor(t, m, customCode());
    await refusedUnchanged(() => update(m, s.webhook_id, { eventCode: s.event_code, callbackUrl }), 400, 'E900');
  });

  it('refuses an eventCode of 200 characters and a missing webhookId', async () => {
    const s = await webhookFor(t, m, customCode());
    await refusedUnchanged(() => update(m, s.webhook_id, { eventCode: 'e'.repeat(200) }), 400, 'E900');
    const p = await refusedUnchanged(() => post('update', { merchantAccountNumber: m.merchantAccountNumber, eventCode: s.event_code, callbackUrl: HOOK, capturedBy: ACTOR }, m), 400, 'E900');
    expect(p.errors).toEqual(['Webhook Id is required.']);
  });
});

describe('E14 POST /merchants/webhooks/delete', () => {
  it('removes the subscription and answers with the bare JSON string', async () => {
    const who = await fresh();
    const s = await webhookFor(t, who, 'payment.success');
    const res = await remove(who, 'payment.success');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toBe('Merchant webhook has been deleted successfully');
    expect(await subscriptions(who)).toEqual([]);
    expect(await listOf(who)).toEqual([]);
    clientError(await get('get', { merchantAccountNumber: who.merchantAccountNumber, webhookId: s.webhook_id }, who), 404);
    // The code can be subscribed again: a new id and new secrets.
    expect((await add(who)).statusCode).toBe(201);
    const [again] = await subscriptions(who);
    expect(again.webhook_id).not.toBe(s.webhook_id);
    expect(again.webhook_signature).not.toBe(s.webhook_signature);
  });

  it("marks that subscription's pending deliveries failed, and only those", async () => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    await webhookFor(t, who, 'payout.success');
    const pending = await oneDelivery(who, 'payment.success');
    const succeeded = await oneDelivery(who, 'payment.success');
    await settle(succeeded, 'succeeded', 1);
    const elsewhere = await oneDelivery(who, 'payout.success');
    const succeededBefore = await delivery(succeeded);

    expect((await remove(who, 'payment.success')).statusCode).toBe(200);

    const ended = await delivery(pending);
    expect(ended.status).toBe('failed');
    expect(ended.completed_at).toBeInstanceOf(Date);
    expect(ended.locked_until).toBeNull();
    expect(ended.webhook_id).toBeNull();
    expect({ ...(await delivery(succeeded)), webhook_id: succeededBefore.webhook_id }).toEqual(succeededBefore);
    expect((await delivery(elsewhere)).status).toBe('pending');
    // The log still shows them, with their own copy of the target.
    const log = (await post('deliveries', { merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success' }, who)).json() as any[];
    expect(log.map((d) => [d.deliveryId, d.status, d.webhookId])).toEqual([
      [succeeded, 'succeeded', null],
      [pending, 'failed', null],
    ]);
    expect(log[1].callbackUrl).toBe(HOOK);
  });

  it('answers 400 without the MerchantAccountNumber header and changes nothing', async () => {
    await webhookFor(t, m, 'payment.success');
    await refusedUnchanged(() => remove(m, 'payment.success', null), 400, 'E900');
  });

  it.each([['abc'], ['1234'], ['123456789'], [''], ['12345678 9']])('answers 400 to a MerchantAccountNumber header of %j that does not equal the body', async (header) => {
    await webhookFor(t, m, 'payment.success');
    await refusedUnchanged(() => remove(m, 'payment.success', header), 400, 'E900');
  });

  it("answers 404 E903 to a header naming another merchant's account (product.md §2), and deletes nothing", async () => {
    // A well-formed account number that is not the caller's is "naming another merchant", which
    // the token binding answers with 404 before the header/body comparison is reached.
    await webhookFor(t, m, 'payment.success');
    await webhookFor(t, other, 'payment.success');
    await refusedUnchanged(() => remove(m, 'payment.success', String(other.merchantAccountNumber)), 404, 'E903');
    await refusedUnchanged(() => remove(m, 'payment.success', '99999999'), 404, 'E903');
  });

  it("answers 404 to a body naming another merchant's account, whatever the header says", async () => {
    await webhookFor(t, other, 'payment.success');
    await refusedUnchanged(() => remove(m, 'payment.success', String(m.merchantAccountNumber), { merchantAccountNumber: other.merchantAccountNumber }), 404, 'E903');
    await refusedUnchanged(() => remove(m, 'payment.success', String(other.merchantAccountNumber), { merchantAccountNumber: other.merchantAccountNumber }), 404, 'E903');
  });

  it('answers 404 E903 to an unknown eventCode', async () => {
    await refusedUnchanged(() => remove(m, 'never.subscribed'), 404, 'E903');
  });

  it("answers 404 to an event code only another merchant subscribed, and leaves theirs alone", async () => {
    const code = customCode();
    const theirs = await webhookFor(t, other, code);
    await refusedUnchanged(() => remove(m, code), 404, 'E903');
    expect((await subscriptions(other)).some((s) => s.webhook_id === theirs.webhook_id)).toBe(true);
  });

  it('refuses an eventCode of 200 characters and a missing deletedBy', async () => {
    await refusedUnchanged(() => remove(m, 'e'.repeat(200)), 400, 'E900');
    await refusedUnchanged(() => post('delete', { eventCode: 'payment.success', merchantAccountNumber: m.merchantAccountNumber }, m, { MerchantAccountNumber: String(m.merchantAccountNumber) }), 400, 'E900');
  });
});

describe('POST /merchants/webhooks/verify', () => {
  const verify = (who: TestMerchant, eventCode: string, webhookSignature: unknown) => post('verify', { merchantAccountNumber: who.merchantAccountNumber, eventCode, webhookSignature }, who);

  it('answers isSignatureValid true for the subscription signature', async () => {
    const s = await webhookFor(t, m, customCode());
    const res = await verify(m, s.event_code, s.webhook_signature);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, isSignatureValid: true });
  });

  it.each([
    ['one character changed', (sig: string) => sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A')],
    ['other casing', (sig: string) => (sig.toLowerCase() === sig ? sig.toUpperCase() : sig.toLowerCase())],
    ['one character short', (sig: string) => sig.slice(0, -1)],
    ['one character more', (sig: string) => `${sig}A`],
    ['a single character', () => 'A'],
    ['the signing secret', (_sig: string, secret: string) => secret],
  ])('answers false for %s, and changes nothing', async (_name, mutate) => {
    const s = await webhookFor(t, m, customCode());
    const given = mutate(s.webhook_signature, s.signing_secret);
    expect(given).not.toBe(s.webhook_signature);
    const before = await dbState(t.db);
    const res = await verify(m, s.event_code, given);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, isSignatureValid: false });
    expect(await dbState(t.db)).toEqual(before);
  });

  it('answers false for an event code without a subscription', async () => {
    const s = await webhookFor(t, m, customCode());
    const res = await verify(m, 'never.subscribed', s.webhook_signature);
    expect(res.json().isSignatureValid).toBe(false);
  });

  it("answers false for another merchant's event code and signature", async () => {
    const theirs = await webhookFor(t, other, customCode());
    const res = await verify(m, theirs.event_code, theirs.webhook_signature);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: m.merchantAccountNumber, isSignatureValid: false });
  });

  it.each([
    ['an empty signature', 'payment.success', ''],
    ['a 201-character signature', 'payment.success', 'A'.repeat(201)],
    ['an object signature', 'payment.success', { value: 'A'.repeat(52) }],
    ['an eventCode of 200 characters', 'e'.repeat(200), 'A'.repeat(52)],
  ])('answers 400 to %s', async (_name, eventCode, signature) => {
    await refusedUnchanged(() => verify(m, eventCode, signature), 400, 'E900');
  });
});

describe('POST /merchants/webhooks/test', () => {
  const sendTest = (who: TestMerchant, eventCode: string) => post('test', { merchantAccountNumber: who.merchantAccountNumber, eventCode }, who);

  it('queues a sample event, marked as a test, for the subscription', async () => {
    const who = await fresh();
    const s = await webhookFor(t, who, 'payment.success');
    const res = await sendTest(who, 'payment.success');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({ merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success', webhookId: s.webhook_id, eventId: expect.any(Number), deliveryId: expect.any(Number) });

    const { rows: events } = await t.db.query<{ merchant_account_number: number; event_code: string; is_test: boolean; payload: any }>('select * from outbox_events where event_id = $1', [body.eventId]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ merchant_account_number: who.merchantAccountNumber, event_code: 'payment.success', is_test: true });
    expect(events[0].payload).toMatchObject({ eventCode: 'payment.success', merchantAccountNumber: who.merchantAccountNumber, transactionStatusCode: 'S', responseCode: 'S100', currencyCode: 'MWK', isTest: true });

    const d = await delivery(body.deliveryId);
    expect(d).toMatchObject({ event_id: body.eventId, webhook_id: s.webhook_id, event_code: 'payment.success', callback_url: HOOK, status: 'pending', is_test: true, total_attempts: 0 });
    expect(d.message_id).toMatch(/^msg_[0-9a-f]{32}$/);

    const log = (await post('deliveries', { merchantAccountNumber: who.merchantAccountNumber }, who)).json() as any[];
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ deliveryId: body.deliveryId, eventId: body.eventId, isTest: true, status: 'pending', webhookMessageId: d.message_id, numberOfAttempts: 0, attempts: [] });
  });

  it('has a sample for every event code the service sends, in its flat shape', async () => {
    const who = await fresh();
    for (const code of EVENT_CODES) await webhookFor(t, who, code);
    for (const code of EVENT_CODES) {
      const res = await sendTest(who, code);
      expect(res.statusCode, `${code}: ${res.body}`).toBe(200);
      const { rows } = await t.db.query<{ payload: any }>('select payload from outbox_events where event_id = $1', [res.json().eventId]);
      const payload = rows[0].payload;
      expect(payload.merchantAccountNumber).toBe(who.merchantAccountNumber);
      expect(payload.isTest).toBe(true);
      if (code.startsWith('payrequest.')) expect(payload.metaData).toEqual({ timedAccountNumber: expect.any(String), referenceNumber: expect.any(String) });
      if (code === 'batch.received' || code === 'batch.failed') {
        for (const v of Object.values(payload.metaData)) expect(typeof v).toBe('string');
      }
    }
  });

  it('answers 400 to an event code the service never sends, even when subscribed, and queues nothing', async () => {
    const s = await webhookFor(t, m, customCode());
    const p = await refusedUnchanged(() => sendTest(m, s.event_code), 400, 'E900');
    expect(p.errors.join(' ')).toContain(s.event_code);
  });

  it('answers 404 to a known event code without a subscription, and queues nothing', async () => {
    const who = await fresh();
    await refusedUnchanged(() => sendTest(who, 'payout.reversed'), 404, 'E903');
  });

  it("does not send to another merchant's subscription", async () => {
    const who = await fresh();
    await webhookFor(t, other, 'batch.received');
    await refusedUnchanged(() => sendTest(who, 'batch.received'), 404, 'E903');
  });

  it('refuses an eventCode of 200 characters', async () => {
    await refusedUnchanged(() => sendTest(m, 'e'.repeat(200)), 400, 'E900');
  });
});

describe('POST /merchants/webhooks/deliveries', () => {
  let who: TestMerchant;
  /** Delivery ids, oldest first: p1..p3 payment.success, f1..f2 payout.failed. */
  let ids: { p1: number; p2: number; p3: number; f1: number; f2: number };
  const log = async (filter: Record<string, unknown> = {}) => {
    const res = await post('deliveries', { merchantAccountNumber: who.merchantAccountNumber, ...filter }, who);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as any[];
  };

  beforeAll(async () => {
    who = await fresh();
    await webhookFor(t, who, 'payment.success');
    await webhookFor(t, who, 'payout.failed', `${HOOK}/payouts`);
    ids = {
      p1: await oneDelivery(who, 'payment.success'),
      p2: await oneDelivery(who, 'payment.success'),
      p3: await oneDelivery(who, 'payment.success'),
      f1: await oneDelivery(who, 'payout.failed'),
      f2: await oneDelivery(who, 'payout.failed'),
    };
    await setCreated(ids.p1, '2024-03-01T10:00:00Z');
    await setCreated(ids.p2, '2024-03-02T23:59:59Z');
    await setCreated(ids.p3, '2024-03-03T00:00:00Z');
    await setCreated(ids.f1, '2024-03-03T12:00:00Z');
    await setCreated(ids.f2, '2024-03-05T08:00:00Z');
    await settle(ids.p1, 'succeeded', 2);
    await settle(ids.f1, 'failed', 8);
    // Two attempts on p1, written as the dispatcher writes them.
    await t.db.query(
      `insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, http_status, latency_ms, response_snippet, error)
       values ($1, $2, 2, '2024-03-01T10:00:07Z', 200, 35, '{"ok":true}', null),
              ($1, $2, 1, '2024-03-01T10:00:01Z', null, 15000, null, 'timeout after 15000 ms')`,
      [ids.p1, who.merchantAccountNumber],
    );
    // Another merchant's delivery, never to be listed.
    await webhookFor(t, other, 'payment.success');
    await emit(other, 'payment.success');
  });

  it('lists every delivery of the merchant, newest first, with the documented fields', async () => {
    const all = await log();
    expect(all.map((d) => d.deliveryId)).toEqual([ids.f2, ids.f1, ids.p3, ids.p2, ids.p1]);
    for (const d of all) {
      expect(Object.keys(d).sort()).toEqual(DELIVERY_KEYS);
      expect(d.dateCreated).toMatch(ISO);
      expect(d.webhookMessageId).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(d.isTest).toBe(false);
    }
    const f2 = all[0];
    expect(f2).toMatchObject({ eventCode: 'payout.failed', callbackUrl: `${HOOK}/payouts`, status: 'pending', numberOfAttempts: 0, dateCompleted: null, attempts: [], dateCreated: '2024-03-05T08:00:00.000Z' });
    expect(f2.nextAttemptDate).toMatch(ISO);
    const f1 = all[1];
    expect(f1).toMatchObject({ status: 'failed', numberOfAttempts: 8, nextAttemptDate: null });
    expect(f1.dateCompleted).toMatch(ISO);
  });

  it('shows each attempt in order with status, latency, snippet and error', async () => {
    const [p1] = await log({ status: 'succeeded' });
    expect(p1.deliveryId).toBe(ids.p1);
    expect(p1.numberOfAttempts).toBe(2);
    expect(p1.attempts).toEqual([
      { attemptNumber: 1, attemptedAt: '2024-03-01T10:00:01.000Z', httpStatus: null, latencyMs: 15000, responseSnippet: null, error: 'timeout after 15000 ms' },
      { attemptNumber: 2, attemptedAt: '2024-03-01T10:00:07.000Z', httpStatus: 200, latencyMs: 35, responseSnippet: '{"ok":true}', error: null },
    ]);
  });

  it('filters by eventCode and status', async () => {
    expect((await log({ eventCode: 'payout.failed' })).map((d) => d.deliveryId)).toEqual([ids.f2, ids.f1]);
    expect((await log({ status: 'failed' })).map((d) => d.deliveryId)).toEqual([ids.f1]);
    expect((await log({ status: 'pending' })).map((d) => d.deliveryId)).toEqual([ids.f2, ids.p3, ids.p2]);
    expect((await log({ eventCode: 'payment.success', status: 'pending' })).map((d) => d.deliveryId)).toEqual([ids.p3, ids.p2]);
    expect(await log({ eventCode: 'never.sent' })).toEqual([]);
  });

  it('filters by creation date, both ends inclusive, in UTC', async () => {
    expect((await log({ fromDate: '2024-03-03' })).map((d) => d.deliveryId)).toEqual([ids.f2, ids.f1, ids.p3]);
    expect((await log({ toDate: '2024-03-02' })).map((d) => d.deliveryId)).toEqual([ids.p2, ids.p1]);
    expect((await log({ fromDate: '2024-03-02', toDate: '2024-03-03' })).map((d) => d.deliveryId)).toEqual([ids.f1, ids.p3, ids.p2]);
    expect((await log({ fromDate: '2024-03-04', toDate: '2024-03-04' }))).toEqual([]);
    expect((await log({ FromDate: '2024-03-05', EventCode: 'payout.failed' })).map((d) => d.deliveryId)).toEqual([ids.f2]);
  });

  it('pages with pageNumber and numberOfReturnedRows', async () => {
    const pages: number[][] = [];
    for (let pageNumber = 1; pageNumber <= 4; pageNumber++) pages.push((await log({ pageNumber, numberOfReturnedRows: 2 })).map((d) => d.deliveryId));
    expect(pages).toEqual([[ids.f2, ids.f1], [ids.p3, ids.p2], [ids.p1], []]);
    expect((await log({ numberOfReturnedRows: 1000 })).length).toBe(5);
  });

  it.each([
    ['numberOfReturnedRows', 1001],
    ['numberOfReturnedRows', 0],
    ['numberOfReturnedRows', 'many'],
    ['pageNumber', 0],
    ['pageNumber', -1],
    ['pageNumber', 1.5],
    ['status', 'bogus'],
    ['status', 'PENDING'],
    ['fromDate', 'yesterday'],
    ['fromDate', '2024-02-30'],
    ['toDate', '2024-03-05T00:00:00Z'],
    ['eventCode', 'e'.repeat(200)],
  ])('answers 400 to %s = %j', async (name, value) => {
    await refusedUnchanged(() => post('deliveries', { merchantAccountNumber: who.merchantAccountNumber, [name]: value }, who), 400, 'E900');
  });

  it("never lists another merchant's deliveries", async () => {
    const all = await log({ numberOfReturnedRows: 1000 });
    const { rows } = await t.db.query<{ delivery_id: number }>('select delivery_id from webhook_deliveries where merchant_account_number = $1', [other.merchantAccountNumber]);
    expect(rows.length).toBeGreaterThan(0);
    const theirs = new Set(rows.map((r) => r.delivery_id));
    expect(all.some((d) => theirs.has(d.deliveryId))).toBe(false);
  });
});

describe('POST /merchants/webhooks/redeliver', () => {
  const redeliver = (who: TestMerchant, target: Record<string, unknown>) => post('redeliver', { merchantAccountNumber: who.merchantAccountNumber, ...target }, who);
  const attemptsOf = async (id: number) => (await t.db.query('select * from webhook_attempts where delivery_id = $1 order by attempt_number', [id])).rows;

  it('puts one delivery back in the queue with the same webhook-id, keeping its history', async () => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    const id = await oneDelivery(who, 'payment.success');
    await settle(id, 'failed', 8);
    await t.db.query(`insert into webhook_attempts (delivery_id, merchant_account_number, attempt_number, attempted_at, http_status, latency_ms) values ($1, $2, 1, now(), 500, 20)`, [id, who.merchantAccountNumber]);
    const before = await delivery(id);
    const history = await attemptsOf(id);

    const res = await redeliver(who, { deliveryId: id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: who.merchantAccountNumber, numberOfDeliveries: 1 });

    const after = await delivery(id);
    expect(after).toMatchObject({ status: 'pending', round_attempts: 0, total_attempts: 8, completed_at: null, locked_until: null, message_id: before.message_id, event_id: before.event_id, webhook_id: before.webhook_id });
    expect(after.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await attemptsOf(id)).toEqual(history);
    const [logged] = (await post('deliveries', { merchantAccountNumber: who.merchantAccountNumber }, who)).json() as any[];
    expect(logged).toMatchObject({ deliveryId: id, status: 'pending', webhookMessageId: before.message_id, numberOfAttempts: 8, dateCompleted: null });
  });

  it('redelivers a succeeded delivery too when named by id', async () => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    const id = await oneDelivery(who, 'payment.success');
    await settle(id, 'succeeded', 1);
    expect((await redeliver(who, { deliveryId: id })).json().numberOfDeliveries).toBe(1);
    expect((await delivery(id)).status).toBe('pending');
  });

  it('redelivers every failed delivery created in a date range, and nothing else', async () => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    const make = async (status: 'failed' | 'succeeded' | 'pending', at: string) => {
      const id = await oneDelivery(who, 'payment.success');
      if (status !== 'pending') await settle(id, status, 8);
      await setCreated(id, at);
      return id;
    };
    const failedIn1 = await make('failed', '2024-04-10T00:00:00Z');
    const failedIn2 = await make('failed', '2024-04-11T23:59:59Z');
    const succeededIn = await make('succeeded', '2024-04-10T12:00:00Z');
    const pendingIn = await make('pending', '2024-04-11T12:00:00Z');
    const failedBefore = await make('failed', '2024-04-09T23:59:59Z');
    const failedAfter = await make('failed', '2024-04-12T00:00:00Z');
    const untouched = await Promise.all([succeededIn, pendingIn, failedBefore, failedAfter].map((id) => delivery(id)));
    const messageIds = [(await delivery(failedIn1)).message_id, (await delivery(failedIn2)).message_id];

    const res = await redeliver(who, { fromDate: '2024-04-10', toDate: '2024-04-11' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ merchantAccountNumber: who.merchantAccountNumber, numberOfDeliveries: 2 });
    expect((await delivery(failedIn1)).status).toBe('pending');
    expect((await delivery(failedIn2)).status).toBe('pending');
    expect([(await delivery(failedIn1)).message_id, (await delivery(failedIn2)).message_id]).toEqual(messageIds);
    expect(await Promise.all([succeededIn, pendingIn, failedBefore, failedAfter].map((id) => delivery(id)))).toEqual(untouched);

    // A range with nothing failed in it: 200, zero.
    expect((await redeliver(who, { fromDate: '2020-01-01', toDate: '2020-01-31' })).json().numberOfDeliveries).toBe(0);
  });

  it("never redelivers another merchant's failed deliveries in the range", async () => {
    const who = await fresh();
    await webhookFor(t, other, 'payout.failed');
    const theirs = await oneDelivery(other, 'payout.failed');
    await settle(theirs, 'failed', 8);
    await setCreated(theirs, '2024-06-01T12:00:00Z');
    const before = await delivery(theirs);
    expect((await redeliver(who, { fromDate: '2024-06-01', toDate: '2024-06-01' })).json().numberOfDeliveries).toBe(0);
    expect(await delivery(theirs)).toEqual(before);
  });

  it('leaves a delivery whose subscription was deleted as failed (nothing to send it to)', async () => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    const id = await oneDelivery(who, 'payment.success');
    expect((await remove(who, 'payment.success')).statusCode).toBe(200);
    const res = await redeliver(who, { deliveryId: id });
    expect(res.statusCode).toBe(200);
    expect(res.json().numberOfDeliveries).toBe(0);
    expect((await delivery(id)).status).toBe('failed');
  });

  it.each([
    ['neither a deliveryId nor a range', {}],
    ['only fromDate', { fromDate: '2024-04-10' }],
    ['only toDate', { toDate: '2024-04-10' }],
    ['a deliveryId and a range', { deliveryId: 1, fromDate: '2024-04-10', toDate: '2024-04-11' }],
    ['a deliveryId and a fromDate', { deliveryId: 1, fromDate: '2024-04-10' }],
    ['a deliveryId and a toDate', { deliveryId: 1, toDate: '2024-04-10' }],
  ])('answers 400 to %s and changes nothing', async (_name, target) => {
    const who = await fresh();
    await webhookFor(t, who, 'payment.success');
    const id = await oneDelivery(who, 'payment.success');
    await settle(id, 'failed');
    await setCreated(id, '2024-04-10T12:00:00Z');
    const body = 'deliveryId' in target ? { ...target, deliveryId: id } : target;
    const p = await refusedUnchanged(() => redeliver(who, body), 400, 'E900');
    expect(p.errors).toEqual([translate('en', 'detail.redeliverTarget')]);
  });

  it.each([
    ['deliveryId', 0],
    ['deliveryId', 'abc'],
    ['fromDate', '10/04/2024'],
  ])('answers 400 to %s = %j', async (name, value) => {
    await refusedUnchanged(() => redeliver(m, { fromDate: '2024-04-10', toDate: '2024-04-11', [name]: value }), 400, 'E900');
  });

  it('answers 404 E903 to an unknown deliveryId', async () => {
    await refusedUnchanged(() => redeliver(m, { deliveryId: 9_000_000_000 }), 404, 'E903');
  });

  it("answers 404 E903 to another merchant's deliveryId and leaves it alone", async () => {
    await webhookFor(t, other, 'batch.failed');
    const theirs = await oneDelivery(other, 'batch.failed');
    await settle(theirs, 'failed');
    const before = await delivery(theirs);
    const p = await refusedUnchanged(() => redeliver(m, { deliveryId: theirs }), 404, 'E903');
    expect(p.detail).toContain(String(theirs));
    expect(await delivery(theirs)).toEqual(before);
  });
});

describe('date filters on a server whose time zone is not UTC', () => {
  // The API's dates are UTC (product.md §1); a database in Malawi's time zone (UTC+2) must not
  // shift them. Every connection of this app's pool opens in Africa/Blantyre.
  let tz: TestApp;
  let who: TestMerchant;

  beforeAll(async () => {
    tz = await startTestApp();
    const admin = new pg.Client({ connectionString: tz.deps.config.databaseUrl });
    await admin.connect();
    const { rows } = await admin.query<{ db: string }>('select current_database() as db');
    await admin.query(`alter database "${rows[0].db}" set timezone to 'Africa/Blantyre'`);
    await admin.end();
    expect(tz.db.totalCount, 'the pool must open its connections after the change').toBe(0);
    who = await newMerchant(tz);
  });
  afterAll(() => tz.close());

  it('runs in Africa/Blantyre', async () => {
    const { rows } = await tz.db.query<{ TimeZone: string }>('show timezone');
    expect(rows[0].TimeZone).toBe('Africa/Blantyre');
  });

  it('lists and redelivers by UTC calendar dates', async () => {
    await webhookFor(tz, who, 'payment.success');
    const late = await oneDelivery(who, 'payment.success', tz); // 23:30 UTC on 1 May is 01:30 on 2 May in Blantyre
    const early = await oneDelivery(who, 'payment.success', tz); // 00:30 UTC on 2 May
    await setCreated(late, '2024-05-01T23:30:00Z', tz);
    await setCreated(early, '2024-05-02T00:30:00Z', tz);
    await settle(late, 'failed', 8, tz);
    await settle(early, 'failed', 8, tz);
    const list = async (filter: Record<string, string>) => {
      const res = await post('deliveries', { merchantAccountNumber: who.merchantAccountNumber, ...filter }, who, {}, tz);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as any[]).map((d) => d.deliveryId);
    };
    expect(await list({ fromDate: '2024-05-01', toDate: '2024-05-01' })).toEqual([late]);
    expect(await list({ fromDate: '2024-05-02', toDate: '2024-05-02' })).toEqual([early]);

    const res = await post('redeliver', { merchantAccountNumber: who.merchantAccountNumber, fromDate: '2024-05-01', toDate: '2024-05-01' }, who, {}, tz);
    expect(res.json().numberOfDeliveries).toBe(1);
    expect((await delivery(late, tz)).status).toBe('pending');
    expect((await delivery(early, tz)).status).toBe('failed');
  });
});

// ---------------------------------------------------------------------------------------------
// SSRF guard (src/modules/webhooks/url-guard.ts)

describe('isInternalAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.20.10.10',
    '172.31.255.255',
    '192.168.0.1',
    '192.168.255.255',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'FE80::abcd',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    'localhost',
    'not-an-address',
    '',
  ])('%s is internal', (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '11.0.0.1', '192.169.0.1', '2001:4860:4860::8888', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isInternalAddress(address)).toBe(false);
    },
  );
});

describe('parseCallbackUrl', () => {
  it.each([
    ['https://shop.example.mw/hooks/onekhusa', 'shop.example.mw'],
    ['http://shop.example.mw:8443/hooks?x=1#frag', 'shop.example.mw'],
    ['HTTPS://SHOP.EXAMPLE.MW/Hooks', 'shop.example.mw'],
    ['http://127.0.0.1:9/x', '127.0.0.1'],
    ['http://[::1]/x', '[::1]'],
    ['http://0x7f000001/', '127.0.0.1'],
  ])('accepts %s (host %s)', (raw, host) => {
    const url = parseCallbackUrl(raw);
    expect(url).toBeInstanceOf(URL);
    expect(url.hostname).toBe(host);
  });

  it.each([...BAD_URLS.map(([, url]) => url).filter((u) => u.length <= 2048), '', 'https://', 'http://:pass@host/', 'ws://shop.example.mw/socket', 'gopher://shop.example.mw/'])('refuses %j with a 400 validation error', (raw) => {
    let error: unknown;
    try {
      parseCallbackUrl(raw);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    expect((error as AppError).kind).toBe('validation');
  });
});

describe('callback URLs in production mode', () => {
  let prod: TestApp;
  let pm: TestMerchant;
  beforeAll(async () => {
    prod = await startTestApp({ APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw' });
    pm = await newMerchant(prod);
  });
  afterAll(() => prod.close());

  it.each([
    'http://127.0.0.1:9/x',
    'http://localhost/x',
    'http://[::1]/x',
    'http://10.1.2.3/x',
    'http://169.254.169.254/latest',
    'http://192.168.1.1/hooks',
    'http://172.16.5.4/hooks',
    'http://100.64.0.1/hooks',
    'http://0.0.0.0/hooks',
    'http://[fe80::1]/hooks',
    'http://[fd00::1]/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:a9fe:a9fe]/latest',
    'http://0x7f000001/hooks',
    'http://2130706433/hooks',
    'http://127.1/hooks',
    'http://%31%32%37.0.0.1/hooks',
  ])('refuses %s with 400 and stores nothing', async (callbackUrl) => {
    const p = await refusedUnchanged(() => add(pm, { eventCode: customCode(), callbackUrl }, prod), 400, 'E900', prod);
    expect(p.errors.join(' ')).toMatch(/private, loopback or link-local/);
  });

  it('refuses an update to an internal target and keeps the old URL', async () => {
    const s = await webhookFor(prod, pm, customCode(), 'https://8.8.8.8/hooks');
    const res = await refusedUnchanged(
      () => post('update', { webhookId: s.webhook_id, merchantAccountNumber: pm.merchantAccountNumber, eventCode: s.event_code, callbackUrl: 'http://169.254.169.254/latest', capturedBy: ACTOR }, pm, {}, prod),
      400,
      'E900',
      prod,
    );
    expect(res.errors.length).toBe(1);
    expect((await subscriptions(pm, prod)).find((r) => r.webhook_id === s.webhook_id)!.callback_url).toBe('https://8.8.8.8/hooks');
  });

  it('accepts a public target', async () => {
    const res = await add(pm, { eventCode: customCode(), callbackUrl: 'https://8.8.8.8/hooks' }, prod);
    expect(res.statusCode, res.body).toBe(201);
  });

  it('serves the API under /live/v1 as well, on the same data', async () => {
    const code = customCode();
    const created = await add(pm, { eventCode: code, callbackUrl: 'https://1.1.1.1/live' }, prod, '/live/v1');
    expect(created.statusCode, created.body).toBe(201);
    const live = await get('getAll', { merchantAccountNumber: pm.merchantAccountNumber }, pm, {}, prod, '/live/v1');
    expect(live.statusCode).toBe(200);
    const sandbox = await get('getAll', { merchantAccountNumber: pm.merchantAccountNumber }, pm, {}, prod, BASE);
    expect(live.json()).toEqual(sandbox.json());
    expect((live.json() as any[]).some((r) => r.eventCode === code)).toBe(true);
    // The SSRF guard holds on /live/v1 too.
    const p = await refusedUnchanged(() => add(pm, { eventCode: customCode(), callbackUrl: 'http://127.0.0.1:9/x' }, prod, '/live/v1'), 400, 'E900', prod);
    expect(p.instance).toBe('/live/v1/merchants/webhooks/add');
  });
});

describe('callback URLs in sandbox mode', () => {
  it.each(['http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest'])('accepts %s', async (callbackUrl) => {
    const res = await add(m, { eventCode: customCode(), callbackUrl });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('does not serve /live/v1', async () => {
    const res = await get('getAll', { merchantAccountNumber: m.merchantAccountNumber }, m, {}, t, '/live/v1');
    expect(clientError(res, 404).errorCode).toBe('E903');
  });
});

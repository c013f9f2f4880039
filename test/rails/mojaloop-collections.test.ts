// Collections over Mojaloop (issue 25): our DFSP as the payee, the real Testing Toolkit as the
// payer DFSP (its outbound runner sends GET /parties, POST /quotes, POST /transfers and PATCH to
// our /fspiop, and receives our callbacks as the switch would) and as the switch answering our
// GET /transfers/{id}. A timed account is credited exactly once, when the switch says COMMITTED;
// nothing forged or unfulfilled is credited.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { buildIlpPacket } from '../../src/rails/mojaloop/ilp.ts';
import { closeMojaloop } from '../../src/rails/mojaloop/rail.ts';
import { sweepPayeeTransfers } from '../../src/rails/mojaloop/payee-sweep.ts';
import { ledgerInvariants, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, customPayment, major, payTimed, requestToPay } from '../money-ops.ts';
import { acquireTtk, type AcquiredTtk } from '../ttk/harness.ts';
import { lookupParty, notifyTransfer, quoteRequestBody, requestQuote, sendTransfer, transferRequestBody, type PayerResult } from '../ttk/payer.ts';
import { transferStatus } from '../ttk/rules.ts';

const FSP_ID = 'onekhusadfsp';
const PAYER_FSP = 'payerfsp';
const SWITCH = 'switch';
const PAYER = { type: 'MSISDN', id: '265991234567', fspId: PAYER_FSP, name: 'Chisomo Banda' };

let ttk: AcquiredTtk;
let t: TestApp;
let baseUrl: string;
let shop: TestMerchant;

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-collections' });
  t = await startTestApp({
    MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: String(AIRTEL),
    MOJALOOP_CALLBACK_SECONDS: '1',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}/fspiop`;
  // TTK as the switch answers our GET /transfers/{id} there.
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: baseUrl });
  shop = await newMerchant(t, { accountName: 'Banda & Sons Hardware' });
}, 180_000);

afterAll(async () => {
  await ttk?.release();
  if (t) await closeMojaloop(t.deps);
  await t?.close();
});

const payer = { get baseUrl() { return baseUrl; }, source: PAYER_FSP, destination: FSP_ID };

function ok(r: PayerResult, what: string): any {
  expect(r.error, `${what}: ${JSON.stringify(r.error)}`).toBeUndefined();
  expect(r.status, what).toBe(202);
  expect(r.callback, `${what}: no callback`).toBeDefined();
  return r.callback!;
}

/** Lookup, quote and transfer of `amountMinor` into `account`, as a payer DFSP does. */
async function pay(account: string, amountMinor: number, o: { version?: '1.0' | '1.1'; transferId?: string } = {}) {
  const version = o.version ?? '1.1';
  const party = ok(await lookupParty(ttk, { ...payer, type: 'ACCOUNT_ID', id: account, version }), 'lookup');
  expect(party.error, JSON.stringify(party.body)).toBe(false);
  const quoteBody = quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: major(amountMinor).replace(/\.?0+$/, ''), currency: 'MWK' });
  const quote = ok(await requestQuote(ttk, { ...payer, version, body: quoteBody }), 'quote');
  expect(quote.error, JSON.stringify(quote.body)).toBe(false);
  const transferBody = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: quote.body, transferId: o.transferId ?? quoteBody.transactionId });
  const transfer = ok(await sendTransfer(ttk, { ...payer, version, body: transferBody }), 'transfer');
  return { party, quote, transfer, transferBody, transferId: transferBody.transferId };
}

async function collectionsOf(m: TestMerchant) {
  const { rows } = await t.db.query<{ transaction_reference_number: string; amount_minor: number; source_account_number: string; source_account_name: string; transaction_code: string }>(
    'select transaction_reference_number, amount_minor, source_account_number, source_account_name, transaction_code from collections where merchant_account_number = $1 order by collection_id',
    [m.merchantAccountNumber],
  );
  return rows;
}

async function events(m: TestMerchant, code: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from outbox_events where merchant_account_number = $1 and event_code = $2', [m.merchantAccountNumber, code]);
  return rows[0].n;
}

async function requestState(timedAccount: string) {
  const { rows } = await t.db.query<{ status_code: string; held_by_transfer: string | null }>('select status_code, held_by_transfer from payment_requests where timed_account_number = $1 order by request_id desc limit 1', [timedAccount]);
  return rows[0];
}

async function expectLedgerClean(): Promise<void> {
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
}

const patch = (transferId: string, state: 'COMMITTED' | 'ABORTED', source = SWITCH) =>
  notifyTransfer(ttk, { baseUrl, source, destination: FSP_ID, transferId, body: { transferState: state, completedTimestamp: new Date().toISOString() } });

describe('a payer DFSP pays a fresh timed account (FSPIOP 1.1, the switch notifies)', () => {
  it('lookup names the merchant; the quote is the requested amount with no fee; the fulfilment hashes to the condition; credited once on the PATCH', async () => {
    const account = await requestToPay(t, shop, 150_00);
    const { party, quote, transfer, transferId } = await pay(account, 150_00);
    expect(party.body.party).toMatchObject({ partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: account, fspId: FSP_ID }, name: 'Banda Sons Hardware' });
    expect(quote.body).toMatchObject({ transferAmount: { amount: '150', currency: 'MWK' }, payeeReceiveAmount: { amount: '150', currency: 'MWK' }, payeeFspFee: { amount: '0', currency: 'MWK' } });
    expect(transfer.error).toBe(false);
    expect(transfer.body.transferState).toBe('RESERVED');
    expect(createHash('sha256').update(Buffer.from(transfer.body.fulfilment, 'base64url')).digest('base64url')).toBe(quote.body.condition);
    // Reserved, not yet credited: the account is held, no other payment may take it.
    expect(await requestState(account)).toEqual({ status_code: 'O', held_by_transfer: transferId });
    expect(await collectionsOf(shop)).toHaveLength(0);
    expect((await payTimed(t, shop, account, 150_00)).statusCode).toBe(402);

    const notified = await patch(transferId, 'COMMITTED');
    expect(notified.status).toBe(200);
    const credited = await collectionsOf(shop);
    expect(credited).toHaveLength(1);
    expect(credited[0]).toMatchObject({ amount_minor: 15000, source_account_number: PAYER.id, source_account_name: PAYER.name, transaction_code: 'RTP' });
    expect(await requestState(account)).toEqual({ status_code: 'P', held_by_transfer: null });
    expect(await events(shop, 'payrequest.success')).toBe(1);

    // The notification again, and the same transfer again: the same answer, nothing credited twice.
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    const again = await pay(account, 150_00, { transferId }).catch((err: Error) => err);
    // The account is paid now: the lookup says so (3204), as for any paid account.
    expect(again).toBeInstanceOf(Error);
    expect(await collectionsOf(shop)).toHaveLength(1);
    expect(await events(shop, 'payrequest.success')).toBe(1);
    await expectLedgerClean();
  });

  it('the same POST /transfers again gets the same fulfilment and credits nothing more', async () => {
    const account = await requestToPay(t, shop, 120_00);
    const { transfer, transferBody, transferId } = await pay(account, 120_00);
    const replay = ok(await sendTransfer(ttk, { ...payer, version: '1.1', body: transferBody }), 'replay');
    expect(replay.body.fulfilment).toBe(transfer.body.fulfilment);
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    const replayAfter = ok(await sendTransfer(ttk, { ...payer, version: '1.1', body: transferBody }), 'replay after commit');
    expect(replayAfter.body.fulfilment).toBe(transfer.body.fulfilment);
    const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from collections c join payment_requests r using (merchant_account_number, request_id) where r.timed_account_number = $1', [account]);
    expect(rows[0].n).toBe(1);
    await expectLedgerClean();
  });

  it('ABORTED releases the account: open again, nothing credited, payable by the next transfer', async () => {
    const account = await requestToPay(t, shop, 130_00);
    const first = await pay(account, 130_00);
    expect((await patch(first.transferId, 'ABORTED')).status).toBe(200);
    expect(await requestState(account)).toEqual({ status_code: 'O', held_by_transfer: null });
    const second = await pay(account, 130_00);
    expect((await patch(second.transferId, 'COMMITTED')).status).toBe(200);
    expect(await requestState(account)).toMatchObject({ status_code: 'P' });
    const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from collections c join payment_requests r using (merchant_account_number, request_id) where r.timed_account_number = $1', [account]);
    expect(rows[0].n).toBe(1);
    await expectLedgerClean();
  });
});

describe('FSPIOP 1.0: no notification, the switch is asked', () => {
  it('answers COMMITTED, then credits once the switch\'s record says COMMITTED', async () => {
    const account = await requestToPay(t, shop, 140_00);
    const { transfer, transferId } = await pay(account, 140_00, { version: '1.0' });
    expect(transfer.body.transferState).toBe('COMMITTED');
    expect(await requestState(account)).toMatchObject({ held_by_transfer: transferId });
    await ttk.setRules([transferStatus({ transferId, state: 'COMMITTED' })]);
    await until('credited after asking the switch', async () => {
      await sweepPayeeTransfers(t.deps);
      return (await requestState(account)).status_code === 'P';
    }, 15_000, 200);
    const { rows } = await t.db.query<{ transfer_state: string }>('select transfer_state from rail_transfer_reports where transfer_id = $1', [transferId]);
    expect(rows[0]?.transfer_state).toBe('COMMITTED');
    expect(await events(shop, 'payrequest.success')).toBeGreaterThanOrEqual(1);
    await expectLedgerClean();
  });
});

describe('what cannot be paid, and what is not credited', () => {
  it('an expired, a paid or an unknown timed account, and an MSISDN, are "party not found" (3204)', async () => {
    const expired = await requestToPay(t, shop, 110_00);
    await t.db.query(`update payment_requests set expires_at = now() - interval '1 second', created_at = now() - interval '1 hour' where timed_account_number = $1`, [expired]);
    const paid = await requestToPay(t, shop, 110_00);
    expect((await payTimed(t, shop, paid, 110_00)).statusCode).toBe(200);
    for (const [type, id] of [['ACCOUNT_ID', expired], ['ACCOUNT_ID', paid], ['ACCOUNT_ID', '19999999'], ['MSISDN', '265991234567']]) {
      const r = ok(await lookupParty(ttk, { ...payer, type, id }), `lookup ${type}/${id}`);
      expect(r.path).toBe(`/parties/${type}/${id}/error`);
      expect(r.body.errorInformation.errorCode).toBe('3204');
    }
    // And its quote too.
    const quote = ok(await requestQuote(ttk, { ...payer, body: quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: expired, fspId: FSP_ID }, amount: '110', currency: 'MWK' }) }), 'quote');
    expect(quote.body.errorInformation.errorCode).toBe('3204');
    // Lookups are not kept (nor our answers to them); a request refused by callback is, with why.
    const { rows: kept } = await t.db.query<{ method: string; path: string; outcome: string }>(`select method, path, outcome from rail_refused_messages order by message_id`);
    expect(kept.filter((k) => k.path.startsWith('/parties'))).toEqual([]);
    expect(kept.filter((k) => k.method === 'POST' && k.path === '/quotes').map((k) => k.outcome)).toContain('refused by callback: 3204 Party not found');
  });

  it('a quote for another amount than the request expects is refused (5101), naming the amount expected', async () => {
    const account = await requestToPay(t, shop, 150_00);
    const r = ok(await requestQuote(ttk, { ...payer, body: quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: '149.99', currency: 'MWK' }) }), 'quote');
    expect(r.error).toBe(true);
    expect(r.body.errorInformation.errorCode).toBe('5101');
    expect(r.body.errorInformation.errorDescription).toContain('150 MWK');
    const { rows } = await t.db.query('select 1 from rail_collections where party_identifier = $1', [account]);
    expect(rows).toHaveLength(0);
  });

  it('a transfer whose amount or packet is not the quote\'s is refused, the account stays open', async () => {
    const account = await requestToPay(t, shop, 160_00);
    const quoteBody = quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: '160', currency: 'MWK' });
    const quote = ok(await requestQuote(ttk, { ...payer, body: quoteBody }), 'quote');
    const cheaper = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: { ...quote.body, transferAmount: { amount: '1', currency: 'MWK' } } });
    const refused = ok(await sendTransfer(ttk, { ...payer, body: cheaper }), 'cheaper transfer');
    expect(refused.error).toBe(true);
    expect(refused.body.errorInformation.errorCode).toBe('3100');
    const tampered = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: { ...quote.body, ilpPacket: quote.body.ilpPacket.slice(0, -4) + 'AAAA' } });
    const bad = ok(await sendTransfer(ttk, { ...payer, body: tampered }), 'tampered packet');
    expect(bad.error).toBe(true);
    expect(['3100', '3205']).toContain(bad.body.errorInformation.errorCode);
    expect(await requestState(account)).toEqual({ status_code: 'O', held_by_transfer: null });
  });

  it('a quote beyond the merchant\'s per-payment limit is 5200; a packet whose quote id is no UUID is 3100, and nothing is stored', async () => {
    const limits = await t.db.query<{ maximum_amount_minor: string }>(`select maximum_amount_minor from merchant_limits where merchant_account_number = $1 and transaction_code = 'BAM'`, [shop.merchantAccountNumber]);
    const tooMuch = String(Number(limits.rows[0].maximum_amount_minor) / 100 + 1);
    const over = ok(await requestQuote(ttk, { ...payer, body: quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: shop.paymentAccountNumber, fspId: FSP_ID }, amount: tooMuch, currency: 'MWK' }) }), 'quote over the limit');
    expect(over.body.errorInformation.errorCode).toBe('5200');
    const transaction = {
      transactionId: randomUUID(),
      quoteId: 'not-a-uuid',
      payee: { partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: shop.paymentAccountNumber, fspId: FSP_ID } },
      payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: PAYER.id, fspId: PAYER_FSP } },
      amount: { amount: '100', currency: 'MWK' },
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    };
    const terms = buildIlpPacket({ transaction, destination: `g.${FSP_ID}.account_id.${shop.paymentAccountNumber}`, secret: 'someone-else' });
    const forged = ok(await sendTransfer(ttk, { ...payer, body: transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote: { transferAmount: transaction.amount, ...terms } }) }), 'transfer');
    expect(forged.body.errorInformation.errorCode).toBe('3100');
    const { rows } = await t.db.query(`select 1 from rail_collections where party_identifier = $1`, [shop.paymentAccountNumber]);
    expect(rows).toHaveLength(0);
  });

  it('a notification from anyone but the switch, or for a transfer we never fulfilled, credits nothing and is kept for the operator', async () => {
    const account = await requestToPay(t, shop, 170_00);
    const { transferId } = await pay(account, 170_00);
    const forged = await patch(transferId, 'COMMITTED', PAYER_FSP);
    expect(forged.status).toBe(400);
    expect((forged.body as any).errorInformation.errorCode).toBe('3100');
    const unknown = await patch('0b1f5d2c-6a4e-4c8e-9f1a-2b3c4d5e6f70', 'COMMITTED');
    expect(unknown.status).toBe(400);
    expect((unknown.body as any).errorInformation.errorCode).toBe('3208');
    expect(await requestState(account)).toEqual({ status_code: 'O', held_by_transfer: transferId });
    const { rows: kept } = await t.db.query<{ outcome: string }>(`select outcome from rail_messages where method = 'PATCH' and path = $1`, [`/transfers/${transferId}`]);
    expect(kept.map((k) => k.outcome)).toEqual([expect.stringContaining('refused: 3100')]);
    const { rows: stray } = await t.db.query<{ outcome: string }>(`select outcome from rail_refused_messages where method = 'PATCH' and path like '/transfers/0b1f5d2c%'`);
    expect(stray.map((k) => k.outcome)).toEqual([expect.stringContaining('refused: 3208')]);
    // The switch's own word then credits it.
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    expect(await requestState(account)).toMatchObject({ status_code: 'P' });
    await expectLedgerClean();
  });
});

describe("a merchant's payment account", () => {
  it('takes any amount within the limits, credited as a customer payment (BAM)', async () => {
    const other = await newMerchant(t, { accountName: 'Kumwenda Pharmacy' });
    expect((await customPayment(t, other, 100_00)).statusCode).toBe(200);
    const { transferId } = await pay(other.paymentAccountNumber, 250_00);
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    const rows = await collectionsOf(other);
    expect(rows.map((r) => [r.transaction_code, r.amount_minor])).toEqual([['BAM', 10000], ['BAM', 25000]]);
    expect(await events(other, 'payment.success')).toBe(2);
    await expectLedgerClean();
  });
});

describe('a hosted checkout paid over the rail', () => {
  it('moves on by itself: its status turns paid with the shop\'s success URL, and the shop\'s callback is queued once', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/sandbox/v1/checkout/rtp/initiate',
      payload: {
        authentication: { apiKey: shop.apiKey, apiSecret: shop.apiSecret },
        merchant: { organisationId: shop.organisationId, merchantAccountNumber: shop.merchantAccountNumber },
        payment: { sourceReferenceNumber: 'OT-PY-ML-1', description: 'Two bags of maize flour', amount: '1500.00' },
        route: { successRedirectionUrl: 'https://shop.example.mw/paid', failureRedirectionUrl: 'https://shop.example.mw/failed', callbackApiUrl: 'http://127.0.0.1:9/hooks/checkout' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const ptid: string = res.json().paymentTransactionId;
    const { rows } = await t.db.query<{ timed_account_number: string }>('select timed_account_number from payment_requests where payment_transaction_id = $1', [ptid]);
    const status = async () => (await t.app.inject({ method: 'GET', url: `/checkout/status?ptid=${ptid}` })).json();
    expect(await status()).toMatchObject({ status: 'open' });
    const { transferId } = await pay(rows[0].timed_account_number, 1500_00);
    // Held, not yet paid: the page keeps waiting.
    expect(await status()).toMatchObject({ status: 'open' });
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    const paid = await status();
    expect(paid.status).toBe('paid');
    expect(paid.location).toContain('https://shop.example.mw/paid');
    const { rows: callbacks } = await t.db.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where callback_url = 'http://127.0.0.1:9/hooks/checkout'`);
    expect(callbacks[0].n).toBe(1);
  });
});

describe('ledger verify', () => {
  it('checks every rail payment against its collection and its hold: a stray hold and a credit of the wrong amount fail rail_collections', async () => {
    const failures = async () => (await verifyLedger(t.db)).checks.find((c) => c.name === 'rail_collections')!;
    expect((await failures()).failed).toBe(0);
    expect((await failures()).checked).toBeGreaterThan(5);
    const stray = await requestToPay(t, shop, 101_00);
    await t.db.query('update payment_requests set held_by_transfer = $2 where timed_account_number = $1', [stray, randomUUID()]);
    const account = await requestToPay(t, shop, 102_00);
    const { transferId } = await pay(account, 102_00);
    expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    await t.db.query('update rail_collections set amount_minor = amount_minor + 1 where transfer_id = $1', [transferId]);
    try {
      const report = await failures();
      expect(report.failed).toBe(2);
      expect(report.examples.map((e) => (e as { phase: string }).phase).sort()).toEqual(['committed', 'held']);
    } finally {
      await t.db.query('update payment_requests set held_by_transfer = null where timed_account_number = $1', [stray]);
      await t.db.query('update rail_collections set amount_minor = amount_minor - 1 where transfer_id = $1', [transferId]);
    }
    expect((await failures()).failed).toBe(0);
  });
});

describe('hostile input on the payee side', () => {
  const headers = (resource: string, version = '1.1') => {
    const type = `application/vnd.interoperability.${resource}+json;version=${version}`;
    return { 'content-type': type, accept: type, date: new Date().toUTCString(), 'fspiop-source': PAYER_FSP, 'fspiop-destination': FSP_ID };
  };
  const send = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, resource: string, payload?: string) =>
    t.app.inject({ method, url: `/fspiop${url}`, headers: headers(resource), ...(payload === undefined ? {} : { payload }) });

  it('never answers 500 and changes nothing', async () => {
    const uuid = randomUUID();
    const quote = quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: '10000001', fspId: FSP_ID }, amount: '100', currency: 'MWK' });
    const cases: Array<[Parameters<typeof send>[0], string, string, string | undefined]> = [
      ['GET', `/parties/ACCOUNT_ID/${'9'.repeat(300)}`, 'parties', undefined],
      ['GET', '/parties/ACCOUNT_ID/%00%ff', 'parties', undefined],
      ['GET', "/parties/ACCOUNT_ID/1'%20or%201=1", 'parties', undefined],
      ['GET', '/parties/ACCOUNT_ID/1%00', 'parties', undefined],
      ['POST', '/quotes', 'quotes', 'null'],
      ['POST', '/quotes', 'quotes', '{"quoteId":'],
      ['POST', '/quotes', 'quotes', JSON.stringify({ ...quote, amount: { amount: '999999999999999999', currency: 'MWK' } })],
      ['POST', '/quotes', 'quotes', JSON.stringify({ ...quote, amount: { amount: '1', currency: 'XXX' } })],
      ['POST', '/quotes', 'quotes', JSON.stringify({ ...quote, payee: { partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: '\u0000' } } })],
      ['POST', '/transfers', 'transfers', JSON.stringify({ transferId: uuid, payerFsp: PAYER_FSP, payeeFsp: FSP_ID, amount: { amount: '1', currency: 'MWK' }, ilpPacket: 'AYIB'.repeat(50), condition: 'A'.repeat(43), expiration: '9999-12-31T23:59:59.999Z' })],
      ['POST', '/transfers', 'transfers', JSON.stringify({ transferId: uuid, payerFsp: PAYER_FSP, payeeFsp: FSP_ID, amount: { amount: '1', currency: 'MWK' }, ilpPacket: Buffer.from([1, 5, 0, 0, 0, 0, 0]).toString('base64url'), condition: 'A'.repeat(43), expiration: new Date(Date.now() + 60_000).toISOString() })],
      ['PATCH', '/transfers/not-a-uuid', 'transfers', JSON.stringify({ transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() })],
      ['PATCH', `/transfers/${uuid}`, 'transfers', '{}'],
      ['POST', '/quotes', 'quotes', JSON.stringify({ ...quote, payer: { ...quote.payer as object, name: 'Chisomo\u0000Banda' } })],
      ['PUT', `/transfers/${uuid}`, 'transfers', JSON.stringify({ transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() })],
      ['PUT', '/transfers/..%2F..%2Fetc', 'transfers', JSON.stringify({ transferState: 'ABORTED', completedTimestamp: new Date().toISOString() })],
    ];
    const before = (await t.db.query<{ n: number }>('select count(*)::int as n from collections')).rows[0].n;
    for (const [method, url, resource, payload] of cases) {
      const res = await send(method, url, resource, payload);
      expect(res.statusCode, `${method} ${url} ${payload?.slice(0, 300)}: ${res.body}`).toBeLessThan(500);
      // A URL the router itself refuses (a parameter over 200 characters, bytes that are no UTF-8)
      // gets Fastify's own 400 or 414 before any route: the rest the FSPIOP error body.
      if (res.statusCode >= 400 && !/FST_ERR_(BAD_URL|MAX_PARAM_LENGTH)/.test(res.body)) expect(`${method} ${url}: ${res.statusCode} ${res.body}`).toMatch(/"errorCode":"[1-5]\d{3}"/);
    }
    expect((await t.db.query<{ n: number }>('select count(*)::int as n from collections')).rows[0].n).toBe(before);
    await expectLedgerClean();
  });
});

describe('a connector switched off after the transfer was accepted', () => {
  it('does not undo the committed payment: the credit books it once', async () => {
    const account = await requestToPay(t, shop, 103_00);
    const { transferId } = await pay(account, 103_00);
    await t.db.query('update connectors set is_active = false where connector_id = $1', [AIRTEL]);
    try {
      expect((await patch(transferId, 'COMMITTED')).status).toBe(200);
    } finally {
      await t.db.query('update connectors set is_active = true where connector_id = $1', [AIRTEL]);
    }
    expect(await requestState(account)).toEqual({ status_code: 'P', held_by_transfer: null });
    await expectLedgerClean();
  });
});

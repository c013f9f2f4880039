// Reconciliation of the Mojaloop rail (issue 25), against the Mojaloop Testing Toolkit playing the
// switch: payouts committed over TTK, then the day compared with the switch's record (GET
// /transfers/{id}, answered by TTK's rules and kept in rail_transfer_reports by our /fspiop
// routes). Differences are planted on both sides (TTK answering ABORTED or "not found" for a
// payout we paid; our records saying a collection was never credited, or carrying another amount
// than our ledger booked) and must show as exceptions in the admin API; resolving them books one
// correcting transfer each, audited, with `ledger verify` clean; a day reconciled again opens
// nothing twice. The cases run in order on one day of one merchant (a run looks at the whole day).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHelpers } from 'graphile-worker';
import { taskList } from '../../src/composition.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { derivedId, randomCorrelationId } from '../../src/rails/mojaloop/ids.ts';
import { closeMojaloop } from '../../src/rails/mojaloop/rail.ts';
import { reconcile } from '../../src/rails/reconciliation/runs.ts';
import { ADMIN_TOKEN, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';
import { AIRTEL, apiBalances, collectionReference, customPayment, idempotencyKey, major, NBM, requestToPay, singlePayout, topup } from '../money-ops.ts';
import { expectLedgerClean, settle, untilPhase, wallet, type PayoutRow } from './mojaloop-kit.ts';
import { acquireTtk, type AcquiredTtk } from '../ttk/harness.ts';
import { lookupParty, notifyTransfer, quoteRequestBody, requestQuote, sendTransfer, transferRequestBody, type PayerResult } from '../ttk/payer.ts';
import { transferNoCallback, transferStatus, transferStatusNoCallback, transferStatusNotFound } from '../ttk/rules.ts';

const FSP_ID = 'onekhusadfsp';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

let ttk: AcquiredTtk;
let t: TestApp;
let m: TestMerchant;
let day: string;
/** The three payouts of the first case: A answered ABORTED, B not found, C carried another amount. */
let paid: PayoutRow[];
/** A timed account paid over the rail by TTK as the payer DFSP: its collection's reference and transfer. */
const Z = { reference: '', transferId: '' };
/** The planted collections: X never credited (the switch committed it), Y credited for less than it carried. */
const X = { transferId: randomCorrelationId(), amountMinor: 12_345_00 };
const Y = { transferId: randomCorrelationId(), carriedMinor: 0, bookedMinor: 0, reference: '' };

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-reconciliation' });
  t = await startTestApp({
    MOJALOOP_SWITCH_URL: ttk.fspiopUrl,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: `${AIRTEL},${NBM}`,
    MOJALOOP_TRANSFER_EXPIRY_SECONDS: '2',
    // A reconciliation waits this long for the switch's answers before it calls a transfer unanswered.
    MOJALOOP_CALLBACK_SECONDS: '2',
    MOJALOOP_IN_FLIGHT_BOUND_SECONDS: '1',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: `http://127.0.0.1:${address.port}/fspiop` });
  m = await newMerchant(t, { accountName: 'Zomba Traders', levelNumber: 1 });
  const funded = await topup(t, m, 50_000_000_00);
  expect(funded.statusCode, funded.body).toBe(200);
}, 180_000);

afterAll(async () => {
  await ttk?.release();
  if (t) await closeMojaloop(t.deps);
  await t?.close();
});

async function pay(msisdn: string, amountMinor: number): Promise<string> {
  const res = await singlePayout(t, m, wallet(msisdn, amountMinor), idempotencyKey());
  expect(res.statusCode, res.body).toBe(200);
  return res.json().transactionReferenceNumber;
}

async function exceptions(query = ''): Promise<Array<Record<string, unknown> & { exceptionId: number; kind: string; transferId: string }>> {
  const res = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/exceptions${query}`, headers: ADMIN });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

function resolve(exceptionId: number, body: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: `/admin/v1/rails/exceptions/${exceptionId}/resolve`, headers: ADMIN, payload: body });
}

/** The rail_correction transfers of an exception, with their entries by account kind. */
async function corrections(exceptionId: number): Promise<Array<{ transfer_id: number; moved: Record<string, number> }>> {
  const { rows } = await t.db.query<{ transfer_id: number; moved: Record<string, number> }>(
    `select t.transfer_id, json_object_agg(a.kind, e.amount_minor) as moved
       from ledger_transfers t join ledger_entries e on e.transfer_id = t.transfer_id join ledger_accounts a on a.account_id = e.account_id
      where t.transfer_type = 'rail_correction' and t.reference = $1 group by t.transfer_id`,
    [`RX${exceptionId}`],
  );
  return rows;
}

function answered(r: PayerResult, what: string): { body: any; error: boolean } {
  expect(r.error, `${what}: ${JSON.stringify(r.error)}`).toBeUndefined();
  expect(r.callback, `${what}: no callback`).toBeDefined();
  expect(r.callback!.error, `${what}: ${JSON.stringify(r.callback!.body)}`).toBe(false);
  return r.callback!;
}

/** TTK as the payer DFSP pays a timed account of `m` (FSPIOP 1.1), then the switch's PATCH commits it: the collection's reference and transfer. */
async function payTimedAccountOverTheRail(amountMinor: number): Promise<{ reference: string; transferId: string }> {
  const account = await requestToPay(t, m, amountMinor);
  const address = t.app.server.address() as { port: number };
  const payer = { baseUrl: `http://127.0.0.1:${address.port}/fspiop`, source: 'payerfsp', destination: FSP_ID, version: '1.1' as const };
  answered(await lookupParty(ttk, { ...payer, type: 'ACCOUNT_ID', id: account }), 'lookup');
  const quoteBody = quoteRequestBody({ payer: { type: 'MSISDN', id: '265991234567', fspId: 'payerfsp', name: 'Chisomo Banda' }, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount: major(amountMinor).replace(/\.?0+$/, ''), currency: 'MWK' });
  const quote = answered(await requestQuote(ttk, { ...payer, body: quoteBody }), 'quote');
  const transferBody = transferRequestBody({ payerFsp: 'payerfsp', payeeFsp: FSP_ID, quote: quote.body, transferId: quoteBody.transactionId });
  answered(await sendTransfer(ttk, { ...payer, body: transferBody }), 'transfer');
  const notified = await notifyTransfer(ttk, { baseUrl: payer.baseUrl, source: 'switch', destination: FSP_ID, transferId: transferBody.transferId, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } });
  expect(notified.status).toBe(200);
  const { rows } = await t.db.query<{ reference: string }>(
    `select c.transaction_reference_number as reference from rail_collections rc join collections c on c.collection_id = rc.collection_id where rc.transfer_id = $1`,
    [transferBody.transferId],
  );
  expect(rows).toHaveLength(1);
  return { reference: rows[0].reference, transferId: transferBody.transferId };
}

/** Plants an inbound transfer in our records as the payee side keeps it (rail_collections and its POST /transfers). */
async function plantCollection(p: { transferId: string; phase: 'aborted' | 'committed'; amountMinor: number; collectionId?: number; fulfilment?: string }): Promise<void> {
  const { rows } = await t.db.query<{ inbound_id: number }>(
    `insert into rail_collections (merchant_account_number, rail, phase, quote_id, transaction_id, transfer_id, payer_fsp, party_id_type, party_identifier,
                                   amount_minor, currency_code, ilp_packet, condition, quote_expires_at, transfer_expires_at, transfer_version, collection_id, completed_at)
     values ($1, 'mojaloop', $2, $3, $4, $5, 'payerfsp', 'ACCOUNT_ID', $6, $7, 'MWK', 'AYIB', 'condition', now() + interval '1 minute', now() + interval '1 minute', '1.0', $8, now())
     returning inbound_id`,
    [m.merchantAccountNumber, p.phase, randomCorrelationId(), randomCorrelationId(), p.transferId, m.paymentAccountNumber, p.amountMinor, p.collectionId ?? null],
  );
  const amount = (p.amountMinor / 100).toFixed(2).replace(/\.?0+$/, '');
  await t.db.query(
    `insert into rail_messages (merchant_account_number, inbound_id, rail, direction, method, path, http_status, headers, body, outcome)
     values ($1, $2, 'mojaloop', 'in', 'POST', '/transfers', 202, '{"fspiop-source": "payerfsp"}', $3, 'accepted'),
            ($1, $2, 'mojaloop', 'out', 'PUT', $4, 200, '{"fspiop-destination": "payerfsp"}', $5, 'accepted')`,
    [
      m.merchantAccountNumber,
      rows[0].inbound_id,
      JSON.stringify({ transferId: p.transferId, payerFsp: 'payerfsp', payeeFsp: FSP_ID, amount: { currency: 'MWK', amount }, ilpPacket: 'AYIB', condition: 'condition', expiration: new Date().toISOString() }),
      `/transfers/${p.transferId}`,
      JSON.stringify({ transferState: 'RESERVED', fulfilment: p.fulfilment ?? 'our-fulfilment-secret', completedTimestamp: new Date().toISOString() }),
    ],
  );
}

describe('reconciliation of the Mojaloop rail (TTK as the switch)', () => {
  it('a day of payouts the switch committed, its record agreeing: no exception, every question and answer kept', async () => {
    await ttk.setRules([]);
    await pay('265991110001', 1_000_00);
    await pay('265991110002', 2_000_00);
    await pay('265991110003', 3_000_00);
    paid = await settle(t, m);
    expect(paid.map((r) => [r.status_code, r.phase])).toEqual([['S', 'committed'], ['S', 'committed'], ['S', 'committed']]);
    Object.assign(Z, await payTimedAccountOverTheRail(150_00));
    const { rows } = await t.db.query<{ day: string }>(`select (min(created_at) at time zone 'UTC')::date::text as day from rail_payouts where merchant_account_number = $1`, [m.merchantAccountNumber]);
    day = rows[0].day;

    const run = await reconcile(t.deps, { day, rail: 'mojaloop' });
    expect(run).toMatchObject({ status: 'finished', day, rail: 'mojaloop', transfersChecked: 4, unanswered: 0, differences: 0, newExceptions: 0 });
    expect(await exceptions('?open=true')).toEqual([]);
    // Each question is kept with its payout, and the switch's answer with it.
    // An answer is kept just after the reconciliation read it (routes.ts records after the handler).
    const keptCounts = async () =>
      (
        await t.db.query<{ payout_id: number; asks: number; answers: number }>(
          `select payout_id, count(*) filter (where direction = 'out' and method = 'GET' and path like '/transfers/%')::int as asks,
                  count(*) filter (where direction = 'in' and method = 'PUT' and path like '/transfers/%' and outcome = 'accepted')::int as answers
             from rail_messages where merchant_account_number = $1 and payout_id is not null group by payout_id order by payout_id`,
          [m.merchantAccountNumber],
        )
      ).rows.map((k) => [k.asks, k.answers]);
    await until('every answer kept', async () => (await keptCounts()).every(([, answers]) => answers >= 2), 10_000);
    expect(await keptCounts()).toEqual([[1, 2], [1, 2], [1, 2]]);
  });

  it('differences planted on both sides are listed as exceptions in the admin API', async () => {
    const [a, b, c] = paid;
    // The switch's side: A aborted, B unknown to it.
    await ttk.setRules([transferStatus({ transferId: a.transfer_id!, state: 'ABORTED' }), transferStatusNotFound({ transferId: b.transfer_id! })]);
    // Our side. C: our record of the POST /transfers says the rail carried 5.00 more than our ledger booked.
    await t.db.query(
      `update rail_messages set body = jsonb_set(body, '{amount,amount}', to_jsonb(trim_scale(($3::numeric + 500) / 100)::text))
        where merchant_account_number = $1 and payout_id = $2 and direction = 'out' and method = 'POST' and path = '/transfers'`,
      [m.merchantAccountNumber, c.payout_id, c.amount_minor],
    );
    // X: an inbound transfer our records say was aborted, never credited; the switch committed it.
    await plantCollection({ transferId: X.transferId, phase: 'aborted', amountMinor: X.amountMinor });
    // Y: a collection our ledger booked for 700.00 whose transfer carried 705.00.
    const payment = await customPayment(t, m, 700_00);
    expect(payment.statusCode, payment.body).toBe(200);
    Y.reference = collectionReference(payment);
    Y.bookedMinor = 700_00;
    Y.carriedMinor = 705_00;
    const { rows: col } = await t.db.query<{ collection_id: number }>('select collection_id from collections where transaction_reference_number = $1', [Y.reference]);
    await plantCollection({ transferId: Y.transferId, phase: 'committed', amountMinor: Y.carriedMinor, collectionId: col[0].collection_id, fulfilment: 'committed-fulfilment' });

    const run = await reconcile(t.deps, { day, rail: 'mojaloop' });
    expect(run).toMatchObject({ status: 'finished', transfersChecked: 6, unanswered: 0, differences: 5, newExceptions: 5, cleared: 0 });

    const open = await exceptions('?open=true');
    const byTransfer = Object.fromEntries(open.map((x) => [x.transferId, x]));
    expect(open).toHaveLength(5);
    expect(byTransfer[a.transfer_id!]).toMatchObject({ kind: 'ours_committed_theirs_not', subject: 'payout', reference: a.transaction_reference_number, oursPhase: 'committed', theirsState: 'ABORTED', oursAmountMinor: a.amount_minor, feeMinor: a.fee_minor, resolution: null, day });
    expect(byTransfer[b.transfer_id!]).toMatchObject({ kind: 'ours_committed_theirs_not', theirsState: 'NOT_FOUND', theirsErrorCode: '3208' });
    expect(byTransfer[c.transfer_id!]).toMatchObject({ kind: 'amount_differs', theirsState: 'COMMITTED', oursAmountMinor: c.amount_minor, theirsAmountMinor: c.amount_minor + 500 });
    expect(byTransfer[X.transferId]).toMatchObject({ kind: 'theirs_committed_ours_not', subject: 'collection', reference: null, oursPhase: 'aborted', theirsState: 'COMMITTED', theirsAmountMinor: X.amountMinor });
    expect(byTransfer[Y.transferId]).toMatchObject({ kind: 'amount_differs', subject: 'collection', reference: Y.reference, oursAmountMinor: Y.bookedMinor, theirsAmountMinor: Y.carriedMinor });
    // Nothing moved by finding them; the ledger itself still verifies.
    await expectLedgerClean(t, m);
  });

  it('resolving: one correcting transfer per correction, balances moved by the difference, audited, ledger verify clean; never twice', async () => {
    const [a, b, c] = paid;
    const open = Object.fromEntries((await exceptions('?open=true')).map((x) => [x.transferId, x]));
    const before = await apiBalances(t, m);

    const resolvedA = await resolve(open[a.transfer_id!].exceptionId, { action: 'correct', reason: 'Switch settlement report: transfer aborted', resolvedBy: 'recon@onekhusa.example' });
    expect(resolvedA.statusCode, resolvedA.body).toBe(200);
    expect(resolvedA.json()).toMatchObject({ resolution: 'correct', resolvedBy: 'recon@onekhusa.example', reason: 'Switch settlement report: transfer aborted', ledgerTransferId: expect.any(Number), resolvedAt: expect.any(String) });
    const bookedA = await corrections(open[a.transfer_id!].exceptionId);
    expect(bookedA).toEqual([{ transfer_id: resolvedA.json().ledgerTransferId, moved: { disbursement: a.amount_minor + a.fee_minor, payouts_settled: -a.amount_minor, fees: -a.fee_minor } }]);

    // Resolved already: refused, and nothing booked again.
    const again = await resolve(open[a.transfer_id!].exceptionId, { action: 'correct', reason: 'Once more' });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ errorCode: 'E906' });
    expect(await corrections(open[a.transfer_id!].exceptionId)).toHaveLength(1);
    // Nothing to correct for an exception that names no amount of ours to move: accepted instead.
    const accepted = await resolve(open[b.transfer_id!].exceptionId, { action: 'accept', reason: 'Switch confirmed the transfer by phone; its lookup was wrong' });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ resolution: 'accept', resolvedBy: 'admin', ledgerTransferId: null });
    expect(await corrections(open[b.transfer_id!].exceptionId)).toEqual([]);

    for (const id of [c.transfer_id!, X.transferId, Y.transferId]) {
      const res = await resolve(open[id].exceptionId, { action: 'correct', reason: 'Per the switch record' });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await corrections(open[c.transfer_id!].exceptionId))[0].moved).toEqual({ disbursement: -500, payouts_settled: 500 });
    expect((await corrections(open[X.transferId].exceptionId))[0].moved).toEqual({ customer_payments: -X.amountMinor, collection: X.amountMinor });
    expect((await corrections(open[Y.transferId].exceptionId))[0].moved).toEqual({ customer_payments: -500, collection: 500 });

    const after = await apiBalances(t, m);
    expect(after.disbursementMinor).toBe(before.disbursementMinor + a.amount_minor + a.fee_minor - 500);
    expect(after.collectionMinor).toBe(before.collectionMinor + X.amountMinor + 500);
    expect(await exceptions('?open=true')).toEqual([]);
    await expectLedgerClean(t, m);
    const report = await verifyLedger(t.db);
    expect(report.checks.find((x) => x.name === 'rail_corrections')).toMatchObject({ checked: 4, failed: 0 });
  });

  it('the day reconciled again (by the operator through the API and by the daily job) opens nothing twice', async () => {
    const queued = await t.app.inject({ method: 'POST', url: '/admin/v1/rails/reconciliations', headers: ADMIN, payload: { day } });
    expect(queued.statusCode, queued.body).toBe(202);
    expect(queued.json()).toMatchObject({ status: 'queued', day, rail: 'mojaloop', requestedBy: 'admin' });
    const tasks = taskList(t.deps);
    await tasks.rail_reconcile!({ runId: queued.json().runId }, {} as JobHelpers);
    const run = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/reconciliations/${queued.json().runId}`, headers: ADMIN });
    // The differences are still there (the switch's record has not changed): found, already resolved.
    expect(run.json()).toMatchObject({ status: 'finished', transfersChecked: 6, differences: 5, newExceptions: 0, cleared: 0 });
    expect(await exceptions()).toHaveLength(5);

    // The daily job of the next day's 01:15 does this day once, however often it runs.
    const tomorrow = new Date(Date.parse(`${day}T01:15:00Z`) + 86_400_000).toISOString();
    await tasks.rail_reconcile_daily!({ _cron: { ts: tomorrow, backfilled: false } }, {} as JobHelpers);
    await tasks.rail_reconcile_daily!({ _cron: { ts: tomorrow, backfilled: true } }, {} as JobHelpers);
    const { rows: scheduled } = await t.db.query<{ run_id: number }>(`select run_id from rail_reconciliations where requested_by = 'schedule' and day = $1`, [day]);
    expect(scheduled).toHaveLength(1);
    await tasks.rail_reconcile!({ runId: scheduled[0].run_id }, {} as JobHelpers);
    expect(await exceptions()).toHaveLength(5);
    expect(await exceptions('?open=true')).toEqual([]);

    // A day to come, or a rail without a record of its own, is refused.
    const future = await t.app.inject({ method: 'POST', url: '/admin/v1/rails/reconciliations', headers: ADMIN, payload: { day: '2999-01-01' } });
    expect(future.statusCode, future.body).toBe(400);
    const simulated = await t.app.inject({ method: 'POST', url: '/admin/v1/rails/reconciliations', headers: ADMIN, payload: { day, rail: 'simulated' } });
    expect(simulated.statusCode, simulated.body).toBe(404);
    expect((await resolve(999_999_999, { action: 'accept', reason: 'Unknown' })).statusCode).toBe(404);
  });

  it('a transfer still in flight past its expiry and a transfer the switch does not answer for: listed, then cleared once known', async () => {
    const [first] = paid;
    const reference = await pay('265991110004', 4_444_00);
    const transferId = derivedId('transfer', FSP_ID, reference);
    // D's transfer is never answered, nor are the questions about it; the switch is silent about the first payout too.
    await ttk.setRules([transferNoCallback({ amount: '4444' }), transferStatusNoCallback(transferId), transferStatusNoCallback(first.transfer_id!)]);
    const d = await untilPhase(t, m, 'transfer');
    expect(d.transfer_id).toBe(transferId);
    // Past its expiry and the bound (MOJALOOP_IN_FLIGHT_BOUND_SECONDS=1 here).
    await expect.poll(async () => (await t.db.query(`select 1 from rail_payouts where transfer_id = $1 and expires_at + interval '1 second' < now()`, [transferId])).rowCount, { timeout: 10_000 }).toBe(1);

    const health = await t.app.inject({ method: 'GET', url: '/admin/v1/rails', headers: ADMIN });
    const mojaloop = health.json().rails[0];
    expect(mojaloop).toMatchObject({ rail: 'mojaloop', inFlight: 1, overdue: 1, oldestInFlightSeconds: expect.any(Number), errorRateLastHour: 0, collections: { inFlight: 0, overdue: 0, oldestInFlightSeconds: null, lastSuccessAt: expect.any(String) } });
    expect(mojaloop.successesLastHour).toBeGreaterThanOrEqual(3);

    const run = await reconcile(t.deps, { day, rail: 'mojaloop' });
    expect(run).toMatchObject({ transfersChecked: 7, unanswered: 2, newExceptions: 2, cleared: 0 });
    const open = Object.fromEntries((await exceptions('?open=true')).map((x) => [x.transferId, x]));
    expect(open[transferId]).toMatchObject({ kind: 'in_flight_past_expiry', oursPhase: 'transfer', theirsState: null });
    expect(open[first.transfer_id!]).toMatchObject({ kind: 'theirs_unknown', oursPhase: 'committed', theirsState: null });
    // Correcting either would guess: refused, the exception stays open.
    const guess = await resolve(open[transferId].exceptionId, { action: 'correct', reason: 'Guessing' });
    expect(guess.statusCode, guess.body).toBe(402);
    expect((await exceptions('?open=true')).length).toBe(2);

    // The switch answers again: the worker learns D's outcome, and the next run finds both gone.
    await ttk.setRules([]);
    const settled = await settle(t, m);
    expect(settled.find((r) => r.transfer_id === transferId)).toMatchObject({ status_code: 'S', phase: 'committed' });
    const again = await reconcile(t.deps, { day, rail: 'mojaloop' });
    expect(again).toMatchObject({ transfersChecked: 7, unanswered: 0, newExceptions: 0, cleared: 2 });
    expect(await exceptions('?open=true')).toEqual([]);
    const cleared = (await exceptions('?open=false')).filter((x) => x.resolution === 'cleared');
    expect(cleared.map((x) => x.transferId).sort()).toEqual([transferId, first.transfer_id!].sort());
    expect(cleared[0]).toMatchObject({ resolvedBy: 'reconciliation', ledgerTransferId: null, reason: expect.stringContaining(`run ${again.runId}`) });
    await expectLedgerClean(t, m);
  });

  it("a collection's FSPIOP traffic for support: routing headers only, the fulfilment only once committed", async () => {
    // Z, paid by TTK as the payer: the payer's requests, our answers, the switch's word.
    const real = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/collections/${Z.reference}`, headers: ADMIN });
    expect(real.statusCode, real.body).toBe(200);
    expect(real.json()).toMatchObject({ transactionReferenceNumber: Z.reference, collectionStatusCode: 'S', phase: 'committed', transferId: Z.transferId, payerFsp: 'payerfsp', amountMinor: 150_00 });
    const calls: string[] = real.json().messages.map((x: { direction: string; method: string; path: string }) => `${x.direction} ${x.method} ${x.path.split('/')[1]}`);
    expect(calls).toEqual(expect.arrayContaining(['in POST quotes', 'out PUT quotes', 'in POST transfers', 'out PUT transfers', 'in PATCH transfers', 'out GET transfers']));
    expect(real.body).not.toMatch(/fspiop-signature|signature/i);

    const committed = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/collections/${Y.reference}`, headers: ADMIN });
    expect(committed.statusCode, committed.body).toBe(200);
    expect(committed.json()).toMatchObject({ transactionReferenceNumber: Y.reference, phase: 'committed', transferId: Y.transferId, payerFsp: 'payerfsp' });
    // The payer's transfer and our answer, then each reconciliation's question and the switch's answer.
    const seen: string[] = committed.json().messages.map((x: { direction: string; method: string }) => `${x.direction} ${x.method}`);
    expect(seen.slice(0, 2)).toEqual(['in POST', 'out PUT']);
    expect(seen.filter((x) => x === 'out GET').length).toBeGreaterThanOrEqual(4);
    expect(seen.filter((x) => x === 'in PUT').length).toBe(seen.filter((x) => x === 'out GET').length);
    expect(Object.keys(committed.json().messages[0].headers)).toEqual(['fspiop-source']);
    expect(committed.body).toContain('committed-fulfilment');

    // X was never credited: found by its transfer id, our fulfilment left out.
    const aborted = await t.app.inject({ method: 'GET', url: `/admin/v1/rails/collections/${X.transferId}`, headers: ADMIN });
    expect(aborted.statusCode, aborted.body).toBe(200);
    expect(aborted.json()).toMatchObject({ transactionReferenceNumber: null, phase: 'aborted', transferId: X.transferId });
    expect(aborted.body).not.toContain('our-fulfilment-secret');
    expect(aborted.body).not.toMatch(/fspiop-signature/i);
    expect((await t.app.inject({ method: 'GET', url: '/admin/v1/rails/collections/ABCDEF123456', headers: ADMIN })).statusCode).toBe(404);
  });

  it('ledger verify catches a correcting transfer no exception owns', async () => {
    const { rows } = await t.db.query<{ id: number }>(`select account_id as id from ledger_accounts where merchant_account_number = $1 and kind = 'collection'`, [m.merchantAccountNumber]);
    const { rows: sys } = await t.db.query<{ id: number }>(
      `insert into ledger_accounts (merchant_account_number, kind, currency_code) values ($1, 'customer_payments', 'MWK')
       on conflict (merchant_account_number, kind, currency_code) do update set kind = excluded.kind returning account_id as id`,
      [m.merchantAccountNumber],
    );
    await t.db.query(`select ledger_post($1, 'rail_correction', 'RX999999', '{}', array[$2, $3]::bigint[], array[100, -100]::bigint[])`, [m.merchantAccountNumber, rows[0].id, sys[0].id]);
    const report = await verifyLedger(t.db);
    expect(report.checks.find((x) => x.name === 'rail_corrections')).toMatchObject({ failed: 1, examples: [expect.objectContaining({ exceptionId: null, reference: 'RX999999' })] });
  });
});

// Crashes of the payee side (issue 25), on the real service (`src/server.ts`, API and worker in one
// process) with the Testing Toolkit as the payer DFSP and the switch:
// - between the quote and the transfer: the quote's terms live in the database and its fulfilment
//   is computed again from MOJALOOP_ILP_SECRET, so the restarted process answers the transfer with
//   the fulfilment of the condition it gave before dying;
// - between accepting the transfer and the switch taking our fulfilment: the process is killed
//   while the switch refuses the fulfilment (a proxy in front of TTK answers 503); the restarted
//   process's sweep sends it again before the transfer expires, and the payment is credited once.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/lib/free-port.ts';
import { verifyLedger } from '../../src/modules/ledger/verify.ts';
import { ledgerInvariants, newMerchant, startTestApp, until, type TestApp } from '../helpers.ts';
import { serviceProcesses } from './mojaloop-kit.ts';
import { AIRTEL, requestToPay } from '../money-ops.ts';
import { acquireTtk, type AcquiredTtk } from '../ttk/harness.ts';
import { lookupParty, notifyTransfer, quoteRequestBody, requestQuote, sendTransfer, setPayerTimeouts, transferRequestBody } from '../ttk/payer.ts';

const APP_NAME = 'mojaloop-payee-crash-server';
const FSP_ID = 'onekhusadfsp';
const PAYER_FSP = 'payerfsp';
const PAYER = { type: 'MSISDN', id: '265881234567', fspId: PAYER_FSP, name: 'Tiyamike Phiri' };

let ttk: AcquiredTtk;
let t: TestApp;
let port: number;

/** In front of TTK as the switch: forwards everything, except that it may refuse our fulfilments. */
let refuseFulfilments = false;
/** Fulfilments refused so far: our callback goes out only after our answer to the transfer was written. */
let fulfilmentsRefused = 0;
const proxy = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (refuseFulfilments && req.method === 'PUT' && /^\/transfers\/[^/]+$/.test(req.url ?? '')) {
      fulfilmentsRefused += 1;
      return void res.writeHead(503).end();
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
    fetch(`${ttk.fspiopUrl}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
      .then(async (answer) => res.writeHead(answer.status).end(Buffer.from(await answer.arrayBuffer())))
      .catch(() => res.writeHead(502).end());
  });
});

beforeAll(async () => {
  ttk = await acquireTtk({ label: 'mojaloop-payee-crash' });
  t = await startTestApp();
  port = await freePort();
  processes = serviceProcesses(t, port, APP_NAME);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  await ttk.setUserConfig({ CALLBACK_ENDPOINT: `http://127.0.0.1:${port}/fspiop` });
  // Our fulfilment may come only after a restart: TTK, as the payer, waits for it.
  await setPayerTimeouts(ttk, { callbackMs: 45_000 });
}, 180_000);

afterAll(async () => {
  processes?.killAll();
  proxy.close();
  await ttk?.release();
  await t?.close();
});

let processes: ReturnType<typeof serviceProcesses>;

function spawnService() {
  return processes.start({
    MOJALOOP_SWITCH_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    MOJALOOP_FSP_ID: FSP_ID,
    MOJALOOP_CONNECTOR_IDS: String(AIRTEL),
    MOJALOOP_CALLBACK_SECONDS: '1',
    MOJALOOP_ILP_SECRET: 'the-crash-test-ilp-secret-0123456789abcdef',
  });
}

const payer = () => ({ baseUrl: `http://127.0.0.1:${port}/fspiop`, source: PAYER_FSP, destination: FSP_ID, version: '1.1' as const });

async function quoteFor(account: string, amount: string) {
  const party = await lookupParty(ttk, { ...payer(), type: 'ACCOUNT_ID', id: account });
  expect(party.callback?.error, JSON.stringify(party.callback?.body)).toBe(false);
  const body = quoteRequestBody({ payer: PAYER, payee: { type: 'ACCOUNT_ID', id: account, fspId: FSP_ID }, amount, currency: 'MWK' });
  const quote = await requestQuote(ttk, { ...payer(), body });
  expect(quote.callback?.error, JSON.stringify(quote.callback?.body)).toBe(false);
  return { quote: quote.callback!.body, transactionId: body.transactionId };
}

async function creditedOnce(account: string): Promise<void> {
  const { rows } = await t.db.query<{ n: number; status: string }>(
    `select count(c.collection_id)::int as n, max(r.status_code) as status from payment_requests r left join collections c using (merchant_account_number, request_id) where r.timed_account_number = $1`,
    [account],
  );
  expect(rows[0]).toEqual({ n: 1, status: 'P' });
  const { rows: events } = await t.db.query<{ n: number }>(`select count(*)::int as n from outbox_events where event_code = 'payrequest.success' and payload->'metaData'->>'timedAccountNumber' = $1`, [account]);
  expect(events[0].n).toBe(1);
  const report = await verifyLedger(t.db);
  expect(report.checks.filter((c) => c.failed > 0)).toEqual([]);
  expect(await ledgerInvariants(t.db)).toEqual({ total: 0, mismatched: 0 });
}

describe('crashes of the payee side', () => {
  it('between quote and transfer: the restarted service fulfils the quote it gave', { timeout: 180_000 }, async () => {
    const shop = await newMerchant(t, { accountName: 'Crash Shop One' });
    const account = await requestToPay(t, shop, 180_00);
    const first = spawnService();
    await processes.ready(first);
    const { quote, transactionId } = await quoteFor(account, '180');
    await processes.killHard(first);

    const second = spawnService();
    await processes.ready(second);
    const transfer = await sendTransfer(ttk, { ...payer(), body: transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote, transferId: transactionId }) });
    expect(transfer.callback?.error, JSON.stringify(transfer.callback?.body)).toBe(false);
    expect(createHash('sha256').update(Buffer.from(transfer.callback!.body.fulfilment, 'base64url')).digest('base64url')).toBe(quote.condition);
    const patched = await notifyTransfer(ttk, { baseUrl: payer().baseUrl, source: 'switch', destination: FSP_ID, transferId: transactionId, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } });
    expect(patched.status).toBe(200);
    await creditedOnce(account);
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('between the transfer and the fulfilment: the restarted service sends it again and credits once', { timeout: 180_000 }, async () => {
    const shop = await newMerchant(t, { accountName: 'Crash Shop Two' });
    const account = await requestToPay(t, shop, 190_00);
    const first = spawnService();
    await processes.ready(first);
    const { quote, transactionId } = await quoteFor(account, '190');
    refuseFulfilments = true;
    const body = transferRequestBody({ payerFsp: PAYER_FSP, payeeFsp: FSP_ID, quote, transferId: transactionId, expiration: new Date(Date.now() + 90_000).toISOString() });
    const transfer = sendTransfer(ttk, { ...payer(), body, timeoutMs: 120_000 });
    // Accepted (our 202 written: the fulfilment goes out after it) and held; our fulfilment refused
    // by the switch: kill the service now.
    await until(
      'transfer reserved, fulfilment not taken',
      async () => {
        const { rows } = await t.db.query<{ phase: string; sent: boolean }>('select phase, fulfilment_sent_at is not null as sent from rail_collections where transfer_id = $1', [transactionId]);
        return rows[0]?.phase === 'reserved' && !rows[0].sent && fulfilmentsRefused > 0;
      },
      30_000,
      20,
      first.output,
    );
    await processes.killHard(first);
    refuseFulfilments = false;

    const second = spawnService();
    await processes.ready(second);
    const answered = await transfer;
    expect(answered.callback?.error, JSON.stringify(answered)).toBe(false);
    expect(createHash('sha256').update(Buffer.from(answered.callback!.body.fulfilment, 'base64url')).digest('base64url')).toBe(quote.condition);
    // The switch (TTK answers our GET /transfers/{id} COMMITTED) or its PATCH: either credits, once.
    await notifyTransfer(ttk, { baseUrl: payer().baseUrl, source: 'switch', destination: FSP_ID, transferId: transactionId, body: { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() } });
    await until('credited', async () => (await t.db.query(`select 1 from payment_requests where timed_account_number = $1 and status_code = 'P'`, [account])).rowCount === 1, 30_000, 100, second.output);
    await creditedOnce(account);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});

// The operator CLI, run as a real child process against the real app listening on a real port.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../../src/jobs/queue.ts';
import { workerPlan } from '../../src/composition.ts';
import { ADMIN_TOKEN, BASE, closedPort, newMerchant, ROOT, runCli, startTestApp, type CliResult, type TestApp, type TestMerchant } from '../helpers.ts';


let t: TestApp;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as net.AddressInfo;
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(() => t.close());


function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  // Defaults come from the environment; a test's own values take precedence.
  return runCli(args, { ONEKHUSA_URL: url, ADMIN_TOKEN, ...env });
}


describe('npm run cli', () => {
  it('creates a merchant whose credentials get a token, and lists it', async () => {
    const created = await cli(['merchants', 'create', '--name', 'Chikondi Hardware', '--level', '2']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const creds = JSON.parse(created.stdout);
    expect(creds).toMatchObject({ accountName: 'Chikondi Hardware', levelNumber: 2, currencyCode: 'MWK' });
    expect(creds.merchantAccountNumber).toBeGreaterThanOrEqual(10_000_000);
    expect(creds.apiKey).toEqual(expect.any(String));
    expect(creds.apiSecret).toEqual(expect.any(String));

    // Pages start after the given account number, so this one is first on its page.
    const listed = await cli(['merchants', 'list', '--limit', '5', '--after', String(creds.merchantAccountNumber - 1)]);
    expect(listed.code).toBe(0);
    const page = JSON.parse(listed.stdout) as { merchantAccountNumber: number; accountName: string }[];
    expect(page[0]).toMatchObject({ merchantAccountNumber: creds.merchantAccountNumber, accountName: 'Chikondi Hardware' });

    // --url given explicitly instead of through ONEKHUSA_URL.
    const token = await cli(
      ['token', '--url', url, '--key', creds.apiKey, '--secret', creds.apiSecret, '--organisation', creds.organisationId, '--merchant', String(creds.merchantAccountNumber)],
      { ONEKHUSA_URL: undefined },
    );
    expect(token.stderr).toBe('');
    expect(token.code).toBe(0);
    const body = JSON.parse(token.stdout);
    expect(body.expiryInMinutes).toBe(5);
    const limits = await t.app.inject({
      method: 'GET',
      url: `/sandbox/v1/merchants/limits/getAll?merchantAccountNumber=${creds.merchantAccountNumber}`,
      headers: { authorization: `Bearer ${body.accessToken}` },
    });
    expect(limits.statusCode).toBe(200);
  });

  it('merchants fund records a bank receipt once, and merchants fundings lists it with who recorded it', async () => {
    const m = await newMerchant(t, { accountName: 'Funded by the bank' });
    const args = ['merchants', 'fund', '--merchant', String(m.merchantAccountNumber), '--amount', '125000.75', '--bank-reference', 'FT2433-CLI-01', '--received-on', new Date().toISOString().slice(0, 10), '--recorded-by', 'treasury@onekhusa.example'];
    const first = await cli(args);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const funding = JSON.parse(first.stdout);
    expect(funding).toMatchObject({ merchantAccountNumber: m.merchantAccountNumber, amount: 125000.75, bankReference: 'FT2433-CLI-01', recordedBy: 'treasury@onekhusa.example' });
    // The same command again credits nothing and prints the same record.
    const again = await cli(args);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(funding);
    const account = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
    expect(account.json().disbursmentBalance).toBe(125000.75);
    // The same reference for another amount: refused, with the server's problem on stderr.
    const clash = await cli(args.map((a) => (a === '125000.75' ? '1.00' : a)));
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('E906');
    const listed = await cli(['merchants', 'fundings', '--merchant', String(m.merchantAccountNumber)]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([funding]);
    const bad = await cli(['merchants', 'fund', '--merchant', String(m.merchantAccountNumber), '--amount', '1', '--bank-reference', 'X1', '--received-on', 'yesterday', '--recorded-by', 'a@b.co']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--received-on must be a date');
  });

  it('keys create issues a new key pair that gets a token; the merchant\'s first pair keeps working', async () => {
    const m = await newMerchant(t, { accountName: 'Lost Its Secret' });
    const res = await cli(['keys', 'create', '--merchant', String(m.merchantAccountNumber)]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const pair = JSON.parse(res.stdout);
    expect(pair).toMatchObject({ organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, paymentAccountNumber: m.paymentAccountNumber, clientId: expect.any(Number) });
    expect(pair.apiKey).not.toBe(m.apiKey);
    expect(pair.apiSecret).toHaveLength(45);
    // Stored only as a hash.
    const { rows } = await t.db.query<{ secret_hash: Buffer }>('select secret_hash from api_keys where client_key = $1', [pair.apiKey]);
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash.toString('utf8')).not.toContain(pair.apiSecret);

    const token = await cli(['token', '--key', pair.apiKey, '--secret', pair.apiSecret, '--organisation', pair.organisationId, '--merchant', String(pair.merchantAccountNumber)]);
    expect(token.stderr).toBe('');
    expect(token.code).toBe(0);
    const account = await t.app.inject({
      method: 'GET',
      url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`,
      headers: { authorization: `Bearer ${JSON.parse(token.stdout).accessToken}` },
    });
    expect(account.statusCode).toBe(200);
    const first = await cli(['token', '--key', m.apiKey, '--secret', m.apiSecret, '--organisation', m.organisationId, '--merchant', String(m.merchantAccountNumber)]);
    expect(first.code).toBe(0);

    // An unknown merchant: the server's 404 on stderr.
    const unknown = await cli(['keys', 'create', '--merchant', '10000001']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ status: 404, errorCode: 'E903' });
    expect((await cli(['keys', 'create'])).code).toBe(2);
  });

  it('rails health, unknown and traffic print the operator\'s view of the payment rails; traffic of a payout no rail carried exits 1', async () => {
    const health = await cli(['rails', 'health']);
    expect([health.code, health.stderr]).toEqual([0, '']);
    // No real rail is configured here: every connector goes to the simulated one.
    expect(JSON.parse(health.stdout).rails).toEqual([expect.objectContaining({ rail: 'simulated', connectorIds: 'others', inFlight: 0, overdue: 0, oldestInFlightSeconds: null, collections: null })]);
    const unknown = await cli(['rails', 'unknown', '--limit', '5']);
    expect([unknown.code, JSON.parse(unknown.stdout)]).toEqual([0, []]);
    const traffic = await cli(['rails', 'traffic', '--reference', 'ABCDEF123456']);
    expect(traffic.code).toBe(1);
    expect(traffic.stderr).toContain('ABCDEF123456');
    expect((await cli(['rails', 'traffic', '--reference', 'nope'])).code).toBe(2);
    expect((await cli(['rails', 'traffic', '--collection', 'ABCDEF123456'])).code).toBe(1);
    expect((await cli(['rails', 'traffic'])).code).toBe(2);
    expect((await cli(['rails', 'traffic', '--reference', 'ABCDEF123456', '--collection', 'ABCDEF123456'])).code).toBe(2);
  });

  it('rails reconcile, exceptions and resolve: the reconciliation as the operator drives it; refused where no rail keeps a record', async () => {
    const listed = await cli(['rails', 'exceptions']);
    expect([listed.code, JSON.parse(listed.stdout)]).toEqual([0, []]);
    expect(JSON.parse((await cli(['rails', 'exceptions', '--all', '--limit', '5'])).stdout)).toEqual([]);
    // No Mojaloop here: nothing to reconcile with, the server's 404 on stderr.
    const reconcile = await cli(['rails', 'reconcile', '--day', '2025-09-18']);
    expect(reconcile.code).toBe(1);
    expect(JSON.parse(reconcile.stderr)).toMatchObject({ status: 404, errorCode: 'E903' });
    expect((await cli(['rails', 'reconcile', '--day', '18/09/2025'])).code).toBe(2);
    const resolve = await cli(['rails', 'resolve', '--id', '5', '--action', 'accept', '--reason', 'The switch was right']);
    expect(resolve.code).toBe(1);
    expect(JSON.parse(resolve.stderr)).toMatchObject({ status: 404 });
    expect((await cli(['rails', 'resolve', '--id', '5', '--action', 'fix', '--reason', 'The switch was right'])).code).toBe(2);
    expect((await cli(['rails', 'resolve', '--id', '5', '--action', 'accept'])).code).toBe(2);
  });

  it('says the server was started without ADMIN_TOKEN when that is why an operator command fails', async () => {
    const bare = await startTestApp({}, { adminToken: undefined });
    try {
      await bare.app.listen({ port: 0, host: '127.0.0.1' });
      const bareUrl = `http://127.0.0.1:${(bare.app.server.address() as net.AddressInfo).port}`;
      const live = await fetch(`${bareUrl}/health/live`);
      expect(await live.json()).toMatchObject({ status: 'ok', operatorApi: false });
      for (const args of [['merchants', 'list'], ['keys', 'create', '--merchant', '10000001'], ['emails', 'list']]) {
        const res = await cli(args, { ONEKHUSA_URL: bareUrl });
        expect(res.code, args.join(' ')).toBe(1);
        expect(res.stdout).toBe('');
        expect(res.stderr).toContain('the server was started without ADMIN_TOKEN');
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
      }
      // With the operator API on, a 404 is the server's own problem, as before.
      expect(await (await fetch(`${url}/health/live`)).json()).toMatchObject({ operatorApi: true });
    } finally {
      await bare.close();
    }
  });

  it('exits 1 with the problem on stderr when the server refuses (wrong admin token)', async () => {
    const res = await cli(['merchants', 'list', '--admin-token', 'not-the-admin-token-at-all']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const problem = JSON.parse(res.stderr);
    expect(problem).toMatchObject({ status: 401, errorCode: 'E901' });
    expect(res.stderr).not.toContain('not-the-admin-token-at-all');
  });

  it('exits 1 with the problem on stderr for bad credentials, without echoing the secret', async () => {
    const res = await cli(['token', '--key', 'k'.repeat(30), '--secret', 'wrong-secret-value-123', '--organisation', 'AAAAAAAAAAAA', '--merchant', '10000000']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr)).toMatchObject({ status: 401, errorCode: 'E901' });
    expect(res.stderr).not.toContain('wrong-secret-value-123');
  });

  it('exits 1 with a one-line message when the server cannot be reached', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const res = await cli(['merchants', 'list', '--url', dead]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`cannot reach ${dead}`);
    expect(res.stderr).toContain('is the server running?');
  });

  it.each([
    ['an unknown command', ['frobnicate']],
    ['a missing --name', ['merchants', 'create']],
    ['a non-numeric --level', ['merchants', 'create', '--name', 'Shop', '--level', 'two']],
    ['an unknown option', ['merchants', 'list', '--colour', 'blue']],
    ['an unknown event code for listen', ['listen', '--key', 'k', '--secret', 's', '--organisation', 'o', '--merchant', '10000000', '--events', 'payment.sucess']],
    ['a --forward-to that is not http(s)', ['listen', '--key', 'k', '--secret', 's', '--organisation', 'o', '--merchant', '10000000', '--forward-to', 'ftp://x']],
  ])('exits 2 on %s', async (_name, args) => {
    const res = await cli(args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: /);
  });

  it('prints usage and exits 0 on help', async () => {
    const res = await cli(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('merchants create --name');
  });
});

/** `listen` as a child process: its stdout lines and stderr as they come, and a way to stop it. */
class Listener {
  readonly lines: Record<string, unknown>[] = [];
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'listen', ...args], { cwd: ROOT, env: { ...process.env, ONEKHUSA_URL: url } });
    let pending = '';
    this.child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const part of parts) if (part.trim()) this.lines.push(JSON.parse(part));
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', resolve));
  }

  async until<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      if (this.child.exitCode !== null) throw new Error(`listen exited (${this.child.exitCode}) while waiting for ${what}; stderr:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Resolves with the receiver's callback URL once it has subscribed. */
  ready(): Promise<string> {
    return this.until('the ready line', () => /^listening on (\S+) /m.exec(this.stderr)?.[1]);
  }

  line(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return this.until('a delivery line', () => this.lines.find(predicate));
  }

  stop(signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
    this.child.kill(signal);
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('npm run cli -- listen', () => {
  let worker: Worker;
  const listeners: Listener[] = [];

  beforeAll(async () => {
    worker = await startWorker(t.deps, 2, workerPlan(t.deps));
  });
  afterAll(async () => {
    for (const l of listeners) l.kill();
    await worker.stop();
  });

  function listenAs(m: TestMerchant, ...args: string[]): Listener {
    const l = new Listener(['--key', m.apiKey, '--secret', m.apiSecret, '--organisation', m.organisationId, '--merchant', String(m.merchantAccountNumber), ...args]);
    listeners.push(l);
    return l;
  }

  async function webhooksOf(m: TestMerchant): Promise<{ eventCode: string; callbackUrl: string; webhookId: number }[]> {
    const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/webhooks/getAll?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  async function sendTest(m: TestMerchant, eventCode: string): Promise<number> {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/test`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode } });
    expect(res.statusCode).toBe(200);
    return res.json().deliveryId;
  }

  async function attemptsOf(m: TestMerchant, deliveryId: number): Promise<{ status: string; attempts: { httpStatus: number | null }[] }> {
    for (const deadline = Date.now() + 10_000; ; ) {
      const res = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/deliveries`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber } });
      const delivery = (res.json() as { deliveryId: number; status: string; attempts: { httpStatus: number | null }[] }[]).find((d) => d.deliveryId === deliveryId);
      if (delivery && delivery.attempts.length > 0) return delivery;
      if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} has no attempt`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The merchant's unexpired temporary listeners, from the database. */
  async function activeListeners(m: TestMerchant): Promise<{ listener_id: number; callback_url: string; expires_at: Date }[]> {
    const { rows } = await t.db.query<{ listener_id: number; callback_url: string; expires_at: Date }>(
      'select listener_id, callback_url, expires_at from webhook_listeners where merchant_account_number = $1 and expires_at > now() order by listener_id',
      [m.merchantAccountNumber],
    );
    return rows;
  }

  /** A subscription of m's own, which listen must leave exactly as it is. */
  async function subscribe(m: TestMerchant, eventCode: string, callbackUrl = 'https://shop.example.mw/hooks/onekhusa'): Promise<void> {
    const added = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode, callbackUrl, capturedBy: 'dev@shop.example.mw' } });
    expect(added.statusCode).toBe(201);
  }

  it('gets a copy of the events through a listener, prints each delivery with its deliveryId and a verified signature, and deletes the listener on SIGINT', async () => {
    const m = await newMerchant(t);
    await subscribe(m, 'payment.success');
    const before = await webhooksOf(m);
    const l = listenAs(m, '--events', 'payment.success,payrequest.success');
    const callbackUrl = await l.ready();
    expect(l.stderr).toContain('payment.success, payrequest.success');
    // The merchant's subscriptions are not touched: listen has a listener of its own.
    expect(await webhooksOf(m)).toEqual(before);
    expect((await activeListeners(m)).map((x) => x.callback_url)).toEqual([callbackUrl]);

    // The subscription gets the event as before; listen gets a copy, a delivery of its own.
    const subscriptionDelivery = await sendTest(m, 'payment.success');
    const line = await l.line((x) => x.eventCode === 'payment.success');
    expect(line).toMatchObject({ eventCode: 'payment.success', signatureValid: true, isTest: true, deliveryId: expect.any(Number), webhookMessageId: expect.stringMatching(/^msg_/) });
    expect(line).not.toHaveProperty('webhookId');
    expect(line.deliveryId).not.toBe(subscriptionDelivery);
    expect(line.body).toMatchObject({ eventCode: 'payment.success', merchantAccountNumber: m.merchantAccountNumber, isTest: true });
    expect(Date.parse(line.receivedAt as string)).not.toBeNaN();
    expect(await attemptsOf(m, line.deliveryId as number)).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 200 }] });

    // An event only the listener takes (no subscription): a test event goes to it alone.
    const onlyCopy = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/test`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payrequest.success' } });
    expect(onlyCopy.statusCode).toBe(200);
    expect(onlyCopy.json()).toMatchObject({ webhookId: null });
    expect(await l.line((x) => x.eventCode === 'payrequest.success')).toMatchObject({ signatureValid: true, deliveryId: onlyCopy.json().deliveryId });

    // A delivery with a forged signature is printed too, marked invalid.
    const forged = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-onekhusa-webhook-event': 'payment.success', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
      body: JSON.stringify({ eventCode: 'payment.success' }),
    });
    expect(forged.status).toBe(200);
    expect(await l.line((x) => x.webhookMessageId === 'msg_forged')).toMatchObject({ signatureValid: false, isTest: false, deliveryId: null });

    expect(await l.stop('SIGINT')).toBe(0);
    expect(await webhooksOf(m)).toEqual(before);
    expect(await activeListeners(m)).toEqual([]);
    // With the listener gone, an event nobody subscribes to has nowhere to go.
    const none = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/test`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payrequest.success' } });
    expect(none.statusCode).toBe(404);
  });

  it('keeps its listener alive past the first lease by renewing it', async () => {
    const m = await newMerchant(t);
    const l = listenAs(m, '--events', 'payment.success', '--lease-seconds', '5');
    await l.ready();
    const [first] = await activeListeners(m);
    expect(first).toBeDefined();
    // Until the database's clock is past the first lease's end (bounded: a 5-second lease).
    for (const deadline = Date.now() + 20_000; ; ) {
      const { rows } = await t.db.query<{ past: boolean }>('select now() > $1::timestamptz as past', [first.expires_at]);
      if (rows[0].past) break;
      if (Date.now() > deadline) throw new Error('the first lease did not end');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Renewed, the same listener still takes the events.
    expect((await activeListeners(m)).map((x) => x.listener_id)).toEqual([first.listener_id]);
    await sendTest(m, 'payment.success');
    expect(await l.line((x) => x.eventCode === 'payment.success')).toMatchObject({ signatureValid: true });
    expect(await l.stop()).toBe(0);
  });

  it('leaves the subscriptions exactly as they were when SIGKILLed, and its lease lapses: nothing more goes to the dead port', async () => {
    const m = await newMerchant(t);
    await subscribe(m, 'payment.success');
    await subscribe(m, 'payout.failed', 'https://shop.example.mw/hooks/payouts');
    const before = await webhooksOf(m);
    const l = listenAs(m, '--events', 'payment.success,payrequest.success', '--lease-seconds', '5');
    const deadUrl = await l.ready();
    expect(await webhooksOf(m)).toEqual(before);
    await sendTest(m, 'payment.success');
    await l.line((x) => x.eventCode === 'payment.success');

    l.kill();
    await l.exited;
    // No clean-up ran, and none was needed.
    expect(await webhooksOf(m)).toEqual(before);
    // The lease lapses by itself (bounded: a 5-second lease)…
    for (const deadline = Date.now() + 20_000; (await activeListeners(m)).length > 0; ) {
      if (Date.now() > deadline) throw new Error('the lease of the killed listen did not lapse');
      await new Promise((r) => setTimeout(r, 200));
    }
    // …and then events reach the subscriptions only, never the dead port.
    const toDeadPort = async () => (await t.db.query<{ n: number }>('select count(*)::int as n from webhook_deliveries where callback_url = $1', [deadUrl])).rows[0].n;
    const copiesBefore = await toDeadPort();
    await sendTest(m, 'payment.success');
    expect(await toDeadPort()).toBe(copiesBefore);
    const onlyListened = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/test`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payrequest.success' } });
    expect(onlyListened.statusCode).toBe(404);
    expect(await toDeadPort()).toBe(copiesBefore);
    expect(await webhooksOf(m)).toEqual(before);
  });

  it('forwards to --forward-to and answers with its status; an existing subscription is left as it is', async () => {
    const m = await newMerchant(t);
    const previousUrl = 'https://shop.example.mw/hooks/onekhusa';
    const added = await t.app.inject({ method: 'POST', url: `${BASE}/merchants/webhooks/add`, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, eventCode: 'payment.success', callbackUrl: previousUrl, capturedBy: 'dev@shop.example.mw' } });
    expect(added.statusCode).toBe(201);

    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const target = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(202, { 'content-type': 'text/plain' }).end('queued by the app');
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const targetUrl = `http://127.0.0.1:${(target.address() as net.AddressInfo).port}/hook`;
      const l = listenAs(m, '--events', 'payment.success', '--forward-to', targetUrl);
      await l.ready();
      expect(l.stderr).toContain(`forwarding to ${targetUrl}`);
      const before = await webhooksOf(m);
      expect(before).toMatchObject([{ eventCode: 'payment.success', callbackUrl: previousUrl }]);

      await sendTest(m, 'payment.success');
      const line = await l.line((x) => x.eventCode === 'payment.success');
      const deliveryId = line.deliveryId as number;
      expect(line).toMatchObject({ signatureValid: true, isTest: true, forwardStatus: 202 });
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0].body)).toEqual(line.body);
      expect(received[0].headers).toMatchObject({
        'webhook-id': line.webhookMessageId,
        'x-onekhusa-delivery-id': String(deliveryId),
        'x-onekhusa-webhook-event': 'payment.success',
        'x-onekhusa-webhook-test': 'true',
        'content-type': 'application/json',
        'webhook-signature': expect.stringMatching(/^v1,/),
      });
      // The service saw the forward target's answer.
      expect(await attemptsOf(m, deliveryId)).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 202 }] });

      expect(await l.stop('SIGTERM')).toBe(0);
      expect(await webhooksOf(m)).toEqual(before);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('answers 502 when the forward target is unreachable', async () => {
    const m = await newMerchant(t);
    const l = listenAs(m, '--events', 'payment.success', '--forward-to', `http://127.0.0.1:${await closedPort()}/hook`);
    await l.ready();
    await sendTest(m, 'payment.success');
    const line = await l.line((x) => x.eventCode === 'payment.success');
    expect(line).toMatchObject({ signatureValid: true, forwardStatus: null, forwardError: expect.stringContaining('cannot reach') });
    expect(await attemptsOf(m, line.deliveryId as number)).toMatchObject({ status: 'pending', attempts: [{ httpStatus: 502 }] });
    expect(await l.stop()).toBe(0);
    expect(await webhooksOf(m)).toEqual([]);
  });

  it('exits 1 without subscribing anything when the key pair is refused', async () => {
    const m = await newMerchant(t);
    const l = listenAs({ ...m, apiSecret: 'wrong-secret-value-123' }, '--events', 'payment.success');
    expect(await l.exited).toBe(1);
    expect(JSON.parse(l.stderr)).toMatchObject({ status: 401 });
    expect(l.stderr).not.toContain('wrong-secret-value-123');
    expect(await webhooksOf(m)).toEqual([]);
  });
});

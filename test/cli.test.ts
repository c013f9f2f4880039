// The operator CLI, run as a real child process against the real app listening on a real port.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../src/jobs/queue.ts';
import { ADMIN_TOKEN, BASE, closedPort, newMerchant, ROOT, runCli, startTestApp, type CliResult, type TestApp, type TestMerchant } from './helpers.ts';


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
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'listen', ...args], { cwd: ROOT, env: { ...process.env, ONEKHUSA_URL: url } });
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
    worker = await startWorker(t.deps, 2);
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

  it('subscribes itself, prints each delivery with a verified signature, and unsubscribes on SIGINT', async () => {
    const m = await newMerchant(t);
    const l = listenAs(m, '--events', 'payment.success,payrequest.success');
    const callbackUrl = await l.ready();
    expect(l.stderr).toContain('payment.success, payrequest.success');
    const subscribed = await webhooksOf(m);
    expect(subscribed.map((s) => [s.eventCode, s.callbackUrl]).sort()).toEqual([
      ['payment.success', callbackUrl],
      ['payrequest.success', callbackUrl],
    ]);

    const deliveryId = await sendTest(m, 'payment.success');
    const line = await l.line((x) => x.eventCode === 'payment.success');
    expect(line).toMatchObject({ eventCode: 'payment.success', signatureValid: true, isTest: true, webhookId: expect.stringMatching(/^msg_/) });
    expect(line.body).toMatchObject({ eventCode: 'payment.success', merchantAccountNumber: m.merchantAccountNumber, isTest: true });
    expect(Date.parse(line.receivedAt as string)).not.toBeNaN();
    expect(await attemptsOf(m, deliveryId)).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 200 }] });

    // A delivery with a forged signature is printed too, marked invalid.
    const forged = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-onekhusa-webhook-event': 'payment.success', 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
      body: JSON.stringify({ eventCode: 'payment.success' }),
    });
    expect(forged.status).toBe(200);
    expect(await l.line((x) => x.webhookId === 'msg_forged')).toMatchObject({ signatureValid: false, isTest: false });

    expect(await l.stop('SIGINT')).toBe(0);
    expect(await webhooksOf(m)).toEqual([]);
  });

  it('forwards to --forward-to and answers with its status; an existing subscription is restored on exit', async () => {
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
      const callbackUrl = await l.ready();
      expect(l.stderr).toContain(`forwarding to ${targetUrl}`);
      expect(await webhooksOf(m)).toMatchObject([{ eventCode: 'payment.success', callbackUrl }]);

      const deliveryId = await sendTest(m, 'payment.success');
      const line = await l.line((x) => x.eventCode === 'payment.success');
      expect(line).toMatchObject({ signatureValid: true, isTest: true, forwardStatus: 202 });
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0].body)).toEqual(line.body);
      expect(received[0].headers).toMatchObject({
        'webhook-id': line.webhookId,
        'x-onekhusa-webhook-event': 'payment.success',
        'x-onekhusa-webhook-test': 'true',
        'content-type': 'application/json',
        'webhook-signature': expect.stringMatching(/^v1,/),
      });
      // The service saw the forward target's answer.
      expect(await attemptsOf(m, deliveryId)).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 202 }] });

      expect(await l.stop('SIGTERM')).toBe(0);
      expect(await webhooksOf(m)).toMatchObject([{ eventCode: 'payment.success', callbackUrl: previousUrl }]);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('answers 502 when the forward target is unreachable', async () => {
    const m = await newMerchant(t);
    const l = listenAs(m, '--events', 'payment.success', '--forward-to', `http://127.0.0.1:${await closedPort()}/hook`);
    await l.ready();
    const deliveryId = await sendTest(m, 'payment.success');
    const line = await l.line((x) => x.eventCode === 'payment.success');
    expect(line).toMatchObject({ signatureValid: true, forwardStatus: null, forwardError: expect.stringContaining('cannot reach') });
    expect(await attemptsOf(m, deliveryId)).toMatchObject({ status: 'pending', attempts: [{ httpStatus: 502 }] });
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
